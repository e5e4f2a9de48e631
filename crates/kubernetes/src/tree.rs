//! Reading an object in either of the trees that hold it: the YAML
//! [`Node`] with its positions, or its JSON copy.
//!
//! A reader written once against [`Tree`] reads both, so what the diff
//! reads on the nodes and what the checks read on the copies cannot drift
//! apart. [`pod_references`] is such a reader: the objects a pod names.
//!
//! ```
//! use kubernetes::tree::{Use, pod_references};
//!
//! let set = kubernetes::input::parse("pod.yaml", "\
//! apiVersion: v1
//! kind: Pod
//! metadata: {name: web, namespace: shop}
//! spec:
//!   serviceAccountName: web
//!   containers:
//!   - name: web
//!     image: nginx
//!     envFrom: [{secretRef: {name: web-env, optional: true}}]
//!   volumes: [{name: data, persistentVolumeClaim: {claimName: web-data}}]
//! ").unwrap();
//! let spec = set.manifests[0].node().get("spec").unwrap();
//! let needed: Vec<_> = pod_references(spec)
//!     .into_iter()
//!     .filter(|r| !r.optional)
//!     .map(|r| (r.kind, r.name, r.how))
//!     .collect();
//! assert_eq!(needed, [
//!     ("PersistentVolumeClaim", "web-data", Use::Claims),
//!     ("ServiceAccount", "web", Use::RunsAs),
//! ]);
//! // The JSON copy names the same objects.
//! let copy = spec.to_json();
//! assert_eq!(pod_references(&copy), pod_references(spec));
//! ```

use serde_json::Value as Json;

use crate::json::Field;
use crate::yaml::{Node, Value};

/// What a reader of an object needs of its tree: a member, the items of a
/// list, a string, a `true`. Each answer is that of the tree's own methods
/// ([`Node::get`], [`crate::json::get`]); a node of another type has no
/// member, no items and no text. The diff's walk reads more of both trees
/// through a trait of its own built on this one.
pub trait Tree: Sized {
    /// The member `key` of a mapping.
    fn get(&self, key: &str) -> Option<&Self>;

    /// The items of a sequence; `None` for anything else.
    fn items(&self) -> Option<&[Self]>;

    /// The text of a string.
    fn text(&self) -> Option<&str>;

    /// Whether it is `true`.
    fn is_true(&self) -> bool;

    /// The member at `path`, key by key (named apart from
    /// [`Node::at`], which follows a [`crate::location::KeyPath`]).
    fn lookup(&self, path: &[&str]) -> Option<&Self> {
        path.iter().try_fold(self, |tree, key| tree.get(key))
    }
}

impl Tree for Node {
    fn get(&self, key: &str) -> Option<&Node> {
        Node::get(self, key)
    }

    fn items(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Sequence(items) => Some(items),
            _ => None,
        }
    }

    fn text(&self) -> Option<&str> {
        match &self.value {
            Value::String(text) => Some(text),
            _ => None,
        }
    }

    fn is_true(&self) -> bool {
        matches!(self.value, Value::Bool(true))
    }
}

impl Tree for Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(map) => crate::json::get(map, key),
            _ => None,
        }
    }

    fn items(&self) -> Option<&[Json]> {
        self.as_array().map(Vec::as_slice)
    }

    fn text(&self) -> Option<&str> {
        self.as_str()
    }

    fn is_true(&self) -> bool {
        *self == Json::Bool(true)
    }
}

/// The ServiceAccount a pod `spec` runs as, in either tree, as the API
/// server reads it: `serviceAccountName`, else (unset or empty) the
/// deprecated `serviceAccount`, else (unset or empty too) its namespace's
/// `default`.
pub fn runs_as<T: Tree>(spec: &T) -> &str {
    named_account(spec).unwrap_or("default")
}

/// The ServiceAccount a pod `spec` names, as the API server stores it
/// (both fields the same): `serviceAccountName`, else the deprecated
/// `serviceAccount`, where not empty; none when neither names one.
pub fn named_account<T: Tree>(spec: &T) -> Option<&str> {
    ["serviceAccountName", "serviceAccount"]
        .into_iter()
        .find_map(|key| spec.get(key).and_then(T::text).filter(|n| !n.is_empty()))
}

/// Whether a pod spec's account stays when a new manifest names none: the
/// spec wrote exactly one of `serviceAccountName` and the deprecated
/// `serviceAccount`, so the other is the server's, which server-side apply
/// does not remove and which fills the first again. Written both, both go.
pub fn account_kept<T: Tree>(spec: &T) -> bool {
    named_account(spec).is_some()
        && (spec.get("serviceAccountName").is_some() != spec.get("serviceAccount").is_some())
}

