//! What the API server refuses in a CustomResourceDefinition's schemas
//! although `JSONSchemaProps` has a field for it, on create
//! (`apiextensions-apiserver`: `pkg/apis/apiextensions/validation` and the
//! structural schema rules of `pkg/apiserver/schema`): keywords it does not
//! support (`$ref`, `$schema`, `definitions`, `id`, `dependencies`,
//! `patternProperties`, `additionalItems`, `uniqueItems: true`,
//! `type: null`, an array of `items`), `additionalProperties` beside
//! `properties`, the `x-kubernetes-*` extensions' own rules (list and map
//! types, map keys, sets of atomic items), a schema per version,
//! `spec.preserveUnknownFields`, defaults in the root's metadata, and the
//! structural schema: a `type` on every specified field and array item,
//! `items` for every array, an object at the root with no
//! `additionalProperties`, the root's `metadata` naming at most `name` and
//! `generateName`, value validations (`allOf`, `anyOf`, `oneOf`, `not`)
//! that specify no type, default, description or extension, and the
//! root's naming no field the schema beside them does not. A schema the
//! API server cannot read as structural at all (an unsupported keyword)
//! is refused for that alone, as the server does. A structural schema's
//! defaults are held to it ([`crate::kube::conformance::crd_defaults::refused_defaults`]).
//! Not checked here: CEL rules and their cost, `format` names. A `pattern`
//! is one Go's `regexp` compiles ([`crate::regexp::check`]).
//!
//! The walk keeps the path it is at as borrowed steps and makes a
//! [`KeyPath`] only for a finding, and stops reporting a version's schema
//! after [`LIMIT`] findings or [`BYTES`] of them: a schema with long names
//! above many nodes costs its size, not its size times its names'.

use serde_json::Value as Json;

use crate::json::{Field, Found, each};
use crate::location::KeyPath;

/// Most findings reported for one version's schema; one more says that
/// more were left out.
pub const LIMIT: usize = 100;

/// Most bytes of paths and messages reported for one version's schema: a
/// long name above many findings is written into each of them.
pub const BYTES: usize = 1 << 20;

/// The types a schema node may have.
const TYPES: &[&str] = &["array", "boolean", "integer", "number", "object", "string"];

/// The fields of `JSONSchemaProps`, by their JSON names (any other member
/// is an unknown field, the schema check's finding, dropped when the API
/// server decodes the object), and whether the root schema may set it
/// when the status subresource is on (`allowedFieldsAtRootSchema`: what
/// the server can split the status's schema out of).
const FIELDS: &[(&str, bool)] = &[
    ("id", false),
    ("$schema", false),
    ("$ref", false),
    ("description", true),
    ("type", true),
    ("format", true),
    ("title", true),
    ("default", false),
    ("maximum", true),
    ("exclusiveMaximum", true),
    ("minimum", true),
    ("exclusiveMinimum", true),
    ("maxLength", true),
    ("minLength", true),
    ("pattern", true),
    ("maxItems", true),
    ("minItems", true),
    ("uniqueItems", true),
    ("multipleOf", true),
    ("enum", false),
    ("maxProperties", false),
    ("minProperties", false),
    ("required", true),
    ("items", true),
    ("allOf", false),
    ("oneOf", false),
    ("anyOf", false),
    ("not", false),
    ("properties", true),
    ("additionalProperties", false),
    ("patternProperties", false),
    ("dependencies", false),
    ("additionalItems", false),
    ("definitions", false),
    ("externalDocs", true),
    ("example", true),
    ("nullable", false),
    ("x-kubernetes-preserve-unknown-fields", true),
    ("x-kubernetes-embedded-resource", false),
    ("x-kubernetes-int-or-string", false),
    ("x-kubernetes-list-map-keys", false),
    ("x-kubernetes-list-type", false),
    ("x-kubernetes-map-type", false),
    ("x-kubernetes-validations", true),
];

/// The value validations of a node that hold schemas in a list.
const JUNCTORS: &[&str] = &["allOf", "anyOf", "oneOf"];

/// The keywords the API server does not support, and whether an empty
/// value is unset (`id` a string, `patternProperties` and `definitions`
/// maps) or set (the others are pointers: even `""`, `{}` or `false`).
const UNSUPPORTED: &[(&str, bool)] = &[
    ("id", true),
    ("$schema", false),
    ("$ref", false),
    ("additionalItems", false),
    ("patternProperties", true),
    ("definitions", true),
    ("dependencies", false),
];

/// The schemas of `spec`, a CustomResourceDefinition's, at `at` (`spec`).
pub fn check(spec: &Json, at: &KeyPath, found: &mut Found) {
    if spec.field("preserveUnknownFields") == true {
        found.push((
            at.key("preserveUnknownFields"),
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead".to_owned(),
        ));
    }
    // `validateCustomResourceDefinitionSpec`: each version named with a
    // DNS-1035 label, once, and exactly one stored.
    let mut names = std::collections::HashSet::new();
    let mut stored = 0;
    for (i, version) in each(spec.field("versions")) {
        let name = version.field("name").as_str().unwrap_or_default();
        if let Err(why) = crate::names::dns1035_label(name) {
            found.push((
                at.key("versions").index(i).key("name"),
                format!("`{name}` is no version name: {why}"),
            ));
        }
        if !names.insert(name) {
            found.push((
                at.key("versions"),
                format!("must contain unique version names (`{name}` twice)"),
            ));
        }
        stored += usize::from(version.field("storage") == true);
    }
    if stored != 1 && spec.field("versions").is_array() {
        found.push((
            at.key("versions"),
            format!("must have exactly one version marked as storage version, not {stored}"),
        ));
    }
    for (i, version) in each(spec.field("versions")) {
        let mut trail = Trail {
            base: at,
            steps: vec![
                Step::Key("versions"),
                Step::Index(i),
                Step::Key("schema"),
                Step::Key("openAPIV3Schema"),
            ],
        };
        let schema = version.field("schema").field("openAPIV3Schema");
        if !schema.is_object() {
            found.push((
                trail.path(&[]),
                "a schema is required for every version".to_owned(),
            ));
            continue;
        }
        let mut out = Out {
            found: &mut *found,
            room: LIMIT,
            dropped: false,
            bytes: BYTES,
        };
        if version.field("subresources").field("status").is_object() {
            status_root(schema, &trail, &mut out);
        }
        if schema.field("nullable") == true {
            out.push(&trail, &["nullable"], "nullable cannot be true at the root");
        }
        node(schema, &mut trail, Context::ROOT, &mut out);
        // The API server reads the schema as structural only when it can.
        if convertible(schema) {
            let room = out.room;
            structural(schema, &mut trail, Level::Root, &mut out);
            let depth = trail.steps.len();
            junctors(schema, Some(schema), &mut trail, depth, &mut out);
            // A structural schema's defaults are held to it.
            if out.room == room && !out.dropped {
                for (steps, why) in crate::kube::conformance::crd_defaults::refused_defaults(schema)
                {
                    out.push_with(|| {
                        let path = trail.path(&[]);
                        (steps.iter().fold(path, |path, step| path.key(step)), why)
                    });
                }
            }
        }
        if out.dropped {
            found.push((
                trail.path(&[]),
                "the first problems of this schema are shown, the rest of it is not".to_owned(),
            ));
        }
    }
}

