//! Loading values: read `-f` files, merge them, apply `--set`, validate,
//! deserialize, check the rules.
//!
//! The first pipeline stage. Its output, [`Loaded`], is trusted: the values
//! passed the schema, deserialized into [`Values`], and broke no rule.
//! Merging follows Helm: mappings merge key by key, anything else (lists
//! included) is replaced, and later input wins. Every node keeps the origin of
//! the input that last wrote it, so a problem points at the file that caused it.

mod pins;
mod repair;
mod set;

use std::io::Read as _;
use std::path::{Path, PathBuf};

pub use set::{MAX_SET_FILE_BYTES, Override, SetArg, SetKind};

use crate::diagnostic::{KeyPath, Problem, Segment};
use crate::error::Error;
use crate::model::{Values, rules};
use crate::schema;
use crate::yaml::{self, Limits, Node, Origin, Source, Value};

/// Where values come from: files in order, then the set flags in
/// command-line order.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// Values files, later ones winning; `-` is standard input (once).
    pub files: Vec<PathBuf>,
    /// `KEY.PATH=VALUE` overrides of every set flag, applied after the files.
    pub sets: Vec<SetArg>,
}

impl Inputs {
    /// How many `KEY=VALUE` pairs the set flags give ([`SetArg::pairs`]):
    /// `--set a=1,b=2` is two.
    pub fn set_pairs(&self) -> usize {
        (self.sets.iter())
            .map(|set| set.pairs().map_or(1, |pairs| pairs.len()))
            .sum()
    }
}

/// How a message names values read from standard input (`-f -`).
pub const STDIN_NAME: &str = "<stdin>";

/// Values that passed every check, with the merged document they came from.
#[derive(Debug)]
pub struct Loaded {
    /// The typed values.
    pub values: Values,
    /// The merged YAML document, with the origin of every node.
    pub document: Node,
}

/// Most set pairs (of every set flag) in one run: each walks the document, so their
/// cost would grow with their number squared; a values file has no such
/// limit (its keys are merged through an index).
pub const MAX_SET_ARGUMENTS: usize = 1_000;

/// Reads, merges, validates and checks the values: every problem of the
/// schema and of the rules in one run.
pub fn load(inputs: &Inputs) -> Result<Loaded, Error> {
    let (document, pins, deleted) = merged(inputs)?;
    let json = document.to_json();
    let mut schema_problems = schema::validate(&document, &json);
    explain_deletions(&mut schema_problems, &deleted);
    let (values, reset) = if schema_problems.is_empty() {
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
        (Some(values), std::collections::HashSet::new())
    } else {
        // The rules run on the parts that passed, the others at their
        // defaults; nothing is said twice about one key.
        repair::repaired(json, &schema_problems)
    };
    let mut problems = schema_problems;
    let rule_problems = values
        .as_ref()
        .map(|values| rule_problems(values, &document, &reset))
        .unwrap_or_default();
    problems.extend(
        rule_problems
            .into_iter()
            .chain(pins.problems(&document))
            .filter(|problem| !repair::covered(&problem.path, &reset)),
    );
    in_input_order(&mut problems, inputs);
    unquote_set_files(&mut problems, &document);
    match values {
        Some(values) if problems.is_empty() => Ok(Loaded { values, document }),
        _ => Err(Error::InvalidValues { problems }),
    }
}

/// The keys a null deleted: each path, and where the null was written.
type Deleted = Vec<(KeyPath, Origin)>;

