//! What the API server refuses in the specs of kinds other than pods
//! (`pkg/apis/{apps,batch,core,networking,policy,rbac}/validation`):
//! update strategies and their int-or-percent amounts, a Job's generated
//! selector, a CronJob's schedule, time zone and policy, a
//! PodDisruptionBudget's amounts, a Service's type and ports, a
//! NetworkPolicy's ports, peers and policy types, RBAC rules, subjects,
//! role references and aggregation selectors, a Lease's spec, a
//! ControllerRevision's data, an APIService's spec
//! (`kube-aggregator/pkg/apis/apiregistration/validation`) and an
//! EndpointSlice (`pkg/apis/discovery/validation`).

use std::net::IpAddr;

use serde_json::Value as Json;

use super::one_of;
use super::{cron, port_number};
use crate::json::{Field, Found, each, whole};
use crate::location::KeyPath;
use crate::names;
use crate::scheduling::label_selector;

/// A field the server defaults when it is empty: `""` is as unset.
fn defaulted(value: &Json) -> &Json {
    match value {
        Json::String(text) if text.is_empty() => &Json::Null,
        _ => value,
    }
}

/// The checks of `object`'s kind.
pub fn check(kind: &str, object: &Json, found: &mut Found) {
    let spec = object.field("spec");
    // Made on first use: most kinds have nothing checked here.
    let at = std::cell::LazyCell::new(|| KeyPath::root().key("spec"));
    match kind {
        "Deployment" => deployment_strategy(&spec["strategy"], &at.key("strategy"), found),
        // `ValidatePriorityLevelConfiguration`: the `exempt` level is the
        // one of type Exempt.
        "PriorityLevelConfiguration" => {
            let name = object.field("metadata").field("name").as_str();
            if let Some(level) = spec["type"].as_str()
                && (level == "Exempt") != (name == Some("exempt"))
            {
                found.push((
                    at.key("type"),
                    format!("`{level}`: the type is `Exempt` if and only if the name is `exempt`"),
                ));
            }
        }
        // `ValidateLeaseSpec`: a duration above 0, transitions not
        // negative. (Its `strategy` and `preferredHolder` are dropped
        // unread: their feature, CoordinatedLeaderElection, is off by
        // default.)
        "Lease" => {
            if let Some(seconds) = whole(&spec["leaseDurationSeconds"])
                && seconds <= 0
            {
                let at = at.key("leaseDurationSeconds");
                found.push((at, format!("{seconds}: must be greater than 0")));
            }
            if let Some(transitions) = whole(&spec["leaseTransitions"])
                && transitions < 0
            {
                let at = at.key("leaseTransitions");
                found.push((
                    at,
                    format!("{transitions}: must be greater than or equal to 0"),
                ));
            }
        }
        // `ValidateControllerRevisionCreate`: data given (null is none), a
        // revision not negative.
        "ControllerRevision" => {
            // (Another type than an object is the schema's.)
            if object.field("data").is_null() {
                found.push((KeyPath::root().key("data"), "data is mandatory".to_owned()));
            }
            if let Some(revision) = whole(object.field("revision"))
                && revision < 0
            {
                let at = KeyPath::root().key("revision");
                found.push((
                    at,
                    format!("{revision}: must be greater than or equal to 0"),
                ));
            }
        }
        "DaemonSet" => {
            let strategy = &spec["updateStrategy"];
            let path = at.key("updateStrategy");
            one_of(
                defaulted(&strategy["type"]),
                &["RollingUpdate", "OnDelete"],
                path.key("type"),
                found,
            );
            // An OnDelete strategy's rollingUpdate is not read.
            if strategy["type"] != "OnDelete" {
                rolling(
                    &strategy["rollingUpdate"],
                    &path.key("rollingUpdate"),
                    true,
                    found,
                );
            }
        }
        "StatefulSet" => {
            // Its pods' subdomain: a DNS-1123 label where given.
            if let Some(service) = spec["serviceName"].as_str().filter(|s| !s.is_empty())
                && let Err(why) = names::dns1123_label(service)
            {
                found.push((
                    at.key("serviceName"),
                    format!("`{service}` is not a valid serviceName: {why}"),
                ));
            }
            let strategy = &spec["updateStrategy"];
            let path = at.key("updateStrategy");
            one_of(
                defaulted(&strategy["type"]),
                &["RollingUpdate", "OnDelete"],
                path.key("type"),
                found,
            );
            if strategy["type"] == "OnDelete" && !strategy["rollingUpdate"].is_null() {
                found.push((
                    path.key("rollingUpdate"),
                    "rollingUpdate is only for the RollingUpdate strategy".to_owned(),
                ));
            }
            one_of(
                defaulted(&spec["podManagementPolicy"]),
                &["OrderedReady", "Parallel"],
                at.key("podManagementPolicy"),
                found,
            );
            if let Some(partition) = whole(&strategy["rollingUpdate"]["partition"])
                && partition < 0
            {
                found.push((
                    path.key("rollingUpdate").key("partition"),
                    format!("{partition} is negative"),
                ));
            }
            if let Some(start) = whole(&spec["ordinals"]["start"])
                && start < 0
            {
                found.push((
                    at.key("ordinals").key("start"),
                    format!("{start} is negative"),
                ));
            }
            for policy in ["whenDeleted", "whenScaled"] {
                one_of(
                    defaulted(&spec["persistentVolumeClaimRetentionPolicy"][policy]),
                    &["Retain", "Delete"],
                    at.key("persistentVolumeClaimRetentionPolicy").key(policy),
                    found,
                );
            }
        }
        "Job" => job(
            spec,
            object["metadata"]["name"].as_str().unwrap_or_default(),
            &at,
            false,
            found,
        ),
        "CronJob" => {
            cron_job(spec, &at, found);
            job(
                &spec["jobTemplate"]["spec"],
                "",
                &at.key("jobTemplate").key("spec"),
                true,
                found,
            );
        }
        "PodDisruptionBudget" => {
            if !spec["minAvailable"].is_null() && !spec["maxUnavailable"].is_null() {
                found.push((
                    at.clone(),
                    "minAvailable and maxUnavailable cannot both be set".to_owned(),
                ));
            }
            for field in ["minAvailable", "maxUnavailable"] {
                amount(&spec[field], &at.key(field), found);
            }
            one_of(
                &spec["unhealthyPodEvictionPolicy"],
                &["IfHealthyBudget", "AlwaysAllow"],
                at.key("unhealthyPodEvictionPolicy"),
                found,
            );
        }
        "ReplicationController" => {
            // A plain map selector, which an empty one is the template's
            // labels (`SetDefaults_ReplicationController`): given, and
            // selecting the template, which is given too.
            let template = &spec["template"];
            let labels = template["metadata"]["labels"].as_object();
            let written = spec["selector"].as_object().filter(|s| !s.is_empty());
            match written.or(labels).filter(|s| !s.is_empty()) {
                None => found.push((
                    at.key("selector"),
                    "a ReplicationController needs a selector (an empty one is its template's labels, and it has none)".to_owned(),
                )),
                Some(selector) => {
                    if !(selector.iter()).all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v)) {
                        found.push((
                            at.key("selector"),
                            "the selector does not match the template's labels".to_owned(),
                        ));
                    }
                }
            }
            if template.is_null() {
                found.push((
                    at.key("template"),
                    "a ReplicationController needs a pod template".to_owned(),
                ));
            }
        }
        "Namespace" => pod_security_labels(object, found),
        "Service" => service(spec, &at, found),
        "NetworkPolicy" => network_policy(spec, &at, found),
        "Role" | "ClusterRole" => role(object, kind, found),
        "CustomResourceDefinition" => super::crd::check(spec, &at, found),
        "LimitRange" => super::limit_range::check(spec, &at, found),
        "RoleBinding" | "ClusterRoleBinding" => binding(object, kind, found),
        "APIService" => api_service(spec, &at, found),
        "EndpointSlice" => endpoint_slice(object, found),
        _ => {}
    }
}

