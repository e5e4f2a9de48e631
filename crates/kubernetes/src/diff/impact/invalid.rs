//! An object the new set adds or changes that the API server refuses: by
//! its schema or by an API rule ([`crate::api::refused`]), or a keyed list
//! of its pod spec holding a key twice, which server-side apply refuses
//! ([`twice_keyed`]). Its apply fails whatever else changes (`refused`).
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
//!   Then cluster IPs the new manifest leaves out or empty are the old
//!   ones (`patchAllocatedValues`): a headless Service's `None` stays, which
//!   a NodePort or LoadBalancer one may not have.
//! - A Secret keeps the `data` keys only the old manifest's `stringData`
//!   wrote (nothing of `stringData` is stored for server-side apply to
//!   remove): a `kubernetes.io/tls` Secret still has its `tls.key`.
//! - An Ingress's class annotation is held to `ingressClassName` on create
//!   only (`ValidateIngressCreate`).
//! - A pod volume the old manifest wrote without a source keeps the
//!   `emptyDir: {}` the defaults gave it (no manager owns it), so a source
//!   the new manifest gives it is a second one.
//! - The Priority admission refuses a bare Pod on create whose written
//!   `priority` or `preemptionPolicy` is not its class's
//!   ([`Declared::priority_refuses`]).
//! - The `LimitRanger` admission refuses a bare Pod on create, and a
//!   claim on create or update, that a LimitRange the new set declares in
//!   its namespace bounds ([`Declared::limit_ranger_refuses`]).
//! - A reason the old object shares is not this change's: that object
//!   could not be applied either (or was, under older rules), and a check
//!   of the manifests reports it; the diff names what the change brings.
//!
//! A custom resource whose CRD neither set holds is not judged: the
//! cluster may define it, in any group of which Kubernetes serves no kind
//! (`autoscaling.k8s.io` and `gateway.networking.k8s.io` too). An object
//! that could hold a Secret is named without the reason, which may quote
//! a value.

use std::collections::BTreeSet;

use serde_json::{Map, Value as Json};

use super::{Class, Impact, Level};
use crate::diff::compare::may_need_redaction;
use crate::diff::defaults::Declared;
use crate::diff::tree::Compared;
use crate::kube::KubeSchemas;
use crate::manifest::Manifest;
use crate::tree::Tree;
use crate::yaml::Node;

/// The impacts of the objects `added` and the new selves of `changed`
/// (old, new) that the API server refuses, the custom resources judged
/// against the CRDs of `new` (the whole new set) of their group and kind;
/// by the schemas of Kubernetes 1.`minor`, else the default version's.
pub(super) fn refused(
    added: &[&Manifest],
    changed: &[(&Manifest, &Manifest)],
    sets: super::Sets<'_>,
    out: &mut Vec<Impact>,
) {
    if added.is_empty() && changed.is_empty() {
        return;
    }
    admitted(added, changed, sets, out);
    let (new, minor) = (sets.new, sets.minor);
    let Ok(schemas) = KubeSchemas::load(&format!("1.{minor}"))
        .or_else(|_| KubeSchemas::load(crate::kube::DEFAULT_VERSION))
    else {
        return;
    };
    // The objects added, then the new selves of the changed ones.
    let judged: Vec<&Manifest> = (added.iter().copied())
        .chain(changed.iter().map(|&(_, after)| after))
        .collect();
    let crds = crds_of(&judged, new);
    let refusals = judge(&judged, changed, added.len(), &schemas, &crds);
    // The old selves of the changed objects refused, judged only now: most
    // objects are refused for nothing.
    let olds: Vec<(usize, Json)> = (refusals.iter())
        .filter(|r| r.index >= added.len())
        .map(|r| (r.index, changed[r.index - added.len()].0.json()))
        .collect();
    let old_objects: Vec<&Json> = olds.iter().map(|(_, o)| o).collect();
    let held: BTreeSet<(usize, String)> =
        (crate::api::refused::refused(&old_objects, &schemas, &crds).into_iter())
            .map(|r| (olds[r.index].0, r.why))
            .collect();
    for refusal in refusals {
        if may_be_custom(&refusal, &schemas) || held.contains(&(refusal.index, refusal.why.clone()))
        {
            continue;
        }
        let object = judged[refusal.index];
        let mut why = match may_need_redaction(object.node()) {
            true => "the API server refuses it (the reason is not shown: the object may hold a Secret; checking the manifests names it)".to_owned(),
            false => format!("the API server refuses it: {}", refusal.why),
        };
        if let Some(old) = refusal.index.checked_sub(added.len()).map(|i| changed[i].0) {
            why.extend(empty_dirs_kept(old, object));
        }
        out.push(Impact::new(Level::Refused, Class::Invalid, object, why));
    }
    for (index, object) in judged.iter().enumerate() {
        let Some(twice) = twice_keyed(object) else {
            continue;
        };
        let old = index.checked_sub(added.len()).map(|i| changed[i].0);
        if old.and_then(twice_keyed).as_ref() == Some(&twice) {
            continue;
        }
        let why = format!("server-side apply refuses a keyed list with a key twice: {twice}");
        out.push(Impact::new(Level::Refused, Class::Invalid, object, why));
    }
}

