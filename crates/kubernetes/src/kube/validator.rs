//! The validator of the baked schemas (`build/kube_schemas.rs`: the
//! Kubernetes and cert-manager schemas, and the values schema): exactly the
//! keywords they use, under JSON Schema draft 2020-12, reporting what
//! jsonschema 0.61 reports for them: the same errors, at the same instance
//! paths, with the same messages, in the same order (its keyword priority:
//! `type`, `const`, `enum`, `minimum`, `maximum`, `minLength`, `maxLength`,
//! `required`, `pattern`, then the members of a closed object in the
//! instance's order, its unexpected members, a single `required` name it
//! fuses into that walk, then `items`, `anyOf` and `oneOf`, these two with
//! every branch's errors when they fail). `format` is an annotation in
//! 2020-12: kept in the tables, never asserted.

use std::fmt;
use std::sync::OnceLock;

use regex_automata::Input;
use regex_automata::dfa::{Automaton, dense};
use regex_automata::util::wire::AlignAs;
use serde_json::Value as Json;

use crate::location::{KeyPath, Segment};

/// One schema node. Indices refer to its [`Table`]'s nodes, [`Str`]s
/// and [`List`]s to its pools (a node holds no pointer, so the nodes and
/// their pools are read-only data the loader never relocates); empty
/// lists and `None` mean the keyword is absent.
#[derive(Debug)]
pub struct Node {
    /// `type` as bits of [`Types`]; 0 when absent.
    pub types: u8,
    /// Whether `type` named one type (jsonschema words its error apart).
    pub single_type: bool,
    /// `const`, a string.
    pub constant: Option<Str>,
    /// `enum`, of strings only: a run of [`Tables::strs`].
    pub enumeration: List,
    /// `minimum`, an integer.
    pub minimum: Option<i64>,
    /// `maximum`, an integer.
    pub maximum: Option<i64>,
    /// `minLength`, in characters.
    pub min_length: Option<u64>,
    /// `maxLength`, in characters.
    pub max_length: Option<u64>,
    /// `required`, in the schema's order: a run of [`Tables::strs`].
    pub required: List,
    /// Whether the one `required` name is reported after the closed-object
    /// walk (jsonschema fuses it there).
    pub required_late: bool,
    /// `pattern`, an index into its [`Table`]'s patterns.
    pub pattern: Option<usize>,
    /// `format`: an annotation under draft 2020-12.
    pub format: Option<Str>,
    /// `properties`, sorted by name: a run of [`Tables::members`].
    pub properties: List,
    /// The `properties` marked `default: {}` (Go structs, not pointers,
    /// whose `{}` breaks a `required`): the API server's decoder reads
    /// each, absent or null, as `{}` and validates that
    /// ([`super::KubeSchemas::decoded`]). A run of [`Tables::strs`].
    pub filled: List,
    /// `additionalProperties`.
    pub additional: Additional,
    /// `items`.
    pub items: Option<u32>,
    /// `anyOf`: a run of [`Tables::branches`].
    pub any_of: List,
    /// `oneOf`: a run of [`Tables::branches`].
    pub one_of: List,
}

/// A string of a [`Table`]'s `strings`: its offset and length in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Str(pub u32, pub u32);

impl Str {
    fn range(self) -> std::ops::Range<usize> {
        span(self.0, self.1)
    }
}

/// `len` entries from `start`, as indices.
fn span(start: u32, len: u32) -> std::ops::Range<usize> {
    start as usize..start as usize + len as usize
}

/// A run of one of a [`Table`]'s lists: where it starts and how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct List(pub u32, pub u32);

impl List {
    /// The empty list: the keyword is absent.
    pub const EMPTY: List = List(0, 0);

    /// Whether the list has no entry.
    pub const fn is_empty(self) -> bool {
        self.1 == 0
    }

    /// The indices of its entries in their pool.
    pub fn range(self) -> std::ops::Range<usize> {
        span(self.0, self.1)
    }
}

/// `additionalProperties`.
#[derive(Debug, Clone, Copy)]
pub enum Additional {
    /// Absent or `true`.
    Any,
    /// `false`: only `properties` may appear.
    Forbid,
    /// A schema every member is checked against.
    Node(u32),
}