/// An int-or-percent amount: a non-negative integer, or `N%` with N at
/// most 100 (when `capped`). The amount, or `None` when unset or invalid.
fn int_or_percent(
    value: &Json,
    at: &KeyPath,
    capped: bool,
    found: &mut Found,
) -> Option<(u64, bool)> {
    match value {
        Json::Number(n) => match n.as_u64() {
            Some(n) => Some((n, false)),
            None => {
                found.push((at.clone(), format!("{n} is not a non-negative integer")));
                None
            }
        },
        Json::String(text) => {
            let number = text
                .strip_suffix('%')
                .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
            // Go's `Atoi` gives its largest int for digits past it, so a
            // percentage too large for a number is one, and not 0.
            match number.map(|d| d.parse::<u64>().unwrap_or(u64::MAX)) {
                Some(p) if capped && p > 100 => {
                    found.push((at.clone(), format!("`{text}` is more than 100%")));
                    None
                }
                Some(p) => Some((p, true)),
                None => {
                    found.push((
                        at.clone(),
                        format!("`{text}` is not a percentage such as 25%, nor an integer"),
                    ));
                    None
                }
            }
        }
        _ => None,
    }
}

/// A PodDisruptionBudget amount: int-or-percent, at most 100%.
fn amount(value: &Json, at: &KeyPath, found: &mut Found) {
    int_or_percent(value, at, true, found);
}

/// A Deployment's strategy: its type, no `rollingUpdate` with `Recreate`.
fn deployment_strategy(strategy: &Json, at: &KeyPath, found: &mut Found) {
    one_of(
        defaulted(&strategy["type"]),
        &["Recreate", "RollingUpdate"],
        at.key("type"),
        found,
    );
    if strategy["type"].as_str() == Some("Recreate") && !strategy["rollingUpdate"].is_null() {
        found.push((
            at.key("rollingUpdate"),
            "rollingUpdate may not be set when the type is Recreate".to_owned(),
        ));
    }
    rolling(
        &strategy["rollingUpdate"],
        &at.key("rollingUpdate"),
        false,
        found,
    );
}

/// `maxUnavailable` and `maxSurge`: amounts, at most 100% unavailable (and
/// surging, for a DaemonSet), and not both 0.
fn rolling(rolling: &Json, at: &KeyPath, daemon: bool, found: &mut Found) {
    let unavailable = int_or_percent(
        &rolling["maxUnavailable"],
        &at.key("maxUnavailable"),
        true,
        found,
    );
    let surge = int_or_percent(&rolling["maxSurge"], &at.key("maxSurge"), daemon, found);
    if !daemon {
        if unavailable.is_some_and(|(n, _)| n == 0) && surge.is_some_and(|(n, _)| n == 0) {
            found.push((
                at.key("maxUnavailable"),
                "maxUnavailable and maxSurge cannot both be 0".to_owned(),
            ));
        }
        return;
    }
    // A DaemonSet's: unset, maxUnavailable is 1 and maxSurge 0; exactly one
    // of them is non-zero (a value that is no amount was said above).
    let value = |field: &str, given: Option<(u64, bool)>, default: u64| match &rolling[field] {
        Json::Null => Some(default),
        _ => given.map(|(n, _)| n),
    };
    match (
        value("maxUnavailable", unavailable, 1),
        value("maxSurge", surge, 0),
    ) {
        (Some(u), Some(s)) if u != 0 && s != 0 => found.push((
            at.key("maxSurge"),
            if rolling["maxUnavailable"].is_null() {
                "maxSurge cannot be set while maxUnavailable is non-zero (its default is 1)"
                    .to_owned()
            } else {
                "maxSurge cannot be set while maxUnavailable is non-zero".to_owned()
            },
        )),
        (Some(0), Some(0)) => found.push((
            at.key("maxUnavailable"),
            if rolling["maxSurge"].is_null() {
                "maxUnavailable cannot be 0 while maxSurge is 0 (its default)".to_owned()
            } else {
                "maxUnavailable and maxSurge cannot both be 0".to_owned()
            },
        )),
        _ => {}
    }
}

