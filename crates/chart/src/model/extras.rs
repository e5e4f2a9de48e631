//! The workloads' typed escape hatches: extra environment variables,
//! arguments, volumes and volume mounts of a workload's own container, and
//! sidecar containers beside it (`buildd`, `gateway`, and `builds.daemon`
//! for the pod template buildd starts every build daemon from).
//!
//! They are Kubernetes' own types (k8s-openapi's `EnvVar`, `Volume`,
//! `VolumeMount`, `Container`), closed by [`super::pod::api_server_schema`]
//! like the pod settings' (an unknown key is an error at its key).
//!
//! Unlike [`super::PodSettings`], these types can reach a volume and a
//! security context (a sidecar's `securityContext`, any volume source):
//! they are kept apart from the pod settings, whose trust-class invariant
//! (`tests/ui/pod_settings_carry_no_privilege.rs`) stays whole. They are
//! safe for another reason: what they render is proven. [`check`] refuses
//! here, located at the key, what would change a behaviour the ADRs or the
//! chart own (a flag or variable the chart sets, a name of the chart's, a
//! volume the namespace's Pod Security level or Kyverno's
//! disallow-host-path refuses); and `render` runs every check on its output
//! before printing, so a sidecar that breaks its namespace's Pod Security
//! level is refused there by T3 (and ROOTFS), as any ADR breach is.

use std::collections::HashMap;

use k8s_openapi::api::core::v1::{Container, EnvVar, Volume, VolumeMount};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::violation::RuleBreach;
use kubernetes::api::Refuser;
use kubernetes::location::KeyPath;
use kubernetes::pod_security::ALLOWED_VOLUMES;

/// Escape hatches of one workload: what its own container gets besides the
/// chart's settings, and the containers beside it. Each renders as
/// written; what would change a behaviour the chart or the ADRs own is
/// refused, and `render` checks the output (Pod Security, T3) before it
/// prints anything.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Extras {
    /// Environment variables added to the workload's own container, after
    /// the chart's (Kubernetes `EnvVar`: `value`, or `valueFrom` a Secret,
    /// ConfigMap or field). A variable the chart sets (buildd's
    /// `POD_NAMESPACE`, ADR-0006) is refused, and so is one name twice.
    pub extra_env: Vec<EnvVar>,
    /// Arguments added after the chart's to the workload's own container.
    /// A flag the chart sets or the ADRs govern is refused in every
    /// spelling Go's flag package reads (`--x=v`, `--x v`, `-x`, `-x=v`),
    /// such as buildd's `--namespace` (the builds namespace, ADR-0006): the
    /// last one would win. Refused wherever it stands in the list.
    pub extra_args: Vec<String>,
    /// Volumes added to the pod (Kubernetes `Volume`). Only the sources Pod
    /// Security `restricted` allows (`configMap`, `csi`, `downwardAPI`,
    /// `emptyDir`, `ephemeral`, `image`, `persistentVolumeClaim`,
    /// `projected`, `secret`): the operator namespace enforces it and
    /// ADR-0006 holds the build daemons to it. `hostPath` never (only the
    /// Kata plumbing may, and Kyverno's disallow-host-path refuses it
    /// elsewhere). A name of the chart's own volumes is refused.
    pub extra_volumes: Vec<Volume>,
    /// Volume mounts added to the workload's own container (Kubernetes
    /// `VolumeMount`), of the chart's volumes or `extraVolumes`. A path the
    /// chart mounts, or one inside it, is refused.
    pub extra_volume_mounts: Vec<VolumeMount>,
    /// Containers added to the pod after the workload's own (Kubernetes
    /// `Container`), rendered as written. What the API server would refuse
    /// in any hatch (a variable name, an image, a port, a probe, a mount)
    /// is an error at its key, as `check` says it. `check` holds each to its
    /// namespace's Pod Security level (T3; in the operator namespace also a
    /// read-only root filesystem, ROOTFS), so `render` refuses a sidecar
    /// that breaks it. The name of the workload's own container is refused.
    pub sidecars: Vec<Container>,
}

impl Extras {
    /// Whether no hatch is used.
    pub fn is_empty(&self) -> bool {
        *self == Extras::default()
    }
}

