//! What the API server refuses in a pod spec beyond names and scheduling:
//! the restart policy its owner allows, the pod's
//! host name, subdomain and ServiceAccount name, and per container its
//! environment (names, one value source, downward API paths), probes and
//! lifecycle handlers (one handler, valid ports and thresholds) and the
//! enumerated words of its fields (from `pkg/apis/core/validation`).

use serde_json::Value as Json;

use super::go_json::{Go, go_decode};
use super::{one_of, port_number};
use crate::json::{Found, each, whole};
use crate::location::KeyPath;
use crate::names;

/// The restart policies a pod of `owner` may have; unset is `Always`,
/// refused where `Always` is (a Job's pod must name its policy).
fn restart_policies(owner: &str) -> &'static [&'static str] {
    match owner {
        "Pod" | "PodTemplate" => &["Always", "OnFailure", "Never"],
        "Job" | "CronJob" => &["OnFailure", "Never"],
        _ => &["Always"],
    }
}

/// The pod spec's own fields checked here.
pub fn pod(pod: &Json, owner: &str, at: &KeyPath, found: &mut Found) {
    host_and_users(pod, at, found);
    let allowed = restart_policies(owner);
    // Unset, it is Always, but in a Job's pod, where it is required.
    // Empty, the server defaults it to Always (`SetDefaults_PodSpec`).
    let policy = pod["restartPolicy"].as_str().filter(|p| !p.is_empty());
    if !allowed.contains(&policy.unwrap_or("Always")) {
        let message = match policy {
            Some(policy) => format!(
                "restartPolicy {policy} is not allowed in a {owner}'s pod; it takes {}",
                allowed.join(" or ")
            ),
            None => format!(
                "a {owner}'s pod needs a restartPolicy: {}",
                allowed.join(" or ")
            ),
        };
        found.push((at.key("restartPolicy"), message));
    }
    for (field, rule) in [
        (
            "hostname",
            names::dns1123_label as fn(&str) -> Result<(), String>,
        ),
        ("subdomain", names::dns1123_label),
        ("serviceAccountName", names::dns1123_subdomain),
        ("serviceAccount", names::dns1123_subdomain),
        ("nodeName", names::dns1123_subdomain),
        ("runtimeClassName", names::dns1123_subdomain),
    ] {
        // An empty runtimeClassName is a name, and none. The deprecated
        // serviceAccount is read only where serviceAccountName is empty.
        let replaced = field == "serviceAccount"
            && pod["serviceAccountName"]
                .as_str()
                .is_some_and(|n| !n.is_empty());
        if let Some(value) = pod[field].as_str().filter(|_| !replaced)
            && (!value.is_empty() || field == "runtimeClassName")
            && let Err(why) = rule(value)
        {
            found.push((
                at.key(field),
                format!("`{value}` is not a valid {field}: {why}"),
            ));
        }
    }
    let controlled = matches!(
        owner,
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" | "ReplicationController"
    );
    if controlled && !pod["activeDeadlineSeconds"].is_null() {
        found.push((
            at.key("activeDeadlineSeconds"),
            format!("a {owner}'s pods run without a deadline; activeDeadlineSeconds is not supported here"),
        ));
    } else if let Some(seconds) = whole(&pod["activeDeadlineSeconds"])
        && !(1..=i64::from(i32::MAX)).contains(&seconds)
    {
        found.push((
            at.key("activeDeadlineSeconds"),
            format!("{seconds} is not in 1..2147483647"),
        ));
    }
    dns(pod, at, found);
    host(pod, at, found);
    sleeps(pod, owner, at, found);
    // A pod that never restarts resizes its containers without restarting them.
    if policy == Some("Never") {
        for list in ["initContainers", "containers"] {
            for (i, container) in each(&pod[list]) {
                for (j, resize) in each(&container["resizePolicy"]) {
                    if resize["restartPolicy"]
                        .as_str()
                        .is_some_and(|r| r != "NotRequired")
                    {
                        found.push((
                            at.key(list)
                                .index(i)
                                .key("resizePolicy")
                                .index(j)
                                .key("restartPolicy"),
                            "a pod with restartPolicy Never resizes with NotRequired".to_owned(),
                        ));
                    }
                }
            }
        }
    }
    for (i, gate) in each(&pod["readinessGates"]) {
        if let Some(condition) = gate["conditionType"].as_str()
            && let Err(why) = names::qualified_name(condition)
        {
            let path = at.key("readinessGates").index(i).key("conditionType");
            found.push((
                path,
                format!("`{condition}` is not a condition type: {why}"),
            ));
        }
    }
    let mut gates = std::collections::BTreeSet::new();
    for (i, gate) in each(&pod["schedulingGates"]) {
        let name = gate["name"].as_str().unwrap_or_default();
        let path = at.key("schedulingGates").index(i);
        if let Err(why) = names::qualified_name(name) {
            found.push((
                path.clone(),
                format!("`{name}` is not a scheduling gate name: {why}"),
            ));
        }
        if !gates.insert(name) {
            found.push((path, format!("scheduling gate `{name}` is named twice")));
        }
    }
    super::classes::overhead(&pod["overhead"], &at.key("overhead"), found);
    // The RuntimeClass admission (on by default) fills a Pod's overhead
    // from its RuntimeClass, and refuses one written without a class.
    if owner == "Pod"
        && pod["overhead"].is_object()
        && pod["runtimeClassName"].as_str().is_none_or(str::is_empty)
    {
        found.push((
            at.key("overhead"),
            "a Pod's overhead comes from its RuntimeClass, and this Pod names none (the RuntimeClass admission refuses it)".to_owned(),
        ));
    }
    // A Pod is created unbound while it has gates (`ValidatePodCreate`); a
    // template may hold both, each of its pods made afresh.
    if owner == "Pod"
        && !gates.is_empty()
        && pod["nodeName"].as_str().is_some_and(|n| !n.is_empty())
    {
        found.push((
            at.key("nodeName"),
            "a Pod with schedulingGates is not bound to a node until they are cleared".to_owned(),
        ));
    }
    if let Some(os) = pod["os"].as_object() {
        match os.get("name").and_then(Json::as_str).unwrap_or_default() {
            "linux" | "windows" => {}
            "" => found.push((
                at.key("os").key("name"),
                "an os names linux or windows".to_owned(),
            )),
            other => found.push((
                at.key("os").key("name"),
                format!("`{other}` is not an os (linux, windows)"),
            )),
        }
    }
    for (field, allowed) in [
        (
            "dnsPolicy",
            &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"][..],
        ),
        ("preemptionPolicy", &["PreemptLowerPriority", "Never"]),
    ] {
        // An empty dnsPolicy the server defaults to ClusterFirst.
        if field != "dnsPolicy" || pod[field] != "" {
            one_of(&pod[field], allowed, at.key(field), found);
        }
    }
    for field in ["runAsUser", "runAsGroup", "fsGroup"] {
        id(
            &pod["securityContext"][field],
            at.key("securityContext").key(field),
            found,
        );
    }
    if pod["ephemeralContainers"]
        .as_array()
        .is_some_and(|list| !list.is_empty())
    {
        found.push((
            at.key("ephemeralContainers"),
            "ephemeral containers cannot be set on create, nor in a pod template; they are added to a running pod".to_owned(),
        ));
    }
    // A host port is bound once per node: unique by port, protocol and
    // host IP across the pod's regular containers; each init container's
    // (sidecars too) only among its own (`AccumulateUniqueHostPorts`). A
    // Pod on the host network has an unset or 0 host port set to its
    // container port first (`SetDefaults_Pod`; a template is not
    // defaulted).
    let defaulted = owner == "Pod" && pod["hostNetwork"] == true;
    for list in ["initContainers", "containers"] {
        let mut host_ports = std::collections::BTreeSet::new();
        for (c, container) in each(&pod[list]) {
            if list == "initContainers" {
                host_ports.clear();
            }
            for (p, port) in each(&container["ports"]) {
                let host = crate::kube::defaults::host_port_as_created(port, defaulted)
                    .unwrap_or(&port["hostPort"]);
                let Some(number) = whole(host).filter(|n| *n != 0) else {
                    continue;
                };
                let protocol = port["protocol"].as_str().unwrap_or("TCP");
                let ip = port["hostIP"].as_str().unwrap_or_default();
                if !host_ports.insert((number, protocol, ip)) {
                    found.push((
                        at.key(list).index(c).key("ports").index(p).key("hostPort"),
                        format!("host port {number}/{protocol} a second time in this pod"),
                    ));
                }
            }
        }
    }
}