/// How a pod uses an object it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Use {
    /// Its ServiceAccount.
    RunsAs,
    /// A volume's, or a volume plugin's login Secret.
    Mounts,
    /// An environment variable's, or `envFrom`'s.
    Reads,
    /// An image pull secret: without it the pull is tried anonymously.
    PullsImagesWith,
    /// A PersistentVolumeClaim of a volume.
    Claims,
    /// Its PriorityClass.
    IsScheduledWith,
    /// Its RuntimeClass.
    RunsWith,
}

impl Use {
    /// The words between the pod and the object: `Deployment a/b mounts
    /// it`.
    pub const fn words(self) -> &'static str {
        match self {
            Use::RunsAs => "runs as",
            Use::Mounts => "mounts",
            Use::Reads => "reads",
            Use::PullsImagesWith => "pulls images with",
            Use::Claims => "claims",
            Use::IsScheduledWith => "is scheduled with",
            Use::RunsWith => "runs with",
        }
    }
}

/// An object a pod names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PodReference<'a> {
    /// Its kind: `ServiceAccount`, `Secret`, `ConfigMap`,
    /// `PersistentVolumeClaim`, `ResourceClaim`, `ResourceClaimTemplate`,
    /// `PriorityClass`, `RuntimeClass`, `StorageClass`,
    /// `PersistentVolume`, `VolumeAttributesClass` or `ClusterTrustBundle`.
    pub kind: &'static str,
    /// Its name, never empty.
    pub name: &'a str,
    /// How the pod uses it.
    pub how: Use,
    /// Marked `optional: true`: the pod starts without it.
    pub optional: bool,
}

impl PodReference<'_> {
    /// Whether the object lives in the pod's namespace: unless its kind
    /// is cluster-scoped ([`crate::manifest::is_cluster_scoped`]: the
    /// classes, a ClusterTrustBundle).
    pub fn in_pods_namespace(&self) -> bool {
        !crate::manifest::is_cluster_scoped(self.kind)
    }
}

/// Where a pod's volume plugins name the Secret they log in with, a
/// Secret of the pod's namespace: the path from the volume to its name
/// (`k8s.io/api/core/v1`, the `VolumeSource`s with a `secretRef`, CSI's
/// `nodePublishSecretRef`, azureFile's `secretName`). A `secret` volume
/// (`secretName`, and `optional`) and a projected source (`name`) are
/// read apart.
pub const VOLUME_PLUGIN_SECRETS: &[&[&str]] = &[
    &["azureFile", "secretName"],
    &["cephfs", "secretRef", "name"],
    &["cinder", "secretRef", "name"],
    &["csi", "nodePublishSecretRef", "name"],
    &["flexVolume", "secretRef", "name"],
    &["iscsi", "secretRef", "name"],
    &["rbd", "secretRef", "name"],
    &["scaleIO", "secretRef", "name"],
    &["storageos", "secretRef", "name"],
];

/// Where a built-in kind carries its pod: the keys down to its pod
/// template (none for a Pod, which is its own) and to the template's
/// spec, and the same as JSON pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PodPlace {
    /// The keys down to the template (`metadata` and `spec`).
    pub template: &'static [&'static str],
    /// The keys down to the pod spec.
    pub spec: &'static [&'static str],
    /// [`PodPlace::template`] as a JSON pointer (`""` for a Pod).
    pub template_pointer: &'static str,
    /// [`PodPlace::spec`] as a JSON pointer.
    pub spec_pointer: &'static str,
}

/// Where the built-in kind `kind` of the API group `group` carries its pod,
/// if it does, in any version of the group (`apps/v1beta2` and
/// `extensions/v1beta1` carry theirs where `apps/v1` does): a Pod; the
/// template of a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
/// ReplicationController or PodTemplate; a CronJob's job template's. A
/// custom kind of the same name in another group carries none. Pod
/// Security, the API rules, the server's defaults, `diff` and `rbac` (the
/// ServiceAccount a pod runs as) all find a pod by it.
pub fn pod_place(group: &str, kind: &str) -> Option<PodPlace> {
    let (place, groups) = by_kind(kind)?;
    groups.contains(&group).then_some(place)
}

