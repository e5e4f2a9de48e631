//! What the API server's defaulting (`SetDefaults_*`, and the strategies'
//! preparation) writes before it validates, where that changes a verdict:
//! an empty word the defaults replace is no empty word to refuse. Each is
//! Kubernetes' own default, not a guess.
//!
//! - A Service's `type`, `sessionAffinity`, `externalTrafficPolicy` and a
//!   port's `protocol` of `""` are their defaults (`ClusterIP`, `None`,
//!   `Cluster` or unset, `TCP`); a `targetPort` of `""` or `0` is the port;
//!   a port `name` of `""` is no name (the server checks only a non-empty
//!   one, and asks for names only where there are several ports).
//! - A Namespace's label `kubernetes.io/metadata.name` is its name,
//!   whatever was written.
//! - In a pod's containers (init, regular, ephemeral): a port's
//!   `protocol` of `""` is `TCP` and a `name` of `""` no name; an HTTP
//!   probe's or hook's `scheme` of `""` is `HTTP`. A volume with no
//!   source is an `emptyDir`.
//! - A CronJob's `concurrencyPolicy` of `""` is `Allow`.
//! - A PersistentVolumeClaim loses the data sources its strategy drops
//!   (a `dataSourceRef` naming a namespace; then, without one, a
//!   `dataSource` neither a PersistentVolumeClaim nor a VolumeSnapshot),
//!   so that neither the schema's required fields nor the API rules are
//!   asked of them.
//! - A StatefulSet's pod `hostname` and `subdomain` are not validated: its
//!   controller overwrites both (the server validates a copy without them).
//! - Every amount of a resource list (a container's or a pod's requests
//!   and limits, a pod's overhead, a claim's requests and limits, in a
//!   claim template too, a PersistentVolume's capacity, a LimitRange's
//!   bounds, a ResourceQuota's `hard`) is rounded away from zero to a
//!   whole thousandth (`SetDefaults_ResourceList`): `1500u` is `2m`, a
//!   quota's `pods: 1n` is `1m`.
//! - A PodDisruptionBudget's selector loses every expression on the key
//!   `pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match` (the v1
//!   conversion strips it, unread), unless the selector is `{}` or that one
//!   expression with `Exists`.
//!
//! Read apart, not by [`defaulted`]: [`host_port_as_created`], the host
//! port `SetDefaults_Pod` gives a container port of a Pod on the host
//! network, which the API rules' host ports and Pod Security's created
//! pod both read.
//!
//! These sit with the schemas, below the API rules (`crate::api`) and Pod
//! Security: what the server validates is what its decoder and these
//! defaults leave ([`super::as_validated`]), the schema check's reading
//! and the rules' alike.

use serde_json::{Map, Value as Json};

use crate::json::{Field as _, each, whole};
use crate::tree::{PodPlace, pod_place_of};

/// `object` as the API server's defaults leave it for validation; `None`
/// when they change nothing a rule reads (most objects).
pub fn defaulted(object: &Json) -> Option<Json> {
    let kind = object.field("kind").as_str().unwrap_or_default();
    // Copied only where a default may apply: a kind above, or a pod spec
    // holding an empty string, a volume of a name alone, or a
    // StatefulSet's hostname or subdomain.
    let place = pod_place_of(object);
    let spec = place.and_then(|place| object.pointer(place.spec_pointer));
    let worth = matches!(
        kind,
        "Service" | "Namespace" | "CronJob" | "PodDisruptionBudget"
    ) || (kind == "PersistentVolumeClaim"
        && ["dataSource", "dataSourceRef"]
            .iter()
            .any(|field| !object.field("spec").field(field).is_null()))
        || spec.is_some_and(|pod| {
            has_empty_string(pod)
                || (kind == "StatefulSet"
                    && (!pod.field("hostname").is_null() || !pod.field("subdomain").is_null()))
                || (pod.field("volumes").as_array()).is_some_and(|v| {
                    v.iter()
                        .any(|v| v.as_object().is_some_and(|v| v.len() == 1))
                })
        });
    let rounded = rounded_resources(object, kind, place);
    if !worth && rounded.is_empty() {
        return None;
    }
    let mut copy = object.clone();
    for (pointer, text) in &rounded {
        if let Some(value) = copy.pointer_mut(pointer) {
            *value = Json::String(text.clone());
        }
    }
    let changed = !rounded.is_empty()
        | match kind {
            "Service" => service(&mut copy),
            "Namespace" => namespace(&mut copy),
            "PodDisruptionBudget" => budget(&mut copy),
            "PersistentVolumeClaim" => claim(&mut copy),
            _ => false,
        }
        | pod_spec(&mut copy, kind, place)
        | (kind == "CronJob"
            && copy
                .get_mut("spec")
                .is_some_and(|s| drop_empty(s, "concurrencyPolicy")));
    changed.then_some(copy)
}

