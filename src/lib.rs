//! chartgen: the buildkit-operator's Kubernetes manifests from typed values.
//!
//! The tree shows the plan (ARCHITECTURE.md, "Layout"): the base
//! ([`text`], [`terminal`], [`location`], [`diagnostic`], [`error`], [`exit`]) under
//! [`kubernetes`], the generic layer usable on any manifests, under
//! [`chart`], the buildkit operator's values, plan, templates and ADR
//! policy, under [`cli`], the command line; `src/layers.rs` checks that
//! no folder uses one above it.
//!
//! The pipeline, one module per stage: [`values`] reads and merges YAML
//! with positions ([`yaml`]), [`schema`] validates it against the schema
//! generated from [`model`], and the model's [`model::rules`] check what a
//! schema cannot say. [`commands`] holds one function per subcommand;
//! `main.rs` only dispatches and reports.

pub mod chart;
pub mod cli;
pub mod diagnostic;
pub mod error;
pub mod exit;
pub mod kubernetes;
#[cfg(test)]
mod layers;
pub mod location;
pub mod terminal;
pub mod text;

// Every module keeps its short path (`crate::yaml`, `chartgen::plan`):
// tests, benches and users of the library name modules, not folders, so a
// module can change folder without a change to any of them.
pub use chart::{
    check, docs, model, pipeline, plan, provenance, render, schema, schema_overlay, values,
};
pub use cli::{commands, report};
pub use kubernetes::{
    cidr, cluster, diff, emit, files, input, kube, manifest, names, output, pod_security, quantity,
    rbac, scheduling, secret, selector, yaml,
};
