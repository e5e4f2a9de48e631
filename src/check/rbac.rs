//! Effective RBAC: bindings resolved to what each subject may do, where,
//! and invariants R1-R6 checked on that view and on the roles themselves.
//!
//! A RoleBinding grants its role's rules in the binding's namespace only,
//! even when it binds a ClusterRole; a ClusterRoleBinding grants them
//! everywhere. This is the counterpart of ADR-2647's
//! `test_helm_service_accounts.py`, built into the tool.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value as Json;

use super::facts::Instance;
use super::{Class, Context, Invariant};
use crate::diagnostic::KeyPath;
use crate::plan::rbac::{CRD_GROUP, EVENT_VERBS, Verb};

/// Where a grant applies.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Every namespace (and cluster-scoped resources).
    Cluster,
    /// One namespace.
    Namespace(String),
}

impl Scope {
    fn describe(&self) -> String {
        match self {
            Scope::Cluster => "cluster-wide".to_owned(),
            Scope::Namespace(ns) => format!("in {ns}"),
        }
    }
}

/// Who a binding names.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Subject {
    /// `ServiceAccount`, `User` or `Group`.
    pub kind: String,
    /// Its namespace, for a ServiceAccount.
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
}

impl Subject {
    /// `namespace/name` for a ServiceAccount, `Kind name` otherwise.
    pub fn describe(&self) -> String {
        match (&self.namespace, self.kind.as_str()) {
            (Some(ns), "ServiceAccount") => format!("{ns}/{}", self.name),
            _ => format!("{} {}", self.kind, self.name),
        }
    }
}

/// One resource a subject may act on, through one rule of one binding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Grant {
    /// Who.
    pub subject: Subject,
    /// Where.
    pub scope: Scope,
    /// The API group (`""` for core).
    pub api_group: String,
    /// The resource (with `/subresource`).
    pub resource: String,
    /// Restricted to these names, when not empty.
    pub resource_names: Vec<String>,
    /// The verbs.
    pub verbs: Vec<String>,
    /// Index of the binding object.
    #[serde(skip)]
    pub binding: usize,
    /// Index of the role object and of the rule within it.
    #[serde(skip)]
    pub rule: (usize, usize),
    /// Whether the role is a ClusterRole.
    #[serde(skip)]
    pub cluster_role: bool,
}

fn strings(value: &Json) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .map(str::to_owned)
        .collect()
}

/// Resolves every binding in `objects` into grants. A `User`
/// `system:serviceaccount:<ns>:<name>` is that ServiceAccount.
pub fn resolve(objects: &[Json]) -> Vec<Grant> {
    resolve_with_unbound(objects).0
}

/// The grants, and the indexes of bindings whose role is not in `objects`
/// (whose permissions therefore cannot be known).
pub fn resolve_with_unbound(objects: &[Json]) -> (Vec<Grant>, Vec<usize>) {
    let mut roles: HashMap<(&str, Option<&str>, &str), usize> = HashMap::new();
    for (index, object) in objects.iter().enumerate() {
        let name = object["metadata"]["name"].as_str().unwrap_or_default();
        match object["kind"].as_str() {
            Some("ClusterRole") => {
                roles.insert(("ClusterRole", None, name), index);
            }
            Some("Role") => {
                let namespace = object["metadata"]["namespace"].as_str().or(Some("default"));
                roles.insert(("Role", namespace, name), index);
            }
            _ => {}
        }
    }
    let mut grants = Vec::new();
    let mut unbound = Vec::new();
    for (binding, object) in objects.iter().enumerate() {
        let namespace = object["metadata"]["namespace"].as_str();
        let scope = match object["kind"].as_str() {
            Some("ClusterRoleBinding") => Scope::Cluster,
            Some("RoleBinding") => Scope::Namespace(namespace.unwrap_or("default").to_owned()),
            _ => continue,
        };
        let role_ref = &object["roleRef"];
        let kind = role_ref["kind"].as_str().unwrap_or_default();
        let role_namespace = (kind == "Role")
            .then_some(namespace.or(Some("default")))
            .flatten();
        let key = (
            kind,
            role_namespace,
            role_ref["name"].as_str().unwrap_or_default(),
        );
        let Some(&role_index) = roles.get(&key) else {
            unbound.push(binding);
            continue;
        };
        let role = &objects[role_index];
        let rules = rules_of(objects, role_index);
        for subject in object["subjects"].as_array().into_iter().flatten() {
            let subject = subject_of(subject, namespace);
            for &(source, rule_index, rule) in &rules {
                for api_group in strings(&rule["apiGroups"]) {
                    for resource in strings(&rule["resources"]) {
                        grants.push(Grant {
                            subject: subject.clone(),
                            scope: scope.clone(),
                            api_group: api_group.clone(),
                            resource,
                            resource_names: strings(&rule["resourceNames"]),
                            verbs: strings(&rule["verbs"]),
                            binding,
                            rule: (source, rule_index),
                            cluster_role: role["kind"] == "ClusterRole",
                        });
                    }
                }
            }
        }
    }
    (grants, unbound)
}

