//! The generators of the differential test: pod variants over every Pod
//! Security control, in every workload kind that carries a pod, and API
//! objects for the areas `check` claims, valid and invalid.
//!
//! Written from Kubernetes' rules (the Pod Security Standards, the API
//! server's validation), not from chartgen's code: each generator draws
//! values on both sides of a rule (the allowed values, their near misses,
//! other spellings) and lets the server say which side a value is on.
//! Deterministic: proptest's ChaCha generator from a seed.

use proptest::prelude::RngExt;
use proptest::test_runner::{RngAlgorithm, TestRng};
use serde_json::{Value as Json, json};

/// A seeded source of choices.
pub struct Gen {
    rng: TestRng,
}

impl Gen {
    /// The generator of `seed`: the same cases for the same seed.
    pub fn new(seed: u64) -> Gen {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        bytes[8..16].copy_from_slice(b"chartgen");
        Gen {
            rng: TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
        }
    }

    fn below(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n)
    }

    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }
}

// ---------------------------------------------------------------------------
// Pod variants.

/// The workload kinds that carry a pod, with their API version.
pub const KINDS: [(&str, &str); 9] = [
    ("Pod", "v1"),
    ("Deployment", "apps/v1"),
    ("StatefulSet", "apps/v1"),
    ("DaemonSet", "apps/v1"),
    ("ReplicaSet", "apps/v1"),
    ("Job", "batch/v1"),
    ("CronJob", "batch/v1"),
    ("PodTemplate", "v1"),
    ("ReplicationController", "v1"),
];

/// One pod variant.
pub struct PodCase {
    /// `p0042-Deployment`.
    pub id: String,
    /// The mutations applied, `+`-joined (`reference` for none).
    pub control: String,
    /// The workload kind.
    pub kind: &'static str,
    /// Where the container mutations went: `containers`, `initContainers`.
    pub placement: &'static str,
    /// The workload, without a namespace.
    pub object: Json,
}

/// Where a container mutation lands.
struct Target {
    list: &'static str,
    index: usize,
    name: String,
}

type Mutation = fn(&mut Gen, &mut Json, &Target) -> String;

/// The Linux pod's mutations: each control's fields, on both sides.
const MUTATIONS: &[(&str, Mutation)] = &[
    ("hostNamespaces", host_namespaces),
    ("privileged", privileged),
    ("capabilitiesAdd", capabilities_add),
    ("capabilitiesDrop", capabilities_drop),
    ("hostPath", host_path),
    ("volumeType", volume_type),
    ("hostPort", host_port),
    ("appArmorAnnotation", apparmor_annotation),
    ("appArmorField", apparmor_field),
    ("seLinux", se_linux),
    ("procMount", proc_mount),
    ("hostUsers", host_users),
    ("seccompField", seccomp_field),
    ("seccompAnnotation", seccomp_annotation),
    ("sysctls", sysctls),
    ("allowPrivilegeEscalation", allow_privilege_escalation),
    ("runAsNonRoot", run_as_non_root),
    ("runAsUser", run_as_user),
    ("probeHost", probe_host),
    ("hostProcess", host_process),
    ("ephemeralContainer", ephemeral_container),
];

/// A Windows pod's mutations (the Linux fields are invalid there).
const WINDOWS_MUTATIONS: &[(&str, Mutation)] = &[
    ("runAsNonRoot", run_as_non_root),
    ("hostProcess", windows_host_process),
    ("hostPort", host_port),
    ("volumeType", volume_type),
    ("hostNamespaces", host_namespaces),
];

const IMAGE: &str = "registry.example.com/team/app:1.0";

fn compliant_container(name: &str) -> Json {
    json!({
        "name": name,
        "image": IMAGE,
        "securityContext": {
            "allowPrivilegeEscalation": false,
            "capabilities": {"drop": ["ALL"]}
        }
    })
}

/// A pod that passes `restricted`, as `{metadata, spec}`.
fn compliant_pod(name: &str) -> Json {
    json!({
        "metadata": {"labels": {"app": name}},
        "spec": {
            "securityContext": {"runAsNonRoot": true, "seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [compliant_container("app")]
        }
    })
}

fn windows_pod(name: &str) -> Json {
    json!({
        "metadata": {"labels": {"app": name}},
        "spec": {
            "os": {"name": "windows"},
            "securityContext": {"runAsNonRoot": true},
            "containers": [{"name": "app", "image": IMAGE}]
        }
    })
}

/// The `i`th pod variant.
pub fn pod_case(g: &mut Gen, i: usize) -> PodCase {
    let (kind, api_version) = g.pick(&KINDS);
    let name = format!("p{i:04}");
    let windows = g.chance(0.06);
    let mut pod = if windows {
        windows_pod(&name)
    } else {
        compliant_pod(&name)
    };
    if g.chance(0.3) {
        let init = if windows {
            json!({"name": "init", "image": IMAGE})
        } else {
            compliant_container("init")
        };
        pod["spec"]["initContainers"] = json!([init]);
    }
    if g.chance(0.15) {
        let side = if windows {
            json!({"name": "side", "image": IMAGE})
        } else {
            compliant_container("side")
        };
        pod["spec"]["containers"].as_array_mut().unwrap().push(side);
    }
    let has_init = pod["spec"]["initContainers"].is_array();
    let target = if has_init && g.chance(0.4) {
        Target {
            list: "initContainers",
            index: 0,
            name: "init".to_owned(),
        }
    } else {
        let n = pod["spec"]["containers"].as_array().unwrap().len();
        let index = g.below(n);
        let name = pod["spec"]["containers"][index]["name"]
            .as_str()
            .unwrap()
            .to_owned();
        Target {
            list: "containers",
            index,
            name,
        }
    };
    let count = g.pick(&[0, 1, 1, 1, 1, 2, 2, 2, 3, 3]);
    let pool = if windows {
        WINDOWS_MUTATIONS
    } else {
        MUTATIONS
    };
    let mut applied = Vec::new();
    for _ in 0..count {
        let (_, mutate) = g.pick(pool);
        applied.push(mutate(g, &mut pod, &target));
    }
    if windows {
        applied.insert(0, "windows".to_owned());
    }
    let control = if applied.is_empty() {
        "reference".to_owned()
    } else {
        applied.join("+")
    };
    PodCase {
        id: format!("{name}-{kind}"),
        control,
        kind,
        placement: target.list,
        object: wrap(kind, api_version, &name, pod),
    }
}

/// The object of `kind` that carries `pod` (`{metadata, spec}`).
fn wrap(kind: &str, api_version: &str, name: &str, mut pod: Json) -> Json {
    let selector = json!({"matchLabels": {"app": name}});
    if matches!(kind, "Job" | "CronJob") {
        pod["spec"]["restartPolicy"] = json!("Never");
    }
    let spec = match kind {
        "Pod" => {
            let mut metadata = pod["metadata"].take();
            metadata["name"] = json!(name);
            return json!({"apiVersion": api_version, "kind": kind, "metadata": metadata, "spec": pod["spec"]});
        }
        "PodTemplate" => {
            return json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name}, "template": pod});
        }
        "Deployment" | "ReplicaSet" | "DaemonSet" => json!({"selector": selector, "template": pod}),
        "StatefulSet" => json!({"selector": selector, "serviceName": name, "template": pod}),
        "Job" => json!({"template": pod}),
        "CronJob" => json!({"schedule": "0 * * * *", "jobTemplate": {"spec": {"template": pod}}}),
        "ReplicationController" => json!({"selector": {"app": name}, "template": pod}),
        _ => unreachable!("{kind}"),
    };
    json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name}, "spec": spec})
}

