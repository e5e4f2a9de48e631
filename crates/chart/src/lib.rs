//! The buildkit operator's chart: its typed values ([`values`], [`model`],
//! [`schema`]), the deployment plan and every ADR fact ([`plan`]), the
//! templates ([`render`]), the stages run together ([`pipeline`]), the side
//! files a release carries besides its objects ([`artifacts`]), the ADR
//! policy and what the API server refuses, checked on any manifests
//! ([`check`]), the generated reference ([`docs`]) and its errors
//! ([`error`]). It builds on
//! the `kubernetes` crate and never uses the command line; Cargo enforces
//! both (ARCHITECTURE.md, "Crates").
//!
//! # Example
//!
//! Render the chart from its built-in defaults and hold it to every rule:
//!
//! ```
//! use chart::{model::Values, pipeline};
//!
//! let output = pipeline::render(&Values::default()).unwrap();
//! assert!(pipeline::check(&output).is_empty());
//! let kinds: Vec<&str> = output.release.iter().map(|m| m.id.kind.as_str()).collect();
//! assert!(kinds.contains(&"ClusterRole") && kinds.contains(&"Deployment"));
//! ```

pub mod artifacts;
pub mod check;
pub mod docs;
pub mod error;
pub mod model;
pub mod pipeline;
pub mod plan;
pub mod provenance;
pub mod render;
pub mod schema;
pub mod schema_overlay;
pub mod values;
