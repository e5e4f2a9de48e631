//! T1: each trust class in a namespace of its own, none reserved
//! (ADR-0006). The values side is `model::rules::check_namespaces`.

use super::namespaces::namespace_objects;
use crate::check::{Context, Findings, Invariant};
use crate::model::rules::RESERVED_NAMESPACES;
use kubernetes::diagnostic::KeyPath;

/// Checks T1 on the classes the input shows.
pub(super) fn check(context: &Context<'_>, findings: &mut Findings<'_>) {
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
                Invariant::T1,
                index,
                &KeyPath::dotted("metadata.name"),
                message,
            );
        }
    }
}
