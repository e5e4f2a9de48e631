//! What the ADRs demand of a pod, decided in one place: T3
//! (`pod_security_verdicts.rs`) holds every pod to it, ROOTFS
//! (`read_only_root.rs`) the pods it holds to `restricted`.

use serde_json::Value as Json;

use crate::check::{Class, Context};
use kubernetes::json::Field;
use kubernetes::pod_security::carried_pod;

/// What ADR-0006 demands of the pods of a namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::check::rules) enum Demand {
    /// `restricted`, and a read-only root filesystem.
    Restricted,
    /// `restricted` but for what rootless buildkitd needs (T3's
    /// `ROOTLESS_RELAXED`, `pod_security_verdicts.rs`).
    Rootless,
    /// Nothing beyond what the cluster enforces: the system class, and
    /// every object that is not the operator's (another application is
    /// held to its namespace's Pod Security labels, not to the ADRs).
    Nothing,
}

/// Why a pod is held to its [`Demand`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::check::rules) enum Judged {
    /// By the class of its namespace, as the input shows it.
    Class(Class),
    /// A build daemon (a buildkit image) outside the operator and builds
    /// namespaces: ADR-0006 runs every build daemon rootless.
    Daemon,
    /// The operator's object in a namespace of no class: the strictest.
    Unclassed,
    /// Not the operator's object: no ADR demand.
    Other,
}

/// The one place that decides what the ADRs demand of the pod in object
/// `index` (in `namespace`): the operator's objects by their namespace's
/// class (of no class: the strictest, the operator class's); a build
/// daemon anywhere by the builds class; another application's objects
/// nothing ([`Context::in_scope`]).
pub(in crate::check::rules) fn demand_of(
    context: &Context<'_>,
    index: usize,
    namespace: &str,
) -> (Judged, Demand) {
    let judged = match context.class_of(namespace) {
        // The system namespace is the Kata plumbing's: a build daemon there
        // is still a build daemon.
        Some(Class::System) if runs_buildkit(context.objects[index]) => Judged::Daemon,
        Some(class) => Judged::Class(class),
        None if runs_buildkit(context.objects[index]) => Judged::Daemon,
        None if context.in_scope(index) => Judged::Unclassed,
        None => Judged::Other,
    };
    let demand = match judged {
        Judged::Class(Class::Operator) | Judged::Unclassed => Demand::Restricted,
        Judged::Class(Class::Builds) | Judged::Daemon => Demand::Rootless,
        Judged::Class(Class::System) | Judged::Other => Demand::Nothing,
    };
    (judged, demand)
}

/// Whether a container of the object's pod runs a BuildKit daemon image
/// (`…/buildkit`, any registry, tag or digest): a build daemon, whoever
/// deployed it.
fn runs_buildkit(object: &Json) -> bool {
    let Some(carried) = carried_pod(object) else {
        return false;
    };
    ["initContainers", "containers"].iter().any(|list| {
        carried.pod.spec[*list]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c.field("image").as_str())
            .any(|image| {
                let path = image.split(['@']).next().unwrap_or(image);
                let last = path.rsplit('/').next().unwrap_or(path);
                let repository = last.split(':').next().unwrap_or(last);
                repository == "buildkit"
            })
    })
}
