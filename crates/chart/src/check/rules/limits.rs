//! LIMITS: the LimitRange of a BuildProject's namespace admits its daemon.
//! buildd starts each project's daemon with the project's `resources`; the
//! LimitRange admission gives a container without a limit its `default`
//! (else its `max`), one without a request its limit or, with neither,
//! its `defaultRequest` (else its `default`, `max` or `min`); it refuses
//! a request above the limit so given, a limit above `max`, a request or
//! limit below `min`, a limit more than `maxLimitRequestRatio` times the
//! request, and a missing limit or request that a `max`, `min` or ratio
//! asks for (a `Pod` item gives nothing; its container has the
//! `Container` items' defaults), for every resource alike. A later
//! LimitRange of the namespace fills only what no earlier one gave; each
//! item's bounds hold the values so given, compared at the LimitRanger's
//! precision (thousandths, rounded up: `LimitRangePrecision`).
//! The items of a namespace are reduced once to their strictest bounds,
//! so a project costs its resources, not the items. The render would apply,
//! and every build of the project would fail. The values side is
//! `model::rules` (`limit_range_admits`; the chart's own LimitRange sets
//! no `min` and no ratio).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value as Json;

use super::{DOC, Definition, Inputs};
use crate::check::Findings;
use crate::check::facts::namespace_of;
use crate::check::rules::Invariant;
use kubernetes::diagnostic::Rule;
use kubernetes::json::Field;
use kubernetes::location::KeyPath;
use kubernetes::quantity::{LimitRangePrecision, Quantity};

/// LIMITS: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "LIMITS",
        title: "The LimitRange of a BuildProject's namespace admits its daemon",
        help: "buildd starts each BuildProject's daemon with the project's `spec.resources`. The LimitRange admission of its namespace gives a container without a limit the LimitRange's `default` (else its `max`), and one without a request its limit, or, with neither, the LimitRange's `defaultRequest` (else its `default`, `max` or `min`), and refuses a container whose request is above the limit so given, whose limit is above `max`, whose request or limit is below `min`, or whose limit is more than `maxLimitRequestRatio` times its request; and one with no limit where a `max` or a ratio asks for one, no request where a `min` or a ratio asks for one, or a request or limit of 0 under a ratio (a `Pod` item gives nothing: the `Container` items of the namespace give the pod's one container its defaults), for every resource alike (CPU, memory, ephemeral storage, huge pages, an extended resource): the render would apply and every build of the project would fail. The admission holds amounts to `min`, `max` and the ratio rounded up to a thousandth of a unit (to a whole unit when one is above 9,223,372,036,854,775 units), as LIMITS does: `min: {cpu: 1m}` admits a request of `100u`, and `max: {cpu: 1500u}` a limit of `1800u` (both `2m`); a request above its limit is refused exactly. A later LimitRange of the namespace gives only what no earlier one gave (in the order read; the server takes them in its cache's order); every item's bounds hold the values so given, wherever they came from. Each such request and limit of the operator's BuildProjects is a finding, checked against each `Container` and `Pod` item of a LimitRange in their namespace that the input holds (an object that names no namespace, a LimitRange as a BuildProject, lives in `default`). The chart's own LimitRange sets no default CPU limit and no CPU maximum (docs/values.md, `builds.limitRange`): a daemon that sets no CPU limit is neither capped nor refused; `validate` refuses values whose daemons the LimitRange would refuse.",
        example: "LIMITS BuildProject buildkit-builds/platform-api spec.resources.requests.cpu: requests.cpu 4 is above the limit 2 the LimitRange gives a daemon without limits.cpu (default.cpu); the API server refuses the daemon's pod",
        doc: DOC,
    },
    section: 190,
    rank: 220,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};

/// Checks LIMITS on the operator's BuildProjects.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let context = inputs.context;
    // The `Container` and `Pod` items of each LimitRange, by namespace (one
    // that names none lives in `default`, as a BuildProject that names
    // none does), in the order read: the admission applies each.
    let mut ranges: HashMap<&str, Vec<Vec<&Json>>> = HashMap::new();
    for object in context.objects {
        if object.field("kind") != "LimitRange" || object.field("apiVersion") != "v1" {
            continue;
        }
        let items = (object
            .field("spec")
            .field("limits")
            .as_array()
            .into_iter()
            .flatten())
        .filter(|l| l.field("type") == "Container" || l.field("type") == "Pod");
        (ranges.entry(namespace_of(object)).or_default()).push(items.collect());
    }
    // What each namespace gives and asks, found once: however many items
    // and projects, a project costs its resources, not the items.
    let namespaces: HashMap<&str, Namespace<'_>> = (ranges.iter())
        .map(|(namespace, ranges)| (*namespace, Namespace::of(ranges)))
        .collect();
    if namespaces.is_empty() {
        return;
    }
    // What the last project was refused, in its namespace with its
    // resources: the projects of a values file mostly share both (the
    // daemons' defaults), and the next such project is refused alike; and
    // what each namespace and resources, as written, were refused: the
    // runs of alike projects alternate between a few resources.
    let mut last: Option<(&str, &Json, BTreeMap<KeyPath, String>)> = None;
    let mut judged: HashMap<(&str, String), BTreeMap<KeyPath, String>> = HashMap::new();
    for (index, object) in context.objects.iter().enumerate() {
        if object.field("kind") != "BuildProject" || !context.in_scope(index) {
            continue;
        }
        let namespace = namespace_of(object);
        let resources = object.field("spec").field("resources");
        let known = last.as_ref().is_some_and(|(n, r, _)| {
            *n == namespace && kubernetes::json::same_in_order(r, resources)
        });
        if !known {
            let Some(limits) = namespaces.get(namespace) else {
                continue;
            };
            let refused = (judged.entry((namespace, resources.to_string())))
                .or_insert_with(|| limits.refused(resources));
            last = Some((namespace, resources, refused.clone()));
        }
        let refused = last
            .as_ref()
            .map(|(.., refused)| refused)
            .into_iter()
            .flatten();
        for (path, message) in refused {
            findings.report(Invariant::Limits, index, path, message.clone());
        }
    }
}