/// The impacts of the bare Pods `added` and the claims added or
/// `changed` that an admission refuses (403, forbidden): the Priority
/// admission, a pod's written priority or preemption policy other than
/// its class's ([`Declared::priority_refuses`]); the `LimitRanger`
/// admission of their namespace, by the LimitRanges the new set declares
/// there ([`Declared::limit_ranger_refuses`]); the `PodSecurity` admission
/// of a Namespace of the new set that enforces a level
/// ([`Declared::pod_security_refuses`]). A pod is judged on create
/// only (both admissions leave a pod's update alone), a claim on update
/// too, unless its old self was refused alike.
fn admitted(
    added: &[&Manifest],
    changed: &[(&Manifest, &Manifest)],
    sets: super::Sets<'_>,
    out: &mut Vec<Impact>,
) {
    let judged = |m: &Manifest| {
        m.id.group.is_empty() && matches!(m.id.kind.as_str(), "Pod" | "PersistentVolumeClaim")
    };
    let claims = changed
        .iter()
        .filter(|(_, after)| after.id.kind == "PersistentVolumeClaim");
    if !added.iter().any(|m| judged(m)) && claims.clone().next().is_none() {
        return;
    }
    let read;
    let declared = match sets.declared {
        Some(declared) => declared,
        None => {
            read = Declared::of(sets.new);
            &read
        }
    };
    let mut refuse = |object: &Manifest, admission: &str, why: String| {
        let why = format!("the {admission} admission refuses it: {why}");
        out.push(Impact::new(Level::Refused, Class::Invalid, object, why));
    };
    for object in added.iter().copied().filter(|m| judged(m)) {
        // The Priority admission mutates, so it refuses before the
        // LimitRanger validates.
        if let Some(why) = declared.priority_refuses(object) {
            refuse(object, "Priority", why);
        } else if let Some(why) = declared.limit_ranger_refuses(object, true) {
            refuse(object, "LimitRanger", why);
        } else if let Some(why) =
            declared.pod_security_refuses(object, crate::rbac::defaults::TARGET.1)
        {
            refuse(object, "PodSecurity", why);
        }
    }
    for &(before, after) in claims.filter(|(_, after)| judged(after)) {
        let why = declared.limit_ranger_refuses(after, false);
        if let Some(why) =
            why.filter(|why| declared.limit_ranger_refuses(before, false).as_ref() != Some(why))
        {
            refuse(after, "LimitRanger", why);
        }
    }
}

/// The pod spec of any kind that carries one, a PodTemplate's too
/// ([`crate::tree::pod_place`]; the workload impacts read only the
/// kinds whose pods run).
fn any_pod_spec(object: &Manifest) -> Option<&Node> {
    let path = crate::tree::pod_place(&object.id.group, &object.id.kind)?.template;
    object.node().lookup(path)?.get("spec")
}

/// The first list of a built-in object that holds a key twice, which
/// server-side apply refuses ("duplicate entries for key") although
/// validation may take it ([`crate::diff::go_types::twice_keyed`]: every
/// list its Go types key, such as a container's `env` by name, `ports` by
/// port and protocol (`TCP` unset), `metadata.finalizers`, owner
/// references by uid, a ServiceAccount's `secrets` by name). A custom
/// resource's lists are its CRD's, not judged here.
fn twice_keyed(object: &Manifest) -> Option<String> {
    let id = &object.id;
    let root = crate::diff::go_types::root(&id.group, &id.version, &id.kind)?;
    crate::diff::go_types::twice_keyed(object.node(), root)
}

/// From this many objects on, [`judge`] splits its work over two cores.
const SPLIT: usize = 64;

