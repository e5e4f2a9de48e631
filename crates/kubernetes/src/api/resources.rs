//! What the API server refuses in resource requirements
//! (`pkg/apis/core/validation`): a container's (`validateResourceRequirements`
//! with `validateContainerResourceName`) and a claim's
//! (`ValidatePersistentVolumeClaimSpec`, which reads its storage request
//! alone), and the resource names both they and a LimitRange's items
//! (`limit_range`) are held to.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value as Json;

use super::plain;
use crate::json::{Field, Found, each};
use crate::location::KeyPath;
use crate::names;
use crate::quantity::{Quantity, of_value};

/// A container's `resources`, at `at`, in a pod whose `resourceClaims`
/// are named `pod_claims`: resource names a container may hold;
/// non-negative quantities; extended resources in whole units (in
/// thousandths, rounded up, as the server tests them); huge pages in whole
/// pages of a page size that is a positive whole number of bytes, and only
/// beside a CPU or memory request or limit; no request above its limit
/// (compared exactly: `1Gi` is more than `1G`), and a request of a
/// resource that is not overcommitted (extended resources, huge pages)
/// only at its limit; claims that name each of the pod's claims once.
pub(super) fn container(
    resources: &Json,
    pod_claims: &BTreeSet<&str>,
    at: &KeyPath,
    found: &mut Found,
) {
    requirements(resources, container_resource_name, at, found);
    claims(
        resources.field("claims"),
        pod_claims,
        &at.clone().key("claims"),
        found,
    );
}

/// Requests and limits (`validateResourceRequirements`), their names
/// held to `named`: the rules of [`container`] but its claims.
pub(super) fn requirements(
    resources: &Json,
    named: fn(&str) -> Result<(), String>,
    at: &KeyPath,
    found: &mut Found,
) {
    let mut amounts = [BTreeMap::new(), BTreeMap::new()];
    let mut huge_pages = false;
    let mut cpu_or_memory = false;
    for (side, field) in ["requests", "limits"].into_iter().enumerate() {
        for (resource, amount) in resources.field(field).as_object().into_iter().flatten() {
            let path = || at.clone().key(field).key(resource.clone());
            if let Err(why) = named(resource) {
                found.push((path(), why));
            }
            huge_pages |= resource.starts_with("hugepages-");
            cpu_or_memory |= matches!(resource.as_str(), "cpu" | "memory");
            let value = match of_value(amount) {
                None => continue,
                Some(Err(why)) => {
                    found.push((path(), why));
                    continue;
                }
                Some(Ok(value)) => value,
            };
            if value.is_negative() {
                found.push((
                    path(),
                    format!(
                        "{} is not a quantity a resource may hold: it must be non-negative",
                        plain(amount)
                    ),
                ));
                continue;
            }
            // In thousandths as Go's int64 holds them (past 2^63-1 they
            // wrap, or are 0, as the server's reading of the text decides).
            if extended(resource)
                && crate::quantity::go_scaled_value_of(amount, -3).is_some_and(|m| m % 1000 != 0)
            {
                found.push((
                    path(),
                    format!("{} of {resource} is not a whole number; an extended resource is counted in units", plain(amount)),
                ));
                continue;
            }
            if let Some(why) = resource
                .strip_prefix("hugepages-")
                .and_then(|size| pages(amount, size))
            {
                found.push((path(), format!("{} of {resource} {why}", plain(amount))));
                continue;
            }
            amounts[side].insert(resource.as_str(), (value, amount));
        }
    }
    let [requests, limits] = &amounts;
    for (resource, (request, shown)) in requests {
        let path = || at.clone().key("requests").key((*resource).to_owned());
        match limits.get(resource) {
            Some((limit, _)) if !overcommitted(resource) && limit != request => found.push((
                path(),
                format!("requests {} of {resource} without the same limit; a request of a resource that is not overcommitted (extended resources, huge pages) equals its limit", plain(shown)),
            )),
            Some((limit, limit_shown)) if request > limit => found.push((
                path(),
                format!(
                    "requests {} of {resource}, more than its limit {}; a request is at most its limit",
                    plain(shown),
                    plain(limit_shown)
                ),
            )),
            None if !overcommitted(resource) => found.push((
                path(),
                format!("requests {} of {resource} without the same limit; a request of a resource that is not overcommitted (extended resources, huge pages) equals its limit", plain(shown)),
            )),
            _ => {}
        }
    }
    if huge_pages && !cpu_or_memory {
        found.push((
            at.clone(),
            "huge pages are requested beside a CPU or memory request or limit; the API server refuses them alone".to_owned(),
        ));
    }
}

