//! The whole render, stage after stage: plan, templates, parse back.

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

/// The separately applied parts of an environment (ADR-0006): the release
/// targets the operator and builds namespaces; the Kata node plumbing
/// (system namespace, kata-deploy, vCPU tuning, RuntimeClass) is applied
/// with the Kata install, out-of-band.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bundle {
    /// The release: the operator and builds namespaces and cluster objects.
    Release,
    /// The Kata node plumbing.
    Kata,
}

impl Bundle {
    /// Both bundles, in apply order.
    pub const ALL: [Bundle; 2] = [Bundle::Release, Bundle::Kata];

    /// Its name, as `--bundle` takes it and as its GitOps directory is called.
    pub fn name(self) -> &'static str {
        match self {
            Bundle::Release => "release",
            Bundle::Kata => "kata",
        }
    }
}

/// Everything one render of an environment produces.
#[derive(Debug)]
pub struct Output {
    /// The release's objects, in install order.
    pub release: Vec<Manifest>,
    /// The Kata bundle's objects, in install order; empty when the
    /// environment does not run Kata.
    pub kata: Vec<Manifest>,
    /// The Kyverno exemptions the environment's namespaces need (the system
    /// namespace's whenever it runs Kata), as YAML for the platform's
    /// Kyverno values.
    pub exemptions: String,
    /// The same artifact as a document, for the checks.
    pub exemptions_document: Node,
}

impl Output {
    /// The objects of `bundle`.
    pub fn bundle(&self, bundle: Bundle) -> &[Manifest] {
        match bundle {
            Bundle::Release => &self.release,
            Bundle::Kata => &self.kata,
        }
    }

    /// The bundles this environment has: the release, and Kata when it runs Kata.
    pub fn bundles(&self) -> Vec<Bundle> {
        Bundle::ALL
            .into_iter()
            .filter(|b| !self.bundle(*b).is_empty())
            .collect()
    }

    /// The objects of `bundles` together, in install order.
    pub fn manifests(&self, bundles: &[Bundle]) -> Vec<Manifest> {
        self.in_order(bundles).into_iter().cloned().collect()
    }

    /// The objects of `bundles` together, in install order, borrowed.
    pub fn in_order(&self, bundles: &[Bundle]) -> Vec<&Manifest> {
        let mut all: Vec<&Manifest> = bundles.iter().flat_map(|b| self.bundle(*b)).collect();
        all.sort_by(|a, b| manifest::install_order(a, b));
        all
    }
}

/// Renders the chart for validated `values`: both bundles and the exemptions.
///
/// Each render stops at [`render::OUTPUT_BUDGET`]; the error then names
/// the values that multiply.
pub fn render(values: &Values) -> Result<Output, Error> {
    // Every BuildProject carries the common labels and annotations: when
    // that alone passes the budget, say so before rendering anything.
    let carried = carried_by_every_object(values);
    if carried.saturating_mul(values.projects.len()) > render::OUTPUT_BUDGET {
        return Err(budget_error(
            "the BuildProjects alone would pass it",
            values,
        ));
    }
    let plan = Plan::new(values);
    let templates = render::templates()?;
    let budget = |error| over_budget(error, values);
    let release = manifest::collect(
        render::render_objects(&templates, &templates.objects, &plan).map_err(budget)?,
    )?;
    let kata = manifest::collect(
        render::render_objects(&templates, &templates.kata, &plan).map_err(budget)?,
    )?;
    let (exemptions, exemptions_document) = canonical(
        EXEMPTIONS_TEMPLATE,
        &render::render_template(&templates.env, EXEMPTIONS_TEMPLATE, &plan).map_err(budget)?,
    )?;
    Ok(Output {
        release,
        kata,
        exemptions,
        exemptions_document,
    })
}

/// A render that stopped at the output budget, said in terms of the values
/// that multiply: the labels and annotations every object carries, and the
/// projects that each add objects.
fn over_budget(error: Error, values: &Values) -> Error {
    match &error {
        Error::Template { template, line, .. } if render::output_budget_spent() => {
            let at = line.map_or(String::new(), |l| format!(":{l}"));
            budget_error(&format!("stopped at templates/{template}{at}"), values)
        }
        _ => error,
    }
}

