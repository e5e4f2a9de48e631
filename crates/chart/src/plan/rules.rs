//! The values' rules that only the plan can judge: what the render will
//! hold, computed as the render computes it. They run after the model's
//! rules (`model::rules`), in the values stage, and report key paths as
//! those do.

use std::collections::BTreeMap;

use kubernetes::location::KeyPath;
use kubernetes::names;

use super::{Plan, VERSION_LABEL, versioned_images};
use crate::model::Values;
use crate::model::pod::ANNOTATIONS_MAX_BYTES;
use crate::model::violation::RuleBreach;

/// Checks every rule of the plan and returns all violations, in a stable
/// order.
pub fn check(values: &Values) -> Vec<RuleBreach> {
    let mut violations = Vec::new();
    check_annotations_size(values, &mut violations);
    check_versions(values, &mut violations);
    violations
}

/// The common annotations go on every object, beside the chart's own (a
/// Namespace's exemptions annotation): each object's annotations, keys and
/// values together, within the API server's 256 KiB. The largest set is a
/// rendered Namespace's, read from the plan the render uses.
fn check_annotations_size(values: &Values, violations: &mut Vec<RuleBreach>) {
    let size = |map: &BTreeMap<String, String>| -> usize {
        map.iter().map(|(key, value)| key.len() + value.len()).sum()
    };
    let common = size(&values.common_annotations);
    // The chart's own annotations are names of policies, far below 64 KiB:
    // only common annotations that large need the plan.
    if common <= ANNOTATIONS_MAX_BYTES - 64 * 1024 {
        return;
    }
    let plan = Plan::new(values);
    let namespaces = &plan.namespaces;
    // The Namespaces the render holds: the operator's and builds' when the
    // chart creates them, the system's with the Kata bundle.
    let largest = [
        (
            namespaces.create,
            &namespaces.operator.name,
            &namespaces.operator.annotations,
        ),
        (
            namespaces.create,
            &namespaces.builds.name,
            &namespaces.builds.annotations,
        ),
        (
            plan.kata_deploy.is_some(),
            &namespaces.system.name,
            &namespaces.system.annotations,
        ),
    ]
    .into_iter()
    .filter(|(rendered, ..)| *rendered)
    .map(|(_, name, annotations)| (size(annotations), name))
    .max()
    .filter(|(bytes, _)| *bytes > common);
    let (bytes, object) = match largest {
        Some((bytes, name)) => (bytes, format!("Namespace {name}")),
        None => (common, "every object".to_owned()),
    };
    let max = ANNOTATIONS_MAX_BYTES;
    if bytes > max {
        violations.push(RuleBreach {
            path: KeyPath::dotted("commonAnnotations"),
            also: Vec::new(),
            message: format!(
                "the annotations of {object} hold {bytes} bytes with the common annotations; the API server takes at most {max}"
            ),
            hint: Some("keep large data out of annotations, in a ConfigMap for instance".to_owned()),
            at_key: false,
        });
    }
}

/// Each tag that becomes a workload's version label is a label value.
fn check_versions(values: &Values, violations: &mut Vec<RuleBreach>) {
    for (key, image, workload) in versioned_images(values) {
        let tag = &image.tag;
        if let Err(why) = names::label_value(tag) {
            let label = VERSION_LABEL;
            violations.push(RuleBreach {
                path: KeyPath::dotted("images").key(key).key("tag"),
                also: Vec::new(),
                message: format!(
                    "`{tag}` cannot be the {label} label of {workload}: {why}"
                ),
                hint: Some(format!(
                    "images.{key}.tag becomes the {label} label of {workload} and its pods; label values are at most 63 letters, digits, `-`, `_` or `.`, starting and ending with a letter or digit"
                )),
                at_key: false,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tag_that_becomes_a_version_label_is_a_label_value() {
        let mut values = Values::default();
        values.kata.enabled = true;
        values.kata.vcpu_tuning.enabled = true;
        values.images.buildd.tag = "0.5.0-".into();
        values.images.gateway.tag = "g".repeat(64);
        values.images.buildkitd.tag = "_not-a-label".into();
        values.images.kata_deploy.tag = "_3.23".into();
        values.images.vcpu_tune.tag = "0.5.0".into();
        let found: Vec<(String, String)> = check(&values)
            .into_iter()
            .map(|v| (v.path.to_string(), v.message))
            .collect();
        let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        // buildkitd's tag labels nothing: buildd runs the daemons.
        assert_eq!(
            paths,
            [
                "images.buildd.tag",
                "images.gateway.tag",
                "images.kataDeploy.tag"
            ]
        );
        assert!(
            found[0].1.starts_with(
                "`0.5.0-` cannot be the app.kubernetes.io/version label of the buildd Deployment: "
            ),
            "{}",
            found[0].1
        );
        assert!(found[2].1.contains("of the kata-deploy DaemonSet: "));
        values.kata.enabled = false;
        let paths: Vec<String> = check(&values).iter().map(|v| v.path.to_string()).collect();
        assert_eq!(paths, ["images.buildd.tag", "images.gateway.tag"]);
    }
}