/// A pod's own `resources` (`validatePodResources`; PodLevelResources is
/// on by default since Kubernetes 1.34), at `at`: none in a Windows pod;
/// no claims; names a pod's own resources hold (cpu, memory,
/// hugepages-<size>) and the rules of a container's requests and limits;
/// requests at least the containers' together, huge page limits at least
/// theirs, and each container's limit at most the pod's. A Pod (`object`)
/// is judged as the server defaults it first: a container's missing
/// request is its limit, the pod's missing huge page limit the
/// containers' together (when it sets any resource), and, when it sets a
/// limit, its missing CPU and memory requests the containers' together,
/// then any other missing request its limit. A template is judged as
/// written.
pub(super) fn pod<'a>(pod: &'a Json, object: bool, pod_at: &KeyPath, found: &mut Found) {
    let resources = pod.field("resources");
    if !resources.is_object() {
        return;
    }
    let at = pod_at.clone().key("resources");
    if pod.field("os").field("name") == "windows" {
        found.push((at, "a Windows pod has no pod-level resources".to_owned()));
        return;
    }
    if !resources.field("claims").is_null() {
        found.push((
            at.clone().key("claims"),
            "a pod's own resources hold no claims; its containers' do".to_owned(),
        ));
    }
    let requests_of = |container: &'a Json| {
        let mut requests = amounts(container.field("resources").field("requests"));
        if object {
            for (resource, limit) in amounts(container.field("resources").field("limits")) {
                requests.entry(resource).or_insert(limit);
            }
        }
        requests
    };
    let limits_of = |container: &'a Json| amounts(container.field("resources").field("limits"));
    let (containers_request, containers_limit) =
        (together(pod, requests_of), together(pod, limits_of));
    // The pod's own, as the server defaults a Pod's.
    let mut judged = resources.clone();
    if object {
        let written = |field: &str| {
            resources
                .field(field)
                .as_object()
                .is_some_and(|m| !m.is_empty())
        };
        // What the server gives, where nothing is written.
        fn give(judged: &mut Json, field: &str, resource: &str, amount: Quantity) {
            if judged.field(field).field(resource).is_null() {
                if !judged[field].is_object() {
                    judged[field] = Json::Object(serde_json::Map::new());
                }
                judged[field][resource] = Json::String(amount.to_string());
            }
        }
        if written("limits") || written("requests") {
            for (resource, amount) in &containers_limit {
                if resource.starts_with("hugepages-")
                    && resources.field("requests").field(resource).is_null()
                {
                    give(&mut judged, "limits", resource, *amount);
                }
            }
        }
        let limits: Vec<(String, Quantity)> = (amounts(judged.field("limits")).into_iter())
            .map(|(resource, amount)| (resource.to_owned(), amount))
            .collect();
        if !limits.is_empty() {
            for (resource, amount) in &containers_request {
                if matches!(*resource, "cpu" | "memory") {
                    give(&mut judged, "requests", resource, *amount);
                }
            }
            for (resource, amount) in &limits {
                if pod_resource(resource) {
                    give(&mut judged, "requests", resource, *amount);
                }
            }
        }
    }
    requirements(&judged, pod_resource_name, &at, found);
    let (requests, limits) = (
        amounts(judged.field("requests")),
        amounts(judged.field("limits")),
    );
    for (resource, total) in &containers_request {
        if let Some(request) = requests.get(resource)
            && total > request
        {
            found.push((
                at.clone().key("requests").key((*resource).to_owned()),
                format!("the pod requests {request} of {resource}, less than its containers together ({total}); a pod requests at least what they do"),
            ));
        }
    }
    for (resource, total) in containers_limit
        .iter()
        .filter(|(r, _)| r.starts_with("hugepages-"))
    {
        if let Some(limit) = limits.get(resource)
            && total > limit
        {
            found.push((
                at.clone().key("limits").key((*resource).to_owned()),
                format!("the pod's limit of {resource} {limit} is below its containers' together ({total}); huge pages are not overcommitted"),
            ));
        }
    }
    for (i, container) in each(pod.field("containers")) {
        for (resource, limit) in limits_of(container) {
            if let Some(most) = limits.get(resource)
                && limit > *most
            {
                found.push((
                    pod_at.clone().key("containers").index(i).key("resources").key("limits").key(resource.to_owned()),
                    format!("the container's limit of {resource} {limit} is above the pod's {most}; a container's limit is at most the pod's"),
                ));
            }
        }
    }
}

