//! Which errors about a text of manifests may quote it: those about a
//! document that cannot be, nor hold, a Secret.
//!
//! An error about input that failed to read is shown before its objects
//! are known, so it cannot hide values the way `diff` does ([`crate::secret`]):
//! it either quotes its place (the message names the node's text, the
//! line is shown with a caret) or masks it whole. [`Quotable`] decides
//! per document, on a second, lenient reading of the text (every event of
//! the same YAML parser, with none of the manifest reader's refusals), so
//! that a Deployment whose arguments name `--daemon-tls-secret` is quoted
//! like any other object, and a Secret beside it is not:
//!
//! - a text that mentions no "secret" and uses no escape
//!   ([`crate::secret::text_could_hold_secret`]) is quoted throughout;
//! - otherwise an error is quoted only when the document it is in (from
//!   its start to the next one's, comments included) read whole, and is a
//!   mapping whose one `kind` is a string that could not be a Secret's,
//!   of which `diff` would hide nothing: no embedded Secret, no `List`
//!   item that is or may be one, no last-applied annotation holding one
//!   ([`crate::secret::redacted`] leaves it as it is);
//! - what cannot be known that way masks the document: a document that
//!   does not read to its end (a Secret whose `kind` follows the error
//!   would go unseen), one without a `kind`, an alias (it may carry a
//!   Secret's value elsewhere, or bring a `kind` in), a merge key (`<<`,
//!   which go-yaml merges), a key that is no scalar, a duplicated key that
//!   decides what an object is (`kind`, `items`, `metadata`, …), a tag
//!   outside YAML's core schema (`!!binary`, which go-yaml decodes), a
//!   kustomize `secretGenerator`, nesting past the manifests' depth;
//! - a document after one that does not read, or past the node budget, is
//!   masked too, as is a text that is not YAML at all.
//!
//! Aliases do not reach across documents (YAML's anchors are a document's
//! own), so a Secret in one document hides nothing in the next.

use std::borrow::Cow;

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};
use serde_json::Value as Json;

use crate::secret::{LAST_APPLIED, could_be_secret_kind, redacted, text_could_hold_secret};

/// A place in a text: 1-based line, and 1-based column in characters.
type Place = (u32, u32);

/// Whether errors about each document of a text may quote it.
#[derive(Debug)]
pub struct Quotable {
    /// Where each document judged starts, and whether an error in it may
    /// quote it; a place before the first start is the first document's,
    /// and one past the last judged start that one's (masked when the
    /// reading stopped there).
    starts: Vec<(Place, bool)>,
}

impl Quotable {
    /// Judges the documents of `text` up to the one holding `until` (the
    /// last place an error is about: the text past it is not read).
    pub fn judge(text: &str, until: Place) -> Self {
        if !text_could_hold_secret(text) {
            return Quotable {
                starts: vec![((1, 1), true)],
            };
        }
        Quotable {
            starts: Reading::new().read(text, until),
        }
    }

    /// Whether an error at `line` and `col` may quote the text.
    pub fn at(&self, line: u32, col: u32) -> bool {
        let after = self
            .starts
            .partition_point(|(start, _)| *start <= (line, col));
        self.starts[after.saturating_sub(1)].1
    }
}

/// Keys whose being written twice could change what an object is, or
/// what of it `diff` hides.
const DECIDING: [&str; 10] = [
    "apiVersion",
    "kind",
    "metadata",
    "annotations",
    "labels",
    "data",
    "stringData",
    "type",
    "items",
    LAST_APPLIED,
];

/// Most nodes read, past which the rest of the text is masked: the
/// manifests' budget.
const MAX_NODES: usize = crate::manifest::LIMITS.max_nodes;

/// Deepest nesting read, past which a document is masked.
const MAX_DEPTH: usize = crate::manifest::LIMITS.max_depth;

/// Whether a node's tag, if any, is one of YAML's core schema, which only
/// says what the text already reads as: any other (`!!binary`, which
/// go-yaml decodes, `!custom`) could make of it what this reading does
/// not see.
fn core_tag(tag: Option<&Tag>) -> bool {
    tag.is_none_or(|tag| {
        tag.is_yaml_core_schema()
            && matches!(
                tag.suffix.as_str(),
                "str" | "int" | "float" | "bool" | "null" | "map" | "seq"
            )
    })
}

/// An open collection of the document being read.
enum Open {
    Sequence(Vec<Json>),
    Mapping {
        entries: serde_json::Map<String, Json>,
        /// The key read, whose value comes next.
        key: Option<String>,
    },
}

