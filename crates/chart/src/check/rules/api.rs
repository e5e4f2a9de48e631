//! API: objects keep the API server's listed field rules. The check is
//! [`kubernetes::api`]'s, modelled on the API server's validation, on
//! every object as the API server validates it, decoded and defaulted
//! ([`kubernetes::kube::as_validated`]); it runs when the schemas are given
//! (`check`, not `relations`). A CRD whose claim another CRD took is API
//! too, reported by K8S's schema pass ([`super::schema`]), which finds it.

use super::{DOC, Definition, Inputs};
use crate::check::Findings;
use crate::check::rules::Invariant;
use kubernetes::api::problems_remembering;
use kubernetes::diagnostic::Rule;
use kubernetes::manifest::ObjectScope;
use kubernetes::metadata::ValidKeys;

/// API: what `docs/checks.md` says of it (its help, which lists every
/// rule modelled, in `api.md` beside this file), and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "API",
        title: "Objects keep the API server's listed field rules",
        help: include_str!("api.md").trim_ascii_end(),
        example: "API Service buildkit-operator/1-gateway metadata.name: `1-gateway` is not a valid Service name: a DNS-1035 label starts with a letter",
        doc: DOC,
    },
    section: 170,
    rank: 200,
    check: Some(check),
    appendix: None,
    per_object: true,
    generic: Some("the API server's rules"),
};

/// Checks every object against the API server's listed rules, when the
/// run has the schemas. The label and annotation keys found valid are
/// remembered for this run only: the objects mostly share them.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let Some(options) = inputs.schema else {
        return;
    };
    let context = inputs.context;
    let read: Vec<Option<_>> = (context.objects.iter())
        .map(|o| kubernetes::kube::as_validated(o, options.schemas))
        .collect();
    let mut valid = ValidKeys::default();
    for (index, (written, read)) in context.objects.iter().zip(&read).enumerate() {
        let object = read.as_ref().unwrap_or(written);
        let scope = ObjectScope::of(&context.manifests[index].id);
        for (path, message) in problems_remembering(object, scope, &mut valid) {
            findings.report(Invariant::Api, index, &path, message);
        }
    }
}