impl Node {
    /// The node with no keyword: everything is valid.
    pub const ANY: Node = Node {
        types: 0,
        single_type: false,
        constant: None,
        enumeration: List::EMPTY,
        minimum: None,
        maximum: None,
        min_length: None,
        max_length: None,
        required: List::EMPTY,
        required_late: false,
        pattern: None,
        format: None,
        properties: List::EMPTY,
        filled: List::EMPTY,
        additional: Additional::Any,
        items: None,
        any_of: List::EMPTY,
        one_of: List::EMPTY,
    };
}

/// `(apiVersion, kind, root node)` of a baked schema.
pub type KindRoot = (&'static str, &'static str, u32);

mod baked {
    use super::{Additional, AlignAs, KindRoot, List, Node, Str, Tables};
    include!(concat!(env!("OUT_DIR"), "/kube_schemas.rs"));
}

pub use baked::VERSIONS;

/// A set of JSON types, as jsonschema orders and names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Types(pub u8);

impl Types {
    const NAMES: [&'static str; 7] = [
        "null", "boolean", "integer", "number", "string", "array", "object",
    ];

    /// Whether `value` is of one of these types (a whole number in 64 bits
    /// is an integer, whatever its spelling).
    pub fn accept(self, value: &Json) -> bool {
        let bits = match value {
            Json::Null => 1,
            Json::Bool(_) => 2,
            Json::Number(n) if is_integer(n) => 4 | 8,
            Json::Number(_) => 8,
            Json::String(_) => 16,
            Json::Array(_) => 32,
            Json::Object(_) => 64,
        };
        self.0 & bits != 0
    }

    /// The names of these types, in jsonschema's order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        (0..7)
            .filter(move |bit| self.0 & (1 << bit) != 0)
            .map(|bit| Self::NAMES[bit])
    }
}

/// An integer as the API server's decoder reads one into an `int64` (or,
/// bounded further by the schema, an `int32`): whole, in 64 bits. A whole
/// number past them (`9223372036854775808`, `1e30`) it refuses.
fn is_integer(n: &serde_json::Number) -> bool {
    n.is_i64() || crate::json::whole_number(n).is_some()
}

/// The values an `enum` allows, read from its table's pools when a message
/// needs them: an error made while `anyOf` and `oneOf` branches are tried
/// (and then dropped) copies nothing.
#[derive(Debug, Clone, Copy)]
pub struct EnumValues {
    strs: &'static [Str],
    strings: &'static str,
}

impl EnumValues {
    /// The values, in the schema's order.
    pub fn iter(self) -> impl ExactSizeIterator<Item = &'static str> + Clone {
        let strings = self.strings;
        self.strs.iter().map(move |string| &strings[string.range()])
    }

    /// How many values.
    pub fn len(self) -> usize {
        self.strs.len()
    }

    /// Whether there is none (an `enum` never is).
    pub fn is_empty(self) -> bool {
        self.strs.is_empty()
    }
}

impl PartialEq for EnumValues {
    fn eq(&self, other: &EnumValues) -> bool {
        self.iter().eq(other.iter())
    }
}

/// What a violation is, with what its message needs.
#[derive(Debug, Clone, PartialEq)]
pub enum ErrorKind<'i> {
    /// `type`; `single` when the schema named one type.
    Type {
        /// The accepted types.
        expected: Types,
        /// Whether `type` named one type.
        single: bool,
    },
    /// `const`.
    Constant {
        /// The one allowed value.
        expected: &'static str,
    },
    /// `enum`.
    Enum {
        /// The allowed values.
        options: EnumValues,
    },
    /// `minimum`.
    Minimum {
        /// The limit.
        limit: i64,
    },
    /// `maximum`.
    Maximum {
        /// The limit.
        limit: i64,
    },
    /// `minLength`.
    MinLength {
        /// The limit.
        limit: u64,
    },
    /// `maxLength`.
    MaxLength {
        /// The limit.
        limit: u64,
    },
    /// `required`.
    Required {
        /// The missing member.
        property: &'static str,
    },
    /// `pattern`.
    Pattern {
        /// The pattern.
        pattern: &'static str,
    },
    /// `additionalProperties: false`.
    AdditionalProperties {
        /// The undeclared members, in the instance's order.
        unexpected: Vec<String>,
        /// The declared members (`properties`), sorted: what a misspelt
        /// member may have meant.
        known: Vec<&'static str>,
    },
    /// `anyOf`, no branch valid.
    AnyOf {
        /// Each branch's errors, in the schema's order.
        context: Vec<Vec<SchemaError<'i>>>,
    },
    /// `oneOf`, no branch valid.
    OneOfNotValid {
        /// Each branch's errors, in the schema's order.
        context: Vec<Vec<SchemaError<'i>>>,
    },
    /// `oneOf`, several branches valid.
    OneOfMultipleValid {
        /// Each branch's errors (the valid ones' empty), in the schema's order.
        context: Vec<Vec<SchemaError<'i>>>,
    },
}