/// The defaults, the files and the set flags merged into one document,
/// with the pins each layer made and the keys nulls deleted.
fn merged(inputs: &Inputs) -> Result<(Node, pins::Pins, Deleted), Error> {
    let mut document = defaults();
    let mut pins = pins::Pins::default();
    pins.observe(&document);
    let mut problems = Vec::new();
    if let Some(second) = inputs.files.iter().filter(|p| is_stdin(p)).nth(1) {
        return Err(Error::ReadValues {
            path: second.clone(),
            source: std::io::Error::other("standard input is read once: give `-f -` at most once"),
        });
    }
    for path in &inputs.files {
        match read_file(path)? {
            Ok(mut layer) => {
                schema::strings_as_written(&mut layer);
                merge(&mut document, layer);
                pins.observe(&document);
            }
            Err(problem) => problems.push(problem),
        }
    }
    if !problems.is_empty() {
        return Err(Error::InvalidValues { problems });
    }
    let mut pairs = Vec::new();
    for set in &inputs.sets {
        pairs.extend(set.pairs()?);
    }
    if let Some(set) = pairs.get(MAX_SET_ARGUMENTS) {
        // The budget counts the pairs of every set flag together.
        let which = if pairs.iter().all(|s| s.kind == SetKind::Yaml) {
            "--set"
        } else {
            "set flag"
        };
        return Err(Error::SetSyntax {
            flag: set.kind.flag(),
            arg: set.arg.clone(),
            reason: format!(
                "more than {MAX_SET_ARGUMENTS} {which} pairs, past the budget; put the values in a file (-f) instead"
            ),
        });
    }
    for set in &pairs {
        Override::read(set)?.apply(&mut document)?;
    }
    // Helm's rule: a key set to null in a layer (or by `--set KEY=null`)
    // deletes it, with what the layers below, the defaults included, gave it.
    let mut deleted = Vec::new();
    drop_nulls(&mut document, &mut KeyPath::root(), &mut deleted);
    if !inputs.sets.is_empty() {
        // The nodes of the files and defaults have no source text left to
        // keep: only those the arguments wrote change.
        schema::strings_as_written(&mut document);
    }
    // The set flags are one layer: a tag and digest set together there
    // are one choice.
    pins.observe(&document);
    Ok((document, pins, deleted))
}

/// The rules' violations, each at the first of its keys the user wrote
/// (else at the nearest node above its key);
/// none that involves a key `reset` after a schema problem (its default
/// stood in for what the user wrote).
fn rule_problems(
    values: &Values,
    document: &Node,
    reset: &std::collections::HashSet<KeyPath>,
) -> Vec<Problem> {
    rules::check(values)
        .into_iter()
        .filter(|violation| {
            !std::iter::once(&violation.path)
                .chain(&violation.also)
                .any(|path| repair::covered(path, reset))
        })
        .map(|violation| {
            let written = std::iter::once(&violation.path)
                .chain(&violation.also)
                .find_map(|path| {
                    document
                        .at(path)
                        .filter(|node| node.origin != Origin::Default)
                        .map(|node| (path.clone(), node.origin.clone()))
                });
            // A key the rule wants but nobody wrote (`values` of an `In`
            // requirement): at the nearest node above it the user wrote.
            let (path, origin) = written.unwrap_or_else(|| {
                let origin = document.nearest(&violation.path).origin.clone();
                (violation.path, origin)
            });
            Problem {
                origin,
                path,
                message: violation.message,
                hint: violation.hint,
            }
        })
        .collect()
}

/// The built-in defaults as the bottom layer, so that a file or `--set` may
/// change one key of a default (`images.buildd.tag`) and keep the rest.
pub fn defaults() -> Node {
    let json = serde_json::to_value(Values::default()).expect("the values always serialize");
    Node::from_json(&json, &Origin::Default)
}

/// The shortest `--set-file` text hidden also where a message embeds it
/// in a longer quote.
const MIN_HIDDEN_CHARS: usize = 6;