/// The rules of role `index` as (role holding the rule, its index, rule):
/// its own, or for a ClusterRole with an `aggregationRule`, those of every
/// ClusterRole its selectors match.
fn rules_of(objects: &[Json], index: usize) -> Vec<(usize, usize, &Json)> {
    let own = |i: usize| {
        objects[i]["rules"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .map(move |(r, rule)| (i, r, rule))
    };
    let selectors = objects[index]["aggregationRule"]["clusterRoleSelectors"].as_array();
    let Some(selectors) = selectors else {
        return own(index).collect();
    };
    let matches = |labels: &Json| {
        selectors.iter().any(|selector| {
            selector["matchLabels"]
                .as_object()
                .is_some_and(|wanted| wanted.iter().all(|(k, v)| labels[k] == *v))
        })
    };
    (0..objects.len())
        .filter(|&i| {
            i != index
                && objects[i]["kind"] == "ClusterRole"
                && matches(&objects[i]["metadata"]["labels"])
        })
        .flat_map(own)
        .collect()
}

fn subject_of(subject: &Json, binding_namespace: Option<&str>) -> Subject {
    let kind = subject["kind"].as_str().unwrap_or_default();
    let name = subject["name"].as_str().unwrap_or_default();
    if kind == "User"
        && let Some(rest) = name.strip_prefix("system:serviceaccount:")
        && let Some((namespace, account)) = rest.split_once(':')
    {
        return Subject {
            kind: "ServiceAccount".to_owned(),
            namespace: Some(namespace.to_owned()),
            name: account.to_owned(),
        };
    }
    Subject {
        namespace: (kind == "ServiceAccount").then(|| {
            subject["namespace"]
                .as_str()
                .or(binding_namespace)
                .unwrap_or("default")
                .to_owned()
        }),
        name: name.to_owned(),
        kind: kind.to_owned(),
    }
}

/// Whose ServiceAccounts a subject includes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reach<'a> {
    /// Those of one namespace (one account, or the namespace's group).
    Namespace(&'a str),
    /// Those of every namespace (`system:serviceaccounts`, `system:authenticated`).
    Everywhere,
    /// None (a user or another group).
    Nobody,
}

impl Subject {
    fn reach(&self) -> Reach<'_> {
        match self.kind.as_str() {
            "ServiceAccount" => self
                .namespace
                .as_deref()
                .map_or(Reach::Nobody, Reach::Namespace),
            "Group" => match self.name.as_str() {
                "system:serviceaccounts" | "system:authenticated" => Reach::Everywhere,
                name => name
                    .strip_prefix("system:serviceaccounts:")
                    .map_or(Reach::Nobody, Reach::Namespace),
            },
            _ => Reach::Nobody,
        }
    }

    /// Whether this subject includes every ServiceAccount of `namespace`:
    /// the account itself, its namespace's group, or all accounts.
    pub fn covers_accounts_of(&self, namespace: &str) -> bool {
        match self.reach() {
            Reach::Namespace(ns) => ns == namespace,
            Reach::Everywhere => true,
            Reach::Nobody => false,
        }
    }

    /// Whether this subject includes the ServiceAccount `namespace/name`.
    pub fn covers(&self, namespace: &str, name: &str) -> bool {
        match self.kind.as_str() {
            "ServiceAccount" => self.namespace.as_deref() == Some(namespace) && self.name == name,
            _ => self.covers_accounts_of(namespace),
        }
    }
}

