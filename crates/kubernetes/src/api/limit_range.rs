//! What the API server refuses in a LimitRange (`ValidateLimitRange`),
//! judged as it judges it: after its defaults (`SetDefaults_LimitRangeItem`:
//! a `Container` item's `default` is its `max` where unset, and its
//! `defaultRequest` its `default`, else its `min`). One item of each type;
//! a type of Kubernetes' own (`Pod`, `Container`, `PersistentVolumeClaim`)
//! or a qualified name; resources a container may hold in a `Pod` or
//! `Container` item; amounts that are quantities; no `default` or
//! `defaultRequest` in a `Pod` item; `min` ≤ `defaultRequest` ≤ `default` ≤
//! `max`; a ratio of at least 1 and at most `max` / `min`; a default
//! request equal to the default limit where a resource is not
//! overcommitted (huge pages, extended resources); `min` or `max` storage
//! in a `PersistentVolumeClaim` item. Negative amounts are not refused
//! (the API server takes them).

use std::collections::{BTreeMap, HashSet};

use serde_json::Value as Json;

use super::{plain, resources};
use crate::json::{Field, Found, each};
use crate::location::KeyPath;
use crate::names;
use crate::quantity::{MAX_MILLI_VALUE, Quantity, go_scaled_value_of};

/// The fields of an item that bound or give an amount of each resource.
const FIELDS: [&str; 5] = [
    "max",
    "min",
    "default",
    "defaultRequest",
    "maxLimitRequestRatio",
];

/// An amount of an item: the amount, the field that holds it (for a
/// default, the field it came from) and its value as written.
type Amount<'a> = (Quantity, &'static str, &'a Json);

/// The checks of a LimitRange whose spec is `spec`, at `at`.
pub fn check(spec: &Json, at: &KeyPath, found: &mut Found) {
    let mut types = HashSet::new();
    for (i, item) in each(spec.field("limits")) {
        let at = at.clone().key("limits").index(i);
        // A type that is no string is the schema's to say; as the API
        // server reads it, it is empty.
        let kind = item.field("type").as_str();
        if let Some(kind) = kind
            && let Err(why) = limit_type(kind)
        {
            found.push((
                at.clone().key("type"),
                format!("`{kind}` is not a LimitRange type: {why}"),
            ));
        }
        let kind = kind.unwrap_or_default();
        if !types.insert(kind) {
            found.push((
                at.clone().key("type"),
                format!("a second item of type `{kind}`: a LimitRange holds one item of each type"),
            ));
        }
        self::item(kind, item, &at, found);
    }
}