/// What the API server's pod validation (`pkg/apis/core/validation`)
/// refuses among the host namespaces, user namespaces, sysctls and
/// container security contexts, and the containers a pod must have:
/// - a pod has a container, and each container an image;
/// - with `hostUsers: false`, no host network, PID or IPC namespace, and
///   only there a `procMount: Unmasked`;
/// - on the host network, a container's host port is 0 or its container
///   port;
/// - a sysctl name is dot- or slash-separated segments of `[-_a-z0-9]`
///   with alphanumeric ends, at most 253 characters; a network sysctl
///   (`net.*`) not on the host network, an IPC one (`kernel.shm*`,
///   `kernel.msg*`, `kernel.sem`, `fs.mqueue.*`) not in the host IPC
///   namespace;
/// - `allowPrivilegeEscalation: false` neither with `privileged: true` nor
///   with the capability `CAP_SYS_ADMIN` added.
fn host_and_users(pod: &Json, at: &KeyPath, found: &mut Found) {
    let user_namespace = pod["hostUsers"] == false;
    let host_network = pod["hostNetwork"] == true;
    pod_security_context(pod, at, found);
    if pod["containers"].as_array().is_some_and(Vec::is_empty) {
        found.push((
            at.key("containers"),
            "a pod has at least one container".to_owned(),
        ));
    }
    if user_namespace {
        for field in ["hostNetwork", "hostPID", "hostIPC"] {
            if pod[field] == true {
                found.push((
                    at.key(field),
                    format!("{field} cannot be used with hostUsers: false"),
                ));
            }
        }
    }
    for (i, sysctl) in each(&pod["securityContext"]["sysctls"]) {
        let Some(name) = sysctl["name"].as_str() else {
            continue;
        };
        let path = at
            .key("securityContext")
            .key("sysctls")
            .index(i)
            .key("name");
        if !sysctl_name(name) {
            found.push((path, format!("`{name}` is not a sysctl name: segments of lowercase letters, digits, `-` and `_` with a letter or digit at each end, joined by `.` or `/`, at most 253 characters")));
            continue;
        }
        let normal = sysctl_normal(name);
        let ipc = matches!(
            normal.as_str(),
            "kernel.sem"
                | "kernel.shmall"
                | "kernel.shmmax"
                | "kernel.shmmni"
                | "kernel.shm_rmid_forced"
                | "kernel.shm"
                | "kernel.msgmax"
                | "kernel.msgmnb"
                | "kernel.msgmni"
                | "kernel.msg"
        ) || normal.starts_with("fs.mqueue.");
        if host_network && normal.starts_with("net.") {
            found.push((path, format!("the network sysctl `{name}` cannot be set on the host network (hostNetwork: true)")));
        } else if pod["hostIPC"] == true && ipc {
            found.push((path, format!("the IPC sysctl `{name}` cannot be set in the host IPC namespace (hostIPC: true)")));
        }
    }
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for (c, container) in each(&pod[list]) {
            let path = at.key(list).index(c);
            if container["image"].as_str().is_none_or(str::is_empty) {
                found.push((path.key("image"), "a container needs an image".to_owned()));
            }
            let context = &container["securityContext"];
            if let Some(mount) = context["procMount"].as_str()
                && !matches!(mount, "Default" | "Unmasked")
            {
                found.push((
                    path.key("securityContext").key("procMount"),
                    format!("`{mount}` is not a procMount type (Default, Unmasked)"),
                ));
            }
            if user_namespace && each(&container["volumeDevices"]).next().is_some() {
                found.push((
                    path.key("volumeDevices"),
                    "a pod in a user namespace (hostUsers: false) has no volume devices".to_owned(),
                ));
            }
            if context["procMount"] == "Unmasked" && !user_namespace {
                found.push((
                    path.key("securityContext").key("procMount"),
                    "procMount Unmasked needs the pod in a user namespace (hostUsers: false)"
                        .to_owned(),
                ));
            }
            if context["allowPrivilegeEscalation"] == false {
                if context["privileged"] == true {
                    found.push((
                        path.key("securityContext"),
                        "allowPrivilegeEscalation false with privileged true: a privileged container escalates".to_owned(),
                    ));
                }
                if each(&context["capabilities"]["add"]).any(|(_, c)| c == "CAP_SYS_ADMIN") {
                    found.push((
                        path.key("securityContext"),
                        "allowPrivilegeEscalation false with CAP_SYS_ADMIN added".to_owned(),
                    ));
                }
            }
            if host_network && list == "containers" {
                for (p, port) in each(&container["ports"]) {
                    let host = whole(&port["hostPort"]).unwrap_or(0);
                    if host != 0 && Some(host) != whole(&port["containerPort"]) {
                        found.push((
                            path.key("ports").index(p).key("hostPort"),
                            format!(
                                "on the host network a host port is its container port, not {host}"
                            ),
                        ));
                    }
                }
            }
        }
    }
}

/// A pod's security context (`ValidatePodSecurityContext`): the words of
/// `fsGroupChangePolicy` (`OnRootMismatch`, `Always`),
/// `supplementalGroupsPolicy` (`Merge`, `Strict`) and `seLinuxChangePolicy`
/// (`Recursive`: `MountOption` needs the SELinuxMount feature, off by
/// default), each set one even empty; supplemental groups in
/// 0..2147483647; a shared process namespace not beside the host's.
fn pod_security_context(pod: &Json, pod_at: &KeyPath, found: &mut Found) {
    let context = &pod["securityContext"];
    let at = pod_at.key("securityContext");
    for (field, words) in [
        ("fsGroupChangePolicy", &["OnRootMismatch", "Always"][..]),
        ("supplementalGroupsPolicy", &["Merge", "Strict"]),
        ("seLinuxChangePolicy", &["Recursive"]),
    ] {
        if let Some(word) = context[field].as_str()
            && !words.contains(&word)
        {
            found.push((
                at.key(field),
                format!("`{word}` is not one of {}", words.join(", ")),
            ));
        }
    }
    for (i, group) in each(&context["supplementalGroups"]) {
        if whole(group).is_some_and(|g| !(0..=i64::from(i32::MAX)).contains(&g)) {
            found.push((
                at.key("supplementalGroups").index(i),
                format!("group {group} is not in 0..2147483647"),
            ));
        }
    }
    if pod["shareProcessNamespace"] == true && pod["hostPID"] == true {
        found.push((
            pod_at.key("shareProcessNamespace"),
            "a pod shares its process namespace or the host's (hostPID), not both".to_owned(),
        ));
    }
}

