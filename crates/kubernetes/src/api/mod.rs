//! What the API server refuses although the OpenAPI schema allows it,
//! modelled on its validation (`pkg/apis/*/validation`): the name rule of
//! each kind, namespace names, label and annotation keys and values,
//! container, port and volume names (unique where the API server wants them
//! unique), mounts of volumes that do not exist and repeated mount paths,
//! resource requirements of containers and claims (`resources`), claims'
//! specs (`claims`), negative counts and ids,
//! port numbers, seccomp profiles, sysctls, label selectors (well-formed,
//! and matching the template they select), a pod's scheduling fields
//! ([`crate::scheduling`]), the rest of the pod spec (`pod`) and the
//! specs of the other kinds (`objects`, `cron`), a LimitRange's items
//! (`limit_range`), a PersistentVolume's spec (`volumes`), a
//! PriorityClass's, a StorageClass's, a VolumeAttributesClass's and a
//! RuntimeClass's (`classes`), a CSIDriver's (`volumes`), an Ingress's rules,
//! backends and TLS entries and an IngressClass's controller and
//! parameters (`ingress`), a ResourceQuota's resources and scopes
//! (`quota`), a HorizontalPodAutoscaler's spec (`autoscaling`), and a
//! CustomResourceDefinition's schemas (`crd`). Only these: admission
//! and any rule not listed is not checked. Apart ([`images`], [`Refuser::Kubelet`]):
//! image references the kubelet cannot parse (the API server takes them).

use serde_json::Value as Json;

pub mod admitted;
mod autoscaling;
mod claims;
mod classes;
mod crd;
mod cron;
mod go_json;
mod ingress;
mod job;
mod limit_range;
mod objects;
mod pod;
mod quota;
pub mod refused;
mod resources;
mod volumes;
mod webhooks;

pub(crate) use volumes::PERSISTENT_SOURCES;

use crate::json::{Field, Found, each, whole};
use crate::location::{KeyPath, Segment};
use crate::manifest::ObjectScope;
use crate::metadata::{
    ValidKeys, finalizers, kubernetes_finalizer_names, labels_and_annotations, owner_references,
};
use crate::names;
use crate::scheduling::label_selector;
use crate::tree::pod_place_of;

/// Who refuses a problem [`problems`] and [`images`] find.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refuser {
    /// The API server refuses the object.
    ApiServer,
    /// The API server takes it, and the kubelet cannot pull the image.
    Kubelet,
}

/// The image references of `object`'s containers that the kubelet cannot
/// parse: the API server accepts them, the pod never starts.
pub fn images(object: &Json) -> Found {
    let mut found = Vec::new();
    if !is_built_in_object(object) {
        return found;
    }
    let Some(place) = pod_place_of(object) else {
        return found;
    };
    let spec = place.spec_pointer;
    let Some(pod) = object.pointer(spec) else {
        return found;
    };
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for (i, container) in each(&pod[list]) {
            if let Some(image) = container.field("image").as_str()
                && let Err(why) = names::image_reference(image)
            {
                found.push((
                    KeyPath::from_pointer(spec).key(list).index(i).key("image"),
                    format!("`{image}` is {why}; the kubelet cannot pull it"),
                ));
            }
        }
    }
    found
}

/// What the API server or the kubelet would refuse in a Deployment's pod
/// template whose spec is `pod`, by path from that spec
/// (`containers[1].name`), with who refuses it: for a pod that is not an
/// object yet (a chart's values, before they are rendered).
///
/// ```
/// use kubernetes::api::{Refuser, pod_template_problems};
///
/// let pod = serde_json::json!({"containers": [
///     {"name": "a", "image": "registry.example/a:1"},
///     {"name": "a", "image": "registry.example/Upper:1"},
/// ]});
/// let found: Vec<(String, Refuser)> = pod_template_problems(&pod)
///     .into_iter()
///     .map(|(path, refuser, _)| (path.to_string(), refuser))
///     .collect();
/// assert_eq!(found, [
///     ("containers[1].name".to_owned(), Refuser::ApiServer),
///     ("containers[1].image".to_owned(), Refuser::Kubelet),
/// ]);
/// ```
pub fn pod_template_problems(pod: &Json) -> Vec<(KeyPath, Refuser, String)> {
    let labels = serde_json::json!({"app": "hatches"});
    let object = serde_json::json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "hatches"},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": pod},
        },
    });
    let prefix = KeyPath::dotted("spec.template.spec");
    let api = problems(&object)
        .into_iter()
        .map(|(p, m)| (p, Refuser::ApiServer, m));
    let image = images(&object)
        .into_iter()
        .map(|(p, m)| (p, Refuser::Kubelet, m));
    api.chain(image)
        .filter_map(|(path, rule, message)| {
            let rest = path.0.strip_prefix(prefix.0.as_slice())?;
            Some((KeyPath(rest.to_vec()), rule, message))
        })
        .collect()
}

/// What the API server would refuse in `object`, by path.
/// A custom kind is taken as namespaced: [`problems_remembering`] is
/// told its CRD's scope.
pub fn problems(object: &Json) -> Found {
    let kind = object.field("kind").as_str().unwrap_or_default();
    problems_remembering(
        object,
        ObjectScope::of_kind(kind),
        &mut ValidKeys::default(),
    )
}

/// Whether `object` is of a group Kubernetes itself serves
/// ([`crate::kube::is_kubernetes_group`]): a kind of any other group is a
/// custom resource, whatever it is called. (A kind a Kubernetes group
/// does not serve, `apps/v1 Job`, is the schema check's finding.)
fn is_built_in_object(object: &Json) -> bool {
    crate::kube::is_kubernetes_group(crate::manifest::group_of(object))
}

/// [`problems`] of an object of the given scope (a custom resource's is
/// its CRD's), with the keys already found valid in the run's earlier
/// objects (`valid`): the same findings, the keys it remembers checked
/// once.
pub fn problems_remembering<'a>(
    object: &'a Json,
    scope: ObjectScope,
    valid: &mut ValidKeys<'a>,
) -> Found {
    let mut found = Vec::new();
    let named = object.field("kind").as_str().unwrap_or_default();
    // A custom resource (a kind of a group Kubernetes does not serve: a
    // Knative `Service`, a CRD-defined `CustomResourceDefinition`) is held
    // to what the API server holds every custom resource to, its metadata
    // (a name that is a DNS subdomain); the rules below of the built-in
    // kind of that name are not its own.
    let custom = !is_built_in_object(object);
    let kind = if custom { "" } else { named };
    // The group is read only for the kinds whose rules differ by it (a
    // lookup per object costs, at 1,000 objects, what a rule does).
    let group = match kind {
        "Event" | "IPAddress" | "APIService" => crate::manifest::group_of(object),
        _ => "",
    };
    // Paths are made only for a finding: most objects have none.
    let metadata = || KeyPath::root().key("metadata");
    finalizers(
        object.field("metadata").field("finalizers"),
        !custom && kubernetes_finalizer_names(object),
        &metadata().key("finalizers"),
        &mut found,
    );
    if kind == "Namespace" {
        let at = KeyPath::dotted("spec.finalizers");
        finalizers(
            object.field("spec").field("finalizers"),
            true,
            &at,
            &mut found,
        );
    }
    if let Some(name) = object.field("metadata").field("name").as_str() {
        let valid = match custom {
            true => names::dns1123_subdomain(name),
            false => names::object_name(group, kind, name),
        };
        if let Err(why) = valid {
            found.push((
                metadata().key("name"),
                format!("`{name}` is not a valid {named} name: {why}"),
            ));
        }
        if kind == "CustomResourceDefinition"
            && let Some(strategy) = object
                .field("spec")
                .field("conversion")
                .field("strategy")
                .as_str()
            && !matches!(strategy, "None" | "Webhook")
        {
            found.push((
                KeyPath::dotted("spec.conversion.strategy"),
                format!("`{strategy}` is not a conversion strategy: None or Webhook"),
            ));
        }
    }
    // The kinds whose name is made of their spec: the name, and a
    // generateName where one is written, must be it.
    if let Some((required, rule)) = required_name(group, kind, object) {
        for key in ["name", "generateName"] {
            let Some(written) = object.field("metadata").field(key).as_str() else {
                continue;
            };
            let unless = match key {
                "name" => "",
                _ if written.is_empty() => continue,
                _ => ", and its generateName must be that whole name",
            };
            if written != required {
                found.push((
                    metadata().key(key),
                    format!("{rule}, here `{required}`{unless}, not `{written}`"),
                ));
            }
        }
    }
    if let Some(prefix) = object.field("metadata").field("generateName").as_str()
        && !prefix.is_empty()
        && let Err(why) = names::generate_name(group, kind, prefix)
    {
        found.push((
            metadata().key("generateName"),
            format!("`{prefix}` is not a valid {named} name prefix: {why}"),
        ));
    }
    if keeps_generation(group, kind)
        && let Some(generation) = whole(object.field("metadata").field("generation"))
        && generation < 0
    {
        found.push((
            metadata().key("generation"),
            format!("{generation} is not a generation: it is at least 0"),
        ));
    }
    // A server-side apply takes an object's fields from its managers: the
    // managed fields are the server's record of them, and a uid is a
    // precondition no object created from the manifest meets (measured on
    // v1.35.4; a create or a client-side apply takes both).
    if !object.field("metadata").field("managedFields").is_null() {
        found.push((
            metadata().key("managedFields"),
            "a server-side apply refuses it: the API server writes who manages which field itself (leave it out)".to_owned(),
        ));
    }
    if object
        .field("metadata")
        .field("uid")
        .as_str()
        .is_some_and(|uid| !uid.is_empty())
    {
        found.push((
            metadata().key("uid"),
            "a server-side apply refuses it where no object of that uid exists: the API server gives each object its own (leave it out)".to_owned(),
        ));
    }
    owner_references(
        object.field("metadata").field("ownerReferences"),
        &metadata().key("ownerReferences"),
        true,
        &mut found,
    );
    // A cluster-scoped object's namespace the API server does not read.
    if let Some(namespace) = object.field("metadata").field("namespace").as_str()
        && scope == ObjectScope::Namespaced
        && let Err(why) = names::dns1123_label(namespace)
    {
        found.push((
            metadata().key("namespace"),
            format!("`{namespace}` is not a valid namespace: {why}"),
        ));
    }
    labels_and_annotations(object.field("metadata"), metadata, valid, &mut found);
    // A static pod (a mirror pod's annotation) has no resource claims.
    if kind == "Pod"
        && !(object.field("metadata").field("annotations"))
            .field("kubernetes.io/config.mirror")
            .is_null()
        && each(object.field("spec").field("resourceClaims"))
            .next()
            .is_some()
    {
        found.push((
            KeyPath::root().key("spec").key("resourceClaims"),
            "a static pod (annotated kubernetes.io/config.mirror) has no resource claims"
                .to_owned(),
        ));
    }
    if let Some(place) = pod_place_of(object) {
        let (template, spec) = (place.template_pointer, place.spec_pointer);
        // Found once: a pointer is parsed, token by token, each time.
        let template_path = KeyPath::from_pointer(template);
        let (template, pod) = (object.pointer(template), object.pointer(spec));
        let spec = KeyPath::from_pointer(spec);
        if let Some(template) = template {
            labels_and_annotations(
                template.field("metadata"),
                || template_path.clone().key("metadata"),
                valid,
                &mut found,
            );
            pod::profile_annotations(
                template.field("metadata"),
                template.field("spec"),
                &template_path.clone().key("metadata"),
                &mut found,
            );
            pod::pod_annotations(
                template.field("metadata"),
                template.field("spec"),
                &template_path.clone().key("metadata"),
                &mut found,
            );
        }
        if let (Some(template), Some(pod)) = (template, pod) {
            pod::seccomp_annotations(template.field("metadata"), pod, &spec, &mut found);
            pod::apparmor_annotations(template.field("metadata"), pod, kind, &spec, &mut found);
            pod::windows(pod, &spec, &mut found);
        }
        if let Some(pod) = pod {
            // A StatefulSet's claim templates are volumes its pods mount.
            let claims: std::collections::BTreeSet<&str> =
                each(object.field("spec").field("volumeClaimTemplates"))
                    .filter(|_| kind == "StatefulSet")
                    .filter_map(|(_, claim)| claim.field("metadata").field("name").as_str())
                    .collect();
            if kind == "StatefulSet" {
                claim_template_names(object, &mut found);
            }
            let replaced = without_volumes_named(pod, &claims);
            let pod = replaced.as_ref().unwrap_or(pod);
            let merged = (kind == "Pod")
                .then(|| with_label_keys(pod, object.field("metadata").field("labels")));
            let pod = merged.as_ref().and_then(Option::as_ref).unwrap_or(pod);
            let name = (kind == "Pod").then(|| {
                object
                    .field("metadata")
                    .field("name")
                    .as_str()
                    .unwrap_or_default()
            });
            let before = found.len();
            let shift = claims.len();
            pod_spec(pod, kind, name, &spec, claims, &mut found);
            // The server validates a StatefulSet's template with a volume
            // for each claim template first, then the template's others:
            // those are found `shift` places further on.
            let volumes = spec.clone().key("volumes");
            for (path, _) in &mut found[before..] {
                shift_index_below(path, &volumes, shift);
            }
        }
    }
    if kind == "Service" {
        service(object, &mut found);
    }
    if kind == "ConfigMap" {
        config_map(object, &mut found);
    }
    if kind == "Secret" {
        secret(object, &mut found);
    }
    match kind {
        "PriorityClass" => classes::priority_class(object, &mut found),
        "Pod" => classes::system_priority(
            object.field("spec"),
            &KeyPath::root().key("spec"),
            &mut found,
        ),
        "StorageClass" => classes::storage_class(object, &mut found),
        "VolumeAttributesClass" => classes::volume_attributes_class(object, &mut found),
        "RuntimeClass" => classes::runtime_class(object, &mut found),
        "CSIDriver" => volumes::csi_driver_spec(object, &mut found),
        "PersistentVolume" => volumes::persistent_volume(object, &mut found),
        "Ingress" => ingress::ingress(object, &mut found),
        "IngressClass" => ingress::class(
            object.field("spec"),
            &KeyPath::root().key("spec"),
            &mut found,
        ),
        "ResourceQuota" => quota::check(
            object.field("spec"),
            &KeyPath::root().key("spec"),
            &mut found,
        ),
        "HorizontalPodAutoscaler" => autoscaling::check(object, &mut found),
        "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration" => {
            webhooks::check(kind, object, &mut found)
        }
        "ValidatingAdmissionPolicy" => webhooks::policy(object, &mut found),
        "ValidatingAdmissionPolicyBinding" => webhooks::policy_binding(object, &mut found),
        _ => {}
    }
    workload(kind, object, &mut found);
    objects::check(kind, object, &mut found);
    found
}

