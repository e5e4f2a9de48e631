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

use std::collections::{HashMap, HashSet};
use std::io::Read as _;
use std::path::{Path, PathBuf};

use serde::Deserialize as _;
use serde_json::Value as Json;

pub use set::{MAX_SET_FILE_BYTES, Override, SetArg, SetKind};

use crate::error::Error;
use crate::model::{Values, rules};
use crate::schema;
use kubernetes::diagnostic::Problem;
use kubernetes::json::Field as _;
use kubernetes::location::Origin;
use kubernetes::location::{KeyPath, Segment};
use kubernetes::withhold::Withheld;
use kubernetes::yaml::{self, Limits, Node, Value};

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
    load_on(inputs, kubernetes::parallel)
}

/// [`load`]; `beside` says, from the number of projects, whether the
/// schema is checked on a second core while the values are read into
/// their types. That reading is kept only if the schema passes, and the
/// rules run after it, as before (they judge values the schema passed):
/// what is said, and in which order, is the same either way.
fn load_on(inputs: &Inputs, beside: fn(usize) -> bool) -> Result<Loaded, Error> {
    let (document, pins, deleted) = merged(inputs)?;
    let json = document.to_json();
    let projects = json.field("projects").as_array().map_or(0, Vec::len);
    let (mut schema_problems, ahead) = if beside(projects) {
        let (ahead, schema) = kubernetes::beside(
            || typed(&json, &document),
            || schema::validate(&document, &json),
        );
        (schema, Some(ahead))
    } else {
        (schema::validate(&document, &json), None)
    };
    explain_deletions(&mut schema_problems, &deleted);
    schema_problems
        .extend((deleted.iter()).filter_map(|(path, _, key)| schema::unknown_deleted(path, key)));
    let (values, broken_rules, reset) = if schema_problems.is_empty() {
        let values = match ahead {
            Some(ahead) => ahead?,
            None => typed(&json, &document)?,
        };
        let problems = rule_problems(&values, &document, &HashSet::new());
        (Some(values), problems, HashSet::new())
    } else {
        // The rules run on the parts that passed, the others at their
        // defaults; nothing is said twice about one key.
        let (values, reset) = repair::repaired(json, &schema_problems);
        let problems = values
            .as_ref()
            .map(|values| rule_problems(values, &document, &reset))
            .unwrap_or_default();
        (values, problems, reset)
    };
    let mut problems = schema_problems;
    problems.extend(
        broken_rules
            .into_iter()
            .chain(pins.problems(&document))
            .filter(|problem| !repair::covered(&problem.path, &reset)),
    );
    in_input_order(&mut problems, inputs);
    unquote_set_files(&mut problems, &document);
    note_set_file_line_breaks(&mut problems, &document);
    unquote_set_values(&mut problems, &document);
    match values {
        Some(values) if problems.is_empty() => Ok(Loaded { values, document }),
        _ => Err(Error::InvalidValues { problems }),
    }
}

/// The values of `json`, which passed the schema, in their types.
fn typed(json: &Json, document: &Node) -> Result<Values, Error> {
    Values::deserialize(json).map_err(|e| {
        // The schema is generated from these types, so this means the two disagree.
        Error::InvalidValues {
            problems: vec![Problem::new(
                document.origin.clone(),
                KeyPath::root(),
                format!("the values passed the schema but do not fit the model: {e}"),
            )],
        }
    })
}

/// The keys a null deleted: each path, where the null was written and
/// where its key was.
type Deleted = Vec<(KeyPath, Origin, Origin)>;

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
                problems.extend(merge(&mut document, layer));
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
            arg: set.shown(),
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
fn rule_problems(values: &Values, document: &Node, reset: &HashSet<KeyPath>) -> Vec<Problem> {
    rules::check(values)
        .into_iter()
        .chain(crate::plan::rules::check(values))
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
            // A breach of the key itself is shown where the key is.
            let written = written.map(|(path, origin)| match violation.at_key {
                true => {
                    let key = key_origin(document, &path);
                    (path, key.unwrap_or(origin))
                }
                false => (path, origin),
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
                secret: false,
            }
        })
        .collect()
}