/// The amounts of `object`'s resource lists (`v1.ResourceList`) that its
/// defaults round (`SetDefaults_ResourceList`), each as a JSON pointer and
/// the text the server writes for it; most objects have none. The lists
/// are those of core, `apps`, `batch` and `storage.k8s.io` kinds (a
/// RuntimeClass's overhead is not rounded); a pointer is made only for an
/// amount that is rounded.
fn rounded_resources(object: &Json, kind: &str, place: Option<PodPlace>) -> Vec<(String, String)> {
    let mut rounded = Vec::new();
    let out = &mut rounded;
    if let Some(spec) = place.map(|place| place.spec_pointer)
        && let Some(pod) = object.pointer(spec)
    {
        for list in ["initContainers", "containers", "ephemeralContainers"] {
            for (i, container) in each(pod.field(list)) {
                rounded_claim(container, &|| format!("{spec}/{list}/{i}"), out);
            }
        }
        rounded_claim(pod, &|| spec.to_owned(), out);
        for (i, volume) in each(pod.field("volumes")) {
            let template = volume.field("ephemeral").field("volumeClaimTemplate");
            rounded_claim(
                template.field("spec"),
                &|| format!("{spec}/volumes/{i}/ephemeral/volumeClaimTemplate/spec"),
                out,
            );
        }
        rounded_list(pod.field("overhead"), &|| format!("{spec}/overhead"), out);
    }
    let spec = object.field("spec");
    match kind {
        "PersistentVolumeClaim" => rounded_claim(spec, &|| "/spec".to_owned(), out),
        "StatefulSet" => {
            for (i, template) in each(spec.field("volumeClaimTemplates")) {
                rounded_claim(
                    template.field("spec"),
                    &|| format!("/spec/volumeClaimTemplates/{i}/spec"),
                    out,
                );
            }
        }
        "PersistentVolume" => {
            rounded_list(spec.field("capacity"), &|| "/spec/capacity".to_owned(), out);
        }
        "VolumeAttachment" => rounded_list(
            spec.field("source")
                .field("inlineVolumeSpec")
                .field("capacity"),
            &|| "/spec/source/inlineVolumeSpec/capacity".to_owned(),
            out,
        ),
        "ResourceQuota" => rounded_list(spec.field("hard"), &|| "/spec/hard".to_owned(), out),
        "LimitRange" => {
            for (i, item) in each(spec.field("limits")) {
                for bound in [
                    "max",
                    "min",
                    "default",
                    "defaultRequest",
                    "maxLimitRequestRatio",
                ] {
                    rounded_list(
                        item.field(bound),
                        &|| format!("/spec/limits/{i}/{bound}"),
                        out,
                    );
                }
            }
        }
        _ => {}
    }
    rounded
}

/// The rounded amounts of the requests and limits of `holder`'s
/// `resources` (at `at`, made only for one) into `out`.
fn rounded_claim(holder: &Json, at: &dyn Fn() -> String, out: &mut Vec<(String, String)>) {
    for list in ["requests", "limits"] {
        rounded_list(
            holder.field("resources").field(list),
            &|| format!("{}/resources/{list}", at()),
            out,
        );
    }
}

/// The rounded amounts of resource list `list` (at `at`) into `out`.
fn rounded_list(list: &Json, at: &dyn Fn() -> String, out: &mut Vec<(String, String)>) {
    for (name, amount) in list.as_object().into_iter().flatten() {
        if let Some(text) = rounded_amount(amount) {
            let name = name.replace('~', "~0").replace('/', "~1");
            out.push((format!("{}/{name}", at()), text));
        }
    }
}

