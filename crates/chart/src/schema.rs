//! The JSON Schema of the values: generated from [`Values`] by schemars,
//! committed as `schema/values.schema.json` (a test keeps it fresh), baked
//! into the validator's tables at build time (`build/kube_schemas.rs`) and
//! enforced by [`kubernetes::kube::validator`], which reports what jsonschema
//! would (`tests/it/values_schema.rs`): no schema compile at run time.
//!
//! Validation runs on the merged YAML tree before serde sees it, so that every
//! violation is collected (serde stops at the first) and each is reported at
//! the node it concerns, in the file or `--set` argument that wrote it.

use std::sync::LazyLock;

use serde_json::Value as Json;

use crate::model::Values;
use crate::model::types::{DIGEST_PATTERN, DNS_LABEL_PATTERN, QUANTITY_PATTERN};
use kubernetes::diagnostic::{Problem, closest};
use kubernetes::kube::validator::{self, Additional, ErrorKind, SchemaError, Table, Types};
use kubernetes::location::Origin;
use kubernetes::location::{KeyPath, Segment};
use kubernetes::yaml::{Node, Value};

mod baked {
    use kubernetes::kube::validator::{Additional, List, Node, Str, Tables};
    use regex_automata::util::wire::AlignAs;
    include!(concat!(env!("OUT_DIR"), "/values_schema.rs"));
}

/// The values schema (`schema/values.schema.json`), baked by the build
/// script into a table of the kubernetes crate's validator.
pub static VALUES: Table = Table::new(baked::TABLES);

/// The root node of [`VALUES`].
pub const VALUES_ROOT: u32 = baked::ROOT;

/// The values schema as JSON: schemars' schema of [`Values`], with the
/// Kubernetes types of the pod settings tightened to what the API server
/// accepts ([`crate::model::pod::api_server_schema`]).
pub fn values_schema() -> Json {
    let mut schema = schemars::schema_for!(Values).to_value();
    crate::model::pod::api_server_schema(&mut schema);
    schema
}

/// The values schema as the text committed in `schema/values.schema.json`.
pub fn values_schema_text() -> String {
    let mut text =
        serde_json::to_string_pretty(&values_schema()).expect("a JSON value always serializes");
    text.push('\n');
    text
}

/// The schema as JSON, for what only a problem or a float needs (known keys
/// in declaration order, integer types): generated on first use.
static SCHEMA: LazyLock<Json> = LazyLock::new(values_schema);

/// Checks a merged values document (`instance` is its JSON) against the
/// schema, baked from `schema/values.schema.json` at build time; returns
/// every violation, located in `document`.
pub fn validate(document: &Node, instance: &Json) -> Vec<Problem> {
    let mut problems = Vec::new();
    for error in VALUES.validate(VALUES_ROOT, instance) {
        explain(document, &error, &mut problems);
    }
    if has_float(document) {
        let schema = &*SCHEMA;
        floats_for_integers(schema, schema, document, &KeyPath::root(), &mut problems);
    }
    problems.dedup();
    problems
}

/// Where the schema wants a string and only a string, a plain scalar that
/// YAML read as a number becomes the text as written: `tag: 1.10` is the
/// tag `1.10`, never `1.1`. Booleans and null stay what they are (`tag:
/// yes` is surely a mistake, and the schema says so with a hint); a quoted
/// scalar is a string already, and a `--set-json` number has no source text.
/// Run on each layer before it is merged (a layer is rooted where the
/// document is).
pub fn strings_as_written(layer: &mut Node) {
    as_written(VALUES_ROOT, layer);
}