/// One violation: where, of what value, and what.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaError<'i> {
    /// The offending node's path: a member's name as written, an item's
    /// index (see [`as_pointer_reads`]).
    pub path: KeyPath,
    /// The offending value.
    pub instance: &'i Json,
    /// The violation.
    pub kind: ErrorKind<'i>,
}

impl fmt::Display for SchemaError<'_> {
    /// jsonschema 0.61's message for the same error.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let instance = self.instance;
        match &self.kind {
            ErrorKind::Type {
                expected,
                single: true,
            } => {
                let name = expected.names().next().unwrap_or_default();
                write!(f, r#"{instance} is not of type "{name}""#)
            }
            ErrorKind::Type { expected, .. } => {
                write!(f, "{instance} is not of types ")?;
                for (i, name) in expected.names().enumerate() {
                    let comma = if i == 0 { "" } else { ", " };
                    write!(f, r#"{comma}"{name}""#)?;
                }
                Ok(())
            }
            ErrorKind::Constant { expected } => write!(f, "{} was expected", Quoted(expected)),
            ErrorKind::Enum { options } => write_enum(f, instance, *options),
            ErrorKind::Minimum { limit } => {
                write!(f, "{instance} is less than the minimum of {limit}")
            }
            ErrorKind::Maximum { limit } => {
                write!(f, "{instance} is greater than the maximum of {limit}")
            }
            ErrorKind::MinLength { limit } => {
                let s = if *limit == 1 { "" } else { "s" };
                write!(f, "{instance} is shorter than {limit} character{s}")
            }
            ErrorKind::MaxLength { limit } => {
                let s = if *limit == 1 { "" } else { "s" };
                write!(f, "{instance} is longer than {limit} character{s}")
            }
            ErrorKind::Required { property } => {
                write!(f, "{} is a required property", Quoted(property))
            }
            ErrorKind::Pattern { pattern } => write!(f, r#"{instance} does not match "{pattern}""#),
            ErrorKind::AdditionalProperties { unexpected, .. } => {
                f.write_str("Additional properties are not allowed (")?;
                for (i, name) in unexpected.iter().enumerate() {
                    let comma = if i == 0 { "" } else { ", " };
                    write!(f, "{comma}'{name}'")?;
                }
                let verb = if unexpected.len() == 1 { "was" } else { "were" };
                write!(f, " {verb} unexpected)")
            }
            ErrorKind::AnyOf { .. } => write!(
                f,
                "{instance} is not valid under any of the schemas listed in the 'anyOf' keyword"
            ),
            ErrorKind::OneOfNotValid { .. } => write!(
                f,
                "{instance} is not valid under any of the schemas listed in the 'oneOf' keyword"
            ),
            ErrorKind::OneOfMultipleValid { .. } => write!(
                f,
                "{instance} is valid under more than one of the schemas listed in the 'oneOf' keyword"
            ),
        }
    }
}

/// A string as JSON writes it.
struct Quoted<'a>(&'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = serde_json::to_string(self.0).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

/// jsonschema's enum message: up to three options, else two and a count.
fn write_enum(f: &mut fmt::Formatter<'_>, instance: &Json, options: EnumValues) -> fmt::Result {
    let options: Vec<&str> = options.iter().collect();
    write!(f, "{instance} is not one of ")?;
    if options.len() <= 3 {
        for (i, option) in options.iter().enumerate() {
            let sep = match i {
                0 => "",
                _ if i == options.len() - 1 => " or ",
                _ => ", ",
            };
            write!(f, "{sep}{}", Quoted(option))?;
        }
        Ok(())
    } else {
        write!(f, "{}, {}", Quoted(options[0]), Quoted(options[1]))?;
        write!(f, " or {} other candidates", options.len() - 2)
    }
}

/// Where the walk is, kept on the stack; made a [`KeyPath`] only for an error.
#[derive(Clone, Copy)]
enum Location<'a> {
    Root,
    Key(&'a Location<'a>, &'a str),
    Index(&'a Location<'a>, usize),
}

impl Location<'_> {
    fn to_key_path(self) -> KeyPath {
        let mut segments = Vec::new();
        let mut at = self;
        loop {
            match at {
                Location::Root => break,
                Location::Key(parent, key) => {
                    segments.push(Segment::Key(key.to_owned()));
                    at = *parent;
                }
                Location::Index(parent, index) => {
                    segments.push(Segment::Index(index));
                    at = *parent;
                }
            }
        }
        segments.reverse();
        KeyPath(segments)
    }
}

