//! What the API server refuses in a HorizontalPodAutoscaler
//! (`ValidateHorizontalPodAutoscaler` in `pkg/apis/autoscaling/validation`),
//! judged as it judges it: on the internal type, after the defaults of
//! `autoscaling/v2` (`SetDefaults_HorizontalPodAutoscaler`: a `minReplicas`
//! of 1, a CPU metric when there is none, a scaling rule's unset fields
//! from the default rules) or the conversion of `autoscaling/v1`
//! (`Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler`:
//! `targetCPUUtilizationPercentage` is a CPU metric's `averageUtilization`,
//! and the annotations `autoscaling.alpha.kubernetes.io/metrics` and
//! `autoscaling.alpha.kubernetes.io/behavior`, where Go's `json.Unmarshal`
//! reads them, are more metrics and the behavior, not defaulted).
//!
//! Checked: `minReplicas` at least 1 (HPAScaleToZero is off by default),
//! `maxReplicas` at least 1 and at least `minReplicas`; the scale target's
//! kind and name (path segments) and apiVersion (a group/version, with a
//! group unless the kind is ReplicationController); each metric's type,
//! the one source it sets, its metric name, described object, resource
//! and container names, and its target (a known type, a positive value,
//! average value or utilization, the ones its source needs); the scaling
//! rules' stabilization window (0 to 3600 seconds), select policy,
//! policies (at least one; Pods or Percent, a positive value, a period of
//! 1 to 1800 seconds) and tolerance (not negative). Metric selectors are
//! not checked: the API server does not check them.

use serde_json::{Map, Value as Json, json};

use super::go_json::{Go, go_decode};
use super::resources;
use crate::json::{Field, Found, each, whole};
use crate::location::KeyPath;
use crate::names;

/// The annotation an `autoscaling/v1` object keeps its other metrics in.
const METRICS: &str = "autoscaling.alpha.kubernetes.io/metrics";

/// The annotation an `autoscaling/v1` object keeps its behavior in.
const BEHAVIOR: &str = "autoscaling.alpha.kubernetes.io/behavior";

/// The longest stabilization window (`MaxStabilizationWindowSeconds`).
const MAX_WINDOW: i64 = 3600;

/// The longest period of a scaling policy (`MaxPeriodSeconds`).
const MAX_PERIOD: i64 = 1800;

/// The metric sources, in the order the API server reads them, with the
/// metric type of each.
const SOURCES: [(&str, &str); 5] = [
    ("object", "Object"),
    ("external", "External"),
    ("pods", "Pods"),
    ("resource", "Resource"),
    ("containerResource", "ContainerResource"),
];

/// The checks of a HorizontalPodAutoscaler `object`, of `autoscaling/v2`
/// or `autoscaling/v1`.
pub fn check(object: &Json, found: &mut Found) {
    let at = KeyPath::root().key("spec");
    match object.field("apiVersion").as_str() {
        Some("autoscaling/v1") => v1(object, found),
        _ => spec(&v2_defaulted(object.field("spec")), &at, found),
    }
}

/// An `autoscaling/v2` spec with the defaults the server gives it.
fn v2_defaulted(written: &Json) -> Json {
    let mut spec = written.as_object().cloned().unwrap_or_default();
    spec.entry("minReplicas").or_insert(json!(1));
    if each(written.field("metrics")).next().is_none() {
        spec.insert("metrics".to_owned(), default_metrics());
    }
    if let Some(behavior) = written.field("behavior").as_object() {
        let mut defaulted = behavior.clone();
        for (side, window) in [("scaleUp", Some(0)), ("scaleDown", None)] {
            let mut rules = behavior
                .get(side)
                .and_then(Json::as_object)
                .cloned()
                .unwrap_or_default();
            let policies = match side {
                "scaleUp" => json!([
                    {"type": "Pods", "value": 4, "periodSeconds": 15},
                    {"type": "Percent", "value": 100, "periodSeconds": 15},
                ]),
                _ => json!([{"type": "Percent", "value": 100, "periodSeconds": 15}]),
            };
            rules.entry("selectPolicy").or_insert(json!("Max"));
            rules.entry("policies").or_insert(policies);
            if let Some(window) = window {
                rules
                    .entry("stabilizationWindowSeconds")
                    .or_insert(json!(window));
            }
            defaulted.insert(side.to_owned(), Json::Object(rules));
        }
        spec.insert("behavior".to_owned(), Json::Object(defaulted));
    }
    Json::Object(spec)
}