/// What a ConfigMap or a Secret may hold, its values' bytes together
/// (`core.MaxSecretSize`).
const MAX_DATA: usize = 1024 * 1024;

/// A ConfigMap's keys: valid, and none in both `data` and `binaryData`;
/// at most [`MAX_DATA`] bytes of values.
fn config_map(object: &Json, found: &mut Found) {
    let mut size = 0usize;
    for field in ["data", "binaryData"] {
        for (key, value) in object[field].as_object().into_iter().flatten() {
            let at = KeyPath::root().key(field).key(key.clone());
            if let Err(why) = pod::config_key(key) {
                found.push((at, format!("`{key}` is not a ConfigMap key: {why}")));
            } else if field == "data" && !object.field("binaryData")[key.as_str()].is_null() {
                found.push((at, format!("`{key}` is in data and in binaryData")));
            }
            size = size.saturating_add(match field {
                "data" => value.as_str().map_or(0, str::len),
                _ => decoded_len(value),
            });
        }
    }
    if size > MAX_DATA {
        found.push((
            KeyPath::root().key("data"),
            format!("its data and binaryData hold {size} bytes, more than the {MAX_DATA} a ConfigMap may hold"),
        ));
    }
}

/// The bytes a `format: byte` string decodes to: its base64 read as Go
/// reads it, line breaks skipped (0 for no string; a string that is no
/// base64 is the schema's finding).
fn decoded_len(value: &Json) -> usize {
    let text = value.as_str().unwrap_or_default();
    let (mut chars, mut padding) = (0usize, 0usize);
    for byte in text.bytes().filter(|b| !matches!(b, b'\r' | b'\n')) {
        chars += 1;
        padding += usize::from(byte == b'=');
    }
    (chars / 4 * 3).saturating_sub(padding)
}

/// The keys each type of Secret must hold, as `ValidateSecret` reads them:
/// (type, keys of which one must be there, must it be non-empty).
const SECRET_KEYS: &[(&str, &[&str], bool)] = &[
    ("kubernetes.io/dockercfg", &[".dockercfg"], false),
    (
        "kubernetes.io/dockerconfigjson",
        &[".dockerconfigjson"],
        false,
    ),
    ("kubernetes.io/basic-auth", &["username", "password"], false),
    ("kubernetes.io/ssh-auth", &["ssh-privatekey"], true),
    ("kubernetes.io/tls", &["tls.crt"], false),
    ("kubernetes.io/tls", &["tls.key"], false),
];

/// A Secret as `ValidateSecret` reads it, its `stringData` merged into its
/// `data` first (an entry of both is `stringData`'s): valid keys, at most
/// [`MAX_DATA`] bytes of values, the keys its type requires (a Docker
/// configuration a JSON object), and a service account token's account
/// named. Values are never shown.
fn secret(object: &Json, found: &mut Found) {
    use base64::Engine as _;
    let (data, strings) = (object.field("data"), object.field("stringData"));
    let mut size = 0usize;
    for field in ["data", "stringData"] {
        for (key, value) in object[field].as_object().into_iter().flatten() {
            if let Err(why) = pod::config_key(key) {
                let at = KeyPath::root().key(field).key(key.clone());
                found.push((at, format!("`{key}` is not a Secret key: {why}")));
            }
            size = size.saturating_add(match field {
                "stringData" => value.as_str().map_or(0, str::len),
                _ if !strings[key.as_str()].is_null() => 0,
                _ => decoded_len(value),
            });
        }
    }
    if size > MAX_DATA {
        found.push((
            KeyPath::root().key("data"),
            format!("its data and stringData hold {size} bytes, more than the {MAX_DATA} a Secret may hold"),
        ));
    }
    // The merged value of `key`, its bytes; `None` when neither holds it.
    let value = |key: &str| -> Option<Vec<u8>> {
        if let Some(text) = strings.get_field(key).and_then(Json::as_str) {
            return Some(text.as_bytes().to_vec());
        }
        let text: String = (data.get_field(key)?.as_str()?.chars())
            .filter(|c| !matches!(c, '\r' | '\n'))
            .collect();
        Some(
            base64::engine::general_purpose::STANDARD
                .decode(text)
                .unwrap_or_default(),
        )
    };
    let kind = object.field("type").as_str().unwrap_or_default();
    for &(_, keys, non_empty) in SECRET_KEYS.iter().filter(|(t, ..)| *t == kind) {
        let held = keys
            .iter()
            .any(|k| value(k).is_some_and(|v| !non_empty || !v.is_empty()));
        if !held {
            // The type is no secret, but a Secret's `type` is hidden like
            // its values: the message does not quote it.
            let what = keys
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(" or ");
            found.push((
                KeyPath::root().key("data"),
                format!(
                    "its type requires {what}{} in data or stringData",
                    if non_empty { ", not empty," } else { "" }
                ),
            ));
        }
    }
    if let Some(key) = (kind.strip_prefix("kubernetes.io/"))
        .and_then(|t| {
            [
                ("dockercfg", ".dockercfg"),
                ("dockerconfigjson", ".dockerconfigjson"),
            ]
            .into_iter()
            .find(|(k, _)| *k == t)
        })
        .map(|(_, key)| key)
        && let Some(bytes) = value(key)
    {
        // Go's json.Unmarshal into a map: an object or null.
        if !go_json::decodes_as_map(&bytes) {
            let field = if strings.get_field(key).is_some() {
                "stringData"
            } else {
                "data"
            };
            found.push((
                KeyPath::root().key(field).key(key),
                "(hidden) is no JSON object: a Secret of its type holds its Docker configuration as one".to_owned(),
            ));
        }
    }
    if kind == "kubernetes.io/service-account-token" {
        let annotations = object.field("metadata").field("annotations");
        if annotations
            .field("kubernetes.io/service-account.name")
            .as_str()
            .is_none_or(str::is_empty)
        {
            found.push((
                KeyPath::root()
                    .key("metadata")
                    .key("annotations")
                    .key("kubernetes.io/service-account.name"),
                "a service account token's Secret names its ServiceAccount in this annotation"
                    .to_owned(),
            ));
        }
    }
}

/// The counts of a workload's spec the API server wants non-negative, and
/// its selector: well-formed, and selecting its own pod template.
fn workload(kind: &str, object: &Json, found: &mut Found) {
    let spec = object.field("spec");
    // Made on first use: most kinds have nothing checked here.
    let at = std::cell::LazyCell::new(|| KeyPath::root().key("spec"));
    let counts: &[&str] = match kind {
        "Deployment" => &[
            "replicas",
            "revisionHistoryLimit",
            "minReadySeconds",
            "progressDeadlineSeconds",
        ],
        // A StatefulSet's revisionHistoryLimit is not validated (the
        // server warns of a negative one).
        "StatefulSet" => &["replicas", "minReadySeconds"],
        "DaemonSet" => &["revisionHistoryLimit", "minReadySeconds"],
        "ReplicaSet" | "ReplicationController" => &["replicas", "minReadySeconds"],
        "Job" => &[
            "parallelism",
            "completions",
            "backoffLimit",
            "ttlSecondsAfterFinished",
            "backoffLimitPerIndex",
            "maxFailedIndexes",
        ],
        // A CronJob's Jobs are held to a Job's rules.
        "CronJob" => &[
            "successfulJobsHistoryLimit",
            "failedJobsHistoryLimit",
            "startingDeadlineSeconds",
            "jobTemplate.spec.parallelism",
            "jobTemplate.spec.completions",
            "jobTemplate.spec.backoffLimit",
            "jobTemplate.spec.ttlSecondsAfterFinished",
            "jobTemplate.spec.backoffLimitPerIndex",
            "jobTemplate.spec.maxFailedIndexes",
        ],
        _ => &[],
    };
    if !counts.is_empty() {
        non_negative(spec, &at, counts, found);
    }
    // A Deployment's progress deadline (600 s unset) exceeds minReadySeconds.
    if kind == "Deployment" {
        let ready = whole(spec.field("minReadySeconds")).unwrap_or(0);
        let deadline = whole(spec.field("progressDeadlineSeconds")).unwrap_or(600);
        if deadline >= 0 && deadline <= ready {
            found.push((
                at.key("progressDeadlineSeconds"),
                format!("progressDeadlineSeconds ({deadline}{}) must be greater than minReadySeconds ({ready})", if spec.field("progressDeadlineSeconds").is_null() { ", its default" } else { "" }),
            ));
        }
    }
    if kind == "StatefulSet" {
        for (i, claim) in each(spec.field("volumeClaimTemplates")) {
            let claim_at = at.key("volumeClaimTemplates").index(i).key("spec");
            claims::spec(claim.field("spec"), &claim_at, found);
        }
    }
    match kind {
        "Deployment" | "DaemonSet" | "StatefulSet" | "ReplicaSet" | "Job"
            if spec.field("selector").is_object() =>
        {
            let path = at.key("selector");
            let selects = |field: &str| match &spec.field("selector")[field] {
                Json::Object(map) => !map.is_empty(),
                Json::Array(list) => !list.is_empty(),
                _ => false,
            };
            if kind != "Job" && !selects("matchLabels") && !selects("matchExpressions") {
                found.push((
                    path.clone(),
                    format!("an empty selector; the API server refuses it for a {kind}"),
                ));
            }
            label_selector(spec.field("selector"), &path, found);
            // A Job's generated selector is held to the generated labels
            // too (objects.rs); whether generated or not, it selects the
            // template, whose labels gain the generated ones it lacks.
            let generated;
            let template =
                match kind == "Job" && spec.field("manualSelector").as_bool() != Some(true) {
                    true => {
                        generated = with_generated_job_labels(object);
                        &generated
                    }
                    false => spec.field("template"),
                };
            selects_template(spec.field("selector"), template, &path, kind, found);
        }
        "PodDisruptionBudget" if spec.field("selector").is_object() => {
            label_selector(spec.field("selector"), &at.key("selector"), found);
        }
        "PersistentVolumeClaim" => {
            claims::spec(spec, &at, found);
        }
        "NetworkPolicy" if spec.field("podSelector").is_object() => {
            label_selector(spec.field("podSelector"), &at.key("podSelector"), found);
        }
        _ => {}
    }
}

/// The pod template of a Job whose selector the API server generates, as
/// it leaves it: with the labels `job-name` and `controller-uid` (and their
/// `batch.kubernetes.io/` forms) where absent, the uid one no selector can
/// name (it is not known before the Job exists).
fn with_generated_job_labels(job: &Json) -> Json {
    let name = job.field("metadata").field("name").clone();
    let mut template = job.field("spec").field("template").clone();
    if !template.is_object() {
        return template;
    }
    let Some(metadata) = template.as_object_mut().map(|t| {
        t.entry("metadata")
            .or_insert_with(|| Json::Object(Default::default()))
    }) else {
        return template;
    };
    if !metadata.is_object() {
        *metadata = Json::Object(Default::default());
    }
    let Some(labels) = metadata.as_object_mut().map(|m| {
        m.entry("labels")
            .or_insert_with(|| Json::Object(Default::default()))
    }) else {
        return template;
    };
    if let Some(labels) = labels.as_object_mut() {
        for (key, value) in [
            ("job-name", name.clone()),
            ("batch.kubernetes.io/job-name", name),
            ("controller-uid", Json::from("\u{0}")),
            ("batch.kubernetes.io/controller-uid", Json::from("\u{0}")),
        ] {
            labels.entry(key).or_insert(value);
        }
    }
    template
}

/// A finding for each of `fields` (dotted, under `value`) that is a number
/// below zero; the API server refuses them all.
fn non_negative(value: &Json, at: &KeyPath, fields: &[&str], found: &mut Found) {
    for field in fields {
        let mut node = value;
        let mut path = at.clone();
        for key in field.split('.') {
            node = &node[key];
            path = path.key(key);
        }
        if let Some(number) = node.as_f64()
            && number < 0.0
        {
            found.push((
                path,
                format!("{node} is negative; the API server requires {field} >= 0"),
            ));
        }
    }
}

/// The name a CustomResourceDefinition (`<spec.names.plural>.<spec.group>`)
/// or an APIService (`<spec.version>.<spec.group>`) must have, made of its
/// spec, with the rule in words. The API server holds a `generateName` to
/// the same name function, so a prefix other than the whole name is
/// refused too.
fn required_name(group: &str, kind: &str, object: &Json) -> Option<(String, &'static str)> {
    let spec = object.field("spec");
    let text = |value: &Json| value.as_str().unwrap_or_default().to_owned();
    // `kind` is a built-in kind's (a custom resource's is ""), and `group`
    // read for an APIService.
    match (group, kind) {
        (_, "CustomResourceDefinition") => Some((
            format!(
                "{}.{}",
                text(spec.field("names").field("plural")),
                text(spec.field("group"))
            ),
            "a CustomResourceDefinition is named `<spec.names.plural>.<spec.group>`",
        )),
        ("apiregistration.k8s.io", "APIService") => Some((
            format!(
                "{}.{}",
                text(spec.field("version")),
                text(spec.field("group"))
            ),
            "an APIService is named `<spec.version>.<spec.group>`",
        )),
        _ => None,
    }
}