/// A flag the chart sets or the ADRs govern, written `--name`.
#[derive(Clone, Copy, Debug)]
pub struct Flag {
    /// The flag, `--name`.
    pub name: &'static str,
    /// Why it may not be overridden.
    pub why: &'static str,
    /// The values key to set instead, if any.
    pub instead: Option<&'static str>,
}

const fn flag(name: &'static str, why: &'static str, instead: Option<&'static str>) -> Flag {
    Flag { name, why, instead }
}

/// What the chart itself writes into one workload's pod: the hatches may
/// not take these names, flags and paths.
#[derive(Clone, Copy, Debug)]
pub struct Owned {
    /// The workload, as the messages name it.
    pub workload: &'static str,
    /// The name of its own container.
    pub container: &'static str,
    /// The flags of its container the chart sets or the ADRs govern.
    pub flags: &'static [Flag],
    /// The environment variables the chart sets, and why.
    pub env: &'static [(&'static str, &'static str)],
    /// The chart's volumes of the pod.
    pub volumes: &'static [&'static str],
    /// The paths the chart mounts in its container, and what.
    pub mount_paths: &'static [(&'static str, &'static str)],
    /// Who holds the pod to Pod Security `restricted`'s volume types.
    pub volume_policy: &'static str,
}

const OPERATOR_VOLUMES: &str = "the operator namespace enforces Pod Security restricted (ADR-0006)";

/// buildd: every flag `templates/buildd.yaml` passes, and the Lease's
/// namespace, which ADR-0006 decides.
pub const BUILDD: Owned = Owned {
    workload: "buildd",
    container: "buildd",
    flags: &[
        flag(
            "--namespace",
            "ADR-0006: buildd creates the build daemons in the builds namespace (T5)",
            Some("namespaces.builds"),
        ),
        flag(
            "--leader-elect",
            "the operator Role grants the Lease only with leader election on (R3)",
            Some("buildd.leaderElection"),
        ),
        flag(
            "--leader-election-id",
            "it names the Lease the operator Role grants (R3, ADR-2647)",
            None,
        ),
        flag(
            "--leader-election-namespace",
            "ADR-0006: buildd takes its Lease in the namespace it runs in, through POD_NAMESPACE (T5)",
            None,
        ),
        flag("--log-level", "the chart sets it", Some("buildd.logLevel")),
        flag(
            "--daemon-image",
            "the chart sets the build daemons' image",
            Some("images.buildkitd"),
        ),
        flag(
            "--daemon-service-account",
            "it names the daemons' ServiceAccount, which the chart renders in the builds namespace (T2)",
            None,
        ),
        flag(
            "--daemon-config",
            "it names the buildkitd.toml ConfigMap the chart renders in the builds namespace (T2)",
            Some("builds.buildkitd"),
        ),
        flag(
            "--daemon-pod-template",
            "it names the daemons' pod template ConfigMap, which check holds to the builds class (T2, T3)",
            Some("builds.daemon"),
        ),
        flag(
            "--daemon-tls-secret",
            "it names the trusted daemons' server certificate the chart issues (KEYS)",
            None,
        ),
        flag(
            "--daemon-service",
            "it names the trusted daemons' Service, which their certificate is valid for (KEYS)",
            None,
        ),
        flag(
            "--untrusted-daemon-tls-secret",
            "it names the untrusted daemons' server certificate, whose key no trusted daemon shares (KEYS)",
            None,
        ),
        flag(
            "--untrusted-daemon-service",
            "it names the untrusted daemons' Service, which their certificate is valid for (KEYS)",
            None,
        ),
        flag(
            "--untrusted-runtime-class",
            "ADR-0006: untrusted builds run in Kata's RuntimeClass when Kata is enabled",
            Some("kata.enabled and kata.runtimeClass.name"),
        ),
    ],
    env: &[(
        "POD_NAMESPACE",
        "ADR-0006: buildd takes its Lease in the namespace it runs in, read from the downward API (T5)",
    )],
    volumes: &["tmp"],
    mount_paths: &[(
        "/tmp",
        "its scratch directory under a read-only root filesystem",
    )],
    volume_policy: OPERATOR_VOLUMES,
};

