//! What the API server refuses in a pod's scheduling fields although the
//! OpenAPI schema allows it: tolerations, the node selector, node and pod
//! affinity, topology spread constraints, the priority class, pull secrets,
//! and label selectors. On JSON, so that the API rules read any manifest
//! with it and a values file's rules read a workload's pod settings (which
//! use the pod spec's field names) with the very same rules.

use serde_json::Value as Json;

use crate::json::{Found, each, whole};
use crate::location::KeyPath;
use crate::names;

/// The scheduling fields of the pod spec `pod` (at `at`).
pub fn pod(pod: &Json, at: &KeyPath, found: &mut Found) {
    labels(&pod["nodeSelector"], &at.key("nodeSelector"), found);
    for (i, toleration) in each(&pod["tolerations"]) {
        self::toleration(toleration, &at.key("tolerations").index(i), found);
    }
    affinity(&pod["affinity"], &at.key("affinity"), found);
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for (i, spread) in each(&pod["topologySpreadConstraints"]) {
        let path = at.key("topologySpreadConstraints").index(i);
        topology_spread(spread, &path, found);
        // The API server refuses a second constraint of the same pair.
        let key = spread["topologyKey"].as_str().unwrap_or_default();
        let when = spread["whenUnsatisfiable"].as_str().unwrap_or_default();
        if let Some(first) = pairs.iter().position(|pair| *pair == (key, when)) {
            let message = format!(
                "a constraint with topologyKey `{key}` and whenUnsatisfiable {when} is already set ([{first}])"
            );
            found.push((path, message));
        }
        pairs.push((key, when));
    }
    if let Some(class) = pod["priorityClassName"].as_str().filter(|c| !c.is_empty())
        && let Err(why) = names::dns1123_subdomain(class)
    {
        found.push((
            at.key("priorityClassName"),
            format!("`{class}` is not a PriorityClass name: {why}"),
        ));
    }
}

/// A label key and (when given) its value.
/// A map of labels (a node selector, a Service's selector): each key a
/// label key, each value a label value.
pub fn labels(map: &Json, at: &KeyPath, found: &mut Found) {
    for (key, value) in map.as_object().into_iter().flatten() {
        label(key, value.as_str(), at.key(key.clone()), found);
    }
}

fn label(key: &str, value: Option<&str>, path: KeyPath, found: &mut Found) {
    if let Err(why) = names::qualified_name(key) {
        found.push((path, format!("`{key}` is not a valid label key: {why}")));
    } else if let Some(value) = value
        && let Err(why) = names::label_value(value)
    {
        found.push((path, format!("label value {value:?} is not valid: {why}")));
    }
}

pub(crate) fn toleration(t: &Json, at: &KeyPath, found: &mut Found) {
    let text = |field: &str| t[field].as_str().unwrap_or_default();
    let (key, operator, effect) = (text("key"), text("operator"), text("effect"));
    if !matches!(operator, "" | "Exists" | "Equal") {
        let message = format!("`{operator}` is not a toleration operator (Exists, Equal)");
        found.push((at.key("operator"), message));
    }
    if !matches!(effect, "" | "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
        let message =
            format!("`{effect}` is not a taint effect (NoSchedule, PreferNoSchedule, NoExecute)");
        found.push((at.key("effect"), message));
    }
    if key.is_empty() && operator != "Exists" {
        let message = "a toleration without a key must use operator Exists".to_owned();
        found.push((at.key("operator"), message));
    }
    if !key.is_empty()
        && let Err(why) = names::qualified_name(key)
    {
        found.push((at.key("key"), format!("`{key}` is not a taint key: {why}")));
    }
    if operator == "Exists" && !text("value").is_empty() {
        let message = "a toleration with operator Exists takes no value".to_owned();
        found.push((at.key("value"), message));
    }
    // With Equal (or no operator), the value is matched against a taint's,
    // which is a label value.
    if operator != "Exists"
        && let Err(why) = names::label_value(text("value"))
    {
        let message = format!("toleration value {:?} is not valid: {why}", text("value"));
        found.push((at.key("value"), message));
    }
    if !t["tolerationSeconds"].is_null() && effect != "NoExecute" {
        let message = "tolerationSeconds applies only to the NoExecute effect".to_owned();
        found.push((at.key("tolerationSeconds"), message));
    }
}

