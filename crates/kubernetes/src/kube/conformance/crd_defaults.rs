//! A CRD's defaults: those the API server refuses of a structural schema
//! ([`refused_defaults`]), and those it fills into a custom resource before
//! it validates (`as_the_server_reads`, within a budget of values).

use serde_json::Value as Json;

use super::beside::{beside_the_schema, embedded_metadata};
use super::keywords::crd_schema_options;
use super::strict::{Reading, strict};
use crate::json::whole_number;
use crate::kube::KubeSchemas;
use crate::location::KeyPath;

/// The Kubernetes minor version defaults are judged at: the newest
/// this crate targets (where they are judged, the server's version is not
/// known; only the formats it keeps depend on it).
pub(super) const DEFAULTS_MINOR: u32 = 35;

/// The most findings reported for one default: the first of its
/// problems say it is refused.
pub(super) const DEFAULT_FINDINGS: usize = 3;

/// The defaults of a CRD version's schema (`openAPIV3Schema`) the API
/// server refuses the CRD for (`ValidateDefaults`), each with the steps
/// of its path from the schema (`properties`, a name, `items`, …,
/// `default`) and why: a default is held to the schema of the node it
/// stands on, as written (nothing defaulted inside it, a null member
/// kept), and keeps no member the server would prune; the root's is a
/// whole resource's (its `apiVersion` and `kind` required). Walked as
/// the server walks them: down `properties` and `items` alone (a default
/// below `additionalProperties` is not read); into an embedded
/// resource's `metadata` (its default held to the declared schema and
/// read as ObjectMeta), its `apiVersion` and `kind` defaults a group
/// version and a kind; not into the root's `metadata`, `apiVersion` and
/// `kind` (a default there is the CRD rules' own finding). A null default
/// is none; a node whose schema does not compile is the CRD rules'
/// finding, not this one's.
pub fn refused_defaults(schema: &Json) -> Vec<(Vec<String>, String)> {
    let mut found = Vec::new();
    // Each node with its path, whether it is a resource (the root), and
    // whether it is an embedded resource's `metadata`.
    let mut stack = vec![(schema, Vec::new(), true, false)];
    while let Some((node, steps, resource, metadata)) = stack.pop() {
        if let Some(default) = node.get("default").filter(|d| !d.is_null()) {
            // The root's is a whole resource's, as an embedded one's; an
            // embedded resource's metadata is open, and read as ObjectMeta.
            let marked;
            let node = match (steps.is_empty(), metadata) {
                (true, _) => {
                    marked = with_flag(node, "x-kubernetes-embedded-resource");
                    &marked
                }
                (_, true) => {
                    marked = with_flag(node, "x-kubernetes-preserve-unknown-fields");
                    &marked
                }
                _ => node,
            };
            let mut why = default_refusals(node, default);
            if metadata && why.is_empty() {
                why.extend(object_meta_refusal(default));
            }
            if !why.is_empty() {
                let mut path = steps.clone();
                path.push("default".to_owned());
                found.push((path, why.join("; ")));
            }
        }
        let embedded = node.get("x-kubernetes-embedded-resource") == Some(&true.into());
        let resource = resource || embedded;
        let properties = node.get("properties").and_then(Json::as_object);
        for (name, child) in properties.into_iter().flatten() {
            let mut path = steps.clone();
            path.extend(["properties".to_owned(), name.clone()]);
            match (resource, name.as_str()) {
                // The root's: a default there is the CRD rules' finding.
                (true, "metadata" | "apiVersion" | "kind") if !embedded => {}
                (true, "metadata") => stack.push((child, path, false, true)),
                (true, "apiVersion" | "kind") => {
                    let default = child.get("default").filter(|d| !d.is_null());
                    if let Some(why) = default.and_then(|d| type_meta_refusal(name, d)) {
                        path.push("default".to_owned());
                        found.push((
                            path,
                            format!("must result in valid metadata: {name}: {why}"),
                        ));
                    }
                }
                _ => stack.push((child, path, false, false)),
            }
        }
        if let Some(items) = node.get("items").filter(|items| items.is_object()) {
            let mut path = steps.clone();
            path.push("items".to_owned());
            stack.push((items, path, false, false));
        }
    }
    found.sort();
    found
}

/// Why an embedded resource's `metadata` default makes no valid
/// ObjectMeta, if it does: its first problem.
pub(super) fn object_meta_refusal(default: &Json) -> Option<String> {
    let schemas = KubeSchemas::load(crate::kube::DEFAULT_VERSION).ok()?;
    let problems = embedded_metadata(default, &KeyPath::root(), (Reading::Default, &schemas));
    let (at, why, _) = problems.into_iter().next()?;
    Some(format!("must result in valid metadata: {at}: {why}"))
}

/// `node` with the extension `flag` set.
pub(super) fn with_flag(node: &Json, flag: &str) -> Json {
    let mut marked = node.clone();
    if let Some(object) = marked.as_object_mut() {
        object.insert(flag.into(), true.into());
    }
    marked
}

