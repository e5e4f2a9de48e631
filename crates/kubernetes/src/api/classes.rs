//! What the API server refuses in a PriorityClass (`ValidatePriorityClass`),
//! a StorageClass (`ValidateStorageClass`), a VolumeAttributesClass
//! (`ValidateVolumeAttributesClass`) and a RuntimeClass
//! (`ValidateRuntimeClass`).
//!
//! - A PriorityClass named with the reserved prefix `system-` is one of the
//!   two the cluster makes (`system-node-critical` of value 2000001000,
//!   `system-cluster-critical` of 2000000000, neither the global default);
//!   any other is worth at most 1000000000. Its `preemptionPolicy`, where
//!   given, is `PreemptLowerPriority` or `Never` (not `""`). A Pod created
//!   naming a class of that prefix names one of the two, and writes no
//!   `priority` or `preemptionPolicy` but theirs (the Priority admission
//!   plugin).
//! - A StorageClass's `provisioner` is a qualified name (read in lower
//!   case); its `parameters` at most 512, with keys, and at most 256 KiB of
//!   keys and values together; its `reclaimPolicy` `Delete` or `Retain`
//!   (empty taken); its `volumeBindingMode` `Immediate` or
//!   `WaitForFirstConsumer` (not `""`); each `allowedTopologies` term's
//!   expressions with label keys and values, a value and a key each once,
//!   and no term twice (an empty term is one the server sees twice: its
//!   list starts with as many empty terms as there are terms).
//! - A VolumeAttributesClass's `driverName` is a provisioner name as a
//!   StorageClass's, and its `parameters` as a StorageClass's, but at least
//!   one (`{}`, or none, is refused).
//! - A RuntimeClass's `handler` is a DNS-1123 label (`""` too is refused);
//!   its `overhead.podFixed` amounts are held to a container's limits; its
//!   `scheduling.nodeSelector` is a map of labels and its
//!   `scheduling.tolerations` are a pod's, none twice (the same key,
//!   operator, value and effect).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value as Json;

use super::one_of;
use crate::json::{Field, Found, each};
use crate::location::KeyPath;
use crate::names;

/// The most a PriorityClass of a user's may be worth
/// (`HighestUserDefinablePriority`).
const HIGHEST_USER_PRIORITY: i64 = 1_000_000_000;

/// The PriorityClasses the cluster makes, of the reserved prefix, and what
/// each is worth (`systemPriorityClasses`).
const SYSTEM_CLASSES: [(&str, i64); 2] = [
    ("system-node-critical", 2_000_001_000),
    ("system-cluster-critical", 2_000_000_000),
];

/// What the Priority admission plugin refuses of a Pod created naming a
/// class of the reserved prefix `system-`, which no user makes: one the
/// cluster does not make is not found, and one it makes sets the pod's
/// `priority` (its value) and `preemptionPolicy` (`PreemptLowerPriority`),
/// which the pod may not write otherwise. A pod naming another class, or
/// none, is judged by the classes the cluster holds (and its global
/// default), which the input does not show.
pub(super) fn system_priority(spec: &Json, at: &KeyPath, found: &mut Found) {
    let Some(name) =
        (spec.field("priorityClassName").as_str()).filter(|name| name.starts_with("system-"))
    else {
        return;
    };
    let Some((_, worth)) = SYSTEM_CLASSES.iter().find(|(known, _)| *known == name) else {
        found.push((
            at.key("priorityClassName"),
            format!(
                "no PriorityClass with name {name} was found: the cluster makes no other of the reserved prefix `system-` (the Priority admission plugin)"
            ),
        ));
        return;
    };
    if let Some(priority) = spec.field("priority").as_i64()
        && priority != *worth
    {
        found.push((
            at.key("priority"),
            format!(
                "the integer value of priority ({priority}) must not be provided in pod spec; priority admission controller computed {worth} from the given PriorityClass name"
            ),
        ));
    }
    if let Some(policy) = spec.field("preemptionPolicy").as_str()
        && policy != "PreemptLowerPriority"
    {
        found.push((
            at.key("preemptionPolicy"),
            format!(
                "the string value of PreemptionPolicy ({policy}) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name"
            ),
        ));
    }
}

