//! NET: every namespace the release targets (operator, builds) isolates
//! every pod in both directions, and no ingress rule there admits the whole
//! cluster (docs/network.md).
//!
//! NetworkPolicy semantics, as the API defines them: a pod is isolated for
//! a direction once any policy of its namespace selects it with that
//! policy type; only an empty `podSelector` selects every pod, present and
//! future. `policyTypes` left out means `Ingress`, plus `Egress` when the
//! policy has egress rules; the rules of a type a policy does not list are
//! ignored. A rule without peers admits every source; a rule's peers are
//! ORed; a peer's `namespaceSelector` and `podSelector` are ANDed, and a
//! peer without `namespaceSelector` means the policy's own namespace.

use std::collections::HashMap;

use serde_json::Value as Json;

use super::shared::namespaces::namespace_objects;
use super::{DOC, Definition, Inputs};
use crate::check::facts::namespace_of;
use crate::check::rules::Invariant;
use crate::check::{Class, Findings};
use crate::plan::network::NAMESPACE_NAME_LABEL;
use kubernetes::cidr::{self, Cidr};
use kubernetes::diagnostic::Rule;
use kubernetes::json::Field;
use kubernetes::location::KeyPath;

/// NET: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "NET",
        title: "Default deny in every namespace the release targets, and no ingress from the whole cluster",
        help: "Issue 23 and `docs/network.md`: the operator and builds namespaces (where buildd runs, and its `--namespace`) each have a NetworkPolicy with an empty `podSelector` (every pod, present and future) for `Ingress` and for `Egress`, so a pod admits and makes only the connections some policy allows. `policyTypes` is read as the API server defaults it (left out: `Ingress`, and `Egress` when the policy has egress rules); a selector with any label or expression is not every pod. No ingress rule of a policy in those namespaces admits the whole cluster: a rule without `from` (every source), a peer whose `namespaceSelector` no label narrows (empty, or only `NotIn`, `DoesNotExist` or `Exists` on `kubernetes.io/metadata.name`, which every namespace carries: a `podSelector` beside it narrows by labels anyone who creates a pod can set), or an `ipBlock` of every address (`/0`) whose exceptions leave in a range pods are addressed from (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7: excepting only the metadata address still admits every pod, on a CNI that matches pod addresses against ipBlocks). Peers are ORed, a peer's selectors ANDed, a peer without `namespaceSelector` is the policy's own namespace. Not promised: which flows the allow rules open beyond that (`docs/network.md` lists the chart's), egress openness (a build egress of `allowAll` is the values' choice), policies of other kinds (Cilium, Calico) and whether the cluster's CNI enforces NetworkPolicies at all. The system namespace (the Kata bundle, applied out-of-band) is not held to it.",
        example: "NET NetworkPolicy buildkit-operator/buildkit-gateway spec.ingress[0]: the rule has no `from`: it admits every source, the whole cluster, into buildkit-operator; name the namespaces (and pods) that connect",
        doc: DOC,
    },
    section: 130,
    rank: 170,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};

/// The two directions a policy isolates.
const DIRECTIONS: [(&str, &str); 2] = [("Ingress", "ingress"), ("Egress", "egress")];

/// Checks NET on the operator and builds namespaces the input shows.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let context = inputs.context;
    let places = namespace_objects(context);
    // The policies by namespace, in one pass over the input.
    let mut by_namespace: HashMap<&str, Vec<(usize, &Json)>> = HashMap::new();
    for (index, object) in context.objects.iter().enumerate() {
        if is_network_policy(object) {
            (by_namespace.entry(namespace_of(object)).or_default()).push((index, *object));
        }
    }
    for (namespace, class) in &context.facts.classes {
        if !matches!(class, Class::Operator | Class::Builds) {
            continue;
        }
        let policies = by_namespace
            .get(namespace.as_str())
            .map_or(&[][..], Vec::as_slice);
        for (kind, _) in DIRECTIONS {
            let isolated = policies.iter().any(|(_, p)| {
                selects_every_pod(p.field("spec").field("podSelector")) && types(p).contains(&kind)
            });
            if isolated {
                continue;
            }
            let message = format!(
                "no NetworkPolicy in {namespace} selects every pod for {kind}: a pod no policy selects for {kind} {}; add a default deny (`podSelector: {{}}`, `policyTypes: [Ingress, Egress]`)",
                if kind == "Ingress" {
                    "takes connections from anywhere"
                } else {
                    "connects anywhere"
                }
            );
            match places.get(namespace.as_str()) {
                Some(&index) => {
                    findings.report(Invariant::Network, index, &KeyPath::root(), message)
                }
                None => findings.note(format!("Namespace {namespace}"), message),
            }
        }
        for (index, policy) in policies {
            whole_cluster_ingress(*index, policy, findings);
        }
    }
}