/// A step of a path, borrowed from the schema or the code.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// Where a walk is: `base`, then the steps.
struct Trail<'a> {
    base: &'a KeyPath,
    steps: Vec<Step<'a>>,
}

impl<'a> Trail<'a> {
    /// `f` with `steps` taken, which are undone after.
    fn within<R>(&mut self, steps: &[Step<'a>], f: impl FnOnce(&mut Self) -> R) -> R {
        let depth = self.steps.len();
        self.steps.extend_from_slice(steps);
        let result = f(self);
        self.steps.truncate(depth);
        result
    }

    /// The path here, then `more` keys.
    fn path(&self, more: &[&str]) -> KeyPath {
        self.path_to(self.steps.len(), more)
    }

    /// The path of the first `depth` steps, then `more` keys.
    fn path_to(&self, depth: usize, more: &[&str]) -> KeyPath {
        let mut path = self.base.clone();
        for step in &self.steps[..depth] {
            path = match step {
                Step::Key(key) => path.key(*key),
                Step::Index(index) => path.index(*index),
            };
        }
        for key in more {
            path = path.key(*key);
        }
        path
    }
}

/// The findings of one version's schema, up to [`LIMIT`].
struct Out<'f> {
    found: &'f mut Found,
    room: usize,
    /// Whether a finding, or the walk of a node, was left out for want of
    /// room.
    dropped: bool,
    /// The bytes of paths and messages still to be reported.
    bytes: usize,
}

impl Out<'_> {
    fn push(&mut self, trail: &Trail<'_>, more: &[&str], message: impl Into<String>) {
        self.push_with(|| (trail.path(more), message.into()));
    }

    /// The finding `make` makes, made only when there is room for it.
    fn push_with(&mut self, make: impl FnOnce() -> (KeyPath, String)) {
        if self.room == 0 {
            self.dropped = true;
            return;
        }
        let (path, message) = make();
        let size = path.to_string().len() + message.len();
        // The first is reported whatever its size.
        if size > self.bytes && self.room < LIMIT {
            self.room = 0;
            self.dropped = true;
            return;
        }
        self.bytes = self.bytes.saturating_sub(size);
        self.room -= 1;
        self.found.push((path, message));
    }

    /// Whether the walk stops here: no room is left (and the rest of the
    /// schema goes unreported).
    fn cut(&mut self) -> bool {
        self.dropped |= self.room == 0;
        self.room == 0
    }
}

/// The members of `schema` that `JSONSchemaProps` has.
fn known(schema: &Json) -> impl Iterator<Item = (&String, &Json)> {
    (schema.as_object().into_iter().flatten())
        .filter(|(name, _)| FIELDS.iter().any(|(field, _)| field == name))
}

/// With the status subresource, the root schema keeps to what the API
/// server can split the status's schema out of.
fn status_root(schema: &Json, trail: &Trail<'_>, out: &mut Out<'_>) {
    if let Some(kind) = schema.field("type").as_str()
        && !kind.is_empty()
        && kind != "object"
    {
        out.push(trail, &["type"], format!("`{kind}`: only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled"));
    }
    let others: Vec<&str> = known(schema)
        .filter(|(name, value)| {
            let allowed = FIELDS
                .iter()
                .any(|(field, at_root)| field == name && *at_root);
            !allowed && !zero(value)
        })
        .map(|(name, _)| name.as_str())
        .collect();
    if !others.is_empty() {
        out.push(
            trail,
            &[],
            format!(
                "{} may not be set at the root of the schema if the status subresource is enabled",
                others.join(", ")
            ),
        );
    }
}

/// A member the API server reads as its zero value: unset.
fn zero(value: &Json) -> bool {
    matches!(value, Json::Null | Json::Bool(false)) || value.as_str() == Some("")
}

/// A member unset once the API server has read the schema as structural
/// (where an empty list or map is none).
fn zero_structural(value: &Json) -> bool {
    zero(value)
        || value.as_array().is_some_and(Vec::is_empty)
        || value.as_object().is_some_and(serde_json::Map::is_empty)
}

/// Where a node lies, for the rules that depend on it.
#[derive(Clone, Copy)]
struct Context {
    /// The root schema.
    root: bool,
    /// Inside the schema of a resource's `metadata`.
    in_meta: bool,
    /// Why a default may not be set here, when it may not.
    no_default: Option<&'static str>,
    /// Below an `items` or `additionalProperties`, where the schema of
    /// `JSONSchemaProps` the API publishes types no keyword: their types
    /// are held here ([`keyword_types`]).
    untyped: bool,
}

impl Context {
    const ROOT: Context = Context {
        root: true,
        in_meta: false,
        no_default: None,
        untyped: false,
    };

    /// Below an `items` or `additionalProperties`.
    fn untyped(self) -> Context {
        Context {
            untyped: true,
            ..self.below()
        }
    }

    fn below(self) -> Context {
        Context {
            root: false,
            ..self
        }
    }
}