/// The metrics of an autoscaler that names none: CPU at 80% of requests.
fn default_metrics() -> Json {
    json!([{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}])
}

/// An `autoscaling/v1` object, converted to the internal type as the
/// server converts it; a problem of what its annotations hold is said at
/// the annotation, and of its CPU target at `targetCPUUtilizationPercentage`.
fn v1(object: &Json, found: &mut Found) {
    let written = object.field("spec");
    let annotations = object.field("metadata").field("annotations");
    let mut metrics = annotations
        .field(METRICS)
        .as_str()
        .and_then(|text| serde_json::from_str::<Json>(text).ok())
        .and_then(|value| go_decode(&value, Go::List(&METRIC_V1)))
        .map(|list| each(&list).map(|(_, m)| v1_metric(m)).collect::<Vec<_>>())
        .unwrap_or_default();
    let annotated = metrics.len();
    if let Some(cpu) = written.get_field("targetCPUUtilizationPercentage") {
        metrics.push(json!({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": cpu}}}));
    }
    let mut spec = Map::new();
    for field in ["scaleTargetRef", "minReplicas", "maxReplicas"] {
        if let Some(value) = written.get_field(field) {
            spec.insert(field.to_owned(), value.clone());
        }
    }
    spec.entry("minReplicas").or_insert(json!(1));
    spec.insert(
        "metrics".to_owned(),
        match metrics.is_empty() {
            true => default_metrics(),
            false => Json::Array(metrics),
        },
    );
    if let Some(behavior) = annotations
        .field(BEHAVIOR)
        .as_str()
        .and_then(|text| serde_json::from_str::<Json>(text).ok())
        .and_then(|value| go_decode(&value, BEHAVIOR_INTERNAL))
        .filter(|b| !b.field("scaleUp").is_null() || !b.field("scaleDown").is_null())
    {
        spec.insert("behavior".to_owned(), behavior);
    }
    let mut internal = Vec::new();
    self::spec(
        &Json::Object(spec),
        &KeyPath::root().key("spec"),
        &mut internal,
    );
    let annotation = |key: &str| KeyPath::root().key("metadata").key("annotations").key(key);
    for (path, why) in internal {
        let shown = path.to_string();
        let field = shown.strip_prefix("spec.").unwrap_or(&shown);
        let index = (field.strip_prefix("metrics["))
            .and_then(|rest| rest.split_once(']'))
            .and_then(|(i, _)| i.parse::<usize>().ok());
        found.push(match index {
            Some(i) if i < annotated => (
                annotation(METRICS),
                format!("{why} (at {field}, as the server reads this annotation's metrics)"),
            ),
            Some(_) => (
                KeyPath::root()
                    .key("spec")
                    .key("targetCPUUtilizationPercentage"),
                why,
            ),
            None if field.starts_with("behavior") => (
                annotation(BEHAVIOR),
                format!(
                    "{why} (at {field}, as the server reads this annotation; it gives no defaults)"
                ),
            ),
            None => (path, why),
        });
    }
}

/// The checks of an internal spec (`validateHorizontalPodAutoscalerSpec`).
fn spec(spec: &Json, at: &KeyPath, found: &mut Found) {
    let min = whole(spec.field("minReplicas"));
    let max = whole(spec.field("maxReplicas")).unwrap_or(0);
    if let Some(min) = min.filter(|m| *m < 1) {
        found.push((
            at.clone().key("minReplicas"),
            format!("minReplicas {min} is below 1: scaling to zero (the HPAScaleToZero feature) is off by default"),
        ));
    }
    if max < 1 {
        found.push((
            at.clone().key("maxReplicas"),
            format!("maxReplicas {max} is below 1"),
        ));
    }
    if let Some(min) = min.filter(|m| max < *m) {
        found.push((
            at.clone().key("maxReplicas"),
            format!("maxReplicas {max} is below minReplicas {min}"),
        ));
    }
    let target = spec.field("scaleTargetRef");
    let any_group = target.field("kind") == "ReplicationController";
    reference(target, any_group, &at.clone().key("scaleTargetRef"), found);
    for (i, metric) in each(spec.field("metrics")) {
        self::metric(metric, &at.clone().key("metrics").index(i), found);
    }
    for side in ["scaleUp", "scaleDown"] {
        let rules = spec.field("behavior").field(side);
        if !rules.is_null() {
            self::rules(rules, &at.clone().key("behavior").key(side), found);
        }
    }
}

/// A reference to an object (`ValidateCrossVersionObjectReference`): a
/// kind and a name that are path segments, and an apiVersion that is a
/// group/version, with a group unless `any_group`.
fn reference(reference: &Json, any_group: bool, at: &KeyPath, found: &mut Found) {
    for field in ["kind", "name"] {
        let text = reference.field(field).as_str().unwrap_or_default();
        if text.is_empty() {
            found.push((at.clone().key(field), format!("a reference has a {field}")));
        } else if let Err(why) = names::path_segment(text) {
            found.push((
                at.clone().key(field),
                format!("`{text}` is not a valid {field}: {why}"),
            ));
        }
    }
    let version = reference.field("apiVersion").as_str().unwrap_or_default();
    match group_of(version) {
        Err(why) => found.push((at.clone().key("apiVersion"), why)),
        Ok("") if !any_group => found.push((
            at.clone().key("apiVersion"),
            format!("`{version}` names no API group: the apiVersion of a scale target is group/version (apps/v1), but a ReplicationController's"),
        )),
        Ok(_) => {}
    }
}

/// The group of an apiVersion as `schema.ParseGroupVersion` reads it:
/// empty for `""`, `/` and a version alone; an error past one `/`.
fn group_of(version: &str) -> Result<&str, String> {
    match version.matches('/').count() {
        0 => Ok(""),
        1 => Ok(version.split_once('/').map_or("", |(group, _)| group)),
        _ => Err(format!(
            "`{version}` is not an apiVersion: it has more than one `/`"
        )),
    }
}

/// A metric (`validateMetricSpec`): a known type, the source of that type
/// and no other, the first source it sets checked.
fn metric(metric: &Json, at: &KeyPath, found: &mut Found) {
    let kind = metric.field("type").as_str().unwrap_or_default();
    let known = SOURCES.iter().find(|(_, k)| *k == kind);
    if known.is_none() {
        found.push((
            at.clone().key("type"),
            format!("`{kind}` is not a metric type (Object, Pods, Resource, External, ContainerResource)"),
        ));
    }
    let set: Vec<&str> = (SOURCES.iter())
        .map(|(field, _)| *field)
        .filter(|field| !metric.field(field).is_null())
        .collect();
    if let Some(first) = set.first() {
        source(first, metric.field(first), &at.clone().key(*first), found);
    }
    if let Some((field, _)) = known
        && metric.field(field).is_null()
    {
        found.push((
            at.clone().key(*field),
            format!("a metric of type {kind} sets {field}"),
        ));
    }
    if set.len() > 1 {
        for field in set.iter().filter(|f| known.is_none_or(|(k, _)| k != *f)) {
            found.push((
                at.clone().key(*field),
                format!("a metric sets the source of its type alone, not {field}"),
            ));
        }
    }
}

/// The source `field` of a metric: its metric or resource, and the
/// target it needs.
fn source(field: &str, source: &Json, at: &KeyPath, found: &mut Found) {
    let target = source.field("target");
    let has = |f: &str| !target.field(f).is_null();
    let target_at = at.clone().key("target");
    match field {
        "object" => {
            reference(
                source.field("describedObject"),
                true,
                &at.clone().key("describedObject"),
                found,
            );
            identifier(source.field("metric"), &at.clone().key("metric"), found);
        }
        "external" | "pods" => identifier(source.field("metric"), &at.clone().key("metric"), found),
        _ => {
            let name = source.field("name").as_str().unwrap_or_default();
            if name.is_empty() {
                found.push((
                    at.clone().key("name"),
                    "a resource metric names its resource".to_owned(),
                ));
            } else if field == "containerResource"
                && let Err(why) = resources::container_resource_name(name)
            {
                found.push((at.clone().key("name"), why));
            }
        }
    }
    if field == "containerResource" {
        let container = source.field("container").as_str().unwrap_or_default();
        if container.is_empty() {
            found.push((
                at.clone().key("container"),
                "a container resource metric names its container".to_owned(),
            ));
        } else if let Err(why) = names::dns1123_label(container) {
            found.push((
                at.clone().key("container"),
                format!("`{container}` is not a container name: {why}"),
            ));
        }
    }
    self::target(target, &target_at, found);
    let (needs, both): (&[&str], Option<[&str; 2]>) = match field {
        "object" => (&["value", "averageValue"], None),
        "external" => (&["value", "averageValue"], Some(["value", "averageValue"])),
        "pods" => (&["averageValue"], None),
        _ => (
            &["averageUtilization", "averageValue"],
            Some(["averageUtilization", "averageValue"]),
        ),
    };
    if !needs.iter().any(|f| has(f)) {
        found.push((
            target_at.clone().key(needs[needs.len() - 1]),
            format!(
                "the target of {} metric sets {}",
                article(field),
                needs.join(" or ")
            ),
        ));
    }
    if let Some([one, other]) = both
        && has(one)
        && has(other)
    {
        found.push((
            target_at.key(other),
            format!(
                "the target of {} metric sets {one} or {other}, not both",
                article(field)
            ),
        ));
    }
}

/// `a` or `an` before a source's name: `an object`, `a pods`.
fn article(field: &str) -> String {
    match field.starts_with(['o', 'e']) {
        true => format!("an {field}"),
        false => format!("a {field}"),
    }
}

/// A metric's identifier (`validateMetricIdentifier`): a name that is a
/// path segment. Its selector is not checked.
fn identifier(metric: &Json, at: &KeyPath, found: &mut Found) {
    let name = metric.field("name").as_str().unwrap_or_default();
    if name.is_empty() {
        found.push((at.clone().key("name"), "a metric has a name".to_owned()));
    } else if let Err(why) = names::path_segment(name) {
        found.push((
            at.clone().key("name"),
            format!("`{name}` is not a metric name: {why}"),
        ));
    }
}

/// A metric's target (`validateMetricTarget`): a type Utilization, Value
/// or AverageValue; a value and an average value above 0, a utilization
/// of at least 1 (whichever it sets, whatever its type).
fn target(target: &Json, at: &KeyPath, found: &mut Found) {
    let kind = target.field("type").as_str().unwrap_or_default();
    if !matches!(kind, "Utilization" | "Value" | "AverageValue") {
        found.push((
            at.clone().key("type"),
            format!("`{kind}` is not a target type (Utilization, Value, AverageValue)"),
        ));
    }
    for field in ["value", "averageValue"] {
        let value = target.field(field);
        if let Some(Ok(amount)) = crate::quantity::of_value(value)
            && amount.nanos() <= 0
        {
            found.push((
                at.clone().key(field),
                format!("{field} {} is not above 0", super::plain(value)),
            ));
        }
    }
    if let Some(utilization) = whole(target.field("averageUtilization")).filter(|u| *u < 1) {
        found.push((
            at.clone().key("averageUtilization"),
            format!("averageUtilization {utilization} is below 1 (percent of the request)"),
        ));
    }
}

/// Scaling rules (`validateScalingRules`): a stabilization window of 0 to
/// [`MAX_WINDOW`] seconds, a select policy Max, Min or Disabled, at least
/// one policy, each Pods or Percent with a value above 0 over 1 to
/// [`MAX_PERIOD`] seconds, a tolerance not negative.
fn rules(rules: &Json, at: &KeyPath, found: &mut Found) {
    if let Some(window) =
        whole(rules.field("stabilizationWindowSeconds")).filter(|w| !(0..=MAX_WINDOW).contains(w))
    {
        found.push((
            at.clone().key("stabilizationWindowSeconds"),
            format!("stabilizationWindowSeconds {window} is not within 0 to {MAX_WINDOW}"),
        ));
    }
    super::one_of(
        rules.field("selectPolicy"),
        &["Max", "Min", "Disabled"],
        at.clone().key("selectPolicy"),
        found,
    );
    if each(rules.field("policies")).next().is_none() {
        found.push((
            at.clone().key("policies"),
            "scaling rules have at least one policy".to_owned(),
        ));
    }
    for (i, policy) in each(rules.field("policies")) {
        let at = at.clone().key("policies").index(i);
        let kind = policy.field("type").as_str().unwrap_or_default();
        if !matches!(kind, "Pods" | "Percent") {
            found.push((
                at.clone().key("type"),
                format!("`{kind}` is not a scaling policy type (Pods, Percent)"),
            ));
        }
        let value = whole(policy.field("value")).unwrap_or(0);
        if value <= 0 {
            found.push((
                at.clone().key("value"),
                format!("value {value} is not above 0"),
            ));
        }
        let period = whole(policy.field("periodSeconds")).unwrap_or(0);
        if !(1..=MAX_PERIOD).contains(&period) {
            found.push((
                at.clone().key("periodSeconds"),
                format!("periodSeconds {period} is not within 1 to {MAX_PERIOD}"),
            ));
        }
    }
    let tolerance = rules.field("tolerance");
    if let Some(Ok(amount)) = crate::quantity::of_value(tolerance)
        && amount.is_negative()
    {
        found.push((
            at.clone().key("tolerance"),
            format!("tolerance {} is negative", super::plain(tolerance)),
        ));
    }
}

/// A label selector (`metav1.LabelSelector`).
const SELECTOR: Go = Go::Struct(&[
    ("matchLabels", Go::Strings),
    (
        "matchExpressions",
        Go::List(&Go::Struct(&[
            ("key", Go::Text),
            ("operator", Go::Text),
            ("values", Go::List(&Go::Text)),
        ])),
    ),
]);

/// An `autoscaling/v1` `MetricSpec`, as its metrics annotation holds it.
const METRIC_V1: Go = Go::Struct(&[
    ("type", Go::Text),
    (
        "object",
        Go::Struct(&[
            (
                "target",
                Go::Struct(&[
                    ("kind", Go::Text),
                    ("name", Go::Text),
                    ("apiVersion", Go::Text),
                ]),
            ),
            ("metricName", Go::Text),
            ("targetValue", Go::Quantity),
            ("selector", SELECTOR),
            ("averageValue", Go::Quantity),
        ]),
    ),
    (
        "pods",
        Go::Struct(&[
            ("metricName", Go::Text),
            ("targetAverageValue", Go::Quantity),
            ("selector", SELECTOR),
        ]),
    ),
    (
        "resource",
        Go::Struct(&[
            ("name", Go::Text),
            ("targetAverageUtilization", Go::Int32),
            ("targetAverageValue", Go::Quantity),
        ]),
    ),
    (
        "containerResource",
        Go::Struct(&[
            ("name", Go::Text),
            ("targetAverageUtilization", Go::Int32),
            ("targetAverageValue", Go::Quantity),
            ("container", Go::Text),
        ]),
    ),
    (
        "external",
        Go::Struct(&[
            ("metricName", Go::Text),
            ("metricSelector", SELECTOR),
            ("targetValue", Go::Quantity),
            ("targetAverageValue", Go::Quantity),
        ]),
    ),
]);

/// The internal `HPAScalingRules`, which has no JSON names: its Go field
/// names, matched without regard to case.
const RULES_INTERNAL: Go = Go::Struct(&[
    ("stabilizationWindowSeconds", Go::Int32),
    ("selectPolicy", Go::Text),
    (
        "policies",
        Go::List(&Go::Struct(&[
            ("type", Go::Text),
            ("value", Go::Int32),
            ("periodSeconds", Go::Int32),
        ])),
    ),
    ("tolerance", Go::Quantity),
]);

/// The internal `HorizontalPodAutoscalerBehavior`, as the behavior
/// annotation holds it.
const BEHAVIOR_INTERNAL: Go =
    Go::Struct(&[("scaleUp", RULES_INTERNAL), ("scaleDown", RULES_INTERNAL)]);

/// An `autoscaling/v1` metric as the server converts it to the internal
/// type: a source's targets become a target, whose type is the one that
/// is set (`Convert_v1_*MetricSource_To_autoscaling_*`); an object's
/// `targetValue` and a pods metric's `targetAverageValue` are always set
/// (`0` unwritten).
fn v1_metric(metric: &Json) -> Json {
    let mut converted = Map::new();
    if let Some(kind) = metric.get_field("type") {
        converted.insert("type".to_owned(), kind.clone());
    }
    // A Go quantity that is no pointer: `0` where unwritten.
    let or_zero = |v: &Json| match v {
        Json::Null => json!("0"),
        _ => v.clone(),
    };
    let src = |field: &str| metric.field(field);
    let identifier = |name: &Json, selector: &Json| json!({"name": name, "selector": selector});
    if src("object").is_object() {
        let o = src("object");
        let average = o.field("averageValue");
        converted.insert(
            "object".to_owned(),
            json!({
                "describedObject": o.field("target"),
                "metric": identifier(o.field("metricName"), o.field("selector")),
                "target": {
                    "type": if average.is_null() { "Value" } else { "AverageValue" },
                    "value": or_zero(o.field("targetValue")),
                    "averageValue": average,
                },
            }),
        );
    }
    if src("pods").is_object() {
        let p = src("pods");
        let average = p.field("targetAverageValue");
        converted.insert(
            "pods".to_owned(),
            json!({
                "metric": identifier(p.field("metricName"), p.field("selector")),
                "target": {"type": "AverageValue", "averageValue": or_zero(average)},
            }),
        );
    }
    for field in ["resource", "containerResource"] {
        if src(field).is_object() {
            let r = src(field);
            let utilization = r.field("targetAverageUtilization");
            converted.insert(
                field.to_owned(),
                json!({
                    "name": r.field("name"),
                    "container": r.field("container"),
                    "target": {
                        "type": if utilization.is_null() { "AverageValue" } else { "Utilization" },
                        "averageUtilization": utilization,
                        "averageValue": r.field("targetAverageValue"),
                    },
                }),
            );
        }
    }
    if src("external").is_object() {
        let e = src("external");
        let value = e.field("targetValue");
        converted.insert(
            "external".to_owned(),
            json!({
                "metric": identifier(e.field("metricName"), e.field("metricSelector")),
                "target": {
                    "type": if value.is_null() { "AverageValue" } else { "Value" },
                    "value": value,
                    "averageValue": e.field("targetAverageValue"),
                },
            }),
        );
    }
    Json::Object(converted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(object: Json) -> Vec<String> {
        let mut found = Vec::new();
        check(&object, &mut found);
        found
            .into_iter()
            .map(|(path, why)| format!("{path}: {why}"))
            .collect()
    }

    fn v2(spec: Json) -> Vec<String> {
        let mut spec = spec;
        spec.as_object_mut()
            .unwrap()
            .entry("scaleTargetRef")
            .or_insert(json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}));
        found(
            json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "spec": spec}),
        )
    }

    fn v1(spec: Json, annotations: Json) -> Vec<String> {
        let mut spec = spec;
        spec["scaleTargetRef"] =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"});
        found(
            json!({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
            "metadata": {"annotations": annotations}, "spec": spec}),
        )
    }

    #[test]
    fn replicas() {
        assert!(v2(json!({"maxReplicas": 1})).is_empty());
        assert_eq!(
            v2(json!({"minReplicas": 5, "maxReplicas": 3})),
            ["spec.maxReplicas: maxReplicas 3 is below minReplicas 5"]
        );
        assert_eq!(
            v2(json!({"maxReplicas": 0})),
            [
                "spec.maxReplicas: maxReplicas 0 is below 1",
                "spec.maxReplicas: maxReplicas 0 is below minReplicas 1",
            ]
        );
        assert_eq!(
            v2(json!({"minReplicas": 0, "maxReplicas": 2})),
            [
                "spec.minReplicas: minReplicas 0 is below 1: scaling to zero (the HPAScaleToZero feature) is off by default"
            ]
        );
    }

    #[test]
    fn scale_target_reference() {
        let reference = |r: Json| v2(json!({"maxReplicas": 1, "scaleTargetRef": r}));
        assert!(
            reference(json!({"apiVersion": "apps/", "kind": "Deployment", "name": "d"})).is_empty()
        );
        assert!(
            reference(json!({"apiVersion": "v1", "kind": "ReplicationController", "name": "r"}))
                .is_empty()
        );
        assert_eq!(
            reference(json!({"apiVersion": "v1", "kind": "Deployment", "name": "a/b"})),
            [
                "spec.scaleTargetRef.name: `a/b` is not a valid name: '/' is not allowed in a name",
                "spec.scaleTargetRef.apiVersion: `v1` names no API group: the apiVersion of a scale target is group/version (apps/v1), but a ReplicationController's",
            ]
        );
        assert_eq!(
            reference(
                json!({"apiVersion": "a/b/c", "kind": "ReplicationController", "name": ".."})
            )
            .len(),
            2
        );
    }

    #[test]
    fn metrics_and_targets() {
        let metric = |m: Json| v2(json!({"maxReplicas": 1, "metrics": [m]}));
        assert!(metric(json!({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageValue": "1"}}})).is_empty());
        assert_eq!(
            metric(
                json!({"type": "Pods", "pods": {"metric": {"name": "m"}, "target": {"type": "AverageValue", "averageValue": "0"}}})
            ),
            ["spec.metrics[0].pods.target.averageValue: averageValue 0 is not above 0"]
        );
        assert_eq!(
            metric(
                json!({"type": "Object", "object": {"describedObject": {"kind": "Service", "name": "s"}, "metric": {"name": "m"}, "target": {"type": "Value"}}})
            ),
            [
                "spec.metrics[0].object.target.averageValue: the target of an object metric sets value or averageValue"
            ]
        );
        assert_eq!(
            metric(
                json!({"type": "Pods", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 0}}})
            ),
            [
                "spec.metrics[0].resource.target.averageUtilization: averageUtilization 0 is below 1 (percent of the request)",
                "spec.metrics[0].pods: a metric of type Pods sets pods",
            ]
        );
        assert_eq!(
            metric(json!({"type": "ContainerResource", "containerResource": {"name": "pods", "container": "A", "target": {"type": "Bad", "averageUtilization": 1}}})).len(),
            3
        );
    }

    #[test]
    fn scaling_rules_after_defaults() {
        let behavior = |b: Json| v2(json!({"maxReplicas": 1, "behavior": b}));
        // Unset policies are the default ones; an empty list is none.
        assert!(behavior(json!({"scaleUp": {"stabilizationWindowSeconds": 3600}})).is_empty());
        assert_eq!(
            behavior(json!({"scaleDown": {"policies": []}})),
            ["spec.behavior.scaleDown.policies: scaling rules have at least one policy"]
        );
        assert_eq!(
            behavior(
                json!({"scaleUp": {"stabilizationWindowSeconds": 3601, "selectPolicy": "Most", "tolerance": "-0.1",
                "policies": [{"type": "Pods", "value": 0, "periodSeconds": 1801}]}})
            ),
            [
                "spec.behavior.scaleUp.stabilizationWindowSeconds: stabilizationWindowSeconds 3601 is not within 0 to 3600",
                "spec.behavior.scaleUp.selectPolicy: `Most` is not one of Max, Min, Disabled",
                "spec.behavior.scaleUp.policies[0].value: value 0 is not above 0",
                "spec.behavior.scaleUp.policies[0].periodSeconds: periodSeconds 1801 is not within 1 to 1800",
                "spec.behavior.scaleUp.tolerance: tolerance -0.1 is negative",
            ]
        );
    }

    #[test]
    fn v1_is_converted_with_its_annotations() {
        assert_eq!(
            v1(
                json!({"maxReplicas": 2, "targetCPUUtilizationPercentage": 0}),
                json!({})
            ),
            [
                "spec.targetCPUUtilizationPercentage: averageUtilization 0 is below 1 (percent of the request)"
            ]
        );
        // The behavior annotation, its keys in any case, is not defaulted.
        let said = v1(
            json!({"maxReplicas": 2}),
            json!({BEHAVIOR: r#"{"SCALEUP": {"stabilizationWindowSeconds": 10}}"#}),
        );
        assert_eq!(
            said,
            [
                "metadata.annotations.\"autoscaling.alpha.kubernetes.io/behavior\": scaling rules have at least one policy (at behavior.scaleUp.policies, as the server reads this annotation; it gives no defaults)"
            ]
        );
        // A metrics annotation Go cannot decode is ignored.
        assert!(
            v1(
                json!({"maxReplicas": 2}),
                json!({METRICS: r#"[{"type": "Pods", "pods": {"metricName": 5}}]"#})
            )
            .is_empty()
        );
        // A pods metric's unwritten target is 0.
        assert_eq!(
            v1(
                json!({"maxReplicas": 2}),
                json!({METRICS: r#"[{"type": "Pods", "pods": {"metricName": "m"}}]"#})
            )
            .len(),
            1
        );
        // The same annotation on a v2 object is only an annotation.
        assert!(
            found(json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"annotations": {BEHAVIOR: r#"{"scaleUp": {}}"#}},
                "spec": {"maxReplicas": 1, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}}}))
            .is_empty()
        );
    }
}
