//! ROOTFS: the control plane's root filesystem is read-only (ADR-0006's
//! hardening beyond Pod Security `restricted`): every container of a pod
//! the ADRs hold to `restricted` (the operator class, and a namespace of no
//! class, held to it: [`super::shared::demand`]) keeps its root
//! filesystem read-only; a Windows pod, which cannot set it, is not held to
//! it.

use super::shared::demand::{Demand, Judged, demand_of};
use super::{DOC, Definition, Inputs};
use crate::check::Findings;
use crate::check::facts::namespace_of;
use crate::check::rules::Invariant;
use kubernetes::diagnostic::Rule;
use kubernetes::json::Field;
use kubernetes::location::KeyPath;
use kubernetes::pod_security::{carried_pod, joined};

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
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};

/// Checks ROOTFS on every pod an object carries.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let context = inputs.context;
    for (index, object) in context.objects.iter().enumerate() {
        let Some(carried) = carried_pod(object) else {
            continue;
        };
        let namespace = namespace_of(object);
        let (judged, demand) = demand_of(context, index, namespace);
        // A Windows pod cannot set it (the API server refuses the Linux-only
        // field there).
        if demand != Demand::Restricted || carried.pod.spec.field("os").field("name") == "windows" {
            continue;
        }
        let whose = match judged {
            Judged::Class(class) => format!("the {} class in {namespace}", class.name()),
            _ => format!(
                "{namespace}, of no trust class, is held to the operator class's posture and"
            ),
        };
        for list in ["initContainers", "containers"] {
            for (c, container) in carried.pod.spec[list]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                if container
                    .field("securityContext")
                    .field("readOnlyRootFilesystem")
                    != true
                {
                    let path = KeyPath::root()
                        .key("spec")
                        .key(list)
                        .index(c)
                        .key("securityContext")
                        .key("readOnlyRootFilesystem");
                    findings.report(
                        Invariant::ReadOnlyRoot,
                        index,
                        &joined(&carried.at, &path),
                        format!("readOnlyRootFilesystem is not true; {whose} does not allow it"),
                    );
                }
            }
        }
    }
}
