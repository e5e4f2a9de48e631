//! `--set KEY.PATH=VALUE` overrides.
//!
//! The key is a dotted path; `[N]` picks item N of a list (N may be the
//! list's length, to append); `\.` keeps a dot inside a key, as in
//! `commonLabels.team\.example\.com/owner=builds`. The value is read as one
//! YAML scalar, so `3` is a number, `true` a boolean and `'"1.10"'` a string.
//!
//! An argument obeys the budgets of a values file ([`Limits::VALUES`]): its
//! size, and the depth its key reaches; an index may only name an item or
//! append one, so `a[99999999]=1` is refused, never a giant list.

use std::sync::Arc;

use crate::diagnostic::{KeyPath, Segment, Syntax};
use crate::error::Error;
use crate::yaml::{self, Key, Limits, Node, Origin, Source, Value};

/// One parsed `--set` argument.
#[derive(Debug)]
pub struct Override {
    /// Where the key leads.
    pub path: KeyPath,
    /// The value, located at the argument.
    pub value: Node,
    source: Arc<Source>,
}

impl Override {
    /// Parses `KEY.PATH=VALUE`.
    pub fn parse(arg: &str) -> Result<Self, Error> {
        let syntax = |reason: &str| Error::SetSyntax {
            arg: arg.to_owned(),
            reason: reason.to_owned(),
        };
        let limits = Limits::VALUES;
        if arg.len() > limits.max_bytes {
            let start: String = arg.chars().take(40).collect();
            return Err(Error::SetSyntax {
                arg: format!("{start}…"),
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
        let source = Source::set_argument(arg);
        let origin = Origin::At {
            source: Arc::clone(&source),
            line: 1,
            col: 1,
            width: arg.chars().count().max(1),
        };
        let parsed = yaml::parse_document(&Source::file("--set", value), limits)
            .map_err(|e| syntax(&format!("the value is not valid YAML: {}", e.message)))?;
        let mut value = parsed.unwrap_or_else(|| Node::new(Value::Null, origin.clone()));
        if matches!(value.value, Value::Sequence(_) | Value::Mapping(_)) {
            return Err(syntax(
                "the value must be a single scalar; set list items with [N] or use a values file",
            ));
        }
        value.origin = origin;
        Ok(Override {
            path,
            value,
            source,
        })
    }

    /// Applies the override to `document`, making the maps and list items on
    /// the way that do not exist yet.
    pub fn apply(self, document: &mut Node) -> Result<(), Error> {
        let origin = self.value.origin.clone();
        let arg = self.source.text.clone();
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
                arg: arg.clone(),
                reason: format!(
                    "`{}` holds {} {found}, not {wanted}",
                    if here.is_empty() {
                        "the document"
                    } else {
                        &here
                    },
                    if found == "array" || found == "integer" {
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
                        return Err(Error::SetSyntax {
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
        *node = self.value;
        Ok(())
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
        for bad in ["", "a..b", "a.", "[0]", "a[x]", "a[0]b", ".a"] {
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

    #[test]
    fn arguments_obey_the_budgets_of_values_files() {
        let message = |arg: &str| Override::parse(arg).unwrap_err().to_string();
        let deep = format!("{}=1", vec!["a"; 65].join("."));
        assert_eq!(
            message(&deep),
            format!(
                "invalid argument `--set {deep}`: the key is 65 levels deep, past the limit of 64 levels that values files have too"
            )
        );
        let indexes = format!("a{}=1", "[0]".repeat(64));
        assert!(message(&indexes).contains("the key is 65 levels deep"));
        assert!(Override::parse(&format!("{}=1", vec!["a"; 64].join("."))).is_ok());
        let big = format!("a={}", "x".repeat(Limits::VALUES.max_bytes));
        assert_eq!(
            message(&big),
            format!(
                "invalid argument `--set a={}…`: the argument is larger than the limit of 4194304 bytes that values files have too",
                "x".repeat(38)
            )
        );
        // A huge index is refused before anything is allocated.
        let mut document = Node::empty_mapping(Origin::Default);
        let error = Override::parse("a[99999999]=1")
            .unwrap()
            .apply(&mut document)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid argument `--set a[99999999]=1`: `a` has 0 items; [99999999] is past the end (use [0] to append)"
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
            "invalid argument `--set projects[5].name=x`: `projects` has 2 items; [5] is past the end (use [2] to append)"
        );
        let into_scalar = Override::parse("projects[0].name.x=1")
            .unwrap()
            .apply(&mut document);
        assert_eq!(
            into_scalar.unwrap_err().to_string(),
            "invalid argument `--set projects[0].name.x=1`: `projects[0].name` holds a string, not a mapping"
        );
    }
}
