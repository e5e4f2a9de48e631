//! An object the new set adds or changes that the API server refuses: by
//! its schema or by an API rule, as `check` reads it
//! ([`crate::api::refused`]). Its apply fails whatever else changes
//! (`refused`).
//!
//! An update is validated as the server prepares it, not as written:
//!
//! - A Service that changes `type` loses the fields the old type had and
//!   the new one has no use for, where the manifest keeps their old value
//!   (`dropTypeDependentFields`, `pkg/registry/core/service/strategy.go`):
//!   node ports no new one among them, the health-check node port, the
//!   load-balancer class and `allocateLoadBalancerNodePorts` (defaulted
//!   `true` on a LoadBalancer), `externalTrafficPolicy` (defaulted
//!   `Cluster` where the Service was reachable from outside), and, for an
//!   ExternalName Service, the cluster IPs and IP families. A value the old
//!   manifest left to the server is taken as what the server allocated.
//! - A reason the old object shares is not this change's: the server
//!   validates an update against the old object, and lets through what it
//!   already holds (ratcheting); a change that keeps a problem is
//!   `check`'s to report.
//!
//! A custom resource whose CRD neither set holds is not judged: the
//! cluster may define it. An object that could hold a Secret is named
//! without the reason, which may quote a value.

use std::collections::BTreeSet;

use serde_json::{Map, Value as Json};

use super::{Class, Impact, Level};
use crate::diff::compare::may_need_redaction;
use crate::kube::KubeSchemas;
use crate::manifest::Manifest;

/// The impacts of the objects `added` and the new selves of `changed`
/// (old, new) that the API server refuses, the custom resources judged
/// against the CRDs of `new` (the whole new set) of their group and kind;
/// by the schemas of Kubernetes 1.`minor`, else the default version's.
pub(super) fn refused(
    added: &[&Manifest],
    changed: &[(&Manifest, &Manifest)],
    new: &[Manifest],
    minor: u32,
    out: &mut Vec<Impact>,
) {
    if added.is_empty() && changed.is_empty() {
        return;
    }
    let Ok(schemas) = KubeSchemas::load(&format!("1.{minor}"))
        .or_else(|_| KubeSchemas::load(crate::kube::DEFAULT_VERSION))
    else {
        return;
    };
    // The new selves, as prepared for their update, then the old selves
    // of the changed objects.
    let judged: Vec<&Manifest> = (added.iter().copied())
        .chain(changed.iter().map(|&(_, after)| after))
        .collect();
    let mut objects: Vec<Json> = judged.iter().map(|m| m.json()).collect();
    let olds: Vec<Json> = changed.iter().map(|(before, _)| before.json()).collect();
    for (object, old) in objects[added.len()..].iter_mut().zip(&olds) {
        prepare_update(old, object);
    }
    let kinds: BTreeSet<(&str, &str)> = (judged.iter())
        .map(|m| (m.id.group.as_str(), m.id.kind.as_str()))
        .collect();
    // Only the CRDs a judged custom resource needs are compiled.
    let crds: Vec<Json> = (new.iter())
        .filter(|m| m.id.is_crd())
        .map(Manifest::json)
        .filter(|crd| {
            let (group, kind) = (&crd["spec"]["group"], &crd["spec"]["names"]["kind"]);
            kinds.contains(&(
                group.as_str().unwrap_or_default(),
                kind.as_str().unwrap_or_default(),
            ))
        })
        .collect();
    let all: Vec<&Json> = objects.iter().chain(&olds).collect();
    let refusals = crate::api::refused::refused(&all, &schemas, &crds);
    let (new_reasons, old_reasons) =
        refusals.split_at(refusals.partition_point(|r| r.index < judged.len()));
    let held: BTreeSet<(usize, &str)> = (old_reasons.iter())
        .map(|r| (r.index - judged.len() + added.len(), r.why.as_str()))
        .collect();
    for refusal in new_reasons {
        if refusal.is_custom_kind_unknown() || held.contains(&(refusal.index, refusal.why.as_str()))
        {
            continue;
        }
        let object = judged[refusal.index];
        let why = match may_need_redaction(object.node()) {
            true => "the API server refuses it (the reason is not shown: the object may hold a Secret; `check` names it)".to_owned(),
            false => format!("the API server refuses it: {}", refusal.why),
        };
        out.push(Impact::new(Level::Refused, Class::Invalid, object, why));
    }
}

