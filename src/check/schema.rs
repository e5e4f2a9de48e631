//! Every object against its schema, strictly: built-in kinds and
//! cert-manager against the vendored schemas, custom resources against the
//! `openAPIV3Schema` of a CRD in the input (or given with `--crd`). An
//! object of a kind with no schema is a finding, never a silent pass.

use std::collections::BTreeMap;

use jsonschema::Validator;
use serde_json::Value as Json;

use super::{Context, Invariant, Options};
use crate::diagnostic::KeyPath;

/// Checks every object of `context`.
pub fn check(context: &mut Context<'_>, options: &Options<'_>) {
    let mut custom: BTreeMap<(String, String), Result<Validator, String>> = BTreeMap::new();
    let crds = context
        .objects
        .iter()
        .chain(
            options
                .extra_crds
                .iter()
                .map(|m| m.node.to_json())
                .collect::<Vec<_>>()
                .iter(),
        )
        .filter(|o| o["kind"] == "CustomResourceDefinition")
        .cloned()
        .collect::<Vec<_>>();
    for crd in &crds {
        let group = crd["spec"]["group"].as_str().unwrap_or_default();
        let kind = crd["spec"]["names"]["kind"].as_str().unwrap_or_default();
        for version in crd["spec"]["versions"].as_array().into_iter().flatten() {
            let name = version["name"].as_str().unwrap_or_default();
            let validator = jsonschema::validator_for(&strict(
                &version["schema"]["openAPIV3Schema"],
            ))
            .map_err(|e| {
                format!(
                    "the schema of CRD {} does not compile: {e}",
                    crd["metadata"]["name"]
                )
            });
            custom.insert((format!("{group}/{name}"), kind.to_owned()), validator);
        }
    }
    for index in 0..context.objects.len() {
        let object = context.objects[index].clone();
        let errors: Vec<(KeyPath, String)> = match options.schemas.validate(&object) {
            Some(errors) => errors,
            None => {
                let key = (
                    object["apiVersion"].as_str().unwrap_or_default().to_owned(),
                    object["kind"].as_str().unwrap_or_default().to_owned(),
                );
                match custom.get(&key) {
                    Some(Ok(validator)) => validator
                        .iter_errors(&object)
                        .map(|e| {
                            (
                                KeyPath::from_pointer(e.instance_path().as_str()),
                                e.to_string(),
                            )
                        })
                        .collect(),
                    Some(Err(why)) => {
                        context.report(
                            Invariant::UnknownKind,
                            index,
                            &KeyPath::root(),
                            why.clone(),
                        );
                        continue;
                    }
                    None => {
                        // Built-in groups have no dot (core, apps) or end in k8s.io.
                        let group = key.0.rsplit_once('/').map_or("", |(g, _)| g);
                        let builtin = !group.contains('.') || group.ends_with(".k8s.io");
                        let hint = if builtin {
                            "only the kinds the chart emits are vendored (schema/kubernetes/)"
                        } else {
                            "give its CRD with --crd"
                        };
                        context.report(
                            Invariant::UnknownKind,
                            index,
                            &KeyPath::root(),
                            format!("no schema for {} {}; {hint}", key.0, key.1),
                        );
                        continue;
                    }
                }
            }
        };
        for (path, message) in errors {
            context.report(Invariant::Schema, index, &path, message);
        }
    }
}

/// A CRD's structural schema with unknown fields made errors: the API server
/// prunes them silently, which for a rendered object means a typo.
pub fn strict(schema: &Json) -> Json {
    fn walk(node: &mut Json) {
        if let Some(object) = node.as_object_mut() {
            if object.contains_key("properties") && !object.contains_key("additionalProperties") {
                object.insert("additionalProperties".into(), Json::Bool(false));
            }
            if let Some(metadata) = object
                .get_mut("properties")
                .and_then(|p| p.get_mut("metadata"))
            {
                // The API server checks metadata as ObjectMeta, not the CRD.
                *metadata = serde_json::json!({"type": "object"});
            }
            object.values_mut().for_each(walk);
        } else if let Some(items) = node.as_array_mut() {
            items.iter_mut().for_each(walk);
        }
    }
    let mut schema = schema.clone();
    walk(&mut schema);
    // The API server accepts these on every custom resource, whether the
    // CRD's schema declares them or not.
    if let Some(properties) = schema.get_mut("properties").and_then(Json::as_object_mut) {
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
    schema
}