/// A PriorityClass's name, value and preemption policy.
pub(super) fn priority_class(object: &Json, found: &mut Found) {
    let name = object
        .field("metadata")
        .field("name")
        .as_str()
        .unwrap_or_default();
    let value = object.field("value").as_i64().unwrap_or(0);
    if name.starts_with("system-") {
        let why = match SYSTEM_CLASSES.iter().find(|(known, _)| *known == name) {
            None => format!("`{name}` is no PriorityClass the cluster makes"),
            Some((_, worth)) if value != *worth => {
                format!("the value of {name} is {worth}")
            }
            Some(_) if object.field("globalDefault").as_bool() == Some(true) => {
                format!("{name} is not the global default")
            }
            Some(_) => String::new(),
        };
        if !why.is_empty() {
            found.push((
                KeyPath::root().key("metadata").key("name"),
                format!(
                    "the prefix `system-` is reserved for the cluster's own PriorityClasses: {why}"
                ),
            ));
        }
    } else if value > HIGHEST_USER_PRIORITY {
        found.push((
            KeyPath::root().key("value"),
            format!("{value} is more than a PriorityClass of a user's may be worth ({HIGHEST_USER_PRIORITY})"),
        ));
    }
    one_of(
        object.field("preemptionPolicy"),
        &["PreemptLowerPriority", "Never"],
        KeyPath::root().key("preemptionPolicy"),
        found,
    );
}

/// The most parameters a StorageClass holds (`maxProvisionerParameterLen`).
const MAX_PARAMETERS: usize = 512;

/// The most bytes of parameter keys and values together
/// (`maxProvisionerParameterSize`).
const MAX_PARAMETER_BYTES: usize = 256 * 1024;

/// A StorageClass's provisioner, parameters, policies and topologies.
pub(super) fn storage_class(object: &Json, found: &mut Found) {
    let root = KeyPath::root();
    provisioner(object, "provisioner", found);
    parameters(object, "StorageClass", found);
    if object.field("reclaimPolicy") != "" {
        one_of(
            object.field("reclaimPolicy"),
            &["Delete", "Retain"],
            root.key("reclaimPolicy"),
            found,
        );
    }
    one_of(
        object.field("volumeBindingMode"),
        &["Immediate", "WaitForFirstConsumer"],
        root.key("volumeBindingMode"),
        found,
    );
    allowed_topologies(
        object.field("allowedTopologies"),
        &root.key("allowedTopologies"),
        found,
    );
}

/// A pod's overhead (a RuntimeClass's `overhead.podFixed`, a pod spec's
/// `overhead`), held to a container's limits (`validateOverhead`) and
/// named where it is written.
pub(super) fn overhead(fixed: &Json, at: &KeyPath, found: &mut Found) {
    if !fixed.is_object() {
        return;
    }
    let limits = serde_json::json!({ "limits": fixed });
    let mut own = Found::new();
    super::resources::requirements(
        &limits,
        super::resources::container_resource_name,
        &KeyPath::root(),
        &mut own,
    );
    found.extend(own.into_iter().map(|(path, why)| {
        let rest = path.0.get(1..).unwrap_or_default().to_vec();
        (KeyPath(at.0.iter().cloned().chain(rest).collect()), why)
    }));
}

/// A RuntimeClass's handler, overhead and scheduling.
pub(super) fn runtime_class(object: &Json, found: &mut Found) {
    let root = KeyPath::root();
    let handler = object.field("handler").as_str().unwrap_or_default();
    if let Err(why) = names::dns1123_label(handler) {
        found.push((
            root.key("handler"),
            format!("`{handler}` is not a handler name: {why}"),
        ));
    }
    let fixed = object.field("overhead").field("podFixed");
    overhead(fixed, &root.key("overhead").key("podFixed"), found);
    let scheduling = object.field("scheduling");
    let at = root.key("scheduling");
    crate::scheduling::labels(
        scheduling.field("nodeSelector"),
        &at.key("nodeSelector"),
        found,
    );
    let mut seen = BTreeSet::new();
    for (i, toleration) in each(scheduling.field("tolerations")) {
        let path = at.key("tolerations").index(i);
        crate::scheduling::toleration(toleration, &path, found);
        let key = ["key", "operator", "value", "effect"]
            .map(|field| toleration.field(field).as_str().unwrap_or_default());
        if !seen.insert(key) {
            found.push((path, "the same toleration is listed twice".to_owned()));
        }
    }
}

/// A VolumeAttributesClass's driver and parameters, of which it needs one.
pub(super) fn volume_attributes_class(object: &Json, found: &mut Found) {
    provisioner(object, "driverName", found);
    parameters(object, "VolumeAttributesClass", found);
    if object
        .field("parameters")
        .as_object()
        .is_none_or(|p| p.is_empty())
    {
        found.push((
            KeyPath::root().key("parameters"),
            "a VolumeAttributesClass needs at least one parameter".to_owned(),
        ));
    }
}