/// Where the last key of `path` is written in `document`, if it is a
/// mapping's key there.
fn key_origin(document: &Node, path: &KeyPath) -> Option<Origin> {
    let (Segment::Key(key), parent) = path.0.split_last()? else {
        return None;
    };
    let (written, _) = document.at(&KeyPath(parent.to_vec()))?.entry(key)?;
    Some(written.origin.clone())
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
    at_set_file_texts(problems, document, |problem, path, text| {
        if text.is_empty() {
            return;
        }
        let shown = format!("<the text of {path}>");
        let json = serde_json::Value::from(text).to_string();
        let quoted = format!("`{text}`");
        for line in std::iter::once(&mut problem.message).chain(problem.hint.as_mut()) {
            *line = line.replace(&json, &shown).replace(&quoted, &shown);
            // Inside a longer quote (an image reference); a short text
            // could be any word of the message, and hides little.
            if text.chars().count() >= MIN_HIDDEN_CHARS {
                *line = line.replace(text, &shown);
            }
        }
    });
}

/// Calls `each` with every problem at a `--set-file` value, the file's
/// path as the argument names it and the text it read.
fn at_set_file_texts(
    problems: &mut [Problem],
    document: &Node,
    mut each: impl FnMut(&mut Problem, &str, &str),
) {
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
        let path = path.trim_start().split_once('=').map_or(path, |(_, p)| p);
        let (path, text) = (path.to_owned(), text.clone());
        each(problem, &path, &text);
    }
}

/// A `--set-file` value is the file's text as it is, its last line break
/// included, as Helm reads it: `echo info > level.txt` writes `info` and a
/// line break. A problem at such a value whose text is one line ending in
/// a break says so, the likely difference, without quoting the text.
fn note_set_file_line_breaks(problems: &mut [Problem], document: &Node) {
    at_set_file_texts(problems, document, |problem, path, text| {
        let line = text.trim_end_matches(['\n', '\r']);
        if line.len() == text.len() || line.contains(['\n', '\r']) {
            return;
        }
        let note = format!(
            "the text of {path} ends with a line break, which --set-file keeps (as Helm does): write the file without it (printf, not echo), or give the value with --set"
        );
        problem.hint = Some(match problem.hint.take() {
            Some(hint) => format!("{hint}; {note}"),
            None => note,
        });
    });
}

/// No problem quotes a value a set flag wrote, whoever wrote the message
/// (the schema, a rule, the pins): the argument is named by its key
/// (`--set buildd.logLevel=…`), and what a message or hint quotes of the
/// value, whole, cut short or in part, becomes `…`, as does the value
/// written anywhere else in it ([`Withheld`]). A quoted key of the
/// problem's own path stays (`unknown key `logLevl``): the path names it
/// anyway. Booleans and null are not withheld: a message names the type,
/// which says as much. A `--set-file` text is first named by its file
/// (`unquote_set_files`).
pub fn unquote_set_values(problems: &mut [Problem], document: &Node) {
    mark_secret_entries(problems, document);
    let withheld = withheld(document);
    if withheld.is_empty() {
        return;
    }
    for problem in problems {
        let keys: Vec<&str> = (problem.path.0.iter())
            .filter_map(|segment| match segment {
                Segment::Key(key) => Some(key.as_str()),
                Segment::Index(_) => None,
            })
            .collect();
        let mut lines: Vec<&mut String> = std::iter::once(&mut problem.message)
            .chain(problem.hint.as_mut())
            .collect();
        withheld.withhold(&mut lines, |stretch| keys.contains(&stretch));
    }
}

/// Marks each problem about an `extraObjects` entry whose merged value
/// could hold a Secret ([`Problem::secret`], as `diff` would hide it): the
/// text of the file at the problem's place may not say so, as when a set
/// flag made the entry a Secret.
fn mark_secret_entries(problems: &mut [Problem], document: &Node) {
    let Some(Value::Sequence(entries)) = document
        .get(crate::model::extra_objects::KEY)
        .map(|list| &list.value)
    else {
        return;
    };
    let mut judged: HashMap<usize, bool> = HashMap::new();
    for problem in problems {
        let [Segment::Key(key), Segment::Index(index), ..] = problem.path.0.as_slice() else {
            continue;
        };
        if key != crate::model::extra_objects::KEY {
            continue;
        }
        let Some(entry) = entries.get(*index) else {
            continue;
        };
        problem.secret |= *judged.entry(*index).or_insert_with(|| {
            let json = entry.to_json();
            kubernetes::secret::redacted(&json) != json
        });
    }
}

