//! The set flags: `--set`, `--set-string`, `--set-file` and `--set-json`,
//! each `KEY.PATH=VALUE`, or several such pairs separated by commas, as
//! Helm reads them ([`SetArg::pairs`]): `--set a=1,b.c=2`; a comma inside
//! a value is escaped, `\,`; `{x,y}` is a list (`--set`, `--set-string`);
//! a `--set-json` value ends where its JSON does.
//!
//! The key is a dotted path; `[N]` picks item N of a list (N may be the
//! list's length, to append); `\\.` keeps a dot inside a key, as in
//! `commonLabels.team\\.example\\.com/owner=builds`. What the value is
//! depends on the flag ([`SetKind`]): one YAML scalar for `--set` (`3` is a
//! number, `true` a boolean; where the schema wants a string, a number is
//! the text as written), the text for `--set-string`, a file's text for
//! `--set-file`, a JSON value for `--set-json`.
//!
//! An argument obeys the budgets of a values file ([`Limits::VALUES`]): its
//! size, and the depth its key (and a JSON value below it) reaches; an
//! index may only name an item or append one, so `a[99999999]=1` is
//! refused, never a giant list. A `--set-file` file is read up to the same
//! size (a named pipe too); its text is never quoted back in a message.

use std::io::Read as _;

use crate::error::Error;
use kubernetes::location::{KeyPath, Segment, Syntax};
use kubernetes::location::{Origin, Source};
use kubernetes::text::{mask_quoted, mask_quoted_but};
use kubernetes::yaml::{self, Key, Limits, Node, Value};

/// Which set flag an argument came with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetKind {
    /// `--set`: the value is one YAML scalar.
    Yaml,
    /// `--set-string`: the value is the text, always a string.
    String,
    /// `--set-file`: the value names a file whose text is the string.
    File,
    /// `--set-json`: the value is JSON, any value.
    Json,
}

impl SetKind {
    /// The flag as the user typed it.
    pub fn flag(self) -> &'static str {
        match self {
            SetKind::Yaml => "--set",
            SetKind::String => "--set-string",
            SetKind::File => "--set-file",
            SetKind::Json => "--set-json",
        }
    }
}

/// One set flag's argument, as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetArg {
    /// The flag.
    pub kind: SetKind,
    /// `KEY.PATH=VALUE`.
    pub arg: String,
}

impl SetArg {
    /// A `--set` argument.
    pub fn yaml(arg: impl Into<String>) -> Self {
        SetArg {
            kind: SetKind::Yaml,
            arg: arg.into(),
        }
    }

    /// How a message names it: by its flag and key, the value left out
    /// (`--set buildd.logLevel=…`), as [`SetArg::shown`] writes it; a
    /// `--set-file` argument whole (`--set-file KEY=PATH`).
    pub fn name(&self) -> String {
        format!("{} {}", self.kind.flag(), self.shown())
    }

    /// The argument as an error names it: `KEY=…`, the value hidden (in
    /// `extraObjects` it may be a Secret's), as a masked problem names it;
    /// whole when it has no `=`, or for `--set-file`, whose value is a path
    /// (which the reason names anyway).
    pub fn shown(&self) -> String {
        match split_unescaped(&self.arg, '=') {
            Some((key, _)) if self.kind != SetKind::File => format!("{key}=…"),
            _ => self.arg.clone(),
        }
    }

    /// The `KEY=VALUE` pairs of the argument, as Helm splits them: at each
    /// comma outside a value's escape (`\,`) and outside a `{…}` list; a
    /// `--set-json` value ends where its JSON value does (commas inside it
    /// are its own). One pair: the argument as it is. At most one pair
    /// past [`super::MAX_SET_ARGUMENTS`] is made.
    pub fn pairs(&self) -> Result<Vec<SetArg>, Error> {
        let arg = self.arg.as_str();
        if arg.len() > Limits::VALUES.max_bytes {
            // [`Override::read`] refuses it whole.
            return Ok(vec![self.clone()]);
        }
        let mut pairs = Vec::new();
        let mut rest = arg;
        // Past the budget the run stops anyway: a huge argument of tiny
        // pairs makes no more than one pair over it.
        while !rest.is_empty() && pairs.len() <= super::MAX_SET_ARGUMENTS {
            let Some((key, value)) = split_unescaped(rest, '=') else {
                return Err(match pairs.last() {
                    None => self.syntax("no `=` after the key".to_owned()),
                    Some(last) => self.after_comma(last),
                });
            };
            if let Some(comma) = unescaped(key, ',') {
                return Err(match pairs.last() {
                    // Before any value: the text is a key's, and shown.
                    None => self.syntax(format!("`{}` has no `=`: {PAIRS}", &key[..comma])),
                    Some(last) => self.after_comma(last),
                });
            }
            let end = match self.kind {
                SetKind::Json => json_end(value),
                _ => value_end(value),
            };
            pairs.push(SetArg {
                kind: self.kind,
                arg: format!("{key}={}", &value[..end]),
            });
            rest = value[end..].strip_prefix(',').unwrap_or(&value[end..]);
        }
        if pairs.is_empty() {
            return Err(self.syntax("no `=` after the key".to_owned()));
        }
        Ok(pairs)
    }