/// The gateway: every flag `templates/gateway.yaml` passes.
pub const GATEWAY: Owned = Owned {
    workload: "the gateway",
    container: "gateway",
    flags: &[
        flag(
            "--listen",
            "the gateway's Service and NetworkPolicy send to the port the chart sets",
            Some("gateway.service.port"),
        ),
        flag(
            "--daemon-namespace",
            "ADR-0006: the gateway reaches the build daemons in the builds namespace (T5)",
            Some("namespaces.builds"),
        ),
        flag(
            "--tls-ca",
            "the gateway trusts the daemons through the CA of the client certificate the chart issues (docs/security.md)",
            None,
        ),
        flag(
            "--tls-cert",
            "the gateway's client certificate is the one the chart issues (docs/security.md)",
            None,
        ),
        flag(
            "--tls-key",
            "the gateway's client key is the one the chart issues (docs/security.md)",
            None,
        ),
    ],
    env: &[],
    volumes: &["tmp", "client-tls"],
    mount_paths: &[
        (
            "/tmp",
            "its scratch directory under a read-only root filesystem",
        ),
        (
            "/etc/buildkit/client",
            "the client certificate the gateway reaches the daemons with",
        ),
    ],
    volume_policy: OPERATOR_VOLUMES,
};

/// The build daemons' pod template: buildkitd's flags that buildd sets
/// from the chart's objects, and the one that would let untrusted builds
/// out of the rootless class.
pub const DAEMON: Owned = Owned {
    workload: "the build daemons",
    container: "buildkitd",
    flags: &[
        flag(
            "--config",
            "buildd points it at the buildkitd.toml the chart renders",
            Some("builds.buildkitd"),
        ),
        flag(
            "--addr",
            "buildd sets where the gateway reaches the daemon, over mTLS",
            None,
        ),
        flag(
            "--tlscert",
            "the daemon's server certificate is the one the chart issues per trust level (KEYS)",
            None,
        ),
        flag(
            "--tlskey",
            "the daemon's server key is the one the chart issues per trust level (KEYS)",
            None,
        ),
        flag(
            "--tlscacert",
            "the daemon admits only the gateway's client certificate, by the chart's CA (docs/security.md)",
            None,
        ),
        flag(
            "--allow-insecure-entitlement",
            "it lets builds ask for `security.insecure` or `network.host`: untrusted code beyond the rootless class ADR-0006 gives the daemons",
            None,
        ),
    ],
    env: &[],
    volumes: &[],
    mount_paths: &[],
    volume_policy: "ADR-0006 holds the build daemons to Pod Security restricted but for what rootless buildkitd needs (T3)",
};

/// Checks the hatches at `at` (`buildd`, `gateway`, `builds.daemon`)
/// against what the chart writes into that pod (`owned`).
pub fn check(extras: &Extras, at: &KeyPath, owned: &Owned, violations: &mut Vec<RuleBreach>) {
    let mut report = |path: KeyPath, message: String, hint: &str| {
        violations.push(RuleBreach {
            path,
            also: Vec::new(),
            message,
            hint: Some(hint.to_owned()),
            at_key: false,
        });
    };
    args(extras, at, owned, &mut report);
    env(extras, at, owned, &mut report);
    volumes(extras, at, owned, &mut report);
    mounts(extras, at, owned, &mut report);
    sidecars(extras, at, owned, &mut report);
    // What the API server refuses beyond the chart's rules (env names, a
    // container's image, ports, probes, resources, mounts), said once at
    // the key: `check` would refuse the render for it, and the daemons'
    // pod template, a ConfigMap's text, is no object the API server sees.
    let start = violations.len();
    for (path, rule, message) in api_problems(extras, at, owned) {
        if violations[..start].iter().any(|v| v.path == path) {
            continue;
        }
        violations.push(RuleBreach {
            path,
            also: Vec::new(),
            message: format!("{message} (check's {rule} rule would refuse the render)"),
            hint: Some(API_HINT.to_owned()),
            at_key: false,
        });
    }
}

/// The id of the `check` rule that reports what `refuser` refuses: API
/// for the API server, IMAGE for the kubelet. The rules are `check`'s,
/// above the model, which cannot read them; `check::rules`' tests hold
/// these to the rules' own ids.
pub const fn rule_id(refuser: Refuser) -> &'static str {
    match refuser {
        Refuser::ApiServer => "API",
        Refuser::Kubelet => "IMAGE",
    }
}

/// The hint of a rule the API server or the kubelet states.
const API_HINT: &str = "Kubernetes refuses this; the field's rules are in the API reference of its type (docs/values.md links it), the rule in docs/checks.md";