/// Node affinity requirements and weights; pod (anti-)affinity terms.
fn affinity(affinity: &Json, at: &KeyPath, found: &mut Found) {
    const REQUIRED: &str = "requiredDuringSchedulingIgnoredDuringExecution";
    const PREFERRED: &str = "preferredDuringSchedulingIgnoredDuringExecution";
    let node = &affinity["nodeAffinity"];
    let node_at = at.key("nodeAffinity");
    let required = &node[REQUIRED];
    if required.is_object() {
        node_selector(required, &node_at.key(REQUIRED), found);
    }
    for (i, term) in each(&node[PREFERRED]) {
        let term_at = node_at.key(PREFERRED).index(i);
        weight(&term["weight"], &term_at, found);
        // Label values a preferred term names are not checked: a cluster
        // of one node may still satisfy it (the server's comment).
        node_selector_term(
            &term["preference"],
            false,
            &term_at.key("preference"),
            found,
        );
    }
    for field in ["podAffinity", "podAntiAffinity"] {
        let pods = &affinity[field];
        let pods_at = at.key(field);
        for (i, term) in each(&pods[REQUIRED]) {
            pod_term(term, &pods_at.key(REQUIRED).index(i), found);
        }
        for (i, term) in each(&pods[PREFERRED]) {
            let term_at = pods_at.key(PREFERRED).index(i);
            weight(&term["weight"], &term_at, found);
            let term_at = term_at.key("podAffinityTerm");
            pod_term(&term["podAffinityTerm"], &term_at, found);
        }
    }
}

fn weight(weight: &Json, at: &KeyPath, found: &mut Found) {
    if whole(weight).is_some_and(|w| !(1..=100).contains(&w)) {
        let message = format!("weight {weight} is outside 1-100");
        found.push((at.key("weight"), message));
    }
}

/// A required node selector (`ValidateNodeSelector`): at least one term,
/// each valid.
pub(crate) fn node_selector(selector: &Json, at: &KeyPath, found: &mut Found) {
    let terms_at = at.key("nodeSelectorTerms");
    if selector["nodeSelectorTerms"]
        .as_array()
        .is_none_or(Vec::is_empty)
    {
        let message = "no node selector term: no node would match".to_owned();
        found.push((terms_at.clone(), message));
    }
    for (i, term) in each(&selector["nodeSelectorTerms"]) {
        node_selector_term(term, true, &terms_at.index(i), found);
    }
}

fn node_selector_term(term: &Json, values: bool, at: &KeyPath, found: &mut Found) {
    for (i, requirement) in each(&term["matchExpressions"]) {
        node_requirement(
            requirement,
            values,
            &at.key("matchExpressions").index(i),
            found,
        );
    }
    for (i, requirement) in each(&term["matchFields"]) {
        node_field_requirement(requirement, &at.key("matchFields").index(i), found);
    }
}

/// A node field selector: the API server supports `metadata.name` only,
/// with `In` or `NotIn` and exactly one value, each a node name (a DNS
/// subdomain).
fn node_field_requirement(requirement: &Json, at: &KeyPath, found: &mut Found) {
    let key = requirement["key"].as_str().unwrap_or_default();
    if key != "metadata.name" {
        let message =
            format!("`{key}` is not a node field; matchFields selects by metadata.name only");
        found.push((at.key("key"), message));
    }
    let operator = requirement["operator"].as_str().unwrap_or_default();
    if !matches!(operator, "In" | "NotIn") {
        let message = format!("matchFields takes operator In or NotIn, not `{operator}`");
        found.push((at.key("operator"), message));
    } else if requirement["values"].as_array().map_or(0, Vec::len) != 1 {
        let message = format!("operator {operator} takes exactly one node name in matchFields");
        found.push((at.key("values"), message));
    }
    if key == "metadata.name" {
        for (i, value) in each(&requirement["values"]) {
            let value = value.as_str().unwrap_or_default();
            if let Err(why) = names::dns1123_subdomain(value) {
                let message = format!("`{value}` is not a node name: {why}");
                found.push((at.key("values").index(i), message));
            }
        }
    }
}