/// A Job's spec (`templated`: inside a CronJob, whose Jobs always get
/// generated selectors; `name`: the Job's).
///
/// Without `manualSelector: true` the API server generates the selector:
/// it adds `controller-uid=<the Job's uid>` to the one given (or to an
/// empty one) and the labels `job-name`, `controller-uid` and their
/// `batch.kubernetes.io/` forms to the template, and refuses a selector
/// that does not select exactly those generated labels ("`selector` not
/// auto-generated"): an empty selector passes, `app: web` does not, and
/// the uid is not known before the Job exists, and a name past 63
/// characters, which no label value holds. With it, the selector is
/// required.
fn job(spec: &Json, name: &str, at: &KeyPath, templated: bool, found: &mut Found) {
    let manual = spec["manualSelector"].as_bool() == Some(true);
    if templated && manual {
        found.push((
            at.key("manualSelector"),
            "a CronJob's Jobs cannot have manualSelector".to_owned(),
        ));
    }
    if !templated && !manual {
        // The generated labels where the template has none; one it has is
        // held to the generated value (the uid is unknown: any refused).
        let labels = &spec["template"]["metadata"]["labels"];
        for key in ["job-name", "batch.kubernetes.io/job-name"] {
            if let Some(value) = labels[key].as_str()
                && value != name
            {
                found.push((
                    at.key("template").key("metadata").key("labels").key(key),
                    format!(
                        "`{value}`: the API server sets this label to the Job's name, `{name}`"
                    ),
                ));
            }
        }
        for key in ["controller-uid", "batch.kubernetes.io/controller-uid"] {
            if !labels[key].is_null() {
                found.push((
                    at.key("template").key("metadata").key("labels").key(key),
                    "the API server sets this label to the Job's uid, which no manifest knows; leave it out".to_owned(),
                ));
            }
        }
    }
    // An Indexed Job's pods are `<name>-<index>`, each a DNS-1123 label.
    if !templated
        && spec["completionMode"] == "Indexed"
        && let Some(last) = whole(&spec["completions"])
            .or(spec["parallelism"].is_null().then_some(1))
            .filter(|c| *c > 0)
        && let Err(why) = names::dns1123_label(&format!("{name}-{}", last - 1))
    {
        found.push((
            KeyPath::dotted("metadata.name"),
            format!(
                "its last pod's hostname `{name}-{}` is no DNS-1123 label: {why}",
                last - 1
            ),
        ));
    }
    // A CronJob's Job template gets no Job defaults: Indexed, it gives
    // its completions.
    if templated
        && spec["completionMode"] == "Indexed"
        && spec["completions"].is_null()
        && spec["parallelism"].is_null()
    {
        found.push((
            at.key("completions"),
            "an Indexed Job of a CronJob gives its completions (a CronJob's Job template gets no defaults)".to_owned(),
        ));
    }
    if !templated && !manual && name.len() > 63 {
        found.push((
            at.key("template").key("metadata").key("labels"),
            format!(
                "the API server labels a Job's pods with its name (`job-name`), and `{name}` is {} characters, more than a label value's 63; shorten it, or give the selector with manualSelector: true",
                name.len()
            ),
        ));
    }
    let selector = &spec["selector"];
    if templated && !selector.is_null() {
        found.push((
            at.key("selector"),
            "the API server generates the selector of a CronJob's Jobs; give none".to_owned(),
        ));
    } else if !templated && manual && selector.is_null() {
        found.push((
            at.key("selector"),
            "with manualSelector: true a Job gives its selector".to_owned(),
        ));
    } else if !templated && !manual && selector.is_object() {
        // No uid can match the one the server gives: an unknown value.
        let unknown = Json::from("\u{0}");
        let generated: serde_json::Map<String, Json> = [
            ("job-name", Json::from(name)),
            ("batch.kubernetes.io/job-name", Json::from(name)),
            ("controller-uid", unknown.clone()),
            ("batch.kubernetes.io/controller-uid", unknown),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        if crate::selector::evaluate(selector, |k| generated.get(k).and_then(Json::as_str))
            == crate::selector::Selected::No
        {
            found.push((
                at.key("selector"),
                "the API server generates a Job's selector and refuses one that selects more than the labels it generates (job-name, controller-uid); give another only with manualSelector: true".to_owned(),
            ));
        }
    }
    one_of(
        &spec["completionMode"],
        &["NonIndexed", "Indexed"],
        at.key("completionMode"),
        found,
    );
    // With a pod failure policy, only Failed.
    let replacements: &[&str] = match spec["podFailurePolicy"].is_null() {
        true => &["TerminatingOrFailed", "Failed"],
        false => &["Failed"],
    };
    one_of(
        &spec["podReplacementPolicy"],
        replacements,
        at.key("podReplacementPolicy"),
        found,
    );
    indexes(spec, at, found);
    super::job::failure_policy(spec, at, found);
    // Without completions and parallelism, both are 1.
    let completions = whole(&spec["completions"]).or(spec["parallelism"].is_null().then_some(1));
    if let Some(completions) = completions
        && spec["completionMode"] == "Indexed"
        && !spec["successPolicy"].is_null()
    {
        super::job::success_policy(spec, completions, at, found);
    }
    if !spec["podFailurePolicy"].is_null()
        && spec["template"]["spec"]["restartPolicy"] == "OnFailure"
    {
        found.push((
            at.key("template").key("spec").key("restartPolicy"),
            "a Job with a podFailurePolicy restarts its pods Never".to_owned(),
        ));
    }
    if let Some(manager) = spec["managedBy"].as_str()
        && let Err(why) = domain_prefixed_path(manager, 63)
    {
        found.push((
            at.key("managedBy"),
            format!("`{manager}` is not a managedBy: {why}"),
        ));
    }
    if let Some(seconds) = whole(&spec["activeDeadlineSeconds"])
        && seconds < 0
    {
        found.push((
            at.key("activeDeadlineSeconds"),
            format!("{seconds} is negative"),
        ));
    }
}

/// A Job's indexes: `backoffLimitPerIndex` and `maxFailedIndexes` (the
/// latter beside the former) and a `successPolicy` only in `Indexed`
/// mode, which needs `completions` beside a `parallelism` (without both,
/// both are 1); at most 100,000 pods in parallel and
/// failed indexes, the latter at most `completions`; past 100,000
/// completions with a per-index limit, `maxFailedIndexes` given, and at
/// most 10,000 of parallelism and failed indexes.
fn indexes(spec: &Json, at: &KeyPath, found: &mut Found) {
    let number = |field: &str| whole(&spec[field]);
    let indexed = spec["completionMode"] == "Indexed";
    let per_index = number("backoffLimitPerIndex");
    let most_failed = number("maxFailedIndexes");
    let mut refuse = |field: &str, why: String| found.push((at.key(field), why));
    if most_failed.is_some() && spec["backoffLimitPerIndex"].is_null() {
        refuse(
            "backoffLimitPerIndex",
            "maxFailedIndexes needs a backoffLimitPerIndex".to_owned(),
        );
    }
    if !indexed {
        for field in ["backoffLimitPerIndex", "maxFailedIndexes", "successPolicy"] {
            if !spec[field].is_null() {
                refuse(field, format!("{field} needs completionMode Indexed"));
            }
        }
        return;
    }
    // Without completions and parallelism, both are 1.
    let completions = number("completions").or(spec["parallelism"].is_null().then_some(1));

    if spec["completions"].is_null() && !spec["parallelism"].is_null() {
        refuse(
            "completions",
            "an Indexed Job with a parallelism gives its completions".to_owned(),
        );
    }
    if number("parallelism").is_some_and(|p| p > 100_000) {
        refuse(
            "parallelism",
            "an Indexed Job runs at most 100000 pods in parallel".to_owned(),
        );
    }
    if let (Some(completions), Some(failed)) = (completions, most_failed)
        && failed > completions
    {
        refuse(
            "maxFailedIndexes",
            format!("maxFailedIndexes {failed} is more than completions {completions}"),
        );
    }
    if most_failed.is_some_and(|f| f > 100_000) {
        refuse(
            "maxFailedIndexes",
            "maxFailedIndexes is at most 100000".to_owned(),
        );
    }
    if completions.is_some_and(|c| c > 100_000) && per_index.is_some() {
        if spec["maxFailedIndexes"].is_null() {
            refuse(
                "maxFailedIndexes",
                "past 100000 completions with a backoffLimitPerIndex, maxFailedIndexes is given"
                    .to_owned(),
            );
        }
        for field in ["parallelism", "maxFailedIndexes"] {
            if number(field).is_some_and(|n| n > 10_000) {
                refuse(
                    field,
                    format!(
                        "past 100000 completions with a backoffLimitPerIndex, {field} is at most 10000"
                    ),
                );
            }
        }
    }
}

/// A domain-prefixed path (`IsDomainPrefixedPath`): a DNS subdomain, `/`,
/// and a path of URL characters; at most `most` characters (63 for a
/// Job's `managedBy`, 250 for an IngressClass's `controller`).
pub(super) fn domain_prefixed_path(text: &str, most: usize) -> Result<(), String> {
    if text.len() > most {
        return Err(format!("{} characters, more than {most}", text.len()));
    }
    let Some((host, path)) = text
        .split_once('/')
        .filter(|(h, p)| !h.is_empty() && !p.is_empty())
    else {
        return Err("a domain-prefixed path such as example.com/controller".to_owned());
    };
    names::dns1123_subdomain(host)?;
    match path
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/-._~%!$&'()*+,;=:".contains(&b))
    {
        true => Ok(()),
        false => Err(format!("`{path}` holds a character a URL path does not")),
    }
}

/// A CronJob's schedule, time zone and concurrency policy.
fn cron_job(spec: &Json, at: &KeyPath, found: &mut Found) {
    let zone = &spec["timeZone"];
    if let Some(schedule) = spec["schedule"].as_str()
        && let Err(why) = cron::schedule(schedule, !zone.is_null())
    {
        found.push((
            at.key("schedule"),
            format!("`{schedule}` is not a schedule: {why}"),
        ));
    }
    if let Some(name) = zone.as_str()
        && let Err(why) = cron::time_zone(name)
    {
        found.push((at.key("timeZone"), why));
    }
    one_of(
        &spec["concurrencyPolicy"],
        &["Allow", "Forbid", "Replace"],
        at.key("concurrencyPolicy"),
        found,
    );
}

/// A Service's type and what depends on it, and its ports' protocols.
fn service(spec: &Json, at: &KeyPath, found: &mut Found) {
    let kind = spec["type"].as_str().unwrap_or("ClusterIP");
    one_of(
        &spec["type"],
        &["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"],
        at.key("type"),
        found,
    );
    if kind == "ExternalName" {
        match spec["externalName"].as_str() {
            None | Some("") => found.push((
                at.key("externalName"),
                "a Service of type ExternalName needs an externalName".to_owned(),
            )),
            Some(name) => {
                if let Err(why) = names::dns1123_subdomain(name.strip_suffix('.').unwrap_or(name)) {
                    found.push((
                        at.key("externalName"),
                        format!("`{name}` is not a DNS name: {why}"),
                    ));
                }
            }
        }
    }
    let headless = spec["clusterIP"].as_str() == Some("None");
    let ports = spec["ports"].as_array().map_or(0, Vec::len);
    if ports == 0 && !headless && kind != "ExternalName" {
        found.push((
            at.key("ports"),
            format!("a Service of type {kind} needs at least one port"),
        ));
    }
    for (i, port) in each(&spec["ports"]) {
        let path = at.key("ports").index(i);
        one_of(
            &port["protocol"],
            &["TCP", "UDP", "SCTP"],
            path.key("protocol"),
            found,
        );
        // Refused for ClusterIP only (an ExternalName Service's ports are
        // not read).
        if whole(&port["nodePort"]).is_some_and(|n| n != 0) && kind == "ClusterIP" {
            found.push((
                path.key("nodePort"),
                format!("a nodePort may not be set when the type is {kind}"),
            ));
        }
    }
    // Only an externally accessible Service has an external traffic policy.
    let external = matches!(kind, "NodePort" | "LoadBalancer")
        || (kind == "ClusterIP" && each(&spec["externalIPs"]).next().is_some());
    if !external
        && let Some(policy) = spec["externalTrafficPolicy"].as_str()
        && !policy.is_empty()
    {
        found.push((
            at.key("externalTrafficPolicy"),
            format!("externalTrafficPolicy {policy} is for a NodePort or LoadBalancer Service (or one with externalIPs), not {kind}"),
        ));
    }
    addresses(spec, kind, at, found);
    // The selector is labels, read as a pod's node selector is.
    crate::scheduling::labels(&spec["selector"], &at.key("selector"), found);
    for (field, allowed) in [
        ("sessionAffinity", &["None", "ClientIP"][..]),
        ("externalTrafficPolicy", &["Cluster", "Local"]),
        ("internalTrafficPolicy", &["Cluster", "Local"]),
        (
            "ipFamilyPolicy",
            &["SingleStack", "PreferDualStack", "RequireDualStack"],
        ),
    ] {
        one_of(&spec[field], allowed, at.key(field), found);
    }
}

/// A Service's addresses and the fields of its type
/// (`ValidateServiceClusterIPsRelatedFields` and the rest of
/// `validateService`): an ExternalName Service without cluster IPs or IP
/// families; `clusterIPs` starting with `clusterIP` (which it defaults
/// to), `None` alone, else at most two IP addresses (as the server reads
/// its older fields), one of each family and of the family
/// `ipFamilies` gives it; IP families `IPv4` or `IPv6`, each once, more
/// than one not `SingleStack`; a ClientIP affinity's timeout in
/// 1..86400; external IPs that are no unspecified, loopback or link-local
/// address; `loadBalancerSourceRanges`, `allocateLoadBalancerNodePorts`
/// and `loadBalancerClass` (a qualified name) only on a LoadBalancer; a
/// `healthCheckNodePort` only on a LoadBalancer with a Local external
/// traffic policy; ports' `appProtocol` qualified names; a
/// `trafficDistribution` of `PreferClose`, `PreferSameZone` or
/// `PreferSameNode`.
fn addresses(spec: &Json, kind: &str, at: &KeyPath, found: &mut Found) {
    let refuse = |found: &mut Found, field: &str, why: String| found.push((at.key(field), why));
    let strings = |field: &str| -> Vec<(usize, &str)> {
        each(&spec[field])
            .map(|(i, v)| (i, v.as_str().unwrap_or_default()))
            .collect()
    };
    let cluster_ip = spec["clusterIP"].as_str().unwrap_or_default();
    let mut cluster_ips = strings("clusterIPs");
    if cluster_ips.is_empty() && !cluster_ip.is_empty() {
        cluster_ips.push((0, cluster_ip));
    }
    let families = strings("ipFamilies");
    let load_balancer = kind == "LoadBalancer";
    if kind == "ExternalName" {
        for field in ["clusterIPs", "ipFamilies", "ipFamilyPolicy"] {
            let set = match field {
                "clusterIPs" => !cluster_ips.is_empty(),
                "ipFamilies" => !families.is_empty(),
                _ => !spec[field].is_null(),
            };
            if set {
                refuse(
                    found,
                    field,
                    format!("an ExternalName Service has no {field}"),
                );
            }
        }
    } else {
        if cluster_ip.is_empty() && !cluster_ips.is_empty() {
            refuse(
                found,
                "clusterIPs",
                "clusterIPs is empty without a clusterIP".to_owned(),
            );
        } else if cluster_ips
            .first()
            .is_some_and(|(_, first)| !cluster_ip.is_empty() && *first != cluster_ip)
        {
            refuse(
                found,
                "clusterIPs",
                format!("clusterIPs starts with the clusterIP {cluster_ip}"),
            );
        }
        let mut valid = true;
        let mut addresses = Vec::new();
        for (i, ip) in &cluster_ips {
            if *i == 0 && *ip == "None" {
                if cluster_ips.len() > 1 {
                    valid = false;
                    refuse(
                        found,
                        "clusterIPs",
                        "None is the only cluster IP of a headless Service".to_owned(),
                    );
                }
                continue;
            }
            match crate::cidr::legacy_ip(ip) {
                Some(address) => addresses.push(as_go_sees(address)),
                None => {
                    valid = false;
                    found.push((
                        at.key("clusterIPs").index(*i),
                        format!("`{ip}` is not an IP address"),
                    ));
                }
            }
        }
        if cluster_ips.len() > 2 {
            refuse(
                found,
                "clusterIPs",
                format!("{} cluster IPs; a Service has at most 2", cluster_ips.len()),
            );
        }
        if valid && addresses.len() == 2 && addresses[0].is_ipv4() == addresses[1].is_ipv4() {
            refuse(
                found,
                "clusterIPs",
                "the two cluster IPs are one of each family".to_owned(),
            );
        }
        if valid && cluster_ip != "None" {
            for ((i, family), address) in families.iter().zip(&addresses) {
                if (*family == "IPv4") != address.is_ipv4() && matches!(*family, "IPv4" | "IPv6") {
                    found.push((
                        at.key("clusterIPs").index(*i),
                        format!("cluster IP {address} is not of the family {family}"),
                    ));
                }
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, family) in &families {
            let path = at.key("ipFamilies").index(*i);
            if !matches!(*family, "IPv4" | "IPv6") {
                found.push((
                    path.clone(),
                    format!("`{family}` is not an IP family (IPv4, IPv6)"),
                ));
            }
            if !seen.insert(*family) {
                found.push((path, format!("IP family {family} is named twice")));
            }
        }
        if spec["ipFamilyPolicy"] == "SingleStack" && (families.len() > 1 || cluster_ips.len() > 1)
        {
            found.push((
                at.key("ipFamilyPolicy"),
                "a SingleStack Service has one IP family".to_owned(),
            ));
        }
    }
    if spec["sessionAffinity"] == "ClientIP"
        && let Some(seconds) = whole(&spec["sessionAffinityConfig"]["clientIP"]["timeoutSeconds"])
        && !(1..=86400).contains(&seconds)
    {
        refuse(
            found,
            "sessionAffinityConfig",
            format!("a ClientIP affinity's timeoutSeconds is in 1..86400, not {seconds}"),
        );
    }
    for (i, ip) in strings("externalIPs") {
        let why = match crate::cidr::legacy_ip(ip) {
            None => "is not an IP address",
            Some(address) => match special_ip(address) {
                Some(why) => why,
                None => continue,
            },
        };
        found.push((at.key("externalIPs").index(i), format!("`{ip}` {why}")));
    }
    let ranges = strings("loadBalancerSourceRanges");
    if !ranges.is_empty() && !load_balancer {
        refuse(
            found,
            "loadBalancerSourceRanges",
            "loadBalancerSourceRanges is for a LoadBalancer Service".to_owned(),
        );
    }
    for field in ["allocateLoadBalancerNodePorts", "loadBalancerClass"] {
        if !spec[field].is_null() && !load_balancer {
            refuse(
                found,
                field,
                format!("{field} is for a LoadBalancer Service"),
            );
        }
    }
    if let Some(class) = spec["loadBalancerClass"].as_str()
        && load_balancer
        && let Err(why) = names::qualified_name(class)
    {
        refuse(
            found,
            "loadBalancerClass",
            format!("`{class}` is not a load balancer class: {why}"),
        );
    }
    if whole(&spec["healthCheckNodePort"]).is_some_and(|p| p != 0)
        && !(load_balancer && spec["externalTrafficPolicy"] == "Local")
    {
        refuse(
            found,
            "healthCheckNodePort",
            "a healthCheckNodePort is for a LoadBalancer Service with externalTrafficPolicy Local"
                .to_owned(),
        );
    }
    if let Some(distribution) = spec["trafficDistribution"].as_str()
        && !matches!(
            distribution,
            "PreferClose" | "PreferSameZone" | "PreferSameNode"
        )
    {
        refuse(
            found,
            "trafficDistribution",
            format!(
                "`{distribution}` is not a traffic distribution (PreferClose, PreferSameZone, PreferSameNode)"
            ),
        );
    }
    for (i, range) in ranges {
        if crate::cidr::legacy_cidr(range.trim()).is_none() {
            found.push((
                at.key("loadBalancerSourceRanges").index(i),
                format!("`{range}` is not a CIDR"),
            ));
        }
    }
    for (i, port) in each(&spec["ports"]) {
        if let Some(protocol) = port["appProtocol"].as_str()
            && let Err(why) = names::qualified_name(protocol)
        {
            found.push((
                at.key("ports").index(i).key("appProtocol"),
                format!("`{protocol}` is not an application protocol: {why}"),
            ));
        }
    }
}

/// An address as Go's `net.IP` sees its family and kind: an IPv4-mapped
/// IPv6 address (`::ffff:10.0.0.1`) is the IPv4 address it maps.
fn as_go_sees(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
        v4 => v4,
    }
}

/// The ranges `ValidateEndpointIP` refuses, and Service `externalIPs` too:
/// unspecified, loopback, link-local and link-local multicast (an
/// IPv4-mapped IPv6 address read as its IPv4 one, as Go reads it).
fn special_ip(address: IpAddr) -> Option<&'static str> {
    match as_go_sees(address) {
        address if address.is_unspecified() => Some("is unspecified"),
        address if address.is_loopback() => Some("is a loopback address"),
        IpAddr::V4(v4) if v4.is_link_local() || v4.octets()[..3] == [224, 0, 0] => {
            Some("is a link-local address")
        }
        IpAddr::V6(v6)
            if v6.segments()[0] & 0xffc0 == 0xfe80 || v6.segments()[0] & 0xff0f == 0xff02 =>
        {
            Some("is a link-local address")
        }
        _ => None,
    }
}