/// The text the server writes for `amount` of a resource list where its
/// defaults round it, `None` where they do not (whole thousandths, and
/// anything that is no quantity). Only a text with a fraction, an
/// exponent or a suffix below thousandths can need it: the others are
/// not read.
fn rounded_amount(amount: &Json) -> Option<String> {
    let text = match amount {
        Json::String(text) => text.as_str(),
        // A whole number is whole thousandths.
        Json::Number(number) if number.is_f64() => return rounded_text(&number.to_string()),
        _ => return None,
    };
    let fine = text.contains(['.', 'e', 'E']) || text.trim_end().ends_with(['n', 'u']);
    if !fine {
        return None;
    }
    rounded_text(text)
}

/// [`rounded_amount`] of a quantity's text.
fn rounded_text(text: &str) -> Option<String> {
    crate::quantity::Quantity::decode(text)
        .ok()?
        .rounded_to_milli()
}

/// Whether `value` holds `""` anywhere.
fn has_empty_string(value: &Json) -> bool {
    match value {
        Json::String(s) => s.is_empty(),
        Json::Array(items) => items.iter().any(has_empty_string),
        Json::Object(map) => map.values().any(has_empty_string),
        _ => false,
    }
}

/// Removes `field` of `object` when it is `""`; whether it did.
fn drop_empty(object: &mut Json, field: &str) -> bool {
    match object.as_object_mut() {
        Some(map) if map.get(field).is_some_and(|v| v == "") => map.remove(field).is_some(),
        _ => false,
    }
}

/// The items that are objects of the list at `field` of `object` (nothing
/// where either is of another type: no `IndexMut`, which panics on one).
fn items<'j>(object: &'j mut Json, field: &str) -> impl Iterator<Item = &'j mut Map<String, Json>> {
    (object
        .get_mut(field)
        .and_then(Json::as_array_mut)
        .into_iter()
        .flatten())
    .filter_map(Json::as_object_mut)
}

fn service(object: &mut Json) -> bool {
    let Some(spec) = object.get_mut("spec").filter(|spec| spec.is_object()) else {
        return false;
    };
    let mut changed = false;
    for field in ["type", "sessionAffinity", "externalTrafficPolicy"] {
        changed |= drop_empty(spec, field);
    }
    for port in items(spec, "ports") {
        for field in ["protocol", "name"] {
            if port.get(field).is_some_and(|v| v == "") {
                changed |= port.remove(field).is_some();
            }
        }
        if port
            .get("targetPort")
            .is_some_and(|v| v == "" || whole(v) == Some(0))
        {
            changed |= port.remove("targetPort").is_some();
        }
    }
    changed
}

fn budget(object: &mut Json) -> bool {
    const KEY: &str = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match";
    let Some(selector) = (object.get_mut("spec"))
        .and_then(|spec| spec.get_mut("selector"))
        .and_then(Json::as_object_mut)
    else {
        return false;
    };
    // Go's semantic equality: an empty list or map is an absent one.
    let empty = |value: Option<&Json>| match value {
        None | Some(Json::Null) => true,
        Some(Json::Array(items)) => items.is_empty(),
        Some(Json::Object(map)) => map.is_empty(),
        Some(_) => false,
    };
    let kept_whole = empty(selector.get("matchLabels"))
        && match selector.get("matchExpressions") {
            Some(Json::Array(items)) if items.len() == 1 => items[0].as_object().is_some_and(|e| {
                e.get("key").is_some_and(|k| k == KEY)
                    && e.get("operator").is_some_and(|o| o == "Exists")
                    && empty(e.get("values"))
                    && e.keys()
                        .all(|k| matches!(k.as_str(), "key" | "operator" | "values"))
            }),
            other => empty(other),
        };
    if kept_whole {
        return false;
    }
    let Some(expressions) = selector
        .get_mut("matchExpressions")
        .and_then(Json::as_array_mut)
    else {
        return false;
    };
    let before = expressions.len();
    expressions.retain(|e| e.get("key").is_none_or(|k| k != KEY));
    expressions.len() != before
}

