//! The whole render, stage after stage: plan, templates, parse back.

use crate::error::Error;
use crate::manifest::{self, Manifest};
use crate::model::Values;
use crate::plan::Plan;
use crate::render;

/// The template of the Kyverno exemptions artifact.
pub const EXEMPTIONS_TEMPLATE: &str = "artifacts/kyverno-exemptions.yaml";

/// Everything one render produces.
#[derive(Debug)]
pub struct Bundle {
    /// The objects, in install order.
    pub manifests: Vec<Manifest>,
    /// The Kyverno exemptions the namespaces need, as YAML to paste into
    /// the platform's Kyverno values.
    pub exemptions: String,
}

/// Renders the chart for validated `values`.
pub fn render(values: &Values) -> Result<Bundle, Error> {
    let plan = Plan::new(values);
    let env = render::environment();
    let rendered = render::render_objects(&env, &plan)?;
    let manifests = manifest::collect(&rendered)?;
    let exemptions = render::render_template(&env, EXEMPTIONS_TEMPLATE, &plan)?;
    Ok(Bundle {
        manifests,
        exemptions,
    })
}