/// The bounds a LimitRange item sets, each per resource.
const BOUNDS: [&str; 3] = ["min", "max", "maxLimitRequestRatio"];

/// What the LimitRanges of one namespace give a daemon and hold it to.
struct Namespace<'a> {
    /// The limit and request a container without one is given.
    defaults: Defaults<'a>,
    /// The strictest bounds of its `Container` items, then of its `Pod`
    /// items (for each resource the largest `min`, the smallest `max` and
    /// ratio, each as written), as one item of each type: a daemon one of
    /// the items refuses, one of these refuses.
    strictest: Vec<Json>,
}

impl<'a> Namespace<'a> {
    /// What a daemon with `resources` is refused here: each field once,
    /// whichever bound refuses it first.
    fn refused(&self, resources: &Json) -> BTreeMap<KeyPath, String> {
        let mut refused = BTreeMap::new();
        for bounds in &self.strictest {
            for (path, message) in refusals(resources, bounds, &self.defaults) {
                refused.entry(path).or_insert(message);
            }
        }
        refused
    }

    fn of(ranges: &[Vec<&'a Json>]) -> Self {
        let strictest = ["Container", "Pod"]
            .into_iter()
            .filter_map(|kind| {
                let items: Vec<&Json> = (ranges.iter().flatten().copied())
                    .filter(|item| item.field("type") == kind)
                    .collect();
                (!items.is_empty()).then(|| strictest(kind, &items))
            })
            .collect();
        Namespace {
            defaults: Defaults::of(ranges),
            strictest,
        }
    }
}

/// One item of type `kind` with the strictest bounds of `items`: the
/// first of equal amounts kept, amounts that do not read ignored (as the
/// check of each item ignored them).
fn strictest(kind: &str, items: &[&Json]) -> Json {
    let mut item = serde_json::Map::new();
    item.insert("type".to_owned(), Json::String(kind.to_owned()));
    for bound in BOUNDS {
        let mut kept: BTreeMap<&str, (Quantity, &Json)> = BTreeMap::new();
        for (resource, value) in items.iter().flat_map(|i| entries(i.field(bound))) {
            let Some(q) = amount(value) else {
                continue;
            };
            let stricter = |old: &Quantity| match bound {
                "min" => q > *old,
                _ => q < *old,
            };
            if kept.get(resource).is_none_or(|(old, _)| stricter(old)) {
                kept.insert(resource, (q, value));
            }
        }
        let values = kept
            .into_iter()
            .map(|(r, (_, v))| (r.to_owned(), v.clone()));
        item.insert(bound.to_owned(), Json::Object(values.collect()));
    }
    Json::Object(item)
}

/// The members of a mapping; none of anything else.
fn entries(value: &Json) -> impl Iterator<Item = (&str, &Json)> {
    (value.as_object().into_iter().flatten()).map(|(k, v)| (k.as_str(), v))
}

/// An amount a LimitRange item gives: the field that gave it, the
/// amount, and its value as written.
type Given<'a> = (&'static str, Quantity, &'a Json);

/// What the `Container` items of a namespace give a container, per
/// resource, as the API server gives it. An item's limit to one without a
/// limit is its `default`, which the API server defaults to `max`; its
/// request to one with neither is its `defaultRequest`, defaulted to
/// `default`, else `max`, else `min` (a container with a limit has that
/// as its request before the LimitRange is asked). A LimitRange holds one
/// item of each type (the API server refuses a second; were there more,
/// the admission would take the last); a LimitRange after it gives only
/// what no earlier one gave (each fills what is still unset; the server
/// takes them in its cache's order, this check in the order read).
#[derive(Default)]
struct Defaults<'a>(BTreeMap<&'a str, (Option<Given<'a>>, Option<Given<'a>>)>);