/// A PersistentVolumeClaim as its strategy prepares it: a `dataSourceRef`
/// that names a namespace is dropped (`CrossNamespaceVolumeDataSource`,
/// alpha and off), then, without a `dataSourceRef`, a `dataSource` that is
/// neither a PersistentVolumeClaim nor a VolumeSnapshot
/// (`snapshot.storage.k8s.io`): neither is validated. Dropped only where
/// the decoder took it (strings in known fields), so that what it refuses
/// still is.
pub(crate) fn claim(object: &mut Json) -> bool {
    let Some(spec) = object.get_mut("spec").and_then(Json::as_object_mut) else {
        return false;
    };
    let decoded = |reference: &Json, fields: &[&str]| {
        reference.as_object().is_some_and(|map| {
            map.iter().all(|(key, value)| {
                fields.contains(&key.as_str()) && (value.is_string() || value.is_null())
            })
        })
    };
    let text =
        |reference: &Json, key: &str| reference.field(key).as_str().unwrap_or_default().to_owned();
    let mut changed = false;
    if let Some(reference) = spec.get("dataSourceRef")
        && decoded(reference, &["apiGroup", "kind", "name", "namespace"])
        && !text(reference, "namespace").is_empty()
    {
        changed |= spec.remove("dataSourceRef").is_some();
    }
    let no_reference = spec.get("dataSourceRef").is_none_or(Json::is_null);
    if no_reference
        && let Some(source) = spec.get("dataSource")
        && decoded(source, &["apiGroup", "kind", "name"])
    {
        let kept = match text(source, "kind").as_str() {
            "PersistentVolumeClaim" => text(source, "apiGroup").is_empty(),
            "VolumeSnapshot" => text(source, "apiGroup") == "snapshot.storage.k8s.io",
            _ => false,
        };
        if !kept {
            changed |= spec.remove("dataSource").is_some();
        }
    }
    changed
}

fn namespace(object: &mut Json) -> bool {
    const NAME: &str = "kubernetes.io/metadata.name";
    let name = object.field("metadata").field("name").clone();
    let labels = (object.get_mut("metadata"))
        .and_then(|metadata| metadata.get_mut("labels"))
        .and_then(Json::as_object_mut);
    match labels {
        Some(labels) if labels.contains_key(NAME) && labels[NAME] != name => {
            labels.insert(NAME.to_owned(), name);
            true
        }
        _ => false,
    }
}

/// The defaults of the pod spec at `place`, if the object has one (a
/// `kind` of StatefulSet's).
fn pod_spec(object: &mut Json, kind: &str, place: Option<PodPlace>) -> bool {
    let Some(place) = place else {
        return false;
    };
    let Some(pod) = object.pointer_mut(place.spec_pointer) else {
        return false;
    };
    let mut changed = false;
    if kind == "StatefulSet"
        && let Some(spec) = pod.as_object_mut()
    {
        for field in ["hostname", "subdomain"] {
            changed |= spec.remove(field).is_some();
        }
    }
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for container in items(pod, list) {
            let ports = (container
                .get_mut("ports")
                .and_then(Json::as_array_mut)
                .into_iter())
            .flatten()
            .filter_map(Json::as_object_mut);
            for port in ports {
                for field in ["protocol", "name"] {
                    if port.get(field).is_some_and(|v| v == "") {
                        changed |= port.remove(field).is_some();
                    }
                }
            }
            for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
                if let Some(get) = container.get_mut(probe).and_then(|p| p.get_mut("httpGet")) {
                    changed |= drop_empty(get, "scheme");
                }
            }
            for hook in ["postStart", "preStop"] {
                if let Some(get) = (container.get_mut("lifecycle"))
                    .and_then(|l| l.get_mut(hook))
                    .and_then(|h| h.get_mut("httpGet"))
                {
                    changed |= drop_empty(get, "scheme");
                }
            }
        }
    }
    for volume in items(pod, "volumes") {
        if volume.keys().all(|key| key == "name") {
            volume.insert("emptyDir".to_owned(), Json::Object(Map::new()));
            changed = true;
        }
    }
    changed
}