    /// A syntax error of the argument, named as [`SetArg::shown`] names it.
    fn syntax(&self, reason: String) -> Error {
        Error::SetSyntax {
            flag: self.kind.flag(),
            arg: self.shown(),
            reason,
        }
    }

    /// The text after `last`'s comma has no `=`. That text is not quoted:
    /// it may be the rest of `last`'s value (a Secret's, a token's) that
    /// an unescaped comma cut.
    fn after_comma(&self, last: &SetArg) -> Error {
        let key = split_unescaped(&last.arg, '=').map_or("", |(key, _)| key);
        self.syntax(format!(
            "a comma ends `{key}=…` and the text after it has no `=`: {PAIRS}"
        ))
    }
}

/// How a set flag's argument holds several pairs.
const PAIRS: &str =
    "pairs are separated by commas, as in Helm; escape a comma inside a value as `\\,`";

/// Where a value ends: at the first comma no backslash escapes; for a
/// `{…}` list (a value that starts with `{`, as Helm reads one), after its
/// first unescaped `}`.
fn value_end(value: &str) -> usize {
    if value.starts_with('{')
        && let Some(close) = unescaped(value, '}')
    {
        return close + 1;
    }
    unescaped(value, ',').unwrap_or(value.len())
}

/// The byte index of the first `wanted` no backslash escapes.
fn unescaped(text: &str, wanted: char) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            c if c == wanted => return Some(at),
            _ => {}
        }
    }
    None
}

/// Where a `--set-json` value ends: after its JSON value, when a comma
/// follows it; else the whole rest (whose JSON errors are then reported).
fn json_end(value: &str) -> usize {
    let mut values = serde_json::Deserializer::from_str(value).into_iter::<serde::de::IgnoredAny>();
    match values.next() {
        Some(Ok(_)) => {
            let end = values.byte_offset();
            let after = value[end..].trim_start();
            if after.starts_with(',') {
                value.len() - after.len()
            } else {
                value.len()
            }
        }
        _ => value.len(),
    }
}

/// A value with Helm's escapes read: a backslash before a comma, a brace
/// or a backslash stands for that character.
fn unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some(&next @ (',' | '\\' | '{' | '}'))) => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// The items of a `{x,y}` list value, when the value is one (its closing
/// brace not escaped): split at the commas no backslash escapes. `{}` is
/// the empty list.
fn list_items(value: &str) -> Option<Vec<String>> {
    let inner = value.strip_prefix('{')?.strip_suffix('}')?;
    let trailing = inner.len() - inner.trim_end_matches('\\').len();
    if unescaped(inner, '}').is_some() || trailing % 2 == 1 {
        return None;
    }
    let mut items = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let end = unescaped(rest, ',').unwrap_or(rest.len());
        items.push(unescape(&rest[..end]));
        rest = rest[end..].strip_prefix(',').unwrap_or(&rest[end..]);
        if rest.is_empty() && inner.ends_with(',') {
            items.push(String::new());
        }
    }
    Some(items)
}

/// One parsed set argument.
#[derive(Debug)]
pub struct Override {
    /// Where the key leads.
    pub path: KeyPath,
    /// The value, located at the argument.
    pub value: Node,
    set: SetArg,
}

impl Override {
    /// Parses a `--set` argument, `KEY.PATH=VALUE`.
    pub fn parse(arg: &str) -> Result<Self, Error> {
        Self::read(&SetArg::yaml(arg))
    }

