//! K8S: every object matches its Kubernetes schema, strictly. The check
//! words the verdicts of [`kubernetes::kube::conformance`] as the chart's
//! findings, naming `chartgen`'s flags in hints; it runs when the schemas
//! are given (`check`, not `relations`). Its one pass over the objects
//! (the CRDs' schemas compiled once) reports KIND too, for a kind it has
//! no schema for ([`super::unknown_kind`]), and API for a CRD whose claim
//! another CRD took ([`super::api`]).

use super::{DOC, Definition, Inputs};
use crate::check::Findings;
use crate::check::rules::Invariant;
use kubernetes::diagnostic::Rule;
use kubernetes::kube::conformance::{self, Unknown, Verdict};
use kubernetes::location::KeyPath;

/// K8S: what `docs/checks.md` says of it (its help, long, in `schema.md`
/// beside this file), and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "K8S",
        title: "Every object matches its Kubernetes schema, strictly",
        help: include_str!("schema.md").trim_ascii_end(),
        example: "K8S Deployment buildkit-operator/buildkit-buildd spec: Additional properties are not allowed ('revisionHistoryLimt' was unexpected); did you mean `revisionHistoryLimit`?",
        doc: DOC,
    },
    section: 160,
    rank: 10,
    check: Some(check),
    appendix: None,
    per_object: true,
    generic: Some("the schema"),
};

/// Checks every object against its schema, when the run has the schemas:
/// K8S, KIND and API (a CRD's claim taken) from one pass.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let Some(options) = inputs.schema else {
        return;
    };
    let context = inputs.context;
    let verdicts = conformance::check(context.objects, options.schemas, &context.extra_crds);
    for (index, verdict) in verdicts {
        match verdict {
            Verdict::Invalid(path, message, field) => {
                let key = field.as_deref();
                findings.report_at_key(Invariant::Schema, index, &path, key, message);
            }
            Verdict::Unknown(unknown) => {
                let message = format!("{unknown}; {}", hint(&unknown));
                findings.report(Invariant::UnknownKind, index, &KeyPath::root(), message);
            }
            Verdict::Uncompiled(why) | Verdict::NotStored(why) => {
                findings.report(Invariant::UnknownKind, index, &KeyPath::root(), why);
            }
            Verdict::Unjudged(why) => {
                findings.note(context.manifests[index].id.to_string(), why);
            }
            Verdict::ClaimTaken(why) => {
                let at = KeyPath::dotted(Verdict::CLAIM);
                findings.report(Invariant::Api, index, &at, why);
            }
        }
    }
}

/// What to do about a kind without a schema: a built-in one is not served
/// at the version checked; any other needs its CRD.
fn hint(unknown: &Unknown) -> String {
    match unknown.served.as_deref() {
        None => "give its CRD with --crd".to_owned(),
        Some([]) => {
            "no built-in kind of this Kubernetes version (--kube-version) has that name".to_owned()
        }
        Some(served) => format!(
            "the Kubernetes version checked (--kube-version) serves {} at {} only",
            unknown.kind,
            served.join(", ")
        ),
    }
}