/// The pod `object` carries, created as a Pod named `name`: what the
/// recorded corpora sent the server for a workload.
pub fn pod_of(object: &Json, name: &str) -> Json {
    let template = match object["kind"].as_str().unwrap() {
        "Pod" => object.clone(),
        "PodTemplate" => object["template"].clone(),
        "CronJob" => object["spec"]["jobTemplate"]["spec"]["template"].clone(),
        _ => object["spec"]["template"].clone(),
    };
    let mut metadata = template["metadata"].clone();
    if !metadata.is_object() {
        metadata = json!({});
    }
    metadata["name"] = json!(name);
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": template["spec"]})
}

fn container<'a>(pod: &'a mut Json, t: &Target) -> &'a mut Json {
    &mut pod["spec"][t.list][t.index]
}

fn context<'a>(pod: &'a mut Json, t: &Target) -> &'a mut Json {
    let c = container(pod, t);
    if !c["securityContext"].is_object() {
        c["securityContext"] = json!({});
    }
    &mut c["securityContext"]
}

fn pod_context(pod: &mut Json) -> &mut Json {
    if !pod["spec"]["securityContext"].is_object() {
        pod["spec"]["securityContext"] = json!({});
    }
    &mut pod["spec"]["securityContext"]
}

/// The pod's or the container's securityContext, chosen at random.
fn some_context<'a>(g: &mut Gen, pod: &'a mut Json, t: &Target) -> (&'static str, &'a mut Json) {
    if g.chance(0.5) {
        ("pod", pod_context(pod))
    } else {
        ("container", context(pod, t))
    }
}

fn remove(object: &mut Json, key: &str) {
    if let Some(map) = object.as_object_mut() {
        map.remove(key);
    }
}

/// Sets `key` to `value`, or removes it for `null`.
fn set(object: &mut Json, key: &str, value: Json) {
    if value.is_null() {
        remove(object, key);
    } else {
        object[key] = value;
    }
}

fn annotate(pod: &mut Json, key: &str, value: &str) {
    if !pod["metadata"]["annotations"].is_object() {
        pod["metadata"]["annotations"] = json!({});
    }
    pod["metadata"]["annotations"][key] = json!(value);
}

fn host_namespaces(g: &mut Gen, pod: &mut Json, _: &Target) -> String {
    let field = g.pick(&["hostNetwork", "hostPID", "hostIPC"]);
    let value = g.chance(0.75);
    pod["spec"][field] = json!(value);
    format!("{field}={value}")
}

fn privileged(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let value = g.chance(0.75);
    let c = context(pod, t);
    c["privileged"] = json!(value);
    // privileged with allowPrivilegeEscalation=false is invalid: mostly
    // give the server a valid pod to judge.
    if value && g.chance(0.8) {
        remove(c, "allowPrivilegeEscalation");
    }
    format!("privileged={value}")
}

const CAPABILITIES: [&str; 16] = [
    "NET_BIND_SERVICE",
    "net_bind_service",
    "CAP_NET_BIND_SERVICE",
    "CHOWN",
    "KILL",
    "AUDIT_WRITE",
    "SETFCAP",
    "SYS_CHROOT",
    "MKNOD",
    "SYS_ADMIN",
    "NET_ADMIN",
    "NET_RAW",
    "SYS_PTRACE",
    "BPF",
    "ALL",
    "",
];

fn capabilities_add(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let n = 1 + g.below(2);
    let add: Vec<&str> = (0..n).map(|_| g.pick(&CAPABILITIES)).collect();
    let c = context(pod, t);
    if !c["capabilities"].is_object() {
        c["capabilities"] = json!({});
    }
    c["capabilities"]["add"] = json!(add);
    format!("add={add:?}")
}

fn capabilities_drop(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let drop = g.pick(&[
        json!(["ALL"]),
        json!(["all"]),
        json!(["CAP_ALL"]),
        json!(["NET_RAW"]),
        json!(["NET_RAW", "ALL"]),
        json!([]),
        Json::Null,
    ]);
    let c = context(pod, t);
    if !c["capabilities"].is_object() {
        c["capabilities"] = json!({});
    }
    let label = format!("drop={drop}");
    set(&mut c["capabilities"], "drop", drop);
    label
}

fn add_volume(pod: &mut Json, volume: Json) {
    if !pod["spec"]["volumes"].is_array() {
        pod["spec"]["volumes"] = json!([]);
    }
    let volumes = pod["spec"]["volumes"].as_array_mut().unwrap();
    let mut volume = volume;
    volume["name"] = json!(format!("v{}", volumes.len()));
    volumes.push(volume);
}

fn host_path(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let path = g.pick(&["/", "/var/log", "/var/run/docker.sock", "/etc"]);
    let mut source = json!({"path": path});
    if g.chance(0.4) {
        source["type"] = json!(g.pick(&["Directory", "DirectoryOrCreate", "Socket", ""]));
    }
    add_volume(pod, json!({"hostPath": source}));
    if g.chance(0.6) {
        let name = pod["spec"]["volumes"].as_array().unwrap().last().unwrap()["name"].clone();
        let c = container(pod, t);
        c["volumeMounts"] = json!([{"name": name, "mountPath": "/host"}]);
    }
    format!("hostPath={path}")
}