/// The rules every schema node is held to, and its children's.
fn node<'a>(schema: &'a Json, trail: &mut Trail<'a>, context: Context, out: &mut Out<'_>) {
    if !schema.is_object() || out.cut() {
        return;
    }
    if context.untyped {
        keyword_types(schema, trail, out);
    }
    match schema.get("additionalProperties") {
        None | Some(Json::Null | Json::Bool(_) | Json::Object(_)) => {}
        Some(_) => out.push(
            trail,
            &["additionalProperties"],
            "must be a boolean or a JSON schema (the API server cannot decode the CRD)",
        ),
    }
    let kind = schema.field("type").as_str().unwrap_or_default();
    if kind == "null" {
        out.push(
            trail,
            &["type"],
            "type cannot be set to null, use nullable as an alternative",
        );
    }
    if !kind.is_empty() && !TYPES.contains(&kind) {
        out.push(
            trail,
            &["type"],
            format!("`{kind}` is not one of {}", TYPES.join(", ")),
        );
    }
    if let Some(reason) = context.no_default
        && schema.get("default").is_some_and(|d| !d.is_null())
    {
        out.push(trail, &["default"], format!("must not be set {reason}"));
    }
    for (member, empty_is_unset) in UNSUPPORTED {
        if unsupported(schema, member, *empty_is_unset) {
            out.push(trail, &[member], format!("{member} is not supported"));
        }
    }
    if (schema.field("items").as_array()).is_some_and(|items| !items.is_empty()) {
        out.push(
            trail,
            &["items"],
            "items must be a schema object and not an array",
        );
    }
    if context.in_meta && schema.field("x-kubernetes-embedded-resource") == true {
        out.push(
            trail,
            &["x-kubernetes-embedded-resource"],
            "must not be used inside of resource meta",
        );
    }
    if let Some(pattern) = schema.field("pattern").as_str()
        && let Err(why) = crate::regexp::check(pattern)
    {
        out.push(
            trail,
            &["pattern"],
            format!("must be a valid regular expression, as Go's regexp reads it: {why}"),
        );
    }
    if schema.field("uniqueItems") == true {
        out.push(
            trail,
            &["uniqueItems"],
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        );
    }
    let properties = schema.field("properties").as_object();
    let additional = schema.field("additionalProperties");
    if properties.is_some_and(|p| !p.is_empty()) && (additional == false || additional.is_object())
    {
        out.push(
            trail,
            &["additionalProperties"],
            "additionalProperties and properties are mutual exclusive",
        );
    }
    extensions(schema, kind, trail, out);
    // The children.
    if additional.is_object() {
        let mut inner = context.untyped();
        if context.in_meta {
            inner.no_default = Some("inside additionalProperties applying to object metadata");
        }
        trail.within(&[Step::Key("additionalProperties")], |t| {
            node(additional, t, inner, out)
        });
    }
    let embedded = schema.field("x-kubernetes-embedded-resource") == true;
    for (name, property) in properties.into_iter().flatten() {
        let mut inner = context.below();
        if (context.root || embedded) && ["metadata", "kind", "apiVersion"].contains(&name.as_str())
        {
            inner.in_meta = true;
            if context.root {
                inner.no_default = Some(match name.as_str() {
                    "metadata" => "in top-level metadata",
                    "kind" => "in top-level kind",
                    _ => "in top-level apiVersion",
                });
            }
        }
        trail.within(&[Step::Key("properties"), Step::Key(name)], |t| {
            node(property, t, inner, out)
        });
    }
    trail.within(&[Step::Key("not")], |t| {
        node(schema.field("not"), t, context.below(), out)
    });
    for junctor in JUNCTORS {
        for (i, sub) in each(schema.field(junctor)) {
            trail.within(&[Step::Key(junctor), Step::Index(i)], |t| {
                node(sub, t, context.below(), out)
            });
        }
    }
    for (name, definition) in (schema.field("definitions").as_object())
        .into_iter()
        .flatten()
    {
        trail.within(&[Step::Key("definitions"), Step::Key(name)], |t| {
            node(definition, t, context.below(), out)
        });
    }
    match schema.field("items") {
        items @ Json::Object(_) => trail.within(&[Step::Key("items")], |t| {
            node(items, t, context.untyped(), out)
        }),
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                trail.within(&[Step::Key("items"), Step::Index(i)], |t| {
                    node(item, t, context.untyped(), out)
                });
            }
        }
        Json::Null => {}
        _ => out.push(
            trail,
            &["items"],
            "must be a JSON schema or a list of them (the API server cannot decode the CRD)",
        ),
    }
}

/// The JSON types of a schema node's keywords, as `JSONSchemaProps` decodes
/// them: a CRD with another type the API server cannot decode. A null is
/// the field unset.
fn keyword_types(schema: &Json, trail: &mut Trail<'_>, out: &mut Out<'_>) {
    let strings = |v: &Json| {
        v.as_array()
            .is_some_and(|a| a.iter().all(|s| s.is_string() || s.is_null()))
    };
    let schemas = |v: &Json| {
        v.as_array()
            .is_some_and(|a| a.iter().all(|s| s.is_object() || s.is_null()))
    };
    let map_of_schemas = |v: &Json| {
        v.as_object()
            .is_some_and(|m| m.values().all(|s| s.is_object() || s.is_null()))
    };
    for (key, value) in schema.as_object().into_iter().flatten() {
        let expected = match key.as_str() {
            _ if value.is_null() => continue,
            "id"
            | "$schema"
            | "$ref"
            | "description"
            | "type"
            | "format"
            | "title"
            | "pattern"
            | "x-kubernetes-list-type"
            | "x-kubernetes-map-type" => (!value.is_string()).then_some("a string"),
            "maxLength" | "minLength" | "maxItems" | "minItems" | "maxProperties"
            | "minProperties" => {
                (crate::json::whole(value).is_none()).then_some("an integer of 64 bits")
            }
            "maximum" | "minimum" | "multipleOf" => (!value.is_number()).then_some("a number"),
            "exclusiveMaximum"
            | "exclusiveMinimum"
            | "uniqueItems"
            | "nullable"
            | "x-kubernetes-preserve-unknown-fields"
            | "x-kubernetes-embedded-resource"
            | "x-kubernetes-int-or-string" => (!value.is_boolean()).then_some("a boolean"),
            "required" | "x-kubernetes-list-map-keys" => {
                (!strings(value)).then_some("a list of strings")
            }
            "enum" => (!value.is_array()).then_some("a list"),
            "properties" | "definitions" | "patternProperties" => {
                (!map_of_schemas(value)).then_some("a map of JSON schemas")
            }
            "allOf" | "anyOf" | "oneOf" | "x-kubernetes-validations" => {
                (!schemas(value)).then_some("a list of objects")
            }
            "not" | "externalDocs" => (!value.is_object()).then_some("an object"),
            "additionalItems" => {
                (!(value.is_boolean() || value.is_object())).then_some("a boolean or a JSON schema")
            }
            _ => None,
        };
        if let Some(expected) = expected {
            out.push(
                trail,
                &[key.as_str()],
                format!("must be {expected} (the API server cannot decode the CRD)"),
            );
        }
    }
}

/// Whether `schema` sets `member`, a keyword the API server does not support.
fn unsupported(schema: &Json, member: &str, empty_is_unset: bool) -> bool {
    match schema.get(member) {
        None | Some(Json::Null) => false,
        Some(Json::String(s)) if empty_is_unset => !s.is_empty(),
        Some(Json::Object(map)) if empty_is_unset => !map.is_empty(),
        Some(_) => true,
    }
}

/// Whether the API server can read `schema` as a structural schema: no
/// unsupported keyword, no array of `items`, no
/// `x-kubernetes-preserve-unknown-fields: false`, anywhere.
fn convertible(schema: &Json) -> bool {
    if !schema.is_object() {
        return true;
    }
    let refused = (UNSUPPORTED.iter()).any(|(member, empty)| unsupported(schema, member, *empty))
        || (schema.field("items").as_array()).is_some_and(|items| !items.is_empty())
        || schema.field("x-kubernetes-preserve-unknown-fields") == false;
    if refused {
        return false;
    }
    let children = [
        schema.field("not"),
        schema.field("additionalProperties"),
        schema.field("items"),
    ];
    children.into_iter().all(convertible)
        && (schema.field("properties").as_object().into_iter().flatten())
            .all(|(_, p)| convertible(p))
        && (JUNCTORS.iter()).all(|j| each(schema.field(j)).all(|(_, s)| convertible(s)))
}

