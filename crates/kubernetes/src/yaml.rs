//! Position-aware YAML reading with budgets.
//!
//! Every node keeps the place it came from ([`Origin`]), so that a schema
//! violation found later can be reported as `file:line:col`. The reader is
//! built on `saphyr-parser`'s event stream rather than a serde deserializer
//! because it must see what serde hides: duplicate keys, the original text of
//! a plain scalar (for "quote it" hints), and every alias expansion (so an
//! alias bomb runs into [`Limits::max_nodes`] instead of memory).
//!
//! Values files ([`parse_document`], [`parse_stream`]): scalars resolve with
//! the YAML 1.2 core schema, plus what Kubernetes and Helm (go-yaml, YAML
//! 1.1) read differently: the booleans `yes`/`no`/`on`/`off` and octal
//! `0644`. A values file moved over from Helm means the same thing here, and
//! where a string was meant the schema check says so with a hint to quote it.
//!
//! Manifests ([`parse_manifests`]) are read as Kubernetes reads them or not
//! at all: a plain scalar or key that YAML 1.2, go-yaml v2 and YAML 1.1 read
//! differently ([`dialects`]), a YAML 1.1 line break (U+0085, U+2028,
//! U+2029) or a byte-order mark inside the text, and a tag other than
//! `!!str` on a key are refused, located. A stream that starts with `{`
//! is JSON to kubectl and is read as JSON ([`json`]).

pub mod dialects;
pub mod json;
pub mod subset;

use std::collections::HashMap;
use std::sync::Arc;

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span, Tag};

use crate::diagnostic::Problem;
use crate::location::{KeyPath, Origin, Segment, Source};
use crate::text::printable;

/// Most documents one text may hold: each costs memory even when empty.
pub const MAX_DOCUMENTS: usize = 200_000;

/// How much of a value from the input a message quotes, in characters.
const QUOTE_CHARS: usize = 60;

/// Text from the input as a message may quote it: control and
/// line-breaking characters escaped, at most `QUOTE_CHARS` characters.
pub fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_CHARS) {
        Some((end, _)) => format!("{}…", printable(&text[..end])),
        None => printable(text).into_owned(),
    }
}

impl Origin {
    /// The origin of `span`, in a text that starts after line `line_offset`
    /// of `source`.
    fn from_span(source: &Arc<Source>, span: Span, line_offset: usize) -> Self {
        let width = if span.end.line() == span.start.line() {
            span.end.col().saturating_sub(span.start.col()).max(1)
        } else {
            1
        };
        Origin::at(
            Arc::clone(source),
            line_offset + span.start.line(),
            span.start.col() + 1,
            width,
        )
    }

    fn at_marker(source: &Arc<Source>, line: usize, col0: usize) -> Self {
        Origin::at(Arc::clone(source), line, col0 + 1, 1)
    }
}

/// A YAML node with the place it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where the value came from.
    pub origin: Origin,
    /// The source text of a plain (unquoted) scalar that did not resolve to a
    /// string, such as `yes` or `0123`: what the user wrote, for hints.
    /// Behind one pointer: most nodes have none, and every node carries the
    /// field.
    pub plain: Option<Box<String>>,
}

/// A YAML value: the JSON data model, with mapping keys that keep their origin.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `null`, `~` or nothing.
    Null,
    /// `true`/`false` (and the YAML 1.1 `yes`/`no`/`on`/`off`).
    Bool(bool),
    /// An integer that fits in 64 bits.
    Int(i64),
    /// A whole number past `i64::MAX` that fits in 64 unsigned bits: in a
    /// manifest, what go-yaml reads as a `uint64` (a quantity field takes
    /// one; an integer field of the API refuses it).
    Uint(u64),
    /// A finite floating-point number.
    Float(f64),
    /// A string.
    String(String),
    /// A sequence.
    Sequence(Vec<Node>),
    /// A mapping, in source order, keys unique.
    Mapping(Vec<(Key, Node)>),
}

/// A mapping key: always a string, with the place it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// The key's text.
    pub name: String,
    /// Where the key was written.
    pub origin: Origin,
}

impl Value {
    /// The name of the value's type, as a JSON Schema would say it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) | Value::Uint(_) => "integer",
            Value::Float(_) => "number",
            Value::String(_) => "string",
            Value::Sequence(_) => "array",
            Value::Mapping(_) => "object",
        }
    }
}

impl Node {
    /// A node with no source position (a built-in value).
    pub fn new(value: Value, origin: Origin) -> Self {
        Node {
            value,
            origin,
            plain: None,
        }
    }

    /// An empty mapping: what an empty values file means.
    pub fn empty_mapping(origin: Origin) -> Self {
        Node::new(Value::Mapping(Vec::new()), origin)
    }

    /// The entry `name` of a mapping node.
    pub fn get(&self, name: &str) -> Option<&Node> {
        self.entry(name).map(|(_, node)| node)
    }

    /// The key and value of entry `name` of a mapping node.
    pub fn entry(&self, name: &str) -> Option<(&Key, &Node)> {
        match &self.value {
            Value::Mapping(entries) => entries
                .iter()
                .find(|(key, _)| key.name == name)
                .map(|(key, node)| (key, node)),
            _ => None,
        }
    }

    /// A tree from JSON, every node and key with the same origin.
    pub fn from_json(json: &serde_json::Value, origin: &Origin) -> Self {
        let value = match json {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Value::Int(i),
                (None, Some(u)) => Value::Uint(u),
                (None, None) => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            serde_json::Value::String(s) => Value::String(s.clone()),
            serde_json::Value::Array(items) => {
                Value::Sequence(items.iter().map(|i| Node::from_json(i, origin)).collect())
            }
            serde_json::Value::Object(entries) => Value::Mapping(
                entries
                    .iter()
                    .map(|(name, value)| {
                        let key = Key {
                            name: name.clone(),
                            origin: origin.clone(),
                        };
                        (key, Node::from_json(value, origin))
                    })
                    .collect(),
            ),
        };
        Node::new(value, origin.clone())
    }

    /// The child a path segment names: a mapping entry or a list item.
    pub fn child(&self, segment: &Segment) -> Option<&Node> {
        match (segment, &self.value) {
            (Segment::Key(key), _) => self.get(key),
            (Segment::Index(index), Value::Sequence(items)) => items.get(*index),
            (Segment::Index(_), _) => None,
        }
    }

    /// The node at `path`, if the document has one.
    pub fn at(&self, path: &KeyPath) -> Option<&Node> {
        path.0
            .iter()
            .try_fold(self, |node, segment| node.child(segment))
    }

    /// The node at `path`, or the deepest one on the way that exists: where
    /// to point when the path names something missing.
    pub fn nearest(&self, path: &KeyPath) -> &Node {
        let mut node = self;
        for segment in &path.0 {
            match node.child(segment) {
                Some(next) => node = next,
                None => break,
            }
        }
        node
    }

    /// Converts to JSON, dropping positions.
    pub fn to_json(&self) -> serde_json::Value {
        match &self.value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => (*b).into(),
            Value::Int(i) => (*i).into(),
            Value::Uint(u) => (*u).into(),
            // Non-finite floats are refused when reading, so this always holds a number.
            Value::Float(f) => serde_json::Number::from_f64(*f)
                .map_or(serde_json::Value::Null, serde_json::Value::Number),
            Value::String(s) => s.clone().into(),
            Value::Sequence(items) => items.iter().map(Node::to_json).collect(),
            Value::Mapping(entries) => entries
                .iter()
                .map(|(key, node)| (key.name.clone(), node.to_json()))
                .collect::<serde_json::Map<_, _>>()
                .into(),
        }
    }
}

/// Many lookups in trees of nodes: the answers of [`Node::entry`],
/// [`Node::child`] and [`Node::nearest`], with a mapping of more than
/// [`Lookup::SCANNED_UP_TO`] entries indexed by key the first time one of
/// its entries is asked for, so that each later lookup costs a hash, not a
/// scan of the mapping: a reader that locates one thing per entry of a
/// large mapping (a finding per unknown field, per item of `data`) stays
/// linear in the mapping, where [`Node::entry`] alone is quadratic.
#[derive(Default)]
pub struct Lookup<'a> {
    /// By a mapping node's address: the position of each key's entry.
    indexes: HashMap<usize, HashMap<&'a str, usize>>,
}

impl<'a> Lookup<'a> {
    /// Mappings of at most this many entries are scanned, not indexed.
    pub const SCANNED_UP_TO: usize = 16;

    /// No mapping indexed yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The key and value of entry `name` of a mapping node, as
    /// [`Node::entry`] (the first entry of that name).
    pub fn entry(&mut self, node: &'a Node, name: &str) -> Option<(&'a Key, &'a Node)> {
        let Value::Mapping(entries) = &node.value else {
            return None;
        };
        if entries.len() <= Self::SCANNED_UP_TO {
            return node.entry(name);
        }
        let index = self
            .indexes
            .entry(std::ptr::from_ref(node).addr())
            .or_insert_with(|| {
                let mut index = HashMap::with_capacity(entries.len());
                for (at, (key, _)) in entries.iter().enumerate() {
                    index.entry(key.name.as_str()).or_insert(at);
                }
                index
            });
        let (key, value) = &entries[*index.get(name)?];
        Some((key, value))
    }