impl<'a> Defaults<'a> {
    fn of(ranges: &[Vec<&'a Json>]) -> Self {
        let mut defaults = Defaults::default();
        for range in ranges {
            let mut own: BTreeMap<&str, (Option<Given<'a>>, Option<Given<'a>>)> = BTreeMap::new();
            let containers = (range.iter().copied()).filter(|i| i.field("type") == "Container");
            for item in containers {
                let given = |names: &[&'static str], resource: &str| {
                    names.iter().find_map(|name| {
                        let value = item.field(name).field(resource);
                        amount(value).map(|q| (*name, q, value))
                    })
                };
                let named = ["defaultRequest", "default", "max", "min"]
                    .into_iter()
                    .flat_map(|field| entries(item.field(field)).map(|(r, _)| r));
                for resource in named {
                    let (limit, request) = own.entry(resource).or_default();
                    if let Some(l) = given(&["default", "max"], resource) {
                        *limit = Some(l);
                    }
                    if let Some(r) = given(&["defaultRequest", "default", "max", "min"], resource) {
                        *request = Some(r);
                    }
                }
            }
            for (resource, (limit, request)) in own {
                let (l, r) = defaults.0.entry(resource).or_default();
                *l = l.or(limit);
                *r = r.or(request);
            }
        }
        defaults
    }

    /// The limit and the request given for `resource`.
    fn of_resource(&self, resource: &str) -> (Option<Given<'a>>, Option<Given<'a>>) {
        self.0.get(resource).copied().unwrap_or_default()
    }
}

/// A quantity as written: a string read as the API server decodes it, a
/// number written first; anything else is none.
fn amount(value: &Json) -> Option<Quantity> {
    kubernetes::quantity::of_value(value)?.ok()
}

/// A quantity's text as written; empty for anything else.
fn text(value: &Json) -> String {
    match value {
        Json::String(s) => s.clone(),
        Json::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

/// What the LimitRange item `range` refuses of a daemon's one container
/// with `resources`, given `defaults` (its namespace's): the path in the
/// BuildProject and why, each field once. As the API server's LimitRanger
/// judges it: a limit above `max` or none under it, a request above the
/// limit given or above `max`, a request or limit below `min` or no
/// request under it, and a limit more than `maxLimitRequestRatio` times
/// the request, or either missing or 0 under it. A `Pod` item holds the
/// pod, here its one container, to the same bounds. A quantity may be
/// written as a string or a number.
fn refusals(resources: &Json, range: &Json, defaults: &Defaults<'_>) -> Vec<(KeyPath, String)> {
    let pod = range.field("type") == "Pod";
    let whole = if pod { " (for the whole pod)" } else { "" };
    // The path is made only for a refusal.
    let at = |field: &str, resource: &str| {
        (KeyPath::root().key("spec").key("resources"))
            .key(field)
            .key(resource)
    };
    let mut found = Vec::new();
    // Every refusal is the daemon's pod's.
    let mut refuse = |field: &str, resource: &str, why: String| {
        found.push((
            at(field, resource),
            format!("{why}; the API server refuses the daemon's pod"),
        ));
    };
    // Every resource the daemon sets, the item bounds or the namespace
    // gives a default of: the admission treats each alike (CPU, memory,
    // ephemeral storage, huge pages, an extended resource).
    let mut names: Vec<&str> = (["requests", "limits"].iter())
        .flat_map(|field| entries(resources.field(field)))
        .chain(BOUNDS.iter().flat_map(|bound| entries(range.field(bound))))
        .map(|(name, _)| name)
        .chain(defaults.0.keys().copied())
        .collect();
    names.sort_unstable();
    names.dedup();
    for resource in names {
        let request = resources.field("requests").field(resource);
        let limit = resources.field("limits").field(resource);
        let (asked, capped) = (amount(request), amount(limit));
        let bound = |name: &str| {
            let value = range.field(name).field(resource);
            amount(value).map(|q| (q, value))
        };
        // The limit a container without one is given, and the request
        // one with neither is given (with a limit, that is its request).
        let (limit_given, request_given) = defaults.of_resource(resource);
        let given = limit_given.filter(|_| capped.is_none());
        let given_request = request_given.filter(|_| asked.is_none() && capped.is_none());
        // The limit and the request the LimitRange then judges.
        let effective_limit = capped.or(given.map(|(_, q, _)| q));
        let effective_request = asked.or(capped).or(given_request.map(|(_, q, _)| q));
        let missing = |field: &str, name: &str, value: &Json| {
            format!(
                "the LimitRange's {name}.{resource} {} asks every daemon{whole} for {field}.{resource}, and the daemon sets none",
                text(value)
            )
        };
        let above_max = |field: &str, value: &Json, max: &Json| {
            format!(
                "{field}.{resource} {} is above the LimitRange's max.{resource} {}{whole}",
                text(value),
                text(max),
            )
        };
        // The limit and the request, as written or as given.
        let the_limit = || match (capped, given) {
            (None, Some((name, _, value))) => format!(
                "the limit {} the LimitRange gives a daemon without limits.{resource} ({name}.{resource})",
                text(value)
            ),
            _ => format!("limits.{resource} {}", text(limit)),
        };
        let the_request = || match (asked, capped, given_request) {
            (None, None, Some((name, _, value))) => format!(
                "the request {} the LimitRange gives a daemon without requests.{resource} ({name}.{resource})",
                text(value)
            ),
            (None, Some(_), _) => format!("limits.{resource} {} (its request too)", text(limit)),
            _ => format!("requests.{resource} {}", text(request)),
        };
        // The field of the daemon's that holds it, or would.
        let request_field = if asked.is_none() && capped.is_some() {
            "limits"
        } else {
            "requests"
        };
        // The request, the limit and a bound, as the LimitRanger compares
        // them: rounded up to thousandths (or whole units).
        let at =
            |bound: Quantity| LimitRangePrecision::of(effective_request, effective_limit, bound);
        // `max`: a limit it is above, written or given, or none.
        if let Some((m, max)) = bound("max") {
            match effective_limit {
                Some(_) if at(m).limit > at(m).bound => {
                    let field = "limits";
                    refuse(
                        field,
                        resource,
                        match capped {
                            Some(_) => above_max(field, limit, max),
                            None => format!(
                                "{} is above the LimitRange's max.{resource} {}{whole}",
                                the_limit(),
                                text(max)
                            ),
                        },
                    );
                    continue;
                }
                None => {
                    refuse("limits", resource, missing("limits", "max", max));
                    continue;
                }
                _ => {}
            }
        }
        // A request above the limit, either of them given: the API server
        // refuses a container whose request is above its limit.
        if let (Some(r), Some(l)) = (effective_request, effective_limit)
            && r > l
            && capped.is_none()
        {
            let (field, said) = match (asked, given) {
                (Some(_), Some((name, _, value))) => (
                    "requests",
                    format!(
                        "requests.{resource} {} is above the limit {} the LimitRange gives a daemon without limits.{resource} ({name}.{resource})",
                        text(request),
                        text(value),
                    ),
                ),
                _ => (
                    "requests",
                    format!("{} is above {}", the_request(), the_limit()),
                ),
            };
            refuse(field, resource, said);
            continue;
        }
        // A request written above `max`.
        if let (Some(_), Some((m, max))) = (asked, bound("max"))
            && at(m).request > at(m).bound
        {
            refuse("requests", resource, above_max("requests", request, max));
            continue;
        }
        // `min`: a request below it, or none; a limit below it (which,
        // without a request, is the request too).
        if let Some((m, min)) = bound("min") {
            if effective_request.is_none() {
                refuse("requests", resource, missing("requests", "min", min));
                continue;
            }
            let below = |said: String| {
                format!(
                    "{said} is below the LimitRange's min.{resource} {}{whole}",
                    text(min)
                )
            };
            if at(m).request < at(m).bound {
                let said = match (asked, capped) {
                    (Some(_), _) => format!("requests.{resource} {}", text(request)),
                    (None, Some(_)) => format!("limits.{resource} {}", text(limit)),
                    (None, None) => the_request(),
                };
                refuse(request_field, resource, below(said));
                continue;
            }
            if effective_limit.is_some() && at(m).limit < at(m).bound {
                refuse("limits", resource, below(the_limit()));
                continue;
            }
        }
        // `maxLimitRequestRatio`: both a request and a limit, neither 0
        // in thousandths, the limit against the request divided as the
        // LimitRanger divides them (in floating point).
        let Some((most, ratio)) = bound("maxLimitRequestRatio") else {
            continue;
        };
        // What was 0: the request written, else the limit written (the
        // request too), else what the LimitRange gives.
        let no_ratio = |field: &str,
                        written: Option<Quantity>,
                        value: &Json,
                        given: Option<(&str, Quantity, &Json)>| {
            let shown = match (written, given) {
                (Some(_), _) | (None, None) => text(value),
                (None, Some((name, _, value))) => format!("{} ({name}.{resource})", text(value)),
            };
            format!(
                "{field}.{resource} {shown} leaves no ratio to hold to the LimitRange's maxLimitRequestRatio.{resource} {}{whole}",
                text(ratio),
            )
        };
        let rounded = at(most);
        match (effective_request, effective_limit) {
            (Some(_), _) if rounded.request <= 0 => {
                let (field, written, value, given) = match (asked, capped) {
                    (Some(_), _) => ("requests", asked, request, None),
                    (None, Some(_)) => ("limits", capped, limit, None),
                    (None, None) => ("requests", None, request, given_request),
                };
                refuse(field, resource, no_ratio(field, written, value, given));
                continue;
            }
            (None, _) => {
                refuse(
                    "requests",
                    resource,
                    missing("requests", "maxLimitRequestRatio", ratio),
                );
                continue;
            }
            (Some(_), Some(_)) if rounded.limit <= 0 => {
                refuse("limits", resource, no_ratio("limits", capped, limit, given));
                continue;
            }
            (Some(_), None) => {
                refuse(
                    "limits",
                    resource,
                    missing("limits", "maxLimitRequestRatio", ratio),
                );
                continue;
            }
            (Some(_), Some(_)) => {}
        }
        if rounded.ratio_above(most) {
            let (field, said) = match (capped, given) {
                (Some(_), _) => ("limits", format!("limits.{resource} {}", text(limit))),
                (None, Some((name, _, value))) => (
                    "requests",
                    format!(
                        "the limit {} the LimitRange gives a daemon without limits.{resource} ({name}.{resource})",
                        text(value)
                    ),
                ),
                (None, None) => continue,
            };
            let of = match (asked, given_request) {
                (Some(_), _) => format!("requests.{resource} {}", text(request)),
                (None, Some((name, _, value))) => format!(
                    "the request {} it is given without requests.{resource} ({name}.{resource})",
                    text(value)
                ),
                (None, None) => "the request it is given (its limit)".to_owned(),
            };
            refuse(
                field,
                resource,
                format!(
                    "{said} is more than maxLimitRequestRatio.{resource} {} times {of}{whole}",
                    text(ratio),
                ),
            );
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(resources: Json, range: Json) -> Vec<String> {
        refusals(&resources, &range, &Defaults::of(&[vec![&range]]))
            .into_iter()
            .map(|(path, message)| format!("{path}: {message}"))
            .collect()
    }

    #[test]
    fn a_request_above_the_limit_it_would_be_given_is_refused() {
        let range =
            json!({"type": "Container", "default": {"cpu": "2"}, "max": {"memory": "16Gi"}});
        assert_eq!(
            messages(json!({"requests": {"cpu": "4"}}), range.clone()),
            [
                "spec.resources.requests.cpu: requests.cpu 4 is above the limit 2 the LimitRange gives a daemon without limits.cpu (default.cpu); the API server refuses the daemon's pod"
            ]
        );
        // Its own limit: admitted.
        assert!(
            messages(
                json!({"requests": {"cpu": "4"}, "limits": {"cpu": "4"}}),
                range.clone()
            )
            .is_empty()
        );
        // No default: the max is the limit it is given.
        assert_eq!(
            messages(json!({"requests": {"memory": "20Gi"}}), range.clone()),
            [
                "spec.resources.requests.memory: requests.memory 20Gi is above the limit 16Gi the LimitRange gives a daemon without limits.memory (max.memory); the API server refuses the daemon's pod"
            ]
        );
        assert_eq!(
            messages(json!({"limits": {"memory": "17Gi"}}), range),
            [
                "spec.resources.limits.memory: limits.memory 17Gi is above the LimitRange's max.memory 16Gi; the API server refuses the daemon's pod"
            ]
        );
        // Without CPU default or maximum, any CPU request is admitted.
        let range = json!({"type": "Container", "default": {"memory": "2Gi"}});
        assert!(
            messages(
                json!({"requests": {"cpu": "64"}, "limits": {"memory": "4Gi"}}),
                range
            )
            .is_empty()
        );
    }

    /// A quantity written as a number is read like its text; a `Pod`
    /// item's `max` caps the daemon's one container too.
    #[test]
    fn numbers_and_pod_items_are_read() {
        let range = json!({"type": "Container", "max": {"memory": "4Gi"}});
        assert_eq!(
            messages(json!({"limits": {"memory": 8_589_934_592_u64}}), range),
            [
                "spec.resources.limits.memory: limits.memory 8589934592 is above the LimitRange's max.memory 4Gi; the API server refuses the daemon's pod"
            ]
        );
        let range = json!({"type": "Container", "default": {"cpu": 2}});
        assert_eq!(messages(json!({"requests": {"cpu": 3}}), range).len(), 1);
        let pod = json!({"type": "Pod", "max": {"cpu": "2"}});
        assert_eq!(
            messages(json!({"limits": {"cpu": "3"}}), pod.clone()),
            [
                "spec.resources.limits.cpu: limits.cpu 3 is above the LimitRange's max.cpu 2 (for the whole pod); the API server refuses the daemon's pod"
            ]
        );
        // A Pod item gives no container a default limit, and its `max`
        // asks for one.
        assert_eq!(
            messages(json!({"requests": {"cpu": "1"}}), pod.clone()),
            [
                "spec.resources.limits.cpu: the LimitRange's max.cpu 2 asks every daemon (for the whole pod) for limits.cpu, and the daemon sets none; the API server refuses the daemon's pod"
            ]
        );
        // A `Container` item of its namespace gives one: 1 is below 2.
        let container = json!({"type": "Container", "default": {"cpu": "1"}});
        let refused = |resources: Json| {
            refusals(&resources, &pod, &Defaults::of(&[vec![&pod, &container]]))
                .into_iter()
                .map(|(_, message)| message)
                .collect::<Vec<_>>()
        };
        assert!(refused(json!({"requests": {"cpu": "1"}})).is_empty());
        assert_eq!(refused(json!({"requests": {"cpu": "3"}})).len(), 1);
    }

    /// `min` and `maxLimitRequestRatio`, as the API server applies them
    /// after it gives a container its defaults: a request or limit below
    /// the minimum; a limit, written or given, more than the ratio times
    /// the request, written or (without one) the limit itself.
    #[test]
    fn a_minimum_and_a_ratio_are_kept() {
        let range = json!({
            "type": "Container",
            "default": {"memory": "8Gi"},
            "min": {"cpu": "250m", "memory": "1Gi"},
            "maxLimitRequestRatio": {"memory": "2"},
        });
        let said = |resources: Json| messages(resources, range.clone());
        assert_eq!(
            said(json!({"requests": {"cpu": "100m", "memory": "4Gi"}})),
            [
                "spec.resources.requests.cpu: requests.cpu 100m is below the LimitRange's min.cpu 250m; the API server refuses the daemon's pod"
            ]
        );
        // Without a request, the limit is the request too.
        assert_eq!(
            said(json!({"limits": {"cpu": 0.1, "memory": "2Gi"}})),
            [
                "spec.resources.limits.cpu: limits.cpu 0.1 is below the LimitRange's min.cpu 250m; the API server refuses the daemon's pod"
            ]
        );
        // The limit written: 6Gi is three times 2Gi.
        assert_eq!(
            said(json!({"requests": {"memory": "2Gi"}, "limits": {"memory": "6Gi"}})),
            [
                "spec.resources.limits.memory: limits.memory 6Gi is more than maxLimitRequestRatio.memory 2 times requests.memory 2Gi; the API server refuses the daemon's pod"
            ]
        );
        // The limit given (default 8Gi): four times 2Gi.
        assert_eq!(
            said(json!({"requests": {"memory": "2Gi"}})),
            [
                "spec.resources.requests.memory: the limit 8Gi the LimitRange gives a daemon without limits.memory (default.memory) is more than maxLimitRequestRatio.memory 2 times requests.memory 2Gi; the API server refuses the daemon's pod"
            ]
        );
        // Exactly twice, a limit alone (its own request), nothing set:
        // admitted.
        for resources in [
            json!({"requests": {"memory": "4Gi"}}),
            json!({"requests": {"cpu": "250m", "memory": "4Gi"}, "limits": {"memory": "8Gi"}}),
            json!({"limits": {"memory": "3Gi"}}),
            json!({}),
        ] {
            assert!(said(resources.clone()).is_empty(), "{resources}");
        }
        // Neither set: the request given is `defaultRequest`, else
        // `default`: 8Gi against 2Gi is four times, 8Gi against itself once.
        let asked = json!({
            "type": "Container",
            "default": {"cpu": "2", "memory": "8Gi"},
            "defaultRequest": {"memory": "2Gi"},
            "maxLimitRequestRatio": {"cpu": "1", "memory": "2"},
        });
        assert_eq!(
            messages(json!({}), asked.clone()),
            [
                "spec.resources.requests.memory: the limit 8Gi the LimitRange gives a daemon without limits.memory (default.memory) is more than maxLimitRequestRatio.memory 2 times the request 2Gi it is given without requests.memory (defaultRequest.memory); the API server refuses the daemon's pod"
            ]
        );
        // A limit of its own is its request: defaultRequest is not asked.
        assert!(messages(json!({"limits": {"memory": "8Gi"}}), asked).is_empty());
        // A Pod item gives nothing, and holds the pod to the same bounds.
        let pod =
            json!({"type": "Pod", "min": {"memory": "1Gi"}, "maxLimitRequestRatio": {"cpu": 4}});
        assert_eq!(
            messages(
                json!({"requests": {"memory": "512Mi", "cpu": "1"}, "limits": {"cpu": "5"}}),
                pod.clone()
            ),
            [
                "spec.resources.limits.cpu: limits.cpu 5 is more than maxLimitRequestRatio.cpu 4 times requests.cpu 1 (for the whole pod); the API server refuses the daemon's pod",
                "spec.resources.requests.memory: requests.memory 512Mi is below the LimitRange's min.memory 1Gi (for the whole pod); the API server refuses the daemon's pod",
            ]
        );
        // Without a limit, the ratio is refused; without a memory
        // request, the minimum.
        assert_eq!(
            messages(json!({"requests": {"cpu": "1"}}), pod),
            [
                "spec.resources.limits.cpu: the LimitRange's maxLimitRequestRatio.cpu 4 asks every daemon (for the whole pod) for limits.cpu, and the daemon sets none; the API server refuses the daemon's pod",
                "spec.resources.requests.memory: the LimitRange's min.memory 1Gi asks every daemon (for the whole pod) for requests.memory, and the daemon sets none; the API server refuses the daemon's pod",
            ]
        );
        // A request of 0 leaves no ratio.
        let zero =
            json!({"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}, "max": {"cpu": "2"}});
        assert_eq!(
            messages(json!({"requests": {"cpu": "0"}}), zero.clone()),
            [
                "spec.resources.requests.cpu: requests.cpu 0 leaves no ratio to hold to the LimitRange's maxLimitRequestRatio.cpu 2; the API server refuses the daemon's pod"
            ]
        );
        // A limit of 0 and no request: the limit is the request.
        assert_eq!(
            messages(json!({"limits": {"cpu": "0"}}), zero.clone()),
            [
                "spec.resources.limits.cpu: limits.cpu 0 leaves no ratio to hold to the LimitRange's maxLimitRequestRatio.cpu 2; the API server refuses the daemon's pod"
            ]
        );
        // A ratio with no limit to give: refused; with `max` to give, held.
        let ratio = json!({"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}});
        assert_eq!(messages(json!({"requests": {"cpu": "1"}}), ratio).len(), 1);
        assert!(messages(json!({"requests": {"cpu": "1"}}), zero).is_empty());
        // Amounts near the largest a quantity holds are divided too.
        let huge = json!({"type": "Container", "maxLimitRequestRatio": {"memory": "2"}});
        assert_eq!(
            messages(
                json!({"requests": {"memory": "3E"}, "limits": {"memory": "9E"}}),
                huge
            )
            .len(),
            1
        );
    }

    /// What a daemon with `resources` is refused in a namespace whose
    /// LimitRanges hold `ranges`' items, each LimitRange a list.
    fn in_namespace(resources: Json, ranges: &[Vec<Json>]) -> Vec<String> {
        let ranges: Vec<Vec<&Json>> = ranges.iter().map(|r| r.iter().collect()).collect();
        let refused = Namespace::of(&ranges).refused(&resources);
        (refused.into_iter())
            .map(|(path, message)| format!("{path}: {message}"))
            .collect()
    }

    /// Several LimitRanges, as the admission reads them: a later one fills
    /// only what an earlier one left unset; what one gives is held
    /// to every other's bounds; every resource is read, not only CPU and
    /// memory; however many items, the strictest bound decides.
    #[test]
    fn several_items_and_limit_ranges_and_any_resource() {
        let four = json!({"type": "Container", "default": {"cpu": "4"}});
        let one = json!({"type": "Container", "default": {"cpu": "1"}});
        let asks_two = json!({"requests": {"cpu": "2"}});
        // Two LimitRanges: the first (as read) gives the limit.
        assert_eq!(
            in_namespace(asks_two.clone(), &[vec![one.clone()], vec![four.clone()]]),
            [
                "spec.resources.requests.cpu: requests.cpu 2 is above the limit 1 the LimitRange gives a daemon without limits.cpu (default.cpu); the API server refuses the daemon's pod"
            ]
        );
        assert!(in_namespace(asks_two, &[vec![four], vec![one]]).is_empty());
        // A request one gives, below the other's minimum.
        let small = json!({"type": "Container", "defaultRequest": {"memory": "512Mi"}});
        let at_least = json!({"type": "Container", "min": {"memory": "1Gi"}});
        assert_eq!(
            in_namespace(json!({}), &[vec![small], vec![at_least]]),
            [
                "spec.resources.requests.memory: the request 512Mi the LimitRange gives a daemon without requests.memory (defaultRequest.memory) is below the LimitRange's min.memory 1Gi; the API server refuses the daemon's pod"
            ]
        );
        // A limit one gives, above the other's maximum.
        let three = json!({"type": "Container", "default": {"cpu": "3"}});
        let at_most = json!({"type": "Container", "max": {"cpu": "2"}});
        assert_eq!(
            in_namespace(json!({}), &[vec![three], vec![at_most]]),
            [
                "spec.resources.limits.cpu: the limit 3 the LimitRange gives a daemon without limits.cpu (default.cpu) is above the LimitRange's max.cpu 2; the API server refuses the daemon's pod"
            ]
        );
        // Ephemeral storage: a Pod item's max asks for a limit the daemon
        // does not set; a Container item's max is the limit it is given.
        let pod = json!({"type": "Pod", "max": {"ephemeral-storage": "10Gi"}});
        assert_eq!(
            in_namespace(json!({"requests": {"cpu": "1"}}), &[vec![pod]]),
            [
                "spec.resources.limits.ephemeral-storage: the LimitRange's max.ephemeral-storage 10Gi asks every daemon (for the whole pod) for limits.ephemeral-storage, and the daemon sets none; the API server refuses the daemon's pod"
            ]
        );
        let container = json!({"type": "Container", "max": {"ephemeral-storage": "10Gi"}});
        assert!(in_namespace(json!({}), &[vec![container.clone()]]).is_empty());
        assert_eq!(
            in_namespace(
                json!({"limits": {"ephemeral-storage": "20Gi"}}),
                &[vec![container]]
            )
            .len(),
            1
        );
        // Many items: the strictest maximum is the one quoted.
        let items: Vec<Json> = (1..=50)
            .rev()
            .map(|gi| json!({"type": "Container", "max": {"memory": format!("{gi}Gi")}}))
            .collect();
        let read: Vec<&Json> = items.iter().collect();
        assert_eq!(
            Namespace::of(&[read]).strictest.len(),
            1,
            "one item of bounds"
        );
        assert_eq!(
            in_namespace(json!({"limits": {"memory": "2Gi"}}), &[items]),
            [
                "spec.resources.limits.memory: limits.memory 2Gi is above the LimitRange's max.memory 1Gi; the API server refuses the daemon's pod"
            ]
        );
    }

    /// Each project is judged, however many before it share its namespace
    /// and resources (what one was refused is reused for the next alike):
    /// a run of equal projects; one alike right after them in a namespace
    /// without a LimitRange; one admitted; one with its members in another
    /// order; two whose amounts are equal numbers written differently
    /// (`0.0` and `-0.0`), each quoted as written; a LimitRange and a
    /// project that name no namespace, both in `default`.
    #[test]
    fn every_project_alike_is_refused_alike() {
        use kubernetes::kube::{DEFAULT_VERSION, KubeSchemas};
        let range = |namespace: &str, cpu: &str| {
            format!(
                "---\napiVersion: v1\nkind: LimitRange\nmetadata: {{name: daemons, namespace: {namespace}}}\n\
                 spec:\n  limits:\n    - type: Container\n      default: {{cpu: \"{cpu}\"}}\n"
            )
        };
        let project = |name: &str, namespace: &str, resources: &str| {
            format!(
                "---\napiVersion: buildkit-operator.dev/v1alpha1\nkind: BuildProject\n\
                 metadata: {{name: {name}, namespace: {namespace}}}\nspec:\n  resources: {resources}\n"
            )
        };
        let big = "{requests: {cpu: \"4\", memory: 1Gi}}";
        let text = [
            range("b", "2"),
            range("z", "-1"),
            range("default", "2").replace(", namespace: default", ""),
            project("p1", "b", big),
            project("p2", "b", big),
            project("p3", "other", big),
            project("p4", "b", "{requests: {cpu: \"1\", memory: 1Gi}}"),
            project("p5", "b", "{requests: {memory: 1Gi, cpu: \"4\"}}"),
            project("p6", "b", big),
            project("p7", "b", big),
            project("z1", "z", "{requests: {cpu: 0.0}}"),
            project("z2", "z", "{requests: {cpu: -0.0}}"),
            project("d1", "default", big).replace(", namespace: default", ""),
        ]
        .concat();
        let set = kubernetes::input::parse("projects.yaml", &text).unwrap();
        let schemas = KubeSchemas::load(DEFAULT_VERSION).unwrap();
        let options = crate::check::Options {
            schemas: &schemas,
            extra_crds: &[],
            only_version: false,
        };
        let report = crate::check::run(&set.manifests, &[], &options);
        let refused: Vec<String> = (report.findings.iter())
            .filter(|f| f.id() == Some("LIMITS"))
            .map(|f| f.render().lines().next().unwrap_or_default().to_owned())
            .collect();
        let said = |object: &str, amount: &str, limit: &str| {
            format!(
                "LIMITS BuildProject {object} spec.resources.requests.cpu: requests.cpu {amount} is above the limit {limit} the LimitRange gives a daemon without limits.cpu (default.cpu); the API server refuses the daemon's pod"
            )
        };
        assert_eq!(
            refused,
            [
                said("b/p1", "4", "2"),
                said("b/p2", "4", "2"),
                said("b/p5", "4", "2"),
                said("b/p6", "4", "2"),
                said("b/p7", "4", "2"),
                said("default/d1", "4", "2"),
                said("z/z1", "0.0", "-1"),
                said("z/z2", "-0.0", "-1"),
            ]
        );
    }

    /// A value neither a string nor a number is no quantity, on either
    /// side: nothing is compared with it (its text would be empty).
    #[test]
    fn other_values_are_no_quantities() {
        let range = json!({"type": "Container", "default": {"cpu": true}, "max": {"cpu": "2"}});
        // No default read: the max is the limit given.
        assert_eq!(
            messages(json!({"requests": {"cpu": "3"}}), range.clone()).len(),
            1
        );
        for other in [json!(true), json!(null), json!({"a": 1}), json!(["4"])] {
            assert!(
                messages(
                    json!({"requests": {"cpu": other}, "limits": {"cpu": other}}),
                    range.clone()
                )
                .is_empty(),
                "{other}"
            );
        }
    }

    /// Amounts are held to `min`, `max` and the ratio in thousandths,
    /// rounded up (whole units past `MaxMilliValue`), as the LimitRanger
    /// holds them: what differs below a thousandth is one amount.
    #[test]
    fn bounds_hold_amounts_in_thousandths() {
        let admitted = |resources: Json, range: Json| messages(resources, range).is_empty();
        let container =
            |field: &str, amount: &str| json!({"type": "Container", field: {"cpu": amount}});
        assert!(admitted(
            json!({"requests": {"cpu": "100u"}}),
            container("min", "1m")
        ));
        assert!(!admitted(
            json!({"requests": {"cpu": "100u"}}),
            container("min", "1001u")
        ));
        assert!(admitted(
            json!({"limits": {"cpu": "1800u"}}),
            container("max", "1500u")
        ));
        assert!(!admitted(
            json!({"limits": {"cpu": "2001u"}}),
            container("max", "1500u")
        ));
        assert!(admitted(
            json!({"requests": {"cpu": "1200u"}, "limits": {"cpu": "1800u"}}),
            json!({"type": "Pod", "min": {"cpu": "1500u"}, "max": {"cpu": "1500u"}})
        ));
        // 2m and 3m: a ratio of 1.5; a ratio's own thousandths round up.
        let ratio =
            |most: &str| json!({"type": "Container", "maxLimitRequestRatio": {"cpu": most}});
        assert!(admitted(
            json!({"requests": {"cpu": "1500u"}, "limits": {"cpu": "3m"}}),
            ratio("1.5")
        ));
        assert!(admitted(
            json!({"requests": {"cpu": "1"}, "limits": {"cpu": "3"}}),
            ratio("2.9991")
        ));
        assert!(!admitted(
            json!({"requests": {"cpu": "1"}, "limits": {"cpu": "3"}}),
            ratio("2.999")
        ));
        // Under a ratio, a request of 1n is 1m, not 0.
        assert!(admitted(
            json!({"requests": {"cpu": "1n"}, "limits": {"cpu": "1m"}}),
            ratio("1")
        ));
        // Past 2⁶³−1 thousandths: whole units.
        let memory = json!({"type": "Container", "max": {"memory": "10000000000000000500m"}});
        assert!(admitted(
            json!({"limits": {"memory": "10000000000000000700m"}}),
            memory.clone()
        ));
        assert!(!admitted(
            json!({"limits": {"memory": "10000000000000001100m"}}),
            memory
        ));
    }
}
