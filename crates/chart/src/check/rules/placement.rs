//! T2: every object in its trust class's namespace (ADR-0006). Where the
//! input does not show a namespace's class, FACT ([`super::missing_fact`])
//! says which fact is missing, from the same placements
//! ([`super::shared::placements`]).

use super::shared::placements::{Placed, placements};
use super::{DOC, Definition, Inputs};
use crate::check::Findings;
use crate::check::rules::Invariant;
use kubernetes::diagnostic::Rule;
use kubernetes::location::KeyPath;

/// T2: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "T2",
        title: "Every object in its trust class's namespace",
        help: "ADR-0006: the control plane (buildd, gateway) in the operator namespace; the build daemons' objects and the BuildProjects in the builds namespace; the Kata node plumbing in the system namespace; nothing of the operator's namespaced outside them. An object is placed by what references it, whatever its labels: the ConfigMap, Secret (or the cert-manager Certificate whose `secretName` writes it) and ServiceAccount that buildd's `--daemon-config`, `--daemon-pod-template`, `--daemon-tls-secret` and `--daemon-service-account` name belong in the builds namespace, and what a workload mounts, reads or runs as belongs in that workload's namespace; a copy where its user needs it is no finding. chartgen's component labels only place what nothing references. Another application's objects, in namespaces of no trust class, are not placed.",
        example: "T2 BuildProject buildkit-operator/web-frontend metadata.namespace: belongs to the builds class, in buildkit-builds, not buildkit-operator",
        doc: DOC,
    },
    section: 80,
    rank: 120,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};

/// T2: an object of a class lives in that class's namespace, and no
/// namespaced object of the operator's lives outside the namespaces the
/// input shows.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let context = inputs.context;
    let known = context.facts.release_known();
    let path = KeyPath::dotted("metadata.namespace");
    for (index, placed) in placements(context) {
        match placed {
            Placed::Misplaced(message) => {
                findings.report(Invariant::Placement, index, &path, message);
            }
            Placed::Unclassed(namespace) if known => findings.report(
                Invariant::Placement,
                index,
                &path,
                format!(
                    "namespace {namespace} is none of the operator, builds and system namespaces"
                ),
            ),
            Placed::Unclassed(_) => {}
        }
    }
}
