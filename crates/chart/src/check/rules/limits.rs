//! LIMITS: the LimitRange of a BuildProject's namespace admits its daemon.
//! buildd starts each project's daemon with the project's `resources`; the
//! LimitRange admission gives a container without a limit its `default`
//! (else its `max`) and refuses a request above the limit so given, or a
//! limit above `max`. The render would apply, and every build of the
//! project would fail. The values side is `model::rules`
//! (`limit_range_admits`).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value as Json;

use crate::check::facts::namespace_of;
use crate::check::{Findings, Invariant};
use kubernetes::json::Field;
use kubernetes::location::KeyPath;
use kubernetes::quantity::Quantity;
use super::{DOC, Definition, Inputs};
use kubernetes::diagnostic::Rule;

/// LIMITS: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "LIMITS",
        title: "The LimitRange of a BuildProject's namespace admits its daemon",
        help: "buildd starts each BuildProject's daemon with the project's `spec.resources`. The LimitRange admission of its namespace gives a container without a limit the LimitRange's `default` (else its `max`) and refuses a container whose request is above the limit so given, or whose limit is above `max`, for CPU and memory alike: the render would apply and every build of the project would fail. Each such request and limit of the operator's BuildProjects is a finding, checked against each `Container` and `Pod` item of a LimitRange in their namespace that the input holds (an object that names no namespace, a LimitRange as a BuildProject, lives in `default`). The chart's own LimitRange sets no default CPU limit and no CPU maximum (docs/values.md, `builds.limitRange`): a daemon that sets no CPU limit is neither capped nor refused; `validate` refuses values whose daemons the LimitRange would refuse.",
        example: "LIMITS BuildProject buildkit-builds/platform-api spec.resources.requests.cpu: requests.cpu 4 is above the limit 2 the LimitRange gives a daemon without limits.cpu (default.cpu); the API server refuses the daemon's pod",
        doc: DOC,
    },
    section: 190,
    rank: 220,
    check: Some(check),
    appendix: None,
    per_object: false,
};

/// Checks LIMITS on the operator's BuildProjects.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let context = inputs.context;
    // Every `Container` and `Pod` item of every LimitRange, by namespace
    // (one that names none lives in `default`, as a BuildProject that
    // names none does): the admission applies each.
    let mut ranges: HashMap<&str, Vec<&Json>> = HashMap::new();
    for object in context.objects {
        if object.field("kind") != "LimitRange" || object.field("apiVersion") != "v1" {
            continue;
        }
        let namespace = namespace_of(object);
        let items = (object.field("spec").field("limits").as_array().into_iter().flatten())
            .filter(|l| l.field("type") == "Container" || l.field("type") == "Pod");
        ranges.entry(namespace).or_default().extend(items);
    }
    if ranges.is_empty() {
        return;
    }
    // What the last project was refused, in its namespace with its
    // resources: the projects of a values file mostly share both (the
    // daemons' defaults), and the next such project is refused alike.
    let mut last: Option<(&str, &Json, BTreeMap<KeyPath, String>)> = None;
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
            let Some(items) = ranges.get(namespace) else {
                continue;
            };
            // Each field once, whichever item refuses it first.
            let mut refused: BTreeMap<KeyPath, String> = BTreeMap::new();
            for item in items {
                for (path, message) in refusals(resources, item) {
                    refused.entry(path).or_insert(message);
                }
            }
            last = Some((namespace, resources, refused));
        }
        let refused = last.as_ref().map(|(.., refused)| refused).into_iter().flatten();
        for (path, message) in refused {
            findings.report(Invariant::Limits, index, path, message.clone());
        }
    }
}

/// What the LimitRange item `range` refuses of a daemon's one container
/// with `resources`: the path in the BuildProject and why. A `Container`
/// item gives a container without a limit its `default` (else its `max`)
/// and caps it at `max`; a `Pod` item caps the pod, here its one
/// container, at `max`. A quantity may be written as a string or a number.
fn refusals(resources: &Json, range: &Json) -> Vec<(KeyPath, String)> {
    let text = |value: &Json| match value {
        Json::String(s) => s.clone(),
        Json::Number(n) => n.to_string(),
        _ => String::new(),
    };
    // A string is parsed where it is, a number written first; anything
    // else is no quantity (its text, empty, parses to none).
    let amount = |value: &Json| match value {
        Json::String(s) => Quantity::parse(s).ok(),
        Json::Number(n) => Quantity::parse(&n.to_string()).ok(),
        _ => None,
    };
    let pod = range.field("type") == "Pod";
    // The path is made only for a refusal.
    let at = || KeyPath::root().key("spec").key("resources");
    let mut found = Vec::new();
    for resource in ["cpu", "memory"] {
        let request = resources.field("requests").field(resource);
        let limit = resources.field("limits").field(resource);
        let max = range.field("max").field(resource);
        if let (Some(l), Some(m)) = (amount(limit), amount(max))
            && l > m
        {
            found.push((
                at().key("limits").key(resource),
                format!(
                    "limits.{resource} {} is above the LimitRange's max.{resource} {}{}; the API server refuses the daemon's pod",
                    text(limit),
                    text(max),
                    if pod { " (for the whole pod)" } else { "" }
                ),
            ));
            continue;
        }
        if !limit.is_null() || pod {
            continue;
        }
        let Some(r) = amount(request) else {
            continue;
        };
        let given = [("default", range.field("default").field(resource)), ("max", max)]
            .into_iter()
            .find_map(|(name, v)| amount(v).map(|q| (name, q, v)));
        if let Some((name, q, value)) = given
            && r > q
        {
            found.push((
                at().key("requests").key(resource),
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
        // A Pod item gives no container a default limit.
        assert!(messages(json!({"requests": {"cpu": "3"}}), pod).is_empty());
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
        assert_eq!(messages(json!({"requests": {"cpu": "3"}}), range.clone()).len(), 1);
        for other in [json!(true), json!(null), json!({"a": 1}), json!(["4"])] {
            assert!(
                messages(json!({"requests": {"cpu": other}, "limits": {"cpu": other}}), range.clone())
                    .is_empty(),
                "{other}"
            );
        }
    }
}
