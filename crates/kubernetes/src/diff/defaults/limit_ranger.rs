//! The `LimitRanger` admission (`plugin/pkg/admission/limitranger`): a
//! LimitRange as the server stores it, the defaults the admission writes
//! into a pod's containers on create, and what it refuses of a pod on
//! create and of a claim on create or update.

use std::collections::BTreeMap;

use serde_json::{Value as Json, json};

use crate::quantity::{LimitRangePrecision, Quantity};

/// The annotation the `LimitRanger` admission leaves on a pod it wrote
/// defaults into.
pub(super) const LIMIT_RANGER: &str = "kubernetes.io/limit-ranger";

/// A LimitRange as the API server stores it (`SetDefaults_LimitRangeItem`):
/// a `Container` item's `default` filled in from its `max`, then its
/// `defaultRequest` from its `default`, then from its `min`, resource by
/// resource where the field does not name it.
pub(super) fn limit_range_as_stored(object: &mut Json) {
    let Some(items) = object
        .pointer_mut("/spec/limits")
        .and_then(Json::as_array_mut)
    else {
        return;
    };
    for item in items.iter_mut().filter_map(Json::as_object_mut) {
        if item.get("type").and_then(Json::as_str) != Some("Container") {
            continue;
        }
        for (from, to) in [
            ("max", "default"),
            ("default", "defaultRequest"),
            ("min", "defaultRequest"),
        ] {
            let amounts = item
                .get(from)
                .and_then(Json::as_object)
                .cloned()
                .unwrap_or_default();
            if amounts.is_empty() {
                continue;
            }
            let target = item.entry(to).or_insert_with(|| json!({}));
            if target.is_null() {
                *target = json!({});
            }
            if let Some(target) = target.as_object_mut() {
                for (resource, amount) in amounts {
                    target.entry(resource).or_insert(amount);
                }
            }
        }
    }
}

/// What the `LimitRanger` admission writes into a pod's containers on
/// create from one LimitRange of its namespace (`range`, as stored): each
/// `Container` item's `default` as a missing limit and `defaultRequest`
/// as a missing request, and in `set` what it set, for the annotation it
/// leaves (`kubernetes.io/limit-ranger`; measured on v1.35.4).
pub(super) fn limit_ranger_admitted(
    spec: &mut serde_json::Map<String, Json>,
    range: &Json,
    set: &mut Vec<String>,
) {
    let (mut limits, mut requests) = (serde_json::Map::new(), serde_json::Map::new());
    let items = range["spec"]["limits"].as_array().into_iter().flatten();
    for item in items.filter(|item| item["type"] == "Container") {
        for (into, from) in [(&mut limits, "default"), (&mut requests, "defaultRequest")] {
            for (resource, amount) in item[from].as_object().into_iter().flatten() {
                into.insert(resource.clone(), amount.clone());
            }
        }
    }
    let mut this = Vec::new();
    for (list, what) in [
        ("containers", "container"),
        ("initContainers", "init container"),
    ] {
        let containers = spec.get_mut(list).and_then(Json::as_array_mut);
        for container in containers
            .into_iter()
            .flatten()
            .filter_map(Json::as_object_mut)
        {
            let name = container
                .get("name")
                .and_then(Json::as_str)
                .unwrap_or_default()
                .to_owned();
            let had = container.get("resources").is_some_and(|r| !r.is_null());
            let resources = container.entry("resources").or_insert_with(|| json!({}));
            if resources.is_null() {
                *resources = json!({});
            }
            let Some(resources) = resources.as_object_mut() else {
                continue;
            };
            let mut filled = |key: &str, defaults: &serde_json::Map<String, Json>| {
                let own = resources.get(key).and_then(Json::as_object);
                let mut names: Vec<String> = (defaults.keys())
                    .filter(|resource| own.is_none_or(|own| !own.contains_key(*resource)))
                    .cloned()
                    .collect();
                names.sort();
                if !names.is_empty() {
                    let own = resources.entry(key).or_insert_with(|| json!({}));
                    if !own.is_object() {
                        *own = json!({});
                    }
                    if let Some(own) = own.as_object_mut() {
                        for resource in &names {
                            own.insert(resource.clone(), defaults[resource].clone());
                        }
                    }
                }
                names
            };
            let (set_requests, set_limits) =
                (filled("requests", &requests), filled("limits", &limits));
            for (names, kind) in [(set_requests, "request"), (set_limits, "limit")] {
                if !names.is_empty() {
                    this.push(format!("{} {kind} for {what} {name}", names.join(", ")));
                }
            }
            if !had && container.get("resources") == Some(&json!({})) {
                container.remove("resources");
            }
        }
    }
    if !this.is_empty() {
        *set = this;
    }
}

