//! The generic Kubernetes layer: usable on any manifests, whoever wrote
//! them. Positioned YAML ([`yaml`]) and its writing ([`emit`]), objects and
//! their identity ([`manifest`]), manifest sets read from disk ([`input`]),
//! Kubernetes' name rules ([`names`]), exact resource quantities
//! ([`quantity`]), label selectors ([`selector`]), Secrets kept out of every output
//! ([`secret`]), the API schemas ([`kube`]), effective RBAC ([`rbac`]), the
//! semantic diff ([`diff`]), a live cluster as one of its sides
//! ([`cluster`]) and the GitOps output directory ([`output`]).
//! Beneath them the base every layer uses: positions in a source
//! ([`location`]), errors that carry them ([`diagnostic`], [`error`]), the
//! exit codes ([`exit`]), text helpers ([`text`]) and the terminal's colour
//! choice ([`terminal`]).
//!
//! This crate knows no chart: it depends on neither `chart` nor the
//! command line, and Cargo enforces that (ARCHITECTURE.md, "Crates").

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
pub mod yaml;