/// `new` as the API server prepares it for its update over `old`: a
/// Service's fields of its old type dropped (the module's notes).
fn prepare_update(old: &Json, new: &mut Json) {
    let is_service = |o: &Json| o["kind"] == "Service" && o["apiVersion"] == "v1";
    if !(is_service(old) && is_service(new)) {
        return;
    }
    let (Some(before), Some(after)) = (old["spec"].as_object(), new["spec"].as_object_mut()) else {
        return;
    };
    drop_type_dependent_fields(before, after);
}

/// A Service's `type`, `ClusterIP` when unset or empty.
fn service_type(spec: &Map<String, Json>) -> &str {
    match spec.get("type").and_then(Json::as_str) {
        None | Some("") => "ClusterIP",
        Some(kind) => kind,
    }
}

/// Kubernetes' `dropTypeDependentFields` over the specs of a Service's old
/// and new manifests.
fn drop_type_dependent_fields(old: &Map<String, Json>, new: &mut Map<String, Json>) {
    let (was, is) = (service_type(old), service_type(new).to_owned());
    // What the old manifest left to the server is what the server set.
    let same = |new: &Map<String, Json>, field: &str| {
        old.get(field)
            .is_none_or(|value| new.get(field) == Some(value))
    };
    if was != "ExternalName" && is == "ExternalName" {
        if same(new, "clusterIP") && same(new, "clusterIPs") {
            new.remove("clusterIP");
            new.remove("clusterIPs");
        }
        for field in ["ipFamilies", "ipFamilyPolicy"] {
            if same(new, field) {
                new.remove(field);
            }
        }
    }
    let node_ports = |spec: &Map<String, Json>| -> BTreeSet<i64> {
        (spec
            .get("ports")
            .and_then(Json::as_array)
            .into_iter()
            .flatten())
        .filter_map(|port| port["nodePort"].as_i64())
        .filter(|&port| port != 0)
        .collect()
    };
    let needs_node_ports = |kind: &str| matches!(kind, "NodePort" | "LoadBalancer");
    if needs_node_ports(was)
        && !needs_node_ports(&is)
        && node_ports(new).is_subset(&node_ports(old))
    {
        let ports = new.get_mut("ports").and_then(Json::as_array_mut);
        for port in ports.into_iter().flatten().filter_map(Json::as_object_mut) {
            port.remove("nodePort");
        }
    }
    let traffic = |spec: &Map<String, Json>, kind: &str| match spec.get("externalTrafficPolicy") {
        Some(Json::String(policy)) if !policy.is_empty() => Some(policy.clone()),
        _ if needs_node_ports(kind) => Some("Cluster".to_owned()),
        _ => None,
    };
    let health_checked = |spec: &Map<String, Json>, kind: &str| {
        kind == "LoadBalancer" && traffic(spec, kind).as_deref() == Some("Local")
    };
    if health_checked(old, was) && !health_checked(new, &is) && same(new, "healthCheckNodePort") {
        new.remove("healthCheckNodePort");
    }
    if was == "LoadBalancer" && is != "LoadBalancer" {
        let allocated = old
            .get("allocateLoadBalancerNodePorts")
            .unwrap_or(&Json::Bool(true));
        if new.get("allocateLoadBalancerNodePorts") == Some(allocated) {
            new.remove("allocateLoadBalancerNodePorts");
        }
        if old.get("loadBalancerClass") == new.get("loadBalancerClass") {
            new.remove("loadBalancerClass");
        }
    }
    let external = |spec: &Map<String, Json>, kind: &str| {
        needs_node_ports(kind)
            || (kind == "ClusterIP"
                && spec
                    .get("externalIPs")
                    .and_then(Json::as_array)
                    .is_some_and(|ips| !ips.is_empty()))
    };
    if external(old, was)
        && !external(new, &is)
        && new
            .get("externalTrafficPolicy")
            .is_none_or(|_| traffic(new, &is) == traffic(old, was))
    {
        new.remove("externalTrafficPolicy");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The refusals `diff` finds from `old` to `new` (YAML streams).
    fn refusals(old: &str, new: &str) -> Vec<String> {
        let old = crate::input::parse("old.yaml", old).unwrap().manifests;
        let new = crate::input::parse("new.yaml", new).unwrap().manifests;
        (crate::diff::diff(&old, &new, &[]).impact.into_iter())
            .filter(|i| i.class == Class::Invalid)
            .map(|i| i.why)
            .collect()
    }

    fn service(spec: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Service\nmetadata: {{name: s, namespace: a}}\nspec: {spec}\n"
        )
    }

    /// What a Service's old type had is dropped where the manifest keeps
    /// it as it was, and only then.
    #[test]
    fn a_service_changing_type_is_judged_as_the_server_prepares_it() {
        let lb = service(
            "{type: LoadBalancer, externalTrafficPolicy: Local, healthCheckNodePort: 30100, loadBalancerClass: x.io/a, ports: [{port: 80, nodePort: 30101}]}",
        );
        let kept = service(
            "{type: ClusterIP, externalTrafficPolicy: Local, healthCheckNodePort: 30100, loadBalancerClass: x.io/a, allocateLoadBalancerNodePorts: true, ports: [{port: 80, nodePort: 30101}]}",
        );
        assert_eq!(refusals(&lb, &kept), Vec::<String>::new());
        // Created so, the same Service is refused.
        assert_eq!(refusals("", &kept).len(), 1);
        for changed in [
            "{type: ClusterIP, ports: [{port: 80, nodePort: 30102}]}",
            "{type: ClusterIP, healthCheckNodePort: 30103, ports: [{port: 80}]}",
            "{type: ClusterIP, loadBalancerClass: x.io/b, ports: [{port: 80}]}",
            "{type: ClusterIP, externalTrafficPolicy: Cluster, ports: [{port: 80}]}",
            "{type: ClusterIP, allocateLoadBalancerNodePorts: false, ports: [{port: 80}]}",
        ] {
            assert_eq!(refusals(&lb, &service(changed)).len(), 1, "{changed}");
        }
        // An ExternalName Service keeps no cluster IP but the allocated one.
        let cluster = service("{clusterIP: 10.0.0.7, ports: [{port: 80}]}");
        let external = |ip: &str| {
            service(&format!(
                "{{type: ExternalName, externalName: db.example.com, clusterIP: {ip}}}"
            ))
        };
        assert_eq!(
            refusals(&cluster, &external("10.0.0.7")),
            Vec::<String>::new()
        );
        assert_eq!(refusals(&cluster, &external("10.0.0.8")).len(), 1);
    }

    /// Only what the change brings is its own: a problem the old object
    /// has too is not, nor a custom kind no CRD here defines.
    #[test]
    fn only_new_problems_of_known_kinds_are_the_changes() {
        let map = |label: &str, value: &str| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c, namespace: a, labels: {{tier: '{label}'}}}}\ndata: {{a: '{value}'}}\n"
            )
        };
        assert_eq!(refusals(&map("-bad-", "1"), &map("-bad-", "2")).len(), 0);
        let found = refusals(&map("ok", "1"), &map("-bad-", "1"));
        assert!(
            found[0].starts_with("the API server refuses it: metadata.labels"),
            "{found:?}"
        );
        let widget = |size: u32| {
            format!(
                "apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: Bad_Name, namespace: a}}\nspec: {{size: {size}}}\n"
            )
        };
        let good = |size: u32| widget(size).replace("Bad_Name", "w");
        assert_eq!(
            refusals(&good(1), &widget(2)),
            Vec::<String>::new(),
            "not judged"
        );
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer, maximum: 1}}}}}}\n---\n";
        assert_eq!(refusals(&good(1), &good(2)), Vec::<String>::new());
        let found = refusals(&format!("{crd}{}", good(1)), &format!("{crd}{}", good(2)));
        assert!(found[0].contains("spec.size"), "{found:?}");
    }

    #[test]
    fn a_secrets_reason_is_not_shown() {
        let secret = |data: &str| {
            format!(
                "apiVersion: v1\nkind: Secret\nmetadata: {{name: s, namespace: a}}\ndata: {{pin: '{data}'}}\n"
            )
        };
        let found = refusals(&secret("MTIz"), &secret("hunter2 is not base64"));
        assert_eq!(found.len(), 1);
        assert!(!found[0].contains("hunter2"), "{found:?}");
    }
}
