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
use crate::location::{KeyPath, Segment};
use crate::manifest::{self, Manifest, Trace};
use crate::model::Values;
use crate::plan::Plan;
use crate::render;
use crate::yaml::{Node, Origin, Value};

use record::Emission;

/// A render of the chart with the provenance of every interpolation.
pub struct Explained {
    /// Every object of both bundles, in install order.
    pub manifests: Vec<Manifest>,
    /// Each template's output and where its interpolations landed.
    placed: HashMap<String, Placed>,
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
            placed.insert(r.template.clone(), Placed {
                text,
                interpolations,
            });
        });
        let rendered = rendered.inspect_err(|_| record::reset())?;
        manifests.extend(manifest::collect(rendered)?);
    }
    record::reset();
    manifest::sort(&mut manifests);
    Ok(Explained { manifests, placed })
}

/// Places the interpolations `emitted` in `text`: each one the trace shows
/// (in order, matched by the text it wrote) and, for a macro's output, the
/// interpolations of the macro inside it.
fn place(text: &str, trace: &Trace, mut emitted: Vec<Emission>) -> Vec<Placement> {
    let mut placed = Vec::new();
    let mut next = 0;
    for (range, _, _, raw) in &trace.spans {
        let Some(written) = text.get(range.clone()).filter(|_| !raw) else {
            continue;
        };
        let Some(at) = emitted[next..].iter().position(|e| e.text == written) else {
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
        let placed = manifest.template.as_ref().and_then(|t| self.placed.get(t));
        let target = field.and_then(|f| manifest.node.at(f)).unwrap_or(&manifest.node);
        let line_col = match &target.origin {
            Origin::At { line, col, .. } => Some((*line, *col)),
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
                    reads = object_reads(placed, &manifest.node);
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
            .node
            .at(&KeyPath(field.0[..*k].to_vec()))
            .is_some_and(|n| match &n.origin {
                Origin::At { line, col, .. } => offset(text, *line, *col) == p.range.start,
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
        out.push(offset(text, *line, *col));
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