    /// Parses any set flag's argument, reading a `--set-file` file.
    pub fn read(set: &SetArg) -> Result<Self, Error> {
        let (arg, flag) = (set.arg.as_str(), set.kind.flag());
        let shown = set.shown();
        let syntax = |reason: &str| Error::SetSyntax {
            flag,
            arg: shown.clone(),
            reason: reason.to_owned(),
        };
        let limits = Limits::VALUES;
        if arg.len() > limits.max_bytes {
            let start: String = shown.chars().take(40).collect();
            return Err(Error::SetSyntax {
                flag,
                arg: match start.len() < shown.len() {
                    true => format!("{start}…"),
                    false => start,
                },
                reason: format!(
                    "the argument is larger than the limit of {} bytes that values files have too",
                    limits.max_bytes
                ),
            });
        }
        let (key, value) =
            split_unescaped(arg, '=').ok_or_else(|| syntax("no `=` after the key"))?;
        let path = parse_path(key).map_err(|reason| syntax(&reason))?;
        if path.0.len() > limits.max_depth {
            return Err(syntax(&format!(
                "the key is {} levels deep, past the limit of {} levels that values files have too",
                path.0.len(),
                limits.max_depth
            )));
        }
        let source = Source::argument(set.name(), arg);
        let origin = Origin::at(source, 1, 1, arg.chars().count().max(1));
        let offset = key.chars().count() + 1;
        let scalar = |text: &str| match set.kind {
            SetKind::Yaml => yaml_scalar(text, &origin),
            _ => Ok(Node::new(Value::String(text.to_owned()), origin.clone())),
        };
        let mut value = match set.kind {
            SetKind::Yaml | SetKind::String => match list_items(value) {
                Some(items) => items
                    .iter()
                    .map(|item| scalar(item))
                    .collect::<Result<Vec<_>, _>>()
                    .map(|items| Node::new(Value::Sequence(items), origin.clone())),
                // Text with an escape is the text: `\\{x\\}` is `{x}`.
                None if unescape(value) != value => {
                    Ok(Node::new(Value::String(unescape(value)), origin.clone()))
                }
                None => scalar(value),
            },
            SetKind::File => read_file(&unescape(value))
                .map(|text| Node::new(Value::String(text), origin.clone())),
            SetKind::Json => json_value(value, offset, path.0.len()),
        }
        .map_err(|reason| syntax(&reason))?;
        relocate(&mut value, &origin, set.kind != SetKind::Json);
        Ok(Override {
            path,
            value,
            set: set.clone(),
        })
    }

    /// Applies the override to `document`, making the maps and list items on
    /// the way that do not exist yet.
    pub fn apply(mut self, document: &mut Node) -> Result<(), Error> {
        // `KEY+=VALUE` appends as `KEY+:` in a file does: a mapping of that
        // one key merged over the parent.
        if let Some(Segment::Key(last)) = self.path.0.last()
            && super::appended(last).is_some()
        {
            let Some(Segment::Key(last)) = self.path.0.pop() else {
                unreachable!("matched above")
            };
            let origin = self.value.origin.clone();
            let key = yaml::Key {
                name: last,
                origin: origin.clone(),
            };
            let value = std::mem::replace(&mut self.value, Node::new(Value::Null, origin.clone()));
            self.value = Node::new(Value::Mapping(vec![(key, value)]), origin);
        }
        let origin = self.value.origin.clone();
        let (arg, flag) = (self.set.shown(), self.set.kind.flag());
        let mut node = document;
        let mut walked = KeyPath::root();
        for segment in &self.path.0 {
            let here = walked.to_string();
            let found = node.value.type_name();
            if matches!(node.value, Value::Null) {
                node.value = match segment {
                    Segment::Key(_) => Value::Mapping(Vec::new()),
                    Segment::Index(_) => Value::Sequence(Vec::new()),
                };
            }
            let blocked = |wanted: &str| Error::SetSyntax {
                flag,
                arg: arg.clone(),
                reason: format!(
                    "`{}` holds {} {found}, not {wanted}",
                    if here.is_empty() {
                        "the document"
                    } else {
                        &here
                    },
                    if found.starts_with(['a', 'e', 'i', 'o', 'u']) {
                        "an"
                    } else {
                        "a"
                    }
                ),
            };
            node = match (segment, &mut node.value) {
                (Segment::Key(key), Value::Mapping(entries)) => {
                    let at = match entries.iter().position(|(k, _)| &k.name == key) {
                        Some(at) => at,
                        None => {
                            entries.push((
                                Key {
                                    name: key.clone(),
                                    origin: origin.clone(),
                                },
                                Node::new(Value::Null, origin.clone()),
                            ));
                            entries.len() - 1
                        }
                    };
                    &mut entries[at].1
                }
                (Segment::Index(index), Value::Sequence(items)) => {
                    if *index > items.len() {
                        // A list the values do not have is an unknown key,
                        // as `--set a[0]=1` says of it, not an empty list.
                        if let Some(problem) = crate::schema::first_unknown_key(&walked, &origin) {
                            return Err(Error::InvalidValues {
                                problems: vec![problem],
                            });
                        }
                        return Err(Error::SetSyntax {
                            flag,
                            arg,
                            reason: format!(
                                "`{here}` has {} items; [{index}] is past the end (use [{}] to append)",
                                items.len(),
                                items.len()
                            ),
                        });
                    }
                    if *index == items.len() {
                        items.push(Node::new(Value::Null, origin.clone()));
                    }
                    &mut items[*index]
                }
                (Segment::Key(_), _) => return Err(blocked("a mapping")),
                (Segment::Index(_), _) => return Err(blocked("a list")),
            };
            walked = match segment {
                Segment::Key(key) => walked.key(key.clone()),
                Segment::Index(index) => walked.index(*index),
            };
        }
        // A JSON mapping merges over what is there, as a file's would,
        // `KEY+` appending to the list below.
        let mut problems = Vec::new();
        super::merge_at(node, self.value, &mut walked, &mut problems);
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::InvalidValues { problems })
        }
    }
}

