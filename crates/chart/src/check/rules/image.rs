//! IMAGE: every image reference can be pulled. The check is
//! [`kubernetes::api::images`], on every object's containers as written;
//! it runs when the schemas are given (`check`, not `relations`), as API's
//! does.

use super::{DOC, Definition, Inputs};
use crate::check::Findings;
use crate::check::rules::Invariant;
use kubernetes::diagnostic::Rule;

/// IMAGE: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "IMAGE",
        title: "Every image reference can be pulled",
        help: "An image reference is checked in the distribution grammar the kubelet parses it with (`[registry/]repository[:tag][@digest]`, lowercase repository paths, a digest of its algorithm's length). The API server accepts any text there; a reference the kubelet cannot parse leaves the pod in `InvalidImageName`, pulling nothing.",
        example: "IMAGE Deployment buildkit-operator/buildkit-buildd spec.template.spec.containers[0].image: `ghcr.io/Acme/buildd:1` is not an image reference (`ghcr.io/Acme/buildd` is no `[registry/]path` of lowercase letters, digits and single separators); the kubelet cannot pull it",
        doc: DOC,
    },
    section: 180,
    rank: 210,
    check: Some(check),
    appendix: None,
    per_object: true,
    generic: Some("image references the kubelet cannot parse"),
};

/// Checks every image reference of every object, when the run has the
/// schemas.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    if inputs.schema.is_none() {
        return;
    }
    for (index, object) in inputs.context.objects.iter().enumerate() {
        for (path, message) in kubernetes::api::images(object) {
            findings.report(Invariant::Image, index, &path, message);
        }
    }
}
