//! T4: policy exemptions by trust class (ADR-0006): the Namespace's
//! annotation and the Kyverno exemptions artifact list exactly what the
//! class needs.

use std::collections::BTreeSet;

use serde_json::Value as Json;

use super::namespaces::{ClassedNamespace, classed};
use crate::check::{Context, Findings, Invariant};
use crate::diagnostic::KeyPath;
use crate::plan::{EXEMPTIONS_ANNOTATION, Exemption};

/// Checks T4 on the Namespaces; `artifact` is the Kyverno exemptions
/// artifact, when the input has one.
pub(super) fn check(context: &Context<'_>, findings: &mut Findings<'_>, artifact: Option<&Json>) {
    for namespace in classed(context) {
        let wanted: BTreeSet<&str> = namespace.class.exemptions().collect();
        let annotation =
            namespace.object["metadata"]["annotations"][EXEMPTIONS_ANNOTATION].as_str();
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
        Invariant::T4,
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
            .and_then(|entry| entry["excludedNamespaces"].as_array())
            .is_some_and(|l| l.iter().any(|n| n == name));
        let needed = wanted.contains(exemption.key());
        if listed != needed {
            findings.report(
                Invariant::T4,
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