/// A `--set` value: one YAML scalar.
fn yaml_scalar(value: &str, origin: &Origin) -> Result<Node, String> {
    // The reader's message may quote the value (`` `9…9` does not fit
    // in a 64-bit integer ``): what it quotes is left out.
    let parsed = yaml::parse_document(&Source::file("--set", value), Limits::VALUES)
        .map_err(|e| format!("the value is not valid YAML: {}", mask_quoted(&e.message)))?;
    let value = parsed.unwrap_or_else(|| Node::new(Value::Null, origin.clone()));
    if matches!(value.value, Value::Sequence(_) | Value::Mapping(_)) {
        return Err(
            "the value must be a single scalar; write a list as {a,b}, set items with [N], or use a values file"
                .to_owned(),
        );
    }
    Ok(value)
}

/// A `--set-json` value: JSON (checked by serde_json, which names the
/// column), read by the manifests' JSON reader for its budgets, duplicate
/// keys and JSON's escapes (a surrogate pair is one character).
/// `offset` is the value's column in the argument, less one; `depth` the
/// key's.
fn json_value(value: &str, offset: usize, depth: usize) -> Result<Node, String> {
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(value) {
        let text = e.to_string();
        let what = text
            .rsplit_once(" at line ")
            .map_or(text.as_str(), |(w, _)| w);
        let column = if e.line() <= 1 {
            format!("column {}", e.column() + offset)
        } else {
            format!("line {} column {} of the JSON", e.line(), e.column())
        };
        return Err(format!("the value is not valid JSON at {column}: {what}"));
    }
    let limits = Limits::VALUES;
    let node = yaml::parse_json_value(&Source::file("--set-json", value), limits)
        .map_err(|e| {
            // A key of the value is named (its path would name it), a
            // value never (`the number `1e999` is out of range`).
            let message = mask_quoted_but(&e.message, &["duplicate key "]);
            format!("the JSON value is refused: {message}")
        })?
        .expect("valid JSON is one document");
    let below = node_depth(&node);
    if depth + below > limits.max_depth + 1 {
        return Err(format!(
            "the key and the JSON value are {} levels deep, past the limit of {} levels that values files have too",
            depth + below - 1,
            limits.max_depth
        ));
    }
    Ok(node)
}

/// How many levels a node spans: 1 for a scalar.
fn node_depth(node: &Node) -> usize {
    1 + match &node.value {
        Value::Sequence(items) => items.iter().map(node_depth).max().unwrap_or(0),
        Value::Mapping(entries) => entries
            .iter()
            .map(|(_, n)| node_depth(n))
            .max()
            .unwrap_or(0),
        _ => 0,
    }
}