/// `In`/`NotIn` need values, `Exists`/`DoesNotExist` take none, `Gt`/`Lt`
/// one; each a label value where `label_values` (a required term's).
fn node_requirement(requirement: &Json, label_values: bool, at: &KeyPath, found: &mut Found) {
    let key = requirement["key"].as_str().unwrap_or_default();
    if let Err(why) = names::qualified_name(key) {
        found.push((at.key("key"), format!("`{key}` is not a label key: {why}")));
    }
    let values: Vec<&str> = each(&requirement["values"])
        .filter_map(|(_, v)| v.as_str())
        .collect();
    let operator = requirement["operator"].as_str().unwrap_or_default();
    let (fits, needs) = match operator {
        "In" | "NotIn" => (!values.is_empty(), "at least one value"),
        "Exists" | "DoesNotExist" => (values.is_empty(), "no values"),
        // One value, which the server does not read as a number.
        "Gt" | "Lt" => (values.len() == 1, "exactly one value"),
        _ => {
            let message = format!(
                "`{operator}` is not a node selector operator (In, NotIn, Exists, DoesNotExist, Gt, Lt)"
            );
            found.push((at.key("operator"), message));
            return;
        }
    };
    if !fits {
        found.push((
            at.key("values"),
            format!("operator {operator} takes {needs}"),
        ));
    }
    // Each value is a label value, whatever the operator.
    for (i, value) in each(&requirement["values"]).filter(|_| label_values) {
        let value = value.as_str().unwrap_or_default();
        if let Err(why) = names::label_value(value) {
            found.push((
                at.key("values").index(i),
                format!("value {value:?} is not a label value: {why}"),
            ));
        }
    }
}

/// A pod affinity term: a topology key; label and namespace selectors;
/// namespaces that are DNS-1123 labels; `matchLabelKeys` and
/// `mismatchLabelKeys` only beside a label selector, label keys, none in
/// both, and none the written selector already names in `matchLabels`
/// and an expression (or in two expressions).
fn pod_term(term: &Json, at: &KeyPath, found: &mut Found) {
    topology_key(&term["topologyKey"], &at.key("topologyKey"), found);
    for selector in ["labelSelector", "namespaceSelector"] {
        if term[selector].is_object() {
            label_selector(&term[selector], &at.key(selector), found);
        }
    }
    for (i, namespace) in each(&term["namespaces"]) {
        let namespace = namespace.as_str().unwrap_or_default();
        if let Err(why) = names::dns1123_label(namespace) {
            found.push((
                at.key("namespaces").index(i),
                format!("`{namespace}` is not a namespace: {why}"),
            ));
        }
    }
    label_keys(term, at, found);
}

/// `matchLabelKeys` and `mismatchLabelKeys` of a pod affinity term or a
/// topology spread constraint (`ValidateMatchLabelKeysAndMismatchLabelKeys`):
/// only beside a label selector, label keys, none in both, and none the
/// written selector already names in `matchLabels` and an expression (or
/// in two expressions).
fn label_keys(term: &Json, at: &KeyPath, found: &mut Found) {
    let keys = |field: &str| -> Vec<(usize, &str)> {
        each(&term[field])
            .map(|(i, k)| (i, k.as_str().unwrap_or_default()))
            .collect()
    };
    let (matching, mismatching) = (keys("matchLabelKeys"), keys("mismatchLabelKeys"));
    let selector = &term["labelSelector"];
    for (field, list) in [
        ("matchLabelKeys", &matching),
        ("mismatchLabelKeys", &mismatching),
    ] {
        if list.is_empty() {
            continue;
        }
        if !selector.is_object() {
            found.push((
                at.key(field),
                format!("{field} is set only beside a labelSelector"),
            ));
            continue;
        }
        for (i, key) in list {
            if let Err(why) = names::qualified_name(key) {
                found.push((
                    at.key(field).index(*i),
                    format!("`{key}` is not a label key: {why}"),
                ));
            }
        }
    }
    for (i, key) in &matching {
        if mismatching.iter().any(|(_, other)| other == key) {
            found.push((
                at.key("matchLabelKeys").index(*i),
                format!("`{key}` is in matchLabelKeys and mismatchLabelKeys"),
            ));
        }
    }
    if selector.is_object() {
        let mut named: std::collections::BTreeSet<&str> =
            (selector["matchLabels"].as_object().into_iter().flatten())
                .map(|(k, _)| k.as_str())
                .collect();
        for (_, expression) in each(&selector["matchExpressions"]) {
            let key = expression["key"].as_str().unwrap_or_default();
            if let Some((i, _)) = matching.iter().rev().find(|(_, k)| *k == key)
                && named.contains(key)
            {
                found.push((
                    at.key("matchLabelKeys").index(*i),
                    format!("`{key}` is in matchLabelKeys and the labelSelector"),
                ));
            }
            named.insert(key);
        }
    }
}