/// What the API server refuses in a Windows pod (`spec.os.name:
/// windows`: the Linux-only fields, each a finding) and in HostProcess
/// pods (any pod: a container is HostProcess by its own
/// `windowsOptions.hostProcess` or else the pod's; the two agree where both
/// are set; one HostProcess container makes every container one, and the
/// pod on the host network).
pub fn windows(pod: &Json, at: &KeyPath, found: &mut Found) {
    let pod_context = &pod["securityContext"];
    let context_at = at.key("securityContext");
    windows_options(&pod_context["windowsOptions"], &context_at, found);
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for (c, container) in each(&pod[list]) {
            let context_at = at.key(list).index(c).key("securityContext");
            windows_options(
                &container["securityContext"]["windowsOptions"],
                &context_at,
                found,
            );
        }
    }
    if pod["os"]["name"] == "linux" {
        let forbidden = || "windows options cannot be set for a linux pod".to_owned();
        if !pod_context["windowsOptions"].is_null() {
            found.push((at.key("securityContext").key("windowsOptions"), forbidden()));
        }
        for list in ["initContainers", "containers", "ephemeralContainers"] {
            for (c, container) in each(&pod[list]) {
                if !container["securityContext"]["windowsOptions"].is_null() {
                    let path = at.key(list).index(c).key("securityContext");
                    found.push((path.key("windowsOptions"), forbidden()));
                }
            }
        }
    }
    if pod["os"]["name"] == "windows" {
        let forbidden = |field: &str| format!("{field} cannot be set for a Windows pod");
        for field in ["hostUsers", "shareProcessNamespace"] {
            if !pod[field].is_null() {
                found.push((at.key(field), forbidden(field)));
            }
        }
        for field in ["hostPID", "hostIPC"] {
            if pod[field] == true {
                found.push((at.key(field), forbidden(field)));
            }
        }
        for field in [
            "appArmorProfile",
            "seLinuxOptions",
            "seccompProfile",
            "fsGroup",
            "fsGroupChangePolicy",
            "sysctls",
            "runAsUser",
            "runAsGroup",
            "supplementalGroups",
            "supplementalGroupsPolicy",
            "seLinuxChangePolicy",
        ] {
            // Sysctls count when there is one (`len > 0`), the rest when set.
            let set = match field {
                "sysctls" => each(&pod_context[field]).next().is_some(),
                _ => !pod_context[field].is_null(),
            };
            if set {
                found.push((at.key("securityContext").key(field), forbidden(field)));
            }
        }
        for list in ["initContainers", "containers", "ephemeralContainers"] {
            for (c, container) in each(&pod[list]) {
                let context = &container["securityContext"];
                for field in [
                    "appArmorProfile",
                    "seLinuxOptions",
                    "seccompProfile",
                    "capabilities",
                    "readOnlyRootFilesystem",
                    "privileged",
                    "allowPrivilegeEscalation",
                    "procMount",
                    "runAsUser",
                    "runAsGroup",
                ] {
                    if !context[field].is_null() {
                        found.push((
                            at.key(list).index(c).key("securityContext").key(field),
                            forbidden(field),
                        ));
                    }
                }
            }
        }
    }
    let pod_host = pod_context["windowsOptions"]["hostProcess"].as_bool();
    let (mut all, mut host) = (0, 0);
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for (c, container) in each(&pod[list]) {
            all += 1;
            let own = container["securityContext"]["windowsOptions"]["hostProcess"].as_bool();
            if let (Some(p), Some(o)) = (pod_host, own)
                && p != o
            {
                found.push((
                    at.key(list).index(c).key("securityContext").key("windowsOptions").key("hostProcess"),
                    format!("hostProcess {o} differs from the pod's {p}; where both are set they are equal"),
                ));
            }
            if own.or(pod_host) == Some(true) {
                host += 1;
            }
        }
    }
    if host > 0 && host != all {
        found.push((
            at.clone(),
            "a pod with a HostProcess container has only HostProcess containers".to_owned(),
        ));
    }
    if host > 0 && pod["hostNetwork"] != true {
        found.push((
            at.key("hostNetwork"),
            "a pod with HostProcess containers is on the host network (hostNetwork: true)"
                .to_owned(),
        ));
    }
}

/// One `windowsOptions` (of a pod or a container, at `context_at`): the
/// GMSA credential spec's name a DNS subdomain (the name of its custom
/// resource), the spec itself 1 byte to 64 KiB, and `runAsUserName` a
/// Windows user, optionally after a domain and one backslash: no control
/// character; the domain under 256 bytes and a NetBIOS name (1 to 15
/// characters, none of `\/:*?"<>|`, not first a `.`) or a DNS name; the
/// user 1 to 104 bytes, not only dots and spaces, none of `"/\:;|=,+*?<>@[]`.
fn windows_options(options: &Json, context_at: &KeyPath, found: &mut Found) {
    let at = context_at.key("windowsOptions");
    if let Some(name) = options["gmsaCredentialSpecName"].as_str()
        && let Err(why) = names::dns1123_subdomain(name)
    {
        found.push((at.key("gmsaCredentialSpecName"), why));
    }
    if let Some(spec) = options["gmsaCredentialSpec"].as_str() {
        let why = match spec.len() {
            0 => Some("gmsaCredentialSpec cannot be an empty string".to_owned()),
            n if n > 64 * 1024 => Some(format!(
                "gmsaCredentialSpec holds {n} bytes; at most 64 KiB"
            )),
            _ => None,
        };
        found.extend(why.map(|why| (at.key("gmsaCredentialSpec"), why)));
    }
    if let Some(name) = options["runAsUserName"].as_str() {
        for why in windows_user_name(name) {
            found.push((at.key("runAsUserName"), format!("`{name}`: {why}")));
        }
    }
}

