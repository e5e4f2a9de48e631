//! The RBAC objects every cluster has: the API server's bootstrap policy
//! (`cluster-admin`, `admin`, `edit`, `view`, the `system:*` roles, the
//! controllers' roles, and their bindings), from this crate's own compact
//! table `defaults.txt`, as the JSON objects the API server would hold.
//! [`super::resolve::Rbac`] reads them beside the input, so a binding to one of
//! them is known, and aggregation gathers them as the controller does.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use serde_json::{Map, Value as Json, json};

/// The table: see the head of the file for its grammar.
const TABLE: &str = include_str!("defaults.txt");

/// A Kubernetes minor version, `(1, 33)`.
pub type Version = (u32, u32);

/// The version whose defaults the checks, the effective permissions and
/// the diff assume when none is asked for: a caller's default
/// ([`crate::kube::DEFAULT_VERSION`], a test holds them equal).
pub const TARGET: Version = (1, 35);

/// The version `text` (`"1.33"`) names, as a command line gives it;
/// [`TARGET`] when it names none.
pub fn version(text: &str) -> Version {
    parse_version(text).unwrap_or(TARGET)
}

/// The label every default role and binding carries.
pub const BOOTSTRAPPING: (&str, &str) = ("kubernetes.io/bootstrapping", "rbac-defaults");

/// A version's objects, parsed once and kept for the run.
type Parsed = (Version, &'static [Json]);

/// Whether `object` may be one of the default objects by its name (cheap:
/// the table is not read; [`is_default_name`]).
pub fn may_be_default(object: &Json) -> bool {
    let name = (object.get("metadata").and_then(|m| m.get("name")))
        .and_then(Json::as_str)
        .unwrap_or_default();
    is_default_name(name)
}

/// The role (kind, name) of the default binding of `kind`
/// (`ClusterRoleBinding` or `RoleBinding`), `namespace` (a RoleBinding's)
/// and `name` in [`TARGET`]'s table, looked up in an index built once: a
/// check asks it of every binding of a default's name, however many.
pub fn binding_role(
    kind: &str,
    namespace: Option<&str>,
    name: &str,
) -> Option<(&'static str, &'static str)> {
    type Key = (&'static str, &'static str, &'static str);
    static INDEX: OnceLock<HashMap<Key, (&'static str, &'static str)>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let text = |v: &'static Json| v.as_str().unwrap_or_default();
        (objects(TARGET).iter())
            .filter(|o| matches!(text(&o["kind"]), "ClusterRoleBinding" | "RoleBinding"))
            .map(|o| {
                let key = (
                    text(&o["kind"]),
                    text(&o["metadata"]["namespace"]),
                    text(&o["metadata"]["name"]),
                );
                (
                    key,
                    (text(&o["roleRef"]["kind"]), text(&o["roleRef"]["name"])),
                )
            })
            .collect()
    });
    let namespace = match kind {
        "RoleBinding" => namespace.unwrap_or("default"),
        _ => "",
    };
    index.get(&(kind, namespace, name)).copied()
}

/// Whether a default object may have the name `name`: theirs start with
/// `system:` but for a few.
pub fn is_default_name(name: &str) -> bool {
    name.starts_with("system:")
        || matches!(
            name,
            "admin"
                | "cluster-admin"
                | "edit"
                | "view"
                | "extension-apiserver-authentication-reader"
        )
}

/// The default objects of `version`: ClusterRoles, Roles, then bindings.
/// Built once per version asked for.
pub fn objects(version: Version) -> &'static [Json] {
    static TARGETED: OnceLock<Vec<Json>> = OnceLock::new();
    if version == TARGET {
        TARGETED.get_or_init(|| parse(TARGET))
    } else {
        static OTHER: OnceLock<Mutex<Vec<Parsed>>> = OnceLock::new();
        let cache = OTHER.get_or_init(Default::default);
        let mut cache = cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, found)) = cache.iter().find(|(v, _)| *v == version) {
            return found;
        }
        let leaked: &'static [Json] = Vec::leak(parse(version));
        cache.push((version, leaked));
        leaked
    }
}

/// Whether a `since:`/`until:` marker lets a line into `version`.
fn applies(tokens: &[&str], version: Version) -> bool {
    tokens.iter().all(|token| {
        let bound = |prefix: &str| token.strip_prefix(prefix).and_then(parse_version);
        match (bound("since:"), bound("until:")) {
            (Some(since), _) => version >= since,
            (_, Some(until)) => version <= until,
            _ => true,
        }
    })
}

