//! chartgen: the buildkit-operator's Kubernetes manifests from typed values.
//!
//! The pipeline, one module per stage (see ARCHITECTURE.md):
//! [`values`] reads and merges YAML with positions ([`yaml`]), [`schema`]
//! validates it against the schema generated from [`model`], and the model's
//! [`model::rules`] check what a schema cannot say. [`commands`] holds one
//! function per subcommand; `main.rs` only dispatches and reports.

pub mod check;
pub mod cli;
pub mod commands;
pub mod diagnostic;
pub mod diff;
pub mod docs;
pub mod emit;
pub mod error;
pub mod exit;
pub mod files;
pub mod input;
pub mod kube;
#[cfg(test)]
mod layers;
pub mod location;
pub mod manifest;
pub mod model;
pub mod names;
pub mod output;
pub mod pipeline;
pub mod plan;
pub mod render;
pub mod report;
pub mod schema;
pub mod secret;
pub mod text;
pub mod values;
pub mod yaml;
