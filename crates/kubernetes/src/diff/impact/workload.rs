//! Workloads whose pod template changes: their pods are replaced.
//!
//! A Deployment, DaemonSet or StatefulSet rolls out a new revision when
//! anything under `spec.template` changes
//! (<https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#updating-a-deployment>:
//! "A Deployment's rollout is triggered if and only if the Deployment's Pod
//! template (that is, `.spec.template`) is changed"; DaemonSets and
//! StatefulSets likewise, unless their `updateStrategy` is `OnDelete`); a
//! paused Deployment rolls out once resumed, and a StatefulSet whose
//! rolling update's partition is at least its replicas replaces no pod; a
//! DaemonSet does so on every node it runs on. A bare ReplicaSet or
//! ReplicationController replaces no pod: only the pods it creates next use
//! the new template. A CronJob's template only shapes the Jobs it
//! creates next. A Job's and a Pod's are immutable ([`super::immutable`]).

use std::collections::BTreeSet;

use super::tree::{at, is_true, items, text};
use super::{Class, Impact, Level, listed};
use crate::diff::FieldChange;
use crate::manifest::Manifest;
use crate::yaml::Node;

/// How a kind runs its pod template.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Runs {
    /// Replaces its pods when the template changes.
    Rolls,
    /// Creates its next pods from it; replaces none.
    NextPods,
    /// Creates Jobs from it on a schedule.
    Schedules,
    /// Creates pods once (a Job); its template is immutable.
    Once,
    /// Is the pod.
    Itself,
}

/// Where a kind keeps its pod template
/// ([`crate::tree::pod_place`]), and how it runs it; `None`
/// for a kind that runs no pod (a PodTemplate only holds one).
pub(super) fn template(object: &Manifest) -> Option<(&'static [&'static str], Runs)> {
    let (group, kind) = (object.id.group.as_str(), object.id.kind.as_str());
    let path = crate::tree::pod_place(group, kind)?.template;
    let runs = match kind {
        "Deployment" | "DaemonSet" | "StatefulSet" => Runs::Rolls,
        "ReplicaSet" | "ReplicationController" => Runs::NextPods,
        "Job" => Runs::Once,
        "CronJob" => Runs::Schedules,
        "Pod" => Runs::Itself,
        _ => return None,
    };
    Some((path, runs))
}

/// The pod spec of a workload (or of a Pod).
pub(crate) fn pod_spec(object: &Manifest) -> Option<&Node> {
    let (path, _) = template(object)?;
    at(object.node(), path)?.get("spec")
}

/// A new pod template: a restart (a rollout), with what changed in it.
pub(super) fn restart(after: &Manifest, fields: &[FieldChange], out: &mut Vec<Impact>) {
    let Some((path, runs)) = template(after) else {
        return;
    };
    if matches!(runs, Runs::Once | Runs::Itself) {
        return;
    }
    let reasons: BTreeSet<&str> = fields
        .iter()
        .filter(|f| f.steps.len() >= path.len() && f.steps.iter().zip(path).all(|(s, p)| s == p))
        .map(|f| reason(&f.steps[path.len()..]))
        .collect();
    if reasons.is_empty() {
        return;
    }
    let what = reasons.into_iter().collect::<Vec<_>>().join(", ");
    let (level, why) = match runs {
        Runs::Schedules => (
            Level::Change,
            format!(
                "new pod template ({what}): the Jobs it creates next use it; running ones go on"
            ),
        ),
        Runs::NextPods => (
            Level::Change,
            format!(
                "new pod template ({what}): only the pods it creates next use it; running ones are not replaced"
            ),
        ),
        _ if after.id.kind == "Deployment" && is_true(at(after.node(), &["spec", "paused"])) => (
            Level::Change,
            format!(
                "new pod template ({what}): its pods take it once the Deployment is resumed (spec.paused), not before"
            ),
        ),
        _ if held_by_partition(after).is_some() => (
            Level::Change,
            format!(
                "new pod template ({what}): no pod takes it while {}",
                held_by_partition(after).unwrap_or_default()
            ),
        ),
        _ if text(at(after.node(), &["spec", "updateStrategy", "type"])) == Some("OnDelete") => (
            Level::Change,
            format!(
                "new pod template ({what}): its pods take it only when deleted (updateStrategy OnDelete)"
            ),
        ),
        _ if after.id.kind == "DaemonSet" => {
            let host = pod_spec(after).map(host_access).unwrap_or_default();
            let access = if host.is_empty() {
                String::new()
            } else {
                format!(", with host access ({})", listed(&host))
            };
            (
                Level::Restart,
                format!("new pod template ({what}): its pods restart on every node{access}"),
            )
        }
        _ => (
            Level::Restart,
            format!("new pod template ({what}): its pods are replaced"),
        ),
    };
    out.push(Impact::new(level, Class::Restart, after, why));
}

