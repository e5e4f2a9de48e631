//! What the API server (and the kubelet) refuse although the OpenAPI schema
//! allows it: the name rule of each kind, namespace names, label and
//! annotation keys and values, container, port and volume names, mounts of
//! volumes that do not exist, and image references. A render that exits 0
//! is accepted; `check` says so of any input.

use serde_json::Value as Json;

use super::{Context, Invariant};
use crate::diagnostic::KeyPath;
use crate::names;

/// Checks every object of `context`.
pub fn check(context: &mut Context<'_>) {
    for index in 0..context.objects.len() {
        for (path, message) in problems(&context.objects[index]) {
            context.report(Invariant::Api, index, &path, message);
        }
    }
}

/// What the API server would refuse in `object`, by path.
fn problems(object: &Json) -> Vec<(KeyPath, String)> {
    let mut found = Vec::new();
    let kind = object["kind"].as_str().unwrap_or_default();
    let metadata = KeyPath::root().key("metadata");
    if let Some(name) = object["metadata"]["name"].as_str() {
        if let Err(why) = names::object_name(kind, name) {
            found.push((
                metadata.clone().key("name"),
                format!("`{name}` is not a valid {kind} name: {why}"),
            ));
        }
        if kind == "CustomResourceDefinition" {
            let plural = object["spec"]["names"]["plural"]
                .as_str()
                .unwrap_or_default();
            let group = object["spec"]["group"].as_str().unwrap_or_default();
            if name != format!("{plural}.{group}") {
                found.push((
                    metadata.clone().key("name"),
                    format!("a CustomResourceDefinition is named `<spec.names.plural>.<spec.group>`, here `{plural}.{group}`, not `{name}`"),
                ));
            }
        }
    }
    if let Some(namespace) = object["metadata"]["namespace"].as_str()
        && let Err(why) = names::dns1123_label(namespace)
    {
        found.push((
            metadata.clone().key("namespace"),
            format!("`{namespace}` is not a valid namespace: {why}"),
        ));
    }
    meta(&object["metadata"], &metadata, &mut found);
    if let Some((template, spec)) = pod_template(kind) {
        let template_path = KeyPath::from_pointer(template);
        if let Some(template) = object.pointer(template) {
            meta(
                &template["metadata"],
                &template_path.clone().key("metadata"),
                &mut found,
            );
        }
        if let Some(pod) = object.pointer(spec) {
            pod_spec(pod, &KeyPath::from_pointer(spec), &mut found);
        }
    }
    if kind == "Service" {
        service(object, &mut found);
    }
    found
}

/// Where the pod template (if any) and the pod spec of a workload are.
fn pod_template(kind: &str) -> Option<(&'static str, &'static str)> {
    match kind {
        "Pod" => Some(("", "/spec")),
        "Deployment" | "DaemonSet" | "StatefulSet" | "ReplicaSet" | "Job" => {
            Some(("/spec/template", "/spec/template/spec"))
        }
        "CronJob" => Some((
            "/spec/jobTemplate/spec/template",
            "/spec/jobTemplate/spec/template/spec",
        )),
        _ => None,
    }
}

/// Label keys and values, annotation keys, and the annotations' total size.
fn meta(metadata: &Json, at: &KeyPath, found: &mut Vec<(KeyPath, String)>) {
    for (field, what) in [("labels", "label"), ("annotations", "annotation")] {
        let Some(map) = metadata[field].as_object() else {
            continue;
        };
        let mut size = 0;
        for (key, value) in map {
            let path = at.clone().key(field).key(key.clone());
            if let Err(why) = names::qualified_name(key) {
                found.push((
                    path.clone(),
                    format!("`{key}` is not a valid {what} key: {why}"),
                ));
            }
            match value.as_str() {
                Some(value) if field == "labels" => {
                    if let Err(why) = names::label_value(value) {
                        found.push((path, format!("label value {value:?} is not valid: {why}")));
                    }
                }
                Some(value) => size += key.len() + value.len(),
                None => {}
            }
        }
        if size > 256 * 1024 {
            found.push((
                at.clone().key(field),
                format!("the annotations hold {size} bytes; the API server takes at most 262144"),
            ));
        }
    }
}

