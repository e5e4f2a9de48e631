//! Provenance, for `chartgen explain`: which template line wrote a field
//! of a rendered object, and which values it came from, each with its
//! origin (file:line:col, `--set` argument, or built-in default).
//!
//! Only `explain` pays for it. It renders the chart as `render` does, but
//! hands the templates the plan as [`record::Tracked`] objects that log
//! every leaf read, and its formatter attaches those reads to the
//! interpolation that wrote them ([`record::observe`]). Each interpolation
//! is then placed in the output by the template trace `render` keeps
//! (including the interpolations inside a macro's output), and the plan
//! paths read are mapped to values paths by an explicit table
//! ([`table`]). A field no interpolation wrote was written in the template.

pub mod query;
pub mod record;
pub mod table;

use std::collections::HashMap;
use std::ops::Range;

use crate::error::Error;
use crate::model::Values;
use crate::plan::Plan;
use crate::render;
use kubernetes::location::Origin;
use kubernetes::location::{KeyPath, Segment};
use kubernetes::manifest::{self, Manifest, Trace};
use kubernetes::yaml::{Node, Value};

use record::Emission;

/// A render of the chart with the provenance of every interpolation.
pub struct Explained {
    /// Every object of both bundles, in install order.
    pub manifests: Vec<Manifest>,
    /// Each template's output and where its interpolations landed.
    placed: HashMap<String, Placed>,
    /// The objects of `extraObjects`, by their index there.
    extra: HashMap<manifest::ObjectId, usize>,
}

/// One template's output and its interpolations in it.
struct Placed {
    text: String,
    interpolations: Vec<Placement>,
}

/// An interpolation at its place in a template's output.
#[derive(Debug)]
struct Placement {
    range: Range<usize>,
    reads: Vec<KeyPath>,
    whole: Option<KeyPath>,
    /// Inside a macro's output (its line is the macro's call).
    inner: bool,
}

/// Renders the chart for validated `values` (both bundles), recording
/// where each interpolation's values came from.
pub fn render(values: &Values) -> Result<Explained, Error> {
    render_with(values, None, &[])
}

/// [`render()`] of loaded values: the `extraObjects` keep the positions of
/// the values files (`document`, the merged values), as `render` keeps
/// them, and a custom kind's scope is also read from `crds` (`--crd`).
pub fn render_loaded(
    loaded: &crate::values::Loaded,
    crds: &[Manifest],
) -> Result<Explained, Error> {
    render_with(&loaded.values, Some(&loaded.document), crds)
}

fn render_with(
    values: &Values,
    document: Option<&Node>,
    crds: &[Manifest],
) -> Result<Explained, Error> {
    let plan = Plan::new(values);
    let json = serde_json::to_value(&plan).expect("the plan always serializes");
    let templates = render::observed_templates(record::observe)?;
    let context = record::tracked(json);
    record::reset();
    let mut placed = HashMap::new();
    let mut manifests = Vec::new();
    for names in [&templates.objects, &templates.kata] {
        let rendered = render::render_objects_with(&templates, names, &context, |r| {
            let interpolations = place(&r.text, &r.trace, record::take_emissions());
            let text = r.text.clone();
            placed.insert(
                r.template.clone(),
                Placed {
                    text,
                    interpolations,
                },
            );
        });
        let rendered = rendered.inspect_err(|_| record::reset())?;
        manifests.extend(manifest::collect(rendered)?);
    }
    record::reset();
    manifest::sort(&mut manifests);
    // After the chart's objects, as written, as `render` writes them.
    let extras = crate::pipeline::extra_objects(values, document, Some(crds), &manifests, &[])?;
    let extra = (extras.iter().enumerate())
        .map(|(i, m)| (m.id.clone(), i))
        .collect();
    manifests.extend(extras);
    Ok(Explained {
        manifests,
        placed,
        extra,
    })
}

/// How many interpolations a span of the trace is looked for among: more
/// than any macro call writes.
const LOOK_AHEAD: usize = 4096;

