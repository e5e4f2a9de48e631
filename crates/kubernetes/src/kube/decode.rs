//! An object as the API server's decoder leaves it for validation: Go's
//! JSON decoder reads into typed structs, so what validation sees is not
//! always what was written.
//!
//! - A whole number written as a float (`1.0`, `1e3`) is the integer
//!   kubectl sends (it re-encodes every number), where a schema reads it.
//! - A null member is the field unset (its zero value, or a nil pointer);
//!   an unknown one stays, as the strict decoder refuses it, and so does
//!   one in a free-form value (raw JSON such as a CRD schema's `default`,
//!   which Go keeps as written).
//! - A null array item or map value is the zero value of the item's type:
//!   `""`, `0`, `false`, or an empty object (`ports: [null]` is a port
//!   without `containerPort`, which validation refuses).
//! - A field whose Go type is a struct, not a pointer to one, is that
//!   struct even when absent or null: a Deployment without `spec` is
//!   validated as `spec: {}`, and refused for the `selector` and
//!   `template.spec.containers` it lacks. The schemas mark such a field
//!   ([`Node::filled`]) where its `{}` breaks a `required`, so that a
//!   valid object is never copied.

use serde_json::{Map, Value as Json};

use super::validator::{Additional, Node, Table, Types};

/// `value`, an instance of node `index` of `table`, as the decoder leaves
/// it; `None` when that is `value` unchanged (most objects).
pub(super) fn decoded(table: &Table, index: u32, value: &Json) -> Option<Json> {
    let node = table.node(index);
    match value {
        Json::Object(map) => object(table, node, map).map(Json::Object),
        Json::Array(items) => {
            let item = node.items?;
            let mut copy: Option<Vec<Json>> = None;
            for (at, value) in items.iter().enumerate() {
                let read = match value {
                    Json::Null => Some(zero(table, item)),
                    _ => decoded(table, item, value),
                };
                if let Some(read) = read {
                    copy.get_or_insert_with(|| items.clone())[at] = read;
                }
            }
            copy.map(Json::Array)
        }
        Json::Number(n) => crate::json::whole_number(n).map(Json::Number),
        _ => None,
    }
}

/// The members of `map` (an instance of `node`) as read: see the module.
fn object(table: &Table, node: &Node, map: &Map<String, Json>) -> Option<Map<String, Json>> {
    let mut copy: Option<Map<String, Json>> = None;
    let filled = || table.strs(node.filled);
    for (key, value) in map {
        let declared = table.property(node, key);
        let read = match (value, declared, node.additional) {
            (Json::Null, Some(field), _) if filled().any(|name| name == key) => {
                Some(Some(zero(table, field)))
            }
            (Json::Null, None, Additional::Node(values)) => Some(Some(zero(table, values))),
            // An unknown field, null or not, the strict decoder refuses:
            // it stays, for the schema to name. A null in a free-form
            // value (raw JSON: a CRD schema's `default`) stays as Go keeps
            // it.
            (Json::Null, None, Additional::Forbid | Additional::Any) => None,
            (Json::Null, _, _) => Some(None),
            (_, Some(field), _) | (_, None, Additional::Node(field)) => {
                decoded(table, field, value).map(Some)
            }
            (_, None, _) => None,
        };
        if let Some(read) = read {
            let copy = copy.get_or_insert_with(|| map.clone());
            match read {
                Some(read) => copy.insert(key.clone(), read),
                None => copy.remove(key),
            };
        }
    }
    for name in filled().filter(|name| !map.contains_key(*name)) {
        if let Some(field) = table.property(node, name) {
            let empty = zero(table, field);
            copy.get_or_insert_with(|| map.clone())
                .insert(name.to_owned(), empty);
        }
    }
    copy
}

/// The zero value of node `index`'s type, as it reads back: an object
/// (with its struct fields filled), a number, a string or `false`; null
/// for an array (a nil slice) or a node of no type.
fn zero(table: &Table, index: u32) -> Json {
    let node = table.node(index);
    let branches = table
        .branches(node.one_of)
        .iter()
        .chain(table.branches(node.any_of));
    let types = branches.fold(node.types, |types, &branch| {
        types | table.node(branch).types
    });
    let has = |json: Json| Types(types).accept(&json);
    if has(Json::Object(Map::new())) {
        Json::Object(object(table, node, &Map::new()).unwrap_or_default())
    } else if has(Json::from(0)) {
        Json::from(0)
    } else if has(Json::from("")) {
        Json::from("")
    } else if has(Json::Bool(false)) {
        Json::Bool(false)
    } else {
        Json::Null
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::kube::{DEFAULT_VERSION, KubeSchemas};

    fn decoded(object: &serde_json::Value) -> Option<serde_json::Value> {
        KubeSchemas::load(DEFAULT_VERSION).unwrap().decoded(object)
    }

    /// A valid object is not copied: nothing of it changes.
    #[test]
    fn a_valid_object_reads_as_written() {
        let deployment = json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "labels": {"a": "b"}},
            "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
                "metadata": {"labels": {"a": "b"}},
                "spec": {"containers": [{"name": "c", "image": "i", "args": ["x"]}]}}},
            "status": {"replicas": 1},
        });
        assert_eq!(decoded(&deployment), None);
    }

    /// Null items and map values become their type's zero value; a null
    /// member is unset; Go structs left out are filled where `{}` breaks a
    /// `required`, and only there (a Deployment's `strategy` is not).
    #[test]
    fn nulls_and_missing_structs_read_as_go_decodes_them() {
        let job = json!({
            "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "labels": {"a": null}},
            "spec": {"template": {"spec": {"containers": [{"name": "c", "image": null,
                "args": [null], "ports": [null], "resources": {"limits": {"cpu": null}}}], "restartPolicy": "Never"}}},
        });
        let read = decoded(&job).unwrap();
        assert_eq!(read["metadata"]["labels"], json!({"a": ""}));
        let container = &read["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container.get("image"), None);
        assert_eq!(container["args"], json!([""]));
        assert_eq!(container["ports"], json!([{}]));
        assert_eq!(container["resources"]["limits"]["cpu"], json!(0));
        let budget = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"},
            "spec": {"minAvailable": 1.0, "maxUnavailable": 1.5}});
        let read = decoded(&budget).unwrap();
        assert!(read["spec"]["minAvailable"].is_i64(), "{read}");
        assert_eq!(read["spec"]["maxUnavailable"], json!(1.5));
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": null});
        assert_eq!(
            decoded(&deployment).unwrap()["spec"],
            json!({"template": {"spec": {}}})
        );
        let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "b"}});
        assert_eq!(decoded(&binding).unwrap()["roleRef"], json!({}));
        // Raw JSON (a CRD schema's `default`) keeps its nulls, as Go does;
        // the struct fields around it drop theirs.
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "ws.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "ws", "kind": "W"},
                "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                    "type": "object", "description": null,
                    "properties": {"x": {"type": "object", "default": {"a": null}}}}}}]}});
        let read = decoded(&crd).unwrap();
        let schema = &read["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
        assert_eq!(schema["properties"]["x"]["default"], json!({"a": null}));
        assert_eq!(schema.get("description"), None);
    }

    /// `status` is never filled (the server resets it on create), and a
    /// kind without a schema is not read at all.
    #[test]
    fn status_and_unknown_kinds_are_left_alone() {
        let budget = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"}, "spec": {}});
        assert_eq!(decoded(&budget), None);
        let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": null});
        assert_eq!(decoded(&widget), None);
    }
}