/// The API server's verdict on the pod the hatches would render: the
/// workload's own container (a stand-in image, the chart's variables, the
/// extra env and mounts) then the sidecars, the chart's volumes (stand-ins)
/// then the extra ones; each problem's path taken back to the hatch that
/// wrote it.
fn api_problems(
    extras: &Extras,
    at: &KeyPath,
    owned: &Owned,
) -> Vec<(KeyPath, &'static str, String)> {
    use serde_json::json;
    if extras.extra_env.is_empty()
        && extras.extra_volumes.is_empty()
        && extras.extra_volume_mounts.is_empty()
        && extras.sidecars.is_empty()
    {
        return Vec::new();
    }
    let mut env: Vec<serde_json::Value> = owned
        .env
        .iter()
        .map(|(name, _)| json!({"name": name, "value": "chart"}))
        .collect();
    env.extend(extras.extra_env.iter().map(|v| json!(v)));
    let mut containers = vec![json!({
        "name": owned.container,
        "image": "registry.example/chart:1",
        "env": env,
        "volumeMounts": extras.extra_volume_mounts,
    })];
    containers.extend(extras.sidecars.iter().map(|c| json!(c)));
    let mut volumes: Vec<serde_json::Value> = owned
        .volumes
        .iter()
        .map(|name| json!({"name": name, "emptyDir": {}}))
        .collect();
    volumes.extend(extras.extra_volumes.iter().map(|v| json!(v)));
    let pod = json!({"containers": containers, "volumes": volumes});
    let (chart_env, chart_volumes) = (owned.env.len(), owned.volumes.len());
    kubernetes::api::pod_template_problems(&pod)
        .into_iter()
        .map(|(path, refuser, message)| {
            use kubernetes::location::Segment::{Index, Key};
            let segments = path.0.as_slice();
            let (hatch, rest): (KeyPath, &[_]) = match segments {
                [Key(list), Index(i), rest @ ..] if list == "volumes" && *i >= chart_volumes => {
                    (at.key("extraVolumes").index(i - chart_volumes), rest)
                }
                [Key(list), Index(0), Key(field), Index(k), rest @ ..]
                    if list == "containers" && field == "env" && *k >= chart_env =>
                {
                    (at.key("extraEnv").index(k - chart_env), rest)
                }
                [Key(list), Index(0), Key(field), Index(m), rest @ ..]
                    if list == "containers" && field == "volumeMounts" =>
                {
                    (at.key("extraVolumeMounts").index(*m), rest)
                }
                [Key(list), Index(i), rest @ ..] if list == "containers" && *i >= 1 => {
                    (at.key("sidecars").index(i - 1), rest)
                }
                _ => (at.clone(), &[][..]),
            };
            let path = KeyPath([hatch.0, rest.to_vec()].concat());
            (path, rule_id(refuser), message)
        })
        .collect()
}

fn sidecars(extras: &Extras, at: &KeyPath, owned: &Owned, report: &mut Complaint<'_>) {
    let mut names: HashMap<&str, usize> = HashMap::new();
    for (i, sidecar) in extras.sidecars.iter().enumerate() {
        let path = at.key("sidecars").index(i).key("name");
        if sidecar.name == owned.container {
            report(
                path,
                format!(
                    "`{}` is the name of {}'s own container",
                    sidecar.name, owned.workload
                ),
                "name the sidecar after what it does, such as `log-shipper`",
            );
        } else if let Some(first) = names.insert(&sidecar.name, i) {
            report(
                path,
                format!(
                    "sidecar `{}` is named twice (also sidecars[{first}]); container names are unique in a pod",
                    sidecar.name
                ),
                "give each sidecar its own name",
            );
        }
    }
}

/// Where a rule of the escape hatches says what it refuses: the path,
/// the message, and the hint.
type Complaint<'a> = dyn FnMut(KeyPath, String, &str) + 'a;

/// The flag `arg` sets, if it is one of `flags`: `--name`, `--name=…`,
/// `-name` or `-name=…`, as Go's flag package reads them.
pub fn sets_flag<'f>(arg: &str, flags: &'f [Flag]) -> Option<&'f Flag> {
    let body = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'))?;
    let name = body.split_once('=').map_or(body, |(name, _)| name);
    flags
        .iter()
        .find(|f| f.name.strip_prefix("--") == Some(name))
}

