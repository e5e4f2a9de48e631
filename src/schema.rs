//! The JSON Schema of the values: generated from [`Values`] by schemars,
//! enforced with the jsonschema crate.
//!
//! Validation runs on the merged YAML tree before serde sees it, so that every
//! violation is collected (serde stops at the first) and each is reported at
//! the node it concerns, in the file or `--set` argument that wrote it.

use std::sync::LazyLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::LocationSegment;
use jsonschema::{ValidationError, Validator};
use serde_json::Value as Json;

use crate::diagnostic::{KeyPath, Problem, Segment, closest};
use crate::model::Values;
use crate::model::types::{DIGEST_PATTERN, DNS_LABEL_PATTERN, QUANTITY_PATTERN};
use crate::yaml::{Node, Origin, Value};

/// The values schema as JSON.
pub fn values_schema() -> Json {
    schemars::schema_for!(Values).to_value()
}

/// The values schema as the text committed in `schema/values.schema.json`.
pub fn values_schema_text() -> String {
    let mut text =
        serde_json::to_string_pretty(&values_schema()).expect("a JSON value always serializes");
    text.push('\n');
    text
}

static SCHEMA: LazyLock<(Json, Validator)> = LazyLock::new(|| {
    let schema = values_schema();
    let validator = jsonschema::validator_for(&schema)
        .expect("the schema generated from the Values types is a valid JSON Schema");
    (schema, validator)
});

/// Checks a merged values document (`instance` is its JSON) against the
/// schema; returns every violation, located in `document`.
pub fn validate(document: &Node, instance: &Json) -> Vec<Problem> {
    let (schema, validator) = &*SCHEMA;
    let mut problems = Vec::new();
    for error in validator.iter_errors(instance) {
        explain(schema, document, &error, &mut problems);
    }
    if has_float(document) {
        floats_for_integers(schema, schema, document, &KeyPath::root(), &mut problems);
    }
    problems.dedup();
    problems
}

/// Whether a float is anywhere in `node`: most values files hold none, and
/// then the walk through the schema below is not needed.
fn has_float(node: &Node) -> bool {
    match &node.value {
        Value::Float(_) => true,
        Value::Mapping(entries) => entries.iter().any(|(_, child)| has_float(child)),
        Value::Sequence(items) => items.iter().any(has_float),
        _ => false,
    }
}

/// JSON Schema counts `3.0` as an integer; serde does not. Report a number
/// with a fraction part where the schema wants an integer, at its node.
fn floats_for_integers(
    root: &Json,
    schema: &Json,
    node: &Node,
    path: &KeyPath,
    out: &mut Vec<Problem>,
) {
    let schema = deref(root, schema);
    match &node.value {
        Value::Float(_) => {
            let integer = match &schema["type"] {
                Json::String(t) => t == "integer",
                Json::Array(types) => {
                    types.contains(&Json::from("integer")) && !types.contains(&Json::from("number"))
                }
                _ => false,
            };
            if integer && !out.iter().any(|p| p.path == *path) {
                out.push(Problem::new(
                    node.origin.clone(),
                    path.clone(),
                    format!("expected integer, found {}", describe(node)),
                ));
            }
        }
        Value::Mapping(entries) => {
            for (key, child) in entries {
                let sub = schema
                    .get("properties")
                    .and_then(|p| p.get(&key.name))
                    .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()));
                if let Some(sub) = sub {
                    floats_for_integers(root, sub, child, &path.key(key.name.clone()), out);
                }
            }
        }
        Value::Sequence(items) => {
            if let Some(sub) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    floats_for_integers(root, sub, item, &path.index(i), out);
                }
            }
        }
        _ => {}
    }
}