/// Why an embedded resource's `apiVersion` or `kind` default (`name`)
/// would make no valid resource (`validateEmbeddedResource`): not a
/// string, empty, no group version, or a kind that is no DNS-1035 label
/// in lowercase.
pub(super) fn type_meta_refusal(name: &str, default: &Json) -> Option<String> {
    let Some(text) = default.as_str() else {
        return Some(format!("{default} must be a string"));
    };
    if text.is_empty() {
        return Some("must not be empty".to_owned());
    }
    match name {
        "apiVersion" if text.matches('/').count() > 1 => Some(format!(
            "`{text}` is no group version (unexpected GroupVersion string)"
        )),
        "kind" => crate::names::kind(text)
            .err()
            .map(|why| format!("`{text}` {why}")),
        _ => None,
    }
}

/// Why the API server refuses `default` against `node`, its schema: the
/// first [`DEFAULT_FINDINGS`] problems, each at its place in the default.
pub(super) fn default_refusals(node: &Json, default: &Json) -> Vec<String> {
    // Only what the default reaches is compiled: a default in each of a
    // deep schema's levels costs its own size, not its subtree's.
    let schema = strict(&reached(node, &[default]), Reading::Default, DEFAULTS_MINOR);
    let Ok(validator) = crd_schema_options().build(&schema) else {
        return Vec::new();
    };
    let written = default.to_string();
    let shown = crate::text::clip(&written, 80);
    let Ok(schemas) = KubeSchemas::load(crate::kube::DEFAULT_VERSION) else {
        return Vec::new();
    };
    let besides = beside_the_schema(node, default, Reading::Default, &schemas).into_iter();
    let errors = (validator.iter_errors(default)).map(|e| {
        (
            KeyPath::from_pointer(e.instance_path().as_str()),
            e.to_string(),
        )
    });
    (errors.chain(besides.map(|(at, why, _)| (at, why))))
        .take(DEFAULT_FINDINGS)
        .map(|(at, why)| {
            let why = crate::text::clip(&why, 200);
            match at.is_root() {
                true => format!("the default {shown} is refused by its own schema: {why}"),
                false => {
                    format!("the default {shown} is refused by its own schema at {at}: {why}")
                }
            }
        })
        .collect()
}

/// `schema` with only the parts `values` (its instances) reach: of its
/// `properties`, those some value has, each shaped to their values; its
/// `items` to the values' items, its `additionalProperties` to their
/// other members; the value validations (`allOf`, `anyOf`, `oneOf`,
/// `not`) to the values themselves. What no value reaches cannot refuse
/// one, so the shape judges them as the whole schema would.
pub(super) fn reached(schema: &Json, values: &[&Json]) -> Json {
    let Some(object) = schema.as_object() else {
        return schema.clone();
    };
    let properties = object.get("properties").and_then(Json::as_object);
    // Each member's values, by the property that declares it, or else the
    // map's values (`additionalProperties`): one pass over the members.
    let mut by_property: std::collections::HashMap<&str, Vec<&Json>> = Default::default();
    let mut others: Vec<&Json> = Vec::new();
    for (name, value) in values.iter().filter_map(|v| v.as_object()).flatten() {
        match properties.is_some_and(|p| p.contains_key(name)) {
            true => by_property.entry(name.as_str()).or_default().push(value),
            false => others.push(value),
        }
    }
    let shaped = object.iter().map(|(key, below)| {
        let below = match (key.as_str(), below) {
            ("properties", Json::Object(declared)) => Json::Object(
                (declared.iter())
                    .filter_map(|(name, property)| {
                        let reaching = by_property.get(name.as_str())?;
                        Some((name.clone(), reached(property, reaching)))
                    })
                    .collect(),
            ),
            ("items", Json::Object(_)) => {
                let items: Vec<&Json> = values
                    .iter()
                    .filter_map(|v| v.as_array())
                    .flatten()
                    .collect();
                reached(below, &items)
            }
            ("additionalProperties", Json::Object(_)) => reached(below, &others),
            ("allOf" | "anyOf" | "oneOf", Json::Array(schemas)) => {
                Json::Array(schemas.iter().map(|s| reached(s, values)).collect())
            }
            ("not", Json::Object(_)) => reached(below, values),
            _ => below.clone(),
        };
        (key.clone(), below)
    });
    Json::Object(shaped.collect())
}

/// Whether [`as_the_server_reads`] may change `value`: it holds a null
/// member or item, or a whole number written with a fraction or an
/// exponent.
pub(super) fn to_read(value: &Json) -> bool {
    match value {
        Json::Object(map) => map.values().any(to_read),
        Json::Array(items) => items.iter().any(to_read),
        Json::Null => true,
        Json::Number(n) => whole_number(n).is_some(),
        Json::Bool(_) | Json::String(_) => false,
    }
}

/// The most JSON values the defaults of one custom resource put in
/// ([`as_the_server_reads`]): past it, no more are (a small default under
/// a long list of objects would otherwise multiply the input).
pub(super) const DEFAULTED_BUDGET: usize = 1 << 20;