/// `ValidateEndpointSlice` (`pkg/apis/discovery/validation`), after the
/// `v1` defaults (a port's name `""`, its protocol TCP): an address type
/// `IPv4`, `IPv6` or `FQDN`; at most 20,000 ports, each name a DNS-1123
/// label once (`""` too), a protocol TCP, UDP or SCTP, an `appProtocol`
/// that is a qualified name; at most 1,000 endpoints, each with 1 to 100
/// addresses of the slice's type (an IPv4 address as the server reads
/// its older fields, an IPv6 one in canonical form, neither unspecified,
/// loopback or link-local; a fully qualified domain name), a node name
/// that is a DNS subdomain, a hostname that is a DNS-1123 label, and at
/// most 8 zone and 8 node hints, each named once (`dropTopologyOnV1`
/// drops a created endpoint's deprecated topology before it validates).
fn endpoint_slice(object: &Json, found: &mut Found) {
    let root = KeyPath::root();
    // Left out, `addressType` and an endpoint's `addresses` are the
    // schema's required properties.
    let kind = object["addressType"].as_str().unwrap_or_default();
    if kind.is_empty() && object["addressType"].is_string() {
        found.push((root.key("addressType"), "Required value".to_owned()));
    } else if !kind.is_empty() {
        let kinds = ["FQDN", "IPv4", "IPv6"];
        one_of(
            &object["addressType"],
            &kinds,
            root.key("addressType"),
            found,
        );
    }
    let ports: Vec<(usize, &Json)> = each(&object["ports"]).collect();
    if ports.len() > 20_000 {
        let why = super::too_many(ports.len(), 20000);
        found.push((root.key("ports"), why));
    } else {
        let mut seen = std::collections::HashSet::new();
        for (i, port) in ports {
            let at = root.key("ports").index(i);
            // An empty name (the default) is no label, and counts once.
            let name = port["name"].as_str().unwrap_or_default();
            if !name.is_empty()
                && let Err(why) = names::dns1123_label(name)
            {
                found.push((at.key("name"), format!("`{name}`: {why}")));
            }
            if !seen.insert(name) {
                found.push((at.key("name"), format!("`{name}`: Duplicate value")));
            }
            one_of(
                &port["protocol"],
                &["TCP", "UDP", "SCTP"],
                at.key("protocol"),
                found,
            );
            if let Some(protocol) = port["appProtocol"].as_str()
                && let Err(why) = names::qualified_name(protocol)
            {
                found.push((at.key("appProtocol"), format!("`{protocol}`: {why}")));
            }
        }
    }
    let endpoints: Vec<(usize, &Json)> = each(&object["endpoints"]).collect();
    if endpoints.len() > 1_000 {
        let why = super::too_many(endpoints.len(), 1000);
        found.push((root.key("endpoints"), why));
        return;
    }
    for (i, endpoint) in endpoints {
        let at = root.key("endpoints").index(i);
        let addresses: Vec<(usize, &Json)> = each(&endpoint["addresses"]).collect();
        let at_addresses = at.key("addresses");
        if addresses.is_empty() && endpoint["addresses"].is_array() {
            let why = "Required value: must contain at least 1 address".to_owned();
            found.push((at_addresses.clone(), why));
        } else if addresses.len() > 100 {
            let why = super::too_many(addresses.len(), 100);
            found.push((at_addresses.clone(), why));
        }
        for (a, address) in addresses {
            let text = address.as_str().unwrap_or_default();
            let why = match kind {
                "IPv4" => match crate::cidr::legacy_ip(text) {
                    None => Some("must be a valid IP address".to_owned()),
                    Some(ip) if !as_go_sees(ip).is_ipv4() => {
                        Some("must be an IPv4 address".to_owned())
                    }
                    Some(ip) => special_ip(ip).map(str::to_owned),
                },
                "IPv6" => match names::ip_address(text) {
                    Err(why) => Some(why),
                    Ok(()) => match text.parse::<IpAddr>() {
                        Ok(ip) if ip.is_ipv4() => Some("must be an IPv6 address".to_owned()),
                        Ok(ip) => special_ip(ip).map(str::to_owned),
                        Err(_) => None,
                    },
                },
                "FQDN" => fully_qualified_domain_name(text).err(),
                _ => None,
            };
            if let Some(why) = why {
                found.push((at_addresses.index(a), format!("`{text}`: {why}")));
            }
        }
        for (key, rule) in [
            (
                "nodeName",
                names::dns1123_subdomain as fn(&str) -> Result<(), String>,
            ),
            ("hostname", names::dns1123_label),
        ] {
            if let Some(name) = endpoint[key].as_str()
                && let Err(why) = rule(name)
            {
                found.push((at.key(key), format!("`{name}`: {why}")));
            }
        }
        // (`deprecatedTopology` the v1 API drops on create, unread.)
        endpoint_hints(&endpoint["hints"], &at.key("hints"), found);
    }
}