/// `tokens` without their `since:`/`until:` markers.
fn unmarked<'a>(tokens: &[&'a str]) -> Vec<&'a str> {
    tokens
        .iter()
        .copied()
        .filter(|t| !t.starts_with("since:") && !t.starts_with("until:"))
        .collect()
}

fn parse_version(text: &str) -> Option<Version> {
    let (major, minor) = text.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// A comma-separated list; `""` is the empty string (the core group).
fn list(text: &str) -> Vec<Json> {
    text.split(',')
        .map(|item| Json::String(if item == "\"\"" { "" } else { item }.to_owned()))
        .collect()
}

fn metadata(name: &str, namespace: Option<&str>, labels: Map<String, Json>) -> Json {
    let mut meta = json!({ "name": name, "labels": labels });
    if let Some(namespace) = namespace {
        meta["namespace"] = json!(namespace);
    }
    meta
}

fn bootstrapping() -> Map<String, Json> {
    let mut labels = Map::new();
    labels.insert(BOOTSTRAPPING.0.to_owned(), json!(BOOTSTRAPPING.1));
    labels
}

fn subject(text: &str) -> Json {
    let (kind, name) = text.split_once(':').unwrap_or(("User", text));
    if kind == "ServiceAccount" {
        let (namespace, name) = name.split_once('/').unwrap_or(("default", name));
        json!({ "kind": kind, "name": name, "namespace": namespace })
    } else {
        json!({ "kind": kind, "apiGroup": "rbac.authorization.k8s.io", "name": name })
    }
}

fn binding(kind: &str, name: &str, namespace: Option<&str>, role: &str, subjects: &[&str]) -> Json {
    let (role_kind, role_name) = match role.split_once(':') {
        Some(("Role", name)) => ("Role", name),
        Some(("ClusterRole", name)) => ("ClusterRole", name),
        _ => ("ClusterRole", role),
    };
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": kind,
        "metadata": metadata(name, namespace, bootstrapping()),
        "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role_name },
        "subjects": subjects.iter().map(|s| subject(s)).collect::<Vec<_>>(),
    })
}

