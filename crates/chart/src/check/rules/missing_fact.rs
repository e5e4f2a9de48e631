//! FACT: the input shows what the checks need. The trust classes come from
//! what the manifests show (buildd and its `--namespace`); when the input
//! does not show them, the operator's objects in a namespace of no class
//! cannot be placed (T2, [`super::placement`]): FACT says which fact is
//! missing, once per namespace.

use std::collections::BTreeSet;

use super::shared::placements::{Placed, placements};
use super::{DOC, Definition, Inputs};
use crate::check::rules::Invariant;
use crate::check::{Context, Findings};
use kubernetes::diagnostic::Rule;
use kubernetes::location::KeyPath;

/// FACT: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "FACT",
        title: "The input shows what the checks need",
        help: "The trust classes come from what the manifests show, not from labels: the operator namespace is where buildd runs, the builds namespace is buildd's `--namespace` (else where the BuildProjects are), the system namespace is where the Kata node plumbing runs (privileged or host-path, running a Kata image, or in a Namespace labelled as the system class; another application's privileged DaemonSet is none). When the operator's objects (BuildProjects, objects carrying chartgen's component label, what buildd's flags name) live in a namespace whose class the input does not show, `check` says which fact is missing, once per namespace, instead of passing or guessing. Another application's objects need no class and draw no FACT.",
        example: "FACT BuildProject ci-builds/pr-forks metadata.namespace: the trust class of namespace ci-builds cannot be told: the input has no buildd Deployment (a container named buildd or running a buildd image), so neither the operator namespace (where buildd runs) nor the builds namespace (its --namespace) is shown; its objects' placement is not verified",
        doc: DOC,
    },
    section: 150,
    rank: 190,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};

/// Checks FACT: once per namespace of the operator's objects whose class
/// cannot be told, when the input does not show every class.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let context = inputs.context;
    if context.facts.release_known() {
        return;
    }
    let lacking = missing_fact(context);
    let mut reported: BTreeSet<&str> = BTreeSet::new();
    for (index, placed) in placements(context) {
        if let Placed::Unclassed(namespace) = placed
            && reported.insert(namespace)
        {
            findings.report(
                Invariant::MissingFact,
                index,
                &KeyPath::dotted("metadata.namespace"),
                format!("the trust class of namespace {namespace} cannot be told: {lacking}; its objects' placement is not verified"),
            );
        }
    }
}

/// Which fact the input lacks to tell the classes.
fn missing_fact(context: &Context<'_>) -> String {
    match context.facts.instances.iter().find(|i| i.builds.is_none()) {
        None => "the input has no buildd Deployment (a container named buildd or running a buildd image), so neither the operator namespace (where buildd runs) nor the builds namespace (its --namespace) is shown".to_owned(),
        Some(instance) => format!(
            "buildd in {} names no builds namespace (--namespace) and no BuildProject shows one",
            instance.operator
        ),
    }
}