/// Grants by the namespace whose ServiceAccounts they reach, so each
/// operator namespace looks only at its own and at those reaching every
/// namespace, not at every grant.
struct GrantsByNamespace<'g> {
    namespaced: HashMap<&'g str, Vec<&'g Grant>>,
    everywhere: Vec<&'g Grant>,
}

impl<'g> GrantsByNamespace<'g> {
    fn new(grants: &'g [Grant]) -> Self {
        let mut index = GrantsByNamespace {
            namespaced: HashMap::new(),
            everywhere: Vec::new(),
        };
        for grant in grants {
            match grant.subject.reach() {
                Reach::Namespace(ns) => index.namespaced.entry(ns).or_default().push(grant),
                Reach::Everywhere => index.everywhere.push(grant),
                Reach::Nobody => {}
            }
        }
        index
    }

    /// The grants that reach ServiceAccounts of `namespace`.
    fn reaching(&self, namespace: &str) -> impl Iterator<Item = &'g Grant> + '_ {
        self.namespaced
            .get(namespace)
            .into_iter()
            .flatten()
            .chain(&self.everywhere)
            .copied()
    }
}

/// The verbs the event recorder uses, as the plan grants them.
fn event_writes() -> [&'static str; 2] {
    EVENT_VERBS.map(Verb::name)
}

fn is_events(group: &str, resource: &str) -> bool {
    resource == "events" && (group.is_empty() || group == "events.k8s.io" || group == "*")
}

/// Checks R1-R6.
pub fn check(context: &mut Context<'_>) {
    check_roles(context);
    check_aggregated(context);
    check_grants(context);
}

/// The API groups of the chart's custom resources: those of the CRDs in the
/// input, and the chart's own.
fn custom_groups(context: &Context<'_>) -> BTreeSet<String> {
    let mut groups = crd_field(context, "/spec/group");
    groups.insert(CRD_GROUP.to_owned());
    groups
}