/// Whether `object` is a Kubernetes NetworkPolicy.
fn is_network_policy(object: &Json) -> bool {
    object.field("kind") == "NetworkPolicy"
        && object
            .field("apiVersion")
            .as_str()
            .is_some_and(|v| v.starts_with("networking.k8s.io/"))
}

/// The policy types in effect: as listed, else `Ingress`, and `Egress` when
/// the policy has egress rules (the API server's default).
fn types(policy: &Json) -> Vec<&str> {
    let spec = policy.field("spec");
    match spec.field("policyTypes").as_array() {
        Some(listed) if !listed.is_empty() => listed.iter().filter_map(Json::as_str).collect(),
        _ => {
            let mut types = vec!["Ingress"];
            if spec
                .field("egress")
                .as_array()
                .is_some_and(|e| !e.is_empty())
            {
                types.push("Egress");
            }
            types
        }
    }
}

/// Whether a label selector selects everything: no labels, no expressions.
fn selects_every_pod(selector: &Json) -> bool {
    let empty = |field: &str| match &selector[field] {
        Json::Null => true,
        Json::Object(map) => map.is_empty(),
        Json::Array(list) => list.is_empty(),
        _ => false,
    };
    (selector.is_null() || selector.is_object())
        && empty("matchLabels")
        && empty("matchExpressions")
}

/// Whether a namespace selector narrows to namespaces that carry some
/// label: a `matchLabels` entry, an `In` with values, or an `Exists` on a
/// key other than the name label every namespace has. A selector of
/// `NotIn` and `DoesNotExist` only selects every namespace but a few, and
/// any namespace created later.
fn narrows(selector: &Json) -> bool {
    let labels = selector
        .field("matchLabels")
        .as_object()
        .is_some_and(|m| !m.is_empty());
    let expressions = selector
        .field("matchExpressions")
        .as_array()
        .into_iter()
        .flatten()
        .any(|e| match e.field("operator").as_str() {
            Some("In") => e.field("values").as_array().is_some_and(|v| !v.is_empty()),
            Some("Exists") => e.field("key") != NAMESPACE_NAME_LABEL,
            _ => false,
        });
    labels || expressions
}

/// Whether an `ipBlock` of every address (`/0`) leaves in a range pods
/// are addressed from ([`cidr::pod_ranges`]): excepting the metadata
/// address, or any one private range, still admits the pods of a cluster
/// whose pod CIDR lies in another. A narrower block is the values' choice.
fn reaches_pods(block: &Json) -> bool {
    let Some(cidr) = block
        .field("cidr")
        .as_str()
        .and_then(|c| Cidr::parse(c).ok())
    else {
        return false;
    };
    if cidr.prefix_len() != 0 {
        return false;
    }
    let excepted: Vec<Cidr> = (block.field("except").as_array().into_iter().flatten())
        .filter_map(|e| e.as_str().and_then(|e| Cidr::parse(e).ok()))
        .collect();
    cidr::pod_ranges()
        .iter()
        .filter(|range| range.is_v6() == cidr.is_v6())
        .any(|range| !excepted.iter().any(|e| e.contains(range)))
}