/// Whether the API server keeps the `metadata.generation` written on a new
/// object of built-in `kind` (of `group`, read for an Event only), and so
/// holds it to at least 0
/// (`ValidateObjectMeta`): the kinds whose create strategy sets no
/// generation of its own (measured on v1.35.4; the workloads, Pods,
/// CRDs, custom resources, webhook and policy configurations, Ingresses,
/// NetworkPolicies, PodDisruptionBudgets and the like set it to 1 first).
fn keeps_generation(group: &str, kind: &str) -> bool {
    // A built-in kind's name says its group, but an Event's.
    match kind {
        "Event" => group == "events.k8s.io",
        _ => matches!(
            kind,
            "ConfigMap"
                | "Endpoints"
                | "LimitRange"
                | "Namespace"
                | "Node"
                | "PersistentVolumeClaim"
                | "PersistentVolume"
                | "ResourceQuota"
                | "Secret"
                | "ServiceAccount"
                | "Service"
                | "APIService"
                | "ControllerRevision"
                | "HorizontalPodAutoscaler"
                | "CertificateSigningRequest"
                | "Lease"
                | "IPAddress"
                | "ServiceCIDR"
                | "RuntimeClass"
                | "ClusterRoleBinding"
                | "ClusterRole"
                | "RoleBinding"
                | "Role"
                | "ResourceClaim"
                | "ResourceClaimTemplate"
                | "CSIDriver"
                | "CSINode"
                | "CSIStorageCapacity"
                | "StorageClass"
                | "VolumeAttachment"
                | "VolumeAttributesClass"
        ),
    }
}

/// The server's words for a list of `count` items where it takes at most
/// `most`.
fn too_many(count: usize, most: usize) -> String {
    format!("Too many: {count}: must have at most {most} items")
}

/// A word a field must be one of, if set: the rule of every enumerated
/// field, which the rules of each kind (`pod`, `classes`, `volumes`, …)
/// share from here.
fn one_of(value: &Json, allowed: &[&str], at: KeyPath, found: &mut Found) {
    if let Some(word) = value.as_str()
        && !allowed.contains(&word)
    {
        let words: Vec<String> = (allowed.iter())
            .map(|w| {
                if w.is_empty() {
                    "\"\" (none)".to_owned()
                } else {
                    (*w).to_owned()
                }
            })
            .collect();
        found.push((at, format!("`{word}` is not one of {}", words.join(", "))));
    }
}

/// A finding unless `value` is a port number in 1..65535 (`zero_unset`:
/// 0 means "not set" and passes).
fn port_number(value: &Json, path: KeyPath, zero_unset: bool, found: &mut Found) {
    let Some(number) = value.as_f64() else {
        return;
    };
    if (zero_unset && number == 0.0) || (1.0..=65535.0).contains(&number) {
        return;
    }
    found.push((
        path,
        format!("{value} is not a port number; ports are 1 to 65535"),
    ));
}

/// A finding when a workload's selector does not select its own template's
/// labels: the API server refuses it ("selector does not match template").
/// A selector it cannot read at all is "invalid label selector" there, as
/// the API server says besides naming the parts at fault.
fn selects_template(selector: &Json, template: &Json, at: &KeyPath, kind: &str, found: &mut Found) {
    let empty = serde_json::Map::new();
    let labels = template
        .field("metadata")
        .field("labels")
        .as_object()
        .unwrap_or(&empty);
    let message = match crate::selector::evaluate(selector, |k| {
        labels.get(k).and_then(Json::as_str)
    }) {
        crate::selector::Selected::Yes => return,
        crate::selector::Selected::No => format!(
            "the {kind}'s selector does not match its template's labels (spec.template.metadata.labels); the API server refuses it"
        ),
        crate::selector::Selected::Invalid => format!(
            "the {kind}'s selector is not a label selector the API server can read (its parts at fault are named apart); it refuses it"
        ),
    };
    found.push((at.clone(), message));
}

/// A finding if `name` is not `valid`, or else if `seen` holds it already:
/// `what` is the thing named and the scope its names are unique in.
fn unique_name<'a>(
    name: &'a str,
    valid: Result<(), String>,
    (what, scope): (&str, &str),
    seen: &mut std::collections::BTreeSet<&'a str>,
    path: KeyPath,
    found: &mut Found,
) {
    if let Err(why) = valid {
        found.push((path, format!("`{name}` is not a valid {what} name: {why}")));
    } else if !seen.insert(name) {
        found.push((
            path,
            format!("a second {what} named `{name}`; {what} names are unique {scope}"),
        ));
    }
}

/// A finding for each item of the array `list` (at `at`) whose string
/// `field` an earlier item has already.
fn repeated(
    list: &Json,
    field: &str,
    at: &KeyPath,
    found: &mut Found,
    message: impl Fn(&str) -> String,
) {
    let mut seen = std::collections::BTreeSet::new();
    for (i, item) in each(list) {
        if let Some(value) = item[field].as_str()
            && !seen.insert(value)
        {
            found.push((at.clone().index(i).key(field), message(value)));
        }
    }
}

/// Containers (unique DNS-1123 names, pullable images, IANA port names,
/// mounts of declared volumes) and volume names of one pod spec.
fn pod_spec<'a>(
    pod: &'a Json,
    owner: &str,
    pod_name: Option<&str>,
    at: &KeyPath,
    claims: std::collections::BTreeSet<&'a str>,
    found: &mut Found,
) {
    volumes::volumes(pod, pod_name, at, found);
    let mut volumes = claims;
    for (i, volume) in each(pod.field("volumes")) {
        if volume.field("ephemeral").is_object() {
            let path = at.key("volumes").index(i).key("ephemeral");
            claims::ephemeral(volume.field("ephemeral"), &path, found);
        }
        if let Some(name) = volume.field("name").as_str() {
            let path = at.key("volumes").index(i).key("name");
            let valid = names::dns1123_label(name);
            unique_name(
                name,
                valid,
                ("volume", "in a pod"),
                &mut volumes,
                path,
                found,
            );
        }
    }
    pod_level(pod, at, found);
    resources::pod(pod, owner == "Pod", at, found);
    resources::pod_claims(
        pod.field("resourceClaims"),
        &at.key("resourceClaims"),
        found,
    );
    pod::pod(pod, owner, at, found);
    let pod_claims = (each(pod.field("resourceClaims")))
        .filter_map(|(_, claim)| claim.field("name").as_str())
        .collect();
    let mut containers = std::collections::BTreeSet::new();
    // Whether each volume of the pod is an emptyDir (the last of a name).
    let empty_dirs: std::collections::BTreeMap<&str, bool> = (each(pod.field("volumes")))
        .filter_map(|(_, v)| Some((v.field("name").as_str()?, !v.field("emptyDir").is_null())))
        .collect();
    // Whether each volume can be a block device (a claim, an ephemeral
    // volume; a StatefulSet's claim templates are claims).
    let mut block_capable: std::collections::BTreeMap<&str, bool> = (each(pod.field("volumes")))
        .filter_map(|(_, v)| {
            let capable =
                !v.field("persistentVolumeClaim").is_null() || !v.field("ephemeral").is_null();
            Some((v.field("name").as_str()?, capable))
        })
        .collect();
    for name in &volumes {
        block_capable.entry(name).or_insert(true);
    }
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for (i, container) in each(&pod[list]) {
            let path = at.key(list).index(i);
            if let Some(name) = container.field("name").as_str() {
                if let Err(why) = names::dns1123_label(name) {
                    found.push((
                        path.clone().key("name"),
                        format!("`{name}` is not a valid container name: {why}"),
                    ));
                }
                if !containers.insert(name) {
                    found.push((
                        path.clone().key("name"),
                        format!(
                            "a second container named `{name}`; container names are unique in a pod"
                        ),
                    ));
                }
            }
            // Only a Pod's: a template with one is accepted (its pods are
            // refused when created, and the image is IMAGE's finding).
            if owner == "Pod"
                && let Some(image) = container.field("image").as_str()
                && image != image.trim()
            {
                found.push((
                    path.clone().key("image"),
                    format!("{image:?} has leading or trailing whitespace"),
                ));
            }
            one_container(container, &path, &volumes, &pod_claims, found);
            volumes::mounts(container, &path, found);
            pod::container(container, list == "initContainers", &path, found);
            devices(container, &block_capable, &path, found);
            // A file an environment variable reads is on an emptyDir
            // volume of the pod (`validateFileKeyRefVolumes`).
            for (j, var) in each(container.field("env")) {
                let Some(name) = var
                    .field("valueFrom")
                    .field("fileKeyRef")
                    .field("volumeName")
                    .as_str()
                else {
                    continue;
                };
                let why = match empty_dirs.get(name) {
                    None => "the pod has no volume of that name",
                    Some(false) => "it is no emptyDir volume",
                    Some(true) => continue,
                };
                found.push((
                    path.clone().key("env").index(j).key("valueFrom").key("fileKeyRef").key("volumeName"),
                    format!("a variable reads a file of volume `{name}`, and {why}; a fileKeyRef reads an emptyDir volume of the pod"),
                ));
            }
        }
    }
}

/// A container's `volumeDevices` (`ValidateVolumeDevices`): each names a
/// claim or ephemeral volume of the pod (`block_capable`), once, at a
/// device path given once and without `..`, neither the name nor the path
/// also a volume mount's.
fn devices(
    container: &Json,
    block_capable: &std::collections::BTreeMap<&str, bool>,
    at: &KeyPath,
    found: &mut Found,
) {
    let mounts: Vec<(&str, &str)> = (each(container.field("volumeMounts")))
        .map(|(_, m)| {
            (
                m.field("name").as_str().unwrap_or_default(),
                m.field("mountPath").as_str().unwrap_or_default(),
            )
        })
        .collect();
    let (mut names, mut paths) = (
        std::collections::BTreeSet::new(),
        std::collections::BTreeSet::new(),
    );
    for (i, device) in each(container.field("volumeDevices")) {
        let path = at.key("volumeDevices").index(i);
        let name = device.field("name").as_str().unwrap_or_default();
        let device_path = device.field("devicePath").as_str().unwrap_or_default();
        let mut refuse = |field: &str, why: String| found.push((path.clone().key(field), why));
        match block_capable.get(name) {
            _ if name.is_empty() => refuse("name", "a volume device names a volume".to_owned()),
            None => refuse("name", format!("the pod has no volume `{name}`")),
            Some(false) => refuse(
                "name",
                format!(
                    "volume `{name}` is no claim or ephemeral volume; only those are block devices"
                ),
            ),
            Some(true) => {}
        }
        if !name.is_empty() && !names.insert(name) {
            refuse("name", format!("volume `{name}` is a device twice"));
        }
        if mounts.iter().any(|(m, _)| *m == name) {
            refuse("name", format!("volume `{name}` is also mounted"));
        }
        if device_path.is_empty() {
            refuse("devicePath", "a volume device has a devicePath".to_owned());
        } else if device_path.split('/').any(|part| part == "..") {
            refuse("devicePath", format!("`{device_path}` has a `..` part"));
        } else if !paths.insert(device_path) {
            refuse(
                "devicePath",
                format!("`{device_path}` is a device path twice"),
            );
        }
        if !device_path.is_empty() && mounts.iter().any(|(_, p)| *p == device_path) {
            refuse(
                "devicePath",
                format!("`{device_path}` is also a mount path"),
            );
        }
    }
}

/// One container of a pod whose volumes are `volumes`: a pullable image,
/// unique IANA port names and valid port numbers, mounts of declared
/// volumes at distinct paths, and its own fields.
fn one_container(
    container: &Json,
    path: &KeyPath,
    volumes: &std::collections::BTreeSet<&str>,
    pod_claims: &std::collections::BTreeSet<&str>,
    found: &mut Found,
) {
    // Unique within a container: the API server only warns about a
    // name repeated across containers.
    let mut port_names = std::collections::BTreeSet::new();
    for (p, port) in each(container.field("ports")) {
        let port_path = path.clone().key("ports").index(p);
        if let Some(name) = port.field("name").as_str() {
            let valid = names::iana_service_name(name);
            let path = port_path.clone().key("name");
            unique_name(
                name,
                valid,
                ("port", "in a container"),
                &mut port_names,
                path,
                found,
            );
        }
        port_number(
            port.field("containerPort"),
            port_path.clone().key("containerPort"),
            false,
            found,
        );
        port_number(
            port.field("hostPort"),
            port_path.key("hostPort"),
            true,
            found,
        );
    }
    for (m, mount) in each(container.field("volumeMounts")) {
        if let Some(name) = mount.field("name").as_str()
            && !volumes.contains(name)
        {
            found.push((
                path.clone().key("volumeMounts").index(m).key("name"),
                format!("mounts volume `{name}`, which the pod does not declare"),
            ));
        }
    }
    let mounts = path.clone().key("volumeMounts");
    repeated(
        container.field("volumeMounts"),
        "mountPath",
        &mounts,
        found,
        |mount_path| format!("`{mount_path}` is mounted twice in this container"),
    );
    container_level(container, pod_claims, path, found);
}

/// A Pod's spec as the server prepares it before it validates
/// (`mutatePodAffinity`, `mutateTopologySpreadConstraints`): each pod
/// affinity term and topology spread constraint with a label selector
/// gains, for each of its `matchLabelKeys` and then (a term's)
/// `mismatchLabelKeys` the pod has a label of, an `In` (`NotIn`)
/// expression of that label's value. `None` where none has such keys.
fn with_label_keys(pod: &Json, labels: &Json) -> Option<Json> {
    const TERMS: [&[&str]; 4] = [
        &[
            "podAffinity",
            "requiredDuringSchedulingIgnoredDuringExecution",
        ],
        &[
            "podAffinity",
            "preferredDuringSchedulingIgnoredDuringExecution",
        ],
        &[
            "podAntiAffinity",
            "requiredDuringSchedulingIgnoredDuringExecution",
        ],
        &[
            "podAntiAffinity",
            "preferredDuringSchedulingIgnoredDuringExecution",
        ],
    ];
    let keyed = |term: &Json| {
        ["matchLabelKeys", "mismatchLabelKeys"]
            .iter()
            .any(|f| each(term.field(f)).next().is_some())
    };
    let term_of = |entry: &Json, preferred: bool| {
        if preferred {
            entry.field("podAffinityTerm").clone()
        } else {
            entry.clone()
        }
    };
    let any = TERMS.iter().any(|path| {
        each(pod.field("affinity").field(path[0]).field(path[1]))
            .any(|(_, entry)| keyed(&term_of(entry, path[1].starts_with("preferred"))))
    }) || each(pod.field("topologySpreadConstraints")).any(|(_, spread)| keyed(spread));
    if !any {
        return None;
    }
    let mut pod = pod.clone();
    for path in TERMS {
        let preferred = path[1].starts_with("preferred");
        let Some(list) = pod["affinity"][path[0]][path[1]].as_array_mut() else {
            continue;
        };
        for entry in list {
            let term = if preferred {
                &mut entry["podAffinityTerm"]
            } else {
                entry
            };
            merge_label_keys(term, labels);
        }
    }
    if let Some(spreads) = pod["topologySpreadConstraints"].as_array_mut() {
        // A constraint has no `mismatchLabelKeys` (the schema refuses one).
        spreads
            .iter_mut()
            .for_each(|spread| merge_label_keys(spread, labels));
    }
    Some(pod)
}