    /// The child a path segment names, as [`Node::child`].
    pub fn child(&mut self, node: &'a Node, segment: &Segment) -> Option<&'a Node> {
        match (segment, &node.value) {
            (Segment::Key(key), _) => self.entry(node, key).map(|(_, value)| value),
            (Segment::Index(index), Value::Sequence(items)) => items.get(*index),
            (Segment::Index(_), _) => None,
        }
    }

    /// The node at `path` below `node`, or the deepest one on the way that
    /// exists, as [`Node::nearest`].
    pub fn nearest(&mut self, node: &'a Node, path: &KeyPath) -> &'a Node {
        let mut node = node;
        for segment in &path.0 {
            match self.child(node, segment) {
                Some(next) => node = next,
                None => break,
            }
        }
        node
    }

    /// How many mappings have been indexed.
    pub fn indexed(&self) -> usize {
        self.indexes.len()
    }
}

/// Budgets that make hostile input fail fast instead of exhausting the machine.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest accepted input, in bytes.
    pub max_bytes: usize,
    /// Deepest nesting of sequences and mappings.
    pub max_depth: usize,
    /// Most nodes, counting every node an alias expands to.
    pub max_nodes: usize,
}

impl Limits {
    /// Budgets for values files: generous for any real environment.
    pub const VALUES: Limits = Limits {
        max_bytes: 4 << 20,
        max_depth: 64,
        max_nodes: 200_000,
    };
}

/// The node budget, shared by the YAML and the JSON reader: an error at
/// `origin` once `nodes` read exceed `max`; `shared` when the budget is the
/// whole input's, several files together.
fn node_budget(nodes: usize, max: usize, shared: bool, origin: &Origin) -> Result<(), Problem> {
    if nodes <= max {
        return Ok(());
    }
    let whole = if shared {
        " in the whole input, this file and those read before it together"
    } else {
        ""
    };
    Err(read_error(
        origin.clone(),
        format!(
            "more than the limit of {max} YAML nodes{whole} (aliases count every node they repeat)"
        ),
    ))
}

/// A tag as a message names it: a core schema tag as written (`!!binary`),
/// a local one too (`!x`), any other whole. saphyr's `Display` puts a `!`
/// between the handle and the suffix even where the handle is a resolved
/// prefix (`tag:yaml.org,2002:!binary`), which nobody wrote.
fn written(tag: &Tag) -> String {
    match tag.handle.as_str() {
        _ if tag.is_yaml_core_schema() => format!("!!{}", tag.suffix),
        "!" => format!("!{}", tag.suffix),
        handle => format!("{handle}{}", tag.suffix),
    }
}

/// The indicators of a block scalar's header line (`|`, `>`, then `+`,
/// `-` and an indentation digit, then blanks and maybe a comment): what
/// follows its `|` or `>`; `None` when the line ends in no header.
fn block_indicators(line: &str) -> Option<&str> {
    let candidates = line
        .char_indices()
        .rev()
        .filter(|(_, c)| matches!(c, '|' | '>'));
    candidates.map(|(at, _)| &line[at + 1..]).find_map(|rest| {
        let length = (rest.bytes())
            .take_while(|b| matches!(b, b'+' | b'-' | b'0'..=b'9'))
            .count();
        let after = rest[length..].trim_start_matches([' ', '\t']);
        let blank = after.len() < rest.len() - length;
        (after.is_empty() || (blank && after.starts_with('#'))).then(|| &rest[..length])
    })
}

/// The type a tag of YAML's core schema names (`str` of `!!str`, of the
/// verbatim `!<tag:yaml.org,2002:str>`, and of the non-specific `!`, which
/// makes a scalar a string to every reader, go-yaml included); `None` for
/// any other tag.
fn core_tag(tag: &Tag) -> Option<&str> {
    const CORE: &str = "tag:yaml.org,2002:";
    match (tag.handle.as_str(), tag.suffix.as_str()) {
        _ if tag.is_yaml_core_schema() => Some(tag.suffix.as_str()),
        // `!<tag:yaml.org,2002:str>`; not the local `!tag:yaml.org,2002:str`,
        // which go-yaml keeps as a tag it does not know.
        ("", suffix) if suffix.starts_with(CORE) => suffix.strip_prefix(CORE),
        ("", "!") | ("!", "") => Some("str"),
        _ => None,
    }
}

/// A reader error at `origin`, at the root path.
fn read_error(origin: Origin, message: impl Into<String>) -> Problem {
    Problem::new(origin, KeyPath::root(), message)
}

/// Reads a source that must hold at most one YAML document. An empty source
/// yields `None`.
pub fn parse_document(source: &Arc<Source>, limits: Limits) -> Result<Option<Node>, Problem> {
    only_one(
        parse_stream(source, limits)?,
        ("this text", "split the documents into separate texts"),
    )
}

/// [`parse_document`] for a file of values, whose caller names what holds
/// one document and how to split more: `holder` (`a values file`) and
/// `hint`, as the refusal of a second document says them. A character
/// YAML 1.1 reads as a line break (U+0085, U+2028, U+2029) is refused, as
/// in a manifest: Helm reads values as YAML 1.1, so a key behind one in a
/// comment would be a key to Helm and a comment here. A JSON text is read
/// by the manifests' JSON reader ([`json`]): its escapes are JSON's (a
/// surrogate pair is one character, which YAML's reader refuses). An
/// empty document (a trailing `---`,
/// comments) is nothing, as the manifests' reader drops one.
pub fn parse_one(
    source: &Arc<Source>,
    limits: Limits,
    names: (&str, &str),
) -> Result<Option<Node>, Problem> {
    // Past the size limit, that is the error.
    if source.text.len() <= limits.max_bytes {
        refuse_yaml_1_1_breaks(source)?;
    }
    let json = source.text.len() <= limits.max_bytes && json::is_json(&source.text);
    let mut documents = match json
        .then(|| json::parse_stream(source, limits, &mut 0, (false, json::Surrogates::Refuse)))
    {
        Some(Ok(documents)) => documents,
        // Text that is not JSON throughout is YAML, as Helm reads every
        // values file: `{a: 1}`, JSON followed by a comment.
        _ => parse_stream(source, limits)?,
    };
    documents.retain(|document| !matches!(document.value, Value::Null));
    only_one(documents, names)
}

/// Reads one JSON value (any value, a scalar too) as [`json`] reads a
/// manifest's: JSON's escapes, the budgets, duplicate keys refused; a lone
/// surrogate escape refused, as in a values file (a value nobody wrote).
pub fn parse_json_value(source: &Arc<Source>, limits: Limits) -> Result<Option<Node>, Problem> {
    let documents = json::parse_stream(source, limits, &mut 0, (false, json::Surrogates::Refuse))
        .map_err(|(e, _)| e)?;
    only_one(
        documents,
        ("this text", "split the documents into separate texts"),
    )
}

/// The one document of `documents`, or the refusal of the second, which
/// names what holds one document and how to split more.
fn only_one(
    mut documents: Vec<Node>,
    (holder, hint): (&str, &str),
) -> Result<Option<Node>, Problem> {
    if documents.len() > 1 {
        let second = documents.swap_remove(1);
        return Err(read_error(
            second.origin,
            format!("a second YAML document; {holder} holds exactly one"),
        )
        .with_hint(hint));
    }
    Ok(documents.pop())
}

/// Reads every document of a YAML stream.
pub fn parse_stream(source: &Arc<Source>, limits: Limits) -> Result<Vec<Node>, Problem> {
    read(source, limits, false, &mut None)
}

/// Reads every document of a stream of Kubernetes manifests, as Kubernetes
/// would read it or not at all: whatever YAML 1.2 and YAML 1.1 (go-yaml,
/// which `kubectl` and the API server use) read differently is refused.
pub fn parse_manifests(source: &Arc<Source>, limits: Limits) -> Result<Vec<Node>, Problem> {
    read(source, limits, true, &mut None)
}

/// Reads manifests as [`parse_manifests`] does, as one of several sources
/// that share `limits.max_nodes`: counting starts at `*spent` (what the
/// sources read before used) and `*spent` is left at the new total, so the
/// budget bounds them all together. Its error says the budget is the
/// input's total.
pub fn parse_manifests_sharing(
    source: &Arc<Source>,
    limits: Limits,
    spent: &mut usize,
) -> Result<Vec<Node>, Problem> {
    let mut shared = Some(*spent);
    let result = read(source, limits, true, &mut shared);
    *spent = shared.unwrap_or(*spent);
    result
}

/// Below this many bytes a stream is read on one thread
/// ([`parse_manifests_split`]): a thread costs more than it saves.
pub const SPLIT_FROM: usize = 64 << 10;

/// [`parse_manifests`], the same nodes with the same origins, read in two
/// parts on two threads when the stream is large ([`SPLIT_FROM`]), there
/// is a second core, and a `---` line near its middle starts a document.
/// Each part is a whole number of documents, read as the whole stream
/// would read them (anchors and flow do not cross a `---` line); the
/// checks that see the whole text run on it. When a part fails, or the two
/// together pass a budget, the whole stream is read again on one thread,
/// so the error is the one [`parse_manifests`] gives.
pub fn parse_manifests_split(source: &Arc<Source>, limits: Limits) -> Result<Vec<Node>, Problem> {
    parse_manifests_split_from(source, limits, SPLIT_FROM)
}

/// [`parse_manifests_split`], split from `from` bytes instead of
/// [`SPLIT_FROM`]: for a caller that knows the worker is free (a
/// render's parse-back, `manifest::collect_outputs`).
pub fn parse_manifests_split_from(
    source: &Arc<Source>,
    limits: Limits,
    from: usize,
) -> Result<Vec<Node>, Problem> {
    let text = source.text.as_str();
    let large = text.len() >= from && text.len() <= limits.max_bytes;
    let split = match large && crate::second_core() {
        true => document_start_near_middle(text),
        false => None,
    };
    let Some(split) = split else {
        return parse_manifests(source, limits);
    };
    if json::is_json(text) {
        return parse_manifests(source, limits);
    }
    refuse_yaml_1_1_breaks(source)?;
    refuse_separator_with_content(source)?;
    let (first, second) = text.split_at(split);
    let line_offset = first.matches('\n').count();
    let part = |text: &'_ str, line_offset: usize| {
        let mut reader = Reader::new(source, text, line_offset, limits, true);
        reader
            .read()
            .ok()
            .map(|documents| (documents, reader.nodes))
    };
    let (one, two) = crate::beside(|| part(first, 0), || part(second, line_offset));
    match (one, two) {
        (Some((mut documents, a)), Some((more, b)))
            if a + b <= limits.max_nodes && documents.len() + more.len() <= MAX_DOCUMENTS =>
        {
            documents.extend(more);
            Ok(documents)
        }
        _ => parse_manifests(source, limits),
    }
}

/// The byte offset of a line that is `---` alone, at or after the middle
/// of `text`: where a document starts, wherever it stands (YAML ends any
/// scalar at a `---` line in the first column). Only text without a
/// carriage return: lines are counted by `\n`.
fn document_start_near_middle(text: &str) -> Option<usize> {
    if text.contains('\r') {
        return None;
    }
    // Searched as bytes: the middle may fall inside a character, and a
    // line break is one byte, never part of another character.
    let middle = text.len() / 2;
    let from = (text.as_bytes()[..middle].iter())
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |i| i + 1);
    let at = from + text[from..].find("\n---\n")? + 1;
    (at < text.len()).then_some(at)
}

/// `shared`: the nodes sources read before used, when they share the
/// budget; left at the new total.
fn read(
    source: &Arc<Source>,
    limits: Limits,
    kubernetes: bool,
    shared: &mut Option<usize>,
) -> Result<Vec<Node>, Problem> {
    if source.text.len() > limits.max_bytes {
        return Err(read_error(
            Origin::at_marker(source, 1, 0),
            format!("larger than the limit of {} bytes", limits.max_bytes),
        ));
    }
    if kubernetes && json::is_json(&source.text) {
        // kubectl reads it as JSON: no YAML line breaks, dialects or tags.
        // A stream whose first document is no JSON (`{kind: Pod, …}`, a
        // YAML flow mapping) is read as YAML, as kubectl's decoder falls
        // back to YAML when JSON fails at the start.
        let mut nodes = shared.unwrap_or(0);
        let read = (shared.is_some(), json::Surrogates::Replace);
        let result = json::parse_stream(source, limits, &mut nodes, read);
        let fall_back = matches!(&result, Err((e, false)) if e.message.starts_with("invalid JSON"));
        if !fall_back {
            if let Some(spent) = shared {
                *spent = nodes;
            }
            return result.map_err(|(e, _)| e);
        }
    }
    if kubernetes {
        refuse_yaml_1_1_breaks(source)?;
        refuse_separator_with_content(source)?;
    }
    let mut reader = Reader::new(source, &source.text, 0, limits, kubernetes);
    reader.nodes = shared.unwrap_or(0);
    reader.shared = shared.is_some();
    reader.beside = source.text.len() >= SPLIT_FROM;
    let result = reader.read();
    if let Some(spent) = shared {
        *spent = reader.nodes;
    }
    result
}

/// A tab is text inside a quoted or block scalar and a comment; elsewhere
/// YAML 1.2 may take it as a separator where YAML 1.1 readers (PyYAML)
/// refuse it, and go-yaml's rules differ again. A directive (`%YAML 1.2`,
/// `%TAG`) is refused too: go-yaml accepts only `%YAML 1.1`, and tags are
/// named differently under `%TAG`. An anchor or alias name is limited to
/// letters, digits, `-` and `_`: YAML 1.1 readers end or refuse it at any
/// other character, YAML 1.2 takes it into the name. `scalars` holds the
/// spans of the scalars, in order, and whether each is plain.
fn refuse_stray_syntax(
    source: &Arc<Source>,
    text: &str,
    line_offset: usize,
    scalars: &[(usize, usize, bool)],
) -> Result<(), Problem> {
    if !may_hold_stray_syntax(text) {
        return Ok(());
    }
    let mut spans = scalars.iter().peekable();
    let (mut line, mut col0) = (line_offset + 1, 0);
    let (mut comment, mut after_blank) = (false, true);
    let mut previous = '\0';
    for (index, (byte, c)) in text.char_indices().enumerate() {
        while spans.next_if(|(_, end, _)| *end <= index).is_some() {}
        let span = spans.peek().filter(|(start, ..)| *start <= index);
        let inside = span.is_some_and(|(.., plain)| !plain);
        let in_scalar = span.is_some();
        match c {
            '\n' | '\r' => {
                if !(c == '\n' && previous == '\r') {
                    line += 1;
                }
                col0 = 0;
                comment = false;
                after_blank = true;
                previous = c;
                continue;
            }
            '#' if after_blank && !inside => comment = true,
            '&' | '*' if !in_scalar && !comment => {
                let name: String = text[byte + 1..]
                    .chars()
                    .take_while(|c| {
                        !matches!(c, ' ' | '\t' | '\n' | '\r' | ',' | '[' | ']' | '{' | '}')
                    })
                    .collect();
                if name.is_empty()
                    || !name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                {
                    return Err(read_error(
                        Origin::at_marker(source, line, col0),
                        format!(
                            "the anchor or alias name `{}`: YAML 1.1 readers (go-yaml) allow only letters, digits, `-` and `_`",
                            quote(&name)
                        ),
                    )
                    .with_hint("rename the anchor"));
                }
            }
            '%' if col0 == 0 && !inside => {
                return Err(read_error(
                    Origin::at_marker(source, line, col0),
                    "a YAML directive: go-yaml (Kubernetes) reads only `%YAML 1.1`, YAML 1.2 readers more",
                )
                .with_hint("remove the directive"));
            }
            '\t' if !inside && !comment => {
                return Err(read_error(
                    Origin::at_marker(source, line, col0),
                    "a tab outside a quoted or block scalar and a comment: YAML 1.1 readers refuse it, YAML 1.2 takes it as a space",
                )
                .with_hint("use spaces"));
            }
            _ => {}
        }
        after_blank = c == ' ' || c == '\t';
        col0 += 1;
        previous = c;
    }
    Ok(())
}