/// Puts every node and key of `node` at the argument. Without
/// `keep_plain` (JSON, which is typed) no number keeps a source text to
/// become a string.
fn relocate(node: &mut Node, origin: &Origin, keep_plain: bool) {
    node.origin = origin.clone();
    if !keep_plain {
        node.plain = None;
    }
    match &mut node.value {
        Value::Sequence(items) => {
            for item in items {
                relocate(item, origin, keep_plain);
            }
        }
        Value::Mapping(entries) => {
            for (key, child) in entries {
                key.origin = origin.clone();
                relocate(child, origin, keep_plain);
            }
        }
        _ => {}
    }
}

/// The largest `--set-file` file, in bytes: the limit of a values file.
pub const MAX_SET_FILE_BYTES: usize = Limits::VALUES.max_bytes;

/// A `--set-file` file's text: a regular file or a named pipe (read up to
/// the limit, so `<(command)` works), never a directory or a device.
fn read_file(path: &str) -> Result<String, String> {
    let cannot = |e: std::io::Error| format!("cannot read `{path}`: {e}");
    let metadata = std::fs::metadata(path).map_err(cannot)?;
    let kind = metadata.file_type();
    if kind.is_dir() {
        return Err(format!("`{path}` is a directory, not a file"));
    }
    if !kind.is_file() && !is_fifo(kind) {
        return Err(format!(
            "`{path}` is {}; only a file or a named pipe is read",
            kubernetes::files::describe(kind)
        ));
    }
    let too_large = || format!("`{path}` is larger than the limit of {MAX_SET_FILE_BYTES} bytes");
    if kind.is_file() && metadata.len() > MAX_SET_FILE_BYTES as u64 {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| {
            file.take(MAX_SET_FILE_BYTES as u64 + 1)
                .read_to_end(&mut bytes)
        })
        .map_err(cannot)?;
    if bytes.len() > MAX_SET_FILE_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|_| format!("`{path}` is not UTF-8 text"))
}

fn is_fifo(kind: std::fs::FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        kind.is_fifo()
    }
    #[cfg(not(unix))]
    {
        let _ = kind;
        false
    }
}

/// Splits at the first `separator` not escaped by a backslash.
fn split_unescaped(text: &str, separator: char) -> Option<(&str, &str)> {
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            c if c == separator && !escaped => return Some((&text[..at], &text[at + 1..])),
            _ => escaped = false,
        }
    }
    None
}