/// Walks the baked tables (no schema is generated for a render): a node
/// whose schema wants only a string takes its plain scalar's text.
fn as_written(schema: u32, node: &mut Node) {
    let schema = baked(schema);
    match &mut node.value {
        Value::Int(_) | Value::Uint(_) | Value::Float(_) if wants_only_string(schema) => {
            if let Some(text) = node.plain.take() {
                node.value = Value::String(*text);
            }
        }
        // A fraction where a string may stand (a quantity: `cpu: 0.7`) is
        // kept as written, never through a float.
        Value::Float(_) if schema.types & STRING != 0 => {
            if let Some(text) = node.plain.take() {
                node.value = Value::String(*text);
            }
        }
        Value::Mapping(entries) => {
            for (key, child) in entries {
                // A string, boolean or null stays what it is: its schema
                // need not be looked up (most keys of a values file).
                if matches!(child.value, Value::String(_) | Value::Bool(_) | Value::Null) {
                    continue;
                }
                let named = VALUES.property(schema, &key.name);
                let sub = named.or(match schema.additional {
                    Additional::Node(sub) => Some(sub),
                    Additional::Any | Additional::Forbid => None,
                });
                if let Some(sub) = sub {
                    as_written(sub, child);
                }
            }
        }
        Value::Sequence(items) => {
            if let Some(sub) = schema.items {
                for item in items {
                    as_written(sub, item);
                }
            }
        }
        _ => {}
    }
}

/// What the schema says of the key at `path` (keys only, from the root),
/// read from the baked tables as [`strings_as_written`] reads them:
/// `Some(true)` for a list, `Some(false)` for any other value, `None` for
/// no such key.
pub fn is_list(path: &KeyPath) -> Option<bool> {
    let mut node = VALUES_ROOT;
    for segment in &path.0 {
        let Segment::Key(key) = segment else {
            return None;
        };
        let schema = baked(node);
        let named = VALUES.property(schema, key);
        node = match (named, schema.additional) {
            (Some(sub), _) | (None, Additional::Node(sub)) => sub,
            (None, Additional::Any | Additional::Forbid) => return None,
        };
    }
    Some(baked(node).types & ARRAY != 0)
}

/// The problem of a key a null deleted (`key: ~`, `--set key=null`) where
/// the values have no such key: the deletion of a mistyped key would
/// otherwise do nothing, unsaid. `None` for a key the values may hold, or
/// below a key the schema reports itself.
pub fn unknown_deleted(path: &KeyPath, origin: &Origin) -> Option<Problem> {
    let Some((Segment::Key(key), steps)) = path.0.split_last() else {
        return None;
    };
    let parent = KeyPath(steps.to_vec());
    let mut node = VALUES_ROOT;
    for segment in &parent.0 {
        let Segment::Key(step) = segment else {
            return None;
        };
        let schema = baked(node);
        node = match (VALUES.property(schema, step), schema.additional) {
            (Some(sub), _) | (None, Additional::Node(sub)) => sub,
            (None, Additional::Any | Additional::Forbid) => return None,
        };
    }
    let schema = baked(node);
    if schema.types & OBJECT == 0
        || VALUES.property(schema, key).is_some()
        || !matches!(schema.additional, Additional::Forbid)
    {
        return None;
    }
    let mut found = Vec::new();
    unknown_keys(None, &parent, origin, std::slice::from_ref(key), &mut found);
    found.pop().map(|mut problem| {
        problem.message = format!("unknown key `{key}` (its null deletes nothing)");
        problem
    })
}

/// The baked node at `index`, through an optional value's `anyOf` (its
/// branch that is not `null`), as [`deref`] reads the JSON schema.
fn baked(mut index: u32) -> &'static validator::Node {
    for _ in 0..16 {
        let node = VALUES.node(index);
        let branch = (node.types == 0)
            .then(|| (VALUES.branches(node.any_of).iter()).find(|b| VALUES.node(**b).types != NULL))
            .flatten();
        match branch {
            Some(next) => index = *next,
            None => return node,
        }
    }
    VALUES.node(index)
}

/// The `types` bits of `null` and `string` in the baked tables.
const NULL: u8 = 1;
const STRING: u8 = 16;
/// The `types` bits of `array` and `object`.
const ARRAY: u8 = 32;
const OBJECT: u8 = 64;