/// An EndpointSlice endpoint's hints: at most 8 zones, each a label value
/// once; then at most 8 nodes, each a DNS subdomain once.
fn endpoint_hints(hints: &Json, at: &KeyPath, found: &mut Found) {
    for (list, rule) in [
        (
            "forZones",
            names::label_value as fn(&str) -> Result<(), String>,
        ),
        ("forNodes", names::dns1123_subdomain),
    ] {
        let items: Vec<(usize, &Json)> = each(&hints[list]).collect();
        if items.len() > 8 {
            let why = super::too_many(items.len(), 8);
            found.push((at.key(list), why));
            return;
        }
        let mut seen = std::collections::HashSet::new();
        for (i, item) in items {
            let at = at.key(list).index(i).key("name");
            // A node hint's name left out is the schema's required property.
            let name = match item["name"].as_str() {
                Some(name) => name,
                None if list == "forNodes" => continue,
                None => "",
            };
            if !seen.insert(name) {
                found.push((at.clone(), format!("`{name}`: Duplicate value")));
            }
            if let Err(why) = rule(name) {
                found.push((at, format!("`{name}`: {why}")));
            }
        }
    }
}

/// `IsFullyQualifiedDomainName`: given; without one trailing `.`, a DNS
/// subdomain of two labels or more, each a DNS-1123 label.
fn fully_qualified_domain_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("Required value".to_owned());
    }
    let name = name.strip_suffix('.').unwrap_or(name);
    names::dns1123_subdomain(name)?;
    if !name.contains('.') {
        return Err("should be a domain with at least two segments separated by dots".to_owned());
    }
    name.split('.').try_for_each(names::dns1123_label)
}