/// Turns one jsonschema error into problems located in the YAML tree.
fn explain(schema: &Json, document: &Node, error: &ValidationError<'_>, out: &mut Vec<Problem>) {
    let path = KeyPath(
        error
            .instance_path()
            .iter()
            .map(|segment| match segment {
                LocationSegment::Property(key) => Segment::Key(key.into_owned()),
                LocationSegment::Index(index) => Segment::Key(index.to_string()),
            })
            .collect(),
    );
    // JSON pointers cannot tell a key "0" from an index 0; the tree can.
    let (path, node) = resolve(document, &path);
    let origin = node.map_or(Origin::Default, |n| n.origin.clone());
    let shown = |n: Option<&Node>| n.map_or_else(String::new, describe);
    match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let known = known_keys(schema, &path);
            for key in unexpected {
                let origin = node
                    .and_then(|n| n.entry(key))
                    .map_or_else(|| origin.clone(), |(k, _)| k.origin.clone());
                let mut problem = Problem::new(
                    origin,
                    path.key(key.clone()),
                    format!("unknown key `{key}`"),
                );
                problem.hint = match closest(key, known.iter().map(String::as_str)) {
                    Some(near) => Some(format!("did you mean `{near}`?")),
                    None if known.is_empty() => None,
                    None => Some(format!("known keys here: {}", known.join(", "))),
                };
                out.push(problem);
            }
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => t.to_string(),
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            let mut problem = Problem::new(
                origin,
                path,
                format!("expected {expected}, found {}", shown(node)),
            );
            problem.hint = type_hint(&expected, node);
            out.push(problem);
        }
        ValidationErrorKind::Enum { options } => {
            let options: Vec<&str> = options
                .as_array()
                .map(|o| o.iter().filter_map(Json::as_str).collect())
                .unwrap_or_default();
            out.push(not_one_of(origin, path, node, error.instance(), &options));
        }
        ValidationErrorKind::Required { property } => out.push(Problem::new(
            origin,
            path,
            format!("missing key `{}`", property.as_str().unwrap_or_default()),
        )),
        ValidationErrorKind::Pattern { pattern } => {
            let what = match pattern.as_str() {
                DNS_LABEL_PATTERN => {
                    "is not a DNS-1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit)"
                }
                QUANTITY_PATTERN => "is not a Kubernetes quantity (such as 250m, 2, 1.5, 512Mi)",
                DIGEST_PATTERN => "is not an image digest (`sha256:` and 64 lowercase hex digits)",
                _ if pattern.contains("(h|m|s)") => {
                    "is not a duration (such as 2160h, 90m or 1h30m)"
                }
                _ => "does not match the expected form",
            };
            let mut problem = Problem::new(origin, path, format!("{} {what}", shown(node)));
            if what.starts_with("does not match") {
                problem.hint = Some(format!("the value must match `{pattern}`"));
            }
            out.push(problem);
        }
        ValidationErrorKind::MaxLength { limit } => out.push(Problem::new(
            origin,
            path,
            format!("{} is longer than {limit} characters", shown(node)),
        )),
        ValidationErrorKind::MinLength { limit: 1 } => {
            out.push(Problem::new(origin, path, "must not be empty"));
        }
        ValidationErrorKind::Minimum { limit } => out.push(Problem::new(
            origin,
            path,
            format!("{} is less than the minimum of {limit}", shown(node)),
        )),
        ValidationErrorKind::Maximum { limit } => out.push(Problem::new(
            origin,
            path,
            format!("{} is more than the maximum of {limit}", shown(node)),
        )),
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context }
            if context
                .iter()
                .all(|errors| errors.len() == 1 && constant(&errors[0]).is_some()) =>
        {
            // schemars writes an enum with documented variants as oneOf consts.
            let options: Vec<&str> = context.iter().filter_map(|e| constant(&e[0])).collect();
            out.push(not_one_of(origin, path, node, error.instance(), &options));
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            // schemars writes `Option<T>` as anyOf [T, null]: explain the branch
            // that is not the null one, so the user hears about T's rules.
            let branch = context
                .iter()
                .find(|errors| !errors.iter().all(|e| expects_only_null(e)))
                .or(context.first());
            match branch {
                Some(errors) if !errors.is_empty() => {
                    for e in errors {
                        explain(schema, document, e, out);
                    }
                }
                _ => out.push(Problem::new(origin, path, error.to_string())),
            }
        }
        _ => out.push(Problem::new(origin, path, error.to_string())),
    }
}

fn constant<'e>(error: &'e ValidationError<'_>) -> Option<&'e str> {
    match error.kind() {
        ValidationErrorKind::Constant { expected_value } => expected_value.as_str(),
        _ => None,
    }
}

fn not_one_of(
    origin: Origin,
    path: KeyPath,
    node: Option<&Node>,
    instance: &Json,
    options: &[&str],
) -> Problem {
    let shown = node.map_or_else(|| instance.to_string(), describe);
    let mut problem = Problem::new(
        origin,
        path,
        format!("{shown} is not one of: {}", options.join(", ")),
    );
    problem.hint = instance
        .as_str()
        .and_then(|found| closest(found, options.iter().copied()))
        .map(|near| format!("did you mean `{near}`?"));
    problem
}

fn expects_only_null(error: &ValidationError<'_>) -> bool {
    matches!(
        error.kind(),
        ValidationErrorKind::Type { kind: TypeKind::Single(t) } if *t == jsonschema::JsonType::Null
    )
}

/// A value as it appears in a message: the user's own text for plain
/// scalars, JSON otherwise.
fn describe(node: &Node) -> String {
    match (&node.value, &node.plain) {
        (Value::Null, _) => "null".to_owned(),
        (_, Some(text)) => format!("{} `{text}`", node.value.type_name()),
        (Value::String(s), None) => format!("string {}", Json::from(s.as_str())),
        (Value::Sequence(_) | Value::Mapping(_), None) => {
            let kind = if matches!(node.value, Value::Sequence(_)) {
                "a sequence"
            } else {
                "a mapping"
            };
            kind.to_owned()
        }
        (value, None) => format!("{} {}", value.type_name(), node.to_json()),
    }
}

