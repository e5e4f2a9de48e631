//! A live cluster as one side of `diff`, read as `kubectl diff
//! --server-side` reads it, and never written to.
//!
//! A side written `cluster:` (the kubeconfig's current context) or
//! `cluster:CONTEXT` ([`Target::parse`]). For each object of the other,
//! local side: the live object (GET), and what the server would make of
//! the local one (server-side apply with `dryRun=All`, as the caller's
//! field manager, forced: defaults filled in, admission run, nothing
//! stored).
//! The diff compares those two, so the fields the server defaults are on
//! both sides and vanish; where the dry run is refused, the local object
//! as written stands in, and the refusal is said ([`Refusal`]). The
//! release's objects in the cluster that the local side lacks (labelled
//! `app.kubernetes.io/managed-by=MANAGER`, the caller's name, and with a local
//! `app.kubernetes.io/instance` value, found by listing every served,
//! listable type) are the removed ones. The server's own fields are
//! dropped from both sides ([`strip`]). Both come back as
//! [`ManifestSet`]s, so [`crate::diff::diff_sets`] compares them as it
//! compares two folders.
//!
//! The requests run on a current-thread tokio runtime, up to eight at
//! once; each is bounded in time (`connect::REQUEST_TIMEOUT`).

mod connect;
mod fetch;
pub mod strip;

use std::collections::BTreeMap;

use serde_json::Value as Json;

pub use fetch::{MANAGED_BY, rejects, release_selector};

use crate::input::{self, ManifestSet};

/// What a side of `diff` starts with to name a cluster.
pub const PREFIX: &str = "cluster:";

/// The program that manages a release's objects: the dry runs' field
/// manager, and the value of the release objects' [`MANAGED_BY`] label.
/// Made only by [`Manager::new`], which checks the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Manager(&'static str);

impl Manager {
    /// A manager named `name`, which must be a non-empty label value (at
    /// most 63 of `[A-Za-z0-9_.-]`, a letter or digit at each end): the
    /// label's own rule, and one that keeps the name whole in the label
    /// selector and the query strings it is written into, and within the
    /// API server's 128 characters of a field manager. A name that is not
    /// one does not compile where the manager is a constant (and panics
    /// elsewhere).
    pub const fn new(name: &'static str) -> Manager {
        assert!(
            crate::names::is_label_value(name),
            "a manager's name is a label value"
        );
        Manager(name)
    }

    /// The name.
    pub const fn name(self) -> &'static str {
        self.0
    }
}

/// A cluster named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The kubeconfig context; `None` for the current one.
    pub context: Option<String>,
}

impl Target {
    /// `cluster:` or `cluster:CONTEXT`; `None` for anything else. Whether
    /// a local file of that name wins is the caller's choice
    /// ([`Target::of_side`]).
    pub fn parse(arg: &str) -> Option<Target> {
        let context = arg.strip_prefix(PREFIX)?;
        Some(Target {
            context: (!context.is_empty()).then(|| context.to_owned()),
        })
    }

    /// The cluster a side of `diff` names: [`Target::parse`], unless a
    /// file or folder of that name exists (a local path wins, as it wins
    /// over `REV:PATH`; `./cluster:x` names the file in any case).
    pub fn of_side(arg: &str) -> Option<Target> {
        Target::unless_local(arg, std::fs::symlink_metadata(arg).is_ok())
    }

    /// [`Target::parse`], unless `local` says a path of that name exists.
    fn unless_local(arg: &str, local: bool) -> Option<Target> {
        if local { None } else { Target::parse(arg) }
    }
}

/// A dry run the server refused: the object is compared as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The object, as `Kind namespace/name`.
    pub object: String,
    /// The server's message.
    pub message: String,
    /// Whether the apply itself would fail (invalid, or forbidden by
    /// admission: [`rejects`]), rather than the dry run being impossible
    /// (no permission, namespace or CRD absent).
    pub rejected: bool,
}