/// A topology spread constraint (`validateTopologySpreadConstraints`):
/// a topology key that is not empty (no more: it is no label key here),
/// `maxSkew` and `minDomains` positive, the node inclusion policies
/// `Honor` or `Ignore`, its label keys and selector.
fn topology_spread(spread: &Json, at: &KeyPath, found: &mut Found) {
    if spread["topologyKey"]
        .as_str()
        .unwrap_or_default()
        .is_empty()
    {
        found.push((
            at.key("topologyKey"),
            "the topology key is empty".to_owned(),
        ));
    }
    if whole(&spread["minDomains"]).is_some_and(|domains| domains < 1) {
        let message = format!("minDomains {} is less than 1", spread["minDomains"]);
        found.push((at.key("minDomains"), message));
    }
    for field in ["nodeAffinityPolicy", "nodeTaintsPolicy"] {
        if let Some(policy) = spread[field].as_str()
            && !matches!(policy, "Honor" | "Ignore")
        {
            let message = format!("`{policy}` is not a node inclusion policy (Honor, Ignore)");
            found.push((at.key(field), message));
        }
    }
    label_keys(spread, at, found);
    if whole(&spread["maxSkew"]).is_some_and(|skew| skew < 1) {
        let message = format!("maxSkew {} is less than 1", spread["maxSkew"]);
        found.push((at.key("maxSkew"), message));
    }
    let when = spread["whenUnsatisfiable"].as_str().unwrap_or_default();
    if !matches!(when, "DoNotSchedule" | "ScheduleAnyway") {
        let message =
            format!("`{when}` is not a whenUnsatisfiable policy (DoNotSchedule, ScheduleAnyway)");
        found.push((at.key("whenUnsatisfiable"), message));
    }
    if !spread["minDomains"].is_null() && when != "DoNotSchedule" {
        let message = "minDomains applies only with whenUnsatisfiable DoNotSchedule".to_owned();
        found.push((at.key("minDomains"), message));
    }
    if spread["labelSelector"].is_object() {
        label_selector(&spread["labelSelector"], &at.key("labelSelector"), found);
    }
}

fn topology_key(key: &Json, at: &KeyPath, found: &mut Found) {
    match key.as_str().unwrap_or_default() {
        "" => found.push((at.clone(), "the topology key is empty".to_owned())),
        key => {
            if let Err(why) = names::qualified_name(key) {
                found.push((at.clone(), format!("`{key}` is not a topology key: {why}")));
            }
        }
    }
}