/// Why a StatefulSet's rolling update replaces none of its pods: its
/// partition is at least its replicas (1 where unset), so every ordinal
/// is below it.
fn held_by_partition(after: &Manifest) -> Option<String> {
    if after.id.kind != "StatefulSet" {
        return None;
    }
    let number = |path: &[&str]| match at(after.node(), path).map(|n| &n.value) {
        Some(crate::yaml::Value::Int(n)) => Some(*n),
        _ => None,
    };
    let partition = number(&["spec", "updateStrategy", "rollingUpdate", "partition"])?;
    let replicas = match at(after.node(), &["spec", "replicas"]) {
        None => 1,
        Some(_) => number(&["spec", "replicas"])?,
    };
    (partition >= replicas).then(|| {
        format!("updateStrategy.rollingUpdate.partition ({partition}) is at least its replicas ({replicas})")
    })
}

/// What a change at `steps` (below the template) is, in a word.
fn reason(steps: &[String]) -> &'static str {
    let s: Vec<&str> = steps.iter().map(String::as_str).collect();
    match s.as_slice() {
        ["metadata", "labels", ..] => "labels",
        ["metadata", "annotations", ..] => "annotations",
        ["spec", "volumes", ..] => "volumes",
        ["spec", "securityContext", ..] => "security context",
        [
            "spec",
            "containers" | "initContainers" | "ephemeralContainers",
            _,
            field,
            ..,
        ] => match *field {
            "image" | "imagePullPolicy" => "image",
            "args" => "args",
            "command" => "command",
            "env" | "envFrom" => "env",
            "resources" => "resources",
            "volumeMounts" => "volumes",
            "securityContext" => "security context",
            "ports" => "ports",
            "livenessProbe" | "readinessProbe" | "startupProbe" => "probes",
            _ => "other",
        },
        [
            "spec",
            "containers" | "initContainers" | "ephemeralContainers",
            ..,
        ] => "containers",
        ["spec", "serviceAccountName" | "serviceAccount", ..] => "service account",
        ["spec", "hostNetwork" | "hostPID" | "hostIPC", ..] => "host namespaces",
        [
            "spec",
            "nodeSelector" | "affinity" | "tolerations" | "nodeName",
            ..,
        ] => "scheduling",
        _ => "other",
    }
}

/// Every container of a pod spec.
pub(super) fn containers(spec: &Node) -> impl Iterator<Item = &Node> {
    ["initContainers", "containers", "ephemeralContainers"]
        .into_iter()
        .flat_map(|list| items(spec.get(list)))
}

/// The host a pod spec reaches: host namespaces, hostPath volumes,
/// privileged containers.
pub(super) fn host_access(spec: &Node) -> Vec<String> {
    let mut access = Vec::new();
    for key in ["hostNetwork", "hostPID", "hostIPC"] {
        if is_true(spec.get(key)) {
            access.push(key.to_owned());
        }
    }
    for volume in items(spec.get("volumes")) {
        if let Some(path) = text(at(volume, &["hostPath", "path"])) {
            access.push(format!("hostPath {path}"));
        }
    }
    if containers(spec).any(|c| is_true(at(c, &["securityContext", "privileged"]))) {
        access.push("privileged".to_owned());
    }
    access
}
