//! The whole render, stage after stage: plan, templates, parse back.

use crate::emit;
use crate::error::Error;
use crate::manifest::{self, Manifest};
use crate::model::Values;
use crate::plan::Plan;
use crate::render;
use crate::yaml::{self, Source};

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
    let exemptions = canonical(
        EXEMPTIONS_TEMPLATE,
        &render::render_template(&env, EXEMPTIONS_TEMPLATE, &plan)?,
    )?;
    Ok(Bundle {
        manifests,
        exemptions,
    })
}

/// A rendered artifact written canonically: its leading comment lines, then
/// its one document as [`emit::block`] writes it.
fn canonical(template: &str, text: &str) -> Result<String, Error> {
    let header: String = text
        .lines()
        .take_while(|line| line.starts_with('#'))
        .map(|line| format!("{line}\n"))
        .collect();
    let source = Source::file(format!("templates/{template}"), text);
    let document = yaml::parse_document(&source, manifest::LIMITS)
        .map_err(|e| Error::Rendered {
            template: template.to_owned(),
            problem: format!("invalid YAML: {}", e.message),
        })?
        .ok_or_else(|| Error::Rendered {
            template: template.to_owned(),
            problem: "nothing".to_owned(),
        })?;
    Ok(header + &emit::block(&document))
}
