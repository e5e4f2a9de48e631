//! Rules K8S and KIND, and API for a CRD's claim: every object against its
//! schema, judged by [`kubernetes::kube::conformance`]; this words its
//! verdicts as the chart's findings, naming `chartgen`'s flags in hints.

use kubernetes::kube::conformance::{self, Unknown, Verdict};
use kubernetes::location::KeyPath;

use super::rules::Invariant;
use super::{Context, Findings, Options};

/// Checks every object of `context`.
pub fn check(context: &Context<'_>, findings: &mut Findings<'_>, options: &Options<'_>) {
    let verdicts = conformance::check(context.objects, options.schemas, &context.extra_crds);
    for (index, verdict) in verdicts {
        match verdict {
            Verdict::Invalid(path, message) => {
                findings.report(Invariant::Schema, index, &path, message);
            }
            Verdict::Unknown(unknown) => {
                let message = format!("{unknown}; {}", hint(&unknown));
                findings.report(Invariant::UnknownKind, index, &KeyPath::root(), message);
            }
            Verdict::Uncompiled(why) | Verdict::NotStored(why) => {
                findings.report(Invariant::UnknownKind, index, &KeyPath::root(), why);
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