/// A provisioner's name, at `field` (`validateProvisioner`): not empty,
/// a qualified name read in lower case.
fn provisioner(object: &Json, field: &str, found: &mut Found) {
    let provisioner = object.field(field).as_str();
    if provisioner == Some("") {
        let why = "required: an empty provisioner names none".to_owned();
        found.push((KeyPath::root().key(field), why));
    } else if let Some(provisioner) = provisioner
        && let Err(why) = names::qualified_name(&names::go_lowercase(provisioner))
    {
        found.push((
            KeyPath::root().key(field),
            format!("`{provisioner}` is not a provisioner name: {why}"),
        ));
    }
}

/// A class's `parameters` (`validateParameters`): at most
/// [`MAX_PARAMETERS`], none with an empty key, and at most
/// [`MAX_PARAMETER_BYTES`] of keys and values together.
fn parameters(object: &Json, kind: &str, found: &mut Found) {
    let at = || KeyPath::root().key("parameters");
    let Some(parameters) = object.field("parameters").as_object() else {
        return;
    };
    if parameters.len() > MAX_PARAMETERS {
        let many = parameters.len();
        found.push((
            at(),
            format!("{many} parameters, more than the {MAX_PARAMETERS} a {kind} may hold"),
        ));
        return;
    }
    let mut bytes = 0usize;
    for (key, value) in parameters {
        if key.is_empty() {
            found.push((at(), "a parameter's key is empty".to_owned()));
        }
        bytes = bytes.saturating_add(key.len() + value.as_str().map_or(0, str::len));
    }
    if bytes > MAX_PARAMETER_BYTES {
        found.push((
            at(),
            format!(
                "{bytes} bytes of parameters, more than the {MAX_PARAMETER_BYTES} a {kind} may hold"
            ),
        ));
    }
}

