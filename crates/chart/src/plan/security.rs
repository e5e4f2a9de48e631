//! Pod security by trust class (invariant T3), checked by the compiler.
//!
//! A workload of class `C` carries a [`PodSecurity<C>`] and [`Volume<C>`]s.
//! The constructors decide what each class may have: only `System` has
//! [`PodSecurity::privileged`] and [`Volume::host_path`], so a privileged
//! container or a hostPath volume outside the system namespace does not
//! compile; `Operator` has only [`PodSecurity::hardened`].

use std::marker::PhantomData;

use serde::Serialize;
use serde_json::{Value, json};

use super::trust::{Builds, Operator, System, TrustClass};

/// The pod- and container-level security contexts of a workload of class `C`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSecurity<C: TrustClass> {
    /// The pod's `securityContext`.
    pod: Value,
    /// Every container's `securityContext`.
    container: Value,
    /// Whether the pod shares the host's PID namespace.
    host_pid: bool,
    #[serde(skip)]
    class: PhantomData<C>,
}

impl<C: TrustClass> PodSecurity<C> {
    fn new(pod: Value, container: Value, host_pid: bool) -> Self {
        PodSecurity {
            pod,
            container,
            host_pid,
            class: PhantomData,
        }
    }
}

impl PodSecurity<Operator> {
    /// The restricted profile: non-root `uid`, read-only root filesystem, all
    /// capabilities dropped, no privilege escalation, seccomp RuntimeDefault.
    pub fn hardened(uid: u32) -> Self {
        PodSecurity::new(
            json!({
                "runAsNonRoot": true,
                "runAsUser": uid,
                "runAsGroup": uid,
                "fsGroup": uid,
                "seccompProfile": {"type": "RuntimeDefault"},
            }),
            json!({
                "allowPrivilegeEscalation": false,
                "readOnlyRootFilesystem": true,
                "runAsNonRoot": true,
                "capabilities": {"drop": ["ALL"]},
                "seccompProfile": {"type": "RuntimeDefault"},
            }),
            false,
        )
    }
}

impl PodSecurity<Builds> {
    /// Rootless buildkitd: uid 1000, unconfined seccomp and AppArmor, and
    /// privilege escalation allowed for the setuid `newuidmap`; never privileged.
    pub fn rootless() -> Self {
        PodSecurity::new(
            json!({
                "runAsNonRoot": true,
                "runAsUser": 1000,
                "runAsGroup": 1000,
                "fsGroup": 1000,
            }),
            json!({
                "allowPrivilegeEscalation": true,
                "privileged": false,
                "seccompProfile": {"type": "Unconfined"},
                "appArmorProfile": {"type": "Unconfined"},
            }),
            false,
        )
    }
}

impl PodSecurity<System> {
    /// A privileged root container on the host's PID namespace. The chart's
    /// node plumbing needs neither (see [`PodSecurity::host_installer`]);
    /// kept as the one way to state it, in the system class only.
    pub fn privileged() -> Self {
        PodSecurity::new(json!({}), json!({"privileged": true, "runAsUser": 0}), true)
    }

    /// kata-deploy as current releases run it: not privileged, no host
    /// PID, root (the host files it installs and edits are root's, and the
    /// systemd socket it restarts the container runtime through takes root
    /// only), a read-only root filesystem, no privilege escalation,
    /// seccomp `RuntimeDefault`, and of the runtime's default capabilities
    /// only the three a root file installer uses on files it does not own:
    /// `CHOWN`, `DAC_OVERRIDE`, `FOWNER`.
    pub fn host_installer() -> Self {
        PodSecurity::root_adding(&["CHOWN", "DAC_OVERRIDE", "FOWNER"])
    }

    /// Root with no capability, no privilege escalation, a read-only root
    /// filesystem and seccomp `RuntimeDefault`: a process that edits
    /// root-owned files on a host path (vcpu-tune). Root because a host
    /// path keeps the node's owners (`fsGroup` does not apply to it), and
    /// with every capability dropped root is only the owner of those files.
    pub fn root() -> Self {
        PodSecurity::root_adding(&[])
    }

    /// Root with every capability dropped but `add`, no privilege
    /// escalation, a read-only root filesystem and seccomp `RuntimeDefault`.
    fn root_adding(add: &[&str]) -> Self {
        let mut capabilities = json!({"drop": ["ALL"]});
        if !add.is_empty() {
            capabilities["add"] = json!(add);
        }
        PodSecurity::new(
            json!({"seccompProfile": {"type": "RuntimeDefault"}}),
            json!({
                "privileged": false,
                "allowPrivilegeEscalation": false,
                "readOnlyRootFilesystem": true,
                "runAsUser": 0,
                "capabilities": capabilities,
            }),
            false,
        )
    }
}

/// A pod volume allowed in class `C`.
#[derive(Debug, Serialize)]
pub struct Volume<C: TrustClass> {
    #[serde(flatten)]
    spec: Value,
    #[serde(skip)]
    class: PhantomData<C>,
}

impl<C: TrustClass> Volume<C> {
    fn new(spec: Value) -> Self {
        Volume {
            spec,
            class: PhantomData,
        }
    }

    /// A scratch directory.
    pub fn empty_dir(name: &str) -> Self {
        Volume::new(json!({"name": name, "emptyDir": {}}))
    }

    /// A Secret's keys as files.
    pub fn secret(name: &str, secret: &str) -> Self {
        Volume::new(json!({"name": name, "secret": {"secretName": secret}}))
    }

    /// A ConfigMap's keys as files.
    pub fn config_map(name: &str, config_map: &str) -> Self {
        Volume::new(json!({"name": name, "configMap": {"name": config_map}}))
    }
}

impl Volume<System> {
    /// A directory of the node. Only node plumbing may have one.
    pub fn host_path(name: &str, path: &str) -> Self {
        Volume::new(json!({"name": name, "hostPath": {"path": path}}))
    }

    /// A path of the node that the kubelet checks (or creates) as `kind`
    /// (`DirectoryOrCreate`, `File`, `Socket`, ...) before the pod starts.
    pub fn host_path_of(name: &str, path: &str, kind: &str) -> Self {
        Volume::new(json!({"name": name, "hostPath": {"path": path, "type": kind}}))
    }
}

/// A workload's pod: its security and its volumes, all of one class.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodPlan<C: TrustClass> {
    /// Security contexts.
    pub security: PodSecurity<C>,
    /// Volumes.
    pub volumes: Vec<Volume<C>>,
}

impl<C: TrustClass> PodPlan<C> {
    /// A pod with `security` and no volumes.
    pub fn new(security: PodSecurity<C>) -> Self {
        PodPlan {
            security,
            volumes: Vec::new(),
        }
    }

    /// This pod with one more volume of the same class.
    pub fn with_volume(mut self, volume: Volume<C>) -> Self {
        self.volumes.push(volume);
        self
    }
}