fn volume_type(g: &mut Gen, pod: &mut Json, _: &Target) -> String {
    let (kind, source) = g.pick(&[
        ("configMap", json!({"name": "cm"})),
        ("secret", json!({"secretName": "s"})),
        ("emptyDir", json!({})),
        ("projected", json!({"sources": [{"serviceAccountToken": {"path": "token"}}]})),
        ("downwardAPI", json!({"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]})),
        ("csi", json!({"driver": "csi.example.com"})),
        ("persistentVolumeClaim", json!({"claimName": "data"})),
        ("ephemeral", json!({"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}})),
        ("image", json!({"reference": IMAGE})),
        ("hostPath", json!({"path": "/tmp"})),
        ("nfs", json!({"server": "nfs.example.com", "path": "/exports"})),
        ("gitRepo", json!({"repository": "https://example.com/repo.git"})),
        ("iscsi", json!({"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:storage", "lun": 0})),
        ("awsElasticBlockStore", json!({"volumeID": "vol-1"})),
        ("gcePersistentDisk", json!({"pdName": "disk"})),
        ("azureFile", json!({"secretName": "s", "shareName": "share"})),
        ("cephfs", json!({"monitors": ["10.0.0.1:6789"]})),
        ("flexVolume", json!({"driver": "example.com/flex"})),
        ("fc", json!({"wwids": ["3600508b400105e210000900000490000"]})),
        ("cinder", json!({"volumeID": "vol-1"})),
    ]);
    add_volume(pod, json!({ kind: source }));
    format!("volume={kind}")
}

fn host_port(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let host = g.pick(&[json!(0), json!(8080), json!(1), json!(65535), Json::Null]);
    let mut port = json!({"containerPort": 8080});
    let label = format!("hostPort={host}");
    set(&mut port, "hostPort", host);
    if g.chance(0.3) {
        port["protocol"] = json!(g.pick(&["TCP", "UDP", "SCTP"]));
    }
    container(pod, t)["ports"] = json!([port]);
    label
}

fn apparmor_annotation(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let value = g.pick(&["runtime/default", "localhost/profile", "unconfined", ""]);
    let key = format!("container.apparmor.security.beta.kubernetes.io/{}", t.name);
    annotate(pod, &key, value);
    format!("appArmorAnnotation={value:?}")
}

fn apparmor_field(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let kind = g.pick(&["RuntimeDefault", "Localhost", "Unconfined"]);
    let mut profile = json!({"type": kind});
    if kind == "Localhost" {
        profile["localhostProfile"] = json!("profile");
    }
    let (at, c) = some_context(g, pod, t);
    c["appArmorProfile"] = profile;
    format!("appArmor.{at}={kind}")
}

fn se_linux(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let mut options = json!({});
    let kind = g.pick(&[
        "container_t",
        "container_init_t",
        "container_kvm_t",
        "container_engine_t",
        "spc_t",
        "",
        "-",
    ]);
    if kind != "-" {
        options["type"] = json!(kind);
    }
    if g.chance(0.3) {
        options["user"] = json!(g.pick(&["system_u", ""]));
    }
    if g.chance(0.3) {
        options["role"] = json!(g.pick(&["system_r", ""]));
    }
    if g.chance(0.3) {
        options["level"] = json!("s0:c123,c456");
    }
    let label = format!("seLinux={options}");
    let (at, c) = some_context(g, pod, t);
    c["seLinuxOptions"] = options;
    format!("{at}.{label}")
}

fn proc_mount(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let kind = g.pick(&["Default", "Unmasked"]);
    context(pod, t)["procMount"] = json!(kind);
    // Unmasked needs a user namespace (hostUsers: false) to be valid.
    let user_namespace = g.chance(if kind == "Unmasked" { 0.8 } else { 0.3 });
    if user_namespace {
        pod["spec"]["hostUsers"] = json!(false);
    }
    format!(
        "procMount={kind}{}",
        if user_namespace {
            ",hostUsers=false"
        } else {
            ""
        }
    )
}

fn host_users(g: &mut Gen, pod: &mut Json, _: &Target) -> String {
    let value = g.chance(0.7);
    let value = !value;
    pod["spec"]["hostUsers"] = json!(value);
    format!("hostUsers={value}")
}

fn seccomp_field(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let kind = g.pick(&["RuntimeDefault", "Localhost", "Unconfined", "-"]);
    let (at, c) = some_context(g, pod, t);
    if kind == "-" {
        remove(c, "seccompProfile");
    } else {
        let mut profile = json!({"type": kind});
        if kind == "Localhost" {
            profile["localhostProfile"] = json!("profiles/app.json");
        }
        c["seccompProfile"] = profile;
    }
    format!("seccomp.{at}={kind}")
}

fn seccomp_annotation(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let value = g.pick(&[
        "runtime/default",
        "unconfined",
        "localhost/profile.json",
        "docker/default",
    ]);
    let key = if g.chance(0.5) {
        "seccomp.security.alpha.kubernetes.io/pod".to_owned()
    } else {
        format!("container.seccomp.security.alpha.kubernetes.io/{}", t.name)
    };
    annotate(pod, &key, value);
    format!("{key}={value}")
}

const SYSCTLS: [(&str, &str); 18] = [
    ("kernel.shm_rmid_forced", "1"),
    ("net.ipv4.ip_local_port_range", "1024 65535"),
    ("net.ipv4.ip_unprivileged_port_start", "1024"),
    ("net.ipv4.tcp_syncookies", "1"),
    ("net.ipv4.ping_group_range", "0 2147483647"),
    ("net.ipv4.ip_local_reserved_ports", "8080"),
    ("net.ipv4.tcp_keepalive_time", "600"),
    ("net.ipv4.tcp_fin_timeout", "30"),
    ("net.ipv4.tcp_keepalive_intvl", "30"),
    ("net.ipv4.tcp_keepalive_probes", "5"),
    ("net.ipv4.tcp_rmem", "4096 87380 6291456"),
    ("net.ipv4.tcp_wmem", "4096 16384 4194304"),
    ("net/ipv4/ip_local_port_range", "1024 65535"),
    ("kernel.msgmax", "65536"),
    ("net.core.somaxconn", "1024"),
    ("kernel.sem", "250 32000 100 128"),
    ("vm.swappiness", "10"),
    ("net.ipv4.tcp_keepalive_time.", "600"),
];

fn sysctls(g: &mut Gen, pod: &mut Json, _: &Target) -> String {
    let n = 1 + g.below(2);
    let mut list: Vec<Json> = Vec::new();
    let mut names = Vec::new();
    for _ in 0..n {
        let (name, value) = g.pick(&SYSCTLS);
        if !names.contains(&name) {
            names.push(name);
            list.push(json!({"name": name, "value": value}));
        }
    }
    pod_context(pod)["sysctls"] = json!(list);
    format!("sysctls={names:?}")
}

fn allow_privilege_escalation(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let value = g.pick(&[json!(true), json!(false), Json::Null]);
    let label = format!("allowPrivilegeEscalation={value}");
    set(context(pod, t), "allowPrivilegeEscalation", value);
    label
}

fn run_as_non_root(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let value = g.pick(&[json!(true), json!(false), Json::Null]);
    let label = format!("runAsNonRoot={value}");
    let (at, c) = some_context(g, pod, t);
    set(c, "runAsNonRoot", value);
    format!("{at}.{label}")
}

fn run_as_user(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let value = g.pick(&[json!(0), json!(1000), json!(65534), Json::Null]);
    let label = format!("runAsUser={value}");
    let (at, c) = some_context(g, pod, t);
    set(c, "runAsUser", value);
    format!("{at}.{label}")
}

fn probe_host(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let host = g.pick(&["", "127.0.0.1", "example.com", "-"]);
    let mut action = json!({"port": 8080});
    if host != "-" {
        action["host"] = json!(host);
    }
    let handler = g.pick(&["httpGet", "tcpSocket"]);
    if handler == "httpGet" {
        action["path"] = json!("/healthz");
    }
    let at = if t.list == "initContainers" {
        // probes are refused on an init container that is no sidecar
        "lifecycle.postStart"
    } else {
        g.pick(&[
            "livenessProbe",
            "readinessProbe",
            "startupProbe",
            "lifecycle.postStart",
            "lifecycle.preStop",
        ])
    };
    let c = container(pod, t);
    match at.split_once('.') {
        Some((_, hook)) => c["lifecycle"] = json!({ hook: { handler: action } }),
        None => c[at] = json!({ handler: action }),
    }
    format!("{at}.{handler}.host={host:?}")
}

fn host_process(g: &mut Gen, pod: &mut Json, t: &Target) -> String {
    let value = g.chance(0.7);
    // A HostProcess container needs the host's network and every
    // container a HostProcess one: mostly give the server a valid pod.
    if value && g.chance(0.8) {
        pod["spec"]["hostNetwork"] = json!(true);
        pod_context(pod)["windowsOptions"] = json!({"hostProcess": true});
        return "hostProcess=true,hostNetwork=true".to_owned();
    }
    let (at, c) = some_context(g, pod, t);
    c["windowsOptions"] = json!({"hostProcess": value});
    format!("{at}.hostProcess={value}")
}

fn windows_host_process(g: &mut Gen, pod: &mut Json, _: &Target) -> String {
    // A HostProcess pod: every container one, on the host's network.
    pod_context(pod)["windowsOptions"] = json!({"hostProcess": true});
    pod["spec"]["hostNetwork"] = json!(true);
    if g.chance(0.3) {
        pod_context(pod)["windowsOptions"]["runAsUserName"] = json!("NT AUTHORITY\\SYSTEM");
    }
    "hostProcess=true".to_owned()
}

fn ephemeral_container(g: &mut Gen, pod: &mut Json, _: &Target) -> String {
    let mut debug = compliant_container("debug");
    if g.chance(0.5) {
        debug["securityContext"]["privileged"] = json!(true);
        remove(&mut debug["securityContext"], "allowPrivilegeEscalation");
    }
    pod["spec"]["ephemeralContainers"] = json!([debug]);
    "ephemeralContainers".to_owned()
}

// ---------------------------------------------------------------------------
// API objects.

/// One API object.
pub struct ApiCase {
    /// `a0042-ports`.
    pub id: String,
    /// The area it probes.
    pub area: &'static str,
    /// What was varied.
    pub variant: String,
    /// The object, in namespace [`API_NAMESPACE`] where namespaced.
    pub object: Json,
}

/// The namespace API objects go in: no Pod Security label.
pub const API_NAMESPACE: &str = "diff-api";

type Area = fn(&mut Gen, &str) -> (String, Json);

/// The areas, as `check`'s API rule names them in docs/checks.md.
pub const AREAS: &[(&str, Area)] = &[
    ("names", names),
    ("labels", labels),
    ("annotations", annotations),
    ("resources", resources),
    ("ports", ports),
    ("service", service),
    ("enums", enums),
    ("strategy", strategy),
    ("required", required),
    ("env", env),
    ("probes", probes),
    ("tolerations", tolerations),
    ("selectors", selectors),
    ("cronjob", cronjob),
    ("pdb", pdb),
    ("rbac", rbac),
    ("networkpolicy", networkpolicy),
    ("numbers", numbers),
    ("volumes", volumes),
    ("containers", containers),
    ("profiles", profiles),
];

/// The `i`th API object.
pub fn api_case(g: &mut Gen, i: usize) -> ApiCase {
    let (area, generate) = g.pick(AREAS);
    let name = format!("a{i:04}");
    let (variant, mut object) = generate(g, &name);
    let cluster_scoped = matches!(
        object["kind"].as_str(),
        Some("Namespace" | "ClusterRole" | "ClusterRoleBinding")
    );
    if !cluster_scoped {
        object["metadata"]["namespace"] = json!(API_NAMESPACE);
    }
    ApiCase {
        id: format!("{name}-{area}"),
        area,
        variant,
        object,
    }
}

fn meta(name: &str) -> Json {
    json!({"name": name})
}

fn pod_with(name: &str, container: Json) -> Json {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta(name), "spec": {"containers": [container]}})
}

fn plain_container() -> Json {
    json!({"name": "app", "image": IMAGE})
}

fn deployment(name: &str, spec: Json) -> Json {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(name),
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": spec}
        }
    })
}

fn names(g: &mut Gen, name: &str) -> (String, Json) {
    let form = g.pick(&[
        "plain",
        "upper",
        "digit-first",
        "dash-last",
        "dash-first",
        "dot",
        "double-dot",
        "underscore",
        "len52",
        "len53",
        "len63",
        "len64",
        "len253",
        "len254",
    ]);
    let pad = |n: usize| format!("{name}{}", "a".repeat(n - name.len()));
    let value = match form {
        "plain" => name.to_owned(),
        "upper" => name.to_uppercase(),
        "digit-first" => format!("1{name}"),
        "dash-last" => format!("{name}-"),
        "dash-first" => format!("-{name}"),
        "dot" => format!("{name}.x"),
        "double-dot" => format!("{name}..x"),
        "underscore" => format!("{name}_x"),
        "len52" => pad(52),
        "len53" => pad(53),
        "len63" => pad(63),
        "len64" => pad(64),
        "len253" => format!(
            "{}.{}.{}.{}",
            pad(63),
            "b".repeat(63),
            "c".repeat(63),
            "d".repeat(61)
        ),
        _ => format!(
            "{}.{}.{}.{}",
            pad(63),
            "b".repeat(63),
            "c".repeat(63),
            "d".repeat(62)
        ),
    };
    let kind = g.pick(&[
        "ConfigMap",
        "Service",
        "Namespace",
        "CronJob",
        "ServiceAccount",
        "Secret",
        "Deployment",
    ]);
    let object = match kind {
        "ConfigMap" => {
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(&value), "data": {"k": "v"}})
        }
        "Service" => {
            json!({"apiVersion": "v1", "kind": "Service", "metadata": meta(&value), "spec": {"ports": [{"port": 80}]}})
        }
        "Namespace" => json!({"apiVersion": "v1", "kind": "Namespace", "metadata": meta(&value)}),
        "CronJob" => json!({
            "apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta(&value),
            "spec": {"schedule": "0 * * * *", "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [plain_container()]}}}}}
        }),
        "ServiceAccount" => {
            json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta(&value)})
        }
        "Secret" => {
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": meta(&value), "stringData": {"k": "v"}})
        }
        _ => {
            let mut d = deployment(name, json!({"containers": [plain_container()]}));
            d["metadata"]["name"] = json!(value);
            d
        }
    };
    (format!("{kind} name {form}"), object)
}

