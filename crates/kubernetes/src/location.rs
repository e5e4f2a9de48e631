//! Where something is in the input: the text it was read from
//! ([`Source`]), the place in it ([`Origin`]), and the key path to a node
//! ([`KeyPath`]), with the one parser of written paths ([`KeyPath::parse`]).
//! Below `yaml` and `diagnostic`, which both use it; it imports nothing of
//! the crate.

use std::fmt::{self, Write as _};
use std::sync::Arc;

/// A text that YAML was read from: a file, or one argument of a command
/// line.
#[derive(Debug, PartialEq, Eq)]
pub struct Source {
    /// How the source is named in messages: the path as the user gave it,
    /// or the argument as the caller shows it (with its option, if any).
    pub name: String,
    /// The full text, kept to quote the offending line in messages.
    pub text: String,
    /// Whether this is an argument rather than a file: one line of a
    /// command, named whole, with no line or column.
    pub is_argument: bool,
}

impl Source {
    /// A source read from a file named `name`.
    pub fn file(name: impl Into<String>, text: impl Into<String>) -> Arc<Self> {
        Arc::new(Self {
            name: name.into(),
            text: text.into(),
            is_argument: false,
        })
    }

    /// A source given on the command line as the argument `text`, named
    /// `name` in messages (as the caller shows it: a program names its
    /// option there, `--opt KEY=VALUE`).
    pub fn argument(name: impl Into<String>, text: impl Into<String>) -> Arc<Self> {
        Arc::new(Self {
            name: name.into(),
            text: text.into(),
            is_argument: true,
        })
    }

    /// The text of line `line` (1-based), without its line break: lines
    /// as YAML counts them ([`lines`]).
    pub fn line(&self, line: usize) -> Option<&str> {
        lines(&self.text).nth(line.checked_sub(1)?)
    }
}

/// The lines of `text` as YAML counts them, each without its break: a
/// line ends at `\r\n`, a lone `\r` or `\n` (the parser's line numbers
/// count all three; `str::lines` would miss a lone `\r`). No empty last
/// line after a final break, as `str::lines`.
///
/// ```
/// use kubernetes::location::lines;
///
/// assert_eq!(lines("a\rb\r\nc\nd\n").collect::<Vec<_>>(), ["a", "b", "c", "d"]);
/// assert_eq!(lines("").count(), 0);
/// ```
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = (!text.is_empty()).then_some(text);
    std::iter::from_fn(move || {
        let text = rest?;
        match text.find(['\r', '\n']) {
            None => {
                rest = None;
                Some(text)
            }
            Some(at) => {
                let width = if text[at..].starts_with("\r\n") { 2 } else { 1 };
                let after = &text[at + width..];
                rest = (!after.is_empty()).then_some(after);
                Some(&text[..at])
            }
        }
    })
}

/// Where a node came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A place in a source: 1-based line and column (in characters), and the
    /// number of characters the node spans on that line (at least 1).
    /// `u32`s: every source is read within a budget far below 4 GiB, and a
    /// large input holds millions of nodes and keys, each with an origin
    /// ([`Origin::at`] makes one from counts).
    At {
        /// The file or argument.
        source: Arc<Source>,
        /// 1-based line.
        line: u32,
        /// 1-based column, counted in characters.
        col: u32,
        /// Characters the node covers on its first line.
        width: u32,
    },
    /// The built-in default: no file or argument set this value.
    Default,
}

impl fmt::Display for Origin {
    /// `file:line:col` for a file, its name for an argument,
    /// `(default)` for a built-in default.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::At { source, .. } if source.is_argument => f.write_str(&source.name),
            Origin::At {
                source, line, col, ..
            } => write!(f, "{}:{line}:{col}", source.name),
            Origin::Default => f.write_str("(default)"),
        }
    }
}