fn args(extras: &Extras, at: &KeyPath, owned: &Owned, report: &mut Complaint<'_>) {
    // Wherever it stands, after `--` too: a flag package may read flags
    // after a positional argument (pflag does), and `check` reads the
    // whole command line, so an override there would be a finding anyway.
    for (i, arg) in extras.extra_args.iter().enumerate() {
        if let Some(flag) = sets_flag(arg, owned.flags) {
            let hint = match flag.instead {
                Some(key) => format!("set `{key}` instead; the chart passes the flag"),
                None => "leave it out: the chart passes this flag itself".to_owned(),
            };
            report(
                at.key("extraArgs").index(i),
                format!(
                    "`{arg}` sets {}'s `{}`, which the chart sets: {}",
                    owned.workload, flag.name, flag.why
                ),
                &hint,
            );
        }
    }
}

fn env(extras: &Extras, at: &KeyPath, owned: &Owned, report: &mut Complaint<'_>) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, var) in extras.extra_env.iter().enumerate() {
        let path = at.key("extraEnv").index(i).key("name");
        if let Some((_, why)) = owned.env.iter().find(|(name, _)| *name == var.name) {
            report(
                path,
                format!(
                    "`{}` is an environment variable the chart sets for {}: {why}",
                    var.name, owned.workload
                ),
                "leave it out; the chart sets it",
            );
        } else if let Some(first) = seen.insert(&var.name, i) {
            report(
                path,
                format!(
                    "`{}` is set twice (also extraEnv[{first}]); the later would silently win",
                    var.name
                ),
                "set each variable once",
            );
        }
    }
}

fn volumes(extras: &Extras, at: &KeyPath, owned: &Owned, report: &mut Complaint<'_>) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, volume) in extras.extra_volumes.iter().enumerate() {
        let path = at.key("extraVolumes").index(i);
        if owned.volumes.contains(&volume.name.as_str()) {
            report(
                path.key("name"),
                format!(
                    "`{}` is the name of a volume the chart gives {}",
                    volume.name, owned.workload
                ),
                "choose another name; mount the chart's volume by its name in extraVolumeMounts if you need it",
            );
        } else if let Some(first) = seen.insert(&volume.name, i) {
            report(
                path.key("name"),
                format!(
                    "volume `{}` is named twice (also extraVolumes[{first}]); volume names are unique in a pod",
                    volume.name
                ),
                "give each volume its own name",
            );
        }
        let json = serde_json::to_value(volume).unwrap_or_default();
        let sources: Vec<&str> = json
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(key, value)| *key != "name" && !value.is_null())
            .map(|(key, _)| key.as_str())
            .collect();
        if sources.len() > 1 {
            report(
                path.clone(),
                format!(
                    "volume `{}` has {} sources ({}); the API server takes one",
                    volume.name,
                    sources.len(),
                    sources.join(", ")
                ),
                "split it into one volume per source",
            );
        }
        for source in sources {
            if source == "hostPath" {
                report(
                    path.key(source),
                    format!(
                        "volume `{}` is a hostPath, a directory of the node: only the Kata node plumbing may mount one (ADR-0006), and Kyverno's disallow-host-path refuses it outside the system namespace",
                        volume.name
                    ),
                    "use a persistentVolumeClaim, a configMap, a secret or an emptyDir",
                );
            } else if !ALLOWED_VOLUMES.contains(&source) {
                report(
                    path.key(source),
                    format!(
                        "volume `{}` is of type `{source}`, which Pod Security restricted does not allow; {}",
                        volume.name, owned.volume_policy
                    ),
                    "restricted allows configMap, csi, downwardAPI, emptyDir, ephemeral, image, persistentVolumeClaim, projected and secret; a persistentVolumeClaim can hold the other kinds",
                );
            }
        }
    }
}