/// Whether every byte is printable ASCII, a tab or a line break; decided
/// without a branch a byte, so the loop runs on vectors (every manifest
/// text is read through it, a render's included).
fn printable_ascii(bytes: &[u8]) -> bool {
    bytes.chunks(64).all(|chunk| {
        let odd = chunk.iter().fold(0u8, |odd, &b| {
            let control = b < 0x20 && b != b'\t' && b != b'\n' && b != b'\r';
            odd | u8::from(control) | u8::from(b > b'~')
        });
        odd == 0
    })
}

/// Whether `text` has a tab, `%`, `&` or `*`, the characters of the
/// syntax [`refuse_stray_syntax`] refuses; decided without a branch a
/// byte, so the loop runs on vectors.
fn may_hold_stray_syntax(text: &str) -> bool {
    text.as_bytes().chunks(64).any(|chunk| {
        // Four comparisons, not a `matches!` (a bit test on a mask, which
        // runs a byte at a time).
        let found = chunk.iter().fold(0u8, |found, &b| {
            found
                | u8::from(b == b'\t')
                | u8::from(b == b'%')
                | u8::from(b == b'&')
                | u8::from(b == b'*')
        });
        found != 0
    })
}

/// YAML's printable characters (the same set in 1.1 and 1.2): what a
/// stream may hold unescaped.
fn printable_in_yaml(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{a0}'..='\u{d7ff}'
        | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// kubectl cuts a stream into documents by its lines before any YAML is
/// read (apimachinery's `YAMLReader`): a line that starts with `---` and
/// holds more than spaces and a comment after it is refused ("invalid Yaml
/// document separator"), where YAML reads `--- !!map` or `--- {a: 1}` as a
/// document that starts on that line, and `----` or `---x: 1` as content.
fn refuse_separator_with_content(source: &Arc<Source>) -> Result<(), Problem> {
    let text = source.text.as_str();
    let starts = std::iter::once(0).chain(text.match_indices("\n---").map(|(at, _)| at + 1));
    for start in starts {
        let line = &text[start..];
        let Some(rest) = line.strip_prefix("---") else {
            continue;
        };
        let rest = rest.split('\n').next().unwrap_or_default().trim();
        if rest.is_empty() || rest.starts_with('#') {
            continue;
        }
        let number = 1 + text[..start].matches('\n').count();
        return Err(read_error(
            Origin::at_marker(source, number, 3),
            format!(
                "`---` followed by `{}`: kubectl cuts a stream into documents at lines starting with `---`, and refuses one that holds more than a comment after it (\"invalid Yaml document separator\")",
                quote(rest)
            ),
        )
        .with_hint("put the document's content on the lines after `---`"));
    }
    Ok(())
}

/// YAML 1.1 reads U+0085, U+2028 and U+2029 as line breaks, YAML 1.2 as
/// ordinary characters: in a comment, the rest of the line is a comment to
/// one and content to the other. A byte-order mark past the start is no
/// character at all to some readers.
fn refuse_yaml_1_1_breaks(source: &Arc<Source>) -> Result<(), Problem> {
    let text = &source.text;
    // Printable ASCII, tabs and line breaks, the common case, need no
    // decoding: every character this looks for is outside it.
    if printable_ascii(text.as_bytes()) {
        return Ok(());
    }
    let found = text.char_indices().find(|&(at, c)| {
        matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')
            || (c == '\u{feff}' && at > 0)
            || !printable_in_yaml(c)
    });
    let Some((at, c)) = found else {
        return Ok(());
    };
    let before = &text[..at];
    let line = 1 + before.matches('\n').count() + before.matches('\r').count()
        - before.matches("\r\n").count();
    let line_start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let col0 = before[line_start..].chars().count();
    let what = if c == '\u{feff}' {
        "a byte-order mark (U+FEFF) inside the text".to_owned()
    } else if !printable_in_yaml(c) {
        format!(
            "U+{:04X}, a character YAML does not allow unescaped (go-yaml refuses it)",
            c as u32
        )
    } else {
        format!(
            "U+{:04X}, a line break to YAML 1.1 (Kubernetes) but not to YAML 1.2",
            c as u32
        )
    };
    let escape = if (c as u32) <= 0xffff {
        format!("\\u{:04X}", c as u32)
    } else {
        format!("\\U{:08X}", c as u32)
    };
    Err(
        read_error(Origin::at_marker(source, line, col0), what).with_hint(format!(
            "remove it, or write it as an escape ({escape}) in a double-quoted string"
        )),
    )
}

/// An open collection while its events are being read.
enum Open {
    Sequence {
        items: Vec<Node>,
        origin: Origin,
        anchor: usize,
    },
    Mapping {
        entries: Vec<(Key, Node)>,
        /// The keys so far, once the mapping is too large for a scan to
        /// find a duplicate cheaply ([`DUPLICATE_SCAN`]).
        names: Option<std::collections::HashSet<String>>,
        pending_key: Option<Key>,
        origin: Origin,
        anchor: usize,
    },
}

struct Reader<'a> {
    /// Where the nodes' origins point.
    source: &'a Arc<Source>,
    /// The text read: the source's, or a part of it that starts at a line
    /// ([`parse_manifests_split`]).
    text: &'a str,
    /// The source line before the first of `text`.
    line_offset: usize,
    limits: Limits,
    /// Anchored nodes by anchor id, for aliases.
    anchors: HashMap<usize, Anchored>,
    /// Nodes made so far, alias expansions included (and those of the
    /// sources read before, when they share the budget).
    nodes: usize,
    /// The bytes of text the aliases read so far repeat: held with the
    /// text's own to [`Limits::max_bytes`], so that a long scalar repeated
    /// by aliases cannot make a copy of itself for each.
    repeated: usize,
    /// The node budget is shared with other sources of one input.
    shared: bool,
    /// Reading manifests: only what YAML 1.1 and 1.2 read alike.
    kubernetes: bool,
    /// Where the scalars are (character offsets) and whether each is
    /// plain: tabs are allowed in the others, anchors in none. Tracked
    /// only when `stray`.
    scalars: Vec<(usize, usize, bool)>,
    /// For each open collection (manifests only): whether it is a flow one.
    flow: Vec<bool>,
    /// A character offset and its byte offset, to find the character at a
    /// span's start without rescanning the text.
    cursor: (usize, usize),
    /// Whether `text` is ASCII: character offsets are then byte offsets.
    ascii: bool,
    /// Whether `text` has a character [`refuse_stray_syntax`] looks at:
    /// without one, where the scalars are need not be tracked.
    stray: bool,
    /// Whether `text` holds `\/`, which may be an escape go-yaml refuses
    /// in a double-quoted scalar ([`Reader::refuse_slash_escape`]).
    slash_escape: bool,
    /// Whether `text` holds a tab, which may stand where go-yaml expects a
    /// block scalar's indentation ([`Reader::refuse_tab_in_block_indent`]).
    tab: bool,
    /// Whether the fast source's events are made on a second core while
    /// this one makes the nodes ([`Reader::read_beside`]), when the two
    /// can run at once (`crate::overlapping`): a large text read whole,
    /// not a part of a split one.
    beside: bool,
}

impl<'a> Reader<'a> {
    /// A reader of `text`, a part of `source` after its line `line_offset`
    /// (the whole text from 0), with a node budget of its own; `kubernetes`:
    /// read as manifests.
    fn new(
        source: &'a Arc<Source>,
        text: &'a str,
        line_offset: usize,
        limits: Limits,
        kubernetes: bool,
    ) -> Self {
        Reader {
            source,
            text,
            line_offset,
            limits,
            anchors: HashMap::new(),
            nodes: 0,
            repeated: 0,
            shared: false,
            kubernetes,
            scalars: Vec::new(),
            flow: Vec::new(),
            cursor: (0, 0),
            ascii: text.is_ascii(),
            stray: may_hold_stray_syntax(text),
            slash_escape: kubernetes && text.contains("\\/"),
            tab: kubernetes && text.contains('\t'),
            beside: false,
        }
    }

    /// Reads the text with the fast event source ([`subset`]) and, when the
    /// text is outside its subset or the reading fails, again from the start
    /// with saphyr: the same events either way, so the same nodes, and
    /// every error is the one saphyr's reading gives.
    fn read(&mut self) -> Result<Vec<Node>, Problem> {
        let spent = self.nodes;
        // Only while the two can run at once: one after the other, the
        // reading would wait for a source not yet started.
        let fast = match self.beside && crate::overlapping() {
            true => self.read_beside(),
            false => self.read_events(subset::Events::new(self.text), |_, _| None),
        };
        if let Ok(documents) = fast {
            return Ok(documents);
        }
        self.restart(spent);
        let scan_error = |reader: &Self, error: ScanError| Some(reader.scan_error(&error));
        self.read_events(Parser::new_from_str(self.text), scan_error)
            .map_err(|problem| {
                // saphyr's errors all become problems: `None` cannot come.
                problem.unwrap_or_else(|| read_error(Origin::Default, "invalid YAML"))
            })
    }

    /// Reads the fast source's events as [`Reader::read_events`] does,
    /// with the events made on the worker and handed over in batches:
    /// finding the events and making the nodes cost about the same, so a
    /// large text is read in little more than half the time. The events are
    /// the same, in the same order, so the nodes and the problems are too.
    /// The source runs at most [`BATCHES`] batches ahead; when the reading
    /// stops early (a problem, a budget), the source stops at its next
    /// batch.
    fn read_beside(&mut self) -> Result<Vec<Node>, Option<Problem>> {
        /// Events in one batch: the reading, faster than the source, waits
        /// at a hand-over (256 a batch: 0.4 ms slower at 5,000 projects).
        const BATCH: usize = 1024;
        /// Batches made and not yet read, at most: some 2 MiB of events.
        const BATCHES: usize = 16;
        let text = self.text;
        let (send, batches) = std::sync::mpsc::sync_channel(BATCHES);
        let source = move || {
            let mut events = subset::Events::new(text);
            loop {
                // Its room made at once: collected, it would grow by
                // copying (9 M instructions at 5,000 projects).
                let mut batch = Vec::with_capacity(BATCH);
                batch.extend(events.by_ref().take(BATCH));
                // A short batch is the last; so is one with the error
                // after which the source yields nothing.
                let last = batch.len() < BATCH || batch.iter().any(Result::is_err);
                if send.send(batch).is_err() || last {
                    break;
                }
            }
        };
        let read = || {
            let read = self.read_events(batches.iter().flatten(), |_, _| None);
            // The batches are dropped with the reading: a source still
            // running finds no one to send to, and stops.
            drop(batches);
            read
        };
        crate::beside(read, source).0
    }

    /// Forgets a reading that was given up: what it counted and saw.
    fn restart(&mut self, spent: usize) {
        self.nodes = spent;
        self.repeated = 0;
        self.anchors.clear();
        self.scalars.clear();
        self.flow.clear();
        self.cursor = (0, 0);
    }