const QUALIFIED: [&str; 14] = [
    "app",
    "example.com/app",
    "example.com/a/b",
    "-app",
    "app-",
    "app.kubernetes.io/name",
    "Example.com/app",
    "exa_mple.com/app",
    "/app",
    "example.com/",
    "a_b.c-d",
    "1app",
    "app name",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
];

fn labels(g: &mut Gen, name: &str) -> (String, Json) {
    let key = g.pick(&QUALIFIED);
    let value = g.pick(&[
        "",
        "v",
        "v-1",
        "v_1.2",
        "-v",
        "v-",
        "v w",
        "v/w",
        "V",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ]);
    let mut object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(name)});
    object["metadata"]["labels"] = json!({ key: value });
    (format!("label {key:?}={value:?}"), object)
}

fn annotations(g: &mut Gen, name: &str) -> (String, Json) {
    let key = g.pick(&QUALIFIED);
    // Rarely the size limit (256 KiB in all): the recording stays small.
    let size = if g.chance(0.08) {
        g.pick(&[262_000usize, 262_200])
    } else {
        g.pick(&[1usize, 100, 1000])
    };
    let mut object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(name)});
    object["metadata"]["annotations"] = json!({ key: "x".repeat(size) });
    (format!("annotation {key:?} of {size} bytes"), object)
}

