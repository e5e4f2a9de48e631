//! The fields the API server writes on its own, left out of a live
//! comparison as `kubectl diff` leaves them out: what remains is what a
//! user changes.

use serde_json::Value as Json;

/// The fields of `metadata` the server keeps for itself.
const SERVER_METADATA: [&str; 6] = [
    "managedFields",
    "resourceVersion",
    "uid",
    "creationTimestamp",
    "generation",
    "selfLink",
];

/// The annotation `kubectl apply` (client-side) stores its last input in.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Removes from one object what the server manages: `status`, the
/// server's fields of `metadata` (`SERVER_METADATA`), `kubectl`'s
/// last-applied annotation, and an `annotations` or `labels` map that
/// this leaves empty (an empty map and none are the same object).
pub fn server_fields(object: &mut Json) {
    let Some(fields) = object.as_object_mut() else {
        return;
    };
    fields.remove("status");
    let Some(metadata) = fields.get_mut("metadata").and_then(Json::as_object_mut) else {
        return;
    };
    for field in SERVER_METADATA {
        metadata.remove(field);
    }
    if let Some(annotations) = metadata
        .get_mut("annotations")
        .and_then(Json::as_object_mut)
    {
        annotations.remove(LAST_APPLIED);
    }
    for map in ["annotations", "labels"] {
        if metadata
            .get(map)
            .is_some_and(|m| m.as_object().is_some_and(serde_json::Map::is_empty) || m.is_null())
        {
            metadata.remove(map);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn server_fields_go_and_user_fields_stay() {
        let mut object = json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": "web",
                "namespace": "shop",
                "uid": "0b5c",
                "resourceVersion": "42",
                "generation": 3,
                "creationTimestamp": "2026-01-01T00:00:00Z",
                "selfLink": "/apis/apps/v1/namespaces/shop/deployments/web",
                "managedFields": [{"manager": "kubectl"}],
                "labels": {"app": "web"},
                "annotations": {
                    "kubectl.kubernetes.io/last-applied-configuration": "{}",
                    "deployment.kubernetes.io/revision": "2"
                },
                "finalizers": ["example.com/keep"]
            },
            "spec": {"replicas": 2, "status": "a field named status inside spec"},
            "status": {"replicas": 2}
        });
        server_fields(&mut object);
        assert_eq!(
            object,
            json!({
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {
                    "name": "web",
                    "namespace": "shop",
                    "labels": {"app": "web"},
                    "annotations": {"deployment.kubernetes.io/revision": "2"},
                    "finalizers": ["example.com/keep"]
                },
                "spec": {"replicas": 2, "status": "a field named status inside spec"}
            })
        );
    }

    #[test]
    fn maps_left_empty_go() {
        let mut object = json!({
            "kind": "ConfigMap",
            "metadata": {
                "name": "c",
                "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"},
                "labels": {}
            }
        });
        server_fields(&mut object);
        assert_eq!(
            object,
            json!({"kind": "ConfigMap", "metadata": {"name": "c"}})
        );
    }

    #[test]
    fn anything_but_an_object_is_left_alone() {
        for mut value in [
            json!(null),
            json!([1]),
            json!({"metadata": "x", "status": 1}),
        ] {
            let before = value.clone();
            server_fields(&mut value);
            if before.get("status").is_some() {
                assert_eq!(value, json!({"metadata": "x"}));
            } else {
                assert_eq!(value, before);
            }
        }
    }
}