/// Where a kind of this name carries its pod, and the groups whose kind
/// of that name it is (any version: `extensions` held the older apps).
fn by_kind(kind: &str) -> Option<(PodPlace, &'static [&'static str])> {
    const POD: PodPlace = PodPlace {
        template: &[],
        spec: &["spec"],
        template_pointer: "",
        spec_pointer: "/spec",
    };
    const TEMPLATE: PodPlace = PodPlace {
        template: &["template"],
        spec: &["template", "spec"],
        template_pointer: "/template",
        spec_pointer: "/template/spec",
    };
    const SPEC_TEMPLATE: PodPlace = PodPlace {
        template: &["spec", "template"],
        spec: &["spec", "template", "spec"],
        template_pointer: "/spec/template",
        spec_pointer: "/spec/template/spec",
    };
    const JOB_TEMPLATE: PodPlace = PodPlace {
        template: &["spec", "jobTemplate", "spec", "template"],
        spec: &["spec", "jobTemplate", "spec", "template", "spec"],
        template_pointer: "/spec/jobTemplate/spec/template",
        spec_pointer: "/spec/jobTemplate/spec/template/spec",
    };
    Some(match kind {
        "Pod" => (POD, &[""]),
        "PodTemplate" => (TEMPLATE, &[""]),
        "ReplicationController" => (SPEC_TEMPLATE, &[""]),
        "Deployment" | "ReplicaSet" | "DaemonSet" | "StatefulSet" => {
            (SPEC_TEMPLATE, &["apps", "extensions"])
        }
        "Job" => (SPEC_TEMPLATE, &["batch"]),
        "CronJob" => (JOB_TEMPLATE, &["batch"]),
        _ => return None,
    })
}

/// [`pod_place`] of `object`, by its `apiVersion`'s group and its `kind`.
pub fn pod_place_of(object: &Json) -> Option<PodPlace> {
    // The kind first: most objects carry no pod, and their group is not
    // read.
    let (place, groups) = by_kind(object.field("kind").as_str()?)?;
    let group = crate::manifest::api_group(object.field("apiVersion").as_str()?);
    groups.contains(&group).then_some(place)
}

