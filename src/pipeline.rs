//! The whole render, stage after stage: plan, templates, parse back.

use std::sync::LazyLock;

use crate::check::{self, Finding};
use crate::emit;
use crate::error::Error;
use crate::kube::{self, KubeSchemas};
use crate::manifest::{self, Manifest};
use crate::model::Values;
use crate::plan::Plan;
use crate::render;
use crate::yaml::{self, Node, Source};

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
    /// The same artifact as a document, for the checks.
    pub exemptions_document: Node,
}

/// Renders the chart for validated `values`.
pub fn render(values: &Values) -> Result<Bundle, Error> {
    let plan = Plan::new(values);
    let templates = render::templates()?;
    let rendered = render::render_objects(&templates, &plan)?;
    let manifests = manifest::collect(rendered)?;
    let (exemptions, exemptions_document) = canonical(
        EXEMPTIONS_TEMPLATE,
        &render::render_template(&templates.env, EXEMPTIONS_TEMPLATE, &plan)?,
    )?;
    Ok(Bundle {
        manifests,
        exemptions,
        exemptions_document,
    })
}

/// Runs every check of `chartgen check` on a fresh render, against the
/// default Kubernetes version.
pub fn check(bundle: &Bundle) -> Vec<Finding> {
    // Compiled once per process: `render --all` checks every environment.
    static SCHEMAS: LazyLock<KubeSchemas> = LazyLock::new(|| {
        KubeSchemas::load(kube::DEFAULT_VERSION).expect("the default version is vendored")
    });
    check::run(
        &bundle.manifests,
        Some(&bundle.exemptions_document),
        &check::Options {
            schemas: &SCHEMAS,
            extra_crds: &[],
        },
    )
}

/// A rendered artifact written canonically: its leading comment lines, then
/// its one document as [`emit::block`] writes it; and that document.
fn canonical(template: &str, text: &str) -> Result<(String, Node), Error> {
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
    Ok((header + &emit::block(&document), document))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::Value;

    #[test]
    fn a_fresh_render_passes_every_check() {
        let mut values = Values::default();
        values.kata.enabled = true;
        let bundle = render(&values).unwrap();
        assert_eq!(check(&bundle), vec![]);
    }

    #[test]
    fn findings_on_a_render_name_the_template_line() {
        let mut bundle = render(&Values::default()).unwrap();
        let role = bundle
            .manifests
            .iter_mut()
            .find(|m| m.id.kind == "ClusterRole" && m.id.name == "buildkit-operator-events")
            .unwrap();
        let Value::Mapping(entries) = &mut role.node.value else {
            unreachable!()
        };
        let rules = &mut entries
            .iter_mut()
            .find(|(k, _)| k.name == "rules")
            .unwrap()
            .1;
        let Value::Sequence(rules) = &mut rules.value else {
            unreachable!()
        };
        let Value::Mapping(rule) = &mut rules[0].value else {
            unreachable!()
        };
        let verbs = &mut rule.iter_mut().find(|(k, _)| k.name == "verbs").unwrap().1;
        let Value::Sequence(verbs) = &mut verbs.value else {
            unreachable!()
        };
        verbs[0].value = Value::String("get".to_owned());
        let findings = check(&bundle);
        let r2: Vec<_> = findings
            .iter()
            .filter(|f| f.invariant == check::Invariant::R2)
            .collect();
        assert_eq!(r2.len(), 1, "{findings:#?}");
        assert_eq!(r2[0].path, "rules[0].verbs");
        // The rules come from the `rules` macro in _helpers.yaml, called by rbac.yaml.
        let location = r2[0].location.as_deref().unwrap();
        assert!(location.starts_with("templates/rbac.yaml:"), "{location}");
    }
}