/// Whether a default the API server fills in can change what `schema` (a
/// strict schema) says of a custom resource: the default is valid against
/// its own field (the server held it to it), and a required field with
/// one is not required here, so it matters only where a node counts or
/// matches its members whole (`minProperties`, `maxProperties`, `enum`,
/// the value validations `allOf`, `anyOf`, `oneOf`, `not`), on the field's
/// object or any object above it (`guarded`), or where it fills in an
/// embedded resource's `apiVersion` or `kind`.
pub(super) fn defaults_matter(schema: &Json, guarded: bool) -> bool {
    let Some(object) = schema.as_object() else {
        return false;
    };
    let guards = [
        "minProperties",
        "maxProperties",
        "enum",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
    ];
    let guarded = guarded
        || guards.iter().any(|k| object.contains_key(*k))
        || object.get("x-kubernetes-embedded-resource") == Some(&Json::Bool(true));
    let properties = object.get("properties").and_then(Json::as_object);
    let defaulted = properties
        .into_iter()
        .flatten()
        .any(|(_, p)| p.get("default").is_some_and(|d| !d.is_null()));
    (guarded && defaulted)
        || properties
            .into_iter()
            .flatten()
            .any(|(_, p)| defaults_matter(p, guarded))
        || ["items", "additionalProperties"].iter().any(|k| {
            object
                .get(*k)
                .is_some_and(|child| defaults_matter(child, guarded))
        })
}

/// Whether `value` fits in what is left of `budget` (values), taking
/// them from it if so. The first default that does not fit spends the
/// budget whole, so nothing is counted again: each count stops at what
/// the budget holds, and together they cost no more than it.
pub(super) fn fits(value: &Json, budget: &mut usize) -> bool {
    /// Counts `value`'s values off `left`; `false` once they run out.
    fn take(value: &Json, left: &mut usize) -> bool {
        let Some(rest) = left.checked_sub(1) else {
            return false;
        };
        *left = rest;
        match value {
            Json::Object(map) => map.values().all(|v| take(v, left)),
            Json::Array(items) => items.iter().all(|v| take(v, left)),
            _ => true,
        }
    }
    let mut left = *budget;
    let fitted = take(value, &mut left);
    *budget = if fitted { left } else { 0 };
    fitted
}

/// A custom resource as the API server validates it. A field left out,
/// or null where it is not `nullable`, that has a `default` gets it
/// (apiextensions' structural defaulting, into what it put in too), while
/// `budget` (values) lasts. A member that is null where `schema` (the
/// schema of `value`) declares the field and does not make it `nullable`
/// and has no default is dropped (Kubernetes'
/// `PruneNonNullableNullsWithoutDefaults`). A null the schema keeps
/// (`nullable: true`) or does not know (an unknown field, an error of its
/// own) stays. A null array item becomes the items' default where they
/// are not `nullable` (each its own copy, counted against `budget`). A
/// whole number written as a float is an integer ([`whole_number`](crate::json::whole_number)).
pub(super) fn as_the_server_reads(value: &Json, schema: Option<&Json>, budget: &mut usize) -> Json {
    let nullable = |s: &Json| s.get("nullable") == Some(&Json::Bool(true));
    let field = |name: &str| {
        let schema = schema?;
        (schema.get("properties").and_then(|p| p.get(name)))
            .or_else(|| schema.get("additionalProperties").filter(|s| s.is_object()))
    };
    fn default_of(schema: &Json) -> Option<&Json> {
        schema.get("default").filter(|d| !d.is_null())
    }
    match value {
        Json::Object(map) => {
            let mut read = serde_json::Map::new();
            for (name, member) in map {
                let schema = field(name);
                let unset = member.is_null() && schema.is_some_and(|s| !nullable(s));
                match (unset, schema.and_then(default_of)) {
                    (true, Some(default)) if fits(default, budget) => {
                        read.insert(name.clone(), as_the_server_reads(default, schema, budget));
                    }
                    (true, _) => {}
                    (false, _) => {
                        read.insert(name.clone(), as_the_server_reads(member, schema, budget));
                    }
                }
            }
            let properties = schema
                .and_then(|s| s.get("properties"))
                .and_then(Json::as_object);
            for (name, property) in properties.into_iter().flatten() {
                if let Some(default) = default_of(property)
                    && !map.contains_key(name)
                    && fits(default, budget)
                {
                    let filled = as_the_server_reads(default, Some(property), budget);
                    read.insert(name.clone(), filled);
                }
            }
            Json::Object(read)
        }
        Json::Array(items) => {
            let schema = (schema.and_then(|s| s.get("items"))).filter(|s| s.is_object());
            let default = (schema.filter(|s| !nullable(s))).and_then(default_of);
            let mut read = Vec::with_capacity(items.len());
            for item in items {
                read.push(match (item, default) {
                    // Each null item its own copy, defaulted within, as
                    // the server copies it (`runtime.DeepCopyJSONValue`).
                    (Json::Null, Some(default)) if fits(default, budget) => {
                        as_the_server_reads(default, schema, budget)
                    }
                    (item, _) => as_the_server_reads(item, schema, budget),
                });
            }
            Json::Array(read)
        }
        Json::Number(n) => whole_number(n).map_or_else(|| value.clone(), Json::Number),
        other => other.clone(),
    }
}