    /// Reads the documents of `events`; `fault` turns the source's error into
    /// a problem (`None`: the source gave up, no problem to tell).
    fn read_events<E>(
        &mut self,
        events: impl Iterator<Item = Result<(Event<'a>, Span), E>>,
        fault: impl Fn(&Self, E) -> Option<Problem>,
    ) -> Result<Vec<Node>, Option<Problem>> {
        let mut documents = Vec::new();
        let mut stack: Vec<Open> = Vec::new();
        let mut current: Option<Node> = None;
        let mut started = false;
        for event in events {
            let (event, span) = event.map_err(|e| fault(self, e))?;
            // An end event needs no origin: one is made (an `Arc` cloned)
            // only for the events that keep or may report it.
            let (source, line_offset) = (self.source, self.line_offset);
            let origin = || Origin::from_span(source, span, line_offset);
            if self.kubernetes {
                self.track_spans(&event, span, &stack)?;
            }
            let finished = match event {
                Event::StreamStart | Event::StreamEnd | Event::Nothing => None,
                Event::DocumentStart(explicit) => {
                    self.start_document(explicit, started, origin())?;
                    started = true;
                    None
                }
                Event::DocumentEnd => {
                    let origin = origin();
                    if documents.len() >= MAX_DOCUMENTS {
                        return Err(read_error(
                            origin,
                            format!("more than the limit of {MAX_DOCUMENTS} YAML documents"),
                        )
                        .with_hint("split the input into several files")
                        .into());
                    }
                    documents.push(
                        current
                            .take()
                            .unwrap_or_else(|| Node::new(Value::Null, origin)),
                    );
                    None
                }
                Event::Alias(id) => Some(self.alias(id, origin())?),
                Event::Scalar(text, style, anchor, tag) => {
                    match self.on_scalar(&mut stack, text, style, tag, origin())? {
                        Some(node) => Some(self.remember(anchor, node)?),
                        None => continue,
                    }
                }
                Event::SequenceStart(anchor, tag) => {
                    let origin = origin();
                    self.refuse_tag(tag.as_deref(), "seq", &origin)?;
                    self.refuse_complex_key(&stack, &origin)?;
                    self.open(&stack, &origin)?;
                    stack.push(Open::Sequence {
                        items: Vec::new(),
                        origin,
                        anchor,
                    });
                    None
                }
                Event::MappingStart(anchor, tag) => {
                    let origin = origin();
                    self.refuse_tag(tag.as_deref(), "map", &origin)?;
                    self.refuse_complex_key(&stack, &origin)?;
                    self.open(&stack, &origin)?;
                    stack.push(Open::Mapping {
                        entries: Vec::new(),
                        names: None,
                        pending_key: None,
                        origin,
                        anchor,
                    });
                    None
                }
                Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                    Some(open) => Some(self.close(open)?),
                    None => continue,
                },
            };
            if let Some(node) = finished {
                self.attach(&mut stack, node, &mut current)?;
            }
        }
        if self.kubernetes && self.stray {
            refuse_stray_syntax(self.source, self.text, self.line_offset, &self.scalars)?;
        }
        Ok(documents)
    }

    /// A document starts: after the first, a manifest needs its `---`;
    /// anchors do not reach across documents.
    fn start_document(
        &mut self,
        explicit: bool,
        started: bool,
        origin: Origin,
    ) -> Result<(), Problem> {
        if self.kubernetes && !explicit && started {
            return Err(read_error(
                origin,
                "a document after the first without `---`: YAML 1.1 readers (go-yaml, Kubernetes) need `---` to start it",
            )
            .with_hint("start the document with a `---` line"));
        }
        self.anchors.clear();
        Ok(())
    }

    /// A sequence or mapping ends: its node (remembered under its anchor).
    fn close(&mut self, open: Open) -> Result<Node, Problem> {
        let (value, origin, anchor) = match open {
            Open::Sequence {
                items,
                origin,
                anchor,
            } => (Value::Sequence(items), origin, anchor),
            Open::Mapping {
                entries,
                origin,
                anchor,
                ..
            } => (Value::Mapping(entries), origin, anchor),
        };
        self.remember(anchor, Node::new(value, origin))
    }