fn mounts(extras: &Extras, at: &KeyPath, owned: &Owned, report: &mut Complaint<'_>) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, mount) in extras.extra_volume_mounts.iter().enumerate() {
        let path = at.key("extraVolumeMounts").index(i);
        let declared = owned.volumes.contains(&mount.name.as_str())
            || extras.extra_volumes.iter().any(|v| v.name == mount.name);
        if !declared {
            report(
                path.key("name"),
                format!(
                    "`{}` is no volume of {}'s pod (the chart's: {}; or extraVolumes)",
                    mount.name,
                    owned.workload,
                    if owned.volumes.is_empty() {
                        "none".to_owned()
                    } else {
                        owned.volumes.join(", ")
                    }
                ),
                "add the volume to extraVolumes, or mount one of the chart's",
            );
        }
        let cleaned = kubernetes::names::clean_path(&mount.mount_path);
        if let Some((chart, what)) = owned
            .mount_paths
            .iter()
            .find(|(chart, _)| inside(&cleaned, chart))
        {
            let relation = if cleaned == *chart { "is" } else { "is inside" };
            report(
                path.key("mountPath"),
                format!(
                    "`{}` {relation} `{chart}`, which the chart mounts in {}'s container: {what}",
                    mount.mount_path, owned.workload
                ),
                "mount it at a path of its own",
            );
        } else if let Some(first) = seen.insert(cleaned, i) {
            report(
                path.key("mountPath"),
                format!(
                    "`{}` is mounted twice (also extraVolumeMounts[{first}])",
                    mount.mount_path
                ),
                "mount each path once",
            );
        }
    }
}

