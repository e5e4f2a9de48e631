//! Every object against its schema, strictly: built-in kinds and
//! cert-manager against the vendored schemas, custom resources against the
//! `openAPIV3Schema` of a CRD in the input (or given with `--crd`). An
//! object of a kind with no schema is a finding, never a silent pass.

use std::collections::BTreeMap;

use jsonschema::Validator;
use serde_json::Value as Json;

use super::{Context, Invariant, Options};
use crate::diagnostic::{KeyPath, Segment};

/// Checks every object of `context`.
pub fn check(context: &mut Context<'_>, options: &Options<'_>) {
    let mut custom: BTreeMap<(String, String), Validator> = BTreeMap::new();
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
            if let Ok(validator) =
                jsonschema::validator_for(&strict(&version["schema"]["openAPIV3Schema"]))
            {
                custom.insert((format!("{group}/{name}"), kind.to_owned()), validator);
            }
        }
    }
    for index in 0..context.objects.len() {
        let object = context.objects[index].clone();
        let errors: Vec<(KeyPath, String)> = match options.schemas.validate_located(&object) {
            Some(errors) => errors,
            None => {
                let key = (
                    object["apiVersion"].as_str().unwrap_or_default().to_owned(),
                    object["kind"].as_str().unwrap_or_default().to_owned(),
                );
                match custom.get(&key) {
                    Some(validator) => validator
                        .iter_errors(&object)
                        .map(|e| (pointer_path(e.instance_path().as_str()), e.to_string()))
                        .collect(),
                    None => {
                        context.report(
                            Invariant::UnknownKind,
                            index,
                            &KeyPath::root(),
                            format!("no schema for {} {}; give its CRD with --crd", key.0, key.1),
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

/// A JSON pointer as a key path (numeric segments as indexes).
pub fn pointer_path(pointer: &str) -> KeyPath {
    KeyPath(
        pointer
            .split('/')
            .skip(1)
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .map(|s| match s.parse::<usize>() {
                Ok(index) if !s.is_empty() => Segment::Index(index),
                _ => Segment::Key(s),
            })
            .collect(),
    )
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
    schema
}
