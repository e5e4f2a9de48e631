//! FACT: the input shows what the checks need. Reported by
//! [`super::placement`], which finds the namespace whose class the input
//! does not show.


use super::{DOC, Definition};
use kubernetes::diagnostic::Rule;

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
    check: None,
    appendix: None,
};