/// Why the API server refuses `runAsUserName`, each reason it gives.
fn windows_user_name(name: &str) -> Vec<&'static str> {
    if name.is_empty() {
        return vec!["runAsUserName cannot be an empty string"];
    }
    if name.bytes().any(|b| b.is_ascii_control()) {
        return vec!["runAsUserName cannot contain control characters"];
    }
    let (domain, user) = match name.split('\\').collect::<Vec<_>>()[..] {
        [user] => (None, user),
        [domain, user] => (Some(domain), user),
        _ => return vec!["runAsUserName cannot contain more than one backslash"],
    };
    let mut why = Vec::new();
    if domain.is_some_and(|d| d.len() >= 256) {
        why.push("the domain holds 256 bytes or more");
    }
    const NOT_NETBIOS: &[char] = &['\\', '/', ':', '*', '?', '"', '<', '>', '|'];
    let netbios = |d: &str| {
        (1..=15).contains(&d.chars().count()) && !d.starts_with('.') && !d.contains(NOT_NETBIOS)
    };
    let dns = |d: &str| {
        d.split('.').all(|label| {
            (1..=63).contains(&label.len())
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
    };
    if domain.is_some_and(|d| !netbios(d) && !dns(d)) {
        why.push("the domain is neither a NetBIOS name (1 to 15 characters, none of \\/:*?\"<>|, not first a dot) nor a DNS name");
    }
    match user.len() {
        0 => why.push("the user cannot be empty"),
        n if n > 104 => why.push("the user is longer than 104 bytes"),
        _ => {}
    }
    if !user.is_empty() && user.bytes().all(|b| b == b'.' || b == b' ') {
        why.push("the user cannot be only dots and spaces");
    }
    if user.contains([
        '"', '/', '\\', ':', ';', '|', '=', ',', '+', '*', '?', '<', '>', '@', '[', ']',
    ]) {
        why.push("the user cannot hold any of \"/\\:;|=,+*?<>@[]");
    }
    why
}

/// The annotations the API server reads of a pod (or a template) beyond
/// its profiles (`ValidatePodSpecificAnnotations`): a mirror pod's
/// `kubernetes.io/config.mirror` only beside a `spec.nodeName`; the
/// deprecated `scheduler.alpha.kubernetes.io/tolerations`, where not
/// empty, a JSON list of tolerations (decoded as Go decodes it into
/// `[]Toleration`: field names in any case, unknown ones ignored) each
/// valid; `controller.kubernetes.io/pod-deletion-cost` a 32-bit integer
/// in decimal, without a `+` or a leading zero.
pub fn pod_annotations(metadata: &Json, pod: &Json, at: &KeyPath, found: &mut Found) {
    let annotations = &metadata["annotations"];
    let at = |key: &str| at.key("annotations").key(key);
    // Present, whatever its value (a null one is `""` to Go's decoder).
    if annotations.get("kubernetes.io/config.mirror").is_some()
        && pod["nodeName"].as_str().unwrap_or_default().is_empty()
    {
        found.push((
            at("kubernetes.io/config.mirror"),
            "a mirror pod's annotation needs spec.nodeName".to_owned(),
        ));
    }
    const TOLERATIONS: &str = "scheduler.alpha.kubernetes.io/tolerations";
    if let Some(text) = annotations[TOLERATIONS].as_str().filter(|t| !t.is_empty()) {
        match go_tolerations(text) {
            Some(tolerations) => {
                for (i, toleration) in tolerations.iter().enumerate() {
                    crate::scheduling::toleration(toleration, &at(TOLERATIONS).index(i), found);
                }
            }
            None => found.push((
                at(TOLERATIONS),
                "is no JSON list of tolerations as the server decodes one (objects of string fields, a whole tolerationSeconds)".to_owned(),
            )),
        }
    }
    const DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";
    if let Some(cost) = annotations.get(DELETION_COST) {
        let text = cost.as_str().unwrap_or_default();
        let first = text.bytes().next();
        let valid = (first == Some(b'-') || text == "0" || matches!(first, Some(b'1'..=b'9')))
            && text.parse::<i32>().is_ok()
            && !text.starts_with('+');
        if !valid {
            found.push((
                at(DELETION_COST),
                format!(
                    "`{text}` is not a 32-bit integer (in decimal, without `+` or a leading zero)"
                ),
            ));
        }
    }
}

/// The tolerations of the deprecated annotation as Go's `json.Unmarshal`
/// reads `text` into a `[]Toleration` ([`go_decode`]: `null` is none, a
/// `null` item a toleration of no fields, a field matched by its name in
/// any case, others ignored); `None` where Go cannot decode it.
fn go_tolerations(text: &str) -> Option<Vec<Json>> {
    const TOLERATION: Go = Go::Struct(&[
        ("key", Go::Text),
        ("operator", Go::Text),
        ("value", Go::Text),
        ("effect", Go::Text),
        ("tolerationSeconds", Go::Int64),
    ]);
    let value: Json = serde_json::from_str(text).ok()?;
    match go_decode(&value, Go::List(&TOLERATION))? {
        Json::Array(items) => Some(items),
        _ => Some(Vec::new()),
    }
}

/// The profile each seccomp and AppArmor annotation of a pod's (or
/// template's) metadata names, whether or not a field names one too
/// (`ValidateSeccompPodAnnotations`, `ValidateAppArmorPodAnnotations`).
/// seccomp: the pod's key, and any key of the containers' prefix, even one
/// that names no container, name `runtime/default`, `docker/default`,
/// `unconfined`, or `localhost/` and a relative path without a `..` part
/// (even empty). AppArmor: each key names a container of `pod` (init,
/// regular or ephemeral), and its profile is empty, `runtime/default`,
/// `unconfined` or `localhost/` and anything.
pub fn profile_annotations(metadata: &Json, pod: &Json, at: &KeyPath, found: &mut Found) {
    let Some(annotations) = metadata["annotations"].as_object() else {
        return;
    };
    for (key, value) in annotations {
        let profile = value.as_str().unwrap_or_default();
        let at = || at.key("annotations").key(key);
        if key == "seccomp.security.alpha.kubernetes.io/pod"
            || key.starts_with("container.seccomp.security.alpha.kubernetes.io/")
        {
            let why = match profile {
                "runtime/default" | "docker/default" | "unconfined" => continue,
                _ => match profile.strip_prefix("localhost/") {
                    Some(path) if path.starts_with('/') => "its path is absolute; it is relative",
                    Some(path) if path.split('/').any(|part| part == "..") => {
                        "its path has a `..` part"
                    }
                    Some(_) => continue,
                    None => {
                        "it is none of `runtime/default`, `docker/default`, `unconfined` and `localhost/<path>`"
                    }
                },
            };
            found.push((
                at(),
                format!("`{profile}` is no valid seccomp profile: {why}"),
            ));
        } else if let Some(name) =
            key.strip_prefix("container.apparmor.security.beta.kubernetes.io/")
        {
            let named = ["initContainers", "containers", "ephemeralContainers"]
                .iter()
                .flat_map(|list| each(&pod[*list]))
                .any(|(_, container)| container["name"].as_str().unwrap_or_default() == name);
            if !named {
                found.push((
                    at(),
                    format!("names container `{name}`, which the pod does not have"),
                ));
            }
            let known = matches!(profile, "" | "runtime/default" | "unconfined")
                || profile.starts_with("localhost/");
            if !known {
                found.push((
                    at(),
                    format!("`{profile}` is no AppArmor profile: `runtime/default`, `unconfined` or `localhost/<name>`"),
                ));
            }
        }
    }
}

/// A pod's (or template's) seccomp annotations against its fields: where
/// both are set they name the same profile (`runtime/default` or
/// `docker/default` for `RuntimeDefault`, `unconfined`, `localhost/<p>` for
/// `Localhost` with profile `<p>`).
pub fn seccomp_annotations(metadata: &Json, pod: &Json, at: &KeyPath, found: &mut Found) {
    let annotations = &metadata["annotations"];
    let mut pairs = vec![(
        annotations["seccomp.security.alpha.kubernetes.io/pod"].as_str(),
        &pod["securityContext"]["seccompProfile"],
        at.key("securityContext").key("seccompProfile"),
    )];
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for (c, container) in each(&pod[list]) {
            let name = container["name"].as_str().unwrap_or_default();
            let key = format!("container.seccomp.security.alpha.kubernetes.io/{name}");
            pairs.push((
                annotations[key.as_str()].as_str(),
                &container["securityContext"]["seccompProfile"],
                at.key(list)
                    .index(c)
                    .key("securityContext")
                    .key("seccompProfile"),
            ));
        }
    }
    for (annotation, field, path) in pairs {
        let (Some(annotation), Some(kind)) = (annotation, field["type"].as_str()) else {
            continue;
        };
        let matches = match kind {
            "Unconfined" => annotation == "unconfined",
            "RuntimeDefault" => annotation == "runtime/default" || annotation == "docker/default",
            "Localhost" => annotation
                .strip_prefix("localhost/")
                .is_some_and(|p| field["localhostProfile"] == p),
            _ => true,
        };
        if !matches {
            found.push((
                path.key("type"),
                format!("seccomp {kind} here and `{annotation}` in the annotation; where both are set they match"),
            ));
        }
    }
}

