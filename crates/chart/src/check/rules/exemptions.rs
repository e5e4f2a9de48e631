//! T4: policy exemptions by trust class (ADR-0006): the Namespace's
//! annotation and the Kyverno exemptions artifact list exactly what the
//! class needs.

use std::collections::BTreeSet;

use serde_json::Value as Json;

use super::shared::namespaces::{ClassedNamespace, classed};
use super::{DOC, Definition, Inputs};
use crate::check::rules::Invariant;
use crate::check::{Context, Findings};
use crate::plan::adr::{EXEMPTIONS_ANNOTATION, Exemption};
use kubernetes::diagnostic::Rule;
use kubernetes::json::Field;
use kubernetes::location::KeyPath;

/// T4: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "T4",
        title: "Policy exemptions by trust class",
        help: "ADR-0006: least privilege per namespace: the operator namespace carries no exemption, the builds namespace the security-context policy's, the system namespace that and the host-path policy's. Checked on chartgen's `buildkit-operator.dev/policy-exemptions` annotation, on `kyverno-exemptions.yaml` when the input has it, and on every Kyverno `PolicyException` (`kyverno.io/v2`, `v2beta1`) in the input, an exemption like any other: one whose match includes the operator namespace (by name, a wildcard, a namespace selector, or no namespace restriction at all) is a finding, and so is one that exempts the builds or system namespace from a policy its class does not need (the policy names are read from the Namespaces' annotation, else chartgen's defaults).",
        example: "T4 Namespace buildkit-system metadata.name: the exemptions artifact does not exclude buildkit-system for disallowHostPath, but the system class needs it",
        doc: DOC,
    },
    section: 110,
    rank: 150,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};

/// Checks T4 on the Namespaces; `artifact` is the Kyverno exemptions
/// artifact, when the input has one.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let (context, artifact) = (inputs.context, inputs.exemptions);
    policy_exceptions(context, findings);
    for namespace in classed(context) {
        let wanted: BTreeSet<&str> = namespace.class.exemptions().collect();
        let annotation = namespace
            .object
            .field("metadata")
            .field("annotations")
            .field(EXEMPTIONS_ANNOTATION)
            .as_str();
        if annotation.is_some() || namespace.ours {
            stated(&namespace, annotation, &wanted, findings);
        }
        match artifact.and_then(Json::as_object) {
            Some(artifact) => listed(&namespace, artifact, &wanted, findings),
            None if !wanted.is_empty() && annotation.is_none() && !namespace.ours => {
                findings.note(
                    format!("Namespace {}", namespace.name),
                    "its Kyverno exemptions were not verified: the input has no kyverno-exemptions.yaml",
                );
            }
            None => {}
        }
    }
}

/// Every Kyverno `PolicyException` is an exemption like the artifact's:
/// one that matches a namespace of a trust class exempts it from a policy
/// its class must need (the operator class needs none).
fn policy_exceptions(context: &Context<'_>, findings: &mut Findings<'_>) {
    let exceptions: Vec<usize> = context
        .objects
        .iter()
        .enumerate()
        .filter(|(_, o)| {
            o.field("kind") == "PolicyException"
                && o.field("apiVersion")
                    .as_str()
                    .is_some_and(|v| v.starts_with("kyverno.io/"))
        })
        .map(|(i, _)| i)
        .collect();
    if exceptions.is_empty() || context.facts.classes.is_empty() {
        return;
    }
    let names = policy_names(context);
    let empty = serde_json::Map::new();
    let labels: std::collections::HashMap<&str, &serde_json::Map<String, Json>> = context
        .objects
        .iter()
        .filter(|o| o.field("kind") == "Namespace")
        .filter_map(|o| {
            Some((
                o.field("metadata").field("name").as_str()?,
                o.field("metadata")
                    .field("labels")
                    .as_object()
                    .unwrap_or(&empty),
            ))
        })
        .collect();
    for index in exceptions {
        let object = context.objects[index];
        let policies: Vec<&str> = object
            .field("spec")
            .field("exceptions")
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e.field("policyName").as_str())
            // A namespaced Policy is named `<namespace>/<name>`.
            .map(|p| p.rsplit('/').next().unwrap_or(p))
            .collect();
        for (namespace, class) in &context.facts.classes {
            let namespace_labels = labels.get(namespace.as_str()).copied();
            if !exception_matches(
                object.field("spec").field("match"),
                namespace,
                namespace_labels,
            ) {
                continue;
            }
            let needed: BTreeSet<&str> = class
                .exemptions()
                .map(|key| names.get(key).map_or("", String::as_str))
                .collect();
            let beyond: Vec<&str> = policies
                .iter()
                .copied()
                // A pattern (`*`) exempts from every policy: not one it needs.
                .filter(|p| !needed.contains(p))
                .collect();
            if beyond.is_empty() {
                continue;
            }
            let message = if needed.is_empty() {
                format!(
                    "exempts {namespace}, the {} namespace, from {}; it carries no exemption (ADR-0006)",
                    class.name(),
                    beyond.join(", ")
                )
            } else {
                format!(
                    "exempts {namespace}, the {} namespace, from {}, which its class does not need; it needs {} only (ADR-0006)",
                    class.name(),
                    beyond.join(", "),
                    needed.iter().copied().collect::<Vec<_>>().join(", ")
                )
            };
            findings.report(
                Invariant::Exemptions,
                index,
                &KeyPath::dotted("spec.match"),
                message,
            );
        }
    }
}