/// The refusals of `judged` (the objects added, the first `added`, then
/// the new selves of `changed`, each prepared for its update), in order;
/// from [`SPLIT`] objects on, half on this thread and half beside.
fn judge(
    judged: &[&Manifest],
    changed: &[(&Manifest, &Manifest)],
    added: usize,
    schemas: &KubeSchemas,
    crds: &[Json],
) -> Vec<crate::api::refused::Refusal> {
    let part = |from: usize, to: usize| {
        let mut objects: Vec<Json> = judged[from..to].iter().map(|m| m.json()).collect();
        for (index, object) in (from..).zip(&mut objects) {
            let Some(&(old, _)) = index.checked_sub(added).map(|i| &changed[i]) else {
                continue;
            };
            if is_service(object) || is_secret(object) || is_ingress(object) {
                prepare_update(&old.json(), object);
            }
            defaulted_empty_dirs(old, object);
        }
        let objects: Vec<&Json> = objects.iter().collect();
        let mut found = crate::api::refused::refused(&objects, schemas, crds);
        for refusal in &mut found {
            refusal.index += from;
        }
        found
    };
    if judged.len() < SPLIT {
        return part(0, judged.len());
    }
    let middle = judged.len() / 2;
    let (mut first, second) = crate::beside(|| part(0, middle), || part(middle, judged.len()));
    first.extend(second);
    first
}

/// The CRDs of `new` that define the kind of one of `judged`: only those
/// are compiled.
fn crds_of(judged: &[&Manifest], new: &[Manifest]) -> Vec<Json> {
    let kinds: BTreeSet<(&str, &str)> = (judged.iter())
        .map(|m| (m.id.group.as_str(), m.id.kind.as_str()))
        .collect();
    (new.iter())
        .filter(|m| m.id.is_crd())
        .map(Manifest::json)
        .filter(|crd| {
            let (group, kind) = (&crd["spec"]["group"], &crd["spec"]["names"]["kind"]);
            kinds.contains(&(
                group.as_str().unwrap_or_default(),
                kind.as_str().unwrap_or_default(),
            ))
        })
        .collect()
}

/// Whether the refusal is only that no schema has the object's kind, of a
/// group Kubernetes itself serves no kind of (`autoscaling.k8s.io`,
/// `gateway.networking.k8s.io`): a CRD the cluster holds may define it.
/// A kind a Kubernetes group does not serve (`apps/v1 Job`) is refused.
fn may_be_custom(refusal: &crate::api::refused::Refusal, schemas: &KubeSchemas) -> bool {
    let Some(unknown) = &refusal.unknown else {
        return false;
    };
    let group = crate::manifest::api_group(&unknown.api_version);
    unknown.served.is_none()
        || !schemas
            .kinds()
            .any(|(api_version, _)| crate::manifest::api_group(api_version) == group)
}

/// A Secret's `data` keys that only the old manifest's `stringData` wrote,
/// and the new one writes nowhere: the server keeps them (nothing of
/// `stringData` is stored for server-side apply to remove), so the new
/// object holds them too (an empty value stands in for theirs).
fn kept_string_data(old: &Json, new: &mut Json) {
    let kept = crate::diff::defaults::string_data_kept(old, new);
    if kept.is_empty() {
        return;
    }
    let Some(object) = new.as_object_mut() else {
        return;
    };
    let data = object
        .entry("data")
        .or_insert_with(|| Json::Object(Map::new()));
    if let Some(data) = data.as_object_mut() {
        for key in kept {
            data.insert(key, Json::String(String::new()));
        }
    }
}

/// A pod volume the old manifest wrote without a source has `emptyDir: {}`
/// from the defaults, which no manager owns, so server-side apply keeps it:
/// the new manifest's volume of that name holds it beside any source it
/// now gives (two, which the server refuses; measured).
fn defaulted_empty_dirs(old: &Manifest, new: &mut Json) {
    let sourceless = sourceless_volumes(old, |_| true);
    if sourceless.is_empty() {
        return;
    }
    let group = crate::manifest::api_group(new["apiVersion"].as_str().unwrap_or_default());
    let kind = new["kind"].as_str().unwrap_or_default();
    let Some(path) = crate::tree::pod_place(group, kind).map(|place| place.template) else {
        return;
    };
    let spec =
        (path.iter().chain(&["spec", "volumes"])).try_fold(&mut *new, |at, key| at.get_mut(*key));
    let Some(volumes) = spec.and_then(Json::as_array_mut) else {
        return;
    };
    for volume in volumes.iter_mut().filter_map(Json::as_object_mut) {
        let named = volume.get("name").and_then(Json::as_str);
        if named.is_some_and(|name| sourceless.contains(name))
            && !volume.contains_key("emptyDir")
            && volume.iter().any(|(k, v)| k != "name" && !v.is_null())
        {
            volume.insert("emptyDir".to_owned(), Json::Object(Map::new()));
        }
    }
}