    /// Where each scalar of a manifest starts and ends, and whether each
    /// collection is in flow style: what `refuse_stray_syntax` and the flow
    /// indicator check read.
    fn track_spans(
        &mut self,
        event: &Event<'_>,
        span: Span,
        stack: &[Open],
    ) -> Result<(), Problem> {
        match &event {
            Event::Scalar(text, style, ..) => {
                let plain = *style == ScalarStyle::Plain;
                if self.slash_escape && *style == ScalarStyle::DoubleQuoted {
                    self.refuse_slash_escape(span, stack, text)?;
                }
                if self.tab && matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
                    self.refuse_tab_in_block_indent(span, stack, text)?;
                }
                if self.stray {
                    let start = self.content_start(span.start.index());
                    let end = match style {
                        ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                            self.quoted_end(start).unwrap_or(span.end.index())
                        }
                        _ => span.end.index(),
                    };
                    self.scalars.push((start, end, plain));
                }
                if plain && self.flow.last() == Some(&true) {
                    let origin = || Origin::from_span(self.source, span, self.line_offset);
                    refuse_flow_indicator(text, origin).map_err(|e| e.at(path_of(stack, text)))?;
                }
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                let flow = self.starts_flow(span.start.index());
                self.flow.push(flow);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                self.flow.pop();
            }
            _ => {}
        }
        Ok(())
    }

    /// Refuses a double-quoted scalar that holds the escape `\/`: YAML 1.2
    /// reads it as `/`, go-yaml (kubectl's reader) as an unknown escape,
    /// and refuses the file. (go-yaml's other escapes are YAML 1.2's, and
    /// `\'`, which the YAML 1.2 reader refuses.)
    fn refuse_slash_escape(
        &mut self,
        span: Span,
        stack: &[Open],
        text: &str,
    ) -> Result<(), Problem> {
        let start = self.content_start(span.start.index());
        if self.char_at(start) != Some('"') {
            return Ok(());
        }
        let mut chars = self.text[self.cursor.1 + 1..].chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => return Ok(()),
                '\\' if chars.next() == Some('/') => {
                    return Err(self.scalar_refused(
                        (span, stack, text),
                        "`\\/` in a double-quoted string: YAML 1.2 reads it as `/`, go-yaml (kubectl) refuses it as an unknown escape",
                        "write `/` without the backslash",
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Refuses a block scalar whose indentation go-yaml (kubectl's reader)
    /// finds a tab in, where a YAML 1.2 reader takes the tab as text: after
    /// the spaces that start a line, on the lines up to its first line of
    /// text when the indentation is detected (no indentation indicator),
    /// and on a later line whose spaces stop short of that indentation
    /// ("found a tab character where an indentation space is expected").
    fn refuse_tab_in_block_indent(
        &mut self,
        span: Span,
        stack: &[Open],
        text: &str,
    ) -> Result<(), Problem> {
        // The cursor goes back where it was: the scalar's start is asked
        // for again, and going back from its end would walk the text anew.
        let cursor = self.cursor;
        let tab = self.tab_in_block_indent(span);
        self.cursor = cursor;
        if !tab {
            return Ok(());
        }
        Err(self.scalar_refused(
            (span, stack, text),
            "a tab where go-yaml (kubectl) expects this block scalar's indentation: YAML 1.2 readers take it as text, go-yaml refuses the file",
            "indent the block scalar's lines with spaces, and start its first line with other text than a tab",
        ))
    }

    /// A refusal of the scalar at `span` (`text`, under `stack`), placed
    /// at its start and path.
    fn scalar_refused(
        &self,
        (span, stack, text): (Span, &[Open], &str),
        message: &str,
        hint: &str,
    ) -> Problem {
        let origin = Origin::from_span(self.source, span, self.line_offset);
        read_error(origin, message)
            .with_hint(hint)
            .at(path_of(stack, text))
    }

    /// Whether [`Reader::refuse_tab_in_block_indent`] refuses the block
    /// scalar of `span`.
    fn tab_in_block_indent(&mut self, span: Span) -> bool {
        // The span starts at the text, after its indentation, or at a tag
        // or an anchor on the header's line (`k: !!str |`).
        let start = self.content_start(span.start.index());
        let tagged = start != span.start.index();
        if self.char_at(start).is_none() {
            return false;
        }
        let at = self.cursor.1;
        let to = match self.char_at(span.end.index()) {
            Some(_) => self.cursor.1.max(at),
            None => self.text.len(),
        };
        let text = self.text;
        let bytes = text.as_bytes();
        let (header, body) = if tagged {
            let Some(end) = text[at..].find(['\n', '\r']).map(|end| at + end) else {
                return false;
            };
            let next =
                end + 1 + usize::from(bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n'));
            (&text[at..end], &text[next.min(to)..to])
        } else {
            // Back from the text's first line over blank lines to the
            // header's.
            let mut body_start = text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1);
            let header = loop {
                if body_start == 0 {
                    return false;
                }
                let mut end = body_start - 1;
                if bytes[end] == b'\n' && end > 0 && bytes[end - 1] == b'\r' {
                    end -= 1;
                }
                let line_start = text[..end].rfind(['\n', '\r']).map_or(0, |i| i + 1);
                let line = &text[line_start..end];
                if !line.trim_matches([' ', '\t']).is_empty() {
                    break line;
                }
                body_start = line_start;
            };
            (header, &text[body_start..to.max(body_start)])
        };
        match block_indicators(header) {
            // An indentation indicator: the other rules judge its lines.
            Some(indicators) if !indicators.bytes().any(|b| b.is_ascii_digit()) => {}
            _ => return false,
        }
        let mut indent: Option<usize> = None;
        let mut deepest = 0;
        for line in body.split(['\n', '\r']) {
            let spaces = line.bytes().take_while(|&b| b == b' ').count();
            let next = line.as_bytes().get(spaces).copied();
            if next == Some(b'\t') && indent.is_none_or(|indent| spaces < indent) {
                return true;
            }
            match next {
                None => deepest = deepest.max(spaces),
                Some(_) if indent.is_none() => indent = Some(deepest.max(spaces)),
                Some(_) => {}
            }
        }
        false
    }

    /// A scalar: a pending mapping key (checked, `None`) or a value node.
    fn on_scalar(
        &mut self,
        stack: &mut [Open],
        text: std::borrow::Cow<'_, str>,
        style: ScalarStyle,
        tag: Option<std::borrow::Cow<'_, Tag>>,
        origin: Origin,
    ) -> Result<Option<Node>, Problem> {
        let is_key = matches!(
            stack.last(),
            Some(Open::Mapping {
                pending_key: None,
                ..
            })
        );
        if is_key {
            if style == ScalarStyle::Plain && text == "<<" {
                return Err(merge_key_error(origin, self.kubernetes).at(path_of(stack, &text)));
            }
            if self.kubernetes {
                self.check_key(&text, style, tag.as_deref(), &origin)
                    .map_err(|e| e.at(path_of(stack, &text)))?;
            }
        }
        if let Some(Open::Mapping {
            pending_key: pending_key @ None,
            ..
        }) = stack.last_mut()
        {
            *pending_key = Some(Key {
                name: text.into_owned(),
                origin,
            });
            return Ok(None);
        }
        self.scalar(&text, style, tag.as_deref(), origin)
            .map(Some)
            .map_err(|e| e.at(path_of(stack, &text)))
    }

    /// Puts a finished node where it belongs: into the open sequence or
    /// mapping (refusing a duplicate key), or as the document.
    fn attach(
        &self,
        stack: &mut [Open],
        node: Node,
        current: &mut Option<Node>,
    ) -> Result<(), Problem> {
        match stack.last_mut() {
            Some(Open::Sequence { items, .. }) => items.push(node),
            Some(Open::Mapping {
                entries,
                names,
                pending_key,
                ..
            }) => {
                let Some(key) = pending_key.take() else {
                    return Err(read_error(
                        node.origin,
                        "a mapping key must be a scalar, not an alias",
                    ));
                };
                let first = duplicate_of(entries, names, &key.name);
                if let Some((first, _)) = first {
                    return Err(read_error(
                        key.origin.clone(),
                        format!("duplicate key `{}`", quote(&key.name)),
                    )
                    .with_hint(format!(
                        "`{}` is already set at {}; keep one of them",
                        quote(&key.name),
                        first.origin
                    )));
                }
                entries.push((key, node));
            }
            None if self.kubernetes
                && !matches!(
                    node.value,
                    Value::Null | Value::Mapping(_) | Value::Sequence(_)
                ) =>
            {
                return Err(read_error(
                    node.origin,
                    "a document that is a single value; a manifest holds objects",
                ));
            }
            None => *current = Some(node),
        }
        Ok(())
    }

    /// The character at a character offset of the text; offsets mostly
    /// grow from one call to the next, so the cursor makes this linear.
    fn char_at(&mut self, index: usize) -> Option<char> {
        let text = self.text;
        if self.ascii {
            // One byte a character: the offset is the byte's.
            let c = *text.as_bytes().get(index)?;
            self.cursor = (index, index);
            return Some(c as char);
        }
        if index < self.cursor.0 {
            self.cursor = (0, 0);
        }
        let (mut at, mut byte) = self.cursor;
        let mut chars = text[byte..].chars();
        while at < index {
            byte += chars.next()?.len_utf8();
            at += 1;
        }
        self.cursor = (at, byte);
        text[byte..].chars().next()
    }

    /// Where a node's content starts when its span starts at its anchor or
    /// tag: past them and the blanks after them.
    fn content_start(&mut self, index: usize) -> usize {
        if !matches!(self.char_at(index), Some('&' | '!')) {
            return index;
        }
        let mut at = index;
        let mut in_property = false;
        for c in self.text[self.cursor.1..].chars() {
            match c {
                '&' | '!' if !in_property => in_property = true,
                ' ' | '\t' | '\n' | '\r' => in_property = false,
                _ if in_property => {}
                _ => break,
            }
            at += 1;
        }
        at
    }

    /// The character offset just past the quoted scalar that starts at
    /// `index` (its span may reach past the closing quote).
    fn quoted_end(&mut self, index: usize) -> Option<usize> {
        let quote = self.char_at(index)?;
        let mut chars = self.text[self.cursor.1..].chars().skip(1).peekable();
        let mut at = index + 1;
        while let Some(c) = chars.next() {
            at += 1;
            match c {
                '\\' if quote == '"' => {
                    chars.next();
                    at += 1;
                }
                '\'' if quote == '\'' && chars.peek() == Some(&'\'') => {
                    chars.next();
                    at += 1;
                }
                c if c == quote => return Some(at),
                _ => {}
            }
        }
        None
    }

    /// Whether the collection whose span starts at `index` is a flow one:
    /// its first character past anchors, tags, blanks and comments.
    fn starts_flow(&mut self, index: usize) -> bool {
        if self.char_at(index).is_none() {
            return false;
        }
        let mut chars = self.text[self.cursor.1..].chars().peekable();
        loop {
            match chars.next() {
                Some(' ' | '\t' | '\n' | '\r') => {}
                Some('#') => while chars.next_if(|c| *c != '\n').is_some() {},
                Some('&' | '!') => {
                    while chars
                        .next_if(|c| !matches!(c, ' ' | '\t' | '\n' | '\r'))
                        .is_some()
                    {}
                }
                c => return matches!(c, Some('[' | '{')),
            }
        }
    }

    /// Counts a new collection against the depth and node budgets.
    fn open(&mut self, stack: &[Open], origin: &Origin) -> Result<(), Problem> {
        if stack.len() >= self.limits.max_depth {
            return Err(read_error(
                origin.clone(),
                format!(
                    "nesting deeper than the limit of {} levels",
                    self.limits.max_depth
                ),
            ));
        }
        self.count(1, origin)
    }

    fn count(&mut self, nodes: usize, origin: &Origin) -> Result<(), Problem> {
        self.nodes = self.nodes.saturating_add(nodes);
        node_budget(self.nodes, self.limits.max_nodes, self.shared, origin)
    }

    fn remember(&mut self, anchor: usize, node: Node) -> Result<Node, Problem> {
        if anchor != 0 {
            let (nodes, bytes) = node_size(&node);
            let anchored = Anchored {
                node: node.clone(),
                nodes,
                bytes,
            };
            self.anchors.insert(anchor, anchored);
        }
        Ok(node)
    }

    fn alias(&mut self, id: usize, origin: Origin) -> Result<Node, Problem> {
        let Some(&Anchored { nodes, bytes, .. }) = self.anchors.get(&id) else {
            return Err(read_error(origin, "alias to an unknown anchor"));
        };
        self.count(nodes, &origin)?;
        self.repeated = self.repeated.saturating_add(bytes);
        let max = self.limits.max_bytes;
        if self.text.len().saturating_add(self.repeated) > max {
            return Err(read_error(
                origin,
                format!(
                    "more than the limit of {max} bytes once aliases are expanded (an alias repeats the text of what it names)"
                ),
            ));
        }
        let mut node = self.anchors[&id].node.clone();
        node.origin = origin;
        Ok(node)
    }

    fn refuse_complex_key(&self, stack: &[Open], origin: &Origin) -> Result<(), Problem> {
        if let Some(Open::Mapping {
            pending_key: None, ..
        }) = stack.last()
        {
            return Err(read_error(
                origin.clone(),
                "a mapping key must be a scalar, not a sequence or mapping",
            ));
        }
        Ok(())
    }

    fn refuse_tag(&self, tag: Option<&Tag>, allowed: &str, origin: &Origin) -> Result<(), Problem> {
        match tag {
            None => Ok(()),
            Some(tag) if core_tag(tag) == Some(allowed) => Ok(()),
            Some(tag) => Err(read_error(
                origin.clone(),
                format!("unsupported YAML tag `{}`", quote(&written(tag))),
            )),
        }
    }

    fn scalar(
        &mut self,
        text: &str,
        style: ScalarStyle,
        tag: Option<&Tag>,
        origin: Origin,
    ) -> Result<Node, Problem> {
        self.count(1, &origin)?;
        if let Some(tag) = tag {
            return self.tagged_scalar(text, tag, origin);
        }
        if style != ScalarStyle::Plain {
            return Ok(Node::new(Value::String(text.to_owned()), origin));
        }
        let value = if self.kubernetes {
            self.resolve_manifest(text, &origin)?
        } else {
            resolve_plain(text).map_err(|message| {
                // The reader knows no key's type: an integer past 64 bits
                // is either a number too large or text left unquoted.
                let hint = if message.ends_with(TOO_LARGE) {
                    format!(
                        "an integer is at most {} (and at least {}); where the key takes text, quote it (\"{}\")",
                        i64::MAX,
                        i64::MIN,
                        quote(text)
                    )
                } else {
                    format!("quote it (\"{}\") if you mean the text", quote(text))
                };
                read_error(origin.clone(), message).with_hint(hint)
            })?
        };
        let plain = (!matches!(value, Value::String(_))).then(|| Box::new(text.to_owned()));
        Ok(Node {
            value,
            origin,
            plain,
        })
    }

    /// A plain scalar of a manifest: what YAML 1.2, go-yaml and YAML 1.1
    /// all read, or a located refusal.
    fn resolve_manifest(&self, text: &str, origin: &Origin) -> Result<Value, Problem> {
        let refuse =
            |e: dialects::Ambiguous| read_error(origin.clone(), e.message).with_hint(e.hint);
        Ok(match dialects::resolve(text).map_err(refuse)? {
            dialects::Reading::Null => Value::Null,
            dialects::Reading::Bool(b) => Value::Bool(b),
            // Go's reading: an int64, else a uint64 (as go-yaml resolves
            // a plain integer), which all three readers agree is this
            // integer.
            dialects::Reading::Int(i) => match (i64::try_from(i), u64::try_from(i)) {
                (Ok(i), _) => Value::Int(i),
                (Err(_), Ok(u)) => Value::Uint(u),
                _ => {
                    return Err(read_error(
                        origin.clone(),
                        format!("`{}` does not fit in a 64-bit integer", quote(text)),
                    ));
                }
            },
            dialects::Reading::Float(f) => Value::Float(f),
            dialects::Reading::Str => Value::String(text.to_owned()),
            other => {
                return Err(read_error(
                    origin.clone(),
                    format!("plain `{}` is {}", quote(text), other.describe(text)),
                )
                .with_hint(format!(
                    "quote it (\"{}\") if you mean the text",
                    quote(text)
                )));
            }
        })
    }

    /// A mapping key of a manifest: every reader must make the same key.
    fn check_key(
        &self,
        text: &str,
        style: ScalarStyle,
        tag: Option<&Tag>,
        origin: &Origin,
    ) -> Result<(), Problem> {
        if let Some(tag) = tag
            && core_tag(tag) != Some("str")
        {
            return Err(read_error(
                origin.clone(),
                format!(
                    "the tag `{}` on a key; readers of YAML 1.1 and 1.2 take it differently",
                    quote(&written(tag))
                ),
            )
            .with_hint("remove the tag and quote the key"));
        }
        if style != ScalarStyle::Plain || tag.is_some() {
            return Ok(());
        }
        dialects::check_key(text)
            .map_err(|e| read_error(origin.clone(), e.message).with_hint(e.hint))
    }

    fn tagged_scalar(&self, text: &str, tag: &Tag, origin: Origin) -> Result<Node, Problem> {
        let wrong = |what: &str| {
            read_error(
                origin.clone(),
                format!(
                    "`{}` is not {what}, as its tag `{}` says",
                    quote(text),
                    quote(&written(tag))
                ),
            )
        };
        let unsupported = || {
            read_error(
                origin.clone(),
                format!("unsupported YAML tag `{}`", quote(&written(tag))),
            )
        };
        // A tag no reader shares is named before its value is read.
        let core = core_tag(tag).filter(|t| ["str", "null", "bool", "int", "float"].contains(t));
        let Some(core) = core else {
            return Err(unsupported());
        };
        if self.kubernetes && core != "str" {
            // The tag only checks the type; the value is the plain reading,
            // which must be the same to every reader.
            self.resolve_manifest(text, &origin)?;
        }
        let value = match core {
            "str" => Value::String(text.to_owned()),
            "null" => match resolve_plain(text) {
                Ok(Value::Null) => Value::Null,
                _ => return Err(wrong("null")),
            },
            "bool" => match resolve_plain(text) {
                Ok(v @ Value::Bool(_)) => v,
                _ => return Err(wrong("a boolean")),
            },
            "int" => match resolve_plain(text) {
                Ok(v @ Value::Int(_)) => v,
                _ => return Err(wrong("an integer")),
            },
            "float" if self.kubernetes && !is_decimal_or_float(text) => {
                // PyYAML's float constructor takes no hex or octal.
                return Err(wrong("a decimal number"));
            }
            _ => match resolve_plain(text) {
                Ok(Value::Int(i)) => Value::Float(i as f64),
                Ok(v @ Value::Float(_)) => v,
                _ => return Err(wrong("a number")),
            },
        };
        Ok(Node::new(value, origin))
    }

    /// The YAML reader's error, with a hint where its words alone do not
    /// say what to do: a tab that indents, an alias of no anchor (named),
    /// a quote or a flow collection left open. An error the reader places
    /// past the last line (the text ended first) is placed at the end of
    /// the last line, and says it is at the end of the file.
    fn scan_error(&self, error: &ScanError) -> Problem {
        let marker = error.marker();
        let info = error.info();
        let (mut line, mut col0) = (marker.line(), marker.col());
        let last = crate::location::lines(self.text).count().max(1);
        let at_end = line > last || marker.index() >= self.text.chars().count();
        if line > last {
            line = last;
            col0 = (crate::location::lines(self.text).last()).map_or(0, |l| l.chars().count());
        }
        let ends_here = std::ptr::eq(
            self.text.as_ptr().wrapping_add(self.text.len()),
            self.source
                .text
                .as_ptr()
                .wrapping_add(self.source.text.len()),
        );
        let end = if ends_here {
            "the end of the file"
        } else {
            "the end of the document"
        };
        let mut message = format!("invalid YAML: {info}");
        let mut hint = None;
        if info.contains("tabs disallowed") {
            hint =
                Some("YAML forbids tabs for indentation: indent this line with spaces".to_owned());
        } else if info.contains("unknown anchor") {
            let alias: String = (crate::location::lines(self.text).nth(line.saturating_sub(1)))
                .unwrap_or_default()
                .chars()
                .skip(col0)
                .skip_while(|c| *c == '*')
                .take_while(|c| !c.is_whitespace() && !",[]{}".contains(*c))
                .collect();
            if !alias.is_empty() {
                message = format!(
                    "invalid YAML: the alias `*{alias}` names no anchor: no `&{alias}` comes before it in its document"
                );
                hint = Some(format!(
                    "define the anchor (`&{alias}`) before the alias, in the same document (anchors do not cross `---`), or write the value out"
                ));
            }
        } else if info.contains("quoted scalar") && info.contains("end of stream") {
            message =
                format!("invalid YAML: a quoted string that starts here is never closed ({info})");
            hint = Some(
                "close the quote; a double quote inside double quotes is written \\\", a single quote inside single quotes ''"
                    .to_owned(),
            );
        }
        if at_end {
            message = format!("{message}, at {end}");
            hint = hint.or_else(|| {
                Some(format!(
                    "{end} comes before something open is closed: close every quote, and every [ with ] and {{ with }}"
                ))
            });
        }
        let problem = read_error(
            Origin::at_marker(self.source, self.line_offset + line, col0),
            message,
        );
        match hint {
            Some(hint) => problem.with_hint(hint),
            None => problem,
        }
    }
}

/// The key path of a scalar `text` read with `stack` open: the pending keys
/// and item indexes, and `text` itself when it is a key.
/// Mappings up to this size find a duplicate key by scanning their entries;
/// larger ones keep an index, so the check stays linear for any size.
const DUPLICATE_SCAN: usize = 16;

/// The entry of `entries` already named `name`, if any; keeps `names`, the
/// index of a large mapping, up to date.
fn duplicate_of<'e>(
    entries: &'e [(Key, Node)],
    names: &mut Option<std::collections::HashSet<String>>,
    name: &str,
) -> Option<&'e (Key, Node)> {
    if entries.len() < DUPLICATE_SCAN {
        return entries.iter().find(|(k, _)| k.name == name);
    }
    let index = names.get_or_insert_with(|| entries.iter().map(|(k, _)| k.name.clone()).collect());
    if index.insert(name.to_owned()) {
        None
    } else {
        entries.iter().find(|(k, _)| k.name == name)
    }
}

fn path_of(stack: &[Open], text: &str) -> KeyPath {
    let segments = stack
        .iter()
        .map(|open| match open {
            Open::Sequence { items, .. } => Segment::Index(items.len()),
            Open::Mapping {
                pending_key: Some(key),
                ..
            } => Segment::Key(key.name.clone()),
            Open::Mapping { .. } => Segment::Key(text.to_owned()),
        })
        .collect();
    KeyPath(segments)
}

/// In a flow collection, YAML 1.1 readers (PyYAML, libyaml) cannot start a
/// plain scalar with `?` or `:`, and PyYAML ends one at `?`; YAML 1.2 reads
/// both as text.
fn refuse_flow_indicator(text: &str, origin: impl FnOnce() -> Origin) -> Result<(), Problem> {
    if text.starts_with(':') || text.contains('?') {
        return Err(read_error(
            origin(),
            format!(
                "plain `{}` in a flow collection: YAML 1.1 readers do not read a plain scalar with `?`, or starting with `:`, there",
                quote(text),
            ),
        )
        .with_hint(format!("quote it (\"{}\")", quote(text))));
    }
    Ok(())
}

/// A merge key, refused: in values, shared settings belong in an earlier
/// `-f` file; in manifests (which kubectl's YAML 1.1 reader merges, and a
/// YAML 1.2 one reads as a key `<<`) the keys are written out.
fn merge_key_error(origin: Origin, manifests: bool) -> Problem {
    let hint = match manifests {
        true => {
            "write the keys out: YAML 1.1 readers (kubectl) merge them, YAML 1.2 readers read a key named `<<`"
        }
        false => "write the keys out, or put shared settings in an earlier -f file",
    };
    read_error(origin, "YAML merge keys (`<<`) are not supported").with_hint(hint)
}

/// An anchored node, and what an alias of it repeats ([`node_size`]),
/// found once.
struct Anchored {
    node: Node,
    nodes: usize,
    bytes: usize,
}

/// The nodes of `node` and the bytes of its text (its strings and keys),
/// which an alias of it repeats.
fn node_size(node: &Node) -> (usize, usize) {
    let add = |(n, b): (usize, usize), (m, c): (usize, usize)| (n + m, b.saturating_add(c));
    match &node.value {
        Value::Sequence(items) => items.iter().map(node_size).fold((1, 0), add),
        Value::Mapping(entries) => (entries.iter())
            .map(|(key, n)| add(node_size(n), (0, key.name.len())))
            .fold((1, 0), add),
        Value::String(text) => (1, text.len()),
        _ => (1, 0),
    }
}

/// Resolves a plain scalar: null, boolean, integer, float or string. An error
/// names a number that cannot be represented.
pub fn resolve_plain(text: &str) -> Result<Value, String> {
    resolve_other_than_string(text).unwrap_or_else(|| Ok(Value::String(text.to_owned())))
}

/// Whether the plain scalar `text` reads as the string it spells (not a
/// null, boolean or number); decided without allocating.
pub fn plain_is_string(text: &str) -> bool {
    resolve_other_than_string(text).is_none()
}

/// [`resolve_plain`] for a scalar that is not a string; `None` for a string.
fn resolve_other_than_string(text: &str) -> Option<Result<Value, String>> {
    Some(match text {
        "" | "~" | "null" | "Null" | "NULL" => Ok(Value::Null),
        "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => {
            Ok(Value::Bool(true))
        }
        "false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => {
            Ok(Value::Bool(false))
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => Err(format!("`{}` is not a finite number", quote(text))),
        // Numbers start with a digit, a sign or a dot: past the words
        // above, text that starts with a letter is a string.
        _ if text.starts_with(|c: char| c.is_ascii_alphabetic()) => return None,
        _ => return resolve_number(text),
    })
}

/// A plain scalar that is no null or boolean, as a number; `None` when it is
/// a string.
fn resolve_number(text: &str) -> Option<Result<Value, String>> {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let negative = text.starts_with('-');
    let radix = |digits: &str, radix: u32| {
        i64::from_str_radix(digits, radix)
            .ok()
            .map(|v| if negative { -v } else { v })
    };
    let int = if let Some(hex) = unsigned.strip_prefix("0x") {
        radix(hex, 16).filter(|_| !hex.is_empty())
    } else if let Some(oct) = unsigned.strip_prefix("0o") {
        radix(oct, 8).filter(|_| !oct.is_empty())
    } else if unsigned.len() > 1
        && unsigned.starts_with('0')
        && unsigned.bytes().all(|b| (b'0'..=b'7').contains(&b))
    {
        // YAML 1.1 octal, as Kubernetes (go-yaml) reads `defaultMode: 0644`.
        radix(&unsigned[1..], 8)
    } else if !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()) {
        match text.parse::<i64>() {
            Ok(v) => Some(v),
            Err(_) => {
                return Some(Err(format!("`{}` {TOO_LARGE}", quote(text))));
            }
        }
    } else {
        None
    };
    if let Some(int) = int {
        return Some(Ok(Value::Int(int)));
    }
    if is_float(unsigned) {
        if let Ok(f) = text.parse::<f64>()
            && f.is_finite()
        {
            return Some(Ok(Value::Float(f)));
        }
        return Some(Err(format!("`{}` is not a finite number", quote(text))));
    }
    None
}