/// What no message may quote of the values in `document`: the scalars
/// the set flags wrote ([`unquote_set_values`]).
pub fn withheld(document: &Node) -> Withheld {
    let mut texts = Vec::new();
    set_texts(document, &mut texts);
    Withheld::new(texts)
}

/// The texts of the scalars of `node` that a set flag wrote: a string, a
/// number as written and as it reads (`0644`, `420`).
fn set_texts(node: &Node, texts: &mut Vec<String>) {
    match &node.value {
        Value::Sequence(items) => items.iter().for_each(|item| set_texts(item, texts)),
        Value::Mapping(entries) => entries
            .iter()
            .for_each(|(_, value)| set_texts(value, texts)),
        Value::Null | Value::Bool(_) => {}
        scalar => {
            if !matches!(&node.origin, Origin::At { source, .. } if source.is_argument) {
                return;
            }
            if let Value::String(text) = scalar {
                texts.push(text.clone());
            } else {
                texts.push(node.to_json().to_string());
            }
            texts.extend(node.plain.as_deref().cloned());
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
        let file = kubernetes::files::open_regular(path, true).map_err(read_error)?;
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
    let source = match kubernetes::diagnostic::utf8_source(name, bytes) {
        Ok(source) => source,
        Err(problem) => return Ok(Err(problem)),
    };
    let one = (
        "a values file",
        "split the documents into separate files and pass each with -f",
    );
    let node = match yaml::parse_one(&source, Limits::VALUES, one) {
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
            let path = at.key(key.name.clone());
            deleted.push((path, value.origin.clone(), key.origin.clone()));
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
fn explain_deletions(problems: &mut [Problem], deleted: &Deleted) {
    for problem in problems {
        let Some(key) =
            (problem.message.strip_prefix("missing key `")).and_then(|rest| rest.strip_suffix('`'))
        else {
            continue;
        };
        let path = problem.path.key(key.to_owned());
        if let Some((_, origin, _)) = deleted.iter().find(|(at, _, _)| *at == path) {
            problem.origin = origin.clone();
            problem.message = format!(
                "a null (`~`, `null` or nothing) deletes the key, as in Helm, and `{key}` is required"
            );
            problem.path = path;
            problem.hint = Some("quote it (\"~\") to keep the text, or give a value".to_owned());
        }
    }
}

/// The suffix of a key that appends to the list below instead of
/// replacing it: `projects+: [...]` adds its items after those of
/// `projects` in the layers below. No key chartgen reads can end with it:
/// label and annotation keys, registry hosts and the keys of the model
/// hold no `+`.
pub const APPEND: char = '+';

/// Merges `layer` into `base`: mappings key by key, everything else
/// replaced, `KEY+` appended to the list `KEY` below ([`APPEND`]); the
/// problems of appends that cannot be made, each where it was written.
#[must_use]
pub fn merge(base: &mut Node, layer: Node) -> Vec<Problem> {
    let mut problems = Vec::new();
    merge_at(base, layer, &mut KeyPath::root(), &mut problems);
    problems
}

/// [`merge`] at `at`, the path of `base` in the document.
fn merge_at(base: &mut Node, layer: Node, at: &mut KeyPath, problems: &mut Vec<Problem>) {
    match (&mut base.value, layer.value) {
        (Value::Mapping(entries), Value::Mapping(layer_entries)) => {
            let mut index: std::collections::HashMap<String, usize> = entries
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.name.clone(), i))
                .collect();
            let set: std::collections::HashSet<String> = (layer_entries.iter())
                .map(|(k, _)| k.name.clone())
                .filter(|name| appended(name).is_none())
                .collect();
            for (key, value) in layer_entries {
                if let Some(name) = appended(&key.name) {
                    let name = name.to_owned();
                    let below = index.get(&name).map(|&i| &mut entries[i].1);
                    let path = at.key(name.clone());
                    append(below, &key, value, &path, set.contains(&name), problems);
                    continue;
                }
                at.0.push(Segment::Key(key.name.clone()));
                match index.get(&key.name) {
                    Some(&i) => {
                        let (existing_key, existing) = &mut entries[i];
                        *existing_key = key;
                        merge_at(existing, value, at, problems);
                    }
                    None => {
                        index.insert(key.name.clone(), entries.len());
                        entries.push((key, below_nothing(value, at, problems)));
                    }
                }
                at.0.pop();
            }
            base.origin = layer.origin;
        }
        (_, value) => {
            let layer = Node {
                value,
                origin: layer.origin,
                plain: layer.plain,
            };
            *base = below_nothing(layer, at, problems);
        }
    }
}

/// The list `KEY+` appends to, `None` for any other key.
fn appended(key: &str) -> Option<&str> {
    key.strip_suffix(APPEND).filter(|name| !name.is_empty())
}

/// A layer's value where nothing is below it: a mapping merged into an
/// empty one (so its appends are judged), a list's items searched for
/// appends (an item is written whole: nothing is below it either).
fn below_nothing(value: Node, at: &mut KeyPath, problems: &mut Vec<Problem>) -> Node {
    match value.value {
        Value::Mapping(_) => {
            let mut empty = Node::empty_mapping(value.origin.clone());
            merge_at(&mut empty, value, at, problems);
            empty
        }
        Value::Sequence(_) => {
            appends_in_items(&value, at, problems);
            value
        }
        _ => value,
    }
}

/// Every `KEY+` inside the items of a list: nothing is below an item.
/// `at` is the node's path, lengthened while the walk is below it and
/// given back as it was: a path is copied only for a problem.
fn appends_in_items(node: &Node, at: &mut KeyPath, problems: &mut Vec<Problem>) {
    let below = |value: &Node| matches!(value.value, Value::Sequence(_) | Value::Mapping(_));
    match &node.value {
        Value::Sequence(items) => {
            for (i, item) in items.iter().enumerate().filter(|(_, item)| below(item)) {
                at.0.push(Segment::Index(i));
                appends_in_items(item, at, problems);
                at.0.pop();
            }
        }
        Value::Mapping(entries) => {
            for (key, value) in entries {
                if let Some(name) = appended(&key.name) {
                    problems.push(Problem {
                        origin: key.origin.clone(),
                        path: at.key(key.name.clone()),
                        message: format!(
                            "`{name}{APPEND}` appends to the list below, but a list item is written whole: nothing is below it"
                        ),
                        hint: Some(format!("write `{name}:` with every item")),
                        secret: false,
                    });
                }
                if below(value) {
                    at.0.push(Segment::Key(key.name.clone()));
                    appends_in_items(value, at, problems);
                    at.0.pop();
                }
            }
        }
        _ => {}
    }
}

/// Appends the items of `KEY+` (`key`, `value`) to `below`, the list `KEY`
/// of the layers below (`path`); `also_set`: the layer sets `KEY` too.
fn append(
    below: Option<&mut Node>,
    key: &yaml::Key,
    value: Node,
    path: &KeyPath,
    also_set: bool,
    problems: &mut Vec<Problem>,
) {
    let name = key.name.strip_suffix(APPEND).unwrap_or(&key.name);
    let problem = |origin: &Origin, message: String, hint: &str| Problem {
        origin: origin.clone(),
        path: path.clone(),
        message,
        hint: Some(hint.to_owned()),
        secret: false,
    };
    let Value::Sequence(items) = value.value else {
        let found = value.value.type_name();
        problems.push(problem(
            &value.origin,
            format!("`{name}{APPEND}` appends a list of items to `{name}`, found {found}"),
            &format!("write the items as a list: `{name}{APPEND}: [ITEM, ...]`"),
        ));
        return;
    };
    match crate::schema::is_list(path) {
        None => {
            problems.push(problem(
                &key.origin,
                format!("unknown key `{name}`, which `{name}{APPEND}` would append to"),
                "`KEY+` appends to a list chartgen knows: see docs/values.md",
            ));
            return;
        }
        Some(false) => {
            problems.push(problem(
                &key.origin,
                format!("`{name}` is not a list: `{name}{APPEND}` appends only to a list"),
                &format!("write `{name}:` to set it"),
            ));
            return;
        }
        Some(true) => {}
    }
    if also_set {
        problems.push(problem(
            &key.origin,
            format!("`{name}` and `{name}{APPEND}` in one mapping: set the list or append to it, not both"),
            &format!("put the items of `{name}{APPEND}` at the end of `{name}`"),
        ));
        return;
    }
    // An item's place is after those below.
    let offset = match &below {
        Some(Node {
            value: Value::Sequence(list),
            ..
        }) => list.len(),
        _ => 0,
    };
    let mut at = path.clone();
    for (i, item) in items.iter().enumerate() {
        at.0.push(Segment::Index(offset + i));
        appends_in_items(item, &mut at, problems);
        at.0.pop();
    }
    match below {
        Some(Node {
            value: Value::Sequence(list),
            ..
        }) => list.extend(items),
        Some(other) if !matches!(other.value, Value::Null) => problems.push(problem(
            &key.origin,
            format!(
                "`{name}{APPEND}` appends to the list `{name}`, but the layer below gives {} at {}",
                other.value.type_name(),
                other.origin
            ),
            &format!("write `{name}:` to set it"),
        )),
        Some(_) | None => problems.push(problem(
            &key.origin,
            format!(
                "`{name}{APPEND}` appends to the list `{name}`, but nothing is below it: no earlier file and no default sets `{name}`"
            ),
            &format!("write `{name}:` to set the list here"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubernetes::location::Source;
    use serde_json::json;

    /// The schema checked beside the typed reading, or before it, says the
    /// same: for valid values; a schema problem the types refuse too; a
    /// broken rule; a schema problem the types take (an empty repository)
    /// beside a broken rule; both kinds of problem with a null that deletes
    /// a key; with enough projects for the second core.
    #[test]
    fn the_schema_beside_the_typed_reading_says_what_it_says_before_it() {
        let projects: String = (0..kubernetes::PARALLEL_FROM + 5)
            .map(|i| {
                format!("  - {{name: p-{i:04}, repository: 'https://git.example.com/p-{i}.git'}}\n")
            })
            .collect();
        let cases = [
            String::new(),
            "  - {name: broken, repository: 'https://git.example.com/b.git', trusted: maybe}\n".to_owned(),
            "  - {name: p-0001, repository: 'https://git.example.com/again.git'}\n".to_owned(),
            "  - {name: p-0003, repository: ''}\n".to_owned(),
            "  - {name: Bad_Name, repository: 'https://git.example.com/b.git', trusted: 3}\n  - {name: p-0002, repository: 'https://git.example.com/x.git'}\n".to_owned(),
        ];
        let folder = tempfile::tempdir().unwrap();
        for (i, extra) in cases.iter().enumerate() {
            let path = folder.path().join(format!("values-{i}.yaml"));
            let tail = if i == 4 {
                "images: {buildd: null}\n"
            } else {
                ""
            };
            std::fs::write(&path, format!("projects:\n{projects}{extra}{tail}")).unwrap();
            let inputs = Inputs {
                files: vec![path],
                sets: Vec::new(),
            };
            let said = |beside: fn(usize) -> bool| match load_on(&inputs, beside) {
                Ok(loaded) => format!("{:?}", loaded.values),
                Err(e) => format!("{e:?}"),
            };
            let (before, beside) = (said(|_| false), said(|_| true));
            assert_eq!(before, beside, "case {i}");
            assert_eq!(before.starts_with("Values"), i == 0, "case {i}: {before}");
        }
    }

    fn doc(name: &str, text: &str) -> Node {
        yaml::parse_document(&Source::file(name, text), Limits::VALUES)
            .unwrap()
            .unwrap()
    }

    #[test]
    fn maps_merge_lists_replace_later_wins() {
        let mut base = doc("a.yaml", "x: {p: 1, q: [1, 2]}\ny: keep\n");
        let problems = merge(&mut base, doc("b.yaml", "x: {p: 2, q: [3]}\nz: new\n"));
        assert!(problems.is_empty());
        assert_eq!(
            base.to_json(),
            json!({"x": {"p": 2, "q": [3]}, "y": "keep", "z": "new"})
        );
        let p = base.at(&KeyPath::dotted("x.p")).unwrap();
        assert_eq!(p.origin.to_string(), "b.yaml:1:8");
        let y = base.at(&KeyPath::dotted("y")).unwrap();
        assert_eq!(y.origin.to_string(), "a.yaml:2:4");
    }

    #[test]
    fn a_plus_key_appends_to_the_list_below_each_item_keeping_its_origin() {
        let mut document = defaults();
        let base = "projects:\n  - {name: app, repository: 'https://e.com/app.git'}\n";
        assert!(merge(&mut document, doc("common.yaml", base)).is_empty());
        let env = "network:\n  apiServer:\n    ports+: [8443]\nprojects+:\n  - {name: web, repository: 'https://e.com/web.git'}\n";
        assert!(merge(&mut document, doc("prod.yaml", env)).is_empty());
        let json = document.to_json();
        assert_eq!(
            json["network"]["apiServer"]["ports"],
            json!([443, 6443, 8443])
        );
        assert_eq!(json["projects"][0]["name"], "app");
        assert_eq!(json["projects"][1]["name"], "web");
        assert!(json.get("projects+").is_none());
        let origin = |path: &str| {
            document
                .at(&KeyPath::parse(path, kubernetes::location::Syntax::Set).unwrap())
                .unwrap()
                .origin
                .to_string()
        };
        assert_eq!(origin("projects[0].name"), "common.yaml:2:12");
        assert_eq!(origin("projects[1].name"), "prod.yaml:5:12");
        assert_eq!(origin("network.apiServer.ports[2]"), "prod.yaml:3:14");
    }

    #[test]
    fn an_append_that_cannot_be_made_is_refused_where_it_is_written() {
        let cases = [
            (
                "releaseName+: [a]\n",
                "v.yaml:1:1 releaseName: `releaseName` is not a list",
            ),
            (
                "buildd: {colour+: [a]}\n",
                "v.yaml:1:10 buildd.colour: unknown key `colour`",
            ),
            (
                "buildd:\n  tolerations+: [{key: a}]\n",
                "v.yaml:2:3 buildd.tolerations: `tolerations+` appends to the list `tolerations`, but nothing is below it",
            ),
            (
                "projects+: web\n",
                "v.yaml:1:12 projects: `projects+` appends a list of items to `projects`, found string",
            ),
            (
                "projects+: ~\n",
                "v.yaml:1:12 projects: `projects+` appends a list of items to `projects`, found null",
            ),
            (
                "projects: []\nprojects+: []\n",
                "v.yaml:2:1 projects: `projects` and `projects+` in one mapping",
            ),
            (
                "commonLabels: {team+: [a]}\n",
                "v.yaml:1:16 commonLabels.team: `team` is not a list",
            ),
            (
                "projects+: [{name: a, resources+: []}]\n",
                "v.yaml:1:23 projects[0].\"resources+\": `resources+` appends to the list below, but a list item is written whole",
            ),
            (
                "network: {gatewayClients: [{podLabels: {a+: [b]}}]}\n",
                "v.yaml:1:41 network.gatewayClients[0].podLabels.\"a+\": `a+` appends to the list below, but a list item is written whole",
            ),
        ];
        for (text, expected) in cases {
            let mut document = defaults();
            let problems = merge(&mut document, doc("v.yaml", text));
            let shown: Vec<String> = (problems.iter())
                .map(|p| format!("{} {}: {}", p.origin, p.path, p.message))
                .collect();
            assert_eq!(shown.len(), 1, "{text:?}: {shown:?}");
            assert!(shown[0].starts_with(expected), "{text:?}: {shown:?}");
        }
        // Nothing below in the defaults, a list in an earlier file: appended.
        let mut document = defaults();
        assert!(
            merge(
                &mut document,
                doc("a.yaml", "buildd: {tolerations: [{key: a}]}\n")
            )
            .is_empty()
        );
        assert!(
            merge(
                &mut document,
                doc("b.yaml", "buildd: {tolerations+: [{key: b}]}\n")
            )
            .is_empty()
        );
        assert_eq!(
            document.to_json()["buildd"]["tolerations"],
            json!([{"key": "a"}, {"key": "b"}])
        );
    }
}