/// A `--set-file` file's text is never quoted back: it could be any file
/// (a key, a token). A problem at such a value names the file instead.
fn unquote_set_files(problems: &mut [Problem], document: &Node) {
    for problem in problems {
        let Origin::At { source, .. } = &problem.origin else {
            continue;
        };
        let Some(path) = source.name.strip_prefix(SetKind::File.flag()) else {
            continue;
        };
        let Some(Value::String(text)) = document.at(&problem.path).map(|n| &n.value) else {
            continue;
        };
        if text.is_empty() {
            continue;
        }
        let path = path.trim_start().split_once('=').map_or(path, |(_, p)| p);
        let shown = format!("<the text of {path}>");
        let json = serde_json::Value::from(text.as_str()).to_string();
        let quoted = format!("`{text}`");
        for line in std::iter::once(&mut problem.message).chain(problem.hint.as_mut()) {
            *line = line.replace(&json, &shown).replace(&quoted, &shown);
            // Inside a longer quote (an image reference); a short text
            // could be any word of the message, and hides little.
            if text.chars().count() >= MIN_HIDDEN_CHARS {
                *line = line.replace(text.as_str(), &shown);
            }
        }
    }
}

/// Sorts problems as the user wrote the input: file by file in `-f` order,
/// line by line, then the `--set` arguments, then built-in defaults.
fn in_input_order(problems: &mut [Problem], inputs: &Inputs) {
    let names: Vec<String> = inputs
        .files
        .iter()
        .map(|path| source_name(path))
        .chain(inputs.sets.iter().map(SetArg::name))
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

fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How messages name a values file: as given, or `<stdin>` for `-`.
fn source_name(path: &Path) -> String {
    if is_stdin(path) {
        STDIN_NAME.to_owned()
    } else {
        path.display().to_string()
    }
}

/// Reads one values file (`-`: standard input): `Err` for a file that
/// cannot be read at all, an inner `Err` for a file whose content is not a
/// values mapping.
fn read_file(path: &Path) -> Result<Result<Node, Problem>, Error> {
    let name = source_name(path);
    let read_error = |source| Error::ReadValues {
        path: path.to_owned(),
        source,
    };
    let limit = Limits::VALUES.max_bytes as u64 + 1;
    let mut bytes = Vec::new();
    if is_stdin(path) {
        std::io::stdin()
            .lock()
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(read_error)?;
    } else {
        // Named by the user: a link is followed; a FIFO, socket or device
        // is refused, never waited on.
        let file = crate::files::open_regular(path, true).map_err(read_error)?;
        file.take(limit)
            .read_to_end(&mut bytes)
            .map_err(read_error)?;
    }
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

/// Removes every mapping entry whose value is null, in mappings at any
/// depth, into `deleted` (its path, and where the null was written): once
/// the layers are merged, a null is a deletion (Helm's rule), never a
/// value. Lists are values, as Helm keeps them: nothing inside one is
/// dropped (a null there is the schema's to judge).
pub fn drop_nulls(node: &mut Node, at: &mut KeyPath, deleted: &mut Deleted) {
    let Value::Mapping(entries) = &mut node.value else {
        return;
    };
    entries.retain(|(key, value)| {
        let null = matches!(value.value, Value::Null);
        // A default's null is only "unset": no one wrote it.
        if null && value.origin != Origin::Default {
            deleted.push((at.key(key.name.clone()), value.origin.clone()));
        }
        !null
    });
    for (key, value) in entries {
        at.0.push(Segment::Key(key.name.clone()));
        drop_nulls(value, at, deleted);
        at.0.pop();
    }
}

/// A key the schema misses because a null deleted it is named where the
/// null was written, with why: `tag: ~` or an empty `tag:` deletes the key.
fn explain_deletions(problems: &mut [Problem], deleted: &[(KeyPath, Origin)]) {
    for problem in problems {
        let Some(key) =
            (problem.message.strip_prefix("missing key `")).and_then(|rest| rest.strip_suffix('`'))
        else {
            continue;
        };
        let path = problem.path.key(key.to_owned());
        if let Some((_, origin)) = deleted.iter().find(|(at, _)| *at == path) {
            problem.origin = origin.clone();
            problem.message = format!(
                "a null (`~`, `null` or nothing) deletes the key, as in Helm, and `{key}` is required"
            );
            problem.path = path;
            problem.hint = Some("quote it (\"~\") to keep the text, or give a value".to_owned());
        }
    }
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