/// The checks of one item of type `kind`.
fn item(kind: &str, item: &Json, at: &KeyPath, found: &mut Found) {
    let mut amounts: BTreeMap<&str, [Option<Amount<'_>>; 5]> = BTreeMap::new();
    for (f, field) in FIELDS.into_iter().enumerate() {
        let Some(list) = item.field(field).as_object() else {
            continue;
        };
        if kind == "Pod" && matches!(field, "default" | "defaultRequest") {
            if !list.is_empty() {
                found.push((
                    at.clone().key(field),
                    format!("a Pod item has no {field}: a pod's containers are given theirs by the Container item"),
                ));
            }
            continue;
        }
        for (resource, value) in list {
            let path = || at.clone().key(field).key(resource.clone());
            let named = match kind {
                "Pod" | "Container" => resources::container_resource_name(resource),
                _ => resources::resource_name(resource),
            };
            if let Err(why) = named {
                found.push((path(), format!("{why}, in an item of type `{kind}`")));
            }
            // A value neither a string nor a number is the schema's to say.
            let text = match value {
                Json::String(text) => text.clone(),
                Json::Number(number) => number.to_string(),
                _ => continue,
            };
            match Quantity::decode(&text) {
                Ok(amount) => {
                    amounts.entry(resource).or_default()[f] = Some((amount, field, value))
                }
                Err(why) => found.push((path(), format!("`{text}` is not a quantity: {why}"))),
            }
        }
    }
    if kind == "PersistentVolumeClaim"
        && ["min", "max"]
            .iter()
            .all(|f| item.field(f).field("storage").is_null())
    {
        found.push((
            at.clone(),
            "a PersistentVolumeClaim item bounds storage: it needs a min.storage or a max.storage"
                .to_owned(),
        ));
    }
    for (resource, [max, min, default, request, ratio]) in amounts {
        // The API server's defaults, before it judges the item.
        let (default, request) = match kind {
            "Container" => {
                let default = default.or(max);
                (default, request.or(default).or(min))
            }
            _ => (default, request),
        };
        bounds(resource, [min, request, default, max], at, found);
        if let Some((most, _, value)) = ratio {
            let ratio_at = || {
                at.clone()
                    .key("maxLimitRequestRatio")
                    .key(resource.to_owned())
            };
            if most.nanos() < 1_000_000_000 {
                found.push((
                    ratio_at(),
                    format!("maxLimitRequestRatio.{resource} {} is below 1: a limit is at least its request", plain(value)),
                ));
            }
            if let (Some((.., low)), Some((.., high))) = (min, max)
                && let Some((asked, widest)) = ratio_against_widest(value, low, high)
                && asked > widest
            {
                found.push((
                    ratio_at(),
                    format!(
                        "maxLimitRequestRatio.{resource} {} is above max / min = {widest:.6} (max.{resource} / min.{resource}): no container within them has that ratio",
                        plain(value)
                    ),
                ));
            }
        }
        let overcommitted = resources::overcommitted(resource);
        if let (Some((limit, from_limit, limit_value)), Some((asked, from_request, asked_value))) =
            (default, request)
            && !overcommitted
            && limit != asked
        {
            found.push((
                at.clone().key(from_request).key(resource.to_owned()),
                format!(
                    "the item gives a container without {resource} the request {} ({from_request}.{resource}) and the limit {} ({from_limit}.{resource}): {resource} is not overcommitted, so a request of it equals its limit",
                    plain(asked_value),
                    plain(limit_value)
                ),
            ));
        }
    }
}

/// `min` ≤ `defaultRequest` ≤ `default` ≤ `max`, each pair the API server
/// compares, each pair of written fields said once (a default is the
/// field it came from).
fn bounds(resource: &str, order: [Option<Amount<'_>>; 4], at: &KeyPath, found: &mut Found) {
    let [min, request, default, max] = order;
    let mut said = HashSet::new();
    for (low, high) in [
        (min, max),
        (min, request),
        (request, max),
        (request, default),
        (min, default),
        (default, max),
    ] {
        if let (Some((low, low_field, low_value)), Some((high, high_field, high_value))) =
            (low, high)
            && low > high
            && said.insert((low_field, high_field))
        {
            found.push((
                at.clone().key(low_field).key(resource.to_owned()),
                format!(
                    "{low_field}.{resource} {} is above {high_field}.{resource} {}: an item's min ≤ defaultRequest ≤ default ≤ max",
                    plain(low_value),
                    plain(high_value)
                ),
            ));
        }
    }
}

/// A `maxLimitRequestRatio` and the largest ratio a container within
/// `min` and `max` can have (`max / min`), as the API server works them
/// out: in thousandths while all three are below 2^63-1 thousandths of a
/// unit, in whole units past that, each an int64 as Go holds it, divided in
/// floating point (`0 / 0` is no number, and no ratio is above it).
fn ratio_against_widest(ratio: &Json, min: &Json, max: &Json) -> Option<(f64, f64)> {
    let whole = |v: &Json| go_scaled_value_of(v, 0);
    let milli = |v: &Json| go_scaled_value_of(v, -3);
    let (asked, low, high) = (whole(ratio)?, whole(min)?, whole(max)?);
    let fits = [asked, low, high]
        .iter()
        .all(|v| i128::from(*v) < MAX_MILLI_VALUE);
    let (asked, low, high) = match fits {
        true => (milli(ratio)? as f64 / 1000.0, milli(min)?, milli(max)?),
        false => (asked as f64, low, high),
    };
    Some((asked, high as f64 / low as f64))
}

/// A LimitRange type: a qualified name, and `Pod`, `Container` or
/// `PersistentVolumeClaim` unless it has a domain.
fn limit_type(kind: &str) -> Result<(), String> {
    names::qualified_name(kind)?;
    match kind.contains('/') || matches!(kind, "Pod" | "Container" | "PersistentVolumeClaim") {
        true => Ok(()),
        false => Err("Pod, Container, PersistentVolumeClaim or a name with a domain".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn found(limits: Json) -> Vec<String> {
        let mut found = Vec::new();
        check(
            &json!({"limits": limits}),
            &KeyPath::root().key("spec"),
            &mut found,
        );
        found
            .into_iter()
            .map(|(path, why)| format!("{path}: {why}"))
            .collect()
    }

    /// Each pair of written fields is said once, however many of the
    /// server's comparisons its defaults make of it.
    #[test]
    fn a_pair_of_fields_out_of_order_is_said_once() {
        // min > max: also min > default (from max) and min > defaultRequest.
        assert_eq!(
            found(json!([{"type": "Container", "min": {"cpu": "3"}, "max": {"cpu": "2"}}])),
            [
                "spec.limits[0].min.cpu: min.cpu 3 is above max.cpu 2: an item's min ≤ defaultRequest ≤ default ≤ max"
            ]
        );
        // defaultRequest > max: also above default (from max).
        assert_eq!(
            found(
                json!([{"type": "Container", "defaultRequest": {"cpu": "3"}, "max": {"cpu": "2"}}])
            ),
            [
                "spec.limits[0].defaultRequest.cpu: defaultRequest.cpu 3 is above max.cpu 2: an item's min ≤ defaultRequest ≤ default ≤ max"
            ]
        );
        // A Pod item has no defaults: its min and max alone.
        assert!(
            found(json!([{"type": "Pod", "min": {"cpu": "1"}, "max": {"cpu": "2"}}])).is_empty()
        );
        // Nor has any other type: defaultRequest is not default's.
        assert_eq!(
            found(
                json!([{"type": "PersistentVolumeClaim", "max": {"storage": "1Gi"}, "defaultRequest": {"storage": "2Gi"}}])
            ),
            [
                "spec.limits[0].defaultRequest.storage: defaultRequest.storage 2Gi is above max.storage 1Gi: an item's min ≤ defaultRequest ≤ default ≤ max"
            ]
        );
    }

    /// A resource that is not overcommitted is requested at its limit,
    /// however the item comes to give them.
    #[test]
    fn a_resource_not_overcommitted_is_given_one_amount() {
        let gpu = |item: Json| {
            let mut item = item;
            item["type"] = json!("Container");
            found(json!([item]))
        };
        assert!(
            gpu(json!({"min": {"example.com/gpu": "1"}, "max": {"example.com/gpu": "2"}}))
                .is_empty()
        );
        assert_eq!(
            gpu(
                json!({"defaultRequest": {"example.com/gpu": "1"}, "max": {"example.com/gpu": "2"}})
            ),
            [
                "spec.limits[0].defaultRequest.\"example.com/gpu\": the item gives a container without example.com/gpu the request 1 (defaultRequest.example.com/gpu) and the limit 2 (max.example.com/gpu): example.com/gpu is not overcommitted, so a request of it equals its limit"
            ]
        );
        // CPU is overcommitted.
        assert!(gpu(json!({"defaultRequest": {"cpu": "1"}, "max": {"cpu": "2"}})).is_empty());
    }

    /// The ratio against `max` / `min` is divided in thousandths: a `min`
    /// of 1500u is 2m.
    #[test]
    fn the_widest_ratio_is_divided_in_thousandths() {
        let item = |ratio: &str| {
            found(
                json!([{"type": "Container", "min": {"cpu": "1500u"}, "max": {"cpu": "6m"}, "maxLimitRequestRatio": {"cpu": ratio}}]),
            )
        };
        assert!(item("3").is_empty());
        assert_eq!(
            item("3.5"),
            [
                "spec.limits[0].maxLimitRequestRatio.cpu: maxLimitRequestRatio.cpu 3.5 is above max / min = 3.000000 (max.cpu / min.cpu): no container within them has that ratio"
            ]
        );
        // One ratio past 2^63-1 thousandths: all three in whole units
        // (min 1m is 1), as a real v1.35 server divides them.
        let big = |ratio: &str| {
            found(
                json!([{"type": "Container", "min": {"cpu": "1m"}, "max": {"cpu": "9300000000000"}, "maxLimitRequestRatio": {"cpu": ratio}}]),
            )
        };
        assert!(big("9000000000000000").is_empty());
        assert_eq!(big("9250000000000000").len(), 1);
        // Past 2^63-1 units, an int64 as Go holds it: a max of 10E is 0,
        // so max / min is 0 and any ratio is above it.
        assert_eq!(
            found(json!([{"type": "Container", "min": {"cpu": "1"}, "max": {"cpu": "10E"}, "maxLimitRequestRatio": {"cpu": "2"}}])).len(),
            1
        );
        // 0 / 0 says nothing; n / 0 is no bound.
        assert!(found(json!([{"type": "Container", "min": {"cpu": "0"}, "max": {"cpu": "0"}, "maxLimitRequestRatio": {"cpu": "5"}}])).is_empty());
        assert!(found(json!([{"type": "Container", "min": {"cpu": "0"}, "max": {"cpu": "1"}, "maxLimitRequestRatio": {"cpu": "5"}}])).is_empty());
    }

    #[test]
    fn types_and_resource_names() {
        assert_eq!(
            found(
                json!([{"type": "Container"}, {"type": "Container"}, {"type": "Foo"}, {"type": "example.com/foo", "max": {"bar": "1", "example.com/bar": "1"}}])
            ),
            [
                "spec.limits[1].type: a second item of type `Container`: a LimitRange holds one item of each type",
                "spec.limits[2].type: `Foo` is not a LimitRange type: Pod, Container, PersistentVolumeClaim or a name with a domain",
                "spec.limits[3].max.bar: `bar` is not a resource of Kubernetes' own, and has no domain, in an item of type `example.com/foo`",
            ]
        );
        for (name, admitted) in [
            ("cpu", true),
            ("hugepages-anything", true),
            ("kubernetes.io/foo", true),
            ("example.com/gpu", true),
            ("pods", false),
            ("storage", false),
            ("requests.example.com/gpu", false),
        ] {
            let said = found(json!([{"type": "Container", "max": {name: "1"}}]));
            assert_eq!(said.is_empty(), admitted, "{name}: {said:?}");
        }
    }
}
