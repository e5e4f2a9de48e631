//! Loading values: read `-f` files, merge them, apply `--set`, validate,
//! deserialize, check the rules.
//!
//! The first pipeline stage. Its output, [`Loaded`], is trusted: the values
//! passed the schema, deserialized into [`Values`], and broke no rule.
//! Merging follows Helm: mappings merge key by key, anything else (lists
//! included) is replaced, and later input wins. Every node keeps the origin of
//! the input that last wrote it, so a problem points at the file that caused it.

mod pins;
mod set;

use std::io::Read as _;
use std::path::{Path, PathBuf};

pub use set::Override;

use crate::diagnostic::{KeyPath, Problem};
use crate::error::Error;
use crate::model::{Values, rules};
use crate::schema;
use crate::yaml::{self, Limits, Node, Origin, Source, Value};

/// Where values come from: files in order, then `--set` arguments in order.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// Values files, later ones winning.
    pub files: Vec<PathBuf>,
    /// `KEY.PATH=VALUE` overrides, applied after the files.
    pub sets: Vec<String>,
}

/// Values that passed every check, with the merged document they came from.
#[derive(Debug)]
pub struct Loaded {
    /// The typed values.
    pub values: Values,
    /// The merged YAML document, with the origin of every node.
    pub document: Node,
}

/// Most `--set` arguments in one run: each one walks the document, so their
/// cost would grow with their number squared; a values file has no such
/// limit (its keys are merged through an index).
pub const MAX_SET_ARGUMENTS: usize = 1_000;

/// Reads, merges, validates and checks the values.
pub fn load(inputs: &Inputs) -> Result<Loaded, Error> {
    let mut document = defaults();
    let mut pins = pins::Pins::default();
    pins.observe(&document);
    let mut problems = Vec::new();
    for path in &inputs.files {
        match read_file(path)? {
            Ok(layer) => {
                merge(&mut document, layer);
                pins.observe(&document);
            }
            Err(problem) => problems.push(problem),
        }
    }
    if !problems.is_empty() {
        return Err(Error::InvalidValues { problems });
    }
    if let Some(arg) = inputs.sets.get(MAX_SET_ARGUMENTS) {
        return Err(Error::SetSyntax {
            arg: arg.clone(),
            reason: format!(
                "{} --set arguments, past the budget of {MAX_SET_ARGUMENTS}; put the values in a file (-f) instead",
                inputs.sets.len()
            ),
        });
    }
    for arg in &inputs.sets {
        Override::parse(arg)?.apply(&mut document)?;
    }
    // The --set arguments are one layer: a tag and digest set together
    // there are one choice.
    pins.observe(&document);
    let json = document.to_json();
    let mut problems = schema::validate(&document, &json);
    in_input_order(&mut problems, inputs);
    if !problems.is_empty() {
        return Err(Error::InvalidValues { problems });
    }
    let values: Values = serde_json::from_value(json).map_err(|e| {
        // The schema is generated from these types, so this means the two disagree.
        Error::InvalidValues {
            problems: vec![Problem::new(
                document.origin.clone(),
                KeyPath::root(),
                format!("the values passed the schema but do not fit the model: {e}"),
            )],
        }
    })?;
    let mut problems: Vec<Problem> = rules::check(&values)
        .into_iter()
        .map(|violation| {
            let written = std::iter::once(&violation.path)
                .chain(&violation.also)
                .find_map(|path| {
                    document
                        .at(path)
                        .filter(|node| node.origin != Origin::Default)
                        .map(|node| (path.clone(), node.origin.clone()))
                });
            let (path, origin) = written.unwrap_or((violation.path, Origin::Default));
            Problem {
                origin,
                path,
                message: violation.message,
                hint: violation.hint,
            }
        })
        .collect();
    problems.extend(pins.problems(&document));
    in_input_order(&mut problems, inputs);
    if !problems.is_empty() {
        return Err(Error::InvalidValues { problems });
    }
    Ok(Loaded { values, document })
}

/// The built-in defaults as the bottom layer, so that a file or `--set` may
/// change one key of a default (`images.buildd.tag`) and keep the rest.
pub fn defaults() -> Node {
    let json = serde_json::to_value(Values::default()).expect("the values always serialize");
    Node::from_json(&json, &Origin::Default)
}