/// A count of lines, characters or bytes as the compact places hold it
/// (an origin's, a trace's span): itself, or `u32::MAX` past it, which no
/// text read within the reading budgets (64 MiB at most) comes near.
pub fn saturating_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Origin {
    /// The place `line`, `col`, `width` in `source`, each count held at
    /// `u32::MAX` ([`saturating_u32`]).
    pub fn at(source: Arc<Source>, line: usize, col: usize, width: usize) -> Origin {
        Origin::At {
            source,
            line: saturating_u32(line),
            col: saturating_u32(col),
            width: saturating_u32(width),
        }
    }

    /// The 1-based line of this origin (0 for a built-in default).
    pub fn line(&self) -> usize {
        match self {
            Origin::At { line, .. } => *line as usize,
            Origin::Default => 0,
        }
    }

    /// The file, line and column of this origin, as a [`Location`]; `None`
    /// for a built-in default. An argument is its own `file`, with
    /// no line: it is one line of the command, not of a file.
    pub fn location(&self) -> Option<Location> {
        match self {
            Origin::At { source, .. } if source.is_argument => Some(Location {
                file: source.name.clone(),
                line: None,
                column: None,
            }),
            Origin::At {
                source, line, col, ..
            } => Some(Location {
                file: source.name.clone(),
                line: Some(*line as usize),
                column: Some(*col as usize),
            }),
            Origin::Default => None,
        }
    }
}

/// Where a diagnostic points a reader: a file (or argument) and,
/// when known, the 1-based line and column. The fields SARIF's physical
/// location holds (artifact, start line, start column); an [`Origin`]
/// gives one ([`Origin::location`]), and so does a template line that
/// wrote a rendered object, which has no column.
///
/// As JSON: `file`, then `line` and `column` when known.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Location {
    /// The file as the user named it, `templates/<name>` for a template,
    /// or an argument as its source names it.
    pub file: String,
    /// 1-based line, when the place is in a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column in characters, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Location {
    /// Line `line` of `file`, column unknown.
    pub fn line(file: impl Into<String>, line: usize) -> Self {
        Location {
            file: file.into(),
            line: Some(line),
            column: None,
        }
    }
}

impl fmt::Display for Location {
    /// `file:line` (the column is not shown: a reader looks for the line),
    /// or the file alone when there is no line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        match self.line {
            Some(line) => write!(f, ":{line}"),
            None => Ok(()),
        }
    }
}

/// One step of a path into a document: a mapping key or a sequence index.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Segment {
    /// A mapping key.
    Key(String),
    /// A sequence index.
    Index(usize),
}

/// A path to a node, shown as `builds.tls.duration` or `projects[2].name`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyPath(pub Vec<Segment>);

impl KeyPath {
    /// The empty path: the document's root.
    pub fn root() -> Self {
        KeyPath(Vec::new())
    }

    /// This path with a key appended.
    pub fn key(&self, key: impl Into<String>) -> Self {
        let mut path = self.clone();
        path.0.push(Segment::Key(key.into()));
        path
    }

    /// This path with an index appended.
    pub fn index(&self, index: usize) -> Self {
        let mut path = self.clone();
        path.0.push(Segment::Index(index));
        path
    }

    /// A path from its dotted form; every segment is a key. For paths written
    /// in the code, such as `"namespaces.builds"`.
    pub fn dotted(path: &str) -> Self {
        KeyPath(
            path.split('.')
                .map(|k| Segment::Key(k.to_owned()))
                .collect(),
        )
    }

    /// A path from a JSON pointer (`/spec/containers/0`); numeric segments
    /// are list indexes.
    pub fn from_pointer(pointer: &str) -> Self {
        KeyPath(
            pointer
                .split('/')
                .skip(1)
                .map(|s| s.replace("~1", "/").replace("~0", "~"))
                .map(|s| match s.parse::<usize>() {
                    Ok(index) => Segment::Index(index),
                    Err(_) => Segment::Key(s),
                })
                .collect(),
        )
    }

