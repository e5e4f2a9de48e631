//! What the input does not show, said on `info:` lines (never findings):
//! namespaces with no Namespace object, RuntimeClasses from the Kata bundle
//! applied out-of-band.

use std::collections::{BTreeMap, BTreeSet};

use crate::check::facts::{command_line, last_flag, namespace_of, pod_spec};
use crate::check::{Class, Context, Findings};

/// Notes what is used but not in the input.
pub(super) fn check(context: &Context<'_>, findings: &mut Findings<'_>) {
    unseen_namespaces(context, findings);
    runtime_classes(context, findings);
}

/// Namespaces the objects live in but the input has no Namespace object
/// for: their Pod Security and exemptions are not verified; said, not passed.
fn unseen_namespaces(context: &Context<'_>, findings: &mut Findings<'_>) {
    let declared: BTreeSet<&str> = context
        .objects
        .iter()
        .filter(|o| o["kind"] == "Namespace")
        .filter_map(|o| o["metadata"]["name"].as_str())
        .collect();
    let used: BTreeSet<(&str, Class)> = context
        .objects
        .iter()
        .filter(|o| o["metadata"]["namespace"].is_string())
        .filter_map(|o| {
            let namespace = namespace_of(o);
            context.class_of(namespace).map(|c| (namespace, c))
        })
        .collect();
    for (namespace, class) in used {
        if !declared.contains(namespace) {
            findings.note(
                format!("Namespace {namespace}"),
                format!(
                    "not in the input (the {} class's namespace): its Pod Security level and policy exemptions were not verified",
                    class.name()
                ),
            );
        }
    }
}

/// RuntimeClasses the objects name but the input does not hold: with the
/// Kata bundle applied out-of-band that is expected, so it is said, not
/// reported as a finding.
fn runtime_classes(context: &Context<'_>, findings: &mut Findings<'_>) {
    let present: BTreeSet<&str> = context
        .objects
        .iter()
        .filter(|o| o["kind"] == "RuntimeClass")
        .filter_map(|o| o["metadata"]["name"].as_str())
        .collect();
    let mut by_class: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, user) in wanted(context) {
        if !present.contains(name.as_str()) {
            by_class.entry(name).or_default().push(user);
        }
    }
    for (name, users) in by_class {
        // A few users name it; thousands would make a line no one reads.
        const SHOWN: usize = 5;
        let mut used_by = users[..users.len().min(SHOWN)].join(", ");
        if users.len() > SHOWN {
            used_by += &format!(" and {} more", users.len() - SHOWN);
        }
        findings.note(
            format!("RuntimeClass {name}"),
            format!(
                "used by {used_by} but not in the input; the Kata bundle provides it, applied out-of-band: check both bundles together to verify it"
            ),
        );
    }
}

/// Each RuntimeClass an object names, with the object: (class, object).
fn wanted(context: &Context<'_>) -> BTreeSet<(String, String)> {
    let mut wanted = BTreeSet::new();
    for (index, object) in context.objects.iter().enumerate() {
        let user = || context.manifests[index].id.to_string();
        let named = match object["kind"].as_str() {
            Some("BuildProject") => object["spec"]["runtimeClassName"].as_str(),
            _ => pod_spec(object).and_then(|(_, pod)| pod["runtimeClassName"].as_str()),
        };
        if let Some(name) = named {
            wanted.insert((name.to_owned(), user()));
        }
        if let Some(instance) = context.facts.instance_at(index) {
            let container = &object["spec"]["template"]["spec"]["containers"][instance.container];
            let args = &command_line(container);
            if let Some(name) = last_flag(args, "--untrusted-runtime-class") {
                wanted.insert((name, user()));
            }
        }
    }
    wanted
}