/// What one LimitRange of its namespace (`range`, as stored) refuses of a
/// pod's spec as admitted (its defaults and the admissions' written in:
/// `PodValidateLimitFunc`) or of a claim's spec
/// (`PersistentVolumeClaimValidateLimitFunc`), `kind` `Pod` or
/// `PersistentVolumeClaim`, each reason as the server words it. A
/// `Container` item holds each container and init container to its `min`,
/// `max` and `maxLimitRequestRatio`; a `Pod` item holds the pod's total:
/// the containers' and sidecars' sum, or the largest init container's
/// beside the sidecars before it, whichever is more, where the pod's own
/// `resources` give CPU or memory that; a `PersistentVolumeClaim` item
/// holds a claim's requests to its `min` and `max`. Amounts compare as
/// [`LimitRangePrecision`] says. Resources in name order (the server's map
/// order is random), items in the range's order.
pub(super) fn refusals(kind: &str, spec: &Json, range: &Json) -> Vec<String> {
    let mut found = Vec::new();
    let items = range["spec"]["limits"].as_array().into_iter().flatten();
    for item in items {
        let bounds = |name: &str| amounts(&item[name]);
        let (min, max, ratio) = (bounds("min"), bounds("max"), bounds("maxLimitRequestRatio"));
        let hold = |found: &mut Vec<String>, of: &str, requests: &Amounts, limits: &Amounts| {
            if found.len() >= REASONS_AT_MOST {
                return;
            }
            for (resource, bound) in &min {
                found.extend(below_min(of, resource, bound, requests, limits));
            }
            for (resource, bound) in &max {
                found.extend(above_max(of, resource, bound, requests, Some(limits)));
            }
            for (resource, bound) in &ratio {
                found.extend(above_ratio(of, resource, bound, requests, limits));
            }
        };
        match (kind, item["type"].as_str()) {
            ("Pod", Some("Container")) => {
                let containers = ["containers", "initContainers"]
                    .into_iter()
                    .flat_map(|list| spec[list].as_array().into_iter().flatten());
                for container in containers {
                    if found.len() >= REASONS_AT_MOST {
                        break;
                    }
                    let resources = &container["resources"];
                    let (requests, limits) = (
                        amounts(&resources["requests"]),
                        amounts(&resources["limits"]),
                    );
                    hold(&mut found, "Container", &requests, &limits);
                }
            }
            ("Pod", Some("Pod")) => {
                let named = |resource: &str| {
                    min.contains_key(resource)
                        || max.contains_key(resource)
                        || ratio.contains_key(resource)
                };
                let (requests, limits) = (
                    pod_totals(spec, "requests", &named),
                    pod_totals(spec, "limits", &named),
                );
                hold(&mut found, "Pod", &requests, &limits);
            }
            ("PersistentVolumeClaim", Some("PersistentVolumeClaim")) => {
                let requests = amounts(&spec["resources"]["requests"]);
                let of = "PersistentVolumeClaim";
                for (resource, bound) in &min {
                    found.extend(below_min(of, resource, bound, &requests, &Amounts::new()));
                }
                for (resource, bound) in &max {
                    found.extend(above_max(of, resource, bound, &requests, None));
                }
            }
            _ => {}
        }
    }
    found.truncate(REASONS_AT_MOST);
    found
}

/// Reasons [`refusals`] gives at most: a pod is refused by the first, and
/// a pod of many containers under a range of many resources would have
/// one for each pair.
pub(super) const REASONS_AT_MOST: usize = 10;

/// Defaults, one resource of one container, that the model writes into a
/// pod at most ([`bounded`]).
const DEFAULTS_AT_MOST: usize = 100_000;