const QUANTITIES: [&str; 26] = [
    "100m", "0.1", "1", "1.5", "1Gi", "1G", "1e3", "1E3", "-1", "0", "abc", "100Mi", "1Ki", "1k",
    "1K", "0.0001", "1m", "1n", "+1", ".5", "5.", "1Ei", "2", "1 Gi", "0.5Gi", "500Mi",
];

fn resources(g: &mut Gen, name: &str) -> (String, Json) {
    let resource = g.pick(&[
        "cpu",
        "cpu",
        "memory",
        "memory",
        "ephemeral-storage",
        "hugepages-2Mi",
        "example.com/gpu",
        "gpu",
        "nvidia.com/gpu",
        "example.com/Gpu",
    ]);
    let request = g.pick(&QUANTITIES);
    let limit = g.pick(&QUANTITIES);
    let shape = g.pick(&["request", "limit", "both", "both"]);
    let mut r = json!({});
    if shape != "limit" {
        r["requests"] = json!({ resource: request });
    }
    if shape != "request" {
        r["limits"] = json!({ resource: limit });
    }
    if resource.starts_with("hugepages") && g.chance(0.7) {
        r["limits"]["memory"] = json!("1Gi");
        r["limits"][resource] = json!(limit);
    }
    let mut c = plain_container();
    c["resources"] = r;
    let object = if g.chance(0.8) {
        pod_with(name, c)
    } else {
        // A claim's storage request.
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta(name),
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": request}}}})
    };
    let variant = if object["kind"] == "Pod" {
        format!("{resource} {shape} request={request:?} limit={limit:?}")
    } else {
        format!("claim storage={request:?}")
    };
    (variant, object)
}

const PORT_NAMES: [&str; 11] = [
    "http",
    "HTTP",
    "web-1",
    "1234",
    "abcdefghijklmnop",
    "abcdefghijklmno",
    "-web",
    "web-",
    "w--b",
    "a",
    "we_b",
];

fn ports(g: &mut Gen, name: &str) -> (String, Json) {
    let n = 1 + g.below(2);
    let mut list = Vec::new();
    for _ in 0..n {
        let mut port = json!({"containerPort": g.pick(&[json!(0), json!(1), json!(80), json!(65535), json!(65536), json!(-1), json!(8080)])});
        if g.chance(0.6) {
            port["name"] = json!(g.pick(&PORT_NAMES));
        }
        if g.chance(0.4) {
            port["protocol"] = json!(g.pick(&["TCP", "UDP", "SCTP", "tcp", "HTTP"]));
        }
        if g.chance(0.3) {
            port["hostPort"] = json!(g.pick(&[0, 80, 65536, 8080]));
        }
        list.push(port);
    }
    let mut c = plain_container();
    c["ports"] = json!(list);
    (format!("ports={}", c["ports"]), pod_with(name, c))
}

fn service(g: &mut Gen, name: &str) -> (String, Json) {
    let kind = g.pick(&[
        Json::Null,
        json!("ClusterIP"),
        json!("NodePort"),
        json!("LoadBalancer"),
        json!("ExternalName"),
        json!("Bogus"),
    ]);
    let mut spec = json!({});
    set(&mut spec, "type", kind.clone());
    if kind == "ExternalName" {
        spec["externalName"] = json!(g.pick(&["db.example.com", "DB_example", ""]));
    }
    if g.chance(0.15) {
        spec["clusterIP"] = json!("None");
    }
    let n = g.pick(&[0, 1, 1, 2]);
    let mut list = Vec::new();
    for _ in 0..n {
        let mut port = json!({"port": g.pick(&[json!(0), json!(80), json!(443), json!(65536)])});
        if n > 1 || g.chance(0.4) {
            port["name"] = json!(g.pick(&PORT_NAMES));
        }
        if g.chance(0.5) {
            port["targetPort"] = g.pick(&[
                json!(0),
                json!(8080),
                json!("http"),
                json!("HTTP"),
                json!(70000),
            ]);
        }
        if g.chance(0.3) {
            port["nodePort"] = json!(g.pick(&[30080, 80]));
        }
        if g.chance(0.2) {
            port["protocol"] = json!(g.pick(&["TCP", "UDP", "tcp"]));
        }
        list.push(port);
    }
    if n > 0 {
        spec["ports"] = json!(list);
    }
    if g.chance(0.2) {
        spec["sessionAffinity"] = json!(g.pick(&["None", "ClientIP", "Sticky"]));
    }
    if g.chance(0.2) {
        spec["externalTrafficPolicy"] = json!(g.pick(&["Cluster", "Local", "Global"]));
    }
    (
        format!("service {spec}"),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": meta(name), "spec": spec}),
    )
}

fn enums(g: &mut Gen, name: &str) -> (String, Json) {
    let field = g.pick(&[
        "restartPolicy",
        "imagePullPolicy",
        "dnsPolicy",
        "terminationMessagePolicy",
        "preemptionPolicy",
        "podManagementPolicy",
        "concurrencyPolicy",
    ]);
    let value = match field {
        "restartPolicy" => g.pick(&["Always", "OnFailure", "Never", "always", "Sometimes"]),
        "imagePullPolicy" => g.pick(&["Always", "IfNotPresent", "Never", "ifNotPresent", "Bogus"]),
        "dnsPolicy" => g.pick(&[
            "ClusterFirst",
            "Default",
            "ClusterFirstWithHostNet",
            "None",
            "clusterFirst",
        ]),
        "terminationMessagePolicy" => g.pick(&["File", "FallbackToLogsOnError", "file"]),
        "preemptionPolicy" => g.pick(&["Never", "PreemptLowerPriority", "Always"]),
        "podManagementPolicy" => g.pick(&["OrderedReady", "Parallel", "parallel"]),
        _ => g.pick(&["Allow", "Forbid", "Replace", "allow"]),
    };
    let mut c = plain_container();
    let object = match field {
        "imagePullPolicy" | "terminationMessagePolicy" => {
            c[field] = json!(value);
            pod_with(name, c)
        }
        "podManagementPolicy" => json!({
            "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta(name),
            "spec": {"selector": {"matchLabels": {"app": name}}, "serviceName": name, "podManagementPolicy": value,
                "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [c]}}}
        }),
        "concurrencyPolicy" => json!({
            "apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta(name),
            "spec": {"schedule": "0 * * * *", "concurrencyPolicy": value,
                "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [c]}}}}}
        }),
        "restartPolicy" => {
            let kind = g.pick(&["Pod", "Deployment", "Job"]);
            match kind {
                "Pod" => {
                    let mut p = pod_with(name, c);
                    p["spec"][field] = json!(value);
                    p
                }
                "Deployment" => {
                    deployment(name, json!({"restartPolicy": value, "containers": [c]}))
                }
                _ => json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": meta(name),
                    "spec": {"template": {"spec": {"restartPolicy": value, "containers": [c]}}}}),
            }
        }
        _ => {
            let mut p = pod_with(name, c);
            p["spec"][field] = json!(value);
            if field == "dnsPolicy" && value == "None" && g.chance(0.5) {
                p["spec"]["dnsConfig"] = json!({"nameservers": ["10.0.0.10"]});
            }
            p
        }
    };
    (
        format!("{} {field}={value}", object["kind"].as_str().unwrap()),
        object,
    )
}

