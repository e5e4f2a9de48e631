//! ROOTFS: the control plane's root filesystem is read-only. Reported by
//! [`super::pod_security`], which judges each pod's class once for both.


use super::{DOC, Definition};
use kubernetes::diagnostic::Rule;

/// ROOTFS: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "ROOTFS",
            title: "The control plane's root filesystem is read-only",
            help: "ADR-0006 hardens the control plane beyond Pod Security `restricted`: every container, init containers included, of a pod in the operator namespace (and in a namespace the input shows no class for, held to the operator class) sets `securityContext.readOnlyRootFilesystem: true` (a Windows pod, `spec.os.name: windows`, cannot set it and is not held to it). No Pod Security control asks for it, so the cluster's admission never refuses such a pod: only this rule does.",
            example: "ROOTFS Deployment buildkit-operator/buildkit-buildd spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem: readOnlyRootFilesystem is not true; the operator class in buildkit-operator does not allow it",
        doc: DOC,
    },
    section: 100,
    rank: 140,
    check: None,
    appendix: None,
};