/// The names of the pod volumes of `object` written without a source, of
/// those that `keep` keeps.
fn sourceless_volumes(object: &Manifest, keep: impl Fn(&str) -> bool) -> BTreeSet<&str> {
    let volumes = any_pod_spec(object).and_then(|spec| spec.get("volumes"));
    (volumes.and_then(Tree::items).unwrap_or_default().iter())
        .filter(|volume| {
            (volume.fields()).is_some_and(|mut f| f.all(|(k, v)| k == "name" || v.json().is_null()))
        })
        .filter_map(|volume| volume.get("name")?.text())
        .filter(|name| keep(name))
        .collect()
}

/// What a refusal of `new` over `old` owes to [`defaulted_empty_dirs`]:
/// the volumes that keep their `emptyDir: {}` beside a new source.
fn empty_dirs_kept(old: &Manifest, new: &Manifest) -> Option<String> {
    let volumes = any_pod_spec(new).and_then(|spec| spec.get("volumes"));
    let sourced: BTreeSet<&str> = (volumes.and_then(Tree::items).unwrap_or_default().iter())
        .filter(|volume| volume.get("emptyDir").is_none())
        .filter(|volume| {
            (volume.fields())
                .is_some_and(|mut f| f.any(|(k, v)| k != "name" && !v.json().is_null()))
        })
        .filter_map(|volume| volume.get("name")?.text())
        .collect();
    let kept = sourceless_volumes(old, |name| sourced.contains(name));
    (!kept.is_empty()).then(|| {
        let names: Vec<String> = kept.iter().map(|n| format!("`{n}`")).collect();
        format!(
            " (the `emptyDir: {{}}` the server gave {} when written without a source stays: server-side apply removes only what a manifest wrote)",
            names.join(", ")
        )
    })
}

/// Whether `object` is an Ingress.
fn is_ingress(object: &Json) -> bool {
    object["kind"] == "Ingress" && object["apiVersion"] == "networking.k8s.io/v1"
}

/// Whether `object` is a core Secret.
fn is_secret(object: &Json) -> bool {
    object["kind"] == "Secret" && object["apiVersion"] == "v1"
}

/// Whether `object` is a core Service.
fn is_service(object: &Json) -> bool {
    object["kind"] == "Service" && object["apiVersion"] == "v1"
}

/// `new` as the API server prepares it for its update over `old`: a
/// Service's fields of its old type dropped (the module's notes).
fn prepare_update(old: &Json, new: &mut Json) {
    if is_secret(old) && is_secret(new) {
        kept_string_data(old, new);
        return;
    }
    if is_ingress(old) && is_ingress(new) {
        // Only a create holds the class annotation to `ingressClassName`
        // (`ValidateIngressCreate`; `ValidateIngressUpdate` does not).
        let annotations = new
            .pointer_mut("/metadata/annotations")
            .and_then(Json::as_object_mut);
        annotations.map(|a| a.shift_remove("kubernetes.io/ingress.class"));
        return;
    }
    if !(is_service(old) && is_service(new)) {
        return;
    }
    let (Some(before), Some(after)) = (old["spec"].as_object(), new["spec"].as_object_mut()) else {
        return;
    };
    drop_type_dependent_fields(before, after);
    patch_allocated_values(before, after);
}