/// A pod's (or template's) AppArmor annotations against the profile each
/// container runs with (its own field, else the pod's): where both are
/// set they name the same profile. In a Pod the server first copies an
/// annotation to a container with no field of its own (1.30+), so there
/// only a container's own field can disagree; a Windows pod is not checked.
pub fn apparmor_annotations(
    metadata: &Json,
    pod: &Json,
    owner: &str,
    at: &KeyPath,
    found: &mut Found,
) {
    if pod["os"]["name"] == "windows" {
        return;
    }
    let pod_profile = &pod["securityContext"]["appArmorProfile"];
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for (c, container) in each(&pod[list]) {
            let name = container["name"].as_str().unwrap_or_default();
            let key = format!("container.apparmor.security.beta.kubernetes.io/{name}");
            let Some(annotation) = metadata["annotations"][key.as_str()].as_str() else {
                continue;
            };
            let own = &container["securityContext"]["appArmorProfile"];
            let copied = matches!(annotation, "runtime/default" | "unconfined")
                || annotation
                    .strip_prefix("localhost/")
                    .is_some_and(|p| !p.is_empty() && p.trim() == p);
            if owner == "Pod" && own.is_null() && copied {
                continue;
            }
            let profile = if own.is_null() { pod_profile } else { own };
            let matches = match profile["type"].as_str() {
                Some("Unconfined") => annotation == "unconfined",
                Some("RuntimeDefault") => annotation == "runtime/default",
                Some("Localhost") => annotation
                    .strip_prefix("localhost/")
                    .is_some_and(|p| profile["localhostProfile"] == p),
                _ => true,
            };
            if !matches {
                found.push((
                    at.key(list).index(c).key("securityContext").key("appArmorProfile"),
                    format!("AppArmor {} for container `{name}` and `{annotation}` in its annotation; where both are set they match", profile["type"].as_str().unwrap_or_default()),
                ));
            }
        }
    }
}

/// A sysctl name as the API server reads it: `[a-z0-9]([-_a-z0-9]*[a-z0-9])?`
/// segments joined by `.` or `/`, at most 253 characters.
fn sysctl_name(name: &str) -> bool {
    name.len() <= 253
        && name.split(['.', '/']).all(|segment| {
            let bytes = segment.as_bytes();
            let end = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
            bytes.first().is_some_and(end)
                && bytes.last().is_some_and(end)
                && bytes.iter().all(|b| end(b) || *b == b'-' || *b == b'_')
        })
}

/// A sysctl name with `.` separators: a name whose first separator is `/`
/// has its `.` and `/` swapped (`net/ipv4/ip_forward` is
/// `net.ipv4.ip_forward`), as the kubelet's `NormalizeName`.
fn sysctl_normal(name: &str) -> String {
    match name.find(['.', '/']) {
        Some(i) if name.as_bytes()[i] == b'/' => name
            .chars()
            .map(|c| match c {
                '.' => '/',
                '/' => '.',
                c => c,
            })
            .collect(),
        _ => name.to_owned(),
    }
}

/// A user or group id: 0..2147483647.
fn id(value: &Json, at: KeyPath, found: &mut Found) {
    if let Some(number) = value.as_f64()
        && !(0.0..=f64::from(i32::MAX)).contains(&number)
    {
        found.push((at, format!("{value} is not an id in 0..2147483647")));
    }
}

/// A lifecycle hook's sleep within the pod's grace period
/// (`validateSleepAction`): at most `terminationGracePeriodSeconds`, 30
/// when unset (in a Pod, whose strategy first raises a negative one to 1).
fn sleeps(pod: &Json, owner: &str, at: &KeyPath, found: &mut Found) {
    let grace = whole(&pod["terminationGracePeriodSeconds"]).unwrap_or(30);
    // The Pod conversion raises a negative one to 1; 0 stays.
    let grace = if owner == "Pod" && grace < 0 {
        1
    } else {
        grace
    };
    for list in ["initContainers", "containers"] {
        for (c, container) in each(&pod[list]) {
            for hook in ["postStart", "preStop"] {
                let seconds = &container["lifecycle"][hook]["sleep"]["seconds"];
                if let Some(seconds) = whole(seconds).filter(|s| *s >= 0 && *s > grace) {
                    found.push((
                        at.key(list)
                            .index(c)
                            .key("lifecycle")
                            .key(hook)
                            .key("sleep")
                            .key("seconds"),
                        format!(
                            "{seconds} seconds of sleep, more than the pod's grace period ({grace})"
                        ),
                    ));
                }
            }
        }
    }
}

/// A container's own restart policy and rules (`validateContainerRestartPolicy`,
/// `validateInitContainerRestartPolicy`; ContainerRestartRules is on by
/// default since Kubernetes 1.35): `Always`, `Never` or `OnFailure`, given
/// where there are rules; at most 20 rules, each of action `Restart` with
/// exit codes (`In` or `NotIn`, at most 255 values); none on a sidecar (an
/// init container restarted `Always`).
fn restart_rules(container: &Json, init: bool, at: &KeyPath, found: &mut Found) {
    let policy = &container["restartPolicy"];
    let rules: Vec<(usize, &Json)> = each(&container["restartPolicyRules"]).collect();
    if policy.is_null() {
        if !rules.is_empty() {
            found.push((
                at.key("restartPolicy"),
                "a container with restartPolicyRules gives its restartPolicy".to_owned(),
            ));
        }
        return;
    }
    one_of(
        policy,
        &["Always", "Never", "OnFailure"],
        at.key("restartPolicy"),
        found,
    );
    if init && policy == "Always" {
        if !rules.is_empty() {
            found.push((
                at.key("restartPolicyRules"),
                "a sidecar (an init container restarted Always) has no restartPolicyRules"
                    .to_owned(),
            ));
        }
        return;
    }
    if rules.len() > 20 {
        found.push((
            at.key("restartPolicyRules"),
            format!("{} rules; a container has at most 20", rules.len()),
        ));
    }
    for (i, rule) in rules {
        let path = at.key("restartPolicyRules").index(i);
        one_of(&rule["action"], &["Restart"], path.key("action"), found);
        if rule["action"].is_null() {
            found.push((path.key("action"), "a rule's action is Restart".to_owned()));
        }
        let codes = &rule["exitCodes"];
        if codes.is_null() {
            found.push((
                path.key("exitCodes"),
                "a rule gives its exitCodes".to_owned(),
            ));
            continue;
        }
        let operator = codes["operator"].as_str().unwrap_or_default();
        if !matches!(operator, "In" | "NotIn") {
            found.push((
                path.key("exitCodes").key("operator"),
                format!("`{operator}` is not an exit code operator (In, NotIn)"),
            ));
        }
        let values = each(&codes["values"]).count();
        if values > 255 {
            found.push((
                path.key("exitCodes").key("values"),
                format!("{values} exit codes; a rule has at most 255"),
            ));
        }
    }
}