/// Containers (unique DNS-1123 names, pullable images, IANA port names,
/// mounts of declared volumes) and volume names of one pod spec.
fn pod_spec(pod: &Json, at: &KeyPath, found: &mut Vec<(KeyPath, String)>) {
    let mut volumes = std::collections::BTreeSet::new();
    for (i, volume) in pod["volumes"].as_array().into_iter().flatten().enumerate() {
        if let Some(name) = volume["name"].as_str() {
            if let Err(why) = names::dns1123_label(name) {
                let path = at.clone().key("volumes").index(i).key("name");
                found.push((path, format!("`{name}` is not a valid volume name: {why}")));
            }
            volumes.insert(name);
        }
    }
    let mut containers = std::collections::BTreeSet::new();
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for (i, container) in pod[list].as_array().into_iter().flatten().enumerate() {
            let path = at.clone().key(list).index(i);
            if let Some(name) = container["name"].as_str() {
                if let Err(why) = names::dns1123_label(name) {
                    found.push((
                        path.clone().key("name"),
                        format!("`{name}` is not a valid container name: {why}"),
                    ));
                }
                if !containers.insert(name) {
                    found.push((
                        path.clone().key("name"),
                        format!(
                            "a second container named `{name}`; container names are unique in a pod"
                        ),
                    ));
                }
            }
            if let Some(image) = container["image"].as_str()
                && let Err(why) = names::image_reference(image)
            {
                found.push((path.clone().key("image"), format!("`{image}` is {why}")));
            }
            for (p, port) in container["ports"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                if let Some(name) = port["name"].as_str()
                    && let Err(why) = names::iana_service_name(name)
                {
                    found.push((
                        path.clone().key("ports").index(p).key("name"),
                        format!("`{name}` is not a valid port name: {why}"),
                    ));
                }
            }
            for (m, mount) in container["volumeMounts"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                if let Some(name) = mount["name"].as_str()
                    && !volumes.contains(name)
                {
                    found.push((
                        path.clone().key("volumeMounts").index(m).key("name"),
                        format!("mounts volume `{name}`, which the pod does not declare"),
                    ));
                }
            }
        }
    }
}

/// A Service's port names (DNS-1123 labels, required and unique when there
/// is more than one port) and named target ports (IANA service names).
fn service(object: &Json, found: &mut Vec<(KeyPath, String)>) {
    let ports = object["spec"]["ports"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let mut seen = std::collections::BTreeSet::new();
    for (i, port) in ports.iter().enumerate() {
        let path = KeyPath::dotted("spec.ports").index(i);
        match port["name"].as_str() {
            Some(name) => {
                if let Err(why) = names::dns1123_label(name) {
                    found.push((
                        path.clone().key("name"),
                        format!("`{name}` is not a valid Service port name: {why}"),
                    ));
                } else if !seen.insert(name) {
                    found.push((
                        path.clone().key("name"),
                        format!("a second port named `{name}`; Service port names are unique"),
                    ));
                }
            }
            None if ports.len() > 1 => found.push((
                path.clone(),
                "a Service with more than one port names each of them".to_owned(),
            )),
            None => {}
        }
        if let Some(target) = port["targetPort"].as_str()
            && let Err(why) = names::iana_service_name(target)
        {
            found.push((
                path.key("targetPort"),
                format!("`{target}` is not a valid target port name: {why}"),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(object: Json) -> Vec<String> {
        problems(&object)
            .into_iter()
            .map(|(path, message)| format!("{path}: {message}"))
            .collect()
    }

    #[test]
    fn a_service_name_must_start_with_a_letter() {
        let found = paths(serde_json::json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "1-gateway", "namespace": "ops"},
            "spec": {"ports": [{"port": 1, "targetPort": "Grpc"}, {"name": "b", "port": 2}]},
        }));
        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(found[0].starts_with("metadata.name: `1-gateway` is not a valid Service name"));
        assert!(found[1].starts_with("spec.ports[0]: a Service with more than one port"));
        assert!(found[2].starts_with("spec.ports[0].targetPort:"));
    }

    #[test]
    fn workloads_name_their_parts_as_the_api_server_requires() {
        let found = paths(serde_json::json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "namespace": "Ops", "labels": {"a/b/c": "x", "ok": "-bad"}},
            "spec": {"template": {
                "metadata": {"annotations": {"example.com/x": "y"}},
                "spec": {
                    "volumes": [{"name": "Data"}],
                    "containers": [
                        {"name": "app", "image": "ghcr.io/Acme/app:1",
                         "ports": [{"name": "metrics-endpoint", "containerPort": 1}],
                         "volumeMounts": [{"name": "cache", "mountPath": "/c"}]},
                        {"name": "app", "image": "ghcr.io/acme/app:1"},
                    ],
                },
            }},
        }));
        let paths: Vec<&str> = found.iter().map(|f| f.split(':').next().unwrap()).collect();
        assert_eq!(
            paths,
            [
                "metadata.namespace",
                "metadata.labels.\"a/b/c\"",
                "metadata.labels.ok",
                "spec.template.spec.volumes[0].name",
                "spec.template.spec.containers[0].image",
                "spec.template.spec.containers[0].ports[0].name",
                "spec.template.spec.containers[0].volumeMounts[0].name",
                "spec.template.spec.containers[1].name",
            ],
            "{found:#?}"
        );
    }

    #[test]
    fn a_crd_is_named_after_its_plural_and_group() {
        let found = paths(serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.org", "names": {"plural": "widgets", "kind": "Widget"}},
        }));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(
            found[0].contains("here `widgets.example.org`"),
            "{found:#?}"
        );
    }
}