/// A StorageClass's `allowedTopologies` (`validateAllowedTopologies`,
/// `ValidateTopologySelectorTerm`).
fn allowed_topologies(terms: &Json, at: &KeyPath, found: &mut Found) {
    // The server's list of terms seen starts with as many empty ones as
    // there are terms, so an empty term is always seen twice; the others
    // are looked up in a set, so that many terms cost no square.
    let mut seen: BTreeSet<BTreeMap<&str, BTreeSet<&str>>> = BTreeSet::new();
    for (i, term) in each(terms) {
        let expressions_at = at.index(i).key("matchLabelExpressions");
        let mut term_map: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (j, expression) in each(term.field("matchLabelExpressions")) {
            let expression_at = expressions_at.index(j);
            let key = expression.field("key").as_str().unwrap_or_default();
            let mut values = BTreeSet::new();
            if each(expression.field("values")).next().is_none() {
                found.push((
                    expression_at.key("values"),
                    "an expression names at least one value".to_owned(),
                ));
            }
            for (k, value) in each(expression.field("values")) {
                let value = value.as_str().unwrap_or_default();
                if !values.insert(value) {
                    found.push((
                        expression_at.key("values").index(k),
                        format!("`{value}` is named twice"),
                    ));
                }
            }
            if let Err(why) = names::qualified_name(key) {
                found.push((
                    expression_at.key("key"),
                    format!("`{key}` is not a label key: {why}"),
                ));
            }
            if term_map.insert(key, values).is_some() {
                found.push((
                    expression_at.key("key"),
                    format!("the key `{key}` is named twice in one term"),
                ));
            }
        }
        if term_map.is_empty() || !seen.insert(term_map) {
            found.push((
                expressions_at,
                "the term is given twice (an empty term always is)".to_owned(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `object` with the members of `extra` added or replaced.
    fn with(mut object: Json, extra: Json) -> Json {
        let members = extra.as_object().unwrap().clone();
        object.as_object_mut().unwrap().extend(members);
        object
    }

    fn paths(check: fn(&Json, &mut Found), object: Json) -> Vec<String> {
        let mut found = Vec::new();
        check(&object, &mut found);
        found
            .into_iter()
            .map(|(path, _)| path.to_string())
            .collect()
    }

    #[test]
    fn priority_classes_are_bounded_and_the_system_prefix_reserved() {
        let class = |name: &str, extra: Json| {
            let mut object = json!({"metadata": {"name": name}, "value": 1});
            object
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            paths(priority_class, object)
        };
        assert!(class("high", json!({"value": 1_000_000_000})).is_empty());
        assert_eq!(class("high", json!({"value": 1_000_000_001})), ["value"]);
        assert!(class("system-node-critical", json!({"value": 2_000_001_000})).is_empty());
        assert_eq!(
            class("system-node-critical", json!({"value": 5})),
            ["metadata.name"]
        );
        assert_eq!(
            class(
                "system-cluster-critical",
                json!({"value": 2_000_000_000, "globalDefault": true})
            ),
            ["metadata.name"]
        );
        assert_eq!(class("system-mine", json!({"value": 5})), ["metadata.name"]);
        assert_eq!(
            class("low", json!({"preemptionPolicy": ""})),
            ["preemptionPolicy"]
        );
        assert!(class("low", json!({"preemptionPolicy": "Never"})).is_empty());
    }

    #[test]
    fn storage_classes_hold_what_the_server_takes() {
        let class = |extra: Json| {
            paths(
                storage_class,
                with(json!({"provisioner": "example.com/disk"}), extra),
            )
        };
        assert!(class(json!({"provisioner": "Example.COM/Disk", "reclaimPolicy": ""})).is_empty());
        assert_eq!(
            class(json!({"provisioner": "bad provisioner"})),
            ["provisioner"]
        );
        assert_eq!(
            class(json!({"reclaimPolicy": "Recycle"})),
            ["reclaimPolicy"]
        );
        assert_eq!(
            class(json!({"volumeBindingMode": ""})),
            ["volumeBindingMode"]
        );
        let many: serde_json::Map<String, Json> =
            (0..513).map(|i| (format!("k{i}"), json!("v"))).collect();
        assert_eq!(class(json!({"parameters": many})), ["parameters"]);
        assert_eq!(
            class(json!({"parameters": {"k": "v".repeat(256 * 1024)}})),
            ["parameters"]
        );
        let term = json!({"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]});
        assert!(class(json!({"allowedTopologies": [term]})).is_empty());
        // Many terms cost no square: 20,000 distinct ones are judged at once.
        let many: Vec<Json> = (0..20_000)
            .map(|i| json!({"matchLabelExpressions": [{"key": "zone", "values": [format!("z{i}")]}]}))
            .collect();
        assert!(class(json!({"allowedTopologies": many})).is_empty());
        assert_eq!(
            class(json!({"allowedTopologies": [term, term]})),
            ["allowedTopologies[1].matchLabelExpressions"]
        );
        assert_eq!(
            class(json!({"allowedTopologies": [{}]})),
            ["allowedTopologies[0].matchLabelExpressions"]
        );
        assert_eq!(
            class(json!({"allowedTopologies": [{"matchLabelExpressions": [
                {"key": "zone", "values": ["a", "a"]}, {"key": "zone", "values": []}]}]})),
            [
                "allowedTopologies[0].matchLabelExpressions[0].values[1]",
                "allowedTopologies[0].matchLabelExpressions[1].values",
                "allowedTopologies[0].matchLabelExpressions[1].key",
            ]
        );
    }

    #[test]
    fn runtime_classes_hold_what_the_server_takes() {
        let class = |extra: Json| paths(runtime_class, with(json!({"handler": "kata"}), extra));
        assert!(class(json!({"overhead": {"podFixed": {"cpu": "250m"}}})).is_empty());
        assert_eq!(class(json!({"handler": "a.b"})), ["handler"]);
        assert_eq!(class(json!({"handler": ""})), ["handler"]);
        // Named where written, not where the server reads them.
        assert_eq!(
            class(json!({"overhead": {"podFixed": {"cpu": "-1"}}})),
            ["overhead.podFixed.cpu"]
        );
        let toleration = json!({"key": "a", "operator": "Exists"});
        let other = json!({"key": "a", "operator": "Exists", "effect": "NoExecute"});
        assert!(class(json!({"scheduling": {"tolerations": [toleration, other]}})).is_empty());
        assert_eq!(
            class(json!({"scheduling": {"tolerations": [toleration, toleration]}})),
            ["scheduling.tolerations[1]"]
        );
        assert_eq!(
            class(json!({"scheduling": {"nodeSelector": {"bad key!": "x"}}})),
            ["scheduling.nodeSelector.\"bad key!\""]
        );
    }

    #[test]
    fn a_volume_attributes_class_needs_a_parameter() {
        let class = |parameters: Json| {
            paths(
                volume_attributes_class,
                json!({"driverName": "example.com/disk", "parameters": parameters}),
            )
        };
        assert!(class(json!({"iops": "100"})).is_empty());
        assert_eq!(class(json!({})), ["parameters"]);
        assert_eq!(class(json!(null)), ["parameters"]);
        assert_eq!(class(json!({"": "x"})), ["parameters"]);
    }
}
