//! What the input does not show, said on `info:` lines (never findings):
//! namespaces with no Namespace object, RuntimeClasses from the Kata bundle
//! applied out-of-band, and the prerequisites the objects need that the
//! cluster must already hold (cert-manager's and Kyverno's CRDs).

use std::collections::{BTreeMap, BTreeSet};

use crate::check::facts::{command_line, last_flag, namespace_of, pod_spec};
use crate::check::{Class, Context, Findings};
use crate::plan::adr::EXEMPTIONS_ANNOTATION;
use kubernetes::json::Field;

/// Notes what is used but not in the input.
pub(in crate::check::rules) fn check(context: &Context<'_>, findings: &mut Findings<'_>) {
    unseen_namespaces(context, findings);
    runtime_classes(context, findings);
    prerequisites(context, findings);
}

/// A tool the objects need installed first, known by the API group of its
/// custom resources.
struct Prerequisite {
    /// Its name, the subject of the line.
    name: &'static str,
    /// The API group of its custom resources.
    group: &'static str,
    /// What must be installed, and when.
    install: &'static str,
}

const PREREQUISITES: &[Prerequisite] = &[
    Prerequisite {
        name: "cert-manager",
        group: "cert-manager.io",
        install: "install cert-manager (its CRDs and controller) before applying them",
    },
    Prerequisite {
        name: "Kyverno",
        group: "kyverno.io",
        install: "Kyverno and its policies are the platform's: install it first, with the exclusions `chartgen exemptions` lists",
    },
];

/// The prerequisites the objects show but the input does not hold: custom
/// resources of a prerequisite's API group (a Certificate) whose CRD is
/// not in the input, and, for Kyverno, namespaces whose exemptions
/// annotation names its policies while no Kyverno CRD is in the input.
/// CRDs given with `--crd` count as in the input. Said, not failed: the
/// CRDs are applied out-of-band by their own install.
fn prerequisites(context: &Context<'_>, findings: &mut Findings<'_>) {
    for prerequisite in PREREQUISITES {
        // The project's group and its subgroups (`acme.cert-manager.io`,
        // `policies.kyverno.io`).
        let ours = |group: &str| {
            group == prerequisite.group
                || group
                    .strip_suffix(prerequisite.group)
                    .is_some_and(|sub| sub.ends_with('.'))
        };
        let declared: BTreeSet<(&str, &str)> = context
            .objects
            .iter()
            .copied()
            .chain(&context.extra_crds)
            .filter(|o| kubernetes::manifest::is_crd(o))
            .filter_map(|o| {
                Some((
                    o.field("spec").field("group").as_str()?,
                    o.field("spec").field("names").field("kind").as_str()?,
                ))
            })
            .filter(|(group, _)| ours(group))
            .collect();
        let mut missing: BTreeMap<&str, usize> = BTreeMap::new();
        for object in context.objects {
            let group = kubernetes::manifest::group_of(object);
            if ours(group) {
                let kind = object.field("kind").as_str().unwrap_or_default();
                if !declared.contains(&(group, kind)) {
                    *missing.entry(kind).or_default() += 1;
                }
            }
        }
        let mut needs: Vec<String> = missing
            .iter()
            .map(|(kind, n)| format!("{n} {kind}"))
            .collect();
        if prerequisite.group == "kyverno.io" && declared.is_empty() {
            let named: Vec<&str> = context
                .objects
                .iter()
                .filter(|o| o.field("kind") == "Namespace")
                .filter(|o| {
                    o.field("metadata")
                        .field("annotations")
                        .field(EXEMPTIONS_ANNOTATION)
                        .is_string()
                })
                .filter_map(|o| o.field("metadata").field("name").as_str())
                .collect();
            if !named.is_empty() {
                needs.push(format!(
                    "exemptions from its policies for namespace {}",
                    named.join(", ")
                ));
            }
        }
        if !needs.is_empty() {
            findings.note(
                prerequisite.name,
                format!(
                    "the input relies on it ({}) but holds no CRD of {} for that: {}",
                    needs.join("; "),
                    prerequisite.group,
                    prerequisite.install
                ),
            );
        }
    }
}

/// Namespaces the objects live in but the input has no Namespace object
/// for: their Pod Security and exemptions are not verified; said, not passed.
fn unseen_namespaces(context: &Context<'_>, findings: &mut Findings<'_>) {
    let declared: BTreeSet<&str> = context
        .objects
        .iter()
        .filter(|o| o.field("kind") == "Namespace")
        .filter_map(|o| o.field("metadata").field("name").as_str())
        .collect();
    let used: BTreeSet<(&str, Class)> = context
        .objects
        .iter()
        .filter(|o| o.field("metadata").field("namespace").is_string())
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
        .filter(|o| o.field("kind") == "RuntimeClass")
        .filter_map(|o| o.field("metadata").field("name").as_str())
        .collect();
    let mut by_class: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, user) in wanted(context, &present) {
        by_class.entry(name).or_default().push(user);
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

/// Each RuntimeClass an object names that is not `present`, with the
/// object: (class, object). A class the input holds is passed over
/// before any text is made for it (the Kata class of every untrusted
/// BuildProject, when both bundles are checked together).
fn wanted(context: &Context<'_>, present: &BTreeSet<&str>) -> BTreeSet<(String, String)> {
    let mut wanted = BTreeSet::new();
    for (index, object) in context.objects.iter().enumerate() {
        let user = || context.manifests[index].id.to_string();
        let named = match object.field("kind").as_str() {
            Some("BuildProject") => object.field("spec").field("runtimeClassName").as_str(),
            _ => pod_spec(object).and_then(|(_, pod)| pod.field("runtimeClassName").as_str()),
        };
        if let Some(name) = named.filter(|name| !present.contains(name)) {
            wanted.insert((name.to_owned(), user()));
        }
        if let Some(instance) = context.facts.instance_at(index) {
            let container = &object
                .field("spec")
                .field("template")
                .field("spec")
                .field("containers")[instance.container];
            let args = &command_line(container);
            if let Some(name) = last_flag(args, "--untrusted-runtime-class")
                .filter(|name| !present.contains(name.as_str()))
            {
                wanted.insert((name, user()));
            }
        }
    }
    wanted
}
