//! T1: each trust class in a namespace of its own, none reserved
//! (ADR-0006). The values side is `model::rules::check_namespaces`.

use super::shared::namespaces::namespace_objects;
use super::{DOC, Definition, Inputs};
use crate::check::Findings;
use crate::check::rules::Invariant;
use crate::model::rules::RESERVED_NAMESPACES;
use kubernetes::diagnostic::Rule;
use kubernetes::location::KeyPath;

/// T1: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "T1",
        title: "Distinct namespaces, none reserved",
        help: "ADR-0006: each trust class has a namespace of its own, and none is `default`, `kube-system`, `kube-public` or `kube-node-lease` (ADR-0006 rejected Kata in kube-system). A namespace that the manifests put in two classes (buildd's own namespace as its builds namespace, say) is a finding.",
        example: "T1 Namespace kube-system metadata.name: the system class lives in the reserved namespace kube-system",
        doc: DOC,
    },
    section: 70,
    rank: 110,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};

/// Checks T1 on the classes the input shows.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let context = inputs.context;
    let mut broken: Vec<(&str, String)> = context
        .facts
        .classes
        .iter()
        .filter(|(name, _)| RESERVED_NAMESPACES.contains(&name.as_str()))
        .map(|(name, class)| {
            let message = format!(
                "the {} class lives in the reserved namespace {name}",
                class.name()
            );
            (name.as_str(), message)
        })
        .collect();
    broken.extend(context.facts.conflicts.iter().map(|(name, first, second)| {
        let message = format!(
            "the {} and {} classes share namespace {name}",
            first.name(),
            second.name()
        );
        (name.as_str(), message)
    }));
    if broken.is_empty() {
        return;
    }
    let objects = namespace_objects(context);
    for (name, message) in broken {
        if let Some(&index) = objects.get(name) {
            findings.report(
                Invariant::DistinctNamespaces,
                index,
                &KeyPath::dotted("metadata.name"),
                message,
            );
        }
    }
}