/// The rules of the `x-kubernetes-*` extensions at one node.
fn extensions(schema: &Json, kind: &str, trail: &Trail<'_>, out: &mut Out<'_>) {
    if schema.field("x-kubernetes-preserve-unknown-fields") == false {
        out.push(
            trail,
            &["x-kubernetes-preserve-unknown-fields"],
            "must be true or undefined",
        );
    }
    let mut needs = |extension: &str, wanted: &str| {
        if kind != wanted {
            out.push(
                trail,
                &["type"],
                format!("must be {wanted} if {extension} is specified"),
            );
        }
    };
    let map_type = schema.field("x-kubernetes-map-type");
    let list_type = schema.field("x-kubernetes-list-type");
    if !map_type.is_null() {
        needs("x-kubernetes-map-type", "object");
    }
    if !list_type.is_null() {
        needs("x-kubernetes-list-type", "array");
    }
    for (value, name, allowed) in [
        (
            map_type,
            "x-kubernetes-map-type",
            &["atomic", "granular"][..],
        ),
        (
            list_type,
            "x-kubernetes-list-type",
            &["atomic", "set", "map"][..],
        ),
    ] {
        if let Some(word) = value.as_str()
            && !allowed.contains(&word)
        {
            out.push(
                trail,
                &[name],
                format!("`{word}` is not one of {}", allowed.join(", ")),
            );
        }
    }
    let keys: Vec<&str> = (schema.field("x-kubernetes-list-map-keys").as_array())
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .collect();
    if !keys.is_empty() && list_type != "map" {
        out.push(
            trail,
            &["x-kubernetes-list-type"],
            "must be map if x-kubernetes-list-map-keys is non-empty",
        );
    }
    let items = schema.field("items");
    if list_type == "set" && kind == "array" && items.is_object() {
        match items.field("type").as_str() {
            Some("array")
                if !items.field("x-kubernetes-list-type").is_null()
                    && items.field("x-kubernetes-list-type") != "atomic" =>
            {
                out.push(
                    trail,
                    &["items", "x-kubernetes-list-type"],
                    "must be atomic as item of a list with x-kubernetes-list-type=set",
                );
            }
            Some("object") if items.field("x-kubernetes-map-type") != "atomic" => {
                out.push(
                    trail,
                    &["items", "x-kubernetes-map-type"],
                    "must be atomic as item of a list with x-kubernetes-list-type=set",
                );
            }
            _ => {}
        }
    }
    if (list_type == "set" || list_type == "map") && items.field("nullable") == true {
        let list = list_type.as_str().unwrap_or_default();
        out.push(
            trail,
            &["items", "nullable"],
            format!("cannot be nullable when x-kubernetes-list-type is {list}"),
        );
    }
    if list_type != "map" {
        return;
    }
    if keys.is_empty() {
        out.push(
            trail,
            &["x-kubernetes-list-map-keys"],
            "must not be empty if x-kubernetes-list-type is map",
        );
    }
    if items.is_null() {
        out.push(
            trail,
            &["items"],
            "must have a schema if x-kubernetes-list-type is map",
        );
        return;
    }
    if items.field("type") != "object" {
        out.push(
            trail,
            &["items", "type"],
            "must be object if parent array's x-kubernetes-list-type is map",
        );
        return;
    }
    let required: Vec<&str> = (items.field("required").as_array().into_iter().flatten())
        .filter_map(Json::as_str)
        .collect();
    // A set: a hostile list of keys is no quadratic search.
    let mut seen = std::collections::BTreeSet::new();
    for key in keys {
        match items.field("properties").get(key) {
            Some(property) => {
                let path = |last: &str| trail.path(&["items", "properties"]).key(key).key(last);
                if ["array", "object"]
                    .contains(&property.field("type").as_str().unwrap_or_default())
                {
                    out.push_with(|| {
                        let why =
                            "must be a scalar type if parent array's x-kubernetes-list-type is map";
                        (path("type"), why.to_owned())
                    });
                }
                if !required.contains(&key) && property.get("default").is_none_or(Json::is_null) {
                    out.push_with(|| {
                        let why = "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property";
                        (path("default"), why.to_owned())
                    });
                }
                if property.field("nullable") == true {
                    out.push_with(|| {
                        let why = "this property is in x-kubernetes-list-map-keys, so it cannot be nullable";
                        (path("nullable"), why.to_owned())
                    });
                }
            }
            None => out.push(
                trail,
                &["x-kubernetes-list-map-keys"],
                "entries must all be names of item properties",
            ),
        }
        if !seen.insert(key) {
            out.push(
                trail,
                &["x-kubernetes-list-map-keys"],
                "must not contain duplicate entries",
            );
        }
    }
}

/// Where a node of the structural schema lies.
#[derive(Clone, Copy, PartialEq)]
enum Level {
    Root,
    Field,
    Item,
}

/// A property's schema written as null: the API server reads it as an
/// empty schema.
static EMPTY: std::sync::LazyLock<Json> = std::sync::LazyLock::new(|| serde_json::json!({}));