/// What a role's rules say, whoever it is bound to.
fn check_roles(context: &mut Context<'_>) {
    let custom = custom_groups(context);
    let known = context.facts.release_known();
    for index in 0..context.objects.len() {
        let object = context.objects[index].clone();
        let kind = object["kind"].as_str().unwrap_or_default();
        if kind != "Role" && kind != "ClusterRole" {
            continue;
        }
        let namespace = object["metadata"]["namespace"].as_str();
        let class = context.class_of(namespace.unwrap_or("default"));
        let rules = object["rules"].as_array().map_or(&[][..], Vec::as_slice);
        // ADR-2647 rejected events in the custom-resource ClusterRole.
        let grants_custom = rules.iter().any(|rule| {
            strings(&rule["apiGroups"])
                .iter()
                .any(|g| custom.contains(g))
        });
        for (r, rule) in rules.iter().enumerate() {
            let at = |field: &str| KeyPath::root().key("rules").index(r).key(field);
            for field in ["apiGroups", "resources", "verbs", "nonResourceURLs"] {
                if strings(&rule[field]).iter().any(|v| v.contains('*')) {
                    context.report(
                        Invariant::R5,
                        index,
                        &at(field),
                        format!("a wildcard in {field}; name what is granted"),
                    );
                }
            }
            let groups = strings(&rule["apiGroups"]);
            let resources = strings(&rule["resources"]);
            let names = |wanted: &str| {
                resources.iter().any(|r| {
                    let base = r.split('/').next().unwrap_or_default();
                    base == wanted || base == "*"
                })
            };
            if groups.iter().any(|g| is_events(g, "events")) && names("events") {
                events_rule(context, index, r, rule, kind, grants_custom);
            }
            let coordination = groups
                .iter()
                .any(|g| g == "coordination.k8s.io" || g == "*");
            let core = groups.iter().any(|g| g.is_empty() || g == "*");
            // A Role in a namespace whose class the input does not show is
            // judged only when it shows every class (else FACT says so).
            let in_class = |allowed: &[Class]| {
                kind == "Role"
                    && (class.is_some_and(|c| allowed.contains(&c)) || (class.is_none() && !known))
            };
            let place = match kind {
                "ClusterRole" => "a ClusterRole (cluster-wide)".to_owned(),
                _ => format!("namespace {}", namespace.unwrap_or("default")),
            };
            let rules = [
                (
                    coordination && names("leases") && !in_class(&[Class::Operator]),
                    Invariant::R3,
                    "leases",
                    "leader election takes its Lease only in the operator namespace",
                ),
                (
                    core && names("pods") && !in_class(&[Class::Operator, Class::Builds]),
                    Invariant::R3,
                    "pods",
                    "only the operator and builds namespaces' Roles may grant pods",
                ),
                (
                    core && names("secrets") && !in_class(&[Class::Builds]),
                    Invariant::R6,
                    "secrets",
                    "secrets are granted only in the builds namespace",
                ),
            ];
            for (broken, invariant, resource, why) in rules {
                if broken {
                    context.report(
                        invariant,
                        index,
                        &at("resources"),
                        format!("{resource} granted in {place}; {why}"),
                    );
                }
            }
        }
    }
}

/// R1, R2 and R4 on one rule that names events.
fn events_rule(
    context: &mut Context<'_>,
    index: usize,
    r: usize,
    rule: &Json,
    kind: &str,
    in_custom_resource_role: bool,
) {
    let at = |field: &str| KeyPath::root().key("rules").index(r).key(field);
    if kind == "Role" {
        context.report(
            Invariant::R1,
            index,
            &at("resources"),
            "events in a namespaced Role; the recorder writes events where the object lives, so they are granted by the write-only events ClusterRole (ADR-2647)",
        );
    }
    if !strings(&rule["resourceNames"]).is_empty() {
        context.report(
            Invariant::R1,
            index,
            &at("resourceNames"),
            "events restricted by resourceNames; create cannot be restricted by name and the recorder names each event anew, so its writes would be refused (ADR-2647)",
        );
    }
    let writes = event_writes();
    let extra: Vec<String> = strings(&rule["verbs"])
        .into_iter()
        .filter(|v| !writes.contains(&v.as_str()))
        .collect();
    if !extra.is_empty() {
        context.report(
            Invariant::R2,
            index,
            &at("verbs"),
            format!(
                "grants {} on events; events are write-only: create and patch (ADR-2647)",
                extra.join(", ")
            ),
        );
    }
    if kind == "ClusterRole" && in_custom_resource_role {
        context.report(
            Invariant::R4,
            index,
            &at("resources"),
            "events in the custom-resource ClusterRole; ADR-2647 keeps them in a separate write-only ClusterRole, reviewable on its own",
        );
    }
}

/// One field (a JSON pointer) of every CustomResourceDefinition in the input.
fn crd_field(context: &Context<'_>, pointer: &str) -> BTreeSet<String> {
    context
        .objects
        .iter()
        .filter(|o| o["kind"] == "CustomResourceDefinition")
        .filter_map(|o| o.pointer(pointer).and_then(Json::as_str).map(str::to_owned))
        .collect()
}