/// `path` as [`KeyPath::from_pointer`] reads jsonschema's instance path: a
/// member named like a number becomes an index.
pub fn as_pointer_reads(path: KeyPath) -> KeyPath {
    let segments = path.0.into_iter().map(|segment| match segment {
        Segment::Key(key) => match key.parse::<usize>() {
            Ok(index) => Segment::Index(index),
            Err(_) => Segment::Key(key),
        },
        index => index,
    });
    KeyPath(segments.collect())
}

/// Every violation of `instance` against node `root` of the Kubernetes
/// table ([`KUBERNETES`]), in jsonschema's order.
pub fn validate(root: u32, instance: &Json) -> Vec<SchemaError<'_>> {
    KUBERNETES.validate(root, instance)
}

/// What `build/kube_schemas.rs` bakes (its `TABLES`): the nodes, the
/// pools they refer to, and the patterns.
#[derive(Clone, Copy)]
pub struct Tables {
    /// Every node; a node's children are indices into these.
    pub nodes: &'static [Node],
    /// The strings [`Str`]s refer to, end to end.
    pub strings: &'static str,
    /// The lists of strings (`enum`, `required`).
    pub strs: &'static [Str],
    /// The `properties` lists: each name and its node.
    pub members: &'static [(Str, u32)],
    /// The `anyOf` and `oneOf` lists.
    pub branches: &'static [u32],
    /// The `pattern`s nodes refer to by index.
    pub patterns: &'static [&'static str],
    /// Each pattern's DFA as the build script serialized it, by index.
    pub dfas: &'static [&'static AlignAs<[u8], u32>],
}

/// A baked table of schema nodes: the vendored Kubernetes and custom kinds'
/// ([`KUBERNETES`]), or one document another crate bakes with
/// `build/kube_schemas.rs`'s `bake_document` (the chart's values schema).
pub struct Table {
    tables: Tables,
    /// Each pattern's matcher, made on first use.
    compiled: OnceLock<Vec<OnceLock<Matcher>>>,
}

impl Table {
    /// A table of what a build script baked (its `TABLES`).
    pub const fn new(tables: Tables) -> Table {
        Table {
            tables,
            compiled: OnceLock::new(),
        }
    }