/// The host port a Pod on the host network (`host_network`) is created
/// with where its written one is unset or any zero (`0.0`): its container
/// port (`SetDefaults_Pod`); `None` where the written one stands. Read by
/// the host port rules and by Pod Security's created pod alike.
pub fn host_port_as_created(port: &Json, host_network: bool) -> Option<&Json> {
    let unset = port["hostPort"].is_null() || port["hostPort"].as_f64() == Some(0.0);
    (host_network && unset && port.is_object() && !port["containerPort"].is_null())
        .then(|| &port["containerPort"])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::defaulted;

    #[test]
    fn empty_words_are_the_defaults_they_stand_for() {
        let service = json!({"kind": "Service", "metadata": {"name": "s"}, "spec": {
            "type": "", "sessionAffinity": "", "externalTrafficPolicy": "",
            "ports": [{"port": 80, "protocol": "", "name": "", "targetPort": ""}, {"port": 81, "targetPort": 0}]}});
        assert_eq!(
            defaulted(&service).unwrap()["spec"],
            json!({"ports": [{"port": 80}, {"port": 81}]})
        );
        let namespace = json!({"kind": "Namespace", "metadata": {"name": "n", "labels": {"kubernetes.io/metadata.name": "bad value!"}}});
        assert_eq!(
            defaulted(&namespace).unwrap()["metadata"]["labels"],
            json!({"kubernetes.io/metadata.name": "n"})
        );
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {
            "containers": [{"name": "c", "ports": [{"containerPort": 1, "protocol": "", "name": ""}],
                "readinessProbe": {"httpGet": {"port": 1, "scheme": ""}},
                "lifecycle": {"preStop": {"httpGet": {"port": 1, "scheme": ""}}}}],
            "volumes": [{"name": "v"}]}});
        let read = defaulted(&pod).unwrap();
        assert_eq!(
            read["spec"]["containers"][0],
            json!({"name": "c", "ports": [{"containerPort": 1}],
                "readinessProbe": {"httpGet": {"port": 1}}, "lifecycle": {"preStop": {"httpGet": {"port": 1}}}})
        );
        assert_eq!(
            read["spec"]["volumes"],
            json!([{"name": "v", "emptyDir": {}}])
        );
        const KEY: &str = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match";
        let budget = json!({"kind": "PodDisruptionBudget", "metadata": {"name": "b"}, "spec": {"selector": {
            "matchLabels": {"a": "b"}, "matchExpressions": [{"key": KEY, "operator": "Bogus"}]}}});
        assert_eq!(
            defaulted(&budget).unwrap()["spec"]["selector"],
            json!({"matchLabels": {"a": "b"}, "matchExpressions": []})
        );
        let none = json!({"kind": "PodDisruptionBudget", "metadata": {"name": "b"}, "spec": {"selector": {
            "matchExpressions": [{"key": KEY, "operator": "Exists"}]}}});
        assert_eq!(defaulted(&none), None);
        let set = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s"}, "spec": {"template": {"spec": {"hostname": "A_", "subdomain": "B_"}}}});
        assert_eq!(
            defaulted(&set).unwrap()["spec"]["template"]["spec"],
            json!({})
        );
        let cron = json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"}, "spec": {"concurrencyPolicy": ""}});
        assert_eq!(defaulted(&cron).unwrap()["spec"], json!({}));
    }

    /// Fields of the wrong type are left to the schema's findings, never a
    /// panic (a crash fuzzer found `IndexMut` on a string spec).
    #[test]
    fn fields_of_any_type_are_read_without_a_panic() {
        for hostile in [
            json!(""),
            json!(true),
            json!(1),
            json!([]),
            json!(null),
            json!({"containers": ""}),
            json!({"containers": [true, {"ports": true, "lifecycle": ""}, {"ports": [1, ""]}], "volumes": [1, {"name": ""}]}),
        ] {
            for kind in ["Pod", "Deployment", "Service", "CronJob", "Namespace"] {
                let mut object = json!({"kind": kind, "metadata": {"name": "x", "labels": hostile.clone()}, "spec": hostile.clone()});
                defaulted(&object);
                object["spec"] = json!({"template": {"spec": hostile.clone()}, "ports": hostile.clone(),
                    "jobTemplate": {"spec": {"template": {"spec": hostile.clone()}}}});
                defaulted(&object);
                object["metadata"] = hostile.clone();
                defaulted(&object);
            }
        }
    }

    #[test]
    fn an_object_the_defaults_leave_alone_is_not_copied() {
        let service = json!({"kind": "Service", "metadata": {"name": "s"}, "spec": {"type": "NodePort", "ports": [{"port": 80, "name": "http"}]}});
        assert_eq!(defaulted(&service), None);
        assert_eq!(
            defaulted(&json!({"kind": "ConfigMap", "metadata": {"name": "c"}})),
            None
        );
    }
}
