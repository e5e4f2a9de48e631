//! What the API server refuses in a CustomResourceDefinition's schemas
//! although `JSONSchemaProps` has a field for it
//! (`apiextensions-apiserver`: `pkg/apis/apiextensions/validation` and the
//! structural schema rules of `pkg/apiserver/schema`): keywords it does not
//! support (`$ref`, `definitions`, `id`, `dependencies`, `patternProperties`,
//! `additionalItems`, `uniqueItems: true`, `type: null`, an array of
//! `items`), `additionalProperties` beside `properties`, the
//! `x-kubernetes-*` extensions' own rules, a schema per version, defaults
//! in the root's metadata, and the structural schema: a `type` on every
//! specified field and array item, `items` for every array, an object at
//! the root with no `additionalProperties`, the root's `metadata` naming
//! at most `name` and `generateName`, value validations (`allOf`,
//! `anyOf`, `oneOf`, `not`) that specify no type, default, description
//! or extension and name no field the schema outside them does not.
//! Not checked here: CEL rules and their cost, `format` names, a
//! default's value against its schema, patterns (the schema check
//! compiles them as the API server does).

use serde_json::Value as Json;

use super::pod::one_of;
use crate::json::Field;
use crate::location::KeyPath;
use crate::scheduling::each;

/// Problems, by path.
type Found = Vec<(KeyPath, String)>;

/// The types a schema node may have.
const TYPES: &[&str] = &["array", "boolean", "integer", "number", "object", "string"];

/// The members of the root schema the API server takes when the status
/// subresource is on (`allowedFieldsAtRootSchema`).
const AT_ROOT_WITH_STATUS: &[&str] = &[
    "description",
    "type",
    "format",
    "title",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "multipleOf",
    "required",
    "items",
    "properties",
    "externalDocs",
    "example",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-validations",
];

/// The value validations of a node: what applies a schema without
/// specifying one.
const JUNCTORS: &[&str] = &["allOf", "anyOf", "oneOf"];

/// The schemas of `spec`, a CustomResourceDefinition's, at `at` (`spec`).
pub fn check(spec: &Json, at: &KeyPath, found: &mut Found) {
    for (i, version) in each(spec.field("versions")) {
        let path = at
            .key("versions")
            .index(i)
            .key("schema")
            .key("openAPIV3Schema");
        let schema = version.field("schema").field("openAPIV3Schema");
        if !schema.is_object() {
            found.push((path, "a schema is required for every version".to_owned()));
            continue;
        }
        if version.field("subresources").field("status").is_object() {
            status_root(schema, &path, found);
        }
        if schema.field("nullable") == true {
            found.push((
                path.key("nullable"),
                "nullable cannot be true at the root".to_owned(),
            ));
        }
        node(schema, &path, Context::ROOT, found);
        // Pruning (the default) needs a structural schema.
        if spec.field("preserveUnknownFields") != true {
            structural(schema, &path, Level::Root, found);
            completeness(schema, &path, found);
        }
    }
}

/// With the status subresource, the root schema keeps to what the API
/// server can split the status's schema out of.
fn status_root(schema: &Json, at: &KeyPath, found: &mut Found) {
    let Some(members) = schema.as_object() else {
        return;
    };
    if let Some(kind) = schema.field("type").as_str()
        && !kind.is_empty()
        && kind != "object"
    {
        found.push((
            at.key("type"),
            format!("`{kind}`: only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled"),
        ));
    }
    let others: Vec<&str> = (members.iter())
        .filter(|(name, value)| !AT_ROOT_WITH_STATUS.contains(&name.as_str()) && !zero(value))
        .map(|(name, _)| name.as_str())
        .collect();
    if !others.is_empty() {
        found.push((
            at.clone(),
            format!(
                "{} may not be set at the root of the schema if the status subresource is enabled",
                others.join(", ")
            ),
        ));
    }
}

/// A member the API server reads as its zero value: unset.
fn zero(value: &Json) -> bool {
    matches!(value, Json::Null | Json::Bool(false)) || value.as_str() == Some("")
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
}

impl Context {
    const ROOT: Context = Context {
        root: true,
        in_meta: false,
        no_default: None,
    };

    fn below(self) -> Context {
        Context {
            root: false,
            ..self
        }
    }
}