/// Whether the defaults the ranges of a namespace would write into a pod's
/// containers (each container's and init container's missing limit and
/// request of each resource the `Container` items give) are more than
/// [`DEFAULTS_AT_MOST`]: no manifest needs that many, and writing them
/// would cost the containers times the resources. Such a pod is compared
/// as written, and its admission is not judged.
pub(super) fn bounded(spec: &serde_json::Map<String, Json>, ranges: &[Json]) -> bool {
    let containers: usize = ["containers", "initContainers"]
        .iter()
        .map(|list| spec.get(*list).and_then(Json::as_array).map_or(0, Vec::len))
        .sum();
    let resources: usize = (ranges.iter())
        .flat_map(|range| range["spec"]["limits"].as_array().into_iter().flatten())
        .filter(|item| item["type"] == "Container")
        .map(|item| {
            ["default", "defaultRequest"]
                .iter()
                .map(|field| item[*field].as_object().map_or(0, serde_json::Map::len))
                .sum::<usize>()
        })
        .sum();
    containers.saturating_mul(resources) > DEFAULTS_AT_MOST
}

/// The amounts of a resource list, by name: each as read and as the server
/// writes it back (`Quantity.String()`); an amount that is no quantity
/// left out (validation refuses it first).
type Amounts = BTreeMap<String, (Quantity, String)>;

/// The amounts of the resource list `list`.
fn amounts(list: &Json) -> Amounts {
    let entries = list.as_object().into_iter().flatten();
    entries
        .filter_map(|(name, value)| Some((name.clone(), amount(value)?)))
        .collect()
}

/// One amount as read and as the server writes it.
fn amount(value: &Json) -> Option<(Quantity, String)> {
    let quantity = crate::quantity::of_value(value)?.ok()?;
    let text = match value {
        Json::String(text) => crate::quantity::decoded(text).to_owned(),
        other => other.to_string(),
    };
    let written = crate::quantity::as_the_server_writes(&text).unwrap_or(text);
    Some((quantity, written))
}

/// A pod's totals in `field` (`podRequests`, `podLimits`) of the
/// resources `named`: the pod's own amount of CPU or memory where its
/// `resources` give one, else the containers' effective amount
/// ([`super::effective`], one pass however many resources).
fn pod_totals(spec: &Json, field: &str, named: &dyn Fn(&str) -> bool) -> Amounts {
    let list = |key: &str| spec[key].as_array().map_or(&[][..], Vec::as_slice);
    let effective = super::effective(list("containers"), list("initContainers"), field, named);
    let mut totals: Amounts = (effective.into_iter())
        .filter_map(|(resource, total)| Some((resource, (Quantity::parse(&total).ok()?, total))))
        .collect();
    for resource in ["cpu", "memory"].into_iter().filter(|r| named(r)) {
        let own = &spec["resources"][field][resource];
        if !own.is_null() {
            match amount(own) {
                Some(amount) => totals.insert(resource.to_owned(), amount),
                None => totals.remove(resource),
            };
        }
    }
    totals
}

/// `minConstraint`: no request, or a request or limit below `min`.
fn below_min(
    of: &str,
    resource: &str,
    (min, written): &(Quantity, String),
    requests: &Amounts,
    limits: &Amounts,
) -> Option<String> {
    let (request, limit) = (requests.get(resource), limits.get(resource));
    let said = format!("minimum {resource} usage per {of} is {written}");
    let Some((asked, asked_text)) = request else {
        return Some(format!("{said}.  No request is specified"));
    };
    let at = LimitRangePrecision::of(Some(*asked), limit.map(|l| l.0), *min);
    if at.request < at.bound {
        return Some(format!("{said}, but request is {asked_text}"));
    }
    match limit {
        Some((_, capped)) if at.limit < at.bound => Some(format!("{said}, but limit is {capped}")),
        _ => None,
    }
}

/// `maxConstraint`: no limit, or a limit or request above `max`; of a
/// claim (`limits` none: `maxRequestConstraint`), no request or a request
/// above it.
fn above_max(
    of: &str,
    resource: &str,
    (max, written): &(Quantity, String),
    requests: &Amounts,
    limits: Option<&Amounts>,
) -> Option<String> {
    let request = requests.get(resource);
    let said = format!("maximum {resource} usage per {of} is {written}");
    let Some(limits) = limits else {
        let Some((asked, asked_text)) = request else {
            return Some(format!("{said}.  No request is specified"));
        };
        let at = LimitRangePrecision::of(Some(*asked), None, *max);
        return (at.request > at.bound).then(|| format!("{said}, but request is {asked_text}"));
    };
    let Some((capped, capped_text)) = limits.get(resource) else {
        return Some(format!("{said}.  No limit is specified"));
    };
    let at = LimitRangePrecision::of(request.map(|r| r.0), Some(*capped), *max);
    if at.limit > at.bound {
        return Some(format!("{said}, but limit is {capped_text}"));
    }
    match request {
        Some((_, asked)) if at.request > at.bound => {
            Some(format!("{said}, but request is {asked}"))
        }
        _ => None,
    }
}

