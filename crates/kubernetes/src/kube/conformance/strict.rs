//! A CRD's `openAPIV3Schema` made strict for the engine as the API server
//! reads it ([`strict`]): JSON Schema draft 4 with Kubernetes' extensions
//! (nullable, int-or-string, preserve-unknown-fields, embedded resources),
//! go-openapi's keywords in place of the engine's, and every member the
//! server prunes refused.

use serde_json::Value as Json;

use super::keywords::{GO_PATTERN, MISSING_NAMED, REQUIRED};

/// A CRD's structural schema with unknown fields made errors: the API server
/// prunes them silently, which for a rendered object means a typo.
///
/// The walk follows the schema's own structure (`properties`, `items`,
/// `additionalProperties`), never data such
/// as `default`, `enum` or `example`, and honours what the API server does:
/// `x-kubernetes-preserve-unknown-fields: true` keeps unknown fields at that
/// node, `x-kubernetes-embedded-resource: true` accepts `apiVersion`, `kind`
/// and `metadata` there, and the root's `metadata` is checked as ObjectMeta.
/// A `nullable: true` node takes null besides its `type`, as the API server
/// keeps and accepts a null there; a field with a `default` is not
/// required, as the API server defaults it before it validates.
pub(super) fn strict(schema: &Json, reading: Reading, minor: u32) -> Json {
    let mut schema = schema.clone();
    tighten(&mut schema, reading == Reading::Object, reading);
    if let Some(root) = schema.as_object_mut() {
        let definitions = root
            .entry("definitions")
            .or_insert_with(|| serde_json::json!({}));
        if let Some(definitions) = definitions.as_object_mut() {
            definitions.insert(
                PRUNED.into(),
                serde_json::json!({
                    "properties": {},
                    "additionalProperties": false,
                    "items": {"$ref": PRUNED_REF},
                }),
            );
        }
    }
    go_keywords(&mut schema, reading, minor);
    schema
}

/// Every `pattern` of a schema, value validations included, renamed
/// [`GO_PATTERN`]: judged as Go reads it. One Go refuses (an `API` finding
/// on the CRD) makes the schema not compile. The numeric keywords and an
/// `integer` type likewise, judged as go-openapi judges them
/// ([`crate::kube::go_numbers`]). Follows the schema's own structure only, never
/// data such as `default` or `enum`.
pub(super) fn go_keywords(schema: &mut Json, reading: Reading, minor: u32) {
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        let Some(object) = node.as_object_mut() else {
            continue;
        };
        if let Some(pattern) = object.remove("pattern") {
            object.insert(GO_PATTERN.into(), pattern);
        }
        crate::kube::go_formats::mark(object, minor);
        crate::kube::go_numbers::rename(object, reading == Reading::Default, minor);
        for (key, value) in object.iter_mut() {
            match (key.as_str(), value) {
                ("properties", Json::Object(properties)) => stack.extend(properties.values_mut()),
                (
                    "items" | "additionalProperties" | "not" | "allOf" | "anyOf" | "oneOf",
                    Json::Array(schemas),
                ) => stack.extend(schemas.iter_mut()),
                ("items" | "additionalProperties" | "not", value) => stack.push(value),
                _ => {}
            }
        }
    }
}

/// A `nullable: true` node as the API server judges a null there: its
/// type takes null, and the checks a null would fail beside the type
/// (`anyOf`, `oneOf`, `allOf`, `not`) are only asked of other values; its
/// `enum` still refuses a null (the server matches no null against one).
pub(super) fn nullable(object: &mut serde_json::Map<String, Json>) {
    match object.get("type") {
        Some(Json::String(kind)) => {
            let kind = kind.clone();
            object.insert("type".into(), serde_json::json!([kind, "null"]));
        }
        Some(Json::Array(kinds)) if !kinds.contains(&Json::from("null")) => {
            let mut kinds = kinds.clone();
            kinds.push("null".into());
            object.insert("type".into(), Json::Array(kinds));
        }
        _ => {}
    }
    if let Some(Json::Array(values)) = object.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    let combined: serde_json::Map<String, Json> = ["anyOf", "oneOf", "allOf", "not"]
        .into_iter()
        .filter_map(|key| Some((key.to_owned(), object.remove(key)?)))
        .collect();
    if !combined.is_empty() {
        object.insert(
            "anyOf".into(),
            serde_json::json!([{"type": "null"}, combined]),
        );
    }
}

/// What the API server keeps of a value that no schema describes (the
/// values of `additionalProperties: true`): no member of any object, in
/// arrays too. A definition of the strict schema's root.
pub(super) const PRUNED: &str = "x-strict-pruned";

/// A reference to [`PRUNED`].
pub(super) const PRUNED_REF: &str = "#/definitions/x-strict-pruned";

/// What a strict schema judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reading {
    /// A custom resource, as the API server decodes and defaults it.
    Object,
    /// A `default` of the schema, as written: the server judges it
    /// against the node it stands on with nothing defaulted inside it (a
    /// required member is required even where it has a default of its
    /// own) and an int-or-string of any type (the schema it builds for a
    /// default gives it none).
    Default,
}