/// Why a peer admits the whole cluster, if it does.
fn cluster_wide(peer: &Json) -> Option<&'static str> {
    let block = peer.field("ipBlock");
    if !block.is_null() {
        return reaches_pods(block).then_some(
            "an ipBlock of every address that keeps the private ranges pods are addressed from: on a CNI that matches pod addresses against ipBlocks, every pod of the cluster",
        );
    }
    let namespaces = peer.field("namespaceSelector");
    (!namespaces.is_null() && !narrows(namespaces)).then_some(
        "a namespaceSelector that no label narrows: pods of every namespace (a podSelector beside it narrows by labels any pod can carry)",
    )
}

/// Every ingress rule of `policy` that admits the whole cluster.
fn whole_cluster_ingress(index: usize, policy: &Json, findings: &mut Findings<'_>) {
    if !types(policy).contains(&"Ingress") {
        return;
    }
    let namespace = namespace_of(policy);
    let at = KeyPath::dotted("spec.ingress");
    for (r, rule) in policy
        .field("spec")
        .field("ingress")
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let from = rule.field("from").as_array().filter(|f| !f.is_empty());
        let Some(from) = from else {
            findings.report(
                Invariant::Network,
                index,
                &at.clone().index(r),
                format!(
                    "the rule has no `from`: it admits every source, the whole cluster, into {namespace}; name the namespaces (and pods) that connect"
                ),
            );
            continue;
        };
        for (p, peer) in from.iter().enumerate() {
            if let Some(why) = cluster_wide(peer) {
                findings.report(
                    Invariant::Network,
                    index,
                    &at.clone().index(r).key("from").index(p),
                    format!("admits the whole cluster into {namespace}: {why}"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn policy_types_default_as_the_api_server_defaults_them() {
        assert_eq!(types(&json!({"spec": {}})), ["Ingress"]);
        assert_eq!(types(&json!({"spec": {"egress": []}})), ["Ingress"]);
        assert_eq!(
            types(&json!({"spec": {"egress": [{}]}})),
            ["Ingress", "Egress"]
        );
        assert_eq!(
            types(&json!({"spec": {"policyTypes": ["Egress"], "ingress": [{}]}})),
            ["Egress"]
        );
    }

    #[test]
    fn only_an_empty_selector_selects_every_pod() {
        for every in [
            json!(null),
            json!({}),
            json!({"matchLabels": {}}),
            json!({"matchLabels": {}, "matchExpressions": []}),
        ] {
            assert!(selects_every_pod(&every), "{every}");
        }
        for some in [
            json!({"matchLabels": {"a": "b"}}),
            json!({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}),
        ] {
            assert!(!selects_every_pod(&some), "{some}");
        }
    }

    #[test]
    fn a_peer_is_cluster_wide_unless_a_label_narrows_its_namespaces() {
        let wide = [
            json!({"namespaceSelector": {}}),
            json!({"namespaceSelector": {}, "podSelector": {"matchLabels": {"app": "x"}}}),
            json!({"namespaceSelector": {"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["x"]}]}}),
            json!({"namespaceSelector": {"matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]}}),
            json!({"namespaceSelector": {"matchExpressions": [{"key": NAMESPACE_NAME_LABEL, "operator": "Exists"}]}}),
            json!({"ipBlock": {"cidr": "0.0.0.0/0"}}),
            json!({"ipBlock": {"cidr": "::/0"}}),
            json!({"ipBlock": {"cidr": "0.0.0.0/0", "except": ["169.254.169.254/32"]}}),
            json!({"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8"]}}),
        ];
        for peer in wide {
            assert!(cluster_wide(&peer).is_some(), "{peer}");
        }
        let narrow = [
            json!({"podSelector": {}}),
            json!({"podSelector": {"matchLabels": {"app": "x"}}}),
            json!({"namespaceSelector": {"matchLabels": {NAMESPACE_NAME_LABEL: "ci"}}}),
            json!({"namespaceSelector": {"matchExpressions": [{"key": "team", "operator": "In", "values": ["ci"]}]}}),
            json!({"namespaceSelector": {"matchExpressions": [{"key": "ci", "operator": "Exists"}]}}),
            json!({"ipBlock": {"cidr": "10.0.0.0/8"}}),
            json!({"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"]}}),
        ];
        for peer in narrow {
            assert!(cluster_wide(&peer).is_none(), "{peer}");
        }
    }
}