/// A pod's `resourceClaims` (`validatePodResourceClaims`), at `at`: each
/// named once with a DNS-1123 label, and with exactly one of
/// `resourceClaimName` and `resourceClaimTemplateName`, a DNS subdomain.
pub(super) fn pod_claims(list: &Json, at: &KeyPath, found: &mut Found) {
    let mut named = BTreeSet::new();
    for (i, claim) in each(list) {
        let at = at.clone().index(i);
        let name = claim.field("name").as_str().unwrap_or_default();
        if name.is_empty() {
            found.push((
                at.clone().key("name"),
                "a resource claim has a name".to_owned(),
            ));
        } else if !named.insert(name) {
            found.push((
                at.clone().key("name"),
                format!("a second resource claim named `{name}`; a pod's claims are named once"),
            ));
        } else if let Err(why) = names::dns1123_label(name) {
            found.push((
                at.clone().key("name"),
                format!("`{name}` is not a valid claim name: {why}"),
            ));
        }
        let sources: Vec<&str> = ["resourceClaimName", "resourceClaimTemplateName"]
            .into_iter()
            .filter(|field| !claim.field(field).is_null())
            .collect();
        if sources.len() != 1 {
            found.push((
                at.clone(),
                "a resource claim names exactly one of resourceClaimName and resourceClaimTemplateName".to_owned(),
            ));
        }
        for field in sources {
            if let Some(source) = claim.field(field).as_str()
                && let Err(why) = names::dns1123_subdomain(source)
            {
                found.push((
                    at.clone().key(field),
                    format!("`{source}` is not a valid {field}: {why}"),
                ));
            }
        }
    }
}

/// The amounts of a resource list that are quantities.
fn amounts(list: &Json) -> BTreeMap<&str, Quantity> {
    (list.as_object().into_iter().flatten())
        .filter_map(|(resource, amount)| Some((resource.as_str(), of_value(amount)?.ok()?)))
        .collect()
}

/// What a pod's containers take together of each resource, by `of` of
/// each (`AggregateContainerRequests`, `AggregateContainerLimits`): its
/// containers and sidecars (init containers that restart) together, or
/// more while an init container runs beside the sidecars before it.
fn together<'a>(
    pod: &'a Json,
    of: impl Fn(&'a Json) -> BTreeMap<&'a str, Quantity>,
) -> BTreeMap<&'a str, Quantity> {
    let add = |total: &mut BTreeMap<&'a str, Quantity>, more: &BTreeMap<&'a str, Quantity>| {
        for (resource, amount) in more {
            let sum = total
                .get(resource)
                .map_or(*amount, |t| t.saturating_add(*amount));
            total.insert(resource, sum);
        }
    };
    let mut total = BTreeMap::new();
    for (_, container) in each(pod.field("containers")) {
        add(&mut total, &of(container));
    }
    let (mut sidecars, mut initializing) = (BTreeMap::new(), BTreeMap::new());
    for (_, container) in each(pod.field("initContainers")) {
        let own = of(container);
        let running = if container.field("restartPolicy") == "Always" {
            add(&mut total, &own);
            add(&mut sidecars, &own);
            sidecars.clone()
        } else {
            let mut running = own;
            add(&mut running, &sidecars);
            running
        };
        for (resource, amount) in running {
            let most = initializing.entry(resource).or_insert(amount);
            *most = (*most).max(amount);
        }
    }
    for (resource, amount) in initializing {
        let most = total.entry(resource).or_insert(amount);
        *most = (*most).max(amount);
    }
    total
}