/// A ClusterRole labelled `aggregate-to-view|edit|admin` extends the
/// built-in roles every tenant has: it may only read the chart's custom
/// resources (ADR-1592's tenant reader).
fn check_aggregated(context: &mut Context<'_>) {
    let crd_groups = crd_field(context, "/spec/group");
    for index in 0..context.objects.len() {
        let object = context.objects[index].clone();
        let aggregated: Vec<&str> = object["metadata"]["labels"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, v)| {
                k.starts_with("rbac.authorization.k8s.io/aggregate-to-") && *v == "true"
            })
            .map(|(k, _)| k.rsplit('-').next().unwrap_or_default())
            .collect();
        if object["kind"] != "ClusterRole" || aggregated.is_empty() {
            continue;
        }
        for (r, rule) in object["rules"].as_array().into_iter().flatten().enumerate() {
            let custom = strings(&rule["apiGroups"])
                .iter()
                .all(|g| crd_groups.contains(g));
            let writes: Vec<String> = strings(&rule["verbs"])
                .into_iter()
                .filter(|v| !matches!(v.as_str(), "get" | "list" | "watch"))
                .collect();
            if !custom || !writes.is_empty() {
                let what = if custom {
                    format!("{} on the custom resources", writes.join(", "))
                } else {
                    format!(
                        "{} beyond the custom resources",
                        strings(&rule["resources"]).join(", ")
                    )
                };
                context.report(
                    Invariant::R4,
                    index,
                    &KeyPath::root().key("rules").index(r),
                    format!(
                        "aggregated into {}, it gives every tenant {what}; a tenant role only reads the chart's custom resources",
                        aggregated.join(", ")
                    ),
                );
            }
        }
    }
}

/// What the resolved grants say about each buildd's ServiceAccount.
fn check_grants(context: &mut Context<'_>) {
    let (grants, unbound) = resolve_with_unbound(&context.objects);
    for binding in unbound {
        let role_ref = &context.objects[binding]["roleRef"];
        let message = format!(
            "binds {} {}, which is not in the input; its permissions cannot be checked",
            role_ref["kind"].as_str().unwrap_or("(no kind)"),
            role_ref["name"].as_str().unwrap_or("(no name)")
        );
        context.report(
            Invariant::UnknownRole,
            binding,
            &KeyPath::dotted("roleRef"),
            message,
        );
    }
    // A RoleBinding to an events ClusterRole grants events in one namespace
    // only (a Role naming events is reported with the role itself).
    for grant in &grants {
        if is_events(&grant.api_group, &grant.resource)
            && grant.cluster_role
            && let Scope::Namespace(ns) = &grant.scope
        {
            context.report(
                Invariant::R1,
                grant.binding,
                &KeyPath::dotted("roleRef"),
                format!(
                    "events granted to {} only in {ns}; events of objects in other namespaces are lost (ADR-2647)",
                    grant.subject.describe()
                ),
            );
        }
    }
    let custom = custom_groups(context);
    let crd_plurals = crd_field(context, "/spec/names/plural");
    let index = GrantsByNamespace::new(&grants);
    for instance in context.facts.instances.clone() {
        operator_grants(context, &index, &instance, &custom, &crd_plurals);
        buildd_needs(context, &index, &instance);
    }
}

