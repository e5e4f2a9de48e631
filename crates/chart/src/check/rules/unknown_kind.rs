//! KIND: every kind has a schema, and is one the API server keeps.
//! Reported by K8S's schema pass ([`super::schema`], whose verdicts say
//! which kinds have no schema): the one pass over the objects, the CRDs'
//! schemas compiled once, so KIND has no check of its own.

use super::{DOC, Definition};
use kubernetes::diagnostic::Rule;

/// KIND: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "KIND",
        title: "Every kind has a schema",
        help: "An object of a kind with no schema (no vendored schema, no CRD) cannot be checked; it is a finding, never a silent pass. So is a built-in kind at an alpha or beta version (`resource.k8s.io/v1beta1`, `admissionregistration.k8s.io/v1beta1`): Kubernetes serves none of them unless its API server's `--runtime-config` turns them on, so a default cluster refuses the object; the finding names the versions that are served. So, last, is a built-in kind the API server keeps no object of: the body of a subresource (an `Eviction`, a `Scale`, a `TokenRequest`), a request it answers and forgets (a `Binding`, the reviews: `TokenReview`, `SubjectAccessReview` and the others) and the read-only `ComponentStatus`: a server-side apply of one is refused.",
        example: "KIND Widget buildkit-builds/w: no schema for example.com/v1 Widget; give its CRD with --crd",
        doc: DOC,
    },
    section: 200,
    rank: 20,
    check: None,
    appendix: None,
    per_object: false,
    generic: Some("the schema"),
};