/// One container's environment, probes, lifecycle and enumerated fields.
pub fn container(container: &Json, init: bool, at: &KeyPath, found: &mut Found) {
    for (i, var) in each(&container["env"]) {
        env_var(var, &at.key("env").index(i), found);
    }
    for (i, source) in each(&container["envFrom"]) {
        let path = at.key("envFrom").index(i);
        if let Some(prefix) = source["prefix"].as_str()
            && !prefix.is_empty()
            && let Err(why) = env_name(prefix)
        {
            found.push((
                path.key("prefix"),
                format!("`{prefix}` is not a valid prefix: {why}"),
            ));
        }
        for field in ["configMapRef", "secretRef"] {
            // Read as a name prefix: the server masks a trailing `-`
            // (`maskTrailingDash`: the last two bytes become `a`).
            let name = source[field]["name"].as_str().unwrap_or_default();
            let masked = names::masked_prefix(name);
            if source[field].is_object()
                && let Err(why) = match name {
                    "" => Err("it is empty".to_owned()),
                    _ => names::dns1123_subdomain(masked.as_deref().unwrap_or(name)),
                }
            {
                found.push((
                    path.key(field).key("name"),
                    format!("`{name}` is not a valid {field} name: {why}"),
                ));
            }
        }
        let count = ["configMapRef", "secretRef"]
            .iter()
            .filter(|f| source[**f].is_object())
            .count();
        if count != 1 {
            found.push((
                path,
                "an envFrom entry names exactly one of configMapRef, secretRef".to_owned(),
            ));
        }
    }
    // An init container that is no sidecar (restartPolicy Always) may have
    // no probes and no lifecycle.
    let sidecar = container["restartPolicy"].as_str() == Some("Always");
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        let value = &container[probe];
        if value.is_null() {
            continue;
        }
        let path = at.key(probe);
        if init && !sidecar {
            found.push((path, format!("an init container has no {probe}")));
            continue;
        }
        self::probe(value, probe, &path, found);
    }
    // `stopSignal` is dropped while its feature gate (ContainerStopSignals,
    // alpha) is off, and a lifecycle it leaves empty with it: what is left
    // is judged.
    let lifecycle = &container["lifecycle"];
    let only_stop_signal = || {
        lifecycle.as_object().is_some_and(|hooks| {
            hooks.contains_key("stopSignal")
                && hooks.iter().all(|(k, v)| k == "stopSignal" || v.is_null())
        })
    };
    if init && !sidecar && !lifecycle.is_null() && !only_stop_signal() {
        found.push((
            at.key("lifecycle"),
            "an init container that is no sidecar (restartPolicy Always) has no lifecycle hooks"
                .to_owned(),
        ));
    }
    for hook in ["postStart", "preStop"] {
        let value = &container["lifecycle"][hook];
        if !value.is_null() {
            handler(
                value,
                &["exec", "httpGet", "tcpSocket", "sleep"],
                &at.key("lifecycle").key(hook),
                found,
            );
        }
    }
    for (field, allowed) in [
        ("imagePullPolicy", &["Always", "Never", "IfNotPresent"][..]),
        (
            "terminationMessagePolicy",
            &["File", "FallbackToLogsOnError"],
        ),
    ] {
        // Empty, the server defaults it (`SetDefaults_Container`).
        if container[field] != "" {
            one_of(&container[field], allowed, at.key(field), found);
        }
    }
    // `validateResizePolicy`: cpu or memory, each once, NotRequired or
    // RestartContainer (an ephemeral container's is refused elsewhere).
    let mut resized = std::collections::BTreeSet::new();
    for (i, policy) in each(&container["resizePolicy"]) {
        let path = at.key("resizePolicy").index(i);
        let resource = policy["resourceName"].as_str().unwrap_or_default();
        if !matches!(resource, "cpu" | "memory") {
            found.push((
                path.key("resourceName"),
                format!("`{resource}` is not a resource resized in place (cpu, memory)"),
            ));
        }
        if !resized.insert(resource) {
            found.push((
                path.key("resourceName"),
                format!("`{resource}` has a resize policy twice"),
            ));
        }
        let restart = policy["restartPolicy"].as_str().unwrap_or_default();
        if !matches!(restart, "NotRequired" | "RestartContainer") {
            found.push((
                path.key("restartPolicy"),
                format!(
                    "`{restart}` is not a resize restart policy (NotRequired, RestartContainer)"
                ),
            ));
        }
    }
    restart_rules(container, init, at, found);
    for field in ["runAsUser", "runAsGroup"] {
        id(
            &container["securityContext"][field],
            at.key("securityContext").key(field),
            found,
        );
    }
    for (p, port) in each(&container["ports"]) {
        one_of(
            &port["protocol"],
            &["TCP", "UDP", "SCTP"],
            at.key("ports").index(p).key("protocol"),
            found,
        );
    }
}

/// A pod's DNS (`validatePodDNSConfig`): `dnsPolicy: None` with a
/// `dnsConfig` of at least one nameserver; at most 3 nameservers, each an
/// IP address (as the server reads its older fields); at most 32 search
/// domains of 2048 characters together (a space between each), each a
/// DNS subdomain whose labels may start with `_` (a trailing `.` taken, or
/// `.` alone); options with names.
fn dns(pod: &Json, at: &KeyPath, found: &mut Found) {
    let config = &pod["dnsConfig"];
    let at = at.key("dnsConfig");
    let nameservers: Vec<(usize, &Json)> = each(&config["nameservers"]).collect();
    if pod["dnsPolicy"] == "None" && (config.is_null() || nameservers.is_empty()) {
        found.push((
            at.clone(),
            "dnsPolicy None needs a dnsConfig with a nameserver".to_owned(),
        ));
    }
    if nameservers.len() > 3 {
        found.push((
            at.key("nameservers"),
            format!("{} nameservers; a pod has at most 3", nameservers.len()),
        ));
    }
    for (i, server) in nameservers {
        let text = server.as_str().unwrap_or_default();
        if crate::cidr::legacy_ip(text).is_none() {
            found.push((
                at.key("nameservers").index(i),
                format!("`{text}` is not an IP address"),
            ));
        }
    }
    let searches: Vec<&str> = each(&config["searches"])
        .map(|(_, s)| s.as_str().unwrap_or_default())
        .collect();
    if searches.len() > 32 {
        found.push((
            at.key("searches"),
            format!("{} search domains; a pod has at most 32", searches.len()),
        ));
    }
    let length = searches.iter().map(|s| s.len()).sum::<usize>() + searches.len().saturating_sub(1);
    if length > 2048 {
        found.push((at.key("searches"), format!("the search domains take {length} characters; at most 2048 (with a space between each)")));
    }
    for (i, search) in searches.iter().enumerate() {
        let domain = search.strip_suffix('.').unwrap_or(search);
        if *search != "."
            && let Err(why) = names::dns1123_subdomain_with_underscore(domain)
        {
            found.push((
                at.key("searches").index(i),
                format!("`{search}` is not a search domain: {why}"),
            ));
        }
    }
    for (i, option) in each(&config["options"]) {
        if option["name"].as_str().unwrap_or_default().is_empty() {
            found.push((
                at.key("options").index(i),
                "a DNS option has a name".to_owned(),
            ));
        }
    }
}