/// R4, R6: what any ServiceAccount of an operator namespace is granted
/// beyond its place.
fn operator_grants(
    context: &mut Context<'_>,
    grants: &GrantsByNamespace<'_>,
    instance: &Instance,
    custom: &BTreeSet<String>,
    crd_plurals: &BTreeSet<String>,
) {
    let daemon_objects = [
        "statefulsets",
        "services",
        "configmaps",
        "persistentvolumeclaims",
    ];
    for grant in grants.reaching(&instance.operator) {
        let (role, rule) = grant.rule;
        let rule_path = KeyPath::root().key("rules").index(rule).key("resources");
        let in_builds =
            matches!(&grant.scope, Scope::Namespace(ns) if Some(ns) == instance.builds.as_ref());
        // R6 (secrets anywhere are reported with the role itself).
        if !in_builds
            && daemon_objects.contains(&grant.resource.as_str())
            && (instance.builds.is_some() || grant.scope == Scope::Cluster)
        {
            context.report(
                Invariant::R6,
                role,
                &rule_path,
                format!(
                    "{} may use {} {}; daemon objects are granted only in the builds namespace",
                    grant.subject.describe(),
                    grant.resource,
                    grant.scope.describe()
                ),
            );
        }
        // R4: cluster-wide, the operator has its custom resources and event writes, nothing else.
        if grant.scope == Scope::Cluster && !is_events(&grant.api_group, &grant.resource) {
            let plural = grant.resource.split('/').next().unwrap_or_default();
            if !(custom.contains(&grant.api_group) && crd_plurals.contains(plural)) {
                context.report(
                    Invariant::R4,
                    role,
                    &rule_path,
                    format!(
                        "{} gets {} cluster-wide; the operator's ClusterRoles hold only the chart's custom resources and event writes",
                        grant.subject.describe(),
                        resource_name(&grant.api_group, &grant.resource)
                    ),
                );
            }
        }
    }
}

/// R1, R3: buildd can write core events everywhere, and read pods and take
/// its Lease in its own namespace.
fn buildd_needs(context: &mut Context<'_>, grants: &GrantsByNamespace<'_>, instance: &Instance) {
    let operator = &instance.operator;
    let subject = Subject {
        kind: "ServiceAccount".to_owned(),
        namespace: Some(operator.clone()),
        name: instance.account.clone(),
    };
    let mine: Vec<&Grant> = grants
        .reaching(operator)
        .filter(|g| g.subject.covers(operator, &subject.name))
        .collect();
    let sa_path = KeyPath::dotted("spec.template.spec.serviceAccountName");
    // Core events, as client-go's tools/record recorder writes them; a rule
    // restricted by name does not count (create cannot be restricted).
    let verbs: BTreeSet<&str> = mine
        .iter()
        .filter(|g| {
            g.scope == Scope::Cluster
                && (g.api_group.is_empty() || g.api_group == "*")
                && (g.resource == "events" || g.resource == "*")
                && g.resource_names.is_empty()
        })
        .flat_map(|g| g.verbs.iter().map(String::as_str))
        .collect();
    let missing: Vec<&str> = event_writes()
        .into_iter()
        .filter(|v| !verbs.contains(v) && !verbs.contains("*"))
        .collect();
    if !missing.is_empty() {
        context.report(
            Invariant::R1,
            instance.buildd,
            &sa_path,
            format!(
                "{} cannot {} events (core group) cluster-wide; the event recorder writes where each object lives (ADR-2647)",
                subject.describe(),
                missing.join(", ")
            ),
        );
    }
    let here = Scope::Namespace(operator.clone());
    // resourceNames cannot restrict create, so a named rule grants no create;
    // get and update must reach the Lease buildd's --leader-election-id names.
    let may = |group: &str, resource: &str, verb: &str, name: Option<&str>| {
        mine.iter().any(|g| {
            g.scope == here
                && (g.api_group == group || g.api_group == "*")
                && (g.resource == resource || g.resource == "*")
                && g.verbs.iter().any(|v| v == verb || v == "*")
                && (g.resource_names.is_empty()
                    || (verb != "create"
                        && name.is_none_or(|n| g.resource_names.iter().any(|r| r == n))))
        })
    };
    let lease = instance.lease.as_deref();
    let mut lost = Vec::new();
    for (group, resource, verbs, name) in [
        ("", "pods", &["get"][..], None),
        ("coordination.k8s.io", "leases", &["create"][..], None),
        (
            "coordination.k8s.io",
            "leases",
            &["get", "update"][..],
            lease,
        ),
    ] {
        let missing: Vec<&str> = verbs
            .iter()
            .copied()
            .filter(|v| !may(group, resource, v, name))
            .collect();
        if !missing.is_empty() {
            let what = match name {
                Some(name) => format!(
                    "{} on lease {name} (its --leader-election-id)",
                    missing.join(", ")
                ),
                None => format!("{} on {resource}", missing.join(", ")),
            };
            lost.push(what);
        }
    }
    if !lost.is_empty() {
        context.report(
            Invariant::R3,
            instance.buildd,
            &sa_path,
            format!(
                "{} lacks {} in {operator}; the operator namespace's Role keeps pods and leases (ADR-2647)",
                subject.describe(),
                lost.join(", ")
            ),
        );
    }
}