/// Makes one schema node (and the schemas below it) strict; `resource`
/// when the node is a whole object of the API (the root, or embedded).
pub(super) fn tighten(node: &mut Json, resource: bool, reading: Reading) {
    let Some(object) = node.as_object_mut() else {
        return;
    };
    let flag = |object: &serde_json::Map<String, Json>, key: &str| {
        object.get(key) == Some(&Json::Bool(true))
    };
    let resource = resource || flag(object, "x-kubernetes-embedded-resource");
    let preserve = flag(object, "x-kubernetes-preserve-unknown-fields");
    // An int-or-string takes an integer or a string, whatever else the
    // node says (the API server gives it that type).
    if flag(object, "x-kubernetes-int-or-string")
        && !object.contains_key("type")
        && reading == Reading::Object
    {
        object.insert("type".into(), serde_json::json!(["integer", "string"]));
    }
    if flag(object, "nullable") {
        nullable(object);
    }
    // A required field with a `default` is never missing: the API server
    // puts the default there before it validates (and held the default to
    // the schema when it took the CRD). A null default is none.
    if matches!(object.get("required"), Some(Json::Array(_)))
        && let Some(Json::Array(mut required)) = object.remove("required")
    {
        let properties = object.get("properties");
        required.retain(|name| {
            let default = (name.as_str()).and_then(|name| properties?.get(name)?.get("default"));
            reading == Reading::Default || default.is_none_or(Json::is_null)
        });
        // Draft 4 wants at least one name there. A list of more names
        // than an object's errors may name is this crate's keyword, which
        // names a few and counts the rest ([`REQUIRED`]); the engine's
        // also compared the `required` of a closed object with its
        // properties name by name, quadratic in a list of thousands. A
        // short one stays the engine's, which it fuses with the object's
        // other keywords.
        if required.len() > MISSING_NAMED {
            object.insert(REQUIRED.into(), Json::Array(required));
        } else if !required.is_empty() {
            object.insert("required".into(), Json::Array(required));
        }
    }
    // An embedded resource (not the root) needs its apiVersion and kind,
    // strings that are not empty: a group version, and a DNS-1035 label in
    // any case (`validateEmbeddedResource`; its metadata is not read here).
    if flag(object, "x-kubernetes-embedded-resource") {
        let asked = serde_json::json!({
            "required": ["apiVersion", "kind"],
            "properties": {
                "apiVersion": {"type": "string", "minLength": 1, "pattern": "^[^/]*(/[^/]*)?$"},
                "kind": {"type": "string", "minLength": 1, "maxLength": 63,
                    "pattern": "^[A-Za-z]([-A-Za-z0-9]*[A-Za-z0-9])?$"},
            },
        });
        match object.get_mut("allOf") {
            Some(Json::Array(all)) => all.push(asked),
            _ => {
                object.insert("allOf".into(), Json::Array(vec![asked]));
            }
        }
    }
    // A resource takes its apiVersion, kind and metadata, declared or not.
    if resource && !preserve && !object.contains_key("properties") {
        object.insert("properties".into(), Json::Object(serde_json::Map::new()));
    }
    // The API server prunes what a map value's schema does not declare:
    // under `additionalProperties: true` or `{}` that is every member of
    // every object inside (it walks a missing schema down arrays too).
    if matches!(object.get("additionalProperties"), Some(Json::Bool(true)))
        || object
            .get("additionalProperties")
            .is_some_and(|a| a.as_object().is_some_and(serde_json::Map::is_empty))
    {
        object.insert(
            "additionalProperties".into(),
            serde_json::json!({ "$ref": PRUNED_REF }),
        );
    }
    if let Some(properties) = object.get_mut("properties").and_then(Json::as_object_mut) {
        for (name, property) in properties.iter_mut() {
            if resource && name == "metadata" {
                // The API server reads metadata as ObjectMeta, and holds
                // it to what the CRD declares of it besides: open, with
                // the declared keywords kept.
                if let Some(declared) = property.as_object_mut() {
                    declared.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
                    declared.insert("type".into(), "object".into());
                }
                tighten(property, false, reading);
            } else {
                tighten(property, false, reading);
            }
        }
        if resource {
            // Accepted on every resource, declared or not.
            for (field, kind) in [
                ("apiVersion", "string"),
                ("kind", "string"),
                ("metadata", "object"),
            ] {
                properties
                    .entry(field)
                    .or_insert_with(|| serde_json::json!({ "type": kind }));
            }
        }
    }
    // What the node does not declare the API server prunes, with or
    // without `properties` (`type: object` alone keeps no member).
    if !preserve && !object.contains_key("additionalProperties") {
        // With `properties` beside it, however empty, the engine names each
        // member it refuses (one finding a field, at its key).
        if !object.contains_key("properties") {
            object.insert("properties".into(), Json::Object(serde_json::Map::new()));
        }
        object.insert("additionalProperties".into(), Json::Bool(false));
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = object.get_mut(key) {
            match child {
                Json::Array(schemas) => schemas.iter_mut().for_each(|s| tighten(s, false, reading)),
                child => tighten(child, false, reading),
            }
        }
    }
    // An array where no `items` says what it holds (beside a format that
    // lets one through, an int-or-string, no type) keeps no member of an
    // object in it: the server prunes them. (Where the type refuses an
    // array, nothing is added.)
    let arrays = match object.get("type") {
        None => true,
        Some(kind) => {
            let numeric = |k: &Json| k == "integer" || k == "number";
            let typed = kind
                .as_array()
                .map_or(vec![kind], |kinds| kinds.iter().collect());
            !typed.iter().any(|k| numeric(k)) && crate::kube::go_formats::kept(object, 35).is_some()
        }
    };
    if arrays && !preserve && !object.contains_key("items") {
        object.insert("items".into(), serde_json::json!({ "$ref": PRUNED_REF }));
    }
    // `allOf`, `anyOf`, `oneOf` and `not` only add value checks to fields the
    // node declares (a structural schema's rule): left as they are, since
    // closing one of them would refuse the node's other fields.
}