    /// Whether this is the root path.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

/// A path equals the text it prints as (`rules[0].verbs`).
impl PartialEq<&str> for KeyPath {
    fn eq(&self, text: &&str) -> bool {
        *text == self.to_string().as_str()
    }
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(key) if is_simple_key(key) => {
                    if i > 0 {
                        f.write_char('.')?;
                    }
                    f.write_str(key)?;
                }
                Segment::Key(key) => {
                    if i > 0 {
                        f.write_char('.')?;
                    }
                    write!(f, "{key:?}")?;
                }
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

fn is_simple_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// How a path is written on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// A key as Helm's `--set` writes it: keys split at `.`, `\` makes
    /// the next character part of the key (`team\.example\.com`), `[N]`
    /// is a list index.
    Set,
    /// A pattern of paths, written as the diff prints paths: keys split at
    /// `.`, `"…"` quotes dots and brackets, `[name]` is a list item by name
    /// (or index); every step is kept as a key, `*` included, for
    /// matching by text.
    Pattern,
}

impl KeyPath {
    /// Parses a path written by the user, in `syntax`; the error says what
    /// is wrong in words (each caller adds the argument it came from).
    pub fn parse(text: &str, syntax: Syntax) -> Result<Self, String> {
        match syntax {
            Syntax::Set => parse_set(text),
            Syntax::Pattern => parse_pattern(text),
        }
    }
}

fn parse_set(key: &str) -> Result<KeyPath, String> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut has_key = false;
    let mut chars = key.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                current.push(chars.next().ok_or("the key ends in a lone `\\`")?);
                has_key = true;
            }
            '.' => {
                if has_key {
                    segments.push(Segment::Key(std::mem::take(&mut current)));
                } else if !matches!(segments.last(), Some(Segment::Index(_))) {
                    return Err("the key has an empty part".to_owned());
                }
                has_key = false;
            }
            '[' => {
                if has_key {
                    segments.push(Segment::Key(std::mem::take(&mut current)));
                    has_key = false;
                } else if segments.is_empty() {
                    return Err("the key starts with `[`; name the list first".to_owned());
                }
                let mut digits = String::new();
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == ']' {
                        closed = true;
                        break;
                    }
                    digits.push(c);
                }
                if !closed {
                    return Err(format!("`[{digits}` has no closing `]`"));
                }
                let index = digits
                    .parse()
                    .map_err(|_| format!("`[{digits}]` is not a list index"))?;
                segments.push(Segment::Index(index));
                if let Some(next) = chars.peek().filter(|c| **c != '.' && **c != '[') {
                    return Err(format!("expected `.` or `[` after `]`, found `{next}`"));
                }
            }
            c => {
                current.push(c);
                has_key = true;
            }
        }
    }
    if has_key {
        segments.push(Segment::Key(current));
    } else if !matches!(segments.last(), Some(Segment::Index(_))) {
        return Err("the key is empty or ends with `.`".to_owned());
    }
    Ok(KeyPath(segments))
}