/// A label selector: valid keys and values; `In`/`NotIn` with values,
/// `Exists`/`DoesNotExist` without, no other operator.
pub fn label_selector(selector: &Json, at: &KeyPath, found: &mut Found) {
    for (key, value) in selector["matchLabels"].as_object().into_iter().flatten() {
        label(
            key,
            value.as_str(),
            at.key("matchLabels").key(key.clone()),
            found,
        );
    }
    for (i, expression) in each(&selector["matchExpressions"]) {
        let path = at.key("matchExpressions").index(i);
        if let Some(key) = expression["key"].as_str()
            && let Err(why) = names::qualified_name(key)
        {
            found.push((
                path.key("key"),
                format!("`{key}` is not a valid label key: {why}"),
            ));
        }
        let values = expression["values"].as_array().map_or(0, Vec::len);
        match expression["operator"].as_str() {
            Some(op @ ("In" | "NotIn")) if values == 0 => found.push((
                path.key("values"),
                format!("operator {op} needs at least one value"),
            )),
            Some(op @ ("Exists" | "DoesNotExist")) if values > 0 => {
                found.push((path.key("values"), format!("operator {op} takes no values")))
            }
            Some("In" | "NotIn" | "Exists" | "DoesNotExist") | None => {}
            Some(op) => found.push((
                path.key("operator"),
                format!("`{op}` is not a selector operator (In, NotIn, Exists, DoesNotExist)"),
            )),
        }
        for (v, value) in each(&expression["values"]) {
            if let Some(value) = value.as_str()
                && let Err(why) = names::label_value(value)
            {
                found.push((
                    path.key("values").index(v),
                    format!("label value {value:?} is not valid: {why}"),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn problems(pod: Json) -> Vec<String> {
        let mut found = Vec::new();
        super::pod(&pod, &KeyPath::root().key("spec"), &mut found);
        found
            .into_iter()
            .map(|(path, message)| format!("{path}: {message}"))
            .collect()
    }

    #[test]
    fn the_api_servers_scheduling_rules_each_find_their_field() {
        let pod = json!({
            "tolerations": [
                {"operator": "Equals", "effect": "Never", "key": "a"},
                {"operator": "Exists", "value": "x", "key": "b"},
                {"tolerationSeconds": 5, "key": "c", "effect": "NoSchedule"},
                {"value": "x"},
                {"key": "d", "value": "a b"}
            ],
            "affinity": {"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "k", "operator": "Gt", "values": ["1", "2"]}]}
                ]},
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 0, "preference": {"matchFields": [{"key": "metadata.name", "operator": "Near"}]}}
                ]
            }},
            "topologySpreadConstraints": [
                {"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": "ScheduleAnyway", "minDomains": 1}
            ],
            "priorityClassName": "High",
            "nodeSelector": {"ok": "a b"}
        });
        assert_eq!(
            problems(pod),
            [
                "spec.nodeSelector.ok: label value \"a b\" is not valid: ' ' is not allowed",
                "spec.tolerations[0].operator: `Equals` is not a toleration operator (Exists, Equal)",
                "spec.tolerations[0].effect: `Never` is not a taint effect (NoSchedule, PreferNoSchedule, NoExecute)",
                "spec.tolerations[1].value: a toleration with operator Exists takes no value",
                "spec.tolerations[2].tolerationSeconds: tolerationSeconds applies only to the NoExecute effect",
                "spec.tolerations[3].operator: a toleration without a key must use operator Exists",
                "spec.tolerations[4].value: toleration value \"a b\" is not valid: ' ' is not allowed",
                "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: operator Gt takes exactly one value",
                "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: weight 0 is outside 1-100",
                "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchFields[0].operator: matchFields takes operator In or NotIn, not `Near`",
                "spec.topologySpreadConstraints[0].topologyKey: the topology key is empty",
                "spec.topologySpreadConstraints[0].maxSkew: maxSkew 0 is less than 1",
                "spec.topologySpreadConstraints[0].minDomains: minDomains applies only with whenUnsatisfiable DoNotSchedule",
                "spec.priorityClassName: `High` is not a PriorityClass name: a DNS-1123 subdomain is DNS-1123 labels joined by `.`: a DNS-1123 label holds only lowercase letters, digits and `-`",
            ]
        );
    }

    /// A required node affinity without its terms is a finding, not a
    /// panic (reading a missing key of a map panicked; a review found it).
    #[test]
    fn a_required_node_affinity_without_terms_is_a_finding() {
        let pod = json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {}}}});
        assert_eq!(
            problems(pod),
            [
                "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: no node selector term: no node would match"
            ]
        );
    }

    #[test]
    fn valid_scheduling_fields_pass() {
        let pod = json!({
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "tolerations": [{"operator": "Exists"}, {"key": "a", "value": "b", "effect": "NoExecute", "tolerationSeconds": 3}],
            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "x"}}}
            ]}},
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule", "minDomains": 2}],
            "priorityClassName": "high",
            "imagePullSecrets": [{"name": "ghcr"}]
        });
        assert_eq!(problems(pod), Vec::<String>::new());
    }

    fn node_fields(requirement: Json) -> Json {
        json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
            {"nodeSelectorTerms": [{"matchFields": [requirement]}]}}}})
    }

    #[test]
    fn match_fields_select_only_the_node_name_with_one_value() {
        let at = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0]";
        assert_eq!(
            problems(node_fields(
                json!({"key": "metadata.labels", "operator": "In", "values": ["x"]})
            )),
            [format!(
                "{at}.key: `metadata.labels` is not a node field; matchFields selects by metadata.name only"
            )]
        );
        assert_eq!(
            problems(node_fields(
                json!({"key": "metadata.name", "operator": "In", "values": ["a", "b"]})
            )),
            [format!(
                "{at}.values: operator In takes exactly one node name in matchFields"
            )]
        );
        assert_eq!(
            problems(node_fields(
                json!({"key": "metadata.name", "operator": "Exists"})
            )),
            [format!(
                "{at}.operator: matchFields takes operator In or NotIn, not `Exists`"
            )]
        );
        assert_eq!(
            problems(node_fields(
                json!({"key": "metadata.name", "operator": "NotIn", "values": ["node-1"]})
            )),
            Vec::<String>::new()
        );
    }

    #[test]
    fn two_spread_constraints_of_one_key_and_policy_are_refused() {
        let spread = |when: &str| json!({"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": when});
        assert_eq!(
            problems(json!({"topologySpreadConstraints": [
                spread("DoNotSchedule"), spread("ScheduleAnyway"), spread("DoNotSchedule")
            ]})),
            [
                "spec.topologySpreadConstraints[2]: a constraint with topologyKey `kubernetes.io/hostname` and whenUnsatisfiable DoNotSchedule is already set ([0])"
            ]
        );
    }
}