/// A NetworkPolicy's rules: ports, peers, policy types, selectors.
fn network_policy(spec: &Json, at: &KeyPath, found: &mut Found) {
    for (direction, peers) in [("ingress", "from"), ("egress", "to")] {
        for (r, rule) in each(&spec[direction]) {
            let rule_at = at.key(direction).index(r);
            for (p, port) in each(&rule["ports"]) {
                let path = rule_at.key("ports").index(p);
                one_of(
                    &port["protocol"],
                    &["TCP", "UDP", "SCTP"],
                    path.key("protocol"),
                    found,
                );
                match &port["port"] {
                    Json::String(name) => {
                        if let Err(why) = names::iana_service_name(name) {
                            found.push((
                                path.key("port"),
                                format!("`{name}` is not a port name: {why}"),
                            ));
                        }
                        if !port["endPort"].is_null() {
                            found.push((
                                path.key("endPort"),
                                "endPort needs a numeric port".to_owned(),
                            ));
                        }
                    }
                    number @ Json::Number(_) => {
                        port_number(number, path.key("port"), false, found);
                        if let (Some(start), Some(end)) = (whole(number), whole(&port["endPort"])) {
                            if end < start {
                                found.push((
                                    path.key("endPort"),
                                    format!("{end} is below the port {start}"),
                                ));
                            } else if end > 65535 {
                                port_number(&port["endPort"], path.key("endPort"), false, found);
                            }
                        }
                    }
                    Json::Null if !port["endPort"].is_null() => {
                        found.push((path.key("endPort"), "endPort needs a port".to_owned()))
                    }
                    _ => {}
                }
            }
            for (p, peer) in each(&rule[peers]) {
                let path = rule_at.key(peers).index(p);
                let selectors = ["podSelector", "namespaceSelector"]
                    .iter()
                    .filter(|s| !peer[**s].is_null())
                    .count();
                let block = &peer["ipBlock"];
                if !block.is_null() && selectors > 0 {
                    found.push((
                        path.clone(),
                        "a peer with an ipBlock has no podSelector or namespaceSelector".to_owned(),
                    ));
                } else if block.is_null() && selectors == 0 {
                    found.push((
                        path.clone(),
                        "a peer names a podSelector, a namespaceSelector or an ipBlock".to_owned(),
                    ));
                }
                for selector in ["podSelector", "namespaceSelector"] {
                    if peer[selector].is_object() {
                        label_selector(&peer[selector], &path.key(selector), found);
                    }
                }
                ip_block(block, &path.key("ipBlock"), found);
            }
        }
    }
    for (i, policy) in each(&spec["policyTypes"]) {
        one_of(
            policy,
            &["Ingress", "Egress"],
            at.key("policyTypes").index(i),
            found,
        );
    }
    if spec["policyTypes"].as_array().is_some_and(|t| t.len() > 2) {
        found.push((at.key("policyTypes"), "at most two policy types".to_owned()));
    }
}