/// The rules every schema node is held to, and its children's.
fn node(schema: &Json, at: &KeyPath, context: Context, found: &mut Found) {
    if !schema.is_object() {
        return;
    }
    let kind = schema.field("type").as_str().unwrap_or_default();
    if kind == "null" {
        found.push((
            at.key("type"),
            "type cannot be set to null, use nullable as an alternative".to_owned(),
        ));
    } else if !kind.is_empty() && !TYPES.contains(&kind) {
        one_of(schema.field("type"), TYPES, at.key("type"), found);
    }
    if let Some(reason) = context.no_default
        && schema.get("default").is_some_and(|d| !d.is_null())
    {
        found.push((at.key("default"), format!("must not be set {reason}")));
    }
    // Set as the API server reads each field: `id` a string (empty is
    // unset), `patternProperties` and `definitions` maps (empty is unset),
    // the others pointers (any value, even `""`, `{}` or `false`, is set).
    for (member, empty_is_unset) in [
        ("id", true),
        ("additionalItems", false),
        ("patternProperties", true),
        ("definitions", true),
        ("dependencies", false),
        ("$ref", false),
    ] {
        let set = match schema.get(member) {
            None | Some(Json::Null) => false,
            Some(Json::String(s)) if empty_is_unset => !s.is_empty(),
            Some(Json::Object(map)) if empty_is_unset => !map.is_empty(),
            Some(_) => true,
        };
        if set {
            found.push((at.key(member), format!("{member} is not supported")));
        }
    }
    if schema
        .field("items")
        .as_array()
        .is_some_and(|items| !items.is_empty())
    {
        found.push((
            at.key("items"),
            "items must be a schema object and not an array".to_owned(),
        ));
    }
    if context.in_meta && schema.field("x-kubernetes-embedded-resource") == true {
        found.push((
            at.key("x-kubernetes-embedded-resource"),
            "must not be used inside of resource meta".to_owned(),
        ));
    }
    if schema.field("uniqueItems") == true {
        found.push((
            at.key("uniqueItems"),
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
                .to_owned(),
        ));
    }
    let properties = schema.field("properties").as_object();
    let additional = schema.field("additionalProperties");
    if properties.is_some_and(|p| !p.is_empty()) && (additional == false || additional.is_object())
    {
        found.push((
            at.key("additionalProperties"),
            "additionalProperties and properties are mutual exclusive".to_owned(),
        ));
    }
    extensions(schema, kind, at, found);
    // The children.
    if additional.is_object() {
        let mut inner = context.below();
        if context.in_meta {
            inner.no_default = Some("inside additionalProperties applying to object metadata");
        }
        node(additional, &at.key("additionalProperties"), inner, found);
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
        node(property, &at.key("properties").key(name), inner, found);
    }
    node(schema.field("not"), &at.key("not"), context.below(), found);
    for junctor in JUNCTORS {
        for (i, sub) in each(schema.field(junctor)) {
            node(sub, &at.key(*junctor).index(i), context.below(), found);
        }
    }
    for (name, definition) in schema
        .field("definitions")
        .as_object()
        .into_iter()
        .flatten()
    {
        node(
            definition,
            &at.key("definitions").key(name),
            context.below(),
            found,
        );
    }
    match schema.field("items") {
        items @ Json::Object(_) => node(items, &at.key("items"), context.below(), found),
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                node(item, &at.key("items").index(i), context.below(), found);
            }
        }
        _ => {}
    }
}