/// Places the interpolations `emitted` in `text`: each one the trace shows
/// (in order, matched by the text it wrote) and, for a macro's output, the
/// interpolations of the macro inside it.
fn place(text: &str, trace: &Trace, mut emitted: Vec<Emission>) -> Vec<Placement> {
    let mut placed = Vec::new();
    let mut next = 0;
    for (range, _, _, raw) in trace.spans() {
        let Some(written) = text.get(range.clone()).filter(|_| !raw) else {
            continue;
        };
        // Output the formatter did not write (a `{% filter %}` block) is
        // left unplaced; the look-ahead keeps that linear.
        let mut ahead = emitted[next..].iter().take(LOOK_AHEAD);
        let Some(at) = ahead.position(|e| e.text == written) else {
            continue;
        };
        let at = next + at;
        if emitted[at].safe {
            let mut from = range.start;
            for inner in &mut emitted[next..at] {
                let Some(found) = (!inner.text.is_empty())
                    .then(|| text[from..range.end].find(&inner.text))
                    .flatten()
                else {
                    continue;
                };
                let start = from + found;
                from = start + inner.text.len();
                placed.push(placement(start..from, inner, true));
            }
        }
        placed.push(placement(range.clone(), &mut emitted[at], false));
        next = at + 1;
    }
    placed
}

fn placement(range: Range<usize>, emission: &mut Emission, inner: bool) -> Placement {
    Placement {
        range,
        reads: std::mem::take(&mut emission.reads),
        whole: emission.whole.take(),
        inner,
    }
}

/// A values node a field came from.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Source {
    /// Its path in the values (`images.buildd.tag`).
    #[serde(serialize_with = "as_text")]
    pub path: KeyPath,
    /// Its value, as merged.
    pub value: serde_json::Value,
    /// Who set it: a file, a `--set` argument, or the built-in default.
    #[serde(skip)]
    pub origin: Origin,
}

fn as_text<S: serde::Serializer>(path: &KeyPath, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(path)
}

/// What `explain` says of an object, or of one of its fields.
#[derive(Debug)]
pub struct Explanation {
    /// The template that rendered the object, relative to `templates/`.
    pub template: Option<String>,
    /// The template line that wrote the field (the object's first line
    /// without a field).
    pub line: Option<usize>,
    /// The field was written by an interpolation inside a macro called
    /// at `line`.
    pub in_macro: bool,
    /// No interpolation wrote the field: it is text of the template.
    pub literal: bool,
    /// The values it came from, in the order read.
    pub sources: Vec<Source>,
}

impl Explained {
    /// Explains `field` (a path that exists in `manifest`, as
    /// [`query::field`] resolves it) or, without one, the whole object:
    /// the values each interpolation that wrote it read, with their
    /// origins in `document` (the merged values).
    pub fn explain(
        &self,
        manifest: &Manifest,
        field: Option<&KeyPath>,
        values: &Values,
        document: &Node,
    ) -> Explanation {
        if manifest.template.is_none()
            && let Some(index) = self.extra.get(&manifest.id)
        {
            // Written as the values hold it: the field is its own source.
            let mut path = KeyPath::root()
                .key(crate::model::extra_objects::KEY)
                .index(*index);
            path.0
                .extend(field.map(|f| f.0.clone()).unwrap_or_default());
            let sources = document
                .at(&path)
                .map(|node| Source {
                    path,
                    value: node.to_json(),
                    origin: node.origin.clone(),
                })
                .into_iter()
                .collect();
            return Explanation {
                template: None,
                line: None,
                in_macro: false,
                literal: false,
                sources,
            };
        }
        let placed = manifest.template.as_ref().and_then(|t| self.placed.get(t));
        let target = field
            .and_then(|f| manifest.node().at(f))
            .unwrap_or(manifest.node());
        let line_col = match &target.origin {
            Origin::At { line, col, .. } => Some((*line as usize, *col as usize)),
            Origin::Default => None,
        };
        let written = line_col.and_then(|(l, c)| {
            manifest
                .trace
                .as_ref()
                .and_then(|t| t.source_of(l, c))
                .map(|(_, line)| line)
        });
        let mut reads = Vec::new();
        let mut literal = true;
        let mut in_macro = false;
        if let Some(placed) = placed {
            match field {
                Some(field) => {
                    let at = line_col.map(|(l, c)| offset(&placed.text, l, c));
                    if let Some(p) = at.and_then(|at| placed.covering(at)) {
                        literal = false;
                        in_macro = p.inner;
                        reads = field_reads(p, manifest, field, &placed.text);
                    }
                }
                None => {
                    literal = false;
                    reads = object_reads(placed, manifest.node());
                }
            }
        }
        Explanation {
            template: manifest.template.clone(),
            line: written,
            in_macro,
            literal,
            sources: sources(&reads, values, document),
        }
    }
}