fn parse_pattern(text: &str) -> Result<KeyPath, String> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut bracket = false;
    let unbalanced = || format!("`{text}` has an unbalanced `[` or `]`");
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            '[' if !quoted && bracket => return Err(unbalanced()),
            ']' if !quoted && !bracket => return Err(unbalanced()),
            // An item's name may hold dots (`env[JAVA.OPTS]`), as printed.
            '.' if bracket => current.push(c),
            // `containers[buildd].image`, as the diff prints paths.
            '.' | '[' if !quoted => {
                bracket = c == '[';
                if !(bracket && current.is_empty() && !segments.is_empty()) {
                    segments.push(Segment::Key(std::mem::take(&mut current)));
                }
            }
            ']' if !quoted => bracket = false,
            c => current.push(c),
        }
    }
    if quoted {
        return Err(format!("`{text}` has an unclosed quote"));
    }
    if bracket {
        return Err(unbalanced());
    }
    segments.push(Segment::Key(current));
    if segments
        .iter()
        .any(|s| matches!(s, Segment::Key(k) if k.is_empty()))
    {
        return Err(format!("`{text}` has an empty segment"));
    }
    Ok(KeyPath(segments))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts past `u32::MAX` are held at it, not wrapped; an origin
    /// stays small (every node and key of a large input carries one: 24
    /// bytes on 64-bit targets; the nodes' own sizes are `yaml`'s test).
    #[test]
    fn a_place_is_held_in_u32s_that_saturate() {
        assert_eq!(saturating_u32(7), 7);
        assert_eq!(saturating_u32(u32::MAX as usize), u32::MAX);
        assert_eq!(saturating_u32(usize::MAX), u32::MAX);
        let source = Source::file("f.yaml", "a: b\n");
        let origin = Origin::at(Arc::clone(&source), 2, usize::MAX, 3);
        assert!(matches!(
            origin,
            Origin::At {
                line: 2,
                col: u32::MAX,
                width: 3,
                ..
            }
        ));
        assert_eq!(origin.line(), 2);
        assert_eq!(Origin::Default.line(), 0);
        #[cfg(target_pointer_width = "64")]
        assert_eq!(std::mem::size_of::<Origin>(), 24);
    }

    #[test]
    fn key_paths_read_like_the_yaml() {
        let path = KeyPath::root()
            .key("projects")
            .index(2)
            .key("name")
            .key("app.kubernetes.io/name");
        assert_eq!(
            path.to_string(),
            r#"projects[2].name."app.kubernetes.io/name""#
        );
    }

    #[test]
    fn set_keys_parse_indexes_and_escaped_dots() {
        let path = KeyPath::parse(r"projects[1].resources.limits", Syntax::Set).unwrap();
        assert_eq!(
            path,
            KeyPath::root()
                .key("projects")
                .index(1)
                .key("resources")
                .key("limits")
        );
        let path = KeyPath::parse(r"commonLabels.team\.example\.com/owner", Syntax::Set).unwrap();
        assert_eq!(
            path,
            KeyPath::root()
                .key("commonLabels")
                .key("team.example.com/owner")
        );
        // After an index, a `.` may lead or end: both read as before.
        for same in ["a[0]", "a.[0]", "a[0]."] {
            assert_eq!(
                KeyPath::parse(same, Syntax::Set).unwrap(),
                KeyPath::root().key("a").index(0)
            );
        }
        let error = |text| KeyPath::parse(text, Syntax::Set).unwrap_err();
        assert_eq!(error(""), "the key is empty or ends with `.`");
        assert_eq!(error("a."), "the key is empty or ends with `.`");
        assert_eq!(error("a..b"), "the key has an empty part");
        assert_eq!(error(".a"), "the key has an empty part");
        assert_eq!(error("[0]"), "the key starts with `[`; name the list first");
        assert_eq!(error("a[x]"), "`[x]` is not a list index");
        assert_eq!(error("a[0]b"), "expected `.` or `[` after `]`, found `b`");
        assert_eq!(error("a\\"), "the key ends in a lone `\\`");
    }

    #[test]
    fn patterns_parse_quotes_named_items_and_wildcards() {
        let keys = |text| match KeyPath::parse(text, Syntax::Pattern) {
            Ok(path) => path
                .0
                .iter()
                .map(|s| match s {
                    Segment::Key(k) => k.clone(),
                    Segment::Index(i) => i.to_string(),
                })
                .collect::<Vec<_>>(),
            Err(e) => vec![format!("error: {e}")],
        };
        assert_eq!(
            keys(r#"metadata.labels."app.kubernetes.io/version""#),
            ["metadata", "labels", "app.kubernetes.io/version"]
        );
        assert_eq!(
            keys("spec.containers[buildd].image"),
            ["spec", "containers", "buildd", "image"]
        );
        assert_eq!(
            keys("spec.containers.*.image"),
            ["spec", "containers", "*", "image"]
        );
        assert_eq!(keys("a[0]"), ["a", "0"]);
        assert_eq!(keys(r#"a."b"#), ["error: `a.\"b` has an unclosed quote"]);
        assert_eq!(keys("a..b"), ["error: `a..b` has an empty segment"]);
        assert_eq!(keys(""), ["error: `` has an empty segment"]);
    }

    #[test]
    fn patterns_refuse_unbalanced_brackets() {
        let error = |text| KeyPath::parse(text, Syntax::Pattern).unwrap_err();
        for text in ["spec.containers[buildd", "a]b", "a[b[c]]", "a[b]]"] {
            assert_eq!(
                error(text),
                format!("`{text}` has an unbalanced `[` or `]`"),
                "{text}"
            );
        }
        assert!(KeyPath::parse(r#"a."b[c".d"#, Syntax::Pattern).is_ok());
        let named = KeyPath::parse("env[JAVA.OPTS].value", Syntax::Pattern).unwrap();
        assert_eq!(
            named,
            KeyPath::root().key("env").key("JAVA.OPTS").key("value")
        );
    }
}