    /// Every node; a node's children are indices into these.
    pub fn nodes(&self) -> &'static [Node] {
        self.tables.nodes
    }

    /// The `pattern`s nodes refer to by index.
    pub fn patterns(&self) -> &'static [&'static str] {
        self.tables.patterns
    }

    /// The pools the table reads, as its build script baked them: for the
    /// tests that check their structure, not an interface.
    #[doc(hidden)]
    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// The node at `index`.
    pub fn node(&self, index: u32) -> &'static Node {
        &self.tables.nodes[index as usize]
    }

    /// The text of `string`.
    pub fn text(&self, string: Str) -> &'static str {
        let strings: &'static str = self.tables.strings;
        &strings[string.range()]
    }

    /// The bytes of `string`: compared without the character-boundary
    /// checks of slicing a `str` (a string sorts as its UTF-8 bytes do).
    fn bytes(&self, string: Str) -> &'static [u8] {
        let strings: &'static str = self.tables.strings;
        &strings.as_bytes()[string.range()]
    }

    /// Whether `list` (a node's `enum`) holds `text`.
    fn strs_hold(&self, list: List, text: &str) -> bool {
        (self.tables.strs[list.range()].iter()).any(|&string| self.bytes(string) == text.as_bytes())
    }

    /// The strings of `list` (a node's `enum` or `required`).
    pub fn strs(&self, list: List) -> impl ExactSizeIterator<Item = &'static str> + '_ {
        self.tables.strs[list.range()]
            .iter()
            .map(|&string| self.text(string))
    }

    /// The members of `list` (a node's `properties`): each name, sorted,
    /// and its node.
    pub fn members(&self, list: List) -> impl ExactSizeIterator<Item = (&'static str, u32)> + '_ {
        self.tables.members[list.range()]
            .iter()
            .map(|&(name, node)| (self.text(name), node))
    }

    /// The branches of `list` (a node's `anyOf` or `oneOf`).
    pub fn branches(&self, list: List) -> &'static [u32] {
        &self.tables.branches[list.range()]
    }

    /// The node `node` declares for member `key` in its `properties`.
    pub fn property(&self, node: &Node, key: &str) -> Option<u32> {
        let members = &self.tables.members[node.properties.range()];
        members
            .binary_search_by(|&(name, _)| self.bytes(name).cmp(key.as_bytes()))
            .ok()
            .map(|i| members[i].1)
    }

    /// Every violation of `instance` against node `root`, in jsonschema's
    /// order.
    pub fn validate<'i>(&self, root: u32, instance: &'i Json) -> Vec<SchemaError<'i>> {
        let mut errors = Vec::new();
        walk(self, root, instance, Location::Root, &mut errors);
        errors
    }

    /// Whether `text` matches `patterns[index]` anywhere, as
    /// `regex::Regex::is_match` finds it.
    pub fn is_match(&self, index: usize, text: &str) -> bool {
        self.matcher(index).is_match(text)
    }

    /// Whether `patterns[index]` is matched by the DFA its build script
    /// baked, rather than compiled at run time.
    pub fn is_baked(&self, index: usize) -> bool {
        matches!(self.matcher(index), Matcher::Dfa(..))
    }

    /// The matcher of `patterns[index]`, made on first use (the values
    /// need three of them, not every Kubernetes one).
    fn matcher(&self, index: usize) -> &Matcher {
        let compiled = self
            .compiled
            .get_or_init(|| self.patterns().iter().map(|_| OnceLock::new()).collect());
        compiled[index].get_or_init(|| {
            let bytes = (self.tables.dfas.get(index)).map_or(&[][..], |dfa| &dfa.bytes);
            Matcher::new(self.patterns()[index], bytes)
        })
    }
}

/// A baked pattern's matcher: its DFA read from the build script's bytes
/// (no compile at run time), or the pattern compiled by the regex crate
/// should the bytes not read (a table made by hand, another byte order).
/// Both find a match anywhere in the text, as `Regex::is_match` does.
enum Matcher {
    Dfa(Box<dense::DFA<&'static [u32]>>, &'static str),
    Regex(regex::Regex),
}

impl Matcher {
    fn new(pattern: &'static str, bytes: &'static [u8]) -> Matcher {
        match dense::DFA::from_bytes(bytes) {
            Ok((dfa, _)) => Matcher::Dfa(Box::new(dfa), pattern),
            Err(_) => Matcher::Regex(compile(pattern)),
        }
    }

    fn is_match(&self, text: &str) -> bool {
        match self {
            // The DFA has no quit byte and is searched as it was built
            // (unanchored), so it cannot fail; were it to, the regex
            // answers.
            Matcher::Dfa(dfa, pattern) => dfa
                .try_search_fwd(&Input::new(text).earliest(true))
                .map_or_else(|_| compile(pattern).is_match(text), |found| found.is_some()),
            Matcher::Regex(regex) => regex.is_match(text),
        }
    }
}

/// `pattern` compiled by the regex crate, with the limits of
/// [`super::pattern_engine`].
fn compile(pattern: &str) -> regex::Regex {
    regex::RegexBuilder::new(pattern)
        .size_limit(super::PATTERN_SIZE_LIMIT)
        .dfa_size_limit(super::PATTERN_SIZE_LIMIT)
        .build()
        .expect("the build script compiled every pattern with these limits")
}