/// Kubernetes' `patchAllocatedValues` over the specs of a Service's old and
/// new manifests: where both types have cluster IPs and the new manifest
/// leaves them out (or empty), the old ones stay, `None` of a headless
/// Service too (which a NodePort or LoadBalancer one may not have).
fn patch_allocated_values(old: &Map<String, Json>, new: &mut Map<String, Json>) {
    let needs_cluster_ip = |spec: &Map<String, Json>| service_type(spec) != "ExternalName";
    if !(needs_cluster_ip(old) && needs_cluster_ip(new)) {
        return;
    }
    let empty = |value: Option<&Json>| match value {
        None | Some(Json::Null) => true,
        Some(Json::String(text)) => text.is_empty(),
        Some(Json::Array(items)) => items.is_empty(),
        Some(_) => false,
    };
    for field in ["clusterIP", "clusterIPs"] {
        if empty(new.get(field))
            && let Some(kept) = old.get(field).filter(|v| !empty(Some(v)))
        {
            new.insert(field.to_owned(), kept.clone());
        }
    }
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

    /// The whys of the class's impacts from `old` to `new`.
    fn refusals(old: &str, new: &str) -> Vec<String> {
        super::super::whys(old, new, Class::Invalid)
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

    /// A kind no schema has is judged by its group: one of Kubernetes'
    /// own groups that does not serve it is refused, any other group may
    /// be a CRD's, `*.k8s.io` ones included.
    #[test]
    fn an_unknown_kind_is_refused_only_in_a_group_kubernetes_serves() {
        let object = |api_version: &str, kind: &str| {
            format!(
                "apiVersion: {api_version}\nkind: {kind}\nmetadata: {{name: x, namespace: a}}\nspec: {{}}\n"
            )
        };
        for custom in [
            object("autoscaling.k8s.io/v1", "VerticalPodAutoscaler"),
            object("gateway.networking.k8s.io/v1", "HTTPRoute"),
            object("example.com/v1", "Widget"),
        ] {
            assert_eq!(refusals("", &custom), Vec::<String>::new(), "{custom}");
        }
        let found = refusals("", &object("apps/v1", "Job"));
        assert!(found[0].contains("no apps/v1 Job is served"), "{found:?}");
    }

    /// A key twice in a keyed list of any pod spec, a PodTemplate's and a
    /// CronJob's too; two protocols of one port are two keys.
    #[test]
    fn a_keyed_list_holding_a_key_twice_is_refused_in_every_pod_spec() {
        let env = "{containers: [{name: c, image: 'nginx:1.27', env: [{name: A}, {name: A}]}]}";
        let template = format!(
            "apiVersion: v1\nkind: PodTemplate\nmetadata: {{name: t, namespace: a}}\ntemplate: {{spec: {env}}}\n"
        );
        let found = refusals("", &template);
        assert!(
            found[0].ends_with(
                "template.spec.containers[0].env: duplicate entries for key [name=\"A\"]"
            ),
            "{found:?}"
        );
        let cron = "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: j, namespace: a}\nspec: {schedule: '0 * * * *', jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: 'busybox:1.36', ports: [{containerPort: 80}, {containerPort: 80, protocol: TCP}]}]}}}}}\n".to_owned();
        let found = refusals("", &cron);
        assert!(
            found[0]
                .contains("ports: duplicate entries for key [containerPort=80,protocol=\"TCP\"]"),
            "{found:?}"
        );
        let udp = cron.replace("protocol: TCP", "protocol: UDP");
        assert_eq!(refusals("", &udp), Vec::<String>::new());
    }

    /// A volume written without a source keeps the `emptyDir` the
    /// defaults gave it: a source given later is its second, in any kind
    /// with a pod; the note names the volume. A source given where the
    /// old one wrote a source, or a second sourceless volume, is no such
    /// case.
    #[test]
    fn a_volume_written_without_a_source_keeps_its_empty_dir() {
        let sts = |volumes: &str| {
            format!(
                "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: s, namespace: a}}\nspec: {{serviceName: s, selector: {{matchLabels: {{app: a}}}}, template: {{metadata: {{labels: {{app: a}}}}, spec: {{containers: [{{name: c, image: 'nginx:1.27'}}], volumes: {volumes}}}}}}}\n"
            )
        };
        let found = refusals(
            &sts("[{name: v}, {name: w}]"),
            &sts("[{name: v, secret: {secretName: x}}, {name: w}]"),
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("2: emptyDir, secret"), "{found:?}");
        assert!(
            found[0].contains("the server gave `v` when written without a source"),
            "{found:?}"
        );
        for (old, new) in [
            (
                "[{name: v, configMap: {name: x}}]",
                "[{name: v, secret: {secretName: x}}]",
            ),
            ("[{name: v}]", "[{name: v, emptyDir: {sizeLimit: 1Gi}}]"),
            ("[{name: v}]", "[{name: w, secret: {secretName: x}}]"),
        ] {
            assert_eq!(
                refusals(&sts(old), &sts(new)),
                Vec::<String>::new(),
                "{old} -> {new}"
            );
        }
    }
}