/// The structural schema's invariants at `schema` and below (its
/// properties, items and additional properties; value validations apart).
fn structural<'a>(schema: &'a Json, trail: &mut Trail<'a>, level: Level, out: &mut Out<'_>) {
    if !schema.is_object() || out.cut() {
        return;
    }
    let kind = schema.field("type").as_str().unwrap_or_default();
    let items = schema.field("items");
    if kind == "array" && !items.is_object() {
        out.push(trail, &["items"], "must be specified");
    }
    if items.is_object() {
        trail.within(&[Step::Key("items")], |t| {
            structural(items, t, Level::Item, out)
        });
    }
    let properties = schema.field("properties").as_object();
    for (name, property) in properties.into_iter().flatten() {
        let property = if property.is_null() { &EMPTY } else { property };
        trail.within(&[Step::Key("properties"), Step::Key(name)], |t| {
            structural(property, t, Level::Field, out)
        });
    }
    let additional = schema.field("additionalProperties");
    if !additional.is_null() {
        if level == Level::Root {
            out.push(
                trail,
                &["additionalProperties"],
                "must not be used at the root",
            );
        }
        if additional.is_object() {
            trail.within(&[Step::Key("additionalProperties")], |t| {
                structural(additional, t, Level::Field, out)
            });
        }
    }
    let flag = |name: &str| schema.field(name) == true;
    let int_or_string = flag("x-kubernetes-int-or-string");
    let preserve = flag("x-kubernetes-preserve-unknown-fields");
    let embedded = flag("x-kubernetes-embedded-resource");
    if int_or_string && preserve {
        out.push(
            trail,
            &["x-kubernetes-preserve-unknown-fields"],
            "must be false if x-kubernetes-int-or-string is true",
        );
    }
    if int_or_string && embedded {
        out.push(
            trail,
            &["x-kubernetes-embedded-resource"],
            "must be false if x-kubernetes-int-or-string is true",
        );
    }
    // The two shapes of an int-or-string whose value validation names types.
    let skip_any_of = int_or_string_pair(schema.field("anyOf"));
    let skip_first_all_of = (schema.field("allOf").as_array())
        .and_then(|all| all.first())
        .is_some_and(|first| int_or_string_pair(first.field("anyOf")));
    value_validation(schema, trail, skip_any_of, skip_first_all_of, out);
    if embedded && kind != "object" {
        out.push(
            trail,
            &["type"],
            "must be object if x-kubernetes-embedded-resource is true",
        );
    } else if kind.is_empty() && !int_or_string && !preserve {
        let why = match level {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        out.push(trail, &["type"], why);
    }
    if embedded && !additional.is_null() {
        out.push(
            trail,
            &["additionalProperties"],
            "must not be used if x-kubernetes-embedded-resource is set",
        );
    }
    if level == Level::Root && !kind.is_empty() && kind != "object" {
        out.push(trail, &["type"], "must be object at the root");
    }
    let meta = level == Level::Root || embedded;
    for name in ["kind", "apiVersion"] {
        if let Some(property) = properties.and_then(|p| p.get(name))
            && meta
            && property.field("type") != "string"
        {
            out.push(trail, &["properties", name, "type"], "must be string");
        }
    }
    if let Some(metadata) = properties.and_then(|p| p.get("metadata")) {
        if meta && metadata.field("type") != "object" {
            out.push(trail, &["properties", "metadata", "type"], "must be object");
        }
        if level == Level::Root && !only_names(metadata) {
            out.push(
                trail,
                &["properties", "metadata"],
                "must not specify anything other than name and generateName, but metadata is implicitly specified",
            );
        }
    }
    if embedded && !preserve && properties.is_none_or(|p| p.is_empty()) {
        out.push(
            trail,
            &["properties"],
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        );
    }
}

/// `anyOf` is exactly an integer or a string, as the API server compares
/// it once read as structural: members it drops (`example`,
/// `externalDocs`, unknown fields) and zero values aside.
fn int_or_string_pair(any_of: &Json) -> bool {
    let only = |entry: &Json, wanted: &str| {
        entry.field("type") == wanted
            && known(entry).all(|(member, value)| {
                matches!(member.as_str(), "type" | "example" | "externalDocs")
                    || zero_structural(value)
            })
    };
    matches!(any_of.as_array().map(Vec::as_slice), Some([a, b]) if only(a, "integer") && only(b, "string"))
}

/// Whether the root's `metadata` schema restricts no more than `name` and
/// `generateName` (its type and default aside), as the API server reads it.
fn only_names(metadata: &Json) -> bool {
    known(metadata).all(|(member, value)| match member.as_str() {
        // Set aside, or no part of a structural schema.
        "type" | "default" | "example" | "externalDocs" | "$schema" => true,
        "properties" => {
            (value.as_object()).is_none_or(|p| p.keys().all(|k| k == "name" || k == "generateName"))
        }
        // `false` too: it forbids every other name.
        "additionalProperties" => value.is_null(),
        _ => zero_structural(value),
    })
}

/// The value validations of a structural node: each may not specify what
/// only a structural node may.
fn value_validation<'a>(
    schema: &'a Json,
    trail: &mut Trail<'a>,
    skip_any_of: bool,
    skip_first_all_of: bool,
    out: &mut Out<'_>,
) {
    if !skip_any_of {
        for (i, sub) in each(schema.field("anyOf")) {
            trail.within(&[Step::Key("anyOf"), Step::Index(i)], |t| {
                nested(sub, t, false, out)
            });
        }
    }
    for (i, sub) in each(schema.field("allOf")) {
        trail.within(&[Step::Key("allOf"), Step::Index(i)], |t| {
            nested(sub, t, skip_first_all_of && i == 0, out)
        });
    }
    for (i, sub) in each(schema.field("oneOf")) {
        trail.within(&[Step::Key("oneOf"), Step::Index(i)], |t| {
            nested(sub, t, false, out)
        });
    }
    trail.within(&[Step::Key("not")], |t| {
        nested(schema.field("not"), t, false, out)
    });
}

/// How a member under a value validation counts as set.
#[derive(Clone, Copy)]
enum Set {
    /// `true`.
    Flag,
    /// A string that is not empty.
    Text,
    /// Any value but null.
    Any,
    /// A list that is not empty.
    List,
    /// `true` or a schema (`false` is read as unset there).
    Allows,
}

/// What a schema under a value validation may not specify.
const NOT_NESTED: &[(&str, Set, &str)] = &[
    ("type", Set::Text, "must be empty to be structural"),
    (
        "additionalProperties",
        Set::Allows,
        "must be undefined to be structural",
    ),
    ("default", Set::Any, "must be undefined to be structural"),
    ("title", Set::Text, "must be empty to be structural"),
    ("description", Set::Text, "must be empty to be structural"),
    ("nullable", Set::Flag, "must be false to be structural"),
    (
        "x-kubernetes-preserve-unknown-fields",
        Set::Flag,
        "must be false to be structural",
    ),
    (
        "x-kubernetes-embedded-resource",
        Set::Flag,
        "must be false to be structural",
    ),
    (
        "x-kubernetes-int-or-string",
        Set::Flag,
        "must be false to be structural",
    ),
    (
        "x-kubernetes-list-map-keys",
        Set::List,
        "must be empty to be structural",
    ),
    (
        "x-kubernetes-list-type",
        Set::Any,
        "must be undefined to be structural",
    ),
    (
        "x-kubernetes-map-type",
        Set::Any,
        "must be undefined to be structural",
    ),
    (
        "x-kubernetes-validations",
        Set::List,
        "must be empty to be structural",
    ),
];