impl Placed {
    /// The innermost interpolation that wrote byte `at`.
    fn covering(&self, at: usize) -> Option<&Placement> {
        self.interpolations
            .iter()
            .filter(|p| p.range.start <= at && at < p.range.end)
            .min_by_key(|p| p.range.len())
    }
}

/// The byte offset of 1-based `line`:`col` (in characters) of `text`.
fn offset(text: &str, line: usize, col: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    start
        + text[start..]
            .chars()
            .take(col.saturating_sub(1))
            .map(char::len_utf8)
            .sum::<usize>()
}

/// What the interpolation `p` read for `field`: when it wrote a plan
/// collection whole (`labels: {{ w.labels }}`), only what lies at the
/// field's place in it.
fn field_reads(p: &Placement, manifest: &Manifest, field: &KeyPath, text: &str) -> Vec<KeyPath> {
    let Some(whole) = &p.whole else {
        return p.reads.clone();
    };
    // The field's ancestor (or itself) that the interpolation starts.
    let start = (0..=field.0.len()).find(|k| {
        manifest
            .node()
            .at(&KeyPath(field.0[..*k].to_vec()))
            .is_some_and(|n| match &n.origin {
                Origin::At { line, col, .. } => {
                    offset(text, *line as usize, *col as usize) == p.range.start
                }
                Origin::Default => false,
            })
    });
    let Some(start) = start else {
        return p.reads.clone();
    };
    let mut under = whole.clone();
    under.0.extend(field.0[start..].iter().cloned());
    let narrowed: Vec<KeyPath> = p
        .reads
        .iter()
        .filter(|r| r.0.starts_with(&under.0))
        .cloned()
        .collect();
    if narrowed.is_empty() {
        p.reads.clone()
    } else {
        narrowed
    }
}

/// What every interpolation that wrote a node of `node` read.
fn object_reads(placed: &Placed, node: &Node) -> Vec<KeyPath> {
    let mut offsets = Vec::new();
    collect_offsets(node, &placed.text, &mut offsets);
    let mut seen = std::collections::HashSet::new();
    let mut reads = Vec::new();
    for at in offsets {
        for p in placed
            .interpolations
            .iter()
            .filter(|p| p.range.start <= at && at < p.range.end)
        {
            if seen.insert(p.range.clone()) {
                reads.extend(p.reads.iter().cloned());
            }
        }
    }
    reads
}

fn collect_offsets(node: &Node, text: &str, out: &mut Vec<usize>) {
    if let Origin::At { line, col, .. } = &node.origin {
        out.push(offset(text, *line as usize, *col as usize));
    }
    match &node.value {
        Value::Mapping(entries) => entries
            .iter()
            .for_each(|(_, child)| collect_offsets(child, text, out)),
        Value::Sequence(items) => items.iter().for_each(|i| collect_offsets(i, text, out)),
        _ => {}
    }
}