/// Bytes of the common labels and annotations, about as the output writes
/// them (key, value, quotes and separators).
fn carried_by_every_object(values: &Values) -> usize {
    [&values.common_labels, &values.common_annotations]
        .into_iter()
        .flatten()
        .map(|(k, v)| k.len() + v.len() + 6)
        .sum()
}

fn budget_error(what: &str, values: &Values) -> Error {
    let size = |map: &std::collections::BTreeMap<String, String>| {
        map.iter()
            .map(|(k, v)| k.len() + v.len() + 6)
            .sum::<usize>()
    };
    let mut keys = [
        ("commonLabels", size(&values.common_labels)),
        ("commonAnnotations", size(&values.common_annotations)),
    ];
    keys.sort_by_key(|(_, bytes)| std::cmp::Reverse(*bytes));
    let [(key, bytes), (other, other_bytes)] = keys;
    Error::Usage {
        reason: format!(
            "the values would render more than {} MiB, the output budget ({what}): `{key}` ({bytes} bytes) and `{other}` ({other_bytes} bytes) are written into every object, and `projects` adds {} objects; keep what every object carries small",
            render::OUTPUT_BUDGET >> 20,
            values.projects.len()
        ),
    }
}

/// Runs every check of `chartgen check` on a fresh render, against the
/// default Kubernetes version: on the release alone, on the Kata bundle
/// alone and on both together, as each may be applied.
pub fn check(output: &Output) -> Vec<Finding> {
    check_at(output, kube::DEFAULT_VERSION)
}

/// [`check`] against the schemas of Kubernetes `version` (one of
/// [`kube::VERSIONS`]; another is read as the default).
pub fn check_at(output: &Output, version: &str) -> Vec<Finding> {
    // Baked into the binary: loading is a lookup.
    let schemas = KubeSchemas::load(version)
        .or_else(|_| KubeSchemas::load(kube::DEFAULT_VERSION))
        .expect("the default version is vendored");
    let options = check::Options {
        schemas: &schemas,
        extra_crds: &[],
    };
    let artifact = std::slice::from_ref(&output.exemptions_document);
    // Each object converted once; the runs below borrow it.
    let json: Vec<(Bundle, &Manifest, serde_json::Value)> = Bundle::ALL
        .iter()
        .flat_map(|b| output.bundle(*b).iter().map(move |m| (*b, m)))
        .map(|(b, m)| (b, m, m.node.to_json()))
        .collect();
    let run = |bundles: &[Bundle], schema: Option<&check::Options<'_>>| {
        let mut chosen: Vec<(&Manifest, &serde_json::Value)> = json
            .iter()
            .filter(|(b, _, _)| bundles.contains(b))
            .map(|(_, m, j)| (*m, j))
            .collect();
        // In install order, as `Output::manifests` gives them.
        chosen.sort_by(|(a, _), (b, _)| manifest::install_order(a, b));
        let (manifests, objects): (Vec<&Manifest>, Vec<&serde_json::Value>) =
            chosen.into_iter().unzip();
        check::run_borrowed(&manifests, &objects, artifact, schema).findings
    };
    if output.kata.is_empty() {
        return run(&[Bundle::Release], Some(&options));
    }
    // Every object's schema once, with both bundles; how the objects relate
    // for each bundle as it may be applied: alone, and both together.
    let mut findings = run(&Bundle::ALL, Some(&options));
    for bundle in Bundle::ALL {
        for finding in run(&[bundle], None) {
            if !findings.contains(&finding) {
                findings.push(finding);
            }
        }
    }
    findings
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
        let output = render(&values).unwrap();
        assert!(!output.kata.is_empty());
        assert_eq!(check(&output), vec![]);
    }

    #[test]
    fn findings_on_a_render_name_the_template_line() {
        let mut output = render(&Values::default()).unwrap();
        let role = output
            .release
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
        let findings = check(&output);
        let r2: Vec<_> = findings
            .iter()
            .filter(|f| f.id() == Some(check::Invariant::R2.id()))
            .collect();
        assert_eq!(r2.len(), 1, "{findings:#?}");
        assert_eq!(r2[0].path, "rules[0].verbs");
        // The rules come from the `rules` macro in _helpers.yaml, called by rbac.yaml.
        let location = r2[0].location().unwrap().to_string();
        assert!(location.starts_with("templates/rbac.yaml:"), "{location}");
    }
}