/// `limitRequestRatioConstraint`: no request or limit, either 0, or a
/// limit more than `maxLimitRequestRatio` times the request.
fn above_ratio(
    of: &str,
    resource: &str,
    (ratio, written): &(Quantity, String),
    requests: &Amounts,
    limits: &Amounts,
) -> Option<String> {
    let (request, limit) = (requests.get(resource), limits.get(resource));
    let at = LimitRangePrecision::of(request.map(|r| r.0), limit.map(|l| l.0), *ratio);
    let said = format!("{resource} max limit to request ratio per {of} is {written}");
    if request.is_none() || at.request == 0 {
        return Some(format!(
            "{said}, but no request is specified or request is 0"
        ));
    }
    if limit.is_none() || at.limit == 0 {
        return Some(format!("{said}, but no limit is specified or limit is 0"));
    }
    at.ratio_above(*ratio).then(|| {
        let observed = at.limit as f64 / at.request as f64;
        format!("{said}, but provided ratio is {observed:.6}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(limits: Json) -> Json {
        let mut range = json!({"metadata": {"name": "limits"}, "spec": {"limits": limits}});
        limit_range_as_stored(&mut range);
        range
    }

    /// A `Container` item holds every container and init container, a
    /// `Pod` item the pod's total (sidecars counted as the scheduler
    /// counts them); the reasons read as the server's (measured on
    /// v1.35.4: the diff-server cases `limit-ranger-*`).
    #[test]
    fn a_pod_is_held_to_its_containers_and_its_total() {
        let range = stored(json!([
            {"type": "Container", "max": {"cpu": "1"}, "min": {"cpu": "10m"}},
            {"type": "Pod", "max": {"cpu": "1500m"}},
        ]));
        let container = |name: &str, limit: &str, extra: Json| {
            let mut c = json!({"name": name, "resources": {"limits": {"cpu": limit}, "requests": {"cpu": limit}}});
            for (k, v) in extra.as_object().unwrap() {
                c[k] = v.clone();
            }
            c
        };
        let side = container("side", "700m", json!({"restartPolicy": "Always"}));
        let init = container("init", "900m", json!({}));
        let app = container("app", "700m", json!({}));
        // A regular init container after a sidecar runs beside it: 1600m.
        let after = json!({"containers": [app], "initContainers": [side, init]});
        assert_eq!(
            refusals("Pod", &after, &range),
            ["maximum cpu usage per Pod is 1500m, but limit is 1600m"]
        );
        // Before it, alone: the total is the sidecar and the app, 1400m.
        let before = json!({"containers": [app], "initContainers": [init, side]});
        assert_eq!(refusals("Pod", &before, &range), Vec::<String>::new());
        // The pod's own CPU limit is its total.
        let mut own = before.clone();
        own["resources"] = json!({"limits": {"cpu": "1600m"}});
        assert_eq!(
            refusals("Pod", &own, &range),
            ["maximum cpu usage per Pod is 1500m, but limit is 1600m"]
        );
        let range = stored(json!([
            {"type": "Container", "max": {"cpu": "1"}, "min": {"cpu": "10m"}, "maxLimitRequestRatio": {"memory": "2"}},
            {"type": "Pod", "max": {"cpu": "1500m"}},
        ]));
        let small = json!({"containers": [{"name": "a", "resources": {
            "limits": {"cpu": "1000100u", "memory": "512Mi"},
            "requests": {"cpu": "5m", "memory": "100Mi"}}}]});
        assert_eq!(
            refusals("Pod", &small, &range),
            [
                "minimum cpu usage per Container is 10m, but request is 5m",
                "maximum cpu usage per Container is 1, but limit is 1000100u",
                "memory max limit to request ratio per Container is 2, but provided ratio is 5.120000",
            ]
        );
        let none = json!({"containers": [{"name": "a"}]});
        assert_eq!(
            refusals("Pod", &none, &range),
            [
                "minimum cpu usage per Container is 10m.  No request is specified",
                "maximum cpu usage per Container is 1.  No limit is specified",
                "memory max limit to request ratio per Container is 2, but no request is specified or request is 0",
                "maximum cpu usage per Pod is 1500m.  No limit is specified",
            ]
        );
    }

    /// The cost stays with the input: at most [`REASONS_AT_MOST`] reasons
    /// however many containers break however many bounds, and a pod whose
    /// defaults would be containers × resources past [`DEFAULTS_AT_MOST`]
    /// is bounded (left as written, its admission not judged).
    #[test]
    fn the_reasons_and_the_defaults_are_bounded() {
        let resources: serde_json::Map<String, Json> = (0..30)
            .map(|i| (format!("example.com/r{i}"), json!("1")))
            .collect();
        let range = stored(json!([{"type": "Container", "max": resources}]));
        let containers: Vec<Json> = (0..20).map(|i| json!({"name": format!("c{i}")})).collect();
        let spec = json!({"containers": containers});
        let found = refusals("Pod", &spec, &range);
        assert_eq!(found.len(), REASONS_AT_MOST);
        assert_eq!(
            found[0],
            "maximum example.com/r0 usage per Container is 1.  No limit is specified"
        );
        // `max` gives each container the 30 as defaults (and as requests).
        let spec = spec.as_object().unwrap();
        assert!(!bounded(spec, std::slice::from_ref(&range)));
        let many: Vec<Json> = (0..2_000)
            .map(|i| json!({"name": format!("c{i}")}))
            .collect();
        let many = json!({"containers": many});
        assert!(bounded(
            many.as_object().unwrap(),
            std::slice::from_ref(&range)
        ));
    }

    /// The containers' effective amounts of many resources, found in one
    /// pass, are each what the sum and the init containers give it alone.
    #[test]
    fn effective_amounts_are_each_resource_s_own() {
        let c = |name: &str, limits: Json, sidecar: bool| {
            let mut c = json!({"name": name, "resources": {"limits": limits}});
            if sidecar {
                c["restartPolicy"] = json!("Always");
            }
            c
        };
        let containers = [c("a", json!({"cpu": "700m", "memory": "1Gi"}), false)];
        let init = [
            c("s", json!({"cpu": "700m", "example.com/x": "2"}), true),
            c(
                "i",
                json!({"cpu": "900m", "memory": "512Mi", "example.com/x": "1"}),
                false,
            ),
        ];
        let all = super::super::effective(&containers, &init, "limits", &|_| true);
        assert_eq!(all["cpu"], "1600m", "the init container beside the sidecar");
        assert_eq!(all["memory"], "1Gi");
        assert_eq!(
            all["example.com/x"], "3",
            "the sidecar's 2 and the init's 1"
        );
        let cpu = super::super::effective(&containers, &init, "limits", &|r| r == "cpu");
        assert_eq!(
            cpu.into_iter().collect::<Vec<_>>(),
            [("cpu".to_owned(), "1600m".to_owned())]
        );
    }

    /// A claim's request is held to a `PersistentVolumeClaim` item's `min`
    /// and `max`; its `limits` are not read.
    #[test]
    fn a_claim_is_held_to_its_request() {
        let range = stored(
            json!([{"type": "PersistentVolumeClaim", "max": {"storage": "1Gi"}, "min": {"storage": "100Mi"}}]),
        );
        let claim = |storage: &str| json!({"resources": {"requests": {"storage": storage}, "limits": {"storage": "10Gi"}}});
        assert_eq!(
            refusals("PersistentVolumeClaim", &claim("5Gi"), &range),
            ["maximum storage usage per PersistentVolumeClaim is 1Gi, but request is 5Gi"]
        );
        assert_eq!(
            refusals("PersistentVolumeClaim", &claim("50Mi"), &range),
            ["minimum storage usage per PersistentVolumeClaim is 100Mi, but request is 50Mi"]
        );
        assert!(refusals("PersistentVolumeClaim", &claim("1024Mi"), &range).is_empty());
        // A pod is not held to a claim's item, nor a claim to a pod's.
        assert!(refusals("Pod", &json!({"containers": []}), &range).is_empty());
    }
}