/// `resource.group`, as kubectl writes it; the core group adds nothing.
pub fn resource_name(group: &str, resource: &str) -> String {
    if group.is_empty() {
        resource.to_owned()
    } else {
        format!("{resource}.{group}")
    }
}

/// Effective permissions per subject, merged: for each scope and resource,
/// the union of verbs. The JSON shape of `chartgen rbac --output json`.
#[derive(Debug, Serialize)]
pub struct Permissions {
    /// The subject.
    pub subject: Subject,
    /// What it may do.
    pub permissions: Vec<Permission>,
}

/// What one subject may do to one resource in one scope.
#[derive(Debug, Serialize)]
pub struct Permission {
    /// Where.
    pub scope: Scope,
    /// `resource.group`.
    pub resource: String,
    /// Only these names, when not empty.
    pub resource_names: Vec<String>,
    /// The verbs, sorted.
    pub verbs: Vec<String>,
}

/// Merges grants into permissions per subject, sorted.
pub fn permissions(grants: &[Grant]) -> Vec<Permissions> {
    type Key = (Scope, String, Vec<String>);
    let mut by_subject: BTreeMap<Subject, BTreeMap<Key, BTreeSet<String>>> = BTreeMap::new();
    for grant in grants {
        let key = (
            grant.scope.clone(),
            resource_name(&grant.api_group, &grant.resource),
            grant.resource_names.clone(),
        );
        by_subject
            .entry(grant.subject.clone())
            .or_default()
            .entry(key)
            .or_default()
            .extend(grant.verbs.iter().cloned());
    }
    by_subject
        .into_iter()
        .map(|(subject, entries)| Permissions {
            subject,
            permissions: entries
                .into_iter()
                .map(|((scope, resource, resource_names), verbs)| Permission {
                    scope,
                    resource,
                    resource_names,
                    verbs: verbs.into_iter().collect(),
                })
                .collect(),
        })
        .collect()
}

/// Permissions as aligned text: a block per subject, a row per resource.
pub fn render_text(all: &[Permissions]) -> String {
    let mut out = String::new();
    for (i, entry) in all.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{} {}", entry.subject.kind, entry.subject.describe());
        let rows: Vec<[String; 4]> = entry
            .permissions
            .iter()
            .map(|p| {
                [
                    match &p.scope {
                        Scope::Cluster => "cluster-wide".to_owned(),
                        Scope::Namespace(ns) => ns.clone(),
                    },
                    p.resource.clone(),
                    p.resource_names.join(","),
                    p.verbs.join(", "),
                ]
            })
            .collect();
        let header = ["SCOPE", "RESOURCE", "NAMES", "VERBS"].map(str::to_owned);
        let widths: Vec<usize> = (0..3)
            .map(|c| {
                rows.iter()
                    .chain([&header])
                    .map(|r| r[c].len())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for row in std::iter::once(&header).chain(&rows) {
            let line = format!(
                "  {:w0$}  {:w1$}  {:w2$}  {}",
                row[0],
                row[1],
                row[2],
                row[3],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2]
            );
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    out
}