fn strategy(g: &mut Gen, name: &str) -> (String, Json) {
    let percent = [
        json!(0),
        json!(1),
        json!("25%"),
        json!("100%"),
        json!("101%"),
        json!("x"),
        json!("0%"),
        json!(-1),
        Json::Null,
    ];
    let kind = g.pick(&[
        json!("RollingUpdate"),
        json!("Recreate"),
        json!("Bogus"),
        Json::Null,
    ]);
    let mut s = json!({});
    set(&mut s, "type", kind.clone());
    if g.chance(0.7) {
        let mut rolling = json!({});
        set(&mut rolling, "maxUnavailable", g.pick(&percent));
        set(&mut rolling, "maxSurge", g.pick(&percent));
        s["rollingUpdate"] = rolling;
    }
    let daemonset = g.chance(0.3);
    let mut object = deployment(name, json!({"containers": [plain_container()]}));
    if daemonset {
        object["kind"] = json!("DaemonSet");
        if let Some(r) = s.get_mut("rollingUpdate") {
            remove(r, "maxSurge");
            if g.chance(0.5) {
                r["maxSurge"] = g.pick(&percent);
            }
        }
        object["spec"]["updateStrategy"] = s.clone();
    } else {
        object["spec"]["strategy"] = s.clone();
    }
    (
        format!("{} strategy {s}", object["kind"].as_str().unwrap()),
        object,
    )
}

fn required(g: &mut Gen, name: &str) -> (String, Json) {
    let what = g.pick(&[
        "no containers",
        "no image",
        "no container name",
        "no selector",
        "no service ports",
        "role without verbs",
        "binding without roleRef",
        "complete pod",
        "job without template containers",
        "configmap binaryData and data same key",
    ]);
    let object = match what {
        "no containers" => {
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta(name), "spec": {"containers": []}})
        }
        "no image" => pod_with(name, json!({"name": "app"})),
        "no container name" => pod_with(name, json!({"image": IMAGE})),
        "no selector" => {
            let mut d = deployment(name, json!({"containers": [plain_container()]}));
            remove(&mut d["spec"], "selector");
            d
        }
        "no service ports" => {
            json!({"apiVersion": "v1", "kind": "Service", "metadata": meta(name), "spec": {"selector": {"app": name}}})
        }
        "role without verbs" => {
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta(name),
            "rules": [{"apiGroups": [""], "resources": ["pods"]}]})
        }
        "binding without roleRef" => {
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": meta(name),
            "subjects": [{"kind": "ServiceAccount", "name": "default"}]})
        }
        "complete pod" => pod_with(name, plain_container()),
        "job without template containers" => {
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": meta(name),
            "spec": {"template": {"spec": {"restartPolicy": "Never"}}}})
        }
        _ => {
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(name), "data": {"k": "v"}, "binaryData": {"k": "dg=="}})
        }
    };
    (what.to_owned(), object)
}

fn env(g: &mut Gen, name: &str) -> (String, Json) {
    let var = g.pick(&[
        "FOO", "foo.bar", "1FOO", "FOO BAR", "FOO=BAR", "", "_x", "ä", "-x", "a:b",
    ]);
    let mut entry = json!({"name": var});
    let shape = g.pick(&[
        "value",
        "fieldRef",
        "configMapKeyRef",
        "secretKeyRef",
        "resourceFieldRef",
        "value+fieldRef",
        "empty valueFrom",
        "two sources",
    ]);
    let field_path = g.pick(&[
        "metadata.name",
        "metadata.namespace",
        "spec.nodeName",
        "status.podIP",
        "metadata.labels['app']",
        "metadata.uid",
        "spec.bogus",
        "metadata.annotations",
    ]);
    let key = g.pick(&["k", "k/x", "", "..", "a.b_c-d"]);
    match shape {
        "value" => entry["value"] = json!("v"),
        "fieldRef" => entry["valueFrom"] = json!({"fieldRef": {"fieldPath": field_path}}),
        "configMapKeyRef" => {
            entry["valueFrom"] = json!({"configMapKeyRef": {"name": "cm", "key": key}})
        }
        "secretKeyRef" => entry["valueFrom"] = json!({"secretKeyRef": {"name": "s", "key": key}}),
        "resourceFieldRef" => {
            entry["valueFrom"] = json!({"resourceFieldRef": {"resource": g.pick(&["limits.cpu", "requests.memory", "limits.bogus"])}})
        }
        "value+fieldRef" => {
            entry["value"] = json!("v");
            entry["valueFrom"] = json!({"fieldRef": {"fieldPath": "metadata.name"}});
        }
        "empty valueFrom" => entry["valueFrom"] = json!({}),
        _ => {
            entry["valueFrom"] = json!({"fieldRef": {"fieldPath": "metadata.name"}, "configMapKeyRef": {"name": "cm", "key": "k"}})
        }
    }
    let mut c = plain_container();
    c["env"] = json!([entry]);
    if g.chance(0.2) {
        c["envFrom"] =
            json!([{"prefix": g.pick(&["P_", "1P", "P=", "p.q"]), "configMapRef": {"name": "cm"}}]);
    }
    (
        format!("env {entry} envFrom {}", c["envFrom"]),
        pod_with(name, c),
    )
}

fn probes(g: &mut Gen, name: &str) -> (String, Json) {
    let kind = g.pick(&["livenessProbe", "readinessProbe", "startupProbe"]);
    let mut probe = json!({});
    match g.pick(&["httpGet", "tcpSocket", "exec", "grpc", "two", "none"]) {
        "httpGet" => {
            let mut h =
                json!({"port": g.pick(&[json!(8080), json!("http"), json!(0), json!(70000)])});
            if g.chance(0.3) {
                h["scheme"] = json!(g.pick(&["HTTP", "HTTPS", "http", "FTP"]));
            }
            if g.chance(0.3) {
                h["httpHeaders"] =
                    json!([{"name": g.pick(&["X-Custom", "Bad Header", "", "x_y"]), "value": "v"}]);
            }
            probe["httpGet"] = h;
        }
        "tcpSocket" => probe["tcpSocket"] = json!({"port": 8080}),
        "exec" => probe["exec"] = json!({"command": ["true"]}),
        "grpc" => probe["grpc"] = json!({"port": g.pick(&[8080, 0])}),
        "two" => {
            probe["exec"] = json!({"command": ["true"]});
            probe["tcpSocket"] = json!({"port": 8080});
        }
        _ => {}
    }
    for field in [
        "periodSeconds",
        "timeoutSeconds",
        "successThreshold",
        "failureThreshold",
        "initialDelaySeconds",
        "terminationGracePeriodSeconds",
    ] {
        if g.chance(0.2) {
            probe[field] = json!(g.pick(&[-1, 0, 1, 2, 10]));
        }
    }
    let mut c = plain_container();
    c[kind] = probe;
    let init = g.chance(0.15);
    let mut object = pod_with(name, plain_container());
    if init {
        object["spec"]["initContainers"] = json!([c.clone()]);
        object["spec"]["initContainers"][0]["name"] = json!("init");
        if g.chance(0.5) {
            object["spec"]["initContainers"][0]["restartPolicy"] = json!("Always");
        }
    } else {
        object["spec"]["containers"] = json!([c.clone()]);
    }
    (
        format!("{}{kind} {}", if init { "init " } else { "" }, c[kind]),
        object,
    )
}

