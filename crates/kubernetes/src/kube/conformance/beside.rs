//! What the API server holds a custom resource, or a CRD schema's default,
//! to beside its schema: the metadata of each embedded resource, read as
//! ObjectMeta, and the items a keyed list holds twice.

use std::collections::HashSet;

use serde_json::Value as Json;

use super::strict::Reading;
use crate::json::Field;
use crate::kube::{KubeSchemas, Violation};
use crate::location::KeyPath;

/// `metadata` (an object) read into ObjectMeta as the built-in kinds'
/// schemas read it, paths from the object (`metadata.…`). Judged through
/// a ConfigMap of that metadata alone, whose other fields are all
/// optional.
pub(super) fn read_as_object_meta(metadata: &Json, schemas: &KubeSchemas) -> Vec<Violation> {
    let alone = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata});
    let read = crate::kube::as_validated(&alone, schemas);
    (schemas
        .validate(read.as_ref().unwrap_or(&alone))
        .unwrap_or_default())
    .into_iter()
    .filter(|(path, ..)| path.to_string().starts_with("metadata"))
    .collect()
}

/// An embedded resource's `metadata`, at `at`, as the API server reads
/// it (`validateEmbeddedResource`): into ObjectMeta (a member of the
/// wrong type or a time it cannot read refuses the object; one it does
/// not know is refused in an object `reading`, by the strict decoding
/// of a create, and ignored in a default; a managed fields entry's
/// `fieldsV1` is any JSON), then held to ObjectMeta's rules
/// ([`crate::metadata::embedded_metadata`]).
pub(super) fn embedded_metadata(
    metadata: &Json,
    at: &KeyPath,
    (reading, schemas): (Reading, &KubeSchemas),
) -> Vec<Violation> {
    if metadata.is_null() {
        return Vec::new();
    }
    if !metadata.is_object() {
        let why = format!("{metadata} cannot be read as ObjectMeta: it is no object");
        return vec![(at.clone(), why, None)];
    }
    let raw = |path: &KeyPath| {
        (path.0.iter()).any(|step| *step == crate::location::Segment::Key("fieldsV1".into()))
    };
    let undecodable: Vec<Violation> = (read_as_object_meta(metadata, schemas).into_iter())
        .filter(|(path, _, unknown)| {
            (reading == Reading::Object || unknown.is_none()) && !raw(path)
        })
        .map(|(path, why, _)| {
            let mut rebased = at.clone();
            rebased.0.extend(path.0.into_iter().skip(1));
            (rebased, why, None)
        })
        .collect();
    if !undecodable.is_empty() {
        return undecodable;
    }
    (crate::metadata::embedded_metadata(metadata, at).into_iter())
        .map(|(path, why)| (path, why, None))
        .collect()
}

/// What the API server's structural validation holds a custom resource
/// (`reading` an object) or a schema's default to beside the schema:
/// the `metadata` of each embedded resource in it (not the object's own,
/// which is read as ObjectMeta), as [`crate::metadata::embedded_metadata`]
/// says; and, in an object, the items its lists hold twice where its
/// schema keys them: of a list of type `set`, an item equal to an earlier
/// one (numbers by value: `1` and `1.0` are one); of type `map`, an item
/// whose keys (a key left out is its default) are an earlier one's (a
/// default's lists are not read so). Walked along the schema's
/// `properties`, `items` and `additionalProperties`.
pub(super) fn beside_the_schema(
    schema: &Json,
    object: &Json,
    reading: Reading,
    schemas: &KubeSchemas,
) -> Vec<Violation> {
    let mut found = Vec::new();
    let mut stack = vec![(schema, object, KeyPath::root())];
    while let Some((schema, value, path)) = stack.pop() {
        match value {
            Json::Array(items) if reading == Reading::Default => {
                let item_schema = schema.field("items");
                for (i, item) in items.iter().enumerate() {
                    stack.push((item_schema, item, path.index(i)));
                }
            }
            Json::Array(items) => {
                let item_schema = schema.field("items");
                let list = schema.field("x-kubernetes-list-type").as_str();
                let keys: Vec<&str> = (schema.field("x-kubernetes-list-map-keys").as_array())
                    .into_iter()
                    .flatten()
                    .filter_map(Json::as_str)
                    .collect();
                let mut seen = HashSet::new();
                for (i, item) in items.iter().enumerate() {
                    let key = match list {
                        Some("set") => Some(canonical(item)),
                        Some("map") if !keys.is_empty() => Some(
                            (keys.iter())
                                .map(|key| {
                                    let written = item.get(*key).filter(|v| !v.is_null());
                                    let default =
                                        item_schema.field("properties").field(key).get("default");
                                    canonical(written.or(default).unwrap_or(&Json::Null))
                                })
                                .collect::<Vec<_>>()
                                .join(","),
                        ),
                        _ => None,
                    };
                    if let Some(key) = key
                        && !seen.insert(key)
                    {
                        let shown = match list {
                            Some("map") => {
                                let pairs: serde_json::Map<String, Json> = (keys.iter())
                                    .filter_map(|key| {
                                        Some(((*key).to_owned(), item.get(*key)?.clone()))
                                    })
                                    .collect();
                                Json::Object(pairs).to_string()
                            }
                            _ => item.to_string(),
                        };
                        found.push((path.index(i), format!("Duplicate value: {shown}"), None));
                    }
                    stack.push((item_schema, item, path.index(i)));
                }
            }
            Json::Object(members) => {
                let embedded = schema.field("x-kubernetes-embedded-resource") == &Json::Bool(true);
                if embedded && (reading == Reading::Default || !path.is_root()) {
                    let metadata = value.field("metadata");
                    let at = path.key("metadata");
                    found.extend(embedded_metadata(metadata, &at, (reading, schemas)));
                }
                let properties = schema.field("properties");
                let additional = schema.field("additionalProperties");
                for (name, member) in members {
                    let below = match properties.get(name.as_str()) {
                        Some(below) => below,
                        None if additional.is_object() => additional,
                        None => continue,
                    };
                    stack.push((below, member, path.key(name.as_str())));
                }
            }
            _ => {}
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// A JSON value as one text for equal values: members sorted, numbers by
/// value.
fn canonical(value: &Json) -> String {
    match value {
        Json::Number(n) => n
            .as_f64()
            .map_or_else(|| n.to_string(), |f| format!("{f:?}")),
        Json::Array(items) => format!(
            "[{}]",
            items.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        Json::Object(members) => {
            let mut pairs: Vec<String> = (members.iter())
                .map(|(k, v)| format!("{k:?}:{}", canonical(v)))
                .collect();
            pairs.sort();
            format!("{{{}}}", pairs.join(","))
        }
        other => other.to_string(),
    }
}