/// `type: string`, or `type: [string, null]` (an optional string).
fn wants_only_string(schema: &validator::Node) -> bool {
    schema.types & STRING != 0 && schema.types & !(STRING | NULL) == 0
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
                if let Some(sub) = property(schema, &key.name) {
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

/// Turns one schema error into problems located in the YAML tree.
fn explain(document: &Node, error: &SchemaError<'_>, out: &mut Vec<Problem>) {
    // JSON pointers cannot tell a key "0" from an index 0; the tree can.
    let (path, node) = resolve(document, &error.path);
    let origin = node.map_or(Origin::Default, |n| n.origin.clone());
    let shown = |n: Option<&Node>| n.map_or_else(String::new, describe);
    match &error.kind {
        ErrorKind::AdditionalProperties { unexpected, .. } => {
            unknown_keys(node, &path, &origin, unexpected, out);
        }
        ErrorKind::Type { expected, .. } => {
            let expected = expected.names().collect::<Vec<_>>().join(" or ");
            let mut problem = Problem::new(
                origin,
                path,
                format!("expected {expected}, found {}", shown(node)),
            );
            problem.hint = type_hint(&expected, node);
            out.push(problem);
        }
        ErrorKind::Enum { options } => {
            let options: Vec<&str> = options.iter().collect();
            out.push(not_one_of(origin, path, node, error.instance, &options));
        }
        ErrorKind::Required { property } => {
            out.push(Problem::new(
                origin,
                path,
                format!("missing key `{property}`"),
            ));
        }
        ErrorKind::Pattern { pattern } => out.push(mismatch(origin, path, shown(node), pattern)),
        ErrorKind::MaxLength { limit } => out.push(Problem::new(
            origin,
            path,
            format!("{} is longer than {limit} characters", shown(node)),
        )),
        ErrorKind::MinLength { limit: 1 } => {
            out.push(Problem::new(origin, path, "must not be empty"));
        }
        ErrorKind::Minimum { limit } => out.push(Problem::new(
            origin,
            path,
            format!("{} is less than the minimum of {limit}", shown(node)),
        )),
        ErrorKind::Maximum { limit } => out.push(Problem::new(
            origin,
            path,
            format!("{} is more than the maximum of {limit}", shown(node)),
        )),
        ErrorKind::AnyOf { context } | ErrorKind::OneOfNotValid { context } => {
            explain_branches(document, error, context, (origin, path, node), out);
        }
        _ => out.push(Problem::new(origin, path, error.to_string())),
    }
}

/// `unknown key` problems, each with a "did you mean" or the known keys.
fn unknown_keys(
    node: Option<&Node>,
    path: &KeyPath,
    origin: &Origin,
    unexpected: &[String],
    out: &mut Vec<Problem>,
) {
    let known = known_keys(&SCHEMA, path);
    // One lookup per key: a file can hold a hundred thousand unknown ones.
    let written: std::collections::HashMap<&str, &Origin> = match node.map(|n| &n.value) {
        Some(Value::Mapping(entries)) => entries
            .iter()
            .map(|(key, _)| (key.name.as_str(), &key.origin))
            .collect(),
        _ => std::collections::HashMap::new(),
    };
    for key in unexpected {
        let origin = written.get(key.as_str()).map_or(origin, |o| *o).clone();
        let mut problem = Problem::new(
            origin,
            path.key(key.clone()),
            format!("unknown key `{key}`"),
        );
        let helm = path.0.is_empty().then(|| helm_hint(key)).flatten();
        let hatch = helm_hatch(key).filter(|hatch| known.iter().any(|k| k == hatch));
        problem.hint = match closest(key, known.iter().map(String::as_str)) {
            _ if helm.is_some() => helm,
            _ if hatch.is_some() => hatch.map(|hatch| {
                format!("did you mean `{hatch}`? (a Helm chart's `{key}`; docs/values.md, Escape hatches)")
            }),
            Some(near) => Some(format!("did you mean `{near}`?")),
            None if known.is_empty() => None,
            None => Some(format!("known keys here: {}", known.join(", "))),
        };
        out.push(problem);
    }
}

/// Where chartgen keeps what a top-level key of a typical Helm chart
/// sets: `replicaCount`, `image`, the name overrides, and any pod setting
/// (`nodeSelector`, `resources`, …) that chartgen keeps per workload (read
/// from the schema, so the list follows the values).
fn helm_hint(key: &str) -> Option<String> {
    let workload = |setting: &str| {
        let known = known_keys(&SCHEMA, &KeyPath::root().key("buildd"));
        known.iter().any(|k| k == setting).then(|| {
            format!(
                "a Helm chart's top-level `{setting}` is per workload here: `buildd.{setting}`, `gateway.{setting}` (docs/values.md, Pod settings)"
            )
        })
    };
    match key {
        "replicaCount" => Some(
            "Helm's `replicaCount` is per workload here: `buildd.replicas`, `gateway.replicas`"
                .to_owned(),
        ),
        "image" => Some(
            "Helm's `image.repository`/`image.tag` are per component here: `images.buildd.repository`, `images.buildd.tag`, `images.gateway.…`, `images.buildkitd.…`"
                .to_owned(),
        ),
        "nameOverride" | "fullnameOverride" => Some(format!(
            "Helm's `{key}` is `releaseName` here: every object's name starts with it"
        )),
        "namespaceOverride" | "namespace" => Some(
            "chartgen renders into one namespace per trust class (ADR-0006): `namespaces.operator`, `namespaces.builds`, `namespaces.system`"
                .to_owned(),
        ),
        _ => workload(key),
    }
}

/// The escape hatch a workload's key of a typical Helm chart names:
/// `env`, `args`, `volumes`, `volumeMounts`, `extraContainers`.
fn helm_hatch(key: &str) -> Option<&'static str> {
    match key {
        "env" => Some("extraEnv"),
        "args" => Some("extraArgs"),
        "volumes" => Some("extraVolumes"),
        "volumeMounts" => Some("extraVolumeMounts"),
        "extraContainers" | "containers" => Some("sidecars"),
        _ => None,
    }
}

/// A string that does not match its `pattern`, in words where the pattern
/// is one of the model's.
fn mismatch(origin: Origin, path: KeyPath, shown: String, pattern: &str) -> Problem {
    let what = match pattern {
        DNS_LABEL_PATTERN => {
            "is not a DNS-1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit)"
        }
        QUANTITY_PATTERN => "is not a Kubernetes quantity (such as 250m, 2, 1.5, 512Mi)",
        DIGEST_PATTERN => "is not an image digest (`sha256:` and 64 lowercase hex digits)",
        _ if pattern.contains("(h|m|s)") => "is not a duration (such as 2160h, 90m or 1h30m)",
        _ => "does not match the expected form",
    };
    let mut problem = Problem::new(origin, path, format!("{shown} {what}"));
    if what.starts_with("does not match") {
        problem.hint = Some(format!("the value must match `{pattern}`"));
    }
    problem
}

/// An `anyOf` or `oneOf` no branch of which holds.
fn explain_branches(
    document: &Node,
    error: &SchemaError<'_>,
    context: &[Vec<SchemaError<'_>>],
    (origin, path, node): (Origin, KeyPath, Option<&Node>),
    out: &mut Vec<Problem>,
) {
    if context
        .iter()
        .all(|errors| errors.len() == 1 && constant(&errors[0]).is_some())
    {
        // schemars writes an enum with documented variants as oneOf consts.
        let options: Vec<&str> = context.iter().filter_map(|e| constant(&e[0])).collect();
        out.push(not_one_of(origin, path, node, error.instance, &options));
        return;
    }
    // schemars writes `Option<T>` as anyOf [T, null]: explain the branch
    // that is not the null one, so the user hears about T's rules.
    let branch = context
        .iter()
        .find(|errors| !errors.iter().all(expects_only_null))
        .or(context.first());
    match branch {
        Some(errors) if !errors.is_empty() => {
            for e in errors {
                explain(document, e, out);
            }
        }
        _ => out.push(Problem::new(origin, path, error.to_string())),
    }
}

fn constant<'e>(error: &'e SchemaError<'_>) -> Option<&'e str> {
    match &error.kind {
        ErrorKind::Constant { expected } => Some(expected),
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
    // Not for a set flag's value, which no message quotes: the option
    // closest to it (the same letters in another case) says what it is.
    let from_set_flag = matches!(&problem.origin, Origin::At { source, .. } if source.is_argument);
    problem.hint = instance
        .as_str()
        .filter(|_| !from_set_flag)
        .and_then(|found| closest(found, options.iter().copied()))
        .map(|near| format!("did you mean `{near}`?"));
    problem
}

fn expects_only_null(error: &SchemaError<'_>) -> bool {
    matches!(
        error.kind,
        ErrorKind::Type {
            expected: Types(1),
            single: true
        }
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
    if matches!(node.value, Value::Null) && node.plain.as_deref().is_none_or(String::is_empty) {
        return Some("an empty value is null; remove the key to keep the default".to_owned());
    }
    if let (Value::String(text), None) = (&node.value, &node.plain) {
        let unquoted = kubernetes::yaml::resolve_plain(text).ok()?;
        let fits = match unquoted {
            Value::Int(_) => expected.contains("integer") || expected.contains("number"),
            Value::Float(_) => expected.contains("number"),
            Value::Bool(_) => expected.contains("boolean"),
            _ => false,
        };
        if !fits {
            return None;
        }
        let flag = match &node.origin {
            Origin::At { source, .. } if source.is_argument => {
                source.name.split(' ').next().unwrap_or_default()
            }
            _ => "",
        };
        return Some(match flag {
            "--set-string" => {
                format!("--set-string always writes text; use --set to write the {expected} {text}")
            }
            // The text is a file's: not quoted back.
            "--set-file" => {
                format!("--set-file always writes text; use --set to write the {expected}")
            }
            _ => match written_at(&node.origin) {
                // `!!str 2`: the tag makes it text.
                Some(tag) if tag.starts_with('!') => format!(
                    "remove the tag `{}` to write the {expected} {text}",
                    tag.split_whitespace().next().unwrap_or(tag)
                ),
                Some(quoted) if quoted.starts_with(['"', '\'']) => {
                    format!("remove the quotes to write the {expected} {text}")
                }
                // A block scalar (`|`, `>`): its origin is its text's line.
                Some(_) => format!(
                    "write it plain (`{text}`), not as a block scalar, to write the {expected} {text}"
                ),
                None => format!("remove the quotes to write the {expected} {text}"),
            },
        });
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

/// The text a file shows from `origin` to the end of its line; `None`
/// for a set flag's argument or a default.
fn written_at(origin: &Origin) -> Option<&str> {
    let Origin::At {
        source, line, col, ..
    } = origin
    else {
        return None;
    };
    if source.is_argument {
        return None;
    }
    let text = source.line(*line as usize)?;
    let start = text
        .char_indices()
        .nth((*col as usize).saturating_sub(1))
        .map(|(at, _)| at)?;
    Some(&text[start..])
}

/// The problem of the first key of `path` that the values do not have
/// (`unknown key`, with its "did you mean"), when every step before it is
/// a key of a mapping whose keys the schema lists; `None` when each is
/// known, or the path reaches a list item or an open mapping first.
pub fn first_unknown_key(path: &KeyPath, origin: &Origin) -> Option<Problem> {
    let mut node = VALUES_ROOT;
    for (at, segment) in path.0.iter().enumerate() {
        let Segment::Key(key) = segment else {
            return None;
        };
        let schema = baked(node);
        node = match (VALUES.property(schema, key), schema.additional) {
            (Some(sub), _) | (None, Additional::Node(sub)) => sub,
            (None, Additional::Any) => return None,
            (None, Additional::Forbid) if schema.types & OBJECT == 0 => return None,
            (None, Additional::Forbid) => {
                let mut found = Vec::new();
                let parent = KeyPath(path.0[..at].to_vec());
                unknown_keys(None, &parent, origin, std::slice::from_ref(key), &mut found);
                return found.pop();
            }
        };
    }
    None
}

/// Follows the validator's path (a member's name, an item's index) into
/// the tree.
fn resolve<'a>(document: &'a Node, path: &KeyPath) -> (KeyPath, Option<&'a Node>) {
    let mut node = Some(document);
    for segment in &path.0 {
        node = match (segment, node.map(|n| &n.value)) {
            (Segment::Index(index), Some(Value::Sequence(items))) => items.get(*index),
            (Segment::Key(key), _) => node.and_then(|n| n.get(key)),
            _ => None,
        };
    }
    (path.clone(), node)
}

/// The schema of a mapping's `key`: its property, else the schema every
/// other key takes (`additionalProperties`, when that is a schema).
fn property<'s>(schema: &'s Json, key: &str) -> Option<&'s Json> {
    schema
        .get("properties")
        .and_then(|p| p.get(key))
        .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()))
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
            [
                "replicas",
                "resources",
                "leaderElection",
                "logLevel",
                "spread",
                "metrics",
                "nodeSelector",
                "tolerations",
                "affinity",
                "topologySpreadConstraints",
                "priorityClassName",
                "imagePullSecrets",
                "podLabels",
                "podAnnotations",
                "extraEnv",
                "extraArgs",
                "extraVolumes",
                "extraVolumeMounts",
                "sidecars"
            ]
        );
        let keys = known_keys(&schema, &KeyPath::dotted("buildd.tolerations").index(0));
        assert_eq!(
            keys,
            ["effect", "key", "operator", "tolerationSeconds", "value"]
        );
        let keys = known_keys(&schema, &KeyPath::root().key("projects").index(0));
        assert_eq!(keys, ["name", "repository", "trusted", "resources"]);
    }

    #[test]
    fn a_fraction_where_an_integer_belongs_is_located() {
        let source = kubernetes::location::Source::file("v.yaml", "buildd:\n  replicas: 3.0\n");
        let document = kubernetes::yaml::parse_document(&source, kubernetes::yaml::Limits::VALUES)
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
        assert!(!has_float(&kubernetes::yaml::Node::from_json(
            &serde_json::json!({"buildd": {"replicas": 2}}),
            &Origin::Default
        )));
    }

    #[test]
    fn an_error_below_a_member_named_empty_or_like_a_number_is_located_there() {
        let text = "builds:\n  buildkitd:\n    registries:\n      \"\": {cpu: 1}\n      \"0\": {http: 2}\n";
        let source = kubernetes::location::Source::file("v.yaml", text);
        let document = kubernetes::yaml::parse_document(&source, kubernetes::yaml::Limits::VALUES)
            .unwrap()
            .unwrap();
        let problems = validate(&document, &document.to_json());
        let registries = KeyPath::dotted("builds.buildkitd.registries");
        let shown: Vec<(KeyPath, String)> = problems
            .iter()
            .map(|p| (p.path.clone(), format!("{} {}", p.origin, p.message)))
            .collect();
        assert_eq!(
            shown,
            [
                (
                    registries.key(String::new()).key("cpu".to_owned()),
                    "v.yaml:4:12 unknown key `cpu`".to_owned()
                ),
                (
                    registries.key("0".to_owned()).key("http".to_owned()),
                    "v.yaml:5:19 expected boolean, found integer `2`".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn plain_numbers_become_their_text_only_where_a_string_is_wanted() {
        let text = "images:\n  buildd: {tag: 1.10, digest: 0x1F}\n  gateway: {tag: true}\n\
                    buildd: {replicas: 3}\ncommonLabels: {a: 0644, b: 1e3, c: ~, d: '2'}\nunknown: 1.5\n";
        let source = kubernetes::location::Source::file("v.yaml", text);
        let mut document =
            kubernetes::yaml::parse_document(&source, kubernetes::yaml::Limits::VALUES)
                .unwrap()
                .unwrap();
        strings_as_written(&mut document);
        assert_eq!(
            document.to_json(),
            serde_json::json!({
                "images": {"buildd": {"tag": "1.10", "digest": "0x1F"}, "gateway": {"tag": true}},
                "buildd": {"replicas": 3},
                "commonLabels": {"a": "0644", "b": "1e3", "c": null, "d": "2"},
                "unknown": 1.5,
            })
        );
        // The node keeps its place: a problem with the text is still located.
        let tag = document.at(&KeyPath::dotted("images.buildd.tag")).unwrap();
        assert_eq!(tag.origin.to_string(), "v.yaml:2:17");
    }
}