/// [`with_label_keys`] for one term or constraint.
fn merge_label_keys(term: &mut Json, labels: &Json) {
    if !term["labelSelector"].is_object() {
        return;
    }
    let mut added = Vec::new();
    for (field, operator) in [("matchLabelKeys", "In"), ("mismatchLabelKeys", "NotIn")] {
        for (_, key) in each(&term[field]) {
            let key = key.as_str().unwrap_or_default();
            if let Some(value) = labels.field(key).as_str() {
                added
                    .push(serde_json::json!({"key": key, "operator": operator, "values": [value]}));
            }
        }
    }
    if added.is_empty() {
        return;
    }
    let expressions = &mut term["labelSelector"]["matchExpressions"];
    if !expressions.is_array() {
        *expressions = Json::Array(Vec::new());
    }
    if let Some(expressions) = expressions.as_array_mut() {
        expressions.extend(added);
    }
}

/// The pod spec's scheduling fields and security context (seccomp
/// profile, unique sysctls). A negative grace period is accepted (the API
/// server only warns, and reads it as 1).
fn pod_level(pod: &Json, at: &KeyPath, found: &mut Found) {
    crate::scheduling::pod(pod, at, found);
    let context = pod.field("securityContext");
    let context_at = at.key("securityContext");
    profiles(context, &context_at, found);
    let sysctls = context_at.key("sysctls");
    repeated(context.field("sysctls"), "name", &sysctls, found, |name| {
        format!("sysctl `{name}` is set twice")
    });
}

/// A container's security context (seccomp profile) and resources
/// (`resources::container`), in a pod whose resource claims are named
/// `pod_claims`.
fn container_level(
    container: &Json,
    pod_claims: &std::collections::BTreeSet<&str>,
    at: &KeyPath,
    found: &mut Found,
) {
    let context = container.field("securityContext");
    let context_at = at.key("securityContext");
    profiles(context, &context_at, found);
    resources::container(
        container.field("resources"),
        pod_claims,
        &at.key("resources"),
        found,
    );
}

/// The seccomp and AppArmor profiles of a security context:
/// `localhostProfile` exactly when the type is `Localhost`, an AppArmor one
/// at most 4095 bytes.
fn profiles(context: &Json, context_at: &KeyPath, found: &mut Found) {
    for field in ["seccompProfile", "appArmorProfile"] {
        let profile = &context[field];
        let at = context_at.key(field);
        // seccomp takes any relative path (even empty); AppArmor a name,
        // not empty, not padded with whitespace.
        let local = profile.field("localhostProfile").as_str().is_some_and(|p| {
            if field == "seccompProfile" {
                !p.starts_with('/') && !p.split('/').any(|part| part == "..")
            } else {
                !p.trim().is_empty() && p.trim() == p
            }
        });
        one_of(
            profile.field("type"),
            &["Localhost", "RuntimeDefault", "Unconfined"],
            at.key("type"),
            found,
        );
        match profile.field("type").as_str() {
            Some("Localhost") if !local => {
                found.push((at.clone(), "type Localhost needs a localhostProfile (seccomp: a relative path without `..`; AppArmor: a name, not padded)".to_owned()))
            }
            Some(other) if other != "Localhost" && !profile.field("localhostProfile").is_null() => {
                found.push((
                    at.key("localhostProfile"),
                    format!("a localhostProfile is only allowed with type Localhost, not {other}"),
                ));
            }
            _ => {}
        }
        if let Some(local) = profile.field("localhostProfile").as_str()
            && field == "appArmorProfile"
            && local.len() > 4095
        {
            found.push((
                at.key("localhostProfile"),
                format!(
                    "{} bytes; an AppArmor profile name has at most 4095",
                    local.len()
                ),
            ));
        }
    }
}

/// A JSON scalar as written, strings without quotes.
fn plain(value: &Json) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_owned)
}

/// A Service's port names (DNS-1123 labels, required and unique when there
/// is more than one port) and named target ports (IANA service names);
/// its node ports ([`node_ports`]), IP family policy ([`ip_family_policy`])
/// and annotations ([`service_annotations`]). A node port's range is the
/// cluster's (`--service-node-port-range`), not checked: a dry run does not
/// check it either.
fn service(object: &Json, found: &mut Found) {
    let spec = object.field("spec");
    node_ports(spec, found);
    ip_family_policy(spec, found);
    service_annotations(object, found);
    if spec.field("clusterIP") == "None"
        && let Some(kind @ ("NodePort" | "LoadBalancer")) = spec.field("type").as_str()
    {
        found.push((
            KeyPath::root().key("spec").key("clusterIP"),
            format!("a headless Service (clusterIP None) cannot be of type {kind}"),
        ));
    }
    let ports = object
        .field("spec")
        .field("ports")
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let mut seen = std::collections::BTreeSet::new();
    let mut numbers = std::collections::BTreeSet::new();
    for (i, port) in ports.iter().enumerate() {
        let path = KeyPath::dotted("spec.ports").index(i);
        match port.field("name").as_str() {
            Some(name) => {
                let valid = names::dns1123_label(name);
                let at = path.clone().key("name");
                unique_name(
                    name,
                    valid,
                    ("Service port", "in a Service"),
                    &mut seen,
                    at,
                    found,
                );
            }
            None if ports.len() > 1 => found.push((
                path.clone(),
                "a Service with more than one port names each of them".to_owned(),
            )),
            None => {}
        }
        port_number(port.field("port"), path.clone().key("port"), false, found);
        let protocol = port.field("protocol").as_str().unwrap_or("TCP");
        if let Some(number) = port.field("port").as_u64()
            && !numbers.insert((number, protocol))
        {
            found.push((
                path.clone().key("port"),
                format!("port {number}/{protocol} a second time; a Service's ports are unique by number and protocol"),
            ));
        }
        if port.field("targetPort").is_number() {
            port_number(
                port.field("targetPort"),
                path.clone().key("targetPort"),
                true,
                found,
            );
        }
        if let Some(target) = port.field("targetPort").as_str()
            && let Err(why) = names::iana_service_name(target)
        {
            found.push((
                path.key("targetPort"),
                format!("`{target}` is not a valid target port name: {why}"),
            ));
        }
    }
}

/// A StatefulSet's claim templates' names, which the API server validates
/// as the names of the volumes it adds to the pod template for them: each
/// given, a DNS-1123 label.
fn claim_template_names(object: &Json, found: &mut Found) {
    for (i, claim) in each(object.field("spec").field("volumeClaimTemplates")) {
        let name = claim
            .field("metadata")
            .field("name")
            .as_str()
            .unwrap_or_default();
        let why = match name {
            "" => Err("a claim template is named: its pods mount it as a volume of that name".to_owned()),
            _ => names::dns1123_label(name).map_err(|why| {
                format!("`{name}` is not a valid volume name (its pods mount the claim as a volume of that name): {why}")
            }),
        };
        if let Err(why) = why {
            found.push((
                KeyPath::dotted("spec.volumeClaimTemplates")
                    .index(i)
                    .key("metadata")
                    .key("name"),
                why,
            ));
        }
    }
}

/// `pod` without the volumes a StatefulSet's claim templates (`claims`)
/// replace: the API server validates the template with a volume of each
/// claim's name in place of the template's own of that name, which it
/// does not read. `None` when no volume is so named (most templates).
fn without_volumes_named(pod: &Json, claims: &std::collections::BTreeSet<&str>) -> Option<Json> {
    let named = |volume: &Json| {
        volume
            .field("name")
            .as_str()
            .is_some_and(|name| claims.contains(name))
    };
    if !each(pod.field("volumes")).any(|(_, volume)| named(volume)) {
        return None;
    }
    let mut copy = pod.clone();
    if let Some(volumes) = copy.get_mut("volumes").and_then(Json::as_array_mut) {
        volumes.retain(|volume| !named(volume));
    }
    Some(copy)
}

/// Adds `by` to the index that follows `list` in `path`, where `path` is
/// below `list`.
fn shift_index_below(path: &mut KeyPath, list: &KeyPath, by: usize) {
    let depth = list.0.len();
    if by > 0
        && path.0.starts_with(&list.0)
        && let Some(Segment::Index(index)) = path.0.get_mut(depth)
    {
        *index += by;
    }
}

/// What the API server reserves of a NodePort or LoadBalancer Service's
/// node ports when it creates one (`initNodePorts`,
/// `allocHealthCheckNodePort`): ports may share a node port only where
/// their `port` is the same (whatever the protocol); a health check node
/// port is in 1..65535 and none of theirs.
fn node_ports(spec: &Json, found: &mut Found) {
    let kind = spec.field("type").as_str().unwrap_or("ClusterIP");
    if !matches!(kind, "NodePort" | "LoadBalancer") {
        return;
    }
    let mut reserved: std::collections::BTreeMap<i64, (i64, usize)> = Default::default();
    for (i, port) in each(spec.field("ports")) {
        let (Some(node), Some(number)) = (whole(port.field("nodePort")), whole(port.field("port")))
        else {
            continue;
        };
        if node == 0 {
            continue;
        }
        match reserved.get(&node) {
            Some(&(other, first)) if other != number => found.push((
                KeyPath::dotted("spec.ports").index(i).key("nodePort"),
                format!("node port {node} is already port {other}'s ([{first}]); ports share a node port only with the same port number"),
            )),
            _ => {
                reserved.entry(node).or_insert((number, i));
            }
        }
    }
    let local = kind == "LoadBalancer" && spec.field("externalTrafficPolicy") == "Local";
    match whole(spec.field("healthCheckNodePort")) {
        Some(health) if local && health != 0 && !(1..=65535).contains(&health) => found.push((
            KeyPath::dotted("spec.healthCheckNodePort"),
            format!("{health} is not a port number; ports are 1 to 65535"),
        )),
        Some(health) if local && reserved.contains_key(&health) => found.push((
            KeyPath::dotted("spec.healthCheckNodePort"),
            format!("node port {health} is already a port's; the health check needs its own"),
        )),
        _ => {}
    }
}

/// A Service's `ipFamilyPolicy` where it is left out: the API server makes
/// it `SingleStack` when it creates the Service (`RequireDualStack` for a
/// headless one without a selector), which two IP families or two cluster
/// IPs then break.
fn ip_family_policy(spec: &Json, found: &mut Found) {
    let kind = spec.field("type").as_str().unwrap_or("ClusterIP");
    let headless = spec.field("clusterIP") == "None";
    let selectorless = spec
        .field("selector")
        .as_object()
        .is_none_or(|s| s.is_empty());
    if kind == "ExternalName"
        || !spec.field("ipFamilyPolicy").is_null()
        || (headless && selectorless)
    {
        return;
    }
    let count = |field: &str| spec.field(field).as_array().map_or(0, Vec::len);
    for field in ["ipFamilies", "clusterIPs"] {
        if count(field) > 1 {
            found.push((
                KeyPath::dotted("spec.ipFamilyPolicy"),
                format!("left out, ipFamilyPolicy is SingleStack, which takes one of {field}: give PreferDualStack or RequireDualStack"),
            ));
            return;
        }
    }
}