/// The lenient reading of one text.
struct Reading {
    stack: Vec<Open>,
    /// The document read so far, once its root is closed.
    root: Option<Json>,
    /// Something the judgement cannot see through was found.
    unknowable: bool,
    nodes: usize,
}

impl Reading {
    fn new() -> Self {
        Reading {
            stack: Vec::new(),
            root: None,
            unknowable: false,
            nodes: 0,
        }
    }

    /// Each document's start and verdict, up to the one holding `until`.
    fn read(mut self, text: &str, until: Place) -> Vec<(Place, bool)> {
        let mut starts: Vec<(Place, bool)> = Vec::new();
        let mut start: Option<Place> = None;
        for event in Parser::new_from_str(text) {
            let Ok((event, span)) = event else {
                // The document it stops in, and all after it: masked.
                starts.push((start.unwrap_or((1, 1)), false));
                return starts;
            };
            let at = (span.start.line() as u32, span.start.col() as u32 + 1);
            self.nodes += 1;
            if self.nodes > MAX_NODES {
                starts.push((start.unwrap_or(at), false));
                return starts;
            }
            match event {
                Event::DocumentStart(_) => {
                    if at > until && !starts.is_empty() {
                        // Past every error: nothing more to judge.
                        return starts;
                    }
                    // The first document owns the text before it.
                    start = Some(if starts.is_empty() { (1, 1) } else { at });
                    self = Reading {
                        nodes: self.nodes,
                        ..Reading::new()
                    };
                }
                Event::DocumentEnd => {
                    let verdict = self.verdict();
                    starts.push((start.take().unwrap_or((1, 1)), verdict));
                }
                Event::StreamStart | Event::StreamEnd | Event::Nothing => {}
                Event::Alias(_) => {
                    self.unknowable = true;
                    self.attach(Json::Null);
                }
                Event::Scalar(text, style, _, tag) => {
                    if !core_tag(tag.as_deref()) {
                        self.unknowable = true;
                    }
                    self.on_scalar(text, style, tag.is_some());
                }
                Event::SequenceStart(_, ref tag) | Event::MappingStart(_, ref tag)
                    if !core_tag(tag.as_deref()) =>
                {
                    self.unknowable = true;
                    self.open(&event);
                }
                Event::SequenceStart(..) | Event::MappingStart(..) => self.open(&event),
                Event::SequenceEnd | Event::MappingEnd => {
                    let value = match self.stack.pop() {
                        Some(Open::Sequence(items)) => Json::Array(items),
                        Some(Open::Mapping { entries, .. }) => Json::Object(entries),
                        None => Json::Null,
                    };
                    // Past the depth, nothing is kept: the document is
                    // masked anyway, and a deep value is never walked.
                    let kept = if self.stack.len() >= MAX_DEPTH {
                        Json::Null
                    } else {
                        value
                    };
                    self.attach(kept);
                }
            }
        }
        if let Some(start) = start {
            // A stream that ended inside a document.
            starts.push((start, false));
        }
        if starts.is_empty() {
            starts.push(((1, 1), false));
        }
        starts
    }

    /// A sequence or a mapping starts.
    fn open(&mut self, event: &Event<'_>) {
        if matches!(self.stack.last(), Some(Open::Mapping { key: None, .. })) {
            // A key that is a collection.
            self.unknowable = true;
        }
        if self.stack.len() >= MAX_DEPTH {
            self.unknowable = true;
        }
        self.stack.push(match event {
            Event::SequenceStart(..) => Open::Sequence(Vec::new()),
            _ => Open::Mapping {
                entries: serde_json::Map::new(),
                key: None,
            },
        });
    }

    /// A scalar: a key, or a value.
    fn on_scalar(&mut self, text: Cow<'_, str>, style: ScalarStyle, tagged: bool) {
        if let Some(Open::Mapping { entries, key }) = self.stack.last_mut()
            && key.is_none()
        {
            let name = text.into_owned();
            if style == ScalarStyle::Plain && name == "<<" {
                self.unknowable = true;
            }
            if crate::secret::folded(&name).contains("secretgenerator") {
                self.unknowable = true;
            }
            let name = if entries.contains_key(&name) {
                if DECIDING.contains(&name.as_str())
                    || crate::secret::folded(&name).contains("secret")
                {
                    self.unknowable = true;
                }
                // Kept beside the first, so that its value is judged too.
                let mut n = 1;
                while entries.contains_key(&format!("{name}\u{0}{n}")) {
                    n += 1;
                }
                format!("{name}\u{0}{n}")
            } else {
                name
            };
            *key = Some(name);
            return;
        }
        let value = if style == ScalarStyle::Plain && !tagged {
            match crate::yaml::resolve_plain(&text) {
                Ok(value) => {
                    crate::yaml::Node::new(value, crate::location::Origin::Default).to_json()
                }
                Err(_) => Json::String(text.into_owned()),
            }
        } else {
            Json::String(text.into_owned())
        };
        self.attach(value);
    }

