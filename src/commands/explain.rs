//! `chartgen explain OBJECT[.field.path]`: the rendered value, the
//! template line that wrote it, and the values it came from, each with who
//! set it (a file's line and column, a set flag's argument, or the built-in
//! default). Without a field: the object's template and every values key
//! that went into it.

use crate::args::{ExplainArgs, ExplainFormat};
use chart::provenance::{self, Explanation, Source, query};
use chart::values::{self, SetKind};
use kubernetes::exit::Exit;
use kubernetes::location::Origin;
use kubernetes::manifest::Manifest;
use kubernetes::text::{clip, json_pretty, printable};
use kubernetes::{emit, secret};

/// Most characters of a value shown on one line.
const VALUE_SHOWN: usize = 160;

/// Renders with the values flags and explains the target; exits 2 when
/// the object or the field does not exist, naming the closest ones.
pub fn run(args: &ExplainArgs) -> anyhow::Result<Exit> {
    if args.target.len() > query::MAX_ARGUMENT {
        // Refused before any work; `query::object` says why.
        query::object(&[], &args.target)?;
    }
    let loaded = values::load(&args.values.inputs())?;
    let crds = super::render::crds(&args.crds)?;
    let explained = provenance::render_loaded(&loaded, &crds)?;
    let (manifest, field) = query::object(&explained.manifests, &args.target)?;
    let path = field.map(|f| query::field(manifest, f)).transpose()?;
    let explanation = explained.explain(manifest, path.as_ref(), &loaded.values, &loaded.document);
    let field = path.as_ref().map(|p| {
        let node = manifest.node().at(p).unwrap_or(manifest.node());
        (provenance::named_path(manifest.node(), p), node.to_json())
    });
    let shown = Shown {
        manifest,
        field,
        explanation: &explanation,
        hidden: secret::could_be_secret_kind(
            manifest.node().get("kind").map(|k| k.to_json()).as_ref(),
        ),
    };
    let text = match args.output {
        ExplainFormat::Text => shown.text(),
        ExplainFormat::Json => json_pretty(&shown.json())? + "\n",
    };
    super::print_stdout(&text)?;
    super::leave_to_exit((loaded, explained));
    Ok(Exit::Success)
}

/// What is printed.
struct Shown<'a> {
    manifest: &'a Manifest,
    /// The field as written with list items by name, and its value.
    field: Option<(String, serde_json::Value)>,
    explanation: &'a Explanation,
    /// The object could be a Secret: no value is shown.
    hidden: bool,
}

/// A value on one line: as YAML writes it, escaped, clipped.
fn one_line(value: &serde_json::Value) -> String {
    printable(&clip(&emit::flow(value), VALUE_SHOWN)).into_owned()
}

/// A `--set-file` value is a file's text: never shown (it could be a key).
fn from_set_file(origin: &Origin) -> bool {
    matches!(origin, Origin::At { source, .. } if source.name.starts_with(SetKind::File.flag()))
}

/// Who set a values node, in words. A set flag is named by its argument
/// whole where its value is `shown` beside it, else by its key
/// (`--set KEY=…`), as errors name it.
fn set_by(origin: &Origin, shown: bool) -> String {
    match origin {
        Origin::Default => "built-in default".to_owned(),
        Origin::At { source, .. } if source.is_argument && shown => {
            printable(&argument(source)).into_owned()
        }
        _ => printable(&origin.to_string()).into_owned(),
    }
}

/// A set flag's argument as given: its flag, then the pair it holds
/// (`--set buildd.replicas=5`).
fn argument(source: &kubernetes::location::Source) -> String {
    let flag = source.name.split(' ').next().unwrap_or_default();
    format!("{flag} {}", source.text)
}

impl Shown<'_> {
    /// Whether the field's value may be printed: not hidden, and built
    /// from no `--set-file` text (a file's text is never quoted back).
    fn value_shown(&self) -> bool {
        !self.hidden
            && !(self.explanation.sources.iter()).any(|source| from_set_file(&source.origin))
    }

    fn text(&self) -> String {
        let e = self.explanation;
        let mut out = printable(&self.manifest.id.to_string()).into_owned();
        let template = e.template.as_deref().unwrap_or("?");
        let at = e.line.map_or(String::new(), |l| format!(":{l}"));
        match &self.field {
            Some((path, value)) => {
                out += &format!("\n  field: {}", printable(path));
                if self.value_shown() {
                    out += &format!("\n  value: {}", one_line(value));
                } else if !self.hidden {
                    out += "\n  value: (not shown: it holds the text of a --set-file file)";
                }
                let how = if e.literal {
                    " (written in the template: no values)"
                } else if e.in_macro {
                    " (by a macro it calls)"
                } else {
                    ""
                };
                match &e.template {
                    Some(_) => out += &format!("\n  written by: templates/{template}{at}{how}"),
                    None => out += "\n  written by: the values, as written (extraObjects)",
                }
            }
            None => match &e.template {
                Some(_) => out += &format!("\n  template: templates/{template}{at}"),
                None => {
                    out +=
                        "\n  template: none: an extraObjects entry, written as the values hold it"
                }
            },
        }
        if e.sources.is_empty() {
            // Written by an interpolation, yet from no values: the plan's own.
            let why = if e.literal {
                ""
            } else {
                " (fixed by the chart)"
            };
            out += &format!("\n  values: none{why}\n");
            return out;
        }
        out += "\n  values:";
        for source in &e.sources {
            out += &format!("\n    {}", printable(&source.path.to_string()));
            let shown = !self.hidden && !from_set_file(&source.origin);
            if shown {
                out += &format!(": {}", one_line(&source.value));
            }
            out += &format!("  ({})", set_by(&source.origin, shown));
        }
        out.push('\n');
        out
    }

    fn json(&self) -> serde_json::Value {
        let e = self.explanation;
        let id = &self.manifest.id;
        let api_version = if id.group.is_empty() {
            id.version.clone()
        } else {
            format!("{}/{}", id.group, id.version)
        };
        let (field, value) = match &self.field {
            Some((path, value)) if self.value_shown() => (Some(path.clone()), Some(value.clone())),
            Some((path, _)) => (Some(path.clone()), None),
            None => (None, None),
        };
        serde_json::json!({
            "object": {
                "apiVersion": api_version,
                "kind": id.kind,
                "namespace": id.namespace,
                "name": id.name,
            },
            "field": field,
            "value": value,
            "template": {
                "file": e.template.as_ref().map(|t| format!("templates/{t}")),
                "line": e.line,
            },
            "literal": e.literal,
            "inMacro": e.in_macro,
            "values": e.sources.iter().map(|s| self.source_json(s)).collect::<Vec<_>>(),
        })
    }

    fn source_json(&self, source: &Source) -> serde_json::Value {
        let shown = !self.hidden && !from_set_file(&source.origin);
        let origin = match &source.origin {
            Origin::Default => serde_json::json!({"kind": "default"}),
            Origin::At { source: s, .. } if s.is_argument => {
                let named = if shown { argument(s) } else { s.name.clone() };
                serde_json::json!({"kind": "argument", "argument": named})
            }
            Origin::At {
                source: s,
                line,
                col,
                ..
            } => serde_json::json!({"kind": "file", "file": s.name, "line": line, "column": col}),
        };
        serde_json::json!({
            "path": source.path.to_string(),
            "value": if shown { source.value.clone() } else { serde_json::Value::Null },
            "origin": origin,
        })
    }
}