fn tolerations(g: &mut Gen, name: &str) -> (String, Json) {
    let mut t = json!({});
    set(
        &mut t,
        "key",
        g.pick(&[
            Json::Null,
            json!(""),
            json!("k"),
            json!("example.com/k"),
            json!("-k"),
        ]),
    );
    set(
        &mut t,
        "operator",
        g.pick(&[Json::Null, json!("Equal"), json!("Exists"), json!("In")]),
    );
    set(
        &mut t,
        "value",
        g.pick(&[Json::Null, json!("v"), json!(""), json!("v w")]),
    );
    set(
        &mut t,
        "effect",
        g.pick(&[
            Json::Null,
            json!("NoSchedule"),
            json!("NoExecute"),
            json!("PreferNoSchedule"),
            json!("Bogus"),
        ]),
    );
    if g.chance(0.3) {
        t["tolerationSeconds"] = json!(g.pick(&[10, -1]));
    }
    let mut p = pod_with(name, plain_container());
    p["spec"]["tolerations"] = json!([t]);
    (format!("toleration {t}"), p)
}

fn selectors(g: &mut Gen, name: &str) -> (String, Json) {
    let mut selector = json!({});
    if g.chance(0.7) {
        let value = g.pick(&[name, "other", "", "-x"]);
        selector["matchLabels"] = json!({"app": value});
    }
    if g.chance(0.4) {
        let op = g.pick(&["In", "NotIn", "Exists", "DoesNotExist", "Gt", "in"]);
        let values = g.pick(&[json!([]), json!([name]), Json::Null]);
        let mut e = json!({"key": "app", "operator": op});
        set(&mut e, "values", values);
        selector["matchExpressions"] = json!([e]);
    }
    let kind = g.pick(&[
        "Deployment",
        "ReplicaSet",
        "DaemonSet",
        "StatefulSet",
        "Job",
        "NetworkPolicy",
    ]);
    let mut object = deployment(name, json!({"containers": [plain_container()]}));
    object["kind"] = json!(kind);
    object["spec"]["selector"] = selector.clone();
    match kind {
        "StatefulSet" => object["spec"]["serviceName"] = json!(name),
        "Job" => {
            object["apiVersion"] = json!("batch/v1");
            object["spec"]["template"]["spec"]["restartPolicy"] = json!("Never");
            if g.chance(0.5) {
                object["spec"]["manualSelector"] = json!(true);
            }
            if g.chance(0.3) {
                remove(&mut object["spec"], "selector");
            }
        }
        "NetworkPolicy" => {
            object = json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": meta(name),
                "spec": {"podSelector": selector}});
        }
        _ => {}
    }
    (format!("{kind} selector {selector}"), object)
}

fn cronjob(g: &mut Gen, name: &str) -> (String, Json) {
    let schedule = g.pick(&[
        "*/5 * * * *",
        "@hourly",
        "@every 1h",
        "61 * * * *",
        "* * * *",
        "0 0 * * MON-FRI",
        "0 0 30 2 *",
        "TZ=UTC 0 * * * *",
        "CRON_TZ=UTC 0 * * * *",
        "0 0 * * 7",
        "0 0 * * 8",
        "* * * * * *",
        "0-59/15 * * * *",
        "*/0 * * * *",
        "0 24 * * *",
        "0 0 0 * *",
        "0 0 * 13 *",
        "0 0 * JAN,jul *",
        "@yearly",
        "@reboot",
        "",
        "? * * * *",
        "0 0 L * *",
    ]);
    let zone = g.pick(&[
        Json::Null,
        Json::Null,
        json!("UTC"),
        json!("Europe/Paris"),
        json!("Etc/GMT+1"),
        json!(" UTC"),
        json!("Local"),
        json!("../etc"),
    ]);
    let mut spec = json!({"schedule": schedule,
        "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [plain_container()]}}}}});
    set(&mut spec, "timeZone", zone.clone());
    if g.chance(0.2) {
        spec["startingDeadlineSeconds"] = json!(g.pick(&[-1, 0, 10]));
    }
    (
        format!("schedule={schedule:?} timeZone={zone}"),
        json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta(name), "spec": spec}),
    )
}

fn pdb(g: &mut Gen, name: &str) -> (String, Json) {
    let values = [
        Json::Null,
        json!(0),
        json!(1),
        json!("50%"),
        json!("150%"),
        json!(-1),
        json!("x%"),
        json!("100%"),
    ];
    let mut spec = json!({"selector": {"matchLabels": {"app": name}}});
    set(&mut spec, "minAvailable", g.pick(&values));
    set(&mut spec, "maxUnavailable", g.pick(&values));
    (
        format!("pdb {spec}"),
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta(name), "spec": spec}),
    )
}

fn rbac(g: &mut Gen, name: &str) -> (String, Json) {
    let group = "rbac.authorization.k8s.io/v1";
    if g.chance(0.5) {
        let mut rule = json!({});
        set(
            &mut rule,
            "verbs",
            g.pick(&[json!([]), json!(["get"]), json!(["*"]), Json::Null]),
        );
        set(
            &mut rule,
            "apiGroups",
            g.pick(&[Json::Null, json!([""]), json!(["apps"])]),
        );
        set(
            &mut rule,
            "resources",
            g.pick(&[Json::Null, json!(["pods"]), json!(["pods/log"])]),
        );
        set(
            &mut rule,
            "nonResourceURLs",
            g.pick(&[Json::Null, Json::Null, json!(["/healthz"])]),
        );
        let kind = g.pick(&["Role", "ClusterRole"]);
        let object =
            json!({"apiVersion": group, "kind": kind, "metadata": meta(name), "rules": [rule]});
        (format!("{kind} rule {rule}"), object)
    } else {
        let mut subject = json!({"name": "someone"});
        let kind = g.pick(&["ServiceAccount", "User", "Group", "Bogus"]);
        subject["kind"] = json!(kind);
        set(
            &mut subject,
            "apiGroup",
            g.pick(&[Json::Null, json!(""), json!("rbac.authorization.k8s.io")]),
        );
        set(
            &mut subject,
            "namespace",
            g.pick(&[Json::Null, json!(API_NAMESPACE)]),
        );
        let mut role_ref = json!({"name": "view"});
        role_ref["kind"] = json!(g.pick(&["Role", "ClusterRole", "ClusterRole", "Bogus"]));
        role_ref["apiGroup"] = json!(g.pick(&[
            "rbac.authorization.k8s.io",
            "rbac.authorization.k8s.io",
            "",
            "rbac"
        ]));
        let kind = g.pick(&["RoleBinding", "ClusterRoleBinding"]);
        let object = json!({"apiVersion": group, "kind": kind, "metadata": meta(name), "subjects": [subject], "roleRef": role_ref});
        (
            format!("{kind} subject {subject} roleRef {role_ref}"),
            object,
        )
    }
}