/// Whether the cleaned `path` is `outer` or below it.
fn inside(path: &str, outer: &str) -> bool {
    path == outer
        || outer == "/"
        || path
            .strip_prefix(outer)
            .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(extras: &Extras, owned: &Owned) -> Vec<(String, String)> {
        let mut violations = Vec::new();
        check(
            extras,
            &KeyPath::dotted(owned.container),
            owned,
            &mut violations,
        );
        violations
            .into_iter()
            .map(|v| (v.path.to_string(), v.message))
            .collect()
    }

    fn args(list: &[&str]) -> Extras {
        Extras {
            extra_args: list.iter().map(|s| (*s).to_owned()).collect(),
            ..Extras::default()
        }
    }

    /// Every spelling Go's flag package reads as the flag is refused,
    /// after `--` too; a longer flag sharing the prefix and a value are
    /// not.
    #[test]
    fn every_spelling_of_a_chart_flag_is_refused() {
        for spelling in [
            "--namespace=x",
            "--namespace",
            "-namespace",
            "-namespace=x",
            "--namespace=",
        ] {
            let found = messages(&args(&["--foo", spelling]), &BUILDD);
            assert_eq!(found.len(), 1, "{spelling}: {found:?}");
            assert_eq!(found[0].0, "buildd.extraArgs[1]");
            assert!(
                found[0]
                    .1
                    .contains("ADR-0006: buildd creates the build daemons"),
                "{found:?}"
            );
        }
        for fine in [
            "--namespaces=x",
            "namespace",
            "x--namespace",
            "---namespace",
            "--foo=--namespace",
        ] {
            assert_eq!(messages(&args(&[fine]), &BUILDD), [], "{fine}");
        }
        assert_eq!(messages(&args(&["--", "--namespace=x"]), &BUILDD).len(), 1);
    }

    #[test]
    fn each_workloads_own_flags_are_refused_and_only_theirs() {
        for owned in [BUILDD, GATEWAY, DAEMON] {
            for flag in owned.flags {
                let arg = format!("{}=x", flag.name);
                assert_eq!(messages(&args(&[&arg]), &owned).len(), 1, "{arg}");
            }
        }
        assert_eq!(messages(&args(&["--listen=:1"]), &BUILDD), []);
        assert_eq!(messages(&args(&["--listen=:1"]), &GATEWAY).len(), 1);
    }

    #[test]
    fn volumes_outside_restricted_and_host_paths_are_refused_with_the_reason() {
        let volume = |json: serde_json::Value| -> Volume { serde_json::from_value(json).unwrap() };
        let extras = Extras {
            extra_volumes: vec![
                volume(serde_json::json!({"name": "node", "hostPath": {"path": "/"}})),
                volume(serde_json::json!({"name": "share", "nfs": {"server": "nfs", "path": "/"}})),
                volume(
                    serde_json::json!({"name": "both", "emptyDir": {}, "secret": {"secretName": "s"}}),
                ),
                volume(
                    serde_json::json!({"name": "fine", "persistentVolumeClaim": {"claimName": "c"}}),
                ),
                volume(serde_json::json!({"name": "tmp", "emptyDir": {}})),
            ],
            ..Extras::default()
        };
        let found = messages(&extras, &BUILDD);
        let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "buildd.extraVolumes[0].hostPath",
                "buildd.extraVolumes[1].nfs",
                "buildd.extraVolumes[2]",
                "buildd.extraVolumes[4].name",
            ]
        );
        assert!(found[0].1.contains("disallow-host-path"), "{found:?}");
        assert!(
            found[1]
                .1
                .contains("operator namespace enforces Pod Security restricted"),
            "{found:?}"
        );
        // The daemons are held to restricted's volumes by their class.
        let found = messages(&extras, &DAEMON);
        assert!(
            found[1].1.contains("ADR-0006 holds the build daemons"),
            "{found:?}"
        );
    }

    #[test]
    fn the_charts_names_are_refused_in_the_hatches() {
        let extras: Extras = serde_json::from_value(serde_json::json!({
            "extraEnv": [{"name": "POD_NAMESPACE", "value": "x"}, {"name": "A"}, {"name": "A"}],
            "extraVolumeMounts": [{"name": "nowhere", "mountPath": "/data"}, {"name": "tmp", "mountPath": "/tmp"}],
            "sidecars": [
                {"name": "buildd", "image": "r.example/x:1"},
                {"name": "shipper", "image": "r.example/x:1"},
                {"name": "shipper", "image": "r.example/x:1"},
            ],
        }))
        .unwrap();
        let found = messages(&extras, &BUILDD);
        let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "buildd.extraEnv[0].name",
                "buildd.extraEnv[2].name",
                "buildd.extraVolumeMounts[0].name",
                "buildd.extraVolumeMounts[1].mountPath",
                "buildd.sidecars[0].name",
                "buildd.sidecars[2].name",
            ],
            "{found:?}"
        );
        assert!(found[0].1.contains("ADR-0006"), "{found:?}");
    }

    /// What the API server refuses in the pod the hatches would render is
    /// a values error at the hatch that wrote it, said once.
    #[test]
    fn what_the_api_server_refuses_is_refused_at_the_hatch() {
        let extras: Extras = serde_json::from_value(serde_json::json!({
            "extraEnv": [{"name": "A=B", "value": "1"}],
            "extraVolumes": [{"name": "Cache", "emptyDir": {}}],
            "sidecars": [
                {"name": "shipper", "image": "r.example/x:1", "ports": [{"containerPort": 70000}]},
                {"name": "shipper", "image": "r.example/x:1"},
                {"name": "puller", "image": "r.example/X:1"},
            ],
        }))
        .unwrap();
        let found = messages(&extras, &DAEMON);
        let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "buildkitd.sidecars[1].name",
                "buildkitd.extraVolumes[0].name",
                "buildkitd.extraEnv[0].name",
                "buildkitd.sidecars[0].ports[0].containerPort",
                "buildkitd.sidecars[2].image",
            ],
            "{found:?}"
        );
        let env = &found[2].1;
        assert!(
            env.starts_with("`A=B` is not a valid variable name"),
            "{env}"
        );
        assert!(
            env.ends_with("(check's API rule would refuse the render)"),
            "{env}"
        );
        assert!(
            found[4]
                .1
                .ends_with("(check's IMAGE rule would refuse the render)"),
            "{found:?}"
        );
    }

    #[test]
    fn mount_paths_are_compared_as_the_runtime_reads_them() {
        assert_eq!(kubernetes::names::clean_path("/tmp/"), "/tmp");
        assert_eq!(
            kubernetes::names::clean_path("//etc/./buildkit/../buildkit/client/"),
            "/etc/buildkit/client"
        );
        assert_eq!(kubernetes::names::clean_path("/.."), "/");
        for (path, refused) in [
            ("/tmp/", true),
            ("/tmp/cache", true),
            ("/etc/buildkit/client/../client/ca.crt", true),
            ("/tmpfs", false),
            ("/etc/buildkit", false),
        ] {
            let extras = Extras {
                extra_volumes: vec![Volume {
                    name: "cache".into(),
                    ..Volume::default()
                }],
                extra_volume_mounts: vec![VolumeMount {
                    name: "cache".into(),
                    mount_path: path.into(),
                    ..VolumeMount::default()
                }],
                ..Extras::default()
            };
            assert_eq!(
                messages(&extras, &GATEWAY).len(),
                usize::from(refused),
                "{path}"
            );
        }
    }
}