    /// Puts a finished value where it belongs.
    fn attach(&mut self, value: Json) {
        match self.stack.last_mut() {
            Some(Open::Sequence(items)) => items.push(value),
            Some(Open::Mapping { entries, key }) => match key.take() {
                Some(key) => {
                    entries.insert(key, value);
                }
                // An alias as a key.
                None => self.unknowable = true,
            },
            None => self.root = Some(value),
        }
    }

    /// Whether errors in the document just read may quote it.
    fn verdict(&self) -> bool {
        if self.unknowable || !self.stack.is_empty() {
            return false;
        }
        let Some(Json::Object(root)) = &self.root else {
            return false;
        };
        let kind = root.get("kind");
        if kind.is_none_or(|kind| !kind.is_string()) || could_be_secret_kind(kind) {
            return false;
        }
        let root = Json::Object(root.clone());
        redacted(&root) == root
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The verdict at the first character of each line of `text`.
    fn verdicts(text: &str) -> Vec<bool> {
        let lines = text.lines().count() as u32;
        let quotable = Quotable::judge(text, (lines, 1));
        (1..=lines).map(|line| quotable.at(line, 1)).collect()
    }

    #[test]
    fn a_document_that_cannot_be_a_secret_is_quoted_whatever_it_mentions() {
        let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: on\n  args: [--daemon-tls-secret=x]\n  volumes: [{secret: {secretName: s}}]\n";
        assert!(verdicts(deployment).iter().all(|v| *v), "{deployment}");
    }

    #[test]
    fn a_secret_or_what_could_be_one_is_masked() {
        for text in [
            "apiVersion: v1\nkind: Secret\ndata: {a: on}\n",
            // The kind after the data, in a List, in another spelling.
            "data: {a: on}\nkind: Secret\n",
            "kind: List\napiVersion: v1\nitems:\n- {kind: Secret, data: {a: on}}\n",
            "kind: List\napiVersion: v1\nitems:\n- {metadata: {name: x}, data: {a: on}}\n# secret\n",
            "kind: \"\\x53ecret\"\ndata: {a: on}\n",
            "kind: [Secret]\ndata: {a: on}\n",
            // No kind, or one that cannot be read.
            "metadata: {name: x}\ndata: {a: on}\n# secret\n",
            "kind: ConfigMap\ndata: {a: on\n# secret\n",
            // An embedded Secret, a last-applied one.
            "kind: Template\nobjects:\n- {kind: Secret, stringData: {a: on}}\n",
            "kind: ConfigMap\nmetadata:\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{\"kind\":\"Secret\",\"data\":{\"a\":\"b\"}}'\n",
            // What could bring a Secret in unseen.
            "kind: ConfigMap\nx: &a {kind: Secret, data: {a: b}}\ndata: *a\n",
            "kind: ConfigMap\n<<: {kind: Secret}\ndata: {a: on}\n",
            "kind: ConfigMap\nkind: Secret\ndata: {a: on}\n",
            "kind: Kustomization\nsecretGenerator: [{name: s, literals: [a=on]}]\n",
            "{kind: !!binary U2VjcmV0, metadata: {name: my-secret}, data: {a: on}}\n",
        ] {
            assert!(verdicts(text).iter().all(|v| !*v), "{text}");
        }
    }

    #[test]
    fn each_document_is_judged_on_its_own() {
        let text = "kind: ConfigMap\ndata: {a: on}\n---\nkind: Secret\ndata: {a: b}\n---\nkind: ConfigMap\ndata: {b: on}\n";
        assert_eq!(
            verdicts(text),
            [true, true, false, false, false, true, true, true]
        );
        // A document that does not read masks itself and what follows.
        let text = "kind: ConfigMap\ndata: {a: on}\n---\nkind: ConfigMap\ndata: {a: [}\n---\nkind: ConfigMap\n# secret\n";
        assert_eq!(
            verdicts(text),
            [true, true, false, false, false, false, false, false]
        );
    }

    #[test]
    fn a_text_that_mentions_no_secret_is_quoted_unread() {
        assert!(Quotable::judge("a: [\n", (1, 1)).at(1, 1));
    }
}