/// A CIDR: an address and a prefix length within its family.
fn cidr(text: &str) -> Option<(IpAddr, u8)> {
    crate::cidr::legacy_cidr(text)
}

/// An `ipBlock` CIDR as Go's `net.ParseCIDR` leaves it: the address
/// masked, the mask's ones, and its width (32 for an IPv4 text, 128 for an
/// IPv6 one, an IPv4-mapped one such as `::ffff:10.0.0.0/104` too).
#[derive(Clone, Copy)]
struct GoNet {
    bits: u128,
    ones: u32,
    width: u32,
}

impl GoNet {
    fn of((address, ones): (IpAddr, u8)) -> GoNet {
        let (bits, width) = match address {
            IpAddr::V4(v4) => (u128::from(u32::from(v4)), 32),
            IpAddr::V6(v6) => (u128::from(v6), 128),
        };
        let ones = u32::from(ones);
        GoNet {
            bits: bits & !(u128::MAX.checked_shr(ones + 128 - width).unwrap_or(0)),
            ones,
            width,
        }
    }

    /// The address as Go's `To4` leaves it: an IPv4-mapped IPv6 address
    /// is its IPv4 address.
    fn to4(self) -> (u128, u32) {
        const MAPPED: u128 = 0xffff << 32;
        match self.width {
            128 if self.bits >> 32 == MAPPED >> 32 => (self.bits & u128::from(u32::MAX), 32),
            width => (self.bits, width),
        }
    }

    /// `IPNet.Contains` of `other`'s address: both compared as IPv4 where
    /// Go's `To4` makes them so, under the last 32 bits of an IPv6 mask
    /// when the net's address is IPv4-mapped; families apart are not
    /// contained.
    fn contains(self, other: GoNet) -> bool {
        let (net, net_width) = self.to4();
        let ones = match (self.width, net_width) {
            (128, 32) => self.ones.saturating_sub(96),
            _ => self.ones,
        };
        let (address, width) = other.to4();
        if width != net_width {
            return false;
        }
        let shift = width - ones;
        shift >= 128 || (net >> shift) == (address >> shift)
    }
}

fn ip_block(block: &Json, at: &KeyPath, found: &mut Found) {
    if block.is_null() {
        return;
    }
    let outer = block["cidr"].as_str().and_then(cidr);
    if outer.is_none() {
        found.push((
            at.key("cidr"),
            format!("{} is not a CIDR such as 10.0.0.0/8", block["cidr"]),
        ));
    }
    for (i, except) in each(&block["except"]) {
        let path = at.key("except").index(i);
        match (except.as_str().and_then(cidr), outer) {
            (None, _) => found.push((path, format!("{except} is not a CIDR"))),
            // As the server tests it: the exception's address within the
            // cidr, and its mask longer, each mask in its own width.
            (Some(inner), Some(outer))
                if !GoNet::of(outer).contains(GoNet::of(inner))
                    || GoNet::of(outer).ones >= GoNet::of(inner).ones =>
            {
                found.push((
                    path,
                    format!("{except} is not strictly within the block's cidr"),
                ))
            }
            _ => {}
        }
    }
}

/// A Role's or ClusterRole's rules, and a ClusterRole's aggregation.
fn role(object: &Json, kind: &str, found: &mut Found) {
    for (i, rule) in each(&object["rules"]) {
        let at = KeyPath::root().key("rules").index(i);
        let count = |field: &str| rule[field].as_array().map_or(0, Vec::len);
        if count("verbs") == 0 {
            found.push((at.key("verbs"), "a rule names at least one verb".to_owned()));
        }
        if count("nonResourceURLs") > 0 {
            if kind == "Role" {
                found.push((
                    at.key("nonResourceURLs"),
                    "a Role (namespaced) cannot grant non-resource URLs".to_owned(),
                ));
            }
            if count("apiGroups") + count("resources") + count("resourceNames") > 0 {
                found.push((
                    at.clone(),
                    "a rule grants either resources or non-resource URLs, not both".to_owned(),
                ));
            }
            continue;
        }
        if count("apiGroups") == 0 {
            found.push((
                at.key("apiGroups"),
                "a resource rule names at least one API group (\"\" for the core group)".to_owned(),
            ));
        }
        if count("resources") == 0 {
            found.push((
                at.key("resources"),
                "a resource rule names at least one resource".to_owned(),
            ));
        }
    }
    for (i, selector) in each(&object["aggregationRule"]["clusterRoleSelectors"]) {
        let at = KeyPath::root()
            .key("aggregationRule")
            .key("clusterRoleSelectors")
            .index(i);
        label_selector(selector, &at, found);
    }
    // An aggregation rule, even `{}`, names a selector (null is none).
    let rule = &object["aggregationRule"];
    if !rule.is_null() && each(&rule["clusterRoleSelectors"]).next().is_none() {
        found.push((
            KeyPath::root()
                .key("aggregationRule")
                .key("clusterRoleSelectors"),
            "an aggregation rule names at least one ClusterRole selector".to_owned(),
        ));
    }
}

/// The role (kind, name) the cluster's own binding of `object`'s kind,
/// namespace and name binds, where every cluster has one (the API server's
/// bootstrap policy, of the default Kubernetes version: these bindings'
/// roles are the same in every version read).
fn default_binding_role(object: &Json, kind: &str) -> Option<(&'static str, &'static str)> {
    let name = object["metadata"]["name"].as_str()?;
    if !crate::rbac::defaults::is_default_name(name) {
        return None;
    }
    let namespace = object["metadata"]["namespace"].as_str();
    crate::rbac::defaults::binding_role(kind, namespace, name)
}