/// A pod's host aliases (an IP address, DNS subdomains) and its
/// `hostnameOverride` (a DNS subdomain of at most 64 characters, neither
/// with `setHostnameAsFQDN` nor on the host's network).
fn host(pod: &Json, at: &KeyPath, found: &mut Found) {
    for (i, alias) in each(&pod["hostAliases"]) {
        let path = at.key("hostAliases").index(i);
        let ip = alias["ip"].as_str().unwrap_or_default();
        if crate::cidr::legacy_ip(ip).is_none() {
            found.push((path.key("ip"), format!("`{ip}` is not an IP address")));
        }
        for (j, name) in each(&alias["hostnames"]) {
            let name = name.as_str().unwrap_or_default();
            if let Err(why) = names::dns1123_subdomain(name) {
                found.push((
                    path.key("hostnames").index(j),
                    format!("`{name}` is not a host name: {why}"),
                ));
            }
        }
    }
    let Some(name) = pod["hostnameOverride"].as_str() else {
        return;
    };
    let path = at.key("hostnameOverride");
    if pod["setHostnameAsFQDN"] == true {
        found.push((
            path.clone(),
            "hostnameOverride is not set beside setHostnameAsFQDN".to_owned(),
        ));
    }
    if pod["hostNetwork"] == true {
        found.push((
            path.clone(),
            "hostnameOverride is not set on the host's network".to_owned(),
        ));
    }
    if name.len() > 64 {
        found.push((
            path.clone(),
            format!(
                "{} characters; a hostnameOverride has at most 64",
                name.len()
            ),
        ));
    }
    if let Err(why) = names::dns1123_subdomain(name) {
        found.push((
            path,
            format!("`{name}` is not a valid hostnameOverride: {why}"),
        ));
    }
}

/// An environment variable name as Kubernetes 1.33 and later take it
/// (`RelaxedEnvironmentVariableValidation`, on by default since 1.32):
/// printable ASCII, no `=`.
pub fn env_name(name: &str) -> Result<(), String> {
    match name.chars().find(|c| !(' '..='~').contains(c) || *c == '=') {
        _ if name.is_empty() => Err("a name is not empty".to_owned()),
        Some(c) => Err(format!(
            "{c:?} is not allowed; a variable name is printable ASCII without `=`"
        )),
        None => Ok(()),
    }
}

/// The downward API paths an environment variable may read.
const FIELD_PATHS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];

/// The downward API paths a file of a volume may read.
const FILE_FIELD_PATHS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "metadata.labels",
    "metadata.annotations",
    "metadata.uid",
];

/// The container resources the downward API may read.
const RESOURCE_FIELDS: &[&str] = &[
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
];

fn env_var(var: &Json, at: &KeyPath, found: &mut Found) {
    if let Some(name) = var["name"].as_str()
        && let Err(why) = env_name(name)
    {
        found.push((
            at.key("name"),
            format!("`{name}` is not a valid variable name: {why}"),
        ));
    }
    let from = &var["valueFrom"];
    if from.is_null() {
        return;
    }
    if var["value"].as_str().is_some_and(|v| !v.is_empty()) {
        found.push((
            at.key("valueFrom"),
            "valueFrom and a non-empty value cannot both be set".to_owned(),
        ));
    }
    let sources: Vec<&str> = [
        "fieldRef",
        "resourceFieldRef",
        "configMapKeyRef",
        "secretKeyRef",
        "fileKeyRef",
    ]
    .into_iter()
    .filter(|f| !from[*f].is_null())
    .collect();
    if sources.len() != 1 {
        found.push((
            at.key("valueFrom"),
            format!(
                "valueFrom names exactly one source (fieldRef, resourceFieldRef, configMapKeyRef, secretKeyRef, fileKeyRef), here {}",
                sources.len()
            ),
        ));
        return;
    }
    let path = at.key("valueFrom").key(sources[0]);
    let source = &from[sources[0]];
    match sources[0] {
        "fieldRef" => field_ref(source, Reader::Variable, &path, found),
        "resourceFieldRef" => resource_field_ref(source, Reader::Variable, &path, found),
        "configMapKeyRef" | "secretKeyRef" => {
            let name = source["name"].as_str().unwrap_or_default();
            if let Err(why) = names::dns1123_subdomain(name) {
                found.push((
                    path.key("name"),
                    format!(
                        "`{name}` is not a valid {} name: {why}",
                        &sources[0][..sources[0].len() - 6]
                    ),
                ));
            }
            if let Some(key) = source["key"].as_str()
                && let Err(why) = config_key(key)
            {
                found.push((
                    path.key("key"),
                    format!("`{key}` is not a valid key: {why}"),
                ));
            }
        }
        "fileKeyRef" => {
            let text = |field: &str| source[field].as_str().unwrap_or_default();
            let checks: [(&str, Result<(), String>); 3] = [
                (
                    "key",
                    if text("key").is_empty() {
                        Err("it is empty".to_owned())
                    } else {
                        env_name(text("key"))
                    },
                ),
                ("volumeName", names::dns1123_label(text("volumeName"))),
                (
                    "path",
                    match text("path") {
                        "" => Err("it is empty".to_owned()),
                        p if p.split('/').any(|part| part == "..") => {
                            Err("it has a `..` part".to_owned())
                        }
                        _ => Ok(()),
                    },
                ),
            ];
            for (field, valid) in checks {
                if let Err(why) = valid {
                    found.push((
                        path.key(field),
                        format!("`{}` is not a valid fileKeyRef {field}: {why}", text(field)),
                    ));
                }
            }
        }
        _ => {}
    }
}

/// The divisors a downward API reading `resource` takes, if it is one
/// the server holds to some, and `divisor` is not 0 (unset) nor one of
/// them as the server writes it back (`Quantity.String()`: `1000m` is
/// `1`, but `+1`, `1e0` and `1024` are none of them).
pub(super) fn divisor(resource: &str, divisor: &Json) -> Option<&'static str> {
    let text = match divisor {
        Json::String(text) => text.clone(),
        Json::Number(number) => number.to_string(),
        _ => return None,
    };
    // Trimmed as the server decodes it; no quantity, it refuses the object.
    let text = crate::quantity::decoded(&text);
    let written = match crate::quantity::Quantity::parse(text) {
        Ok(zero) if zero.nanos() == 0 => return None,
        Ok(_) => crate::quantity::as_the_server_writes(text),
        Err(_) => None,
    };
    const CPU: &str = "1m, 1";
    const BYTES: &str = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei";
    let allowed = match resource {
        "limits.cpu" | "requests.cpu" => CPU,
        "limits.memory"
        | "requests.memory"
        | "limits.ephemeral-storage"
        | "requests.ephemeral-storage" => BYTES,
        r if r.starts_with("limits.hugepages-") || r.starts_with("requests.hugepages-") => BYTES,
        _ => return None,
    };
    let written = written.unwrap_or_default();
    (!allowed.split(", ").any(|a| a == written)).then_some(allowed)
}

/// What reads the downward API: an environment variable or a file of a
/// `downwardAPI` volume (or projection).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Reader {
    Variable,
    File,
}

impl Reader {
    /// The whole fields it may read (`validEnvDownwardAPIFieldPathExpressions`,
    /// `validVolumeDownwardAPIFieldPathExpressions`).
    fn fields(self) -> &'static [&'static str] {
        match self {
            Reader::Variable => FIELD_PATHS,
            Reader::File => FILE_FIELD_PATHS,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Reader::Variable => "a variable",
            Reader::File => "a file",
        }
    }
}