/// The objects the pod `spec` names, in either tree: its ServiceAccount
/// (`serviceAccountName`, else the deprecated `serviceAccount` the API
/// server still reads; none when both are unset or empty: the namespace's
/// `default`), PriorityClass and RuntimeClass; its volumes' claims,
/// Secrets and ConfigMaps (projected sources too, with their
/// ClusterTrustBundles, and the Secret a volume plugin logs in with:
/// [`VOLUME_PLUGIN_SECRETS`]), what an ephemeral volume's
/// claim is made with ([`claim_references`]); the Secrets and ConfigMaps every container
/// reads through `env` and `envFrom`, init and ephemeral containers
/// included; its image pull secrets; its dynamic resource claims (a
/// ResourceClaim, or the ResourceClaimTemplate one is made from). An empty
/// name is no reference; an optional one is still one, marked.
pub fn pod_references<'a, T: Tree>(spec: &'a T) -> Vec<PodReference<'a>> {
    // The items of the list at `key` of `tree`; none when it is no list.
    fn list<'a, T: Tree>(tree: Option<&'a T>, key: &str) -> &'a [T] {
        tree.and_then(|t| t.get(key))
            .and_then(T::items)
            .unwrap_or_default()
    }
    let mut found = Vec::new();
    // `name` of `holder`; `optional` read only where Kubernetes has it
    // (a Secret or ConfigMap volume, projected source, `envFrom` or `env`
    // reference), not on a volume plugin's login Secret or the pod.
    let mut add =
        |kind: &'static str, holder: Option<&'a T>, key: &str, how: Use, may_be_optional: bool| {
            let Some(holder) = holder else {
                return;
            };
            if let Some(name) = holder.get(key).and_then(T::text)
                && !name.is_empty()
            {
                let optional = may_be_optional && holder.get("optional").is_some_and(T::is_true);
                found.push(PodReference {
                    kind,
                    name,
                    how,
                    optional,
                });
            }
        };
    // In the order a person reads a pod: what it mounts, pulls with and
    // reads, then what it runs as and with (the first use of an object is
    // the one a finding names).
    for volume in list(Some(spec), "volumes") {
        let claim = volume.get("persistentVolumeClaim");
        add(
            "PersistentVolumeClaim",
            claim,
            "claimName",
            Use::Claims,
            false,
        );
        for path in VOLUME_PLUGIN_SECRETS {
            let (key, holder) = path.split_last().expect("a path has a key");
            add("Secret", volume.lookup(holder), key, Use::Mounts, false);
        }
        // A volume names its Secret `secretName`, a projected source `name`.
        add(
            "Secret",
            volume.get("secret"),
            "secretName",
            Use::Mounts,
            true,
        );
        add(
            "ConfigMap",
            volume.get("configMap"),
            "name",
            Use::Mounts,
            true,
        );
        // An ephemeral volume's claim is made from its template's spec.
        let template = volume.lookup(&["ephemeral", "volumeClaimTemplate", "spec"]);
        for (kind, key) in CLAIM_NAMES {
            add(kind, template, key, Use::Claims, false);
        }
        for source in list(volume.get("projected"), "sources") {
            add("Secret", source.get("secret"), "name", Use::Mounts, true);
            let config_map = source.get("configMap");
            add("ConfigMap", config_map, "name", Use::Mounts, true);
            let bundle = source.get("clusterTrustBundle");
            add("ClusterTrustBundle", bundle, "name", Use::Mounts, true);
        }
    }
    for claim in list(Some(spec), "resourceClaims") {
        let (named, template) = ("resourceClaimName", "resourceClaimTemplateName");
        add("ResourceClaim", Some(claim), named, Use::Claims, false);
        add(
            "ResourceClaimTemplate",
            Some(claim),
            template,
            Use::Claims,
            false,
        );
    }
    for secret in list(Some(spec), "imagePullSecrets") {
        add("Secret", Some(secret), "name", Use::PullsImagesWith, false);
    }
    for container in ["initContainers", "containers", "ephemeralContainers"]
        .into_iter()
        .flat_map(|key| list(Some(spec), key))
    {
        for from in list(Some(container), "envFrom") {
            add("Secret", from.get("secretRef"), "name", Use::Reads, true);
            add(
                "ConfigMap",
                from.get("configMapRef"),
                "name",
                Use::Reads,
                true,
            );
        }
        for env in list(Some(container), "env") {
            let from = env.get("valueFrom");
            let secret = from.and_then(|f| f.get("secretKeyRef"));
            add("Secret", secret, "name", Use::Reads, true);
            let config_map = from.and_then(|f| f.get("configMapKeyRef"));
            add("ConfigMap", config_map, "name", Use::Reads, true);
        }
    }
    let account = ["serviceAccountName", "serviceAccount"]
        .into_iter()
        .find(|key| {
            spec.get(key)
                .and_then(T::text)
                .is_some_and(|n| !n.is_empty())
        });
    if let Some(key) = account {
        add("ServiceAccount", Some(spec), key, Use::RunsAs, false);
    }
    add(
        "PriorityClass",
        Some(spec),
        "priorityClassName",
        Use::IsScheduledWith,
        false,
    );
    add(
        "RuntimeClass",
        Some(spec),
        "runtimeClassName",
        Use::RunsWith,
        false,
    );
    found
}

/// The kind of each object a claim's spec names, and the key naming it.
const CLAIM_NAMES: [(&str, &str); 3] = [
    ("StorageClass", "storageClassName"),
    ("PersistentVolume", "volumeName"),
    ("VolumeAttributesClass", "volumeAttributesClassName"),
];

