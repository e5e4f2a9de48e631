//! IMAGE: every image reference can be pulled. Reported by the API
//! server's check ([`super::api`]), which reads every pod's containers.


use super::{DOC, Definition};
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
    check: None,
    appendix: None,
    per_object: false,
};
