//! The generic Kubernetes layer: usable on any manifests, whoever wrote
//! them. Positioned YAML ([`yaml`]) and its writing ([`emit`]), objects and
//! their identity ([`manifest`]), manifest sets read from disk ([`input`]),
//! Kubernetes' name rules ([`names`]), exact resource quantities
//! ([`quantity`]), label selectors ([`selector`]), Secrets kept out of every output
//! ([`secret`]), the API schemas and every object held to them ([`kube`]),
//! effective RBAC ([`rbac`]), the semantic diff ([`diff`]), a live cluster
//! as one of its sides ([`cluster`]) and the GitOps output directory
//! ([`output`]).
//! Beneath them the base every layer uses: positions in a source
//! ([`location`]), errors that carry them ([`diagnostic`], [`error`]), the
//! exit codes ([`exit`]), text helpers ([`text`]), reading a JSON object's
//! fields without hashing their keys ([`json`]) and the terminal's colour
//! choice ([`terminal`]).
//!
//! This crate knows no chart: it depends on neither `chart` nor the
//! command line, and Cargo enforces that (ARCHITECTURE.md, "Crates").
//!
//! # Example
//!
//! Read two versions of some manifests, none of them the chart's, and ask
//! what changed and who may do what:
//!
//! ```
//! use kubernetes::{diff, input, rbac};
//!
//! let old = input::parse("old.yaml", "\
//! apiVersion: v1
//! kind: ServiceAccount
//! metadata: {name: app, namespace: shop}
//! ").unwrap();
//! let new = input::parse("new.yaml", "\
//! apiVersion: v1
//! kind: ServiceAccount
//! metadata: {name: app, namespace: shop}
//! ---
//! apiVersion: rbac.authorization.k8s.io/v1
//! kind: Role
//! metadata: {name: reader, namespace: shop}
//! rules: [{apiGroups: [\"\"], resources: [pods], verbs: [get, list]}]
//! ---
//! apiVersion: rbac.authorization.k8s.io/v1
//! kind: RoleBinding
//! metadata: {name: app-reads, namespace: shop}
//! roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
//! subjects: [{kind: ServiceAccount, name: app, namespace: shop}]
//! ").unwrap();
//!
//! let changes = diff::diff(&old.manifests, &new.manifests, &[]);
//! assert_eq!(changes.added.len(), 2);
//! assert!(changes.removed.is_empty() && changes.changed.is_empty());
//!
//! let objects: Vec<_> = new.manifests.iter().map(|m| m.node().to_json()).collect();
//! let everyone = rbac::resolve::effective_permissions(&objects).unwrap();
//! let app = everyone.iter().find(|p| p.subject.name == "app").unwrap();
//! assert!(app.permissions.iter().any(|p| p.resource == "pods" && p.verbs == ["get", "list"]));
//! ```

pub mod api;
pub mod cidr;
pub mod cluster;
pub mod diagnostic;
pub mod diff;
pub mod emit;
pub mod error;
pub mod exit;
pub mod files;
pub mod input;
pub mod json;
pub mod kube;
pub mod location;
pub mod manifest;
pub mod names;
pub mod output;
pub mod pod_security;
pub mod quantity;
pub mod rbac;
pub mod scheduling;
pub mod secret;
pub mod selector;
pub mod terminal;
pub mod text;
pub mod tree;
pub mod yaml;

/// Whether the process may run on more than one core: asked of the
/// system once (`available_parallelism` reads the cgroup's quota files on
/// every call), then remembered. The stages that split their work over
/// two threads ask it.
pub fn second_core() -> bool {
    static SECOND: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SECOND.get_or_init(|| std::thread::available_parallelism().is_ok_and(|n| n.get() > 1))
}