/// The vendored Kubernetes schemas and the custom kinds this crate knows.
pub static KUBERNETES: Table = Table::new(baked::TABLES);

fn push<'i>(
    out: &mut Vec<SchemaError<'i>>,
    at: Location<'_>,
    instance: &'i Json,
    kind: ErrorKind<'i>,
) {
    out.push(SchemaError {
        path: at.to_key_path(),
        instance,
        kind,
    });
}

fn walk<'i>(
    table: &Table,
    index: u32,
    instance: &'i Json,
    at: Location<'_>,
    out: &mut Vec<SchemaError<'i>>,
) {
    let node = table.node(index);
    if node.types != 0 && !Types(node.types).accept(instance) {
        let (expected, single) = (Types(node.types), node.single_type);
        push(out, at, instance, ErrorKind::Type { expected, single });
    }
    if let Some(expected) = node.constant.map(|c| table.text(c))
        && instance.as_str() != Some(expected)
    {
        push(out, at, instance, ErrorKind::Constant { expected });
    }
    let options = node.enumeration;
    if !options.is_empty()
        && !instance
            .as_str()
            .is_some_and(|s| table.strs_hold(options, s))
    {
        let options = EnumValues {
            strs: &table.tables.strs[options.range()],
            strings: table.tables.strings,
        };
        push(out, at, instance, ErrorKind::Enum { options });
    }
    match instance {
        Json::Number(number) => check_number(node, number, instance, at, out),
        Json::String(text) => check_length(node, text, instance, at, out),
        Json::Object(object) if !node.required_late => {
            check_required(table, node, object, instance, at, out);
        }
        _ => {}
    }
    if let (Some(pattern), Json::String(text)) = (node.pattern, instance)
        && !table.is_match(pattern, text)
    {
        let pattern = table.patterns()[pattern];
        push(out, at, instance, ErrorKind::Pattern { pattern });
    }
    match instance {
        Json::Object(object) => walk_members(table, node, object, instance, at, out),
        Json::Array(items) => {
            if let Some(item_node) = node.items {
                for (i, item) in items.iter().enumerate() {
                    walk(table, item_node, item, Location::Index(&at, i), out);
                }
            }
        }
        _ => {}
    }
    if !node.any_of.is_empty() {
        check_any_of(table, table.branches(node.any_of), instance, at, out);
    }
    if !node.one_of.is_empty() {
        check_one_of(table, table.branches(node.one_of), instance, at, out);
    }
}

/// Each `required` member `object` lacks, in the schema's order.
fn check_required<'i>(
    table: &Table,
    node: &Node,
    object: &serde_json::Map<String, Json>,
    instance: &'i Json,
    at: Location<'_>,
    out: &mut Vec<SchemaError<'i>>,
) {
    for property in table.strs(node.required) {
        if crate::json::get(object, property).is_none() {
            push(out, at, instance, ErrorKind::Required { property });
        }
    }
}

fn check_number<'i>(
    node: &Node,
    number: &serde_json::Number,
    instance: &'i Json,
    at: Location<'_>,
    out: &mut Vec<SchemaError<'i>>,
) {
    use std::cmp::Ordering::{Greater, Less};
    if let Some(limit) = node.minimum
        && compare(number, limit) == Less
    {
        push(out, at, instance, ErrorKind::Minimum { limit });
    }
    if let Some(limit) = node.maximum
        && compare(number, limit) == Greater
    {
        push(out, at, instance, ErrorKind::Maximum { limit });
    }
}

/// `number` against an integer limit, exactly (limits are within 2^53).
fn compare(number: &serde_json::Number, limit: i64) -> std::cmp::Ordering {
    if let Some(n) = number.as_i64() {
        n.cmp(&limit)
    } else if let Some(n) = number.as_u64() {
        i128::from(n).cmp(&i128::from(limit))
    } else {
        let n = number.as_f64().unwrap_or(f64::NAN);
        #[allow(clippy::cast_precision_loss)] // |limit| <= 2^53: exact
        n.partial_cmp(&(limit as f64))
            .unwrap_or(std::cmp::Ordering::Equal)
    }
}