/// The policy of each exemption key in this cluster: from the classed
/// Namespaces' annotation (`security-context=<policy>`), else chartgen's
/// defaults.
fn policy_names(context: &Context<'_>) -> std::collections::HashMap<&'static str, String> {
    let defaults = crate::model::Policies::default();
    let mut names: std::collections::HashMap<&'static str, String> = Exemption::ALL
        .into_iter()
        .map(|e| {
            let name = match e {
                Exemption::SecurityContext => defaults.security_context.as_str(),
                Exemption::HostPath => defaults.disallow_host_path.as_str(),
            };
            (e.key(), name.to_owned())
        })
        .collect();
    for namespace in classed(context) {
        let annotation = namespace
            .object
            .field("metadata")
            .field("annotations")
            .field(EXEMPTIONS_ANNOTATION)
            .as_str()
            .unwrap_or_default();
        for (key, policy) in annotation.split(',').filter_map(|p| p.split_once('=')) {
            if let Some(e) = Exemption::ALL.into_iter().find(|e| e.key() == key) {
                names.insert(e.key(), policy.to_owned());
            }
        }
    }
    names
}

/// Whether a PolicyException's `match` (`any` of its filters, and `all` of
/// them) includes resources in `namespace`: a filter matches when its
/// `resources.namespaces` (wildcards `*`, `?`) and `namespaceSelector`
/// (against the Namespace's labels and the `kubernetes.io/metadata.name`
/// label the API server adds, when the input has it; else taken as
/// matching) both allow it, an absent one allowing every namespace. Who
/// makes the request (`subjects`, `roles`) is not read: it narrows, never
/// widens, and the exemption stands for whoever it names.
fn exception_matches(
    matching: &Json,
    namespace: &str,
    labels: Option<&serde_json::Map<String, Json>>,
) -> bool {
    let filter = |f: &Json| {
        let resources = f.field("resources");
        let by_name = resources
            .field("namespaces")
            .as_array()
            .filter(|n| !n.is_empty())
            .is_none_or(|n| {
                n.iter()
                    .filter_map(Json::as_str)
                    .any(|p| wildcard(p, namespace))
            });
        let selector = resources.field("namespaceSelector");
        let by_labels = selector.is_null()
            || labels.is_none_or(|l| {
                // The control plane labels every Namespace with its name.
                let mut l = l.clone();
                l.insert(NAME_LABEL.to_owned(), Json::String(namespace.to_owned()));
                kubernetes::selector::selects_labels(selector, &l)
            });
        by_name && by_labels
    };
    let any = matching.field("any").as_array();
    let all = matching.field("all").as_array();
    any.is_none_or(|a| a.is_empty() || a.iter().any(filter))
        && all.is_none_or(|a| a.iter().all(filter))
}

/// The label the API server sets on every Namespace to its name
/// (immutable, since Kubernetes 1.22).
const NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// Kyverno's wildcard match: `*` any run of characters, `?` one.
fn wildcard(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// The annotation states the class's exemptions.
fn stated(
    namespace: &ClassedNamespace<'_>,
    annotation: Option<&str>,
    wanted: &BTreeSet<&str>,
    findings: &mut Findings<'_>,
) {
    let keys: BTreeSet<&str> = annotation
        .unwrap_or_default()
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').map_or(p, |(k, _)| k))
        .collect();
    if keys == *wanted {
        return;
    }
    let show = |set: &BTreeSet<&str>| {
        if set.is_empty() {
            "none".to_owned()
        } else {
            set.iter().copied().collect::<Vec<_>>().join(", ")
        }
    };
    findings.report(
        Invariant::Exemptions,
        namespace.index,
        &KeyPath::dotted("metadata.annotations").key(EXEMPTIONS_ANNOTATION),
        format!(
            "states exemptions {}; the {} class needs {} (ADR-0006)",
            show(&keys),
            namespace.class.name(),
            show(wanted)
        ),
    );
}

/// The artifact excludes the namespace from exactly the policies its
/// class needs.
fn listed(
    namespace: &ClassedNamespace<'_>,
    artifact: &serde_json::Map<String, Json>,
    wanted: &BTreeSet<&str>,
    findings: &mut Findings<'_>,
) {
    let name = namespace.name;
    for exemption in Exemption::ALL {
        let key = exemption.values_key();
        let listed = artifact
            .get(key)
            .and_then(|entry| entry.field("excludedNamespaces").as_array())
            .is_some_and(|l| l.iter().any(|n| n == name));
        let needed = wanted.contains(exemption.key());
        if listed != needed {
            findings.report(
                Invariant::Exemptions,
                namespace.index,
                &KeyPath::dotted("metadata.name"),
                format!(
                    "the exemptions artifact {} {name} for {key}, but the {} class {} it",
                    if listed {
                        "excludes"
                    } else {
                        "does not exclude"
                    },
                    namespace.class.name(),
                    if needed { "needs" } else { "does not need" }
                ),
            );
        }
    }
}