/// Sorts problems as the user wrote the input: file by file in `-f` order,
/// line by line, then the `--set` arguments, then built-in defaults.
fn in_input_order(problems: &mut [Problem], inputs: &Inputs) {
    let names: Vec<String> = inputs
        .files
        .iter()
        .map(|path| path.display().to_string())
        .chain(inputs.sets.iter().map(|arg| format!("--set {arg}")))
        .collect();
    problems.sort_by_key(|problem| match &problem.origin {
        Origin::At {
            source, line, col, ..
        } => (
            names
                .iter()
                .position(|n| *n == source.name)
                .unwrap_or(names.len()),
            *line,
            *col,
        ),
        Origin::Default => (usize::MAX, 0, 0),
    });
}

/// Reads one values file: `Err` for a file that cannot be read at all, an
/// inner `Err` for a file whose content is not a values mapping.
fn read_file(path: &Path) -> Result<Result<Node, Problem>, Error> {
    let name = path.display().to_string();
    let read_error = |source| Error::ReadValues {
        path: path.to_owned(),
        source,
    };
    // Named by the user: a link is followed; a FIFO, socket or device is
    // refused, never waited on.
    let file = crate::files::open_regular(path, true).map_err(read_error)?;
    let limit = Limits::VALUES.max_bytes;
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    let at_start = |source| Origin::At {
        source,
        line: 1,
        col: 1,
        width: 1,
    };
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count();
            let source = Source::file(name, String::from_utf8_lossy(e.as_bytes()).into_owned());
            return Ok(Err(Problem::new(
                Origin::At {
                    source,
                    line,
                    col: 1,
                    width: 1,
                },
                KeyPath::root(),
                "the file is not UTF-8 text",
            )));
        }
    };
    let source = Source::file(name, text);
    let node = match yaml::parse_document(&source, Limits::VALUES) {
        Ok(Some(node)) => node,
        Ok(None) => return Ok(Ok(Node::empty_mapping(at_start(source)))),
        Err(e) => {
            let mut problem = Problem::new(e.origin, KeyPath::root(), e.message);
            problem.hint = e.hint;
            return Ok(Err(problem));
        }
    };
    Ok(match node.value {
        Value::Mapping(_) => Ok(node),
        // A file of comments only is an empty document.
        Value::Null => Ok(Node::empty_mapping(node.origin)),
        _ => {
            let found = node.value.type_name();
            Err(Problem::new(
                node.origin,
                KeyPath::root(),
                format!("a values file must be a mapping of keys, found {found}"),
            ))
        }
    })
}

/// Merges `layer` into `base`: mappings key by key, everything else replaced.
pub fn merge(base: &mut Node, layer: Node) {
    match (&mut base.value, layer.value) {
        (Value::Mapping(entries), Value::Mapping(layer_entries)) => {
            let mut index: std::collections::HashMap<String, usize> = entries
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.name.clone(), i))
                .collect();
            for (key, value) in layer_entries {
                match index.get(&key.name) {
                    Some(&at) => {
                        let (existing_key, existing) = &mut entries[at];
                        *existing_key = key;
                        merge(existing, value);
                    }
                    None => {
                        index.insert(key.name.clone(), entries.len());
                        entries.push((key, value));
                    }
                }
            }
            base.origin = layer.origin;
        }
        (_, value) => {
            *base = Node {
                value,
                origin: layer.origin,
                plain: layer.plain,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(name: &str, text: &str) -> Node {
        yaml::parse_document(&Source::file(name, text), Limits::VALUES)
            .unwrap()
            .unwrap()
    }

    #[test]
    fn maps_merge_lists_replace_later_wins() {
        let mut base = doc("a.yaml", "x: {p: 1, q: [1, 2]}\ny: keep\n");
        merge(&mut base, doc("b.yaml", "x: {p: 2, q: [3]}\nz: new\n"));
        assert_eq!(
            base.to_json(),
            json!({"x": {"p": 2, "q": [3]}, "y": "keep", "z": "new"})
        );
        let p = base.at(&KeyPath::dotted("x.p")).unwrap();
        assert_eq!(p.origin.to_string(), "b.yaml:1:8");
        let y = base.at(&KeyPath::dotted("y")).unwrap();
        assert_eq!(y.origin.to_string(), "a.yaml:2:4");
    }
}