/// How [`resolve_plain`] ends its error for a decimal integer past 64 bits.
const TOO_LARGE: &str = "does not fit in a 64-bit integer";

/// Whether `text` is written as a decimal integer or a float.
fn is_decimal_or_float(text: &str) -> bool {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    is_float(unsigned) || (!unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()))
}

/// The YAML 1.2 core schema's float pattern, without sign and specials:
/// `( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`
fn is_float(text: &str) -> bool {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => digits(frac),
        Some((int, frac)) => digits(int) && (frac.is_empty() || digits(frac)),
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exponent_ok && (mantissa.contains('.') || exponent.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Option<Node>, Problem> {
        parse_document(&Source::file("t.yaml", text), Limits::VALUES)
    }

    /// A [`Lookup`] answers as [`Node::entry`] and [`Node::nearest`] do,
    /// each answer the same node, and indexes a large mapping once however
    /// many of its entries are asked for (a hash per lookup, not a scan),
    /// a small one never.
    #[test]
    fn a_lookup_answers_as_the_nodes_and_indexes_a_large_mapping_once() {
        let mut text = String::from("small: {a: 1, b: 2}\nlarge:\n");
        for i in 0..40 {
            text.push_str(&format!("  k{i}: {{v: {i}}}\n"));
        }
        for i in 0..40 {
            text.push_str(&format!("t{i}: {i}\n"));
        }
        let root = read(&text).unwrap().unwrap();
        let mut lookup = Lookup::new();
        let same = |a: Option<(&Key, &Node)>, b: Option<(&Key, &Node)>| match (a, b) {
            (Some((k, n)), Some((l, m))) => std::ptr::eq(k, l) && std::ptr::eq(n, m),
            (None, None) => true,
            _ => false,
        };
        let small = root.get("small").unwrap();
        for name in ["a", "b", "c"] {
            assert!(same(lookup.entry(small, name), small.entry(name)), "{name}");
        }
        assert_eq!(lookup.indexed(), 0);
        let large = root.get("large").unwrap();
        for i in 0..41 {
            let name = format!("k{i}");
            assert!(
                same(lookup.entry(large, &name), large.entry(&name)),
                "{name}"
            );
        }
        assert_eq!(lookup.indexed(), 1);
        for i in 0..41 {
            let name = format!("t{i}");
            assert!(
                same(lookup.entry(&root, &name), root.entry(&name)),
                "{name}"
            );
        }
        assert_eq!(lookup.indexed(), 2);
        for path in [
            "large.k7.v",
            "large.k7.w",
            "large.k99.v",
            "small.a",
            "small.z.y",
            "t3",
            "t3.x",
            "nothing",
            "large[0]",
        ] {
            let path = KeyPath::dotted(path);
            assert!(
                std::ptr::eq(lookup.nearest(&root, &path), root.nearest(&path)),
                "{path}"
            );
        }
        let indexed = KeyPath(vec![Segment::Key("large".into()), Segment::Index(0)]);
        assert!(std::ptr::eq(lookup.nearest(&root, &indexed), large));
        let listed = read("- a\n- b\n").unwrap().unwrap();
        let path = KeyPath(vec![Segment::Index(1)]);
        assert!(std::ptr::eq(
            lookup.nearest(&listed, &path),
            listed.nearest(&path)
        ));
        assert_eq!(lookup.indexed(), 2);
    }

    /// Malformed YAML names the file, a line of it (never one past the
    /// last: an error at the end of the text is placed at the end of the
    /// last line and says so) and what to do: a tab that indents, an alias
    /// of no anchor (named), a quote or a flow collection left open. Read
    /// as manifests and as values alike, whatever ends their lines.
    #[test]
    fn malformed_yaml_says_where_and_what_to_do() {
        let cases: [(&str, u32, &str, &str); 6] = [
            (
                "kind: ConfigMap\nmetadata:\n\tname: x\n",
                3,
                "tabs disallowed",
                "YAML forbids tabs for indentation: indent this line with spaces",
            ),
            (
                "kind: ConfigMap\ndata:\n  a: *nope\n",
                3,
                "the alias `*nope` names no anchor: no `&nope` comes before it",
                "define the anchor (`&nope`) before the alias",
            ),
            (
                "kind: ConfigMap\ndata:\n  a: \"open\n",
                3,
                "a quoted string that starts here is never closed",
                "close the quote",
            ),
            (
                "kind: ConfigMap\ndata: {a: b,\n",
                2,
                ", at the end of the file",
                "close every quote, and every [ with ] and { with }",
            ),
            (
                "kind: ConfigMap\ndata: [a, b\n",
                2,
                ", at the end of the file",
                "close every quote, and every [ with ] and { with }",
            ),
            (
                "kind: ConfigMap\ndata: [a, b",
                2,
                ", at the end of the file",
                "every [ with ]",
            ),
        ];
        // Lines end as YAML ends them: `\n`, `\r\n` or a lone `\r` alike.
        let breaks = cases.iter().flat_map(|&(text, line, message, hint)| {
            ["\n", "\r\n", "\r"].map(|end| (text.replace('\n', end), line, message, hint))
        });
        for (text, line, message, hint) in breaks {
            let text = text.as_str();
            let source = Source::file("t.yaml", text);
            for problem in [
                parse_manifests(&source, Limits::VALUES).unwrap_err(),
                read(text).unwrap_err(),
            ] {
                let Origin::At {
                    source, line: at, ..
                } = &problem.origin
                else {
                    panic!("{text:?}: no place: {problem:?}");
                };
                assert_eq!(
                    (source.name.as_str(), *at),
                    ("t.yaml", line),
                    "{text:?}: {problem:?}"
                );
                assert!(problem.message.contains(message), "{text:?}: {problem:?}");
                let given = problem.hint.as_deref().unwrap_or_default();
                assert!(given.contains(hint), "{text:?}: {problem:?}");
            }
        }
    }

    /// A node and a key of a large input stay small: every node and key
    /// carries an origin (24 bytes), a node is 64 bytes, a mapping entry
    /// 112 on 64-bit targets.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_node_and_a_mapping_entry_stay_small() {
        assert_eq!(std::mem::size_of::<Origin>(), 24);
        assert_eq!(std::mem::size_of::<Node>(), 64);
        assert_eq!(std::mem::size_of::<(Key, Node)>(), 112);
    }

    /// Read beside (the events made on the worker), a text gives the
    /// same nodes, or the same problem, as read on one thread: a large text
    /// in the fast source's subset; one that leaves it near its end (read
    /// again by saphyr); one past the node budget early (the reading stops
    /// while the source runs ahead); one with an error near its end; one
    /// with a duplicate key in its middle; each as values and as manifests.
    /// Two thousand items make more batches than the hand-over holds, so a
    /// source stopped early is one blocked on a full hand-over.
    #[test]
    fn a_text_read_beside_reads_as_on_one_thread() {
        let items: String = (0..2_000)
            .map(|i| {
                format!(
                    "  - name: p-{i}\n    repository: 'https://e.com/{i}.git'\n    resources: {{requests: {{cpu: \"1\"}}}}\n"
                )
            })
            .collect();
        let base = format!("projects:\n{items}");
        let few = Limits {
            max_nodes: 500,
            ..Limits::VALUES
        };
        let cases = [
            (base.clone(), Limits::VALUES, true),
            (
                format!("{base}other: &a [1]\nmore: *a\n"),
                Limits::VALUES,
                true,
            ),
            (base.clone(), few, false),
            (format!("{base}x: [unclosed\n"), Limits::VALUES, false),
            (
                base.replacen("  - name: p-500\n", "  - name: p-500\n    name: again\n", 1),
                Limits::VALUES,
                false,
            ),
        ];
        for (i, (text, limits, fine)) in cases.iter().enumerate() {
            let source = Source::file("t.yaml", text.as_str());
            for kubernetes in [false, true] {
                let read = |beside| {
                    let mut reader = Reader::new(&source, &source.text, 0, *limits, kubernetes);
                    reader.beside = beside;
                    reader.read()
                };
                let one = read(false);
                assert_eq!(read(true), one, "case {i}");
                assert_eq!(one.is_ok(), *fine, "case {i}: {one:?}");
            }
        }
    }

    /// A second document is refused where it starts, named as the caller
    /// names what holds one.
    #[test]
    fn a_second_document_is_refused_as_the_caller_names_the_text() {
        let source = Source::file("t.yaml", "a: 1\n---\nb: 2\n");
        let generic = parse_document(&source, Limits::VALUES).unwrap_err();
        assert_eq!(
            (generic.message.as_str(), generic.hint.as_deref()),
            (
                "a second YAML document; this text holds exactly one",
                Some("split the documents into separate texts")
            )
        );
        assert!(
            matches!(generic.origin, Origin::At { line: 3, .. }),
            "{:?}",
            generic.origin
        );
        let named = parse_one(&source, Limits::VALUES, ("a values file", "use -f")).unwrap_err();
        assert_eq!(
            named.message,
            "a second YAML document; a values file holds exactly one"
        );
        assert_eq!(named.hint.as_deref(), Some("use -f"));
        assert!(read("a: 1\n").unwrap().is_some());
    }

    /// `middle` between enough documents that the stream is read in two
    /// parts, split at a `---` line inside or after `middle`.
    fn padded(middle: &str) -> String {
        padded_by(middle, 1500)
    }

    /// `middle` between `documents` documents on each side, the two sides
    /// of one length (names of one width), so that the middle byte falls
    /// in `middle`.
    fn padded_by(middle: &str, documents: usize) -> String {
        let filler = |from: usize| -> String {
            (from..from + documents)
                .map(|i| {
                    format!(
                        "---\nkind: ConfigMap\nmetadata: {{name: \"c{i:05}\"}}\ndata:\n  k: v\n"
                    )
                })
                .collect()
        };
        format!("{}{middle}{}", filler(0), filler(documents))
    }

    /// Whether `text` is split at a `---` line of `middle` or the one
    /// right after it.
    fn split_at_middle(text: &str, middle: &str) -> bool {
        let from = text.find(middle).expect("the middle is in the text");
        document_start_near_middle(text)
            .is_some_and(|at| (from..=from + middle.len()).contains(&at))
    }

    const LIMITS: Limits = Limits {
        max_bytes: 64 << 20,
        max_depth: 64,
        max_nodes: 1_200_000,
    };

    #[test]
    fn a_stream_read_in_two_parts_gives_the_nodes_and_origins_of_one_read() {
        let middles = [
            // Plain, quoted, block and flow scalars, anchors, a tab in a
            // quoted scalar, non-ASCII text, an empty document.
            "---\na: &x {b: [1, \"two\", 'three']}\nc: *x\nd: |\n  line\n  ---\n  e\n",
            "---\nf: \"\\t\u{e9}t\u{e9}\"\n---\n---\ng: null\n",
            // A `---` line a top-level scalar might be thought to hold.
            "--- |\nblock\n---\nh: 1\n",
            "--- plain\n---\ni: 2\n",
            "--- >\n folded\n---\nj: 3\n",
        ];
        for middle in middles {
            let source = Source::file("t.yaml", padded(middle));
            assert!(split_at_middle(&source.text, middle), "{middle}");
            let one = parse_manifests(&source, LIMITS);
            let two = parse_manifests_split(&source, LIMITS);
            assert_eq!(one, two, "{middle}");
        }
    }

    #[test]
    fn a_stream_whose_middle_falls_inside_a_character_is_read() {
        // A large render's text with a four-byte character across its
        // middle byte, and another kind of line before it: found by
        // proptest once small texts were split too.
        for before in ["", "x: 1\n"] {
            let wide = "\u{1d546}".repeat(20_000);
            let text = format!("---\n{before}a: \"{wide}\"\n---\nb: 1\n");
            assert!(!text.is_char_boundary(text.len() / 2), "{before:?}");
            assert!(text.len() >= SPLIT_FROM);
            assert!(document_start_near_middle(&text).is_some());
            let source = Source::file("t.yaml", text);
            let one = parse_manifests(&source, LIMITS);
            assert!(one.is_ok());
            assert_eq!(parse_manifests_split(&source, LIMITS), one);
            assert_eq!(parse_manifests_split_from(&source, LIMITS, 8 << 10), one);
        }
    }

    #[test]
    fn a_small_stream_split_from_fewer_bytes_reads_as_one_read() {
        // Some 10 KB, as a render's larger templates write: split only
        // because the caller asks from 8 KiB.
        for middle in [
            "---\na: &x {b: [1, \"two\"]}\nc: *x\n",
            "---\na: [1,\n---\n2]\n",
        ] {
            let source = Source::file("t.yaml", padded_by(middle, 100));
            assert!((8 << 10..SPLIT_FROM).contains(&source.text.len()));
            assert!(split_at_middle(&source.text, middle), "{middle}");
            let one = parse_manifests(&source, LIMITS);
            assert_eq!(
                parse_manifests_split_from(&source, LIMITS, 8 << 10),
                one,
                "{middle}"
            );
        }
    }

    #[test]
    fn a_stream_read_in_two_parts_fails_as_one_read_fails() {
        let middles = [
            // A flow collection and a quoted scalar across the `---` line.
            "---\na: [1,\n---\n2]\n",
            "---\na: \"x\n---\ny\"\n",
            // Errors in the second part that the first precedes.
            "---\nb: 1\n\tc: 2\n",
            "---\nd: 1\nd: 2\n",
            "---\ne: &a b\nf: *nope\n",
            "kind: x\n",
        ];
        for middle in middles {
            let source = Source::file("t.yaml", padded(middle));
            let one = parse_manifests(&source, LIMITS);
            let two = parse_manifests_split(&source, LIMITS);
            assert_eq!(one, two, "{middle}");
        }
        // A budget the two parts pass together but neither alone.
        let source = Source::file("t.yaml", padded(""));
        let within = |max_nodes| {
            parse_manifests(
                &source,
                Limits {
                    max_nodes,
                    ..LIMITS
                },
            )
            .is_ok()
        };
        // The stream's node count: the least budget it stays within.
        let (mut low, mut high) = (1, LIMITS.max_nodes);
        while low < high {
            let mid = (low + high) / 2;
            if within(mid) {
                high = mid
            } else {
                low = mid + 1
            }
        }
        let tight = Limits {
            max_nodes: low * 2 / 3,
            ..LIMITS
        };
        assert_eq!(
            parse_manifests(&source, tight),
            parse_manifests_split(&source, tight)
        );
    }

    /// A reader of `source`'s whole text, as values or as manifests.
    fn reader(source: &Arc<Source>, kubernetes: bool) -> Reader<'_> {
        Reader::new(source, &source.text, 0, Limits::VALUES, kubernetes)
    }

    /// Reads `text` as the reader does (the fast source, saphyr when it
    /// gives up) and with saphyr alone, as values and as manifests: the
    /// same nodes with the same origins, or the same error. Whether the fast
    /// source read it (its events then are saphyr's, spans included).
    fn paths_agree(text: &str) -> bool {
        let fast = subset::tests::agrees(text);
        let source = Source::file("t.yaml", text);
        for kubernetes in [false, true] {
            let read = reader(&source, kubernetes).read();
            let mut alone = reader(&source, kubernetes);
            let by_saphyr = alone
                .read_events(Parser::new_from_str(&source.text), |r, e| {
                    Some(r.scan_error(&e))
                })
                .map_err(|problem| problem.expect("saphyr's errors are problems"));
            assert_eq!(read, by_saphyr, "{text:?}, manifests: {kubernetes}");
        }
        fast
    }

    /// The crate's own fixtures (manifests of many kinds, as renders and
    /// people write them) read alike through both paths, and mostly
    /// through the fast one. (The whole repository's YAML, the chart's
    /// values and renders among it, is the root package's test:
    /// `tests/it/reading.rs`.)
    #[test]
    fn the_fixtures_read_the_same_through_the_fast_source() {
        // Every YAML file of the fixtures, through the one walk.
        let files: Vec<std::path::PathBuf> = crate::files::walk(crate::fixtures::dir())
            .flatten()
            .filter(|entry| entry.file_type().is_file())
            .map(walkdir::DirEntry::into_path)
            .filter(|path| path.extension().is_some_and(|e| e == "yaml" || e == "yml"))
            .collect();
        let (mut fast, mut total) = (0, 0);
        for file in &files {
            let Ok(text) = std::fs::read_to_string(file) else {
                continue;
            };
            total += 1;
            fast += usize::from(paths_agree(&text));
        }
        eprintln!("{fast} of {total} YAML files read by the fast source");
        assert!(total > 80, "{total} files");
        // Most of what the fixtures hold is in the subset.
        assert!(fast * 10 > total * 9, "{fast} of {total}");
    }

    /// The choices a generated document is made of, drawn by proptest: a
    /// failing document shrinks with its choices (fewer, smaller), and past
    /// the last choice every answer is the first, the simplest.
    struct Rng {
        choices: Vec<u32>,
        next: usize,
    }

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            let choice = self.choices.get(self.next).copied().unwrap_or(0);
            self.next += 1;
            choice as usize % n
        }
        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len())]
        }
        /// One time in `one_in`; never once the choices are spent.
        fn chance(&mut self, one_in: usize) -> bool {
            self.below(one_in) == one_in - 1
        }
    }

    /// The choices of one generated stream.
    fn choices() -> impl proptest::strategy::Strategy<Value = Vec<u32>> {
        proptest::collection::vec(proptest::prelude::any::<u32>(), 0..160)
    }

    const KEYS: &[&str] = &[
        "a",
        "name",
        "app.kubernetes.io/name",
        "\"quoted key\"",
        "'single'",
        "k e y",
        "-k",
        "yes",
        "on",
        "0644",
        "\u{e9}t\u{e9}",
        "\"a: b\"",
        "x-y_z",
    ];

    const SCALARS: &[&str] = &[
        "v",
        "two words",
        "-1",
        "--flag=x",
        "a:b",
        "a#b",
        "yes",
        "No",
        "0644",
        "1.5",
        "~",
        "null",
        "\"quoted: with # and \\\" escapes \\u00e9\"",
        "'it''s'",
        "''",
        "\"\"",
        "\"\\t\\n\\x41\\U0001F600\"",
        "h\u{e9}llo",
        "x]",
        "a,b",
        "{}",
        "[]",
        "{a: 1, b: [x, y]}",
        "[a, 'b c', \"d\", {e: f}]",
        "[[], {}]",
        "\"a\"  ",
        "'' ",
        "1e3",
        "0x1F",
        ".inf",
        "http://x/y?z=1",
        "*a",
        "&a b",
        "!!str 1",
        "|",
        ">-",
        "@x",
        "`x`",
        "%x",
        "? x",
    ];

    const COMMENTS: &[&str] = &["", "", "", " # c", "  #c c", " #", "   "];

    /// A block mapping at `indent`, its first key at the end of `out`
    /// when `inline` (after `- `).
    fn mapping(rng: &mut Rng, out: &mut String, indent: usize, inline: bool, depth: usize) {
        for i in 0..1 + rng.below(3) {
            if !(inline && i == 0) {
                out.push_str(&" ".repeat(indent));
            }
            out.push_str(rng.pick(KEYS));
            out.push(':');
            value(rng, out, indent, depth);
        }
    }

    /// A block sequence at `indent`, its first `-` at the end of `out`
    /// when `inline`.
    fn sequence(rng: &mut Rng, out: &mut String, indent: usize, inline: bool, depth: usize) {
        for i in 0..1 + rng.below(3) {
            if !(inline && i == 0) {
                out.push_str(&" ".repeat(indent));
            }
            out.push('-');
            match rng.below(if depth > 3 { 2 } else { 6 }) {
                0 => line_end(rng, out),
                1 => scalar_line(rng, out),
                2 => {
                    out.push(' ');
                    mapping(rng, out, indent + 2, true, depth + 1);
                }
                3 => {
                    out.push(' ');
                    sequence(rng, out, indent + 2, true, depth + 1);
                }
                _ => {
                    line_end(rng, out);
                    let deeper = indent + 1 + rng.below(3);
                    if rng.chance(2) {
                        mapping(rng, out, deeper, false, depth + 1);
                    } else {
                        sequence(rng, out, deeper, false, depth + 1);
                    }
                }
            }
        }
    }

    /// What follows a key's `:`.
    fn value(rng: &mut Rng, out: &mut String, indent: usize, depth: usize) {
        match rng.below(if depth > 3 { 2 } else { 5 }) {
            0 => scalar_line(rng, out),
            1 => line_end(rng, out),
            2 => {
                line_end(rng, out);
                let deeper = indent + 1 + rng.below(3);
                mapping(rng, out, deeper, false, depth + 1);
            }
            3 => {
                line_end(rng, out);
                let deeper = indent + 2 * rng.below(2);
                sequence(rng, out, deeper, false, depth + 1);
            }
            _ => {
                line_end(rng, out);
                if rng.chance(2) {
                    out.push_str(&" ".repeat(indent + 2));
                    out.push_str("# between\n");
                }
                sequence(rng, out, indent, false, depth + 1);
            }
        }
    }

    /// The end of a line: a comment or none, and the break.
    fn line_end(rng: &mut Rng, out: &mut String) {
        out.push_str(rng.pick(COMMENTS));
        out.push('\n');
    }

    /// A scalar after its `:` or `-`, to the end of its line.
    fn scalar_line(rng: &mut Rng, out: &mut String) {
        out.push(' ');
        out.push_str(rng.pick(SCALARS));
        line_end(rng, out);
    }

    /// A stream of documents in and near the subset.
    fn stream(choices: Vec<u32>) -> String {
        let mut rng = Rng { choices, next: 0 };
        let mut out = String::new();
        for i in 0..1 + rng.below(3) {
            if i > 0 || rng.chance(2) {
                out.push_str(rng.pick(&["---", "--- ", "---  # c", "---\n# c"]));
                out.push('\n');
            }
            match rng.below(6) {
                0 => out.push_str("# just a comment\n"),
                1 => sequence(&mut rng, &mut out, 0, false, 0),
                _ => mapping(&mut rng, &mut out, 0, false, 0),
            }
        }
        if rng.chance(4) {
            out = out.replace('\n', "\r\n");
        }
        if rng.chance(4) {
            out.pop();
        }
        // Near the subset: an edit anywhere.
        if rng.chance(3) {
            let edits = [
                " ", "\n", "\t", ":", "- ", "#", "\"", "'", "[", "]", "{", "}", ",", "&a ", "*a",
                "!", "|", ">", "? ", "\r", "\u{e9}", "  ", "\u{2028}", "---\n", "...\n", "\\",
            ];
            let at = rng.below(out.len() + 1);
            let at = (0..=at)
                .rev()
                .find(|&i| out.is_char_boundary(i))
                .unwrap_or(0);
            if rng.chance(3) {
                let end = (at + 1..=out.len()).find(|&i| out.is_char_boundary(i));
                if let Some(end) = end {
                    out.replace_range(at..end, "");
                }
            } else {
                out.insert_str(at, rng.pick(&edits));
            }
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        #[test]
        fn documents_in_and_near_the_subset_read_the_same_through_both_sources(
            choices in choices()
        ) {
            paths_agree(&stream(choices));
        }
    }

    #[test]
    fn most_generated_documents_are_in_the_subset() {
        use proptest::strategy::{Strategy, ValueTree};
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let fast = (0..500)
            .map(|_| choices().new_tree(&mut runner).unwrap().current())
            .filter(|choices| paths_agree(&stream(choices.clone())))
            .count();
        eprintln!("{fast} of 500 generated streams read by the fast source");
        assert!(fast > 150, "{fast} of 500");
    }

    #[test]
    fn plain_scalars_resolve_like_the_core_schema_plus_yaml_1_1_booleans() {
        let cases = [
            ("", Value::Null),
            ("~", Value::Null),
            ("yes", Value::Bool(true)),
            ("Off", Value::Bool(false)),
            ("0123", Value::Int(83)),
            ("0644", Value::Int(420)),
            ("089", Value::Int(89)),
            ("-0x1F", Value::Int(-31)),
            ("0o17", Value::Int(15)),
            ("1.10", Value::Float(1.1)),
            ("1e3", Value::Float(1000.0)),
            (".5", Value::Float(0.5)),
            ("1.2.3", Value::String("1.2.3".into())),
            ("0x", Value::String("0x".into())),
            ("y", Value::String("y".into())),
            ("e3", Value::String("e3".into())),
        ];
        for (text, expected) in cases {
            assert_eq!(resolve_plain(text), Ok(expected), "{text:?}");
        }
        assert!(resolve_plain(".nan").is_err());
        assert!(resolve_plain("99999999999999999999").is_err());
    }

    #[test]
    fn nodes_keep_their_position_and_plain_text() {
        let doc = read("a:\n  b: 0123\n  c: \"x\"\n").unwrap().unwrap();
        let b = doc.get("a").unwrap().get("b").unwrap();
        assert_eq!(b.value, Value::Int(83));
        assert_eq!(b.plain.as_deref().map(String::as_str), Some("0123"));
        assert_eq!(b.origin.to_string(), "t.yaml:2:6");
        assert_eq!(doc.get("a").unwrap().get("c").unwrap().plain, None);
    }

    #[test]
    fn duplicate_keys_are_refused_naming_both_places() {
        let error = read("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert_eq!(error.origin.to_string(), "t.yaml:3:1");
        assert_eq!(error.message, "duplicate key `a`");
        assert_eq!(
            error.hint.as_deref(),
            Some("`a` is already set at t.yaml:1:1; keep one of them")
        );
    }

    #[test]
    fn duplicate_keys_are_refused_in_mappings_of_any_size() {
        // Small mappings scan, large ones index their keys: both find it.
        for (size, again) in [(3, 1), (DUPLICATE_SCAN, 2), (40, 5), (40, 30)] {
            let mut text: String = (0..size).map(|i| format!("k{i}: {i}\n")).collect();
            text += &format!("k{again}: x\n");
            let error = read(&text).unwrap_err();
            assert_eq!(error.message, format!("duplicate key `k{again}`"), "{size}");
            assert_eq!(error.origin.to_string(), format!("t.yaml:{}:1", size + 1));
        }
        let distinct: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
        assert!(read(&distinct).is_ok());
    }

    #[test]
    fn an_alias_bomb_runs_into_the_node_budget() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let p = i - 1;
            text += &format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            );
        }
        let error = read(&text).unwrap_err();
        assert!(
            error
                .message
                .starts_with("more than the limit of 200000 YAML nodes")
        );
    }

    /// A long scalar repeated by aliases counts each copy's bytes: few
    /// nodes, but a copy of the text for each alias, held to the byte
    /// budget (here the values' 4 MiB), keys' text too; below it, read.
    #[test]
    fn aliases_count_the_text_they_repeat() {
        let long = "x".repeat(1 << 20);
        let text = |aliases: usize| {
            format!(
                "a: &a {{\"{long}\": 1}}\nb: [{}]\n",
                vec!["*a"; aliases].join(", ")
            )
        };
        let error = read(&text(4)).unwrap_err();
        assert_eq!(
            error.message,
            "more than the limit of 4194304 bytes once aliases are expanded (an alias repeats the text of what it names)"
        );
        assert_eq!(error.origin.line(), 2);
        assert!(read(&text(2)).unwrap().is_some());
    }

    /// A whole number of a manifest past `i64::MAX` that fits in 64
    /// unsigned bits is what go-yaml reads it as, a `uint64`: an integer to
    /// all three readers, kept exact (a quantity field takes it, as a real
    /// server did). Past 64 bits go-yaml reads a float, and the readers
    /// disagree.
    #[test]
    fn a_manifests_integer_past_int64_is_a_uint64() {
        let read = |text: &str| {
            let source = Source::file("m.yaml", text);
            parse_manifests(&source, LIMITS).map(|docs| docs[0].to_json())
        };
        for (text, number) in [
            ("9223372036854775808", 9_223_372_036_854_775_808_u64),
            ("18446744073709551615", u64::MAX),
            ("0x8000000000000000", 9_223_372_036_854_775_808),
        ] {
            let json = read(&format!("a: {text}\n")).unwrap();
            assert_eq!(json["a"].as_u64(), Some(number), "{text}");
            assert_eq!(json["a"].to_string(), number.to_string(), "{text}");
        }
        assert_eq!(
            read("a: 9223372036854775807\n").unwrap()["a"].as_i64(),
            Some(i64::MAX)
        );
        for past in ["18446744073709551616", "-9223372036854775809"] {
            let error = read(&format!("a: {past}\n")).unwrap_err();
            assert!(
                error.message.contains("to Kubernetes (go-yaml, YAML 1.1)"),
                "{past}: {}",
                error.message
            );
        }
    }

    #[test]
    fn deep_nesting_is_refused() {
        let text = "[".repeat(100) + &"]".repeat(100);
        let error = read(&text).unwrap_err();
        assert_eq!(error.message, "nesting deeper than the limit of 64 levels");
    }

    #[test]
    fn aliases_expand_to_a_copy_of_the_anchored_node() {
        let doc = read("a: &r {x: 1}\nb: *r\n").unwrap().unwrap();
        assert_eq!(doc.get("b").unwrap().get("x").unwrap().value, Value::Int(1));
        assert_eq!(doc.get("b").unwrap().origin.to_string(), "t.yaml:2:4");
    }

    #[test]
    fn core_tags_force_a_type() {
        let doc = read("a: !!str 0123\nb: !!float 1\n").unwrap().unwrap();
        assert_eq!(doc.get("a").unwrap().value, Value::String("0123".into()));
        assert_eq!(doc.get("b").unwrap().value, Value::Float(1.0));
        assert!(read("a: !custom x\n").is_err());
        assert!(read("a: !!int x\n").is_err());
    }
}