/// The objects the claim `spec` names (a PersistentVolumeClaim's, a
/// StatefulSet's `volumeClaimTemplates`' or an ephemeral volume's
/// template's): its StorageClass, the PersistentVolume it binds and its
/// VolumeAttributesClass, all cluster-scoped; how: [`Use::Claims`]. An
/// empty name is no reference (an empty `storageClassName` asks for no
/// class at all).
pub fn claim_references<T: Tree>(spec: &T) -> impl Iterator<Item = PodReference<'_>> {
    CLAIM_NAMES.into_iter().filter_map(|(kind, key)| {
        let name = spec.get(key).and_then(T::text).filter(|n| !n.is_empty())?;
        Some(PodReference {
            kind,
            name,
            how: Use::Claims,
            optional: false,
        })
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Each kind's pointers are its keys, its spec its template's; a kind
    /// carries its pod in its own group alone, in any version.
    #[test]
    fn a_pod_is_found_where_its_kind_carries_it() {
        for (group, kind) in [
            ("", "Pod"),
            ("", "PodTemplate"),
            ("", "ReplicationController"),
            ("apps", "Deployment"),
            ("extensions", "DaemonSet"),
            ("batch", "Job"),
            ("batch", "CronJob"),
        ] {
            let place = pod_place(group, kind).unwrap();
            let pointer = |keys: &[&str]| keys.iter().map(|k| format!("/{k}")).collect::<String>();
            assert_eq!(pointer(place.template), place.template_pointer, "{kind}");
            assert_eq!(pointer(place.spec), place.spec_pointer, "{kind}");
            assert_eq!(place.spec.split_last(), Some((&"spec", place.template)));
        }
        for (group, kind) in [
            ("example.com", "Deployment"),
            ("apps", "Job"),
            ("", "CronJob"),
        ] {
            assert_eq!(pod_place(group, kind), None, "{group}/{kind}");
        }
        let object = serde_json::json!({"apiVersion": "apps/v1beta2", "kind": "StatefulSet"});
        assert_eq!(pod_place_of(&object), pod_place("apps", "StatefulSet"));
    }
    use crate::location::Source;
    use crate::yaml::{self, Limits};

    /// A pod spec that names every kind of object, some optionally, some
    /// with an empty name.
    fn pod() -> Json {
        json!({
            "serviceAccountName": "sa",
            "serviceAccount": "ignored",
            "priorityClassName": "high",
            "runtimeClassName": "kata",
            "imagePullSecrets": [{"name": "pull"}, {"name": ""}],
            "volumes": [
                {"secret": {"secretName": "s"}},
                {"secret": {"secretName": "maybe", "optional": true}},
                {"configMap": {"name": "c", "optional": false}},
                {"persistentVolumeClaim": {"claimName": "data"}},
                {"projected": {"sources": [
                    {"secret": {"name": "ps"}},
                    {"configMap": {"name": "pc", "optional": true}},
                    {"serviceAccountToken": {"path": "token"}},
                ]}},
                {"csi": {"driver": "d", "nodePublishSecretRef": {"name": "csi"}}},
                {"rbd": {"image": "i", "monitors": ["m"], "secretRef": {"name": "rbd"}}},
                {"azureFile": {"secretName": "azure", "shareName": "s"}},
                {"emptyDir": {}},
                {"ephemeral": {"volumeClaimTemplate": {"spec": {"storageClassName": "fast",
                    "volumeName": "pv", "volumeAttributesClassName": "gold"}}}},
                {"ephemeral": {"volumeClaimTemplate": {"spec": {"storageClassName": ""}}}},
                {"projected": {"sources": [
                    {"clusterTrustBundle": {"name": "roots", "path": "ca.pem", "optional": true}},
                    {"clusterTrustBundle": {"signerName": "example.com/s", "path": "s.pem"}},
                ]}},
            ],
            "resourceClaims": [
                {"name": "gpu", "resourceClaimName": "gpu-claim"},
                {"name": "fpga", "resourceClaimTemplateName": "fpga-template"},
            ],
            "initContainers": [{"envFrom": [{"secretRef": {"name": "es"}, "prefix": "X_"}]}],
            "containers": [{"env": [
                {"name": "A", "valueFrom": {"configMapKeyRef": {"name": "ec", "key": "k"}}},
                {"name": "B", "valueFrom": {"secretKeyRef": {"name": "ek", "key": "k", "optional": true}}},
                {"name": "C", "value": "plain"},
            ]}],
            "ephemeralContainers": [{"envFrom": [{"configMapRef": {"name": "debug"}}]}],
        })
    }

    fn sorted<'a>(mut found: Vec<PodReference<'a>>) -> Vec<(&'static str, &'a str, Use, bool)> {
        found.sort();
        found
            .into_iter()
            .map(|r| (r.kind, r.name, r.how, r.optional))
            .collect()
    }

    /// Every way a pod names an object, each once, with how and whether
    /// optionally; empty names and sources that name nothing are none.
    #[test]
    fn a_pod_names_what_it_runs_as_mounts_reads_pulls_with_claims_and_runs_on() {
        let pod = pod();
        let expected = vec![
            ("ServiceAccount", "sa", Use::RunsAs, false),
            ("Secret", "azure", Use::Mounts, false),
            ("Secret", "csi", Use::Mounts, false),
            ("Secret", "es", Use::Reads, false),
            ("Secret", "ek", Use::Reads, true),
            ("Secret", "maybe", Use::Mounts, true),
            ("Secret", "ps", Use::Mounts, false),
            ("Secret", "pull", Use::PullsImagesWith, false),
            ("Secret", "rbd", Use::Mounts, false),
            ("Secret", "s", Use::Mounts, false),
            ("ConfigMap", "c", Use::Mounts, false),
            ("ConfigMap", "debug", Use::Reads, false),
            ("ConfigMap", "ec", Use::Reads, false),
            ("ConfigMap", "pc", Use::Mounts, true),
            ("RuntimeClass", "kata", Use::RunsWith, false),
            ("PriorityClass", "high", Use::IsScheduledWith, false),
            ("PersistentVolumeClaim", "data", Use::Claims, false),
            ("StorageClass", "fast", Use::Claims, false),
            ("PersistentVolume", "pv", Use::Claims, false),
            ("VolumeAttributesClass", "gold", Use::Claims, false),
            ("ClusterTrustBundle", "roots", Use::Mounts, true),
            ("ResourceClaim", "gpu-claim", Use::Claims, false),
            ("ResourceClaimTemplate", "fpga-template", Use::Claims, false),
        ];
        let mut expected = expected;
        expected.sort_by_key(|&(kind, name, how, optional)| PodReference {
            kind,
            name,
            how,
            optional,
        });
        assert_eq!(sorted(pod_references(&pod)), expected);
    }

    /// The one reader reads both trees alike: the pod as YAML nodes names
    /// what its JSON copy names.
    #[test]
    fn the_nodes_and_their_json_copy_name_the_same_objects() {
        let text = serde_json::to_string(&pod()).unwrap();
        let source = Source::file("pod.json", &text);
        let node = yaml::parse_document(&source, Limits::VALUES)
            .unwrap()
            .expect("one document");
        assert_eq!(
            sorted(pod_references(&node)),
            sorted(pod_references(&node.to_json()))
        );
        assert_eq!(pod_references(&node).len(), 23);
    }

    /// `optional` is read where Kubernetes has it: a stray one on the pod
    /// or on a volume plugin's login Secret marks nothing.
    #[test]
    fn optional_is_read_only_where_kubernetes_has_it() {
        let pod = json!({
            "optional": true,
            "serviceAccountName": "sa",
            "priorityClassName": "high",
            "volumes": [{"rbd": {"secretRef": {"name": "rbd", "optional": true}}}],
        });
        let found = pod_references(&pod);
        assert_eq!(found.len(), 3);
        assert!(found.iter().all(|r| !r.optional), "{found:?}");
    }

    /// A pod's uses come in the order a person reads it, so the first use
    /// of an object (which a finding names) is what it mounts, then pulls
    /// images with, then reads, then runs as.
    #[test]
    fn a_pods_uses_come_mounts_first() {
        let pod = json!({
            "serviceAccountName": "sa",
            "containers": [{"envFrom": [{"secretRef": {"name": "s"}}]}],
            "imagePullSecrets": [{"name": "s"}],
            "volumes": [{"secret": {"secretName": "s"}}],
        });
        let hows: Vec<Use> = pod_references(&pod).iter().map(|r| r.how).collect();
        assert_eq!(
            hows,
            [Use::Mounts, Use::PullsImagesWith, Use::Reads, Use::RunsAs]
        );
    }

    /// The deprecated `serviceAccount` is read when `serviceAccountName`
    /// is unset or empty; neither set names none (the namespace's
    /// `default` is the caller's to add); a name that is no string is none.
    #[test]
    fn the_service_account_falls_back_to_the_deprecated_field() {
        let accounts = |pod: Json| -> Vec<String> {
            pod_references(&pod)
                .iter()
                .map(|r| r.name.to_owned())
                .collect()
        };
        assert_eq!(accounts(json!({"serviceAccount": "old"})), ["old"]);
        assert_eq!(
            accounts(json!({"serviceAccountName": "", "serviceAccount": "old"})),
            ["old"]
        );
        assert!(accounts(json!({"serviceAccountName": ""})).is_empty());
        assert!(accounts(json!({"serviceAccountName": 3, "volumes": "none"})).is_empty());
        assert!(accounts(json!(null)).is_empty());
        // What the pods run as, in either tree: the same fallback, then `default`.
        for (spec, account) in [
            (
                json!({"serviceAccountName": "new", "serviceAccount": "old"}),
                "new",
            ),
            (
                json!({"serviceAccountName": "", "serviceAccount": "old"}),
                "old",
            ),
            (json!({"serviceAccount": ""}), "default"),
            (json!({"serviceAccountName": 3}), "default"),
        ] {
            assert_eq!(runs_as(&spec), account, "{spec}");
            let source = Source::file("spec.json", spec.to_string());
            let node = yaml::parse_document(&source, Limits::VALUES)
                .unwrap()
                .unwrap();
            assert_eq!(runs_as(&node), account, "{spec}");
        }
    }
}