fn type_hint(expected: &str, node: Option<&Node>) -> Option<String> {
    let node = node?;
    if matches!(node.value, Value::Null) && node.plain.as_deref().is_none_or(str::is_empty) {
        return Some("an empty value is null; remove the key to keep the default".to_owned());
    }
    if let (Value::String(text), None) = (&node.value, &node.plain) {
        let unquoted = crate::yaml::resolve_plain(text).ok()?;
        let fits = match unquoted {
            Value::Int(_) => expected.contains("integer") || expected.contains("number"),
            Value::Float(_) => expected.contains("number"),
            Value::Bool(_) => expected.contains("boolean"),
            _ => false,
        };
        return fits.then(|| format!("remove the quotes to write the {expected} {text}"));
    }
    let text = node.plain.as_deref()?;
    if !expected.contains("string") {
        return None;
    }
    let reading = match &node.value {
        Value::Bool(b) => format!("YAML reads `{text}` as the boolean {b}"),
        Value::Int(i) if text.len() > 1 && text.starts_with('0') => {
            format!("YAML reads `{text}` as the number {i}")
        }
        Value::Float(f) => format!("YAML reads `{text}` as the number {f}"),
        _ => format!("YAML reads `{text}` as a {}", node.value.type_name()),
    };
    Some(format!("{reading}; quote it (\"{text}\") to keep the text"))
}

/// Follows a path from the schema's instance location into the tree. Pointer
/// segments that are numbers become indexes where the tree holds a sequence.
fn resolve<'a>(document: &'a Node, path: &KeyPath) -> (KeyPath, Option<&'a Node>) {
    let mut resolved = KeyPath::root();
    let mut node = Some(document);
    for segment in &path.0 {
        let Segment::Key(key) = segment else {
            unreachable!("schema paths arrive as keys")
        };
        match node.map(|n| &n.value) {
            Some(Value::Sequence(items)) => {
                let index: usize = key.parse().unwrap_or(usize::MAX);
                resolved = resolved.index(index);
                node = items.get(index);
            }
            _ => {
                resolved = resolved.key(key.clone());
                node = node.and_then(|n| n.get(key));
            }
        }
    }
    (resolved, node)
}

/// The property names the schema allows at `path`, for "did you mean".
fn known_keys(schema: &Json, path: &KeyPath) -> Vec<String> {
    let mut at = Some(schema);
    for segment in &path.0 {
        at = at.map(|s| deref(schema, s)).and_then(|s| match segment {
            Segment::Key(key) => s
                .get("properties")
                .and_then(|p| p.get(key))
                .or_else(|| s.get("additionalProperties")),
            Segment::Index(_) => s.get("items"),
        });
    }
    at.map(|s| deref(schema, s))
        .and_then(|s| s.get("properties"))
        .and_then(Json::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// Follows local `$ref`s (and the non-null branch of an `anyOf`).
pub(crate) fn deref<'a>(root: &'a Json, mut schema: &'a Json) -> &'a Json {
    for _ in 0..16 {
        if let Some(target) = schema.get("$ref").and_then(Json::as_str) {
            let pointer = target.trim_start_matches('#');
            match root.pointer(pointer) {
                Some(next) => schema = next,
                None => break,
            }
        } else if let Some(branch) = schema.get("anyOf").and_then(Json::as_array).and_then(|b| {
            b.iter()
                .find(|s| s.get("type") != Some(&Json::from("null")))
        }) {
            schema = branch;
        } else {
            break;
        }
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_knows_keys_behind_refs() {
        let schema = values_schema();
        let keys = known_keys(&schema, &KeyPath::dotted("buildd"));
        assert_eq!(
            keys,
            ["replicas", "resources", "leaderElection", "logLevel"]
        );
        let keys = known_keys(&schema, &KeyPath::root().key("projects").index(0));
        assert_eq!(keys, ["name", "repository", "trusted", "resources"]);
    }

    #[test]
    fn a_fraction_where_an_integer_belongs_is_located() {
        let source = crate::yaml::Source::file("v.yaml", "buildd:\n  replicas: 3.0\n");
        let document = crate::yaml::parse_document(&source, crate::yaml::Limits::VALUES)
            .unwrap()
            .unwrap();
        let problems = validate(&document, &document.to_json());
        let shown: Vec<String> = problems
            .iter()
            .map(|p| format!("{} {}: {}", p.origin, p.path, p.message))
            .collect();
        assert_eq!(
            shown,
            ["v.yaml:2:13 buildd.replicas: expected integer, found number `3.0`"]
        );
        // jsonschema counts 3.0 as an integer: only the walk reports it, and it
        // runs only when a float is there.
        assert!(!has_float(&crate::yaml::Node::from_json(
            &serde_json::json!({"buildd": {"replicas": 2}}),
            &Origin::Default
        )));
    }
}