fn networkpolicy(g: &mut Gen, name: &str) -> (String, Json) {
    let mut port = json!({});
    set(
        &mut port,
        "port",
        g.pick(&[json!(80), json!("http"), json!(0), json!(70000), Json::Null]),
    );
    set(
        &mut port,
        "endPort",
        g.pick(&[Json::Null, Json::Null, json!(90), json!(70)]),
    );
    set(
        &mut port,
        "protocol",
        g.pick(&[Json::Null, json!("TCP"), json!("ICMP")]),
    );
    let mut peer = json!({});
    match g.pick(&["ipBlock", "podSelector", "both", "none"]) {
        "ipBlock" | "both" => {
            let cidr = g.pick(&[
                "10.0.0.0/8",
                "10.0.0.1/8",
                "bogus",
                "fd00::/8",
                "10.0.0.0/33",
            ]);
            let mut block = json!({"cidr": cidr});
            if g.chance(0.4) {
                block["except"] = json!([g.pick(&["10.1.0.0/16", "192.168.0.0/16", "10.0.0.0/8"])]);
            }
            peer["ipBlock"] = block;
            if peer["ipBlock"]["cidr"] == "10.0.0.0/8" && g.chance(0.3) {
                peer["podSelector"] = json!({});
            }
        }
        "podSelector" => peer["podSelector"] = json!({"matchLabels": {"app": "x"}}),
        _ => {}
    }
    let types = g.pick(&[
        Json::Null,
        json!(["Ingress"]),
        json!(["Ingress", "Egress"]),
        json!(["ingress"]),
    ]);
    let mut spec = json!({"podSelector": {}, "ingress": [{"from": [peer], "ports": [port]}]});
    set(&mut spec, "policyTypes", types);
    (
        format!("networkpolicy {spec}"),
        json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": meta(name), "spec": spec}),
    )
}

fn numbers(g: &mut Gen, name: &str) -> (String, Json) {
    let field = g.pick(&[
        "replicas",
        "revisionHistoryLimit",
        "minReadySeconds",
        "progressDeadlineSeconds",
        "backoffLimit",
        "activeDeadlineSeconds",
        "runAsUser",
        "runAsGroup",
        "fsGroup",
        "terminationGracePeriodSeconds",
        "parallelism",
        "completions",
    ]);
    let value = g.pick(&[
        json!(-1),
        json!(0),
        json!(1),
        json!(2147483647),
        json!(2147483648i64),
    ]);
    let object = match field {
        "backoffLimit" | "activeDeadlineSeconds" | "parallelism" | "completions" => {
            let mut spec = json!({"template": {"spec": {"restartPolicy": "Never", "containers": [plain_container()]}}});
            spec[field] = value.clone();
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": meta(name), "spec": spec})
        }
        "runAsUser" | "runAsGroup" | "fsGroup" => {
            let mut p = pod_with(name, plain_container());
            p["spec"]["securityContext"] = json!({ field: value });
            p
        }
        "terminationGracePeriodSeconds" => {
            let mut p = pod_with(name, plain_container());
            p["spec"][field] = value.clone();
            p
        }
        _ => {
            let mut d = deployment(name, json!({"containers": [plain_container()]}));
            d["spec"][field] = value.clone();
            d
        }
    };
    (
        format!("{} {field}={value}", object["kind"].as_str().unwrap()),
        object,
    )
}

fn volumes(g: &mut Gen, name: &str) -> (String, Json) {
    let what = g.pick(&[
        "duplicate volume",
        "two sources",
        "no source",
        "undeclared mount",
        "mount path twice",
        "bad volume name",
        "fine",
        "subPath absolute",
    ]);
    let mut c = plain_container();
    let mut vols = json!([{"name": "data", "emptyDir": {}}]);
    let mut mounts = json!([{"name": "data", "mountPath": "/data"}]);
    match what {
        "duplicate volume" => vols
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "data", "emptyDir": {}})),
        "two sources" => vols[0]["configMap"] = json!({"name": "cm"}),
        "no source" => vols[0] = json!({"name": "data"}),
        "undeclared mount" => mounts
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "other", "mountPath": "/other"})),
        "mount path twice" => {
            vols.as_array_mut()
                .unwrap()
                .push(json!({"name": "more", "emptyDir": {}}));
            mounts
                .as_array_mut()
                .unwrap()
                .push(json!({"name": "more", "mountPath": "/data"}));
        }
        "bad volume name" => {
            vols[0]["name"] = json!("Data_1");
            mounts[0]["name"] = json!("Data_1");
        }
        "subPath absolute" => mounts[0]["subPath"] = json!("/abs"),
        _ => {}
    }
    c["volumeMounts"] = mounts;
    let mut p = pod_with(name, c);
    p["spec"]["volumes"] = vols;
    (what.to_owned(), p)
}

fn containers(g: &mut Gen, name: &str) -> (String, Json) {
    let what = g.pick(&[
        "duplicate across init",
        "duplicate in containers",
        "uppercase name",
        "long name",
        "fine with init",
        "image spaces",
        "ephemeral",
    ]);
    let mut p = pod_with(name, plain_container());
    match what {
        "duplicate across init" => p["spec"]["initContainers"] = json!([plain_container()]),
        "duplicate in containers" => p["spec"]["containers"]
            .as_array_mut()
            .unwrap()
            .push(plain_container()),
        "uppercase name" => p["spec"]["containers"][0]["name"] = json!("App"),
        "long name" => p["spec"]["containers"][0]["name"] = json!("a".repeat(g.pick(&[63, 64]))),
        "fine with init" => p["spec"]["initContainers"] = json!([{"name": "init", "image": IMAGE}]),
        "image spaces" => p["spec"]["containers"][0]["image"] = json!(format!(" {IMAGE}")),
        _ => p["spec"]["ephemeralContainers"] = json!([{"name": "debug", "image": IMAGE}]),
    }
    if g.chance(0.5) && what != "ephemeral" {
        p = deployment(name, p["spec"].take());
    }
    (what.to_owned(), p)
}

fn profiles(g: &mut Gen, name: &str) -> (String, Json) {
    let what = g.pick(&["seccomp", "apparmor", "sysctls"]);
    let mut p = pod_with(name, plain_container());
    let label = match what {
        "sysctls" => {
            let list = g.pick(&[
                json!([{"name": "net.core.somaxconn", "value": "1024"}, {"name": "net.core.somaxconn", "value": "1"}]),
                json!([{"name": "kernel.shm_rmid_forced", "value": "1"}]),
                json!([{"name": "Kernel.shm", "value": "1"}]),
                json!([{"name": "kernel.shm_rmid_forced"}]),
            ]);
            let l = format!("sysctls {list}");
            p["spec"]["securityContext"] = json!({"sysctls": list});
            l
        }
        _ => {
            let field = if what == "seccomp" {
                "seccompProfile"
            } else {
                "appArmorProfile"
            };
            let kind = g.pick(&["Localhost", "RuntimeDefault", "Unconfined", "Bogus"]);
            let mut profile = json!({"type": kind});
            if g.chance(0.5) {
                profile["localhostProfile"] = json!(g.pick(&["p.json", ""]));
            }
            let l = format!("{field} {profile}");
            if g.chance(0.5) {
                p["spec"]["securityContext"] = json!({ field: profile });
            } else {
                p["spec"]["containers"][0]["securityContext"] = json!({ field: profile });
            }
            l
        }
    };
    (label, p)
}