fn check_length<'i>(
    node: &Node,
    text: &str,
    instance: &'i Json,
    at: Location<'_>,
    out: &mut Vec<SchemaError<'i>>,
) {
    if node.min_length.is_none() && node.max_length.is_none() {
        return;
    }
    let length = text.chars().count() as u64;
    if let Some(limit) = node.min_length.filter(|&l| length < l) {
        push(out, at, instance, ErrorKind::MinLength { limit });
    }
    if let Some(limit) = node.max_length.filter(|&l| length > l) {
        push(out, at, instance, ErrorKind::MaxLength { limit });
    }
}

/// A closed object's members in the instance's order, then its undeclared
/// members and a fused `required`; or each member against a schema.
fn walk_members<'i>(
    table: &Table,
    node: &Node,
    object: &'i serde_json::Map<String, Json>,
    instance: &'i Json,
    at: Location<'_>,
    out: &mut Vec<SchemaError<'i>>,
) {
    match node.additional {
        Additional::Any => {}
        Additional::Node(member_node) => {
            for (key, value) in object {
                walk(table, member_node, value, Location::Key(&at, key), out);
            }
        }
        Additional::Forbid => {
            let mut unexpected = Vec::new();
            for (key, value) in object {
                match table.property(node, key) {
                    Some(member_node) => {
                        walk(table, member_node, value, Location::Key(&at, key), out)
                    }
                    None => unexpected.push(key.clone()),
                }
            }
            if !unexpected.is_empty() {
                push(
                    out,
                    at,
                    instance,
                    ErrorKind::AdditionalProperties {
                        unexpected,
                        known: table.members(node.properties).map(|(n, _)| n).collect(),
                    },
                );
            }
            if node.required_late {
                check_required(table, node, object, instance, at, out);
            }
        }
    }
}

fn check_any_of<'i>(
    table: &Table,
    branches: &[u32],
    instance: &'i Json,
    at: Location<'_>,
    out: &mut Vec<SchemaError<'i>>,
) {
    if branches.iter().any(|&b| is_valid(table, b, instance)) {
        return;
    }
    let context = branch_errors(table, branches, instance, at);
    push(out, at, instance, ErrorKind::AnyOf { context });
}

fn check_one_of<'i>(
    table: &Table,
    branches: &[u32],
    instance: &'i Json,
    at: Location<'_>,
    out: &mut Vec<SchemaError<'i>>,
) {
    let mut valid = branches.iter().filter(|&&b| is_valid(table, b, instance));
    let multiple = match (valid.next(), valid.next()) {
        (None, _) => false,
        (Some(_), Some(_)) => true,
        (Some(_), None) => return,
    };
    let context = branch_errors(table, branches, instance, at);
    let kind = if multiple {
        ErrorKind::OneOfMultipleValid { context }
    } else {
        ErrorKind::OneOfNotValid { context }
    };
    push(out, at, instance, kind);
}

/// Each branch's errors at the instance's own location, as jsonschema
/// collects them for an `anyOf` or `oneOf` that fails.
fn branch_errors<'i>(
    table: &Table,
    branches: &[u32],
    instance: &'i Json,
    at: Location<'_>,
) -> Vec<Vec<SchemaError<'i>>> {
    branches
        .iter()
        .map(|&branch| {
            let mut errors = Vec::new();
            walk(table, branch, instance, at, &mut errors);
            errors
        })
        .collect()
}

fn is_valid(table: &Table, index: u32, instance: &Json) -> bool {
    let mut errors = Vec::new();
    walk(table, index, instance, Location::Root, &mut errors);
    errors.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes that do not read as a DFA (a table made by hand, or another
    /// byte order) leave the pattern to the regex crate.
    #[test]
    fn unreadable_bytes_fall_back_to_the_regex_crate() {
        static NOT_A_DFA: AlignAs<[u8; 8], u32> = AlignAs {
            _align: [],
            bytes: *b"not a df",
        };
        for bytes in [&[][..], &NOT_A_DFA.bytes[..]] {
            let matcher = Matcher::new("^[a-z]+$", bytes);
            assert!(matches!(matcher, Matcher::Regex(_)));
            assert!(matcher.is_match("abc"));
            assert!(!matcher.is_match("ab1"));
        }
    }
}