/// Reads the table for `version`. The table is ours and tested; a line
/// it cannot read is a bug, caught by the tests, and skipped here.
fn parse(version: Version) -> Vec<Json> {
    let mut roles: Vec<Json> = Vec::new();
    let mut bindings: Vec<Json> = Vec::new();
    // Whether the role being read is in `version`.
    let mut current = false;
    for line in TABLE.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if line.starts_with(' ') {
            if !current || !applies(&tokens, version) {
                continue;
            }
            let Some(role) = roles.last_mut() else {
                continue;
            };
            let fields = unmarked(&tokens);
            let rule = match fields.as_slice() {
                ["url", verbs, urls] => {
                    json!({ "verbs": list(verbs), "nonResourceURLs": list(urls) })
                }
                [verbs, groups, resources] => {
                    json!({ "verbs": list(verbs), "apiGroups": list(groups), "resources": list(resources) })
                }
                [verbs, groups, resources, names] => json!({
                    "verbs": list(verbs), "apiGroups": list(groups),
                    "resources": list(resources), "resourceNames": list(names),
                }),
                _ => continue,
            };
            if let Some(rules) = role["rules"].as_array_mut() {
                rules.push(rule);
            }
            continue;
        }
        match tokens.as_slice() {
            ["clusterrole", name, rest @ ..] => {
                current = applies(rest, version);
                if !current {
                    continue;
                }
                let mut labels = bootstrapping();
                let mut selectors = Vec::new();
                for token in rest {
                    let pair = |t: &str| {
                        let (k, v) = t.split_once('=')?;
                        Some((k.to_owned(), json!(v)))
                    };
                    if let Some((k, v)) = token.strip_prefix("label:").and_then(pair) {
                        labels.insert(k, v);
                    } else if let Some((k, v)) = token.strip_prefix("aggregate:").and_then(pair) {
                        selectors.push(json!({ "matchLabels": { k: v } }));
                    } else if *token == "controller" {
                        let account = name.trim_start_matches("system:controller:");
                        let subject = format!("ServiceAccount:kube-system/{account}");
                        bindings.push(binding("ClusterRoleBinding", name, None, name, &[&subject]));
                    }
                }
                let mut role = json!({
                    "apiVersion": "rbac.authorization.k8s.io/v1",
                    "kind": "ClusterRole",
                    "metadata": metadata(name, None, labels),
                    "rules": [],
                });
                if !selectors.is_empty() {
                    role["aggregationRule"] = json!({ "clusterRoleSelectors": selectors });
                }
                roles.push(role);
            }
            ["role", namespace, name, rest @ ..] => {
                current = applies(rest, version);
                if !current {
                    continue;
                }
                roles.push(json!({
                    "apiVersion": "rbac.authorization.k8s.io/v1",
                    "kind": "Role",
                    "metadata": metadata(name, Some(namespace), bootstrapping()),
                    "rules": [],
                }));
            }
            ["clusterrolebinding", name, role, rest @ ..] => {
                current = false;
                if applies(rest, version) {
                    let subjects = unmarked(rest);
                    bindings.push(binding("ClusterRoleBinding", name, None, role, &subjects));
                }
            }
            ["rolebinding", namespace, name, role, rest @ ..] => {
                current = false;
                if applies(rest, version) {
                    let subjects = unmarked(rest);
                    bindings.push(binding(
                        "RoleBinding",
                        name,
                        Some(namespace),
                        role,
                        &subjects,
                    ));
                }
            }
            _ => current = false,
        }
    }
    roles.extend(bindings);
    roles
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named<'a>(objects: &'a [Json], kind: &str, name: &str) -> Option<&'a Json> {
        objects
            .iter()
            .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
    }

    #[test]
    fn every_line_of_the_table_is_read() {
        // Every indented line is a rule of the role above it, and every
        // other line one of the four forms: none is passed over.
        let objects = parse((1, 99));
        let rules: usize = objects
            .iter()
            .filter_map(|o| o["rules"].as_array())
            .map(Vec::len)
            .sum();
        let indented = TABLE
            .lines()
            .filter(|l| l.starts_with(' ') && !l.trim().is_empty())
            .filter(|l| !l.contains("until:"))
            .count();
        assert_eq!(rules, indented);
        let heads = TABLE
            .lines()
            .filter(|l| !l.starts_with(' ') && !l.starts_with('#') && !l.trim().is_empty())
            .filter(|l| !l.contains("until:"))
            .count();
        let controllers = TABLE
            .lines()
            .filter(|l| l.ends_with(" controller") || l.contains(" controller "))
            .count();
        assert_eq!(objects.len(), heads + controllers);
    }

    #[test]
    fn the_user_facing_roles_and_their_bindings_are_there() {
        let objects = objects(TARGET);
        for name in [
            "cluster-admin",
            "admin",
            "edit",
            "view",
            "system:basic-user",
        ] {
            assert!(named(objects, "ClusterRole", name).is_some(), "{name}");
        }
        let edit = named(objects, "ClusterRole", "edit").unwrap();
        assert_eq!(
            edit["aggregationRule"]["clusterRoleSelectors"][0]["matchLabels"]["rbac.authorization.k8s.io/aggregate-to-edit"],
            "true"
        );
        assert_eq!(
            edit["metadata"]["labels"]["rbac.authorization.k8s.io/aggregate-to-admin"],
            "true"
        );
        let discovery = named(objects, "ClusterRoleBinding", "system:discovery").unwrap();
        assert_eq!(discovery["subjects"][0]["name"], "system:authenticated");
        let signer = named(
            objects,
            "ClusterRoleBinding",
            "system:controller:job-controller",
        )
        .unwrap();
        assert_eq!(signer["subjects"][0]["namespace"], "kube-system");
        assert_eq!(signer["subjects"][0]["name"], "job-controller");
        let core = &named(objects, "ClusterRole", "system:basic-user").unwrap()["rules"][0];
        assert_eq!(core["resources"][1], "selfsubjectrulesreviews");
    }

    #[test]
    fn the_default_version_is_the_kube_version_default() {
        assert_eq!(TARGET, version(crate::kube::DEFAULT_VERSION));
        assert_eq!(parse_version(crate::kube::DEFAULT_VERSION), Some(TARGET));
        for text in crate::kube::VERSIONS {
            assert!(parse_version(text).is_some(), "{text}");
        }
    }

    #[test]
    fn versions_select_their_lines() {
        let old = objects((1, 28));
        let new = objects(TARGET);
        let cleaner = "system:controller:legacy-service-account-token-cleaner";
        assert!(named(old, "ClusterRole", cleaner).is_none());
        assert!(named(new, "ClusterRole", cleaner).is_some());
        let cidrs = |objects: &[Json]| {
            named(objects, "ClusterRole", "system:controller:node-controller").unwrap()["rules"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["resources"][0] == "clustercidrs")
        };
        assert!(cidrs(old));
        assert!(!cidrs(new));
        // A rule line's core group is the empty string.
        let view = named(new, "ClusterRole", "system:aggregate-to-view").unwrap();
        assert_eq!(view["rules"][0]["apiGroups"][0], "");
    }

    /// `(kind, namespace, name)` of every object of `version`, with what
    /// the authorizer reads of it (rules, aggregation, role and subjects).
    fn keyed(version: Version) -> std::collections::BTreeMap<(String, String, String), Json> {
        objects(version)
            .iter()
            .map(|o| {
                let text = |v: &Json| v.as_str().unwrap_or_default().to_owned();
                let key = (
                    text(&o["kind"]),
                    text(&o["metadata"]["namespace"]),
                    text(&o["metadata"]["name"]),
                );
                let read = json!([
                    o["rules"],
                    o["aggregationRule"],
                    o["roleRef"],
                    o["subjects"]
                ]);
                (key, read)
            })
            .collect()
    }

    /// Whether `name` (a ClusterRole, or `namespace/name` for a Role) of
    /// `version` has a rule granting `verb` on `group`/`resource`.
    fn grants(version: Version, name: &str, verb: &str, group: &str, resource: &str) -> bool {
        let (kind, namespace, name) = match name.split_once('/') {
            Some((namespace, name)) => ("Role", Some(namespace), name),
            None => ("ClusterRole", None, name),
        };
        let has = |list: &Json, item: &str| {
            list.as_array()
                .is_some_and(|l| l.iter().any(|v| v == item || v == "*"))
        };
        objects(version)
            .iter()
            .filter(|o| o["kind"] == kind && o["metadata"]["name"] == name)
            .filter(|o| namespace.is_none_or(|n| o["metadata"]["namespace"] == n))
            .flat_map(|o| o["rules"].as_array().into_iter().flatten())
            .any(|r| {
                has(&r["verbs"], verb)
                    && has(&r["apiGroups"], group)
                    && has(&r["resources"], resource)
            })
    }

    /// The releases this crate targets differ from 1.28 (the recorded
    /// server's) exactly where Kubernetes' published bootstrap policy
    /// does: the testdata of plugin/pkg/auth/authorizer/rbac/bootstrappolicy
    /// in the module k8s.io/kubernetes at v1.28.7, v1.33.0 and v1.35.0
    /// (v1.33.13 and v1.35.4 hold the same). Which objects are added, and
    /// which change, by name; then a few rules, each with the first release
    /// that has it (or the last that had it).
    #[test]
    fn each_targeted_release_differs_from_1_28_where_kubernetes_does() {
        let base = keyed((1, 28));
        let controllers_1_33 = [
            "legacy-service-account-token-cleaner",
            "selinux-warning-controller",
            "service-cidrs-controller",
            "validatingadmissionpolicy-status-controller",
        ];
        let changed_1_33 = [
            "ClusterRole/system:controller:cronjob-controller",
            "ClusterRole/system:controller:endpoint-controller",
            "ClusterRole/system:controller:endpointslice-controller",
            "ClusterRole/system:controller:endpointslicemirroring-controller",
            "ClusterRole/system:controller:expand-controller",
            "ClusterRole/system:controller:horizontal-pod-autoscaler",
            "ClusterRole/system:controller:namespace-controller",
            "ClusterRole/system:controller:node-controller",
            "ClusterRole/system:controller:persistent-volume-binder",
            "ClusterRole/system:controller:pod-garbage-collector",
            "ClusterRole/system:controller:statefulset-controller",
            "ClusterRole/system:kube-scheduler",
            "ClusterRole/system:kubelet-api-admin",
            "ClusterRole/system:node-proxier",
            "Role/system::leader-locking-kube-controller-manager",
            "Role/system::leader-locking-kube-scheduler",
            "RoleBinding/system::leader-locking-kube-controller-manager",
        ];
        let controllers_1_35 = [
            "resource-claim-controller",
            "volumeattributesclass-protection-controller",
        ];
        let changed_1_35 = [
            "ClusterRole/system:aggregate-to-edit",
            "ClusterRole/system:aggregate-to-view",
            "ClusterRole/system:monitoring",
            "ClusterRole/system:node",
        ];
        for (version, added, changed) in [
            ((1, 33), controllers_1_33.to_vec(), changed_1_33.to_vec()),
            (
                (1, 35),
                [controllers_1_33.as_slice(), &controllers_1_35].concat(),
                [changed_1_33.as_slice(), &changed_1_35].concat(),
            ),
        ] {
            let new = keyed(version);
            assert!(
                base.keys().all(|k| new.contains_key(k)),
                "{version:?}: one removed"
            );
            let mut found_added: Vec<String> = new
                .keys()
                .filter(|k| !base.contains_key(*k))
                .map(|(kind, _, name)| format!("{kind}/{name}"))
                .collect();
            found_added.sort();
            let mut want_added: Vec<String> = added
                .iter()
                .flat_map(|c| {
                    ["ClusterRole", "ClusterRoleBinding"]
                        .map(|kind| format!("{kind}/system:controller:{c}"))
                })
                .collect();
            want_added.sort();
            assert_eq!(found_added, want_added, "{version:?}");
            let mut found_changed: Vec<String> = new
                .iter()
                .filter(|(k, v)| base.get(*k).is_some_and(|b| b != *v))
                .map(|((kind, _, name), _)| format!("{kind}/{name}"))
                .collect();
            found_changed.sort();
            let mut changed: Vec<String> = changed.iter().map(|c| (*c).to_owned()).collect();
            changed.sort();
            assert_eq!(found_changed, changed, "{version:?}");
        }

        let lock = "kube-system/system::leader-locking-kube-controller-manager";
        for version in [(1, 33), (1, 35)] {
            // v1.29.0 is the last release with node-controller's clustercidrs.
            let node = "system:controller:node-controller";
            assert!(grants(
                (1, 28),
                node,
                "create",
                "networking.k8s.io",
                "clustercidrs"
            ));
            assert!(!grants(
                version,
                node,
                "create",
                "networking.k8s.io",
                "clustercidrs"
            ));
            // v1.31.0: the leader-locking Roles hold leases.
            assert!(!grants(
                (1, 28),
                lock,
                "create",
                "coordination.k8s.io",
                "leases"
            ));
            assert!(grants(
                version,
                lock,
                "create",
                "coordination.k8s.io",
                "leases"
            ));
            // v1.33.0: kube-proxy lists ServiceCIDRs; the kubelet API admin
            // reaches nodes/pods; the horizontal-pod-autoscaler watches.
            let proxier = "system:node-proxier";
            assert!(!grants(
                (1, 28),
                proxier,
                "watch",
                "networking.k8s.io",
                "servicecidrs"
            ));
            assert!(grants(
                version,
                proxier,
                "watch",
                "networking.k8s.io",
                "servicecidrs"
            ));
            assert!(grants(
                version,
                "system:kubelet-api-admin",
                "get",
                "",
                "nodes/pods"
            ));
            let hpa = "system:controller:horizontal-pod-autoscaler";
            assert!(!grants((1, 28), hpa, "watch", "metrics.k8s.io", "pods"));
            assert!(grants(version, hpa, "watch", "metrics.k8s.io", "pods"));
        }
        // v1.34.0: DRA's resourceclaims for view and the kubelet;
        // nodes/metrics for system:monitoring.
        let view = "system:aggregate-to-view";
        assert!(!grants(
            (1, 33),
            view,
            "get",
            "resource.k8s.io",
            "resourceclaims"
        ));
        assert!(grants(
            (1, 35),
            view,
            "get",
            "resource.k8s.io",
            "resourceclaims"
        ));
        assert!(!grants(
            (1, 33),
            "system:node",
            "get",
            "",
            "serviceaccounts"
        ));
        assert!(grants((1, 35), "system:node", "get", "", "serviceaccounts"));
        assert!(!grants(
            (1, 33),
            "system:monitoring",
            "get",
            "",
            "nodes/metrics"
        ));
        assert!(grants(
            (1, 35),
            "system:monitoring",
            "get",
            "",
            "nodes/metrics"
        ));
        // v1.35.0: view and edit read and write events.k8s.io events; the
        // leader-locking Roles no longer hold configmaps.
        let edit = "system:aggregate-to-edit";
        assert!(!grants((1, 33), edit, "create", "events.k8s.io", "events"));
        assert!(grants((1, 35), edit, "create", "events.k8s.io", "events"));
        assert!(grants((1, 35), edit, "create", "", "events"));
        assert!(grants((1, 33), lock, "watch", "", "configmaps"));
        assert!(!grants((1, 35), lock, "watch", "", "configmaps"));
        // v1.31.0: leader-election-controller joins the controller-manager's
        // lock binding.
        let subjects = |version: Version| {
            keyed(version)[&(
                "RoleBinding".to_owned(),
                "kube-system".to_owned(),
                "system::leader-locking-kube-controller-manager".to_owned(),
            )][3]
                .to_string()
        };
        assert!(!subjects((1, 28)).contains("leader-election-controller"));
        assert!(subjects((1, 33)).contains("leader-election-controller"));
    }
}