/// A Service's annotations the API server reads: the load balancer source
/// ranges (only where `loadBalancerSourceRanges` is empty: for a
/// LoadBalancer only, each of its comma-separated CIDRs valid), and the
/// topology mode equal to the deprecated topology hints where both are set.
fn service_annotations(object: &Json, found: &mut Found) {
    const RANGES: &str = "service.beta.kubernetes.io/load-balancer-source-ranges";
    const MODE: &str = "service.kubernetes.io/topology-mode";
    const HINTS: &str = "service.kubernetes.io/topology-aware-hints";
    let annotations = object.field("metadata").field("annotations");
    let spec = object.field("spec");
    let at = |key: &str| KeyPath::dotted("metadata.annotations").key(key.to_owned());
    let fielded = spec
        .field("loadBalancerSourceRanges")
        .as_array()
        .is_some_and(|r| !r.is_empty());
    if let Some(value) = annotations.field(RANGES).as_str().filter(|_| !fielded) {
        if spec.field("type") != "LoadBalancer" {
            found.push((
                at(RANGES),
                "this annotation is for a LoadBalancer Service".to_owned(),
            ));
        }
        let value = value.trim();
        for range in value.split(',').filter(|_| !value.is_empty()) {
            if crate::cidr::legacy_cidr(range.trim()).is_none() {
                found.push((at(RANGES), format!("`{}` is not a CIDR", range.trim())));
            }
        }
    }
    if let (Some(mode), Some(hints)) = (
        annotations.field(MODE).as_str(),
        annotations.field(HINTS).as_str(),
    ) && mode != hints
    {
        found.push((
            at(MODE),
            format!("`{mode}` here and `{hints}` in {HINTS}; where both are set they match"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(object: Json) -> Vec<String> {
        problems(&object)
            .into_iter()
            .map(|(path, message)| format!("{path}: {message}"))
            .collect()
    }

    /// Objects checked in one run that remembers the valid keys draw the
    /// findings each draws alone: a key valid as a label key and refused
    /// as an annotation key, or the reverse, is judged as each, a refused
    /// key is refused again in every object, and a key with capitals is
    /// checked as a label and, lowercased, as an annotation.
    #[test]
    fn remembered_keys_draw_the_findings_of_each_object_alone() {
        let object = |labels: Json, annotations: Json| {
            serde_json::json!({
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "c", "namespace": "ops",
                    "labels": labels, "annotations": annotations},
            })
        };
        let mut many = serde_json::Map::new();
        for i in 0..(ValidKeys::REMEMBERED * 2 + 3) {
            many.insert(format!("example.com/key-{i}"), Json::from("x"));
        }
        let objects = [
            object(
                serde_json::json!({"app": "a", "Example.com/app": "x", "bad key": "x"}),
                serde_json::json!({"Example.com/App": "x", "app": "y", "bad key": "x"}),
            ),
            object(
                serde_json::json!({"Example.com/App": "x", "app": "b", "bad key": "y"}),
                serde_json::json!({"Example.com/app": "x", "bad key": "z"}),
            ),
            object(Json::Object(many.clone()), Json::Object(many)),
            object(
                serde_json::json!({"example.com/key-70": "x", "-x": "y", "app": "c"}),
                serde_json::json!({"EXAMPLE.com/key-1": "x", "app": "d", "Example.com/App": "x"}),
            ),
        ];
        let mut valid = ValidKeys::default();
        for object in &objects {
            assert_eq!(
                problems_remembering(object, ObjectScope::Namespaced, &mut valid),
                problems(object)
            );
        }
        let labels = valid.remembered("labels").to_vec();
        let annotations = valid.remembered("annotations").to_vec();
        assert_eq!(labels.len(), ValidKeys::REMEMBERED);
        assert_eq!(annotations.len(), ValidKeys::REMEMBERED);
        assert!(labels.contains(&"app") && !labels.contains(&"Example.com/app"));
        assert!(annotations.contains(&"Example.com/App"));
        assert!(!labels.contains(&"bad key") && !annotations.contains(&"bad key"));
    }

    /// A ConfigMap or Secret holds at most 1 MiB of values, counted as the
    /// server counts them: a ConfigMap's text in UTF-8 bytes and its
    /// binary data decoded; a Secret's data decoded (line breaks skipped)
    /// with its `stringData` over it. Each case as a real v1.35 server
    /// judged it (too large for the written corpus).
    #[test]
    fn config_maps_and_secrets_hold_at_most_a_mebibyte() {
        use base64::Engine as _;
        let b64 = |n: usize| base64::engine::general_purpose::STANDARD.encode(vec![b'x'; n]);
        let mib = MAX_DATA;
        let config = |data: Json, binary: Json| {
            paths(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "c"}, "data": data, "binaryData": binary}))
        };
        let secret = |data: Json, strings: Json| {
            paths(serde_json::json!({"apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": "s"}, "data": data, "stringData": strings}))
        };
        let over = |found: Vec<String>| {
            assert_eq!(found.len(), 1, "{found:#?}");
            assert!(found[0].starts_with("data: its data and "), "{found:#?}");
            assert!(found[0].contains("more than the 1048576"), "{found:#?}");
        };
        assert_eq!(
            config(serde_json::json!({"a": "x".repeat(mib)}), Json::Null),
            Vec::<String>::new()
        );
        over(config(
            serde_json::json!({"a": "x".repeat(mib + 1)}),
            Json::Null,
        ));
        over(config(
            serde_json::json!({"a": "\u{e9}".repeat(mib / 2 + 1)}),
            Json::Null,
        ));
        over(config(
            serde_json::json!({"a": "x".repeat(600_000)}),
            serde_json::json!({"b": b64(500_000)}),
        ));
        assert_eq!(
            config(Json::Null, serde_json::json!({"b": b64(mib)})),
            Vec::<String>::new()
        );
        assert_eq!(
            secret(serde_json::json!({"a": b64(mib)}), Json::Null),
            Vec::<String>::new()
        );
        over(secret(serde_json::json!({"a": b64(mib + 1)}), Json::Null));
        over(secret(
            serde_json::json!({"a": b64(600_000)}),
            serde_json::json!({"b": "y".repeat(500_000)}),
        ));
        // An entry of both is stringData's.
        assert_eq!(
            secret(
                serde_json::json!({"a": b64(mib)}),
                serde_json::json!({"a": "small"})
            ),
            Vec::<String>::new()
        );
        let lines = vec![b64(768); 1366].join("\n");
        over(secret(serde_json::json!({"a": lines}), Json::Null));
    }

    /// The API server lowercases an annotation key before it checks it,
    /// not a label key (a real v1.35 server accepts the annotation and
    /// refuses the label).
    #[test]
    fn annotation_keys_are_checked_in_lowercase_label_keys_as_written() {
        let found = paths(serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "namespace": "ops",
                "labels": {"Example.com/app": "x"},
                "annotations": {"Example.com/App": "x", "Bad_Prefix.com/x": "y"}},
        }));
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(
            found[0].starts_with(
                "metadata.labels.\"Example.com/app\": `Example.com/app` is not a valid label key"
            ),
            "{found:#?}"
        );
        assert!(
            found[1].starts_with("metadata.annotations.\"Bad_Prefix.com/x\""),
            "{found:#?}"
        );
    }

    /// Pod validation a real v1.35 server applies, each refused once:
    /// user namespaces and host namespaces, host-network ports and
    /// sysctls, sysctl names, privilege escalation with privileged, an
    /// unmasked /proc, a container without image, an absolute subPath, a
    /// lifecycle hook on an init container, a profile type; and the same
    /// pod made valid draws nothing.
    #[test]
    fn pod_validation_of_host_and_user_namespaces_and_security_contexts() {
        let pod = |spec: Json| {
            at(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "p", "namespace": "ops"}, "spec": spec}))
        };
        let found = pod(serde_json::json!({
            "hostUsers": false, "hostPID": true, "hostNetwork": true,
            "securityContext": {"seccompProfile": {"type": "Bogus"}, "sysctls": [
                {"name": "net.core.somaxconn", "value": "1"}, {"name": "Kernel.shm", "value": "1"},
                {"name": "net/ipv4/ip_forward", "value": "1"}]},
            "initContainers": [{"name": "i", "image": "a:1", "lifecycle": {"postStart": {"exec": {"command": ["x"]}}}}],
            "containers": [
                {"name": "a", "image": "a:1", "ports": [{"containerPort": 80, "hostPort": 81}],
                 "securityContext": {"privileged": true, "allowPrivilegeEscalation": false},
                 "volumeMounts": [{"name": "v", "mountPath": "/v", "subPath": "../x"}]},
                {"name": "b", "securityContext": {"procMount": "Unmasked"}}],
            "volumes": [{"name": "v", "emptyDir": {}}],
        }));
        assert_eq!(
            found,
            [
                "spec.securityContext.seccompProfile.type",
                "spec.hostNetwork",
                "spec.hostPID",
                "spec.securityContext.sysctls[0].name",
                "spec.securityContext.sysctls[1].name",
                "spec.securityContext.sysctls[2].name",
                "spec.containers[0].securityContext",
                "spec.containers[0].ports[0].hostPort",
                "spec.containers[1].image",
                "spec.initContainers[0].lifecycle",
                "spec.containers[0].volumeMounts[0].subPath",
            ]
            .map(str::to_owned)
            .to_vec()
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>(),
            "{found:#?}"
        );
        let valid = pod(serde_json::json!({
            "hostUsers": false,
            "securityContext": {"sysctls": [{"name": "net/ipv4/ip_forward", "value": "1"}]},
            "containers": [{"name": "a", "image": "a:1", "ports": [{"containerPort": 80}],
                "securityContext": {"procMount": "Unmasked", "allowPrivilegeEscalation": false}}],
        }));
        assert_eq!(valid, Vec::<String>::new());
        assert_eq!(
            pod(serde_json::json!({"containers": []})),
            ["spec.containers"]
        );
    }

    /// A name prefix and owner references, as a real v1.35 server reads
    /// them; a cluster-scoped object's namespace is not read.
    #[test]
    fn generate_name_owner_references_and_cluster_scoped_namespaces() {
        let pod = |metadata: serde_json::Value| {
            let mut object = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "p", "namespace": "ops"},
                "spec": {"containers": [{"name": "a", "image": "a:1"}]}});
            for (key, value) in metadata.as_object().unwrap() {
                object["metadata"][key] = value.clone();
            }
            at(object)
        };
        // A trailing `-` and the byte before it are read as `a`.
        for good in ["web-", "a-", "a.b-", "a_-"] {
            assert!(
                pod(serde_json::json!({"generateName": good})).is_empty(),
                "{good}"
            );
        }
        for bad in ["-", "Web-", "a_b-"] {
            assert_eq!(
                pod(serde_json::json!({"generateName": bad})),
                ["metadata.generateName"],
                "{bad}"
            );
        }
        let owner = |api: &str, kind: &str, controller: bool| serde_json::json!({"apiVersion": api, "kind": kind, "name": "o", "uid": "u", "controller": controller});
        assert!(
            pod(serde_json::json!({"ownerReferences": [owner("apps/v1", "ReplicaSet", true)]}))
                .is_empty()
        );
        assert_eq!(
            pod(serde_json::json!({"ownerReferences": [
                owner("apps/", "X", true), owner("/v1", "Event", true), {"apiVersion": "v1"}]})),
            [
                "metadata.ownerReferences[0].apiVersion",
                "metadata.ownerReferences[1]",
                "metadata.ownerReferences[2].kind",
                "metadata.ownerReferences[2].name",
                "metadata.ownerReferences[2].uid",
                "metadata.ownerReferences",
            ]
        );
        let role = |kind: &str| {
            at(
                serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
                "metadata": {"name": "r", "namespace": "A B"}, "rules": []}),
            )
        };
        assert!(role("ClusterRole").is_empty());
        assert_eq!(role("Role"), ["metadata.namespace"]);
        // A custom resource's scope is its CRD's, which the caller knows.
        let gadget = serde_json::json!({"apiVersion": "example.com/v1", "kind": "Gadget",
            "metadata": {"name": "g", "namespace": "A B"}});
        let paths = |scope| {
            let found = problems_remembering(&gadget, scope, &mut ValidKeys::default());
            found
                .into_iter()
                .map(|(p, _)| p.to_string())
                .collect::<Vec<_>>()
        };
        assert!(paths(ObjectScope::Cluster).is_empty());
        assert_eq!(paths(ObjectScope::Namespaced), ["metadata.namespace"]);
    }

    /// A Windows user, a GMSA credential spec and its name, as a real v1.35
    /// server reads them, in the pod's `windowsOptions` and a container's.
    #[test]
    fn windows_options_as_the_server_reads_them() {
        let pod = |user: &str| {
            at(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "p", "namespace": "ops"},
                "spec": {"securityContext": {"windowsOptions": {"runAsUserName": user}},
                    "containers": [{"name": "a", "image": "a:1"}]}}))
        };
        for user in [
            "ContainerUser",
            "NT AUTHORITY\\NETWORK SERVICE",
            "DOMAIN15CHARSXX\\u",
            "sub.example.com\\u",
            "d_d\\u",
            "u.",
            &"u".repeat(104),
        ] {
            assert_eq!(pod(user), Vec::<String>::new(), "{user}");
        }
        for user in [
            "",
            "a\\b\\c",
            "\\user",
            "domain\\",
            "tab\tuser",
            "DOMAIN_16CHARSXX\\u",
            ".dom\\u",
            "-bad.example.com\\u",
            "...",
            "us@er",
            &"u".repeat(105),
            &format!("{}\\u", "d".repeat(256)),
        ] {
            // One finding for each reason the server gives, all at the name.
            let found = pod(user);
            assert!(!found.is_empty(), "{user}");
            assert!(
                found
                    .iter()
                    .all(|f| f == "spec.securityContext.windowsOptions.runAsUserName"),
                "{user}: {found:?}"
            );
        }
        let gmsa = at(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "ops"},
            "spec": {"containers": [{"name": "a", "image": "a:1", "securityContext": {
                "windowsOptions": {"gmsaCredentialSpecName": "Gmsa", "gmsaCredentialSpec": ""}}},
                {"name": "b", "image": "b:1", "securityContext": {
                "windowsOptions": {"gmsaCredentialSpec": "x".repeat(64 * 1024 + 1)}}}]}}));
        assert_eq!(
            gmsa,
            [
                "spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpecName",
                "spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpec",
                "spec.containers[1].securityContext.windowsOptions.gmsaCredentialSpec",
            ]
        );
    }

    /// Windows and HostProcess pods, seccomp annotations against fields, a
    /// headless NodePort Service and a ConfigMap key twice, as a real
    /// v1.35 server refuses them.
    #[test]
    fn windows_host_process_seccomp_annotations_services_and_config_maps() {
        let found = at(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "ops",
                "annotations": {"seccomp.security.alpha.kubernetes.io/pod": "unconfined",
                                "container.seccomp.security.alpha.kubernetes.io/b": "localhost/x.json"}},
            "spec": {"os": {"name": "windows"}, "hostPID": true,
                "securityContext": {"seccompProfile": {"type": "RuntimeDefault"},
                                    "windowsOptions": {"hostProcess": true}},
                "containers": [
                    {"name": "a", "image": "a:1", "securityContext": {"privileged": false,
                        "windowsOptions": {"hostProcess": false}}},
                    {"name": "b", "image": "b:1", "securityContext": {
                        "seccompProfile": {"type": "Localhost", "localhostProfile": "x.json"}}}]}}));
        assert_eq!(
            found,
            [
                "spec.securityContext.seccompProfile.type",
                "spec.hostPID",
                "spec.securityContext.seccompProfile",
                "spec.containers[0].securityContext.privileged",
                "spec.containers[1].securityContext.seccompProfile",
                "spec.containers[0].securityContext.windowsOptions.hostProcess",
                "spec",
                "spec.hostNetwork",
            ],
            "{found:#?}"
        );
        let host_process = at(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "ops"},
            "spec": {"hostNetwork": true, "securityContext": {"windowsOptions": {"hostProcess": true}},
                "containers": [{"name": "a", "image": "a:1"}]}}));
        assert_eq!(host_process, Vec::<String>::new());
        let service = at(serde_json::json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "s", "namespace": "ops"},
            "spec": {"type": "NodePort", "clusterIP": "None", "ports": [{"port": 80}]}}));
        assert_eq!(service, ["spec.clusterIP"]);
        let config = at(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "namespace": "ops"},
            "data": {"k": "v", "..x": "v"}, "binaryData": {"k": "dg=="}}));
        assert_eq!(config, ["data.k", "data.\"..x\""]);
    }

    /// A v1.35 server: a Deployment's progress deadline (600 unset) above
    /// minReadySeconds; a DaemonSet's rolling update with exactly one of
    /// maxUnavailable (1 unset) and maxSurge (0 unset) non-zero; a seccomp
    /// Localhost profile may be an empty path, an AppArmor one not.
    #[test]
    fn deadlines_daemon_surges_and_localhost_profiles() {
        let mut d = deployment(serde_json::json!({"containers": [{"name": "a", "image": "a:1"}]}));
        d["spec"]["minReadySeconds"] = 600.into();
        assert_eq!(at(d.clone()), ["spec.progressDeadlineSeconds"]);
        d["spec"]["progressDeadlineSeconds"] = 601.into();
        assert_eq!(at(d), Vec::<String>::new());
        let daemon = |rolling: Json| {
            let mut d =
                deployment(serde_json::json!({"containers": [{"name": "a", "image": "a:1"}]}));
            d["kind"] = "DaemonSet".into();
            d["spec"]["updateStrategy"] =
                serde_json::json!({"type": "RollingUpdate", "rollingUpdate": rolling});
            at(d)
        };
        assert_eq!(
            daemon(serde_json::json!({"maxSurge": 1})),
            ["spec.updateStrategy.rollingUpdate.maxSurge"]
        );
        assert_eq!(
            daemon(serde_json::json!({"maxSurge": 1, "maxUnavailable": 0})),
            Vec::<String>::new()
        );
        assert_eq!(
            daemon(serde_json::json!({"maxUnavailable": 0})),
            ["spec.updateStrategy.rollingUpdate.maxUnavailable"]
        );
        assert_eq!(
            daemon(serde_json::json!({"maxUnavailable": "10%"})),
            Vec::<String>::new()
        );
        let profile = |field: &str, local: &str| {
            at(
                serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ops"},
                "spec": {"securityContext": { field: {"type": "Localhost", "localhostProfile": local}},
                    "containers": [{"name": "a", "image": "a:1"}]}}),
            )
        };
        assert_eq!(profile("seccompProfile", ""), Vec::<String>::new());
        assert_eq!(
            profile("seccompProfile", "/abs.json"),
            ["spec.securityContext.seccompProfile"]
        );
        assert_eq!(
            profile("appArmorProfile", ""),
            ["spec.securityContext.appArmorProfile"]
        );
        assert_eq!(
            profile("appArmorProfile", " p"),
            ["spec.securityContext.appArmorProfile"]
        );
        let pages = |amount: &str| {
            at(
                serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ops"},
                "spec": {"containers": [{"name": "a", "image": "a:1", "resources": {
                    "limits": {"hugepages-2Mi": amount, "memory": "1Gi"}}}]}}),
            )
        };
        assert_eq!(pages("4Mi"), Vec::<String>::new());
        assert_eq!(
            pages("1m"),
            ["spec.containers[0].resources.limits.hugepages-2Mi"]
        );
        assert_eq!(
            pages("3Mi"),
            ["spec.containers[0].resources.limits.hugepages-2Mi"]
        );
    }

    /// A third seed against the v1.35 server: AppArmor annotations
    /// against the profile a container runs with (a template's, not a
    /// Pod's, where the server copies the annotation first), dnsPolicy
    /// None with its dnsConfig, a nodePort refused on ClusterIP only, an
    /// external traffic policy on externally accessible Services only, a
    /// successThreshold 0 (defaulted to 1), a claim's storage above zero, a
    /// progress deadline of 0.
    #[test]
    fn apparmor_annotations_dns_services_probes_claims_and_deadlines() {
        let spec = serde_json::json!({"securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}},
            "containers": [{"name": "a", "image": "a:1",
                "livenessProbe": {"exec": {"command": ["x"]}, "successThreshold": 0}}],
            "dnsPolicy": "None"});
        let annotations =
            serde_json::json!({"container.apparmor.security.beta.kubernetes.io/a": "unconfined"});
        let mut d = deployment(spec.clone());
        d["spec"]["template"]["metadata"]["annotations"] = annotations.clone();
        d["spec"]["progressDeadlineSeconds"] = 0.into();
        assert_eq!(
            at(d),
            [
                "spec.template.spec.securityContext.appArmorProfile",
                "spec.template.spec.dnsConfig",
                "spec.progressDeadlineSeconds",
            ]
            .map(|p| p.replace(
                "spec.template.spec.securityContext.appArmorProfile",
                "spec.template.spec.containers[0].securityContext.appArmorProfile"
            ))
        );
        let pod = at(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "ops", "annotations": annotations}, "spec": spec}));
        assert_eq!(pod, ["spec.dnsConfig"]);
        let service = |kind: &str, policy: &str| {
            let mut object = serde_json::json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "ops"},
                "spec": {"type": kind, "externalName": "db.example.com",
                    "ports": [{"port": 80, "nodePort": 30080}]}});
            if !policy.is_empty() {
                object["spec"]["externalTrafficPolicy"] = policy.into();
            }
            at(object)
        };
        assert_eq!(service("ExternalName", ""), Vec::<String>::new());
        assert_eq!(service("ClusterIP", ""), ["spec.ports[0].nodePort"]);
        assert_eq!(
            service("ExternalName", "Local"),
            ["spec.externalTrafficPolicy"]
        );
        assert_eq!(service("NodePort", "Local"), Vec::<String>::new());
        let claim = |resources: Json| {
            at(
                serde_json::json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": "c", "namespace": "ops"},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": resources}}),
            )
        };
        assert_eq!(
            claim(serde_json::json!({"requests": {"storage": "0"}})),
            ["spec.resources.requests.storage"]
        );
        assert_eq!(claim(serde_json::json!({})), ["spec.resources.requests"]);
        assert_eq!(
            claim(serde_json::json!({"requests": {"storage": "1Gi"}})),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_service_name_must_start_with_a_letter() {
        let found = paths(serde_json::json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "1-gateway", "namespace": "ops"},
            "spec": {"ports": [{"port": 1, "targetPort": "Grpc"}, {"name": "b", "port": 2}]},
        }));
        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(found[0].starts_with("metadata.name: `1-gateway` is not a valid Service name"));
        assert!(found[1].starts_with("spec.ports[0]: a Service with more than one port"));
        assert!(found[2].starts_with("spec.ports[0].targetPort:"));
    }

    #[test]
    fn workloads_name_their_parts_as_the_api_server_requires() {
        let found = paths(serde_json::json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "namespace": "Ops", "labels": {"a/b/c": "x", "ok": "-bad"}},
            "spec": {"template": {
                "metadata": {"annotations": {"example.com/x": "y"}},
                "spec": {
                    "volumes": [{"name": "Data"}],
                    "containers": [
                        {"name": "app", "image": "ghcr.io/Acme/app:1",
                         "ports": [{"name": "metrics-endpoint", "containerPort": 1}],
                         "volumeMounts": [{"name": "cache", "mountPath": "/c"}]},
                        {"name": "app", "image": "ghcr.io/acme/app:1"},
                    ],
                },
            }},
        }));
        let paths: Vec<&str> = found.iter().map(|f| f.split(':').next().unwrap()).collect();
        assert_eq!(
            paths,
            [
                "metadata.namespace",
                "metadata.labels.\"a/b/c\"",
                "metadata.labels.ok",
                "spec.template.spec.volumes[0].name",
                "spec.template.spec.containers[0].ports[0].name",
                "spec.template.spec.containers[0].volumeMounts[0].name",
                "spec.template.spec.containers[1].name",
            ],
            "{found:#?}"
        );
    }

    #[test]
    fn a_crd_is_named_after_its_plural_and_group() {
        let found = paths(serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.org", "names": {"plural": "widgets", "kind": "Widget"}},
        }));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(
            found[0].contains("here `widgets.example.org`"),
            "{found:#?}"
        );
    }

    /// The paths of the findings for `object`, in order.
    fn at(object: Json) -> Vec<String> {
        problems(&object)
            .into_iter()
            .map(|(path, _)| path.to_string())
            .collect()
    }

    /// A Deployment whose pod spec is `pod`, selecting `app: web`.
    fn deployment(pod: Json) -> Json {
        serde_json::json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "apps"},
            "spec": {
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}}, "spec": pod},
            },
        })
    }

    #[test]
    fn volume_names_mount_paths_and_port_names_are_unique() {
        let found = at(deployment(serde_json::json!({
            "volumes": [{"name": "data"}, {"name": "data"}],
            "containers": [
                {"name": "a", "image": "a:1",
                 "ports": [{"name": "http", "containerPort": 80}, {"name": "http", "containerPort": 82}],
                 "volumeMounts": [{"name": "data", "mountPath": "/d"}, {"name": "data", "mountPath": "/d"}]},
                {"name": "b", "image": "b:1", "ports": [{"name": "http", "containerPort": 81}],
                 "volumeMounts": [{"name": "data", "mountPath": "/d"}]},
            ],
        })));
        assert_eq!(
            found,
            [
                "spec.template.spec.volumes[1].name",
                "spec.template.spec.containers[0].ports[1].name",
                "spec.template.spec.containers[0].volumeMounts[1].mountPath",
            ]
        );
    }

    #[test]
    fn resources_are_quantities_and_requests_stay_within_limits() {
        let found = paths(deployment(serde_json::json!({
            "containers": [{"name": "a", "image": "a:1", "resources": {
                "requests": {"cpu": "100q", "memory": "1Gi", "ephemeral-storage": "1G", "nvidia.com/gpu": 1},
                "limits": {"cpu": "1", "memory": "1G", "ephemeral-storage": "1Gi", "nvidia.com/gpu": -1},
            }}],
        })));
        assert_eq!(found.len(), 4, "{found:#?}");
        assert!(
            found[0].starts_with(
                "spec.template.spec.containers[0].resources.requests.cpu: `100q` is not a quantity"
            ),
            "{found:#?}"
        );
        assert!(
            found[1].starts_with(
                "spec.template.spec.containers[0].resources.limits.\"nvidia.com/gpu\": -1"
            ),
            "{found:#?}"
        );
        assert!(
            found[2].starts_with("spec.template.spec.containers[0].resources.requests.memory: requests 1Gi of memory, more than its limit 1G"),
            "{found:#?}"
        );
        // An extended resource is requested only at its limit.
        assert!(
            found[3].starts_with(
                "spec.template.spec.containers[0].resources.requests.\"nvidia.com/gpu\": requests 1 of nvidia.com/gpu without the same limit"
            ),
            "{found:#?}"
        );
        // Huge pages are not overcommitted either: a request needs its
        // limit, and takes any quantity (no whole-number rule).
        let found = paths(deployment(serde_json::json!({
            "containers": [{"name": "a", "image": "a:1", "resources": {
                "requests": {"hugepages-2Mi": "4Mi", "hugepages-1Gi": "1Gi"},
                "limits": {"hugepages-1Gi": "1Gi", "memory": "1Gi"},
            }}],
        })));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(
            found[0].starts_with("spec.template.spec.containers[0].resources.requests.hugepages-2Mi: requests 4Mi of hugepages-2Mi without the same limit"),
            "{found:#?}"
        );
        // The same amount written two ways is not above itself.
        let found = at(deployment(serde_json::json!({
            "containers": [{"name": "a", "image": "a:1", "resources": {
                "requests": {"cpu": "500m", "memory": "1024Mi"},
                "limits": {"cpu": 0.5, "memory": "1Gi"},
            }}],
        })));
        assert!(found.is_empty(), "{found:#?}");
        // Exactly, never through a float: 700m is 0.7, and a nano more is
        // more; the finding names both as written.
        for (request, limit, above) in [
            ("700m", "0.7", false),
            ("0.7", "700m", false),
            ("700000001n", "0.7", true),
            ("700000000n", "0.7", false),
            ("700000001e-9", "0.7", true),
            ("0.700000001", "700m", true),
            ("1e-10", "1n", false),
            ("9223372036854775807", "8Ei", false),
        ] {
            let found = paths(deployment(serde_json::json!({
                "containers": [{"name": "a", "image": "a:1", "resources": {
                    "requests": {"cpu": request}, "limits": {"cpu": limit},
                }}],
            })));
            let expected = if above {
                vec![format!(
                    "spec.template.spec.containers[0].resources.requests.cpu: requests {request} of cpu, more than its limit {limit}; a request is at most its limit"
                )]
            } else {
                vec![]
            };
            assert_eq!(found, expected, "{request} <= {limit}");
        }
    }

    #[test]
    fn counts_ids_and_ports_are_never_negative() {
        let mut object = deployment(serde_json::json!({
            "terminationGracePeriodSeconds": -1,
            "securityContext": {"runAsUser": -1, "runAsGroup": 0, "fsGroup": -2},
            "containers": [{"name": "a", "image": "a:1",
                "ports": [{"containerPort": 0}, {"containerPort": 65536, "hostPort": 0}, {"containerPort": 1, "hostPort": -1}],
                "livenessProbe": {"exec": {"command": ["true"]}, "initialDelaySeconds": -5, "periodSeconds": 0},
                "startupProbe": {"exec": {"command": ["true"]}, "failureThreshold": -1},
                "securityContext": {"runAsGroup": -1}}],
        }));
        object["spec"]["replicas"] = (-1).into();
        object["spec"]["revisionHistoryLimit"] = (-3).into();
        // A negative grace period is accepted: the API server warns and
        // reads it as 1.
        let found = at(object);
        assert_eq!(
            found,
            [
                "spec.template.spec.securityContext.runAsUser",
                "spec.template.spec.securityContext.fsGroup",
                "spec.template.spec.containers[0].ports[0].containerPort",
                "spec.template.spec.containers[0].ports[1].containerPort",
                "spec.template.spec.containers[0].ports[2].hostPort",
                "spec.template.spec.containers[0].livenessProbe.initialDelaySeconds",
                "spec.template.spec.containers[0].startupProbe.failureThreshold",
                "spec.template.spec.containers[0].securityContext.runAsGroup",
                "spec.replicas",
                "spec.revisionHistoryLimit",
            ]
        );
        let found = at(serde_json::json!({
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
            "spec": {"ports": [{"port": 0}, {"name": "b", "port": 70000, "targetPort": -1, "nodePort": 0},
                               {"name": "c", "port": 53, "protocol": "UDP"}, {"name": "d", "port": 53},
                               {"name": "e", "port": 53}]},
        }));
        assert_eq!(
            found,
            [
                "spec.ports[0]",
                "spec.ports[0].port",
                "spec.ports[1].port",
                "spec.ports[1].targetPort",
                "spec.ports[4].port",
            ]
        );
    }

    #[test]
    fn seccomp_localhost_needs_its_profile_and_sysctls_are_set_once() {
        let found = at(deployment(serde_json::json!({
            "securityContext": {
                "seccompProfile": {"type": "Localhost"},
                "sysctls": [{"name": "net.core.somaxconn", "value": "1"}, {"name": "net.core.somaxconn", "value": "2"}],
            },
            "containers": [
                {"name": "a", "image": "a:1", "securityContext": {
                    "seccompProfile": {"type": "RuntimeDefault", "localhostProfile": "p.json"},
                    "appArmorProfile": {"type": "Localhost", "localhostProfile": ""}}},
                {"name": "b", "image": "b:1", "securityContext": {"seccompProfile": {"type": "Localhost", "localhostProfile": "p.json"}}},
            ],
        })));
        assert_eq!(
            found,
            [
                "spec.template.spec.securityContext.seccompProfile",
                "spec.template.spec.securityContext.sysctls[1].name",
                "spec.template.spec.containers[0].securityContext.seccompProfile.localhostProfile",
                "spec.template.spec.containers[0].securityContext.appArmorProfile",
            ]
        );
    }

    /// A real v1.35 server: without manualSelector a Job's selector is
    /// accepted when it selects no more than the labels the server
    /// generates; with it, the selector is required.
    #[test]
    fn a_jobs_selector_is_the_generated_one_unless_manual() {
        let job = |selector: Json, manual: bool| {
            let mut object = serde_json::json!({"apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": "j", "namespace": "ops"},
                "spec": {"template": {"metadata": {"labels": {"app": "web"}},
                    "spec": {"restartPolicy": "Never", "containers": [{"name": "a", "image": "a:1"}]}}}});
            if !selector.is_null() {
                object["spec"]["selector"] = selector;
            }
            if manual {
                object["spec"]["manualSelector"] = true.into();
            }
            at(object)
        };
        assert_eq!(job(Json::Null, false), Vec::<String>::new());
        assert_eq!(job(serde_json::json!({}), false), Vec::<String>::new());
        assert_eq!(
            job(serde_json::json!({"matchLabels": {"job-name": "j"}}), false),
            Vec::<String>::new()
        );
        assert_eq!(
            job(serde_json::json!({"matchLabels": {"app": "web"}}), false),
            ["spec.selector"]
        );
        // Two reasons, as the server gives: not the generated selector, and
        // not selecting the template the server labels with the uid.
        assert_eq!(
            job(
                serde_json::json!({"matchLabels": {"controller-uid": "x"}}),
                false
            ),
            ["spec.selector", "spec.selector"]
        );
        assert_eq!(
            job(
                serde_json::json!({"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]}),
                false
            ),
            ["spec.selector"]
        );
        assert_eq!(job(Json::Null, true), ["spec.selector"]);
        assert_eq!(
            job(serde_json::json!({"matchLabels": {"app": "web"}}), true),
            Vec::<String>::new()
        );
    }

    /// A StatefulSet's serviceName, where given, is a DNS-1123 label
    /// (`svc.x` was taken before; a real v1.35 server refuses it).
    #[test]
    fn a_statefulsets_service_name_is_a_label() {
        let mut set = serde_json::json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "s", "namespace": "ops"}, "spec": {"serviceName": "svc.x",
                "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "a", "image": "a:1"}]}}}});
        assert_eq!(at(set.clone()), ["spec.serviceName"]);
        set["spec"]["serviceName"] = "svc".into();
        assert_eq!(at(set), Vec::<String>::new());
    }

    /// A custom resource whose kind has a built-in kind's name (Knative's
    /// `Service`, a `CustomResourceDefinition` of another group) is held to
    /// the custom resources' rules: a DNS subdomain for a name, nothing of
    /// the built-in kind's. The built-in kind of the same shape still is.
    #[test]
    fn a_custom_kind_with_a_built_in_name_is_a_custom_resource() {
        let service = |api_version: &str, name: &str| {
            at(
                serde_json::json!({"apiVersion": api_version, "kind": "Service",
                "metadata": {"name": name, "namespace": "ops"},
                "spec": {"template": {"spec": {"containers": [{"image": "a:1"}]}}}}),
            )
        };
        assert_eq!(
            service("serving.knative.dev/v1", "1-hello"),
            Vec::<String>::new()
        );
        assert_eq!(
            service("serving.knative.dev/v1", "Hello"),
            ["metadata.name"]
        );
        assert_eq!(service("v1", "1-hello"), ["metadata.name", "spec.ports"]);
        let crd = |api_version: &str| {
            at(
                serde_json::json!({"apiVersion": api_version, "kind": "CustomResourceDefinition",
                "metadata": {"name": "other"},
                "spec": {"group": "example.com", "names": {"plural": "widgets"},
                    "versions": [{"name": "v1", "storage": true, "schema": {"openAPIV3Schema": {"uniqueItems": true}}}]}}),
            )
        };
        assert_eq!(crd("example.com/v1"), Vec::<String>::new());
        assert_eq!(
            crd("apiextensions.k8s.io/v1"),
            [
                "metadata.name",
                "spec.versions[0].schema.openAPIV3Schema.uniqueItems",
                "spec.versions[0].schema.openAPIV3Schema.type"
            ]
        );
        // The kubelet's reading of images is a pod's: not a custom kind's.
        let mut knative = serde_json::json!({"apiVersion": "apps.example.com/v1",
            "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "UPPER:1"}]}}}});
        assert_eq!(images(&knative), Vec::new());
        knative["apiVersion"] = "apps/v1".into();
        assert_eq!(images(&knative).len(), 1);
    }

    /// The apiVersion that serves `kind`, of those the tests make.
    fn api_version(kind: &str) -> &'static str {
        match kind {
            "Job" | "CronJob" => "batch/v1",
            _ => "apps/v1",
        }
    }

    #[test]
    fn a_selector_is_well_formed_and_selects_its_template() {
        let workload = |kind: &str, selector: Json| {
            let mut object =
                deployment(serde_json::json!({"containers": [{"name": "a", "image": "a:1"}]}));
            object["kind"] = kind.into();
            object["apiVersion"] = api_version(kind).into();
            object["spec"]["template"]["metadata"]["labels"] =
                serde_json::json!({"app": "web", "tier": "front"});
            object["spec"]["selector"] = selector;
            if kind == "Job" {
                object["spec"]["manualSelector"] = true.into();
                object["spec"]["template"]["spec"]["restartPolicy"] = "Never".into();
            }
            at(object)
        };
        for kind in [
            "Deployment",
            "DaemonSet",
            "StatefulSet",
            "ReplicaSet",
            "Job",
        ] {
            assert_eq!(
                workload(kind, serde_json::json!({"matchLabels": {"app": "api"}})),
                ["spec.selector"],
                "{kind}"
            );
        }
        for selects in [
            serde_json::json!({"matchLabels": {"app": "web"}}),
            serde_json::json!({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["front", "back"]}]}),
            serde_json::json!({"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["back"]},
                                                    {"key": "app", "operator": "Exists"},
                                                    {"key": "x", "operator": "DoesNotExist"}]}),
        ] {
            assert_eq!(
                workload("Deployment", selects.clone()),
                Vec::<String>::new(),
                "{selects}"
            );
        }
        assert_eq!(
            workload(
                "Deployment",
                serde_json::json!({"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]})
            ),
            ["spec.selector"]
        );
        assert_eq!(
            workload(
                "Deployment",
                serde_json::json!({"matchLabels": {"app": "web"}, "matchExpressions": [
                    {"key": "tier", "operator": "In", "values": []},
                    {"key": "app", "operator": "Exists", "values": ["web"]},
                    {"key": "app", "operator": "Equals"},
                ]})
            ),
            [
                "spec.selector.matchExpressions[0].values",
                "spec.selector.matchExpressions[1].values",
                "spec.selector.matchExpressions[2].operator",
                "spec.selector",
            ]
        );
        // Any LabelSelector is read the same way, e.g. a PodDisruptionBudget's.
        let found = at(serde_json::json!({
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"},
            "spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "NotIn"}]}},
        }));
        assert_eq!(found, ["spec.selector.matchExpressions[0].values"]);
    }

    #[test]
    fn a_workload_selector_is_never_empty_and_claims_are_volumes() {
        let mut object = deployment(serde_json::json!({"containers": [
            {"name": "a", "image": "a:1", "volumeMounts": [{"name": "data", "mountPath": "/d"}]},
        ]}));
        object["kind"] = "StatefulSet".into();
        object["spec"]["selector"] = serde_json::json!({"matchLabels": {}});
        // A claim's limit is not read (nor any resource but its storage
        // request): the API server takes a request above it.
        object["spec"]["volumeClaimTemplates"] = serde_json::json!([{
            "metadata": {"name": "data"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}, "limits": {"storage": "1Gi"}}},
        }]);
        assert_eq!(at(object.clone()), ["spec.selector"]);
        // A template volume of a claim's name is replaced, unread; a
        // claim's name is a volume name.
        let mut replaced = object.clone();
        replaced["spec"]["template"]["spec"]["volumes"] =
            serde_json::json!([{"name": "data", "hostPath": {"path": "../x"}}]);
        assert_eq!(at(replaced.clone()), ["spec.selector"]);
        replaced["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] = "Data".into();
        // The server validates the claims' volumes first, then the
        // template's others: this one is the second (as a v1.35.4 server
        // named `volumes[1]`, `[2]` and `[3]` after none, one and two claims).
        assert_eq!(
            at(replaced),
            [
                "spec.volumeClaimTemplates[0].metadata.name",
                "spec.template.spec.volumes[1].hostPath.path",
                "spec.selector",
            ]
        );
        // The same claim name in a Deployment declares nothing.
        object["kind"] = "Deployment".into();
        assert_eq!(
            at(object),
            [
                "spec.template.spec.containers[0].volumeMounts[0].name",
                "spec.selector",
            ]
        );
        let found = at(serde_json::json!({
            "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
            "spec": {"ttlSecondsAfterFinished": -1, "template": {"spec": {"containers": [{"name": "a", "image": "a:1"}], "restartPolicy": "OnFailure"}}},
        }));
        assert_eq!(found, ["spec.ttlSecondsAfterFinished"]);
        let found = at(serde_json::json!({
            "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "ten"}}},
        }));
        assert_eq!(found, ["spec.resources.requests.storage"]);
    }

    #[test]
    fn env_names_value_sources_and_downward_paths() {
        let found = paths(deployment(
            serde_json::json!({"containers": [{"name": "a", "image": "a:1",
                "env": [
                    {"name": "MY VAR", "value": "printable ASCII is a name since 1.32"},
                    {"name": "A=B"},
                    {"name": "", "value": "x"},
                    {"name": "B", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                    {"name": "C", "valueFrom": {}},
                    {"name": "D", "valueFrom": {"fieldRef": {"fieldPath": "spec.containers"}}},
                    {"name": "E", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}},
                    {"name": "F", "valueFrom": {"resourceFieldRef": {"resource": "limits.gpu"}}},
                    {"name": "G", "valueFrom": {"secretKeyRef": {"name": "s", "key": "a/b"}}},
                    {"name": "H", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k"},
                                                "secretKeyRef": {"name": "s", "key": "k"}}},
                ],
                "envFrom": [{"prefix": "P=", "configMapRef": {"name": "c"}}, {}],
            }]}),
        ));
        let at: Vec<&str> = found
            .iter()
            .map(|f| f.split(": ").next().unwrap())
            .collect();
        let env = "spec.template.spec.containers[0].env";
        assert_eq!(
            at,
            [
                format!("{env}[1].name"),
                format!("{env}[2].name"),
                format!("{env}[3].valueFrom"),
                format!("{env}[4].valueFrom"),
                format!("{env}[5].valueFrom.fieldRef.fieldPath"),
                format!("{env}[7].valueFrom.resourceFieldRef.resource"),
                format!("{env}[8].valueFrom.secretKeyRef.key"),
                format!("{env}[9].valueFrom"),
                "spec.template.spec.containers[0].envFrom[0].prefix".to_owned(),
                "spec.template.spec.containers[0].envFrom[1]".to_owned(),
            ],
            "{found:#?}"
        );
    }

    #[test]
    fn probes_have_one_handler_and_liveness_succeeds_once() {
        let found = at(deployment(serde_json::json!({
            "initContainers": [{"name": "init", "image": "a:1", "readinessProbe": {"exec": {"command": ["x"]}}}],
            "containers": [{"name": "a", "image": "a:1",
                "livenessProbe": {"exec": {"command": ["x"]}, "successThreshold": 2},
                "readinessProbe": {"httpGet": {"port": "Http_Port"}, "tcpSocket": {"port": 80},
                                   "terminationGracePeriodSeconds": 5},
                "startupProbe": {"grpc": {"port": 0}, "terminationGracePeriodSeconds": 0},
                "lifecycle": {"preStop": {"sleep": {"seconds": 1}}, "postStart": {}},
            }],
        })));
        let c = "spec.template.spec.containers[0]";
        assert_eq!(
            found,
            [
                "spec.template.spec.initContainers[0].readinessProbe".to_owned(),
                format!("{c}.livenessProbe.successThreshold"),
                format!("{c}.readinessProbe"),
                format!("{c}.readinessProbe.httpGet.port"),
                format!("{c}.readinessProbe.terminationGracePeriodSeconds"),
                format!("{c}.startupProbe.grpc.port"),
                format!("{c}.startupProbe.terminationGracePeriodSeconds"),
                format!("{c}.lifecycle.postStart"),
            ]
        );
    }

    #[test]
    fn each_owner_allows_its_restart_policies_and_a_volume_has_one_source() {
        let pod = |policy: Json| {
            serde_json::json!({"restartPolicy": policy, "containers": [],
            "volumes": [{"name": "v", "emptyDir": {}, "configMap": {"name": "c"}}, {"name": "w"}]})
        };
        for (kind, refused) in [
            ("Deployment", vec!["Never", "OnFailure"]),
            ("Job", vec!["Always", ""]),
            ("CronJob", vec!["Always", ""]),
        ] {
            for policy in ["Always", "OnFailure", "Never", ""] {
                let mut object = deployment(pod(match policy {
                    "" => Json::Null,
                    word => word.into(),
                }));
                object["kind"] = kind.into();
                object["apiVersion"] = api_version(kind).into();
                if kind == "CronJob" {
                    let job = serde_json::json!({"spec": {"template": object["spec"]["template"].take()}});
                    object["spec"] = serde_json::json!({"schedule": "@daily", "jobTemplate": job});
                } else if kind == "Job" {
                    object["spec"].as_object_mut().unwrap().remove("selector");
                }
                let found = at(object);
                let restart = found.iter().any(|f| f.ends_with("restartPolicy"));
                assert_eq!(
                    restart,
                    refused.contains(&policy),
                    "{kind} {policy:?}: {found:?}"
                );
                assert!(
                    found.iter().any(|f| f.ends_with("spec.volumes[0]")),
                    "{found:?}"
                );
                assert!(
                    !found.iter().any(|f| f.ends_with("spec.volumes[1]")),
                    "{found:?}"
                );
            }
        }
    }

    #[test]
    fn strategies_budgets_and_job_selectors() {
        let mut object =
            deployment(serde_json::json!({"containers": [{"name": "a", "image": "a:1"}]}));
        for (strategy, refused) in [
            (serde_json::json!({"type": "BlueGreen"}), true),
            (
                serde_json::json!({"type": "Recreate", "rollingUpdate": {}}),
                true,
            ),
            (
                serde_json::json!({"rollingUpdate": {"maxSurge": 0, "maxUnavailable": "0%"}}),
                true,
            ),
            (
                serde_json::json!({"rollingUpdate": {"maxUnavailable": "110%"}}),
                true,
            ),
            (
                serde_json::json!({"rollingUpdate": {"maxUnavailable": "5 %"}}),
                true,
            ),
            (
                serde_json::json!({"rollingUpdate": {"maxSurge": "200%", "maxUnavailable": 0}}),
                false,
            ),
        ] {
            object["spec"]["strategy"] = strategy.clone();
            assert_eq!(!at(object.clone()).is_empty(), refused, "{strategy}");
        }
        let pdb = |spec: Json| {
            at(serde_json::json!({"apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget", "metadata": {"name": "p"}, "spec": spec}))
        };
        assert_eq!(
            pdb(serde_json::json!({"minAvailable": 1, "maxUnavailable": 1})),
            ["spec"]
        );
        assert_eq!(
            pdb(serde_json::json!({"minAvailable": "50 %"})),
            ["spec.minAvailable"]
        );
        assert_eq!(
            pdb(serde_json::json!({"maxUnavailable": "101%"})),
            ["spec.maxUnavailable"]
        );
        assert!(pdb(serde_json::json!({"minAvailable": "50%"})).is_empty());
        let cron = |spec: Json| {
            at(
                serde_json::json!({"apiVersion": "batch/v1", "kind": "CronJob",
            "metadata": {"name": "c"}, "spec": spec}),
            )
        };
        let job = serde_json::json!({"spec": {"selector": {"matchLabels": {"a": "b"}},
            "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "a", "image": "a:1"}], "restartPolicy": "Never"}}}});
        assert_eq!(
            cron(
                serde_json::json!({"schedule": "TZ=UTC 0 * * *", "timeZone": "Local",
                                    "concurrencyPolicy": "Sometimes", "jobTemplate": job})
            ),
            [
                "spec.schedule",
                "spec.timeZone",
                "spec.concurrencyPolicy",
                "spec.jobTemplate.spec.selector"
            ]
        );
    }

    #[test]
    fn services_network_policies_and_rbac_as_the_api_server_validates_them() {
        let service = |spec: Json| {
            at(serde_json::json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "s"}, "spec": spec}))
        };
        assert_eq!(
            service(serde_json::json!({"ports": [{"port": 80, "nodePort": 30000}]})),
            ["spec.ports[0].nodePort"]
        );
        assert!(
            service(
                serde_json::json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 30000}]})
            )
            .is_empty()
        );
        assert_eq!(
            service(serde_json::json!({"type": "ExternalName"})),
            ["spec.externalName"]
        );
        assert!(
            service(serde_json::json!({"type": "ExternalName", "externalName": "db.example.com."}))
                .is_empty()
        );
        assert_eq!(
            service(serde_json::json!({"type": "Cluster", "ports": []})),
            ["spec.type", "spec.ports"]
        );
        assert!(service(serde_json::json!({"clusterIP": "None"})).is_empty());
        assert_eq!(
            service(serde_json::json!({"ports": [{"port": 53, "protocol": "ICMP"}]})),
            ["spec.ports[0].protocol"]
        );

        let policy = at(
            serde_json::json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": "n"}, "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Sideways"],
            "ingress": [{"ports": [{"port": 9100, "endPort": 9000}, {"port": "metrics", "endPort": 9}, {"port": "Http_Port"}],
                         "from": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16", "11.0.0.0/16", "10.0.0.0/8"]},
                                   "podSelector": {}},
                                  {},
                                  {"ipBlock": {"cidr": "10.0.0.0/33"}},
                                  {"namespaceSelector": {"matchExpressions": [{"key": "a", "operator": "In"}]}}]}]}}),
        );
        let rule = "spec.ingress[0]";
        assert_eq!(
            policy,
            [
                format!("{rule}.ports[0].endPort"),
                format!("{rule}.ports[1].endPort"),
                format!("{rule}.ports[2].port"),
                format!("{rule}.from[0]"),
                format!("{rule}.from[0].ipBlock.except[1]"),
                format!("{rule}.from[0].ipBlock.except[2]"),
                format!("{rule}.from[1]"),
                format!("{rule}.from[2].ipBlock.cidr"),
                format!("{rule}.from[3].namespaceSelector.matchExpressions[0].values"),
                "spec.policyTypes[1]".to_owned(),
            ]
        );

        // IPv4-mapped IPv6 ranges, as a real v1.35 server tests an
        // exception: the address by Go's `IPNet.Contains` (IPv4 where `To4`
        // makes it so), each mask's length in its own width.
        let except =
            |cidr: &str, except: &str| {
                at(serde_json::json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                "metadata": {"name": "n"}, "spec": {"podSelector": {}, "egress": [{"to": [
                    {"ipBlock": {"cidr": cidr, "except": [except]}}]}]}}))
            .is_empty()
            };
        for (cidr, inner) in [
            ("10.0.0.0/8", "::ffff:10.1.0.0/112"),
            ("10.0.0.0/8", "::ffff:a00:0/104"),
            ("0.0.0.0/0", "::ffff:0.0.0.0/96"),
            ("::ffff:10.0.0.0/104", "::ffff:10.1.0.0/112"),
        ] {
            assert!(except(cidr, inner), "{cidr} except {inner}: taken");
        }
        for (cidr, inner) in [
            ("10.0.0.0/8", "::ffff:11.0.0.0/104"),
            // Masked to 100 bits, the address is 0.0.0.0, outside.
            ("10.0.0.0/8", "::ffff:10.0.0.0/100"),
            ("::/0", "::ffff:10.0.0.0/104"),
            // Within, but a mask of 104 or 96 is not shorter than 16 or 8.
            ("::ffff:10.0.0.0/104", "10.1.0.0/16"),
            ("::ffff:0:0/96", "10.0.0.0/8"),
            ("::/0", "10.0.0.0/8"),
            ("0.0.0.0/0", "::/1"),
        ] {
            assert!(!except(cidr, inner), "{cidr} except {inner}: refused");
        }

        let role = at(
            serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "r", "namespace": "n"}, "rules": [
                {"apiGroups": [""], "resources": ["pods"], "verbs": []},
                {"nonResourceURLs": ["/metrics"], "verbs": ["get"]},
                {"resources": ["pods"], "verbs": ["get"]},
                {"apiGroups": [""], "resources": ["pods"], "verbs": ["GET"]},
            ]}),
        );
        assert_eq!(
            role,
            [
                "rules[0].verbs",
                "rules[1].nonResourceURLs",
                "rules[2].apiGroups"
            ]
        );
        let binding = at(
            serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": "b"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
            "subjects": [{"kind": "ServiceAccount", "name": "sa"}, {"kind": "Robot", "name": "x"},
                         {"kind": "User", "name": "alice", "apiGroup": ""}, {"kind": "Group", "name": "g", "apiGroup": "v1"}]}),
        );
        assert_eq!(
            binding,
            [
                "roleRef.kind",
                "subjects[0].namespace",
                "subjects[1].kind",
                "subjects[3].apiGroup"
            ]
        );
        // An empty role reference group is the RBAC group (defaulted, as
        // for User and Group subjects); another group is not.
        let binding = |group: &str| {
            at(
                serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": "b", "namespace": "ops"}, "roleRef": {"apiGroup": group, "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "User", "name": "alice"}]}),
            )
        };
        assert_eq!(binding(""), Vec::<String>::new());
        assert_eq!(binding("rbac"), ["roleRef.apiGroup"]);
        // Every cluster has its own `system:basic-user` binding: applied
        // over it, a binding to another role is refused (measured: "cannot
        // change roleRef"); to the same role, it is taken.
        let default = |role: &str, namespace: Option<&str>| {
            let kind = if namespace.is_some() {
                "RoleBinding"
            } else {
                "ClusterRoleBinding"
            };
            at(
                serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
                "metadata": {"name": "system:basic-user", "namespace": namespace},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
                "subjects": [{"kind": "Group", "name": "system:authenticated"}]}),
            )
        };
        assert_eq!(default("view", None), ["roleRef"]);
        assert_eq!(default("system:basic-user", None), Vec::<String>::new());
        // A RoleBinding of that name is no cluster's own.
        assert_eq!(default("view", Some("ops")), Vec::<String>::new());
    }

    #[test]
    fn an_unpullable_image_is_its_own_finding_not_the_api_servers() {
        let object = deployment(serde_json::json!({"containers": [
            {"name": "a", "image": "registry.example.com/app@sha256:abc"},
            {"name": "b", "image": "registry.example.com/app:1.0"},
        ]}));
        assert!(problems(&object).is_empty());
        let found: Vec<String> = images(&object)
            .into_iter()
            .map(|(p, _)| p.to_string())
            .collect();
        assert_eq!(found, ["spec.template.spec.containers[0].image"]);
    }

    /// Leading or trailing whitespace in an image: a Pod is refused, a
    /// template accepted (a real v1.35 server; its pods are refused later).
    #[test]
    fn an_image_with_whitespace_is_refused_in_a_pod_only() {
        let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "ops"},
            "spec": {"containers": [{"name": "a", "image": " a:1"}]}});
        assert_eq!(at(pod), ["spec.containers[0].image"]);
        let template =
            deployment(serde_json::json!({"containers": [{"name": "a", "image": " a:1"}]}));
        assert_eq!(at(template), Vec::<String>::new());
    }

    /// A ReplicationController's empty selector is its template's labels
    /// (a real v1.35 server takes `selector: {}` beside labelled pods), and
    /// it needs both a selector and a template.
    #[test]
    fn replication_controller_selectors_as_defaulted() {
        let rc = |spec: Json| {
            at(
                serde_json::json!({"apiVersion": "v1", "kind": "ReplicationController",
                "metadata": {"name": "rc", "namespace": "ops"}, "spec": spec}),
            )
        };
        let template = |labels: Json| {
            serde_json::json!({"metadata": {"labels": labels},
                "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}})
        };
        let labelled = template(serde_json::json!({"app": "a"}));
        assert!(rc(serde_json::json!({"selector": {}, "template": labelled})).is_empty());
        assert!(rc(serde_json::json!({"template": labelled})).is_empty());
        assert_eq!(
            rc(serde_json::json!({"template": template(serde_json::json!({}))})),
            ["spec.selector"]
        );
        assert_eq!(
            rc(serde_json::json!({"selector": {"app": "b"}, "template": labelled})),
            ["spec.selector"]
        );
        assert_eq!(
            rc(serde_json::json!({})),
            ["spec.selector", "spec.template"]
        );
    }

    #[test]
    fn host_ports_resource_names_and_ephemeral_containers() {
        let found = at(deployment(serde_json::json!({
            "ephemeralContainers": [{"name": "debug", "image": "busybox:1"}],
            "containers": [
                {"name": "a", "image": " a:1", "ports": [{"containerPort": 80, "hostPort": 8080}],
                 "resources": {"limits": {"gpu": 1, "hugepages-2Mi": "4Mi", "example.com/gpu": 1}}},
                {"name": "b", "image": "b:1", "ports": [{"containerPort": 81, "hostPort": 8080},
                                                        {"containerPort": 82, "hostPort": 8080, "protocol": "UDP"}]},
            ],
        })));
        let pod = "spec.template.spec";
        assert_eq!(
            found,
            [
                format!("{pod}.ephemeralContainers"),
                format!("{pod}.containers[1].ports[0].hostPort"),
                format!("{pod}.containers[0].resources.limits.gpu"),
                // Huge pages without a CPU or memory request or limit.
                format!("{pod}.containers[0].resources"),
            ]
        );
        // On the host network a Pod's unset host port is its container
        // port before the ports are compared; a template's is not.
        let spec = serde_json::json!({"hostNetwork": true, "containers": [
            {"name": "a", "image": "a:1", "ports": [{"containerPort": 443}]},
            {"name": "b", "image": "b:1", "ports": [{"containerPort": 443, "hostPort": 0}]}]});
        let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "ops"}, "spec": spec});
        assert_eq!(at(pod), ["spec.containers[1].ports[0].hostPort"]);
        assert!(at(deployment(spec)).is_empty());
    }
}