/// A binding's role reference and subjects; a binding of the name of one
/// every cluster has, bound to another role, is refused on apply (`roleRef`
/// is immutable).
fn binding(object: &Json, kind: &str, found: &mut Found) {
    let role = &object["roleRef"];
    let at = KeyPath::root().key("roleRef");
    // Empty, it defaults to the RBAC group (rbac/v1 SetDefaults_RoleBinding).
    let group = role["apiGroup"].as_str().filter(|g| !g.is_empty());
    one_of(
        &group.map_or(Json::Null, Json::from),
        &["rbac.authorization.k8s.io"],
        at.key("apiGroup"),
        found,
    );
    let kinds: &[&str] = if kind == "RoleBinding" {
        &["Role", "ClusterRole"]
    } else {
        &["ClusterRole"]
    };
    one_of(&role["kind"], kinds, at.key("kind"), found);
    if let Some(name) = role["name"].as_str()
        && let Err(why) = names::path_segment(name)
    {
        found.push((at.key("name"), why));
    }
    if let Some((role_kind, role_name)) = default_binding_role(object, kind)
        && (role["kind"].as_str(), role["name"].as_str()) != (Some(role_kind), Some(role_name))
    {
        let name = object["metadata"]["name"].as_str().unwrap_or_default();
        found.push((
            at,
            format!("every cluster has its own {kind} `{name}`, bound to {role_kind} {role_name}; a roleRef cannot change, so applying this one over it is refused"),
        ));
    }
    for (i, subject) in each(&object["subjects"]) {
        let at = KeyPath::root().key("subjects").index(i);
        let name = subject["name"].as_str().unwrap_or_default();
        match subject["kind"].as_str() {
            Some("ServiceAccount") => {
                one_of(&subject["apiGroup"], &[""], at.key("apiGroup"), found);
                if let Err(why) = names::dns1123_subdomain(name) {
                    found.push((
                        at.key("name"),
                        format!("`{name}` is not a ServiceAccount name: {why}"),
                    ));
                }
                if kind == "ClusterRoleBinding"
                    && subject["namespace"].as_str().is_none_or(str::is_empty)
                {
                    found.push((
                        at.key("namespace"),
                        "a ServiceAccount subject of a ClusterRoleBinding names its namespace"
                            .to_owned(),
                    ));
                }
            }
            Some("User" | "Group") => {
                // Empty, it defaults to the RBAC group.
                let group = subject["apiGroup"].as_str().filter(|g| !g.is_empty());
                one_of(
                    &group.map_or(Json::Null, Json::from),
                    &["rbac.authorization.k8s.io"],
                    at.key("apiGroup"),
                    found,
                );
                if name.is_empty() {
                    found.push((at.key("name"), "a subject has a name".to_owned()));
                }
            }
            _ => one_of(
                &subject["kind"],
                &["ServiceAccount", "User", "Group"],
                at.key("kind"),
                found,
            ),
        }
    }
}

/// The Pod Security admission refuses to create or update a Namespace
/// whose `pod-security.kubernetes.io/<mode>` label names no level or whose
/// `<mode>-version` label names no version (`latest` or `v1.N`).
fn pod_security_labels(object: &Json, found: &mut Found) {
    use crate::pod_security::{Level, PolicyVersion};
    let labels = &object["metadata"]["labels"];
    for mode in ["enforce", "audit", "warn"] {
        let key = format!("pod-security.kubernetes.io/{mode}");
        if let Some(level) = labels[&key].as_str()
            && Level::parse(level).is_none()
        {
            found.push((
                KeyPath::dotted("metadata.labels").key(key.clone()),
                format!("`{level}` is not a Pod Security level (privileged, baseline, restricted); the admission refuses the Namespace"),
            ));
        }
        let key = format!("{key}-version");
        if let Some(version) = labels[&key].as_str()
            && PolicyVersion::parse(version).is_none()
        {
            found.push((
                KeyPath::dotted("metadata.labels").key(key),
                format!("`{version}` is not a Pod Security version (latest, or v1.N with no leading zero and N at most 2^63-1); the admission refuses the Namespace"),
            ));
        }
    }
}

/// `ValidateAPIService` (kube-aggregator; its name is the metadata
/// rules'): the group a DNS subdomain, empty only beside the legacy
/// version `v1`; the version a DNS-1035 label; the group's priority 1 to
/// 20000 and the version's 1 to 1000. A local APIService (no `service`)
/// has no CA bundle and does not skip TLS verification; a service has
/// its namespace and name, a port number (443 unset), and does not skip
/// the verification its CA bundle is for.
fn api_service(spec: &Json, at: &KeyPath, found: &mut Found) {
    let group = spec["group"].as_str().unwrap_or_default();
    let version = spec["version"].as_str().unwrap_or_default();
    if group.is_empty() && version != "v1" {
        found.push((
            at.key("group"),
            "Required value: only the version v1 may have an empty group (the legacy core group)"
                .to_owned(),
        ));
    }
    if !group.is_empty()
        && let Err(why) = names::dns1123_subdomain(group)
    {
        found.push((
            at.key("group"),
            format!("`{group}` is not a valid group: {why}"),
        ));
    }
    if let Err(why) = names::dns1035_label(version) {
        found.push((
            at.key("version"),
            format!("`{version}` is not a valid version: {why}"),
        ));
    }
    for (key, most) in [("groupPriorityMinimum", 20_000), ("versionPriority", 1_000)] {
        if let Some(priority) = whole(&spec[key])
            && !(1..=most).contains(&priority)
        {
            found.push((
                at.key(key),
                format!("{priority}: must be positive and at most {most}"),
            ));
        }
    }
    let bundle = spec["caBundle"].as_str().is_some_and(|b| !b.is_empty());
    let skips = spec["insecureSkipTLSVerify"] == Json::Bool(true);
    let service = &spec["service"];
    if service.is_null() {
        if bundle {
            let why = "a local APIService (no service) may not have a caBundle";
            found.push((at.key("caBundle"), why.to_owned()));
        }
        if skips {
            let why = "a local APIService (no service) may not have insecureSkipTLSVerify";
            found.push((at.key("insecureSkipTLSVerify"), why.to_owned()));
        }
        return;
    }
    let at_service = at.key("service");
    for key in ["namespace", "name"] {
        if service[key].as_str().unwrap_or_default().is_empty() {
            found.push((at_service.key(key), "Required value".to_owned()));
        }
    }
    port_number(&service["port"], at_service.key("port"), false, found);
    if skips && bundle {
        found.push((
            at.key("insecureSkipTLSVerify"),
            "may not be true if caBundle is present".to_owned(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// An EndpointSlice's `addressType` and an endpoint's `addresses` (and
    /// a node hint's name) left out are the schema's findings alone;
    /// written empty, they are this rule's.
    #[test]
    fn left_out_endpoint_slice_fields_are_the_schemas() {
        let found = |slice: serde_json::Value| {
            let mut found = Vec::new();
            super::endpoint_slice(&slice, &mut found);
            found
                .into_iter()
                .map(|(at, _)| at.to_string())
                .collect::<Vec<_>>()
        };
        let left_out = json!({"endpoints": [{"hints": {"forNodes": [{}]}}]});
        assert_eq!(found(left_out), Vec::<String>::new());
        let empty = json!({"addressType": "", "endpoints": [{"addresses": [],
            "hints": {"forNodes": [{"name": ""}]}}]});
        assert_eq!(
            found(empty),
            [
                "addressType",
                "endpoints[0].addresses",
                "endpoints[0].hints.forNodes[0].name"
            ]
        );
    }
}