/// The rules of the `x-kubernetes-*` extensions at one node.
fn extensions(schema: &Json, kind: &str, at: &KeyPath, found: &mut Found) {
    if schema.field("x-kubernetes-preserve-unknown-fields") == false {
        found.push((
            at.key("x-kubernetes-preserve-unknown-fields"),
            "must be true or undefined".to_owned(),
        ));
    }
    let needs = |extension: &str, wanted: &str, found: &mut Found| {
        if kind != wanted {
            found.push((
                at.key("type"),
                format!("must be {wanted} if {extension} is specified"),
            ));
        }
    };
    let map_type = schema.field("x-kubernetes-map-type");
    if !map_type.is_null() {
        needs("x-kubernetes-map-type", "object", found);
        one_of(
            map_type,
            &["atomic", "granular"],
            at.key("x-kubernetes-map-type"),
            found,
        );
    }
    let list_type = schema.field("x-kubernetes-list-type");
    if !list_type.is_null() {
        needs("x-kubernetes-list-type", "array", found);
        one_of(
            list_type,
            &["atomic", "set", "map"],
            at.key("x-kubernetes-list-type"),
            found,
        );
    }
    let keys: Vec<&str> = (schema.field("x-kubernetes-list-map-keys").as_array())
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .collect();
    if !keys.is_empty() && list_type != "map" {
        found.push((
            at.key("x-kubernetes-list-type"),
            "must be map if x-kubernetes-list-map-keys is non-empty".to_owned(),
        ));
    }
    if list_type == "map" {
        let items = schema.field("items");
        if keys.is_empty() {
            found.push((
                at.key("x-kubernetes-list-map-keys"),
                "must not be empty if x-kubernetes-list-type is map".to_owned(),
            ));
        }
        if items.is_null() {
            found.push((
                at.key("items"),
                "must have a schema if x-kubernetes-list-type is map".to_owned(),
            ));
        } else if items.field("type") != "object" {
            found.push((
                at.key("items").key("type"),
                "must be object if parent array's x-kubernetes-list-type is map".to_owned(),
            ));
        } else {
            // A set: a hostile list of keys is no quadratic search.
            let mut seen = std::collections::BTreeSet::new();
            for key in keys {
                match items.field("properties").get(key) {
                    Some(property)
                        if ["array", "object"]
                            .contains(&property.field("type").as_str().unwrap_or_default()) =>
                    {
                        found.push((
                            at.key("items").key("properties").key(key).key("type"),
                            "must be a scalar type if parent array's x-kubernetes-list-type is map"
                                .to_owned(),
                        ))
                    }
                    Some(_) => {}
                    None => found.push((
                        at.key("x-kubernetes-list-map-keys"),
                        "entries must all be names of item properties".to_owned(),
                    )),
                }
                if !seen.insert(key) {
                    found.push((
                        at.key("x-kubernetes-list-map-keys"),
                        "must not contain duplicate entries".to_owned(),
                    ));
                }
            }
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

/// The structural schema's invariants at `schema` and below (its
/// properties, items and additional properties; value validations apart).
fn structural(schema: &Json, at: &KeyPath, level: Level, found: &mut Found) {
    if !schema.is_object() {
        return;
    }
    let kind = schema.field("type").as_str().unwrap_or_default();
    let items = schema.field("items");
    if kind == "array" && items.is_null() {
        found.push((at.key("items"), "must be specified".to_owned()));
    }
    if items.is_object() {
        structural(items, &at.key("items"), Level::Item, found);
    }
    let properties = schema.field("properties").as_object();
    for (name, property) in properties.into_iter().flatten() {
        structural(
            property,
            &at.key("properties").key(name),
            Level::Field,
            found,
        );
    }
    let additional = schema.field("additionalProperties");
    if !additional.is_null() {
        if level == Level::Root {
            found.push((
                at.key("additionalProperties"),
                "must not be used at the root".to_owned(),
            ));
        }
        if additional.is_object() {
            structural(
                additional,
                &at.key("additionalProperties"),
                Level::Field,
                found,
            );
        }
    }
    let flag = |name: &str| schema.field(name) == true;
    let int_or_string = flag("x-kubernetes-int-or-string");
    let preserve = flag("x-kubernetes-preserve-unknown-fields");
    let embedded = flag("x-kubernetes-embedded-resource");
    if int_or_string && preserve {
        found.push((
            at.key("x-kubernetes-preserve-unknown-fields"),
            "must be false if x-kubernetes-int-or-string is true".to_owned(),
        ));
    }
    if int_or_string && embedded {
        found.push((
            at.key("x-kubernetes-embedded-resource"),
            "must be false if x-kubernetes-int-or-string is true".to_owned(),
        ));
    }
    // The two shapes of an int-or-string whose value validation names types.
    let pair = serde_json::json!([{"type": "integer"}, {"type": "string"}]);
    let skip_any_of = int_or_string_pair(schema.field("anyOf"), &pair);
    let skip_first_all_of = (schema.field("allOf").as_array())
        .and_then(|all| all.first())
        .is_some_and(|first| int_or_string_pair(first.field("anyOf"), &pair));
    value_validation(schema, at, skip_any_of, skip_first_all_of, found);
    if embedded && kind != "object" {
        found.push((
            at.key("type"),
            "must be object if x-kubernetes-embedded-resource is true".to_owned(),
        ));
    } else if kind.is_empty() && !int_or_string && !preserve {
        let why = match level {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        found.push((at.key("type"), why.to_owned()));
    }
    if embedded && !additional.is_null() {
        found.push((
            at.key("additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set".to_owned(),
        ));
    }
    if level == Level::Root && !kind.is_empty() && kind != "object" {
        found.push((at.key("type"), "must be object at the root".to_owned()));
    }
    let meta = level == Level::Root || embedded;
    for name in ["kind", "apiVersion"] {
        if let Some(property) = properties.and_then(|p| p.get(name))
            && meta
            && property.field("type") != "string"
        {
            found.push((
                at.key("properties").key(name).key("type"),
                "must be string".to_owned(),
            ));
        }
    }
    if let Some(metadata) = properties.and_then(|p| p.get("metadata")) {
        let path = at.key("properties").key("metadata");
        if meta && metadata.field("type") != "object" {
            found.push((path.key("type"), "must be object".to_owned()));
        }
        if level == Level::Root && !only_names(metadata) {
            found.push((
                path,
                "must not specify anything other than name and generateName, but metadata is implicitly specified".to_owned(),
            ));
        }
    }
    if embedded && !preserve && properties.is_none_or(|p| p.is_empty()) {
        found.push((
            at.key("properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields".to_owned(),
        ));
    }
}

/// `anyOf` is exactly an integer or a string.
fn int_or_string_pair(any_of: &Json, pair: &Json) -> bool {
    any_of == pair
}

/// Whether the root's `metadata` schema restricts no more than `name` and
/// `generateName` (its type and default aside).
fn only_names(metadata: &Json) -> bool {
    let Some(members) = metadata.as_object() else {
        return true;
    };
    members.iter().all(|(member, value)| match member.as_str() {
        // Set aside, or no part of a structural schema.
        "type" | "default" | "example" | "externalDocs" | "$schema" => true,
        "properties" => value
            .as_object()
            .is_none_or(|p| p.keys().all(|k| k == "name" || k == "generateName")),
        _ => zero(value),
    })
}

/// The value validations of a structural node: each may not specify what
/// only a structural node may.
fn value_validation(
    schema: &Json,
    at: &KeyPath,
    skip_any_of: bool,
    skip_first_all_of: bool,
    found: &mut Found,
) {
    if !skip_any_of {
        for (i, sub) in each(schema.field("anyOf")) {
            nested(sub, &at.key("anyOf").index(i), false, found);
        }
    }
    for (i, sub) in each(schema.field("allOf")) {
        nested(
            sub,
            &at.key("allOf").index(i),
            skip_first_all_of && i == 0,
            found,
        );
    }
    for (i, sub) in each(schema.field("oneOf")) {
        nested(sub, &at.key("oneOf").index(i), false, found);
    }
    nested(schema.field("not"), &at.key("not"), false, found);
}

/// What a schema under a value validation may not specify.
const NOT_NESTED: &[(&str, &str)] = &[
    ("type", "must be empty to be structural"),
    ("additionalProperties", "must be undefined to be structural"),
    ("default", "must be undefined to be structural"),
    ("title", "must be empty to be structural"),
    ("description", "must be empty to be structural"),
    ("nullable", "must be false to be structural"),
    (
        "x-kubernetes-preserve-unknown-fields",
        "must be false to be structural",
    ),
    (
        "x-kubernetes-embedded-resource",
        "must be false to be structural",
    ),
    (
        "x-kubernetes-int-or-string",
        "must be false to be structural",
    ),
    (
        "x-kubernetes-list-map-keys",
        "must be empty to be structural",
    ),
    (
        "x-kubernetes-list-type",
        "must be undefined to be structural",
    ),
    (
        "x-kubernetes-map-type",
        "must be undefined to be structural",
    ),
];

/// A schema under a value validation, and those under it.
fn nested(schema: &Json, at: &KeyPath, skip_any_of: bool, found: &mut Found) {
    if !schema.is_object() {
        return;
    }
    value_validation(schema, at, skip_any_of, false, found);
    nested(schema.field("items"), &at.key("items"), false, found);
    for (name, property) in schema.field("properties").as_object().into_iter().flatten() {
        nested(property, &at.key("properties").key(name), false, found);
    }
    for (member, why) in NOT_NESTED {
        let value = schema.field(member);
        let set = match value {
            Json::Array(items) => !items.is_empty(),
            // Any value of these is set, even `false`.
            other if ["default", "additionalProperties"].contains(member) => !other.is_null(),
            // Read as the API server's zero values: unset.
            other => !zero(other),
        };
        if set {
            found.push((at.key(*member), (*why).to_owned()));
        }
    }
    if (schema.field("x-kubernetes-validations").as_array()).is_some_and(|v| !v.is_empty()) {
        found.push((
            at.key("x-kubernetes-validations"),
            "must be empty to be structural".to_owned(),
        ));
    }
    if schema.field("properties").get("metadata").is_some() {
        found.push((
            at.key("properties").key("metadata"),
            "must not be specified in a nested context".to_owned(),
        ));
    }
}

/// Every field and array a value validation names is specified by the
/// structural schema beside it.
fn completeness(schema: &Json, at: &KeyPath, found: &mut Found) {
    fn under(
        validation: &Json,
        structural: &Json,
        s_at: &KeyPath,
        v_at: &KeyPath,
        found: &mut Found,
    ) {
        if !validation.is_object() {
            return;
        }
        if !structural.is_object() {
            found.push((s_at.clone(), format!("because it is defined in {v_at}")));
            return;
        }
        junctors(validation, structural, s_at, v_at, found);
        let items = validation.field("items");
        if items.is_object() {
            under(
                items,
                structural.field("items"),
                &s_at.key("items"),
                &v_at.key("items"),
                found,
            );
        }
        for (name, property) in validation
            .field("properties")
            .as_object()
            .into_iter()
            .flatten()
        {
            let v_path = v_at.key("properties").key(name);
            match structural.field("properties").get(name) {
                Some(specified) => under(
                    property,
                    specified,
                    &s_at.key("properties").key(name),
                    &v_path,
                    found,
                ),
                None => found.push((
                    s_at.key("properties").key(name),
                    format!("because it is defined in {v_path}"),
                )),
            }
        }
    }
    fn junctors(
        validation: &Json,
        structural: &Json,
        s_at: &KeyPath,
        v_at: &KeyPath,
        found: &mut Found,
    ) {
        under(
            validation.field("not"),
            structural,
            s_at,
            &v_at.key("not"),
            found,
        );
        for junctor in JUNCTORS {
            for (i, sub) in each(validation.field(junctor)) {
                under(sub, structural, s_at, &v_at.key(*junctor).index(i), found);
            }
        }
    }
    fn walk(schema: &Json, at: &KeyPath, found: &mut Found) {
        if !schema.is_object() {
            return;
        }
        junctors(schema, schema, at, at, found);
        walk(schema.field("items"), &at.key("items"), found);
        for (name, property) in schema.field("properties").as_object().into_iter().flatten() {
            walk(property, &at.key("properties").key(name), found);
        }
        walk(
            schema.field("additionalProperties"),
            &at.key("additionalProperties"),
            found,
        );
    }
    walk(schema, at, found);
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
                        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
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
            "properties": {"name": {"type": "string", "maxLength": 40}}});
        assert_eq!(found(&spec(schema)), Found::new());
        // Empty, these are unset.
        let mut schema = accepted();
        schema["properties"]["spec"]["definitions"] = json!({});
        schema["properties"]["spec"]["patternProperties"] = json!({});
        schema["properties"]["spec"]["id"] = json!("");
        assert_eq!(found(&spec(schema)), Found::new());
        // Without pruning, the schema need not be structural.
        let mut loose = spec(json!({"type": "object", "properties": {"a": {}}}));
        loose["preserveUnknownFields"] = json!(true);
        assert_eq!(found(&loose), Found::new());
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
                "/properties/spec/anyOf/0/properties/nope",
                json!({"minimum": 1}),
                ".properties.spec.properties.nope",
                "because it is defined in",
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
                json!({"additionalProperties": false}),
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
        let mut missing = spec(accepted());
        missing["versions"][0]["schema"] = json!({});
        let found = found(&missing);
        assert!(
            matches!(&found[..], [(p, m)] if *p == path_of(at) && m.contains("required")),
            "{found:?}"
        );
    }

    /// A hostile list of map keys, each the same: every repeat is found,
    /// each looked up once (a search of the keys seen would be quadratic:
    /// 2 * 10^10 comparisons here).
    #[test]
    fn a_long_list_of_map_keys_is_read_once() {
        let mut schema = accepted();
        schema["properties"]["spec"]["properties"]["hosts"]["x-kubernetes-list-map-keys"] =
            json!(vec!["name"; 200_000]);
        let found = found(&spec(schema));
        assert_eq!(found.len(), 199_999);
        assert!(found.iter().all(|(_, m)| m.contains("duplicate")));
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