/// The values nodes the plan paths `reads` were derived from, each once,
/// in the order read.
fn sources(reads: &[KeyPath], values: &Values, document: &Node) -> Vec<Source> {
    let mut seen = std::collections::HashSet::new();
    let mut found = Vec::new();
    for read in reads {
        for path in table::values_paths(read, values).unwrap_or_default() {
            if !seen.insert(path.clone()) {
                continue;
            }
            if let Some(node) = document.at(&path) {
                found.push(Source {
                    value: node.to_json(),
                    origin: node.origin.clone(),
                    path,
                });
            }
        }
    }
    found
}

/// The step of a list item by its `name`, as `explain` and `diff` write
/// it (`containers[buildd]`).
pub fn item_name(node: &Node) -> Option<&str> {
    match node.get("name").map(|n| &n.value) {
        Some(Value::String(name)) => Some(name),
        _ => None,
    }
}

/// `path` written with list items by name where they have one
/// (`spec.template.spec.containers[buildd].image`).
pub fn named_path(root: &Node, path: &KeyPath) -> String {
    let mut out = String::new();
    let mut node = Some(root);
    for segment in &path.0 {
        let child = node.and_then(|n| n.at(&KeyPath(vec![segment.clone()])));
        match segment {
            Segment::Index(i) => match child.and_then(item_name) {
                Some(name) => out.push_str(&format!("[{name}]")),
                None => out.push_str(&format!("[{i}]")),
            },
            Segment::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                if key.contains(['.', '[', ']', '"']) || key.is_empty() {
                    out.push_str(&format!("\"{key}\""));
                } else {
                    out.push_str(key);
                }
            }
        }
        node = child;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{Inputs, load};

    /// The repository, whose `values/` the tests read.
    const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

    fn environment(env: &str) -> Values {
        let inputs = Inputs {
            files: vec![
                format!("{ROOT}/values/common.yaml").into(),
                format!("{ROOT}/values/{env}.yaml").into(),
            ],
            sets: Vec::new(),
        };
        load(&inputs).unwrap().values
    }

    /// Every leaf of a plan with everything on (Kata, vCPU tuning,
    /// projects with and without their own resources, common labels and
    /// annotations, digests) has a rule, and every values path a rule
    /// names exists in the values: the table can go stale only by failing.
    #[test]
    fn the_table_classifies_every_leaf_of_the_plan() {
        let mut values = environment("ovh-prod");
        values.kata.vcpu_tuning.enabled = true;
        let json = serde_json::to_value(Plan::new(&values)).unwrap();
        let document = Node::from_json(&serde_json::to_value(&values).unwrap(), &Origin::Default);
        let mut leaves = Vec::new();
        leaves_of(&json, KeyPath::root(), &mut leaves);
        assert!(leaves.len() > 300, "{}", leaves.len());
        for leaf in leaves {
            let paths = table::values_paths(&leaf, &values)
                .unwrap_or_else(|| panic!("no rule for the plan's `{leaf}`"));
            for path in paths {
                assert!(
                    document.at(&path).is_some(),
                    "`{leaf}` → `{path}`, not in the values"
                );
            }
        }
    }

    fn leaves_of(json: &serde_json::Value, path: KeyPath, out: &mut Vec<KeyPath>) {
        match json {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    leaves_of(v, path.key(k.as_str()), out);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    leaves_of(v, path.index(i), out);
                }
            }
            _ => out.push(path),
        }
    }

    /// The values paths the table gives for a plan path written as `diff`
    /// writes paths (`projects[0]` an index).
    fn paths(plan: &str, values: &Values) -> Vec<String> {
        let mut path = KeyPath::parse(plan, kubernetes::location::Syntax::Pattern).unwrap();
        for segment in &mut path.0 {
            if let Segment::Key(k) = segment
                && let Ok(i) = k.parse()
            {
                *segment = Segment::Index(i);
            }
        }
        table::values_paths(&path, values)
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn derived_fields_name_the_values_they_are_built_from() {
        let mut values = environment("ovh-prod");
        assert_eq!(
            paths("buildd.image", &values),
            [
                "images.buildd.repository",
                "images.buildd.tag",
                "images.buildd.digest"
            ]
        );
        assert_eq!(
            paths("daemonImage", &values),
            ["images.buildkitd.repository", "images.buildkitd.tag"]
        );
        values.images.buildd.digest = None;
        assert_eq!(
            paths("buildd.image", &values),
            ["images.buildd.repository", "images.buildd.tag"]
        );
        assert_eq!(
            paths(r#"gateway.labels."app.kubernetes.io/version""#, &values),
            ["images.gateway.tag"]
        );
        assert_eq!(
            paths(
                r#"meta.buildd.labels."app.kubernetes.io/instance""#,
                &values
            ),
            ["releaseName"]
        );
        assert_eq!(
            paths(r#"meta.buildd.labels."app.kubernetes.io/part-of""#, &values),
            Vec::<String>::new()
        );
        assert_eq!(
            paths("meta.buildd.labels.environment", &values),
            ["commonLabels.environment"]
        );
        assert_eq!(
            paths("namespaces.builds.name", &values),
            ["namespaces.builds"]
        );
        assert_eq!(
            paths("values.buildd.replicas", &values),
            ["buildd.replicas"]
        );
        // platform-api sets its own requests; web-frontend takes the default.
        assert_eq!(
            paths("projects[0].resources.requests.cpu", &values),
            ["projects[0].resources.requests.cpu"]
        );
        assert_eq!(
            paths("projects[1].resources.requests.cpu", &values),
            ["builds.daemonResources.requests.cpu"]
        );
        assert_eq!(
            paths("projects[1].project.repository", &values),
            ["projects[1].repository"]
        );
        assert_eq!(paths("crd.group", &values), Vec::<String>::new());
        assert_eq!(
            table::values_paths(&KeyPath::dotted("nothing.here"), &values),
            None
        );
    }

    /// Recording changes nothing of what the templates write: the explain
    /// render of every environment is the render, object for object.
    #[test]
    fn an_explain_render_is_the_render() {
        let mut all = vec![Values::default()];
        for env in ["dev", "ovh-prod"] {
            all.push(environment(env));
        }
        all[0].kata.enabled = true;
        all[0].kata.vcpu_tuning.enabled = true;
        for values in all {
            let explained = render(&values).unwrap();
            let output = crate::pipeline::render(&values).unwrap();
            let rendered = output.in_order(&crate::pipeline::Bundle::ALL);
            assert_eq!(
                manifest::to_stream(&explained.manifests),
                manifest::to_stream(rendered)
            );
        }
    }

    /// `render` pays nothing for `explain`: its formatter reports no
    /// interpolation.
    #[test]
    fn a_render_records_nothing() {
        record::reset();
        crate::pipeline::render(&environment("ovh-prod")).unwrap();
        assert!(record::take_emissions().is_empty());
        render(&environment("ovh-prod")).unwrap();
        let templates = render::observed_templates(record::observe).unwrap();
        let values = Values::default();
        let plan = Plan::new(&values);
        let context = record::tracked(serde_json::to_value(&plan).unwrap());
        render::render_objects_with(&templates, &templates.objects[..1], &context, |_| {}).unwrap();
        assert!(!record::take_emissions().is_empty());
    }

    #[test]
    fn a_string_kept_in_a_variable_is_still_its_leaf() {
        let values = environment("ovh-prod");
        let explained = render(&values).unwrap();
        let document = crate::values::defaults();
        let quota = explained
            .manifests
            .iter()
            .find(|m| m.id.kind == "ResourceQuota")
            .unwrap();
        // builds-limits.yaml: `{% set builds = plan.namespaces.builds.name %}`,
        // written later as `namespace: {{ builds }}`.
        let field = KeyPath::dotted("metadata.namespace");
        let e = explained.explain(quota, Some(&field), &values, &document);
        let named: Vec<String> = e.sources.iter().map(|s| s.path.to_string()).collect();
        assert_eq!(named, ["namespaces.builds"]);
        assert!(!e.literal);
    }
}