/// Why the cluster could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClusterError {
    /// Neither `KUBECONFIG` nor `~/.kube/config` names a file.
    #[error("no kubeconfig: looked at {}", if looked.is_empty() { "nothing ($HOME is not set)".to_owned() } else { looked.join(", ") })]
    NoKubeconfig {
        /// The paths looked at.
        looked: Vec<String>,
    },
    /// A kubeconfig file cannot be read or merged.
    #[error("cannot read the kubeconfig `{path}`")]
    BadKubeconfig {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// `cluster:` with no current context in the kubeconfig.
    #[error("no current context in the kubeconfig: name one, cluster:CONTEXT")]
    NoCurrentContext,
    /// `cluster:CONTEXT` with a context the kubeconfig lacks.
    #[error("no context `{context}` in the kubeconfig (its contexts: {})", if known.is_empty() { "none".to_owned() } else { known.join(", ") })]
    UnknownContext {
        /// The context named.
        context: String,
        /// The contexts the kubeconfig has.
        known: Vec<String>,
    },
    /// The server cannot be reached, or refuses the connection or the
    /// credentials, or does not answer in time.
    #[error("cannot read the cluster of context `{context}` at {server}")]
    Unreachable {
        /// The context.
        context: String,
        /// The server's URL.
        server: String,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The server answered with objects that cannot be read back.
    #[error("the cluster of context `{context}` answered with objects that cannot be read")]
    Answer {
        /// The context.
        context: String,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// The live side of a diff and what the server says of the local one.
pub struct Live {
    /// The side's name: `cluster:CONTEXT`.
    pub name: String,
    /// The live objects, server fields dropped.
    pub set: ManifestSet,
    /// The dry runs the server refused.
    pub refusals: Vec<Refusal>,
    /// What could not be looked at, one line each.
    pub notes: Vec<String>,
}

/// Reads the cluster `target` names for the objects of `local`, and puts
/// in place of each local object what the server would make of it (its
/// file and template kept). Nothing is printed and `local` is unchanged
/// unless the whole reading succeeds. `manager` is the program that
/// manages the objects.
pub fn read(
    target: &Target,
    manager: Manager,
    local: &mut ManifestSet,
) -> Result<Live, ClusterError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ClusterError::Unreachable {
            context: target.context.clone().unwrap_or_default(),
            server: "?".to_owned(),
            source: Box::new(e),
        })?;
    let (context, reading) = runtime.block_on(async {
        let connection = connect::connect(target.context.as_deref()).await?;
        let reading = fetch::read(&connection, manager, &local.manifests).await?;
        Ok::<_, ClusterError>((connection.context, reading))
    })?;
    let name = format!("{PREFIX}{context}");
    let unreadable = |source: crate::error::Error| ClusterError::Answer {
        context: context.clone(),
        source: Box::new(source),
    };
    let set = input::parse(&name, &list_text(reading.live)).map_err(unreadable)?;
    let applied = input::parse(&format!("dry run on {name}"), &list_text(reading.applied))
        .map_err(unreadable)?;
    replace_nodes(local, applied);
    Ok(Live {
        name,
        set,
        refusals: reading.refusals,
        notes: reading.notes,
    })
}

/// The objects as one `v1 List` in JSON, the form [`input::parse`] reads
/// item by item.
fn list_text(items: Vec<Json>) -> String {
    serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()
}

/// Each object of `local` replaced by the object of `applied` with its
/// identity, its file and template kept.
fn replace_nodes(local: &mut ManifestSet, applied: ManifestSet) {
    let mut by_key: BTreeMap<_, _> = applied
        .manifests
        .into_iter()
        .map(|m| (identity(&m.id), m.into_node()))
        .collect();
    for manifest in &mut local.manifests {
        if let Some(node) = by_key.remove(&identity(&manifest.id)) {
            *manifest.node_mut() = node;
        }
    }
}

/// What objects match by, as in `diff`: all of the identity but the
/// version.
fn identity(id: &crate::manifest::ObjectId) -> (String, String, Option<String>, String) {
    (
        id.group.clone(),
        id.kind.clone(),
        id.namespace.clone(),
        id.name.clone(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A manager's name is a label value: it is written into the label,
    /// and whole into a selector (`a,b=c` would add a requirement of its
    /// own) and the dry runs' query.
    #[test]
    fn a_manager_is_named_by_a_label_value() {
        for name in ["chartgen", "my-tool", "Tool_1.2", "a", &"a".repeat(63)] {
            let name: &'static str = Box::leak(name.to_owned().into_boxed_str());
            assert_eq!(Manager::new(name).name(), name);
        }
        for name in [
            "",
            "my tool",
            "a,app=other",
            "-tool",
            "tool.",
            "tööl",
            &"a".repeat(64),
        ] {
            let name: &'static str = Box::leak(name.to_owned().into_boxed_str());
            let made = std::panic::catch_unwind(|| Manager::new(name));
            assert!(made.is_err(), "{name:?} was taken");
        }
    }

    #[test]
    fn a_side_names_a_cluster_by_its_prefix() {
        assert_eq!(Target::parse("cluster:"), Some(Target { context: None }));
        assert_eq!(
            Target::parse("cluster:kind-dev"),
            Some(Target {
                context: Some("kind-dev".to_owned())
            })
        );
        // A context's name is any text, colons included.
        assert_eq!(
            Target::parse("cluster:arn:aws:eks:eu-west-1:1:cluster/x"),
            Some(Target {
                context: Some("arn:aws:eks:eu-west-1:1:cluster/x".to_owned())
            })
        );
        for other in [
            "manifests/dev",
            "HEAD:manifests/dev",
            "-",
            "./cluster:",
            "Cluster:",
            "cluster",
        ] {
            assert_eq!(Target::parse(other), None, "{other}");
        }
    }

    #[test]
    fn a_local_path_wins_over_the_prefix() {
        assert_eq!(Target::unless_local("cluster:dev", true), None);
        assert_eq!(
            Target::unless_local("cluster:dev", false),
            Some(Target {
                context: Some("dev".to_owned())
            })
        );
        assert_eq!(
            Target::of_side("cluster:surely-no-such-file-here"),
            Some(Target {
                context: Some("surely-no-such-file-here".to_owned())
            })
        );
    }

    #[test]
    fn the_live_list_reads_back_as_manifests() {
        let live = vec![
            serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "c", "namespace": "n"}, "data": {"a": "1"}}),
            serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "r"}, "rules": []}),
        ];
        let set = input::parse("cluster:dev", &list_text(live)).unwrap();
        let ids: Vec<String> = set.manifests.iter().map(|m| m.id.to_string()).collect();
        assert!(ids.contains(&"ConfigMap n/c".to_owned()), "{ids:?}");
        assert!(ids.contains(&"ClusterRole r".to_owned()), "{ids:?}");
    }

    #[test]
    fn the_release_is_selected_by_its_instance_labels() {
        let set = input::parse(
            "local",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    app.kubernetes.io/managed-by: chartgen\n    app.kubernetes.io/instance: buildkit\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  labels:\n    app.kubernetes.io/instance: other\n",
        )
        .unwrap();
        assert_eq!(
            release_selector(&set.manifests, Manager::new("chartgen")).as_deref(),
            Some("app.kubernetes.io/managed-by=chartgen,app.kubernetes.io/instance in (buildkit)")
        );
        let unlabelled = input::parse(
            "local",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
        )
        .unwrap();
        assert_eq!(
            release_selector(&unlabelled.manifests, Manager::new("chartgen")),
            None
        );
    }

    #[test]
    fn refusals_that_mean_the_apply_fails() {
        assert!(rejects(
            422,
            "Deployment.apps \"x\" is invalid: spec.selector: field is immutable"
        ));
        assert!(rejects(
            400,
            "strict decoding error: unknown field \"spec.foo\""
        ));
        assert!(rejects(
            403,
            "pods \"p\" is forbidden: violates PodSecurity \"restricted:latest\""
        ));
        assert!(!rejects(
            403,
            "deployments.apps \"x\" is forbidden: User \"u\" cannot patch resource \"deployments\" in API group \"apps\" in the namespace \"n\""
        ));
        assert!(!rejects(404, "namespaces \"n\" not found"));
        assert!(!rejects(409, "conflict"));
    }
}