/// Parses `a.b[2].c\.d` into keys and indexes.
fn parse_path(key: &str) -> Result<KeyPath, String> {
    KeyPath::parse(key, Syntax::Set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_parse_keys_indexes_and_escaped_dots() {
        let path = parse_path(r"projects[1].resources.limits").unwrap();
        assert_eq!(path.to_string(), "projects[1].resources.limits");
        let path = parse_path(r"commonLabels.team\.example\.com/owner").unwrap();
        assert_eq!(
            path.0,
            [
                Segment::Key("commonLabels".into()),
                Segment::Key("team.example.com/owner".into())
            ]
        );
        for bad in [
            "", "a..b", "a.", "[0]", "a[x]", "a[0]b", ".a", "a[0", "a[", "a[0.b",
        ] {
            assert!(parse_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn values_are_yaml_scalars() {
        let value = |arg| Override::parse(arg).unwrap().value.value;
        assert_eq!(value("a=3"), Value::Int(3));
        assert_eq!(value("a=yes"), Value::Bool(true));
        assert_eq!(value("a=\"1.10\""), Value::String("1.10".into()));
        assert_eq!(value("a=x=y"), Value::String("x=y".into()));
        assert_eq!(value("a="), Value::Null);
        assert!(Override::parse("a=[1, 2]").is_err());
        assert!(Override::parse("a").is_err());
    }

    /// Helm's syntax: pairs separated by commas, `\,` inside a value,
    /// `{a,b}` lists, a JSON value ending where its JSON does.
    #[test]
    fn an_argument_holds_pairs_as_in_helm() {
        let pairs = |kind, arg: &str| -> Result<Vec<String>, String> {
            let set = SetArg {
                kind,
                arg: arg.to_owned(),
            };
            Ok(set
                .pairs()
                .map_err(|e| e.to_string())?
                .into_iter()
                .map(|p| p.arg)
                .collect())
        };
        assert_eq!(
            pairs(SetKind::Yaml, "buildd.replicas=2,gateway.replicas=3").unwrap(),
            ["buildd.replicas=2", "gateway.replicas=3"]
        );
        assert_eq!(
            pairs(SetKind::Yaml, r"a=x\,y,b=1").unwrap(),
            [r"a=x\,y", "b=1"]
        );
        assert_eq!(
            pairs(SetKind::Yaml, "a={x,y},b=1").unwrap(),
            ["a={x,y}", "b=1"]
        );
        assert_eq!(pairs(SetKind::Yaml, r"a\.b=1").unwrap(), [r"a\.b=1"]);
        assert_eq!(pairs(SetKind::Yaml, "a=1,").unwrap(), ["a=1"]);
        assert_eq!(
            pairs(SetKind::Json, r#"a={"x":[1,2]},b="c,d""#).unwrap(),
            [r#"a={"x":[1,2]}"#, r#"b="c,d""#]
        );
        assert_eq!(pairs(SetKind::Json, "a=[1,").unwrap(), ["a=[1,"]);
        assert_eq!(
            pairs(SetKind::Yaml, "a=1,b").unwrap_err(),
            r"invalid argument `--set a=…`: a comma ends `a=…` and the text after it has no `=`: pairs are separated by commas, as in Helm; escape a comma inside a value as `\,`"
        );
        // Braces make a list only at the start of a value, as in Helm.
        assert_eq!(pairs(SetKind::Yaml, "a=x{y,b=1").unwrap(), ["a=x{y", "b=1"]);
        assert!(
            pairs(SetKind::Yaml, "a={x,y}z,b=1").is_err(),
            "text after a list"
        );
        // The text after a comma may be the rest of a value: never quoted.
        let error = pairs(SetKind::Yaml, "token=s3cr,3t9,c=2").unwrap_err();
        assert!(error.contains("a comma ends `token=…`"), "{error}");
        assert!(!error.contains("s3cr") && !error.contains("3t9"), "{error}");
        let error = pairs(SetKind::Yaml, "token=s3cr,3t9").unwrap_err();
        assert!(!error.contains("s3cr") && !error.contains("3t9"), "{error}");
        assert!(
            pairs(SetKind::Yaml, "a,b=1")
                .unwrap_err()
                .contains("`a` has no `=`"),
        );
        let value = |kind, arg: &str| {
            Override::read(&SetArg {
                kind,
                arg: arg.to_owned(),
            })
            .unwrap()
            .value
            .to_json()
        };
        assert_eq!(
            value(SetKind::Yaml, "a={x,2,true}"),
            serde_json::json!(["x", 2, true])
        );
        assert_eq!(
            value(SetKind::String, "a={x,2}"),
            serde_json::json!(["x", "2"])
        );
        assert_eq!(value(SetKind::Yaml, "a={}"), serde_json::json!([]));
        assert_eq!(
            value(SetKind::Yaml, r"a={x\,y,z}"),
            serde_json::json!(["x,y", "z"])
        );
        assert_eq!(value(SetKind::Yaml, r"a=x\,y"), serde_json::json!("x,y"));
        assert_eq!(
            value(SetKind::String, r"a=c:\\d"),
            serde_json::json!(r"c:\d")
        );
        // An escaped brace is text; an escaped closing brace makes no list.
        assert_eq!(value(SetKind::Yaml, r"a=\{x\}"), serde_json::json!("{x}"));
        assert_eq!(value(SetKind::Yaml, r"a={x\}"), serde_json::json!("{x}"));
        assert_eq!(
            value(SetKind::Yaml, r"a={x\\\}"),
            serde_json::json!(r"{x\}")
        );
        assert_eq!(value(SetKind::Yaml, r"a={x\\}"), serde_json::json!([r"x\"]));
    }

    #[test]
    fn arguments_obey_the_budgets_of_values_files() {
        let message = |arg: &str| Override::parse(arg).unwrap_err().to_string();
        let key = vec!["a"; 65].join(".");
        let deep = format!("{key}=1");
        assert_eq!(
            message(&deep),
            format!(
                "invalid argument `--set {key}=…`: the key is 65 levels deep, past the limit of 64 levels that values files have too"
            )
        );
        let indexes = format!("a{}=1", "[0]".repeat(64));
        assert!(message(&indexes).contains("the key is 65 levels deep"));
        assert!(Override::parse(&format!("{}=1", vec!["a"; 64].join("."))).is_ok());
        let big = format!("a={}", "x".repeat(Limits::VALUES.max_bytes));
        assert_eq!(
            message(&big),
            "invalid argument `--set a=…`: the argument is larger than the limit of 4194304 bytes that values files have too"
        );
        let long_key = format!("{}=1", "k".repeat(Limits::VALUES.max_bytes));
        assert!(
            message(&long_key)
                .starts_with(&format!("invalid argument `--set {}…`", "k".repeat(40)))
        );
        // A huge index is refused before anything is allocated.
        let mut document = Node::empty_mapping(Origin::Default);
        let error = Override::parse("projects[99999999]=1")
            .unwrap()
            .apply(&mut document)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid argument `--set projects[99999999]=…`: `projects` has 0 items; [99999999] is past the end (use [0] to append)"
        );
        // Of a key the values do not have, the key is what is wrong.
        let error = Override::parse("a[99999999]=1")
            .unwrap()
            .apply(&mut document)
            .unwrap_err();
        let Error::InvalidValues { problems } = error else {
            panic!("{error}")
        };
        assert_eq!(
            (problems.len(), problems[0].message.as_str()),
            (1, "unknown key `a`")
        );
        assert!(message("a[99999999999999999999999]=1").contains("is not a list index"));
    }

    #[test]
    fn applying_makes_missing_maps_and_appends_list_items() {
        let mut document = Node::empty_mapping(Origin::Default);
        Override::parse("projects[0].name=app")
            .unwrap()
            .apply(&mut document)
            .unwrap();
        Override::parse("projects[1].name=web")
            .unwrap()
            .apply(&mut document)
            .unwrap();
        assert_eq!(
            document.to_json(),
            serde_json::json!({"projects": [{"name": "app"}, {"name": "web"}]})
        );
        let past_end = Override::parse("projects[5].name=x")
            .unwrap()
            .apply(&mut document);
        assert_eq!(
            past_end.unwrap_err().to_string(),
            "invalid argument `--set projects[5].name=…`: `projects` has 2 items; [5] is past the end (use [2] to append)"
        );
        let into_scalar = Override::parse("projects[0].name.x=1")
            .unwrap()
            .apply(&mut document);
        assert_eq!(
            into_scalar.unwrap_err().to_string(),
            "invalid argument `--set projects[0].name.x=…`: `projects[0].name` holds a string, not a mapping"
        );
    }

    #[test]
    fn each_flag_reads_its_value_its_way() {
        let read = |kind, arg: &str| {
            Override::read(&SetArg {
                kind,
                arg: arg.to_owned(),
            })
        };
        let value = |kind, arg| read(kind, arg).unwrap().value;
        assert_eq!(
            value(SetKind::String, "a=true").value,
            Value::String("true".into())
        );
        assert_eq!(
            value(SetKind::String, "a=").value,
            Value::String(String::new())
        );
        let json = value(SetKind::Json, r#"a={"b":[1,"1.10"]}"#);
        assert_eq!(json.to_json(), serde_json::json!({"b": [1, "1.10"]}));
        // Every node at the argument, named by its key only; a JSON
        // number keeps no source text.
        let Value::Mapping(entries) = &json.value else {
            panic!("a mapping")
        };
        assert_eq!(entries[0].0.origin.to_string(), "--set-json a=…");
        let Value::Sequence(items) = &entries[0].1.value else {
            panic!("a list")
        };
        assert_eq!(items[0].plain, None);
        let message = |kind, arg| read(kind, arg).unwrap_err().to_string();
        assert_eq!(
            message(SetKind::Json, "a.b=[1,"),
            "invalid argument `--set-json a.b=…`: the value is not valid JSON at column 7: EOF while parsing a value"
        );
        let deep = format!(
            "{}={}1{}",
            vec!["a"; 60].join("."),
            "[".repeat(5),
            "]".repeat(5)
        );
        assert!(message(SetKind::Json, &deep).contains("65 levels deep, past the limit of 64"));
        assert!(message(SetKind::File, "a=/nonexistent/x").starts_with(
            "invalid argument `--set-file a=/nonexistent/x`: cannot read `/nonexistent/x`: "
        ));
    }
}