/// A schema under a value validation, and those under it.
fn nested<'a>(schema: &'a Json, trail: &mut Trail<'a>, skip_any_of: bool, out: &mut Out<'_>) {
    if !schema.is_object() || out.cut() {
        return;
    }
    value_validation(schema, trail, skip_any_of, false, out);
    trail.within(&[Step::Key("items")], |t| {
        nested(schema.field("items"), t, false, out)
    });
    for (name, property) in (schema.field("properties").as_object())
        .into_iter()
        .flatten()
    {
        trail.within(&[Step::Key("properties"), Step::Key(name)], |t| {
            nested(property, t, false, out)
        });
    }
    let additional = schema.field("additionalProperties");
    if additional.is_object() {
        trail.within(&[Step::Key("additionalProperties")], |t| {
            nested(additional, t, false, out)
        });
    }
    for (member, set, why) in NOT_NESTED {
        let value = schema.field(member);
        let set = match set {
            Set::Flag => value == true,
            Set::Text => value.as_str().is_some_and(|s| !s.is_empty()),
            Set::Any => !value.is_null(),
            Set::List => value.as_array().is_some_and(|l| !l.is_empty()),
            Set::Allows => value == true || value.is_object(),
        };
        if set {
            out.push(trail, &[member], *why);
        }
    }
    if schema.field("properties").get("metadata").is_some() {
        out.push(
            trail,
            &["properties", "metadata"],
            "must not be specified in a nested context",
        );
    }
}

/// The root's value validations: every field and array they name is
/// specified by the structural schema beside them (`structural`, or
/// missing: `None`), which is at the first `at` steps of the trail.
fn junctors<'a>(
    validation: &'a Json,
    structural: Option<&'a Json>,
    trail: &mut Trail<'a>,
    at: usize,
    out: &mut Out<'_>,
) {
    // The validation's path is the trail; the structural schema's, its
    // first `at` steps and then `named`, kept apart.
    fn under<'a>(
        validation: &'a Json,
        structural: Option<&'a Json>,
        trail: &mut Trail<'a>,
        (at, named): (usize, &mut Vec<Step<'a>>),
        out: &mut Out<'_>,
    ) {
        if !validation.is_object() || out.cut() {
            return;
        }
        let Some(structural) = structural else {
            out.push_with(|| {
                let mut path = trail.path_to(at, &[]);
                for step in named.iter() {
                    path = match step {
                        Step::Key(key) => path.key(*key),
                        Step::Index(index) => path.index(*index),
                    };
                }
                (
                    path,
                    format!("because it is defined in {}", trail.path(&[])),
                )
            });
            return;
        };
        let structural = if structural.is_null() {
            &*EMPTY
        } else {
            structural
        };
        each_junctor(validation, structural, trail, (at, named), out);
        let items = validation.field("items");
        if items.is_object() {
            let specified = structural.get("items").filter(|i| i.is_object());
            named.push(Step::Key("items"));
            trail.within(&[Step::Key("items")], |t| {
                under(items, specified, t, (at, named), out)
            });
            named.pop();
        }
        for (name, property) in (validation.field("properties").as_object())
            .into_iter()
            .flatten()
        {
            let specified = structural.field("properties").get(name);
            named.extend([Step::Key("properties"), Step::Key(name)]);
            trail.within(&[Step::Key("properties"), Step::Key(name)], |t| {
                under(property, specified, t, (at, named), out)
            });
            named.truncate(named.len() - 2);
        }
    }
    fn each_junctor<'a>(
        validation: &'a Json,
        structural: &'a Json,
        trail: &mut Trail<'a>,
        (at, named): (usize, &mut Vec<Step<'a>>),
        out: &mut Out<'_>,
    ) {
        trail.within(&[Step::Key("not")], |t| {
            under(
                validation.field("not"),
                Some(structural),
                t,
                (at, &mut *named),
                out,
            )
        });
        for junctor in JUNCTORS {
            for (i, sub) in each(validation.field(junctor)) {
                trail.within(&[Step::Key(junctor), Step::Index(i)], |t| {
                    under(sub, Some(structural), t, (at, &mut *named), out)
                });
            }
        }
    }
    let structural = structural.unwrap_or(&EMPTY);
    each_junctor(validation, structural, trail, (at, &mut Vec::new()), out);
}

#[cfg(test)]
mod tests {

    use serde_json::json;

    use super::*;

