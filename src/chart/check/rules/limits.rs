//! LIMITS: the LimitRange of a BuildProject's namespace admits its daemon.
//! buildd starts each project's daemon with the project's `resources`; the
//! LimitRange admission gives a container without a limit its `default`
//! (else its `max`) and refuses a request above the limit so given, or a
//! limit above `max`. The render would apply, and every build of the
//! project would fail. The values side is `model::rules`
//! (`limit_range_admits`).

use serde_json::Value as Json;

use crate::check::{Context, Findings, Invariant};
use crate::diagnostic::KeyPath;
use crate::quantity::Quantity;

/// Checks LIMITS on the operator's BuildProjects.
pub(super) fn check(context: &Context<'_>, findings: &mut Findings<'_>) {
    let ranges: Vec<(&str, &Json)> = context
        .objects
        .iter()
        .filter(|o| o["kind"] == "LimitRange" && o["apiVersion"] == "v1")
        .filter_map(|o| {
            let namespace = o["metadata"]["namespace"].as_str()?;
            let limits = o["spec"]["limits"].as_array()?;
            let container = limits.iter().find(|l| l["type"] == "Container")?;
            Some((namespace, container))
        })
        .collect();
    if ranges.is_empty() {
        return;
    }
    for (index, object) in context.objects.iter().enumerate() {
        if object["kind"] != "BuildProject" || !context.in_scope(index) {
            continue;
        }
        let namespace = object["metadata"]["namespace"].as_str().unwrap_or_default();
        for (_, range) in ranges.iter().filter(|(n, _)| *n == namespace) {
            for (path, message) in refusals(&object["spec"]["resources"], range) {
                findings.report(Invariant::Limits, index, &path, message);
            }
        }
    }
}

/// What the LimitRange `range` (its `Container` item) refuses of a
/// container with `resources`: the path in the BuildProject and why.
fn refusals(resources: &Json, range: &Json) -> Vec<(KeyPath, String)> {
    let amount = |value: &Json| value.as_str().and_then(|t| Quantity::parse(t).ok());
    let text = |value: &Json| value.as_str().unwrap_or_default().to_owned();
    let at = KeyPath::root().key("spec").key("resources");
    let mut found = Vec::new();
    for resource in ["cpu", "memory"] {
        let request = &resources["requests"][resource];
        let limit = &resources["limits"][resource];
        let max = &range["max"][resource];
        if let (Some(l), Some(m)) = (amount(limit), amount(max))
            && l > m
        {
            found.push((
                at.key("limits").key(resource),
                format!(
                    "limits.{resource} {} is above the LimitRange's max.{resource} {}; the API server refuses the daemon's pod",
                    text(limit),
                    text(max)
                ),
            ));
            continue;
        }
        if !limit.is_null() {
            continue;
        }
        let Some(r) = amount(request) else {
            continue;
        };
        let given = [("default", &range["default"][resource]), ("max", max)]
            .into_iter()
            .find_map(|(name, v)| amount(v).map(|q| (name, q, v)));
        if let Some((name, q, value)) = given
            && r > q
        {
            found.push((
                at.key("requests").key(resource),
                format!(
                    "requests.{resource} {} is above the limit {} the LimitRange gives a daemon without limits.{resource} ({name}.{resource}); the API server refuses the daemon's pod",
                    text(request),
                    text(value)
                ),
            ));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(resources: Json, range: Json) -> Vec<String> {
        refusals(&resources, &range)
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
}