/// A resource a pod's own resources may hold (`validatePodResourceName`).
fn pod_resource_name(name: &str) -> Result<(), String> {
    names::qualified_name(name).map_err(|why| format!("`{name}` is not a resource name: {why}"))?;
    match pod_resource(name) {
        true => Ok(()),
        false => Err(format!(
            "`{name}` is not a resource a pod's own resources hold (cpu, memory, hugepages-<size>)"
        )),
    }
}

/// Whether a pod's own resources may hold `name` (`IsSupportedPodLevelResource`).
fn pod_resource(name: &str) -> bool {
    matches!(name, "cpu" | "memory") || name.starts_with("hugepages-")
}

/// Why `amount` of huge pages of the size `size` (the name's suffix) is
/// refused, if it is: the size a positive whole number of bytes, the
/// amount (in whole bytes, rounded up) a multiple of it, each as Go's
/// int64 holds it (`IsHugePageResourceValueDivisible`: past 2^63-1 an
/// amount wraps or is 0; a size read as 0 so divides nothing).
fn pages(amount: &Json, size: &str) -> Option<String> {
    use crate::quantity::{go_scaled_value, go_scaled_value_of};
    let size = Quantity::parse(size)
        .ok()
        .filter(|q| q.nanos() > 0 && go_scaled_value(size, -3).is_some_and(|m| m % 1000 == 0))
        .and(go_scaled_value(size, 0));
    let Some(size) = size else {
        return Some(
            "has no page size: the name's size is a positive whole number of bytes (hugepages-2Mi)"
                .to_owned(),
        );
    };
    let bytes = go_scaled_value_of(amount, 0)?;
    (size == 0 || bytes.wrapping_rem(size) != 0)
        .then(|| "is not a whole number of its pages".to_owned())
}

/// A container's `claims`: each names one of the pod's `resourceClaims`,
/// once (a claim whole, or each of its requests once, not both), with a
/// request that is a DNS-1123 label.
fn claims(list: &Json, pod_claims: &BTreeSet<&str>, at: &KeyPath, found: &mut Found) {
    let mut named: BTreeSet<(String, Option<String>)> = BTreeSet::new();
    for (i, claim) in each(list) {
        let at = at.clone().index(i);
        let name = claim.field("name").as_str().unwrap_or_default();
        let request = claim.field("request").as_str().filter(|r| !r.is_empty());
        if name.is_empty() {
            found.push((
                at.key("name"),
                "a claim names one of the pod's resourceClaims".to_owned(),
            ));
            continue;
        }
        if let Some(request) = request
            && let Err(why) = names::dns1123_label(request)
        {
            found.push((
                at.clone().key("request"),
                format!("`{request}` is not a valid request name: {why}"),
            ));
        }
        let whole = named.contains(&(name.to_owned(), None));
        let again = match request {
            // A claim whole after any of it.
            None => whole || named.iter().any(|(n, _)| n == name),
            Some(request) => whole || named.contains(&(name.to_owned(), Some(request.to_owned()))),
        };
        if again {
            found.push((
                at.clone().key("name"),
                format!("claim `{name}` is named twice in this container"),
            ));
        }
        named.insert((name.to_owned(), request.map(str::to_owned)));
        if !pod_claims.contains(name) {
            found.push((
                at.key("name"),
                format!("`{name}` is not one of the pod's resourceClaims"),
            ));
        }
    }
}