/// A downward API `fieldRef` (`validateObjectFieldSelector`), at `at`: an
/// `apiVersion` of `v1` (unset or empty, the server makes it `v1`) and a
/// field `reader` may read.
pub(super) fn field_ref(source: &Json, reader: Reader, at: &KeyPath, found: &mut Found) {
    if source["apiVersion"] != "" {
        one_of(&source["apiVersion"], &["v1"], at.key("apiVersion"), found);
    }
    if let Some(field) = source["fieldPath"].as_str()
        && let Err(why) = field_path(field, reader)
    {
        found.push((at.key("fieldPath"), why));
    }
}

/// A downward API `resourceFieldRef` (`validateContainerResourceFieldSelector`),
/// at `at`: for a file, the container it reads; a resource of
/// [`RESOURCE_FIELDS`] or huge pages; a divisor that resource takes.
pub(super) fn resource_field_ref(source: &Json, reader: Reader, at: &KeyPath, found: &mut Found) {
    let container = source["containerName"].as_str().unwrap_or_default();
    if reader == Reader::File && container.is_empty() {
        found.push((
            at.key("containerName"),
            "a file reading a container's resources names the container".to_owned(),
        ));
    } else if let Some(resource) = source["resource"].as_str()
        && !RESOURCE_FIELDS.contains(&resource)
        && !["limits.hugepages-", "requests.hugepages-"]
            .iter()
            .any(|p| resource.starts_with(p))
    {
        found.push((
            at.key("resource"),
            format!(
                "`{resource}` is not a resource {} can read ({})",
                reader.name(),
                RESOURCE_FIELDS.join(", ")
            ),
        ));
    }
    let resource = source["resource"].as_str().unwrap_or_default();
    if let Some(allowed) = divisor(resource, &source["divisor"]) {
        found.push((
            at.key("divisor"),
            format!(
                "{} is no divisor of {resource}: it is one of {allowed}, written so",
                super::plain(&source["divisor"])
            ),
        ));
    }
}

/// A downward API path `reader` may read: one of its [`Reader::fields`]
/// (`spec.host` is the server's old name of `spec.nodeName`), or one label
/// or annotation by key (an annotation key lowercased first, as the server
/// reads it).
fn field_path(field: &str, reader: Reader) -> Result<(), String> {
    let read = if field == "spec.host" {
        "spec.nodeName"
    } else {
        field
    };
    if reader.fields().contains(&read) {
        return Ok(());
    }
    for (prefix, what) in [
        ("metadata.labels['", "label"),
        ("metadata.annotations['", "annotation"),
    ] {
        if let Some(key) = field
            .strip_prefix(prefix)
            .and_then(|k| k.strip_suffix("']"))
        {
            let read = if what == "annotation" {
                names::go_lowercase(key)
            } else {
                key.to_owned()
            };
            return names::qualified_name(&read)
                .map_err(|why| format!("`{key}` is not a valid {what} key: {why}"));
        }
    }
    Err(format!(
        "`{field}` is not a field {} can read ({}, metadata.labels['KEY'], metadata.annotations['KEY'])",
        reader.name(),
        reader.fields().join(", ")
    ))
}

/// A ConfigMap or Secret key: at most 253 of letters, digits, `-`, `_`
/// and `.`, not `.` and not starting with `..`.
pub fn config_key(key: &str) -> Result<(), String> {
    if key.is_empty() || key.len() > 253 {
        return Err("a key has 1 to 253 characters".to_owned());
    }
    if key == "." || key.starts_with("..") {
        return Err("a key is not `.` and does not start with `..`".to_owned());
    }
    match key
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "-_.".contains(*c)))
    {
        Some(c) => Err(format!(
            "{c:?} is not allowed (letters, digits, `-`, `_`, `.`)"
        )),
        None => Ok(()),
    }
}

/// A probe: one handler, thresholds (liveness and startup succeed once),
/// a positive grace period but for readiness.
fn probe(probe: &Json, which: &str, at: &KeyPath, found: &mut Found) {
    handler(probe, &["exec", "httpGet", "tcpSocket", "grpc"], at, found);
    if which != "readinessProbe"
        && let Some(threshold) = whole(&probe["successThreshold"])
        && threshold > 1
    {
        found.push((
            at.key("successThreshold"),
            format!("{threshold}: a {which}'s successThreshold must be 1"),
        ));
    }
    for field in [
        "initialDelaySeconds",
        "timeoutSeconds",
        "periodSeconds",
        "successThreshold",
        "failureThreshold",
    ] {
        if let Some(number) = probe[field].as_f64()
            && number < 0.0
        {
            found.push((
                at.key(field),
                format!("{number} is negative; {field} is at least 0"),
            ));
        }
    }
    let grace = &probe["terminationGracePeriodSeconds"];
    if !grace.is_null() && which == "readinessProbe" {
        found.push((
            at.key("terminationGracePeriodSeconds"),
            "a readinessProbe has no terminationGracePeriodSeconds".to_owned(),
        ));
    } else if let Some(seconds) = grace.as_f64()
        && seconds <= 0.0
    {
        found.push((
            at.key("terminationGracePeriodSeconds"),
            format!("{seconds}: a probe's terminationGracePeriodSeconds is at least 1"),
        ));
    }
}

/// A probe or lifecycle handler: exactly one of `kinds`, with valid ports.
fn handler(handler: &Json, kinds: &[&str], at: &KeyPath, found: &mut Found) {
    let set: Vec<&str> = kinds
        .iter()
        .copied()
        .filter(|k| !handler[*k].is_null())
        .collect();
    if set.len() != 1 {
        found.push((
            at.clone(),
            format!(
                "exactly one handler ({}) is set, here {}",
                kinds.join(", "),
                set.len()
            ),
        ));
    }
    if handler["exec"].is_object() && each(&handler["exec"]["command"]).next().is_none() {
        found.push((
            at.key("exec").key("command"),
            "an exec handler runs a command".to_owned(),
        ));
    }
    for kind in ["httpGet", "tcpSocket"] {
        let port = &handler[kind]["port"];
        let path = at.key(kind).key("port");
        match port {
            Json::String(name) => {
                if let Err(why) = names::iana_service_name(name) {
                    found.push((path, format!("`{name}` is not a port name: {why}")));
                }
            }
            _ => port_number(port, path, false, found),
        }
    }
    port_number(
        &handler["grpc"]["port"],
        at.key("grpc").key("port"),
        false,
        found,
    );
    one_of(
        &handler["httpGet"]["scheme"],
        &["HTTP", "HTTPS"],
        at.key("httpGet").key("scheme"),
        found,
    );
    // As the API server's `IsHTTPHeaderName`: `[-A-Za-z0-9]+`.
    for (i, header) in each(&handler["httpGet"]["httpHeaders"]) {
        if let Some(name) = header["name"].as_str()
            && (name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
        {
            found.push((
                at.key("httpGet").key("httpHeaders").index(i).key("name"),
                format!("`{name}` is not an HTTP header name"),
            ));
        }
    }
    if let Some(seconds) = handler["sleep"]["seconds"].as_f64()
        && seconds < 0.0
    {
        found.push((
            at.key("sleep").key("seconds"),
            format!("{seconds} is negative"),
        ));
    }
}