    /// A CRD's spec with `schema` as its one version's, the status
    /// subresource on.
    fn spec(schema: Json) -> Json {
        json!({"group": "example.com", "scope": "Namespaced",
            "names": {"kind": "Widget", "plural": "widgets"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}}, "schema": {"openAPIV3Schema": schema}}]})
    }

    fn found(spec: &Json) -> Found {
        let mut found = Found::new();
        check(spec, &KeyPath::root().key("spec"), &mut found);
        found
    }

    /// A schema the API server takes, with the shapes real CRDs use:
    /// int-or-string both ways, a map list, an atomic map, an embedded
    /// resource, a map of strings, value validations that name only
    /// specified fields, defaults below the root's metadata.
    fn accepted() -> Json {
        json!({
            "type": "object",
            "description": "A widget.",
            "required": ["spec"],
            "properties": {
                "apiVersion": {"type": "string"},
                "kind": {"type": "string"},
                "metadata": {"type": "object"},
                "spec": {
                    "type": "object",
                    "oneOf": [{"required": ["port"]}, {"required": ["name"]}],
                    "anyOf": [{"properties": {"port": {"minimum": 1}}}, {"not": {"required": ["port"]}}],
                    "properties": {
                        "port": {"x-kubernetes-int-or-string": true,
                            "anyOf": [{"type": "integer"}, {"type": "string"}]},
                        "surge": {"x-kubernetes-int-or-string": true,
                            "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]},
                                {"pattern": "^[0-9]+%?$"}]},
                        "loose": {"x-kubernetes-int-or-string": true},
                        "name": {"type": "string", "default": "w", "nullable": true},
                        "hosts": {"type": "array", "x-kubernetes-list-type": "map",
                            "x-kubernetes-list-map-keys": ["name"],
                            "items": {"type": "object", "required": ["name"],
                                "properties": {"name": {"type": "string"}}}},
                        "tags": {"type": "array", "x-kubernetes-list-type": "set",
                            "items": {"type": "string"}},
                        "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                            "additionalProperties": {"type": "string"}},
                        "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                            "x-kubernetes-preserve-unknown-fields": true},
                        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                            "anyOf": [{"properties": {"mode": {"enum": ["a", "b"]}}}],
                            "not": {"additionalProperties": false}},
                        "port2": {"x-kubernetes-int-or-string": true, "anyOf": [
                            {"type": "integer", "example": 1}, {"type": "string", "description": ""}]},
                        "open": {"type": "object", "additionalProperties": true,
                            "properties": {"a": {"type": "string"}}}
                    }
                },
                "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}
            }
        })
    }

    #[test]
    fn a_schema_the_api_server_takes_has_no_finding() {
        assert_eq!(found(&spec(accepted())), Found::new());
        // The root's metadata may restrict its name.
        let mut schema = accepted();
        schema["properties"]["metadata"] = json!({"type": "object", "example": {"name": "a"},
            "enum": [], "x-not-a-field": 1,
            "properties": {"name": {"type": "string", "maxLength": 40}}});
        // A member JSONSchemaProps has not is the schema check's (unknown
        // field), not one the status subresource refuses at the root.
        schema["x-kubernetes-group-version-kind"] = json!([{"group": "a"}]);
        assert_eq!(found(&spec(schema)), Found::new());
        // Empty, these are unset.
        let mut schema = accepted();
        schema["properties"]["spec"]["definitions"] = json!({});
        schema["properties"]["spec"]["patternProperties"] = json!({});
        schema["properties"]["spec"]["id"] = json!("");
        assert_eq!(found(&spec(schema)), Found::new());
    }

    /// `spec.preserveUnknownFields: true` is refused on create, and the
    /// schema is still held to be structural.
    #[test]
    fn preserving_unknown_fields_is_refused_and_the_schema_still_structural() {
        let mut loose = spec(json!({"type": "object", "properties": {"a": {}}}));
        loose["preserveUnknownFields"] = json!(true);
        let paths: Vec<String> = found(&loose)
            .into_iter()
            .map(|(p, _)| p.to_string())
            .collect();
        assert_eq!(
            paths,
            [
                "spec.preserveUnknownFields",
                "spec.versions[0].schema.openAPIV3Schema.properties.a.type"
            ]
        );
    }

    /// A schema the API server cannot read as structural (an unsupported
    /// keyword) is refused for that: the structural rules are not asked.
    #[test]
    fn an_unsupported_keyword_is_the_one_finding() {
        let schema = json!({"type": "object", "properties": {
            "a": {"$ref": "#/b"}, "b": {}}});
        let found = found(&spec(schema));
        assert!(
            matches!(&found[..], [(_, m)] if m == "$ref is not supported"),
            "{found:?}"
        );
    }

    /// A long name above many nodes, each a finding: the walk borrows the
    /// path and makes it only for a finding, and stops reporting after
    /// [`BYTES`] of them (or [`LIMIT`]).
    #[test]
    fn long_names_above_many_findings_cost_what_is_reported() {
        let long = "n".repeat(1 << 20);
        let children: serde_json::Map<String, Json> =
            (0..20_000).map(|i| (format!("a{i}"), json!({}))).collect();
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {long.clone(): {"type": "object", "properties": children}}}}});
        let found = found(&spec(schema));
        // The first finding, and as many more as BYTES holds, then a note.
        assert!((2..=LIMIT + 1).contains(&found.len()), "{}", found.len());
        let last = &found[found.len() - 1].1;
        assert!(last.contains("the rest of it is not"), "{last}");
        let bytes: usize = (found[..found.len() - 1].iter())
            .map(|(p, m)| p.to_string().len() + m.len())
            .sum();
        assert!(bytes <= BYTES + (1 << 20) + 200, "{bytes}");
    }

    /// Each rule, one change of the accepted schema at a time: the
    /// finding's path and words (the API server's).
    #[test]
    fn each_rule_finds_what_the_api_server_refuses() {
        let at = "spec.versions[0].schema.openAPIV3Schema";
        let cases: &[(&str, Json, &str, &str)] = &[
            (
                "/properties/spec/uniqueItems",
                json!(true),
                ".properties.spec.uniqueItems",
                "quadratic",
            ),
            (
                "/properties/spec/$ref",
                json!("#/x"),
                ".properties.spec.$ref",
                "$ref is not supported",
            ),
            (
                "/definitions",
                json!({"a": {"type": "string"}}),
                ".definitions",
                "definitions is not supported",
            ),
            (
                "/properties/spec/id",
                json!("x"),
                ".properties.spec.id",
                "id is not supported",
            ),
            (
                "/properties/spec/patternProperties",
                json!({"^a": {"type": "string"}}),
                ".properties.spec.patternProperties",
                "not supported",
            ),
            (
                "/properties/spec/properties/tags/additionalItems",
                json!(false),
                ".properties.spec.properties.tags.additionalItems",
                "not supported",
            ),
            (
                "/properties/spec/dependencies",
                json!({"a": ["b"]}),
                ".properties.spec.dependencies",
                "not supported",
            ),
            (
                "/properties/spec/properties/name/type",
                json!("null"),
                ".properties.spec.properties.name.type",
                "use nullable",
            ),
            (
                "/properties/spec/properties/name/type",
                json!("strng"),
                ".properties.spec.properties.name.type",
                "is not one of",
            ),
            (
                "/properties/spec/properties/tags/items",
                json!([{"type": "string"}]),
                ".properties.spec.properties.tags.items",
                "not an array",
            ),
            (
                "/properties/spec/additionalProperties",
                json!({"type": "string"}),
                ".properties.spec.additionalProperties",
                "mutual exclusive",
            ),
            (
                "/properties/spec/properties/open/additionalProperties",
                json!(false),
                ".properties.spec.properties.open.additionalProperties",
                "mutual exclusive",
            ),
            (
                "/properties/spec/properties/extra/x-kubernetes-preserve-unknown-fields",
                json!(false),
                ".properties.spec.properties.extra.x-kubernetes-preserve-unknown-fields",
                "must be true or undefined",
            ),
            (
                "/properties/spec/properties/name/x-kubernetes-list-type",
                json!("set"),
                ".properties.spec.properties.name.type",
                "must be array if x-kubernetes-list-type",
            ),
            (
                "/properties/spec/properties/tags/x-kubernetes-list-type",
                json!("bag"),
                ".properties.spec.properties.tags.x-kubernetes-list-type",
                "is not one of",
            ),
            (
                "/properties/spec/properties/tags/x-kubernetes-list-type",
                json!("map"),
                ".properties.spec.properties.tags.x-kubernetes-list-map-keys",
                "must not be empty",
            ),
            (
                "/properties/spec/properties/hosts/x-kubernetes-list-map-keys",
                json!(["port"]),
                ".properties.spec.properties.hosts.x-kubernetes-list-map-keys",
                "names of item properties",
            ),
            (
                "/properties/spec/properties/tags/x-kubernetes-map-type",
                json!("atomic"),
                ".properties.spec.properties.tags.type",
                "must be object if x-kubernetes-map-type",
            ),
            (
                "/properties/spec/properties/name/type",
                json!(""),
                ".properties.spec.properties.name.type",
                "must not be empty for specified object fields",
            ),
            (
                "/properties/spec/properties/hosts/items/type",
                json!(""),
                ".properties.spec.properties.hosts.items.type",
                "must not be empty for specified array items",
            ),
            ("/type", json!(""), ".type", "must not be empty at the root"),
            (
                "/type",
                json!("array"),
                ".type",
                "must be object at the root",
            ),
            (
                "/properties/spec/properties/tags/items",
                json!(null),
                ".properties.spec.properties.tags.items",
                "must be specified",
            ),
            (
                "/additionalProperties",
                json!({"type": "string"}),
                ".additionalProperties",
                "must not be used at the root",
            ),
            (
                "/properties/kind/type",
                json!("integer"),
                ".properties.kind.type",
                "must be string",
            ),
            (
                "/properties/metadata/properties",
                json!({"labels": {"type": "object"}}),
                ".properties.metadata",
                "other than name and generateName",
            ),
            (
                "/properties/metadata/default",
                json!({"name": "a"}),
                ".properties.metadata.default",
                "in top-level metadata",
            ),
            (
                "/properties/spec/properties/template/type",
                json!("string"),
                ".properties.spec.properties.template.type",
                "must be object if x-kubernetes-embedded-resource",
            ),
            (
                "/properties/spec/properties/port/x-kubernetes-preserve-unknown-fields",
                json!(true),
                ".properties.spec.properties.port.x-kubernetes-preserve-unknown-fields",
                "int-or-string",
            ),
            (
                "/properties/spec/anyOf/0/type",
                json!("object"),
                ".properties.spec.anyOf[0].type",
                "must be empty to be structural",
            ),
            (
                "/properties/spec/oneOf/0/description",
                json!("a"),
                ".properties.spec.oneOf[0].description",
                "must be empty to be structural",
            ),
            (
                "/properties/spec/not",
                json!({"nullable": true}),
                ".properties.spec.not.nullable",
                "must be false to be structural",
            ),
            (
                "/properties/spec/allOf",
                json!([{"properties": {"metadata": {}}}]),
                ".properties.spec.allOf[0].properties.metadata",
                "nested context",
            ),
            (
                "/anyOf",
                json!([{"properties": {"spec": {"properties": {"nope": {"minimum": 1}}}}}]),
                ".properties.spec.properties.nope",
                "because it is defined in",
            ),
            (
                "/oneOf",
                json!([{"properties": {"spec": {"items": {}}}}]),
                ".properties.spec.items",
                "because it is defined in",
            ),
            (
                "/properties/spec/properties/tags/items",
                json!({"type": "object"}),
                ".properties.spec.properties.tags.items.x-kubernetes-map-type",
                "must be atomic as item of a list",
            ),
            (
                "/properties/spec/properties/hosts/items/required",
                json!([]),
                ".properties.spec.properties.hosts.items.properties.name.default",
                "must have a default or be a required property",
            ),
            (
                "/properties/spec/properties/tags/items/nullable",
                json!(true),
                ".properties.spec.properties.tags.items.nullable",
                "cannot be nullable when x-kubernetes-list-type is set",
            ),
            (
                "/properties/spec/properties/hosts/items/properties/name/nullable",
                json!(true),
                ".properties.spec.properties.hosts.items.properties.name.nullable",
                "cannot be nullable",
            ),
            (
                "/properties/spec/properties/tags/items",
                json!([]),
                ".properties.spec.properties.tags.items",
                "must be specified",
            ),
            (
                "/properties/metadata/additionalProperties",
                json!(false),
                ".properties.metadata",
                "other than name and generateName",
            ),
            (
                "/properties/spec/properties/extra/$schema",
                json!("http://json-schema.org/draft-07/schema#"),
                ".properties.spec.properties.extra.$schema",
                "$schema is not supported",
            ),
            (
                "/properties/spec/properties/loose/anyOf",
                json!([{"type": "integer"}, {"type": "boolean"}]),
                ".properties.spec.properties.loose.anyOf[0].type",
                "must be empty to be structural",
            ),
            (
                "/nullable",
                json!(true),
                ".nullable",
                "cannot be true at the root",
            ),
            (
                "/properties/spec/$ref",
                json!(""),
                ".properties.spec.$ref",
                "$ref is not supported",
            ),
            (
                "/properties/spec/dependencies",
                json!({}),
                ".properties.spec.dependencies",
                "not supported",
            ),
            (
                "/properties/spec/not",
                json!({"additionalProperties": true}),
                ".properties.spec.not.additionalProperties",
                "must be undefined to be structural",
            ),
            (
                "/properties/spec/anyOf/0/default",
                json!(false),
                ".properties.spec.anyOf[0].default",
                "must be undefined to be structural",
            ),
            (
                "/properties/metadata/description",
                json!("the object's"),
                ".properties.metadata",
                "other than name and generateName",
            ),
            (
                "/enum",
                json!([{}]),
                "",
                "may not be set at the root of the schema if the status subresource is enabled",
            ),
        ];
        for (pointer, value, path, words) in cases {
            let mut schema = accepted();
            let (parent, member) = pointer.rsplit_once('/').unwrap();
            schema.pointer_mut(parent).unwrap()[member] = value.clone();
            if value.is_null() {
                schema
                    .pointer_mut(parent)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .remove(member);
            }
            let found = found(&spec(schema));
            let want = path_of(&format!("{at}{path}"));
            assert!(
                found.iter().any(|(p, m)| *p == want && m.contains(words)),
                "{pointer} = {value}: wanted {want:?}: …{words}…, found {found:?}"
            );
        }
        // A property written as null is an empty schema to the API server.
        let mut schema = accepted();
        schema["properties"]["spec"]["properties"]["name"] = Json::Null;
        let found_null = found(&spec(schema));
        let want = path_of(&format!("{at}.properties.spec.properties.name.type"));
        assert!(
            found_null
                .iter()
                .any(|(p, m)| *p == want && m.contains("must not be empty")),
            "{found_null:?}"
        );
        let mut missing = spec(accepted());
        missing["versions"][0]["schema"] = json!({});
        let found = found(&missing);
        assert!(
            matches!(&found[..], [(p, m)] if *p == path_of(at) && m.contains("required")),
            "{found:?}"
        );
    }

    /// A hostile list of map keys, each the same: the repeats are found
    /// (the first [`LIMIT`] reported), each key looked up once (a search
    /// of the keys seen would be quadratic: 2 * 10^10 comparisons here).
    #[test]
    fn a_long_list_of_map_keys_is_read_once() {
        let mut schema = accepted();
        schema["properties"]["spec"]["properties"]["hosts"]["x-kubernetes-list-map-keys"] =
            json!(vec!["name"; 200_000]);
        let found = found(&spec(schema));
        assert_eq!(found.len(), LIMIT + 1);
        assert!(found[..LIMIT].iter().all(|(_, m)| m.contains("duplicate")));
    }

    /// `a.b[0].c` as a path (names with no dot or bracket).
    fn path_of(written: &str) -> KeyPath {
        let mut path = KeyPath::root();
        for part in written.split('.') {
            let (name, index) = match part.split_once('[') {
                Some((name, rest)) => (name, rest.trim_end_matches(']').parse::<usize>().ok()),
                None => (part, None),
            };
            path = path.key(name);
            if let Some(index) = index {
                path = path.index(index);
            }
        }
        path
    }
}