/// A claim's `resources` (a PersistentVolumeClaim, a claim template):
/// quantities, and a storage request above zero. Nothing else of them is
/// read by the API server (a limit, any other resource, a negative one).
pub(super) fn claim(resources: &Json, at: &KeyPath, found: &mut Found) {
    for field in ["requests", "limits"] {
        for (resource, amount) in resources.field(field).as_object().into_iter().flatten() {
            if let Some(Err(why)) = of_value(amount) {
                found.push((at.clone().key(field).key(resource.clone()), why));
            }
        }
    }
    let storage = resources.field("requests").field("storage");
    match of_value(storage) {
        None if storage.is_null() => found.push((
            at.clone().key("requests"),
            "a claim requests storage".to_owned(),
        )),
        Some(Ok(value)) if value.nanos() <= 0 => found.push((
            at.clone().key("requests").key("storage"),
            format!(
                "a claim requests more than zero storage, not {}",
                plain(storage)
            ),
        )),
        _ => {}
    }
}

/// A resource a container may hold (`validateContainerResourceName`): a
/// qualified name; without a domain `cpu`, `memory`, `ephemeral-storage`
/// or `hugepages-<size>`; with one, Kubernetes' own (`kubernetes.io/`) or
/// an extended resource (`example.com/gpu`).
pub(super) fn container_resource_name(name: &str) -> Result<(), String> {
    names::qualified_name(name).map_err(|why| format!("`{name}` is not a resource name: {why}"))?;
    let holds = match name.contains('/') {
        // Any `hugepages-` name: the size is the amount's to say.
        false => {
            matches!(name, "cpu" | "memory" | "ephemeral-storage") || name.starts_with("hugepages-")
        }
        true => native(name) || extended(name),
    };
    match holds {
        true => Ok(()),
        false => Err(format!(
            "`{name}` is not a container resource (cpu, memory, ephemeral-storage, hugepages-<size>, or a name with a domain such as example.com/gpu)"
        )),
    }
}

/// A resource name (`validateResourceName`): a qualified name, and one of
/// Kubernetes' own unless it has a domain.
pub(super) fn resource_name(name: &str) -> Result<(), String> {
    names::qualified_name(name).map_err(|why| format!("`{name}` is not a resource name: {why}"))?;
    match name.contains('/') || standard(name) {
        true => Ok(()),
        false => Err(format!(
            "`{name}` is not a resource of Kubernetes' own, and has no domain"
        )),
    }
}

/// The objects a quota counts, in whole units (`integerResources`).
pub(super) const OBJECT_COUNTS: [&str; 9] = [
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
];

/// A resource of Kubernetes' own without a domain (`standardResources`,
/// and huge pages).
fn standard(name: &str) -> bool {
    name.starts_with("hugepages-")
        || name.starts_with("requests.hugepages-")
        || OBJECT_COUNTS.contains(&name)
        || matches!(
            name,
            "cpu"
                | "memory"
                | "ephemeral-storage"
                | "requests.cpu"
                | "requests.memory"
                | "requests.ephemeral-storage"
                | "limits.cpu"
                | "limits.memory"
                | "limits.ephemeral-storage"
                | "storage"
                | "requests.storage"
        )
}

/// A resource in Kubernetes' own namespace: no domain, or
/// `kubernetes.io/`.
pub(super) fn native(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// An extended resource: a domain of its own, not a quota name
/// (`requests.`), and still a qualified name as a quota's `requests.<name>`.
pub(super) fn extended(name: &str) -> bool {
    !native(name)
        && !name.starts_with("requests.")
        && names::qualified_name(&format!("requests.{name}")).is_ok()
}

/// Whether a container may request less of `name` than its limit:
/// Kubernetes' own resources but huge pages.
pub(super) fn overcommitted(name: &str) -> bool {
    native(name) && !name.starts_with("hugepages-")
}
