//! Every object against its schema, strictly: built-in kinds and
//! cert-manager against the vendored schemas, custom resources against the
//! `openAPIV3Schema` of a CRD in the input (or given with `--crd`). An
//! object of a kind with no schema is a finding, never a silent pass.

use std::collections::BTreeMap;

use jsonschema::Validator;
use serde_json::Value as Json;

use super::{Context, Findings, Invariant, Options};
use kubernetes::location::KeyPath;

/// Checks every object of `context`.
pub fn check(context: &Context<'_>, findings: &mut Findings<'_>, options: &Options<'_>) {
    let custom = custom_validators(context, findings, options);
    for index in 0..context.objects.len() {
        let object = &context.objects[index];
        // The API server reads an explicit null as the field unset (its
        // zero value): `maxSurge: null` is no int-or-string to refuse.
        // Copied only when it holds one: most objects are validated as they are.
        let cleaned;
        let validated = match has_null_member(object) {
            true => {
                cleaned = without_nulls(object);
                &cleaned
            }
            false => *object,
        };
        let errors: Vec<(KeyPath, String)> = match options.schemas.validate(validated) {
            Some(errors) => errors,
            None => {
                let key = (
                    object["apiVersion"].as_str().unwrap_or_default().to_owned(),
                    object["kind"].as_str().unwrap_or_default().to_owned(),
                );
                match custom.get(&key) {
                    Some(Ok(validator)) => validator
                        .iter_errors(object)
                        .map(|e| {
                            (
                                KeyPath::from_pointer(e.instance_path().as_str()),
                                e.to_string(),
                            )
                        })
                        .collect(),
                    Some(Err(why)) => {
                        findings.report(
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
                            // Every built-in kind is vendored: the kind is
                            // not served at this apiVersion (removed, not yet
                            // there, or misspelt).
                            let served: Vec<&str> = options
                                .schemas
                                .kinds()
                                .filter(|(_, kind)| *kind == key.1)
                                .map(|(api_version, _)| api_version)
                                .collect();
                            match served.as_slice() {
                                [] => "no built-in kind of this Kubernetes version (--kube-version) has that name".to_owned(),
                                served => format!(
                                    "the Kubernetes version checked (--kube-version) serves {} at {} only",
                                    key.1,
                                    served.join(", ")
                                ),
                            }
                        } else {
                            "give its CRD with --crd".to_owned()
                        };
                        findings.report(
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
            findings.report(Invariant::Schema, index, &path, message);
        }
    }
}

/// The validators of the custom kinds: one per (group/version, kind) of
/// the first CRD that claims it, `--crd` files first; a second claim is
/// reported (the API server refuses it).
fn custom_validators(
    context: &Context<'_>,
    findings: &mut Findings<'_>,
    options: &Options<'_>,
) -> BTreeMap<(String, String), Result<Validator, String>> {
    let mut custom: BTreeMap<(String, String), Result<Validator, String>> = BTreeMap::new();
    let extra: Vec<Json> = options
        .extra_crds
        .iter()
        .map(|m| m.node.to_json())
        .collect();
    // `--crd` files first: a CRD in the input that claims their kind is the second claim.
    let crds: Vec<(Option<usize>, &Json)> = extra
        .iter()
        .map(|crd| (None, crd))
        .chain(
            context
                .objects
                .iter()
                .enumerate()
                .map(|(i, o)| (Some(i), *o)),
        )
        .filter(|(_, o)| o["kind"] == "CustomResourceDefinition")
        .collect();
    let mut claims: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut conflicts = Vec::new();
    for (index, crd) in crds {
        let group = crd["spec"]["group"].as_str().unwrap_or_default();
        let kind = crd["spec"]["names"]["kind"].as_str().unwrap_or_default();
        let name = crd["metadata"]["name"].as_str().unwrap_or_default();
        match claims.get(&(group.to_owned(), kind.to_owned())) {
            Some(first) if first != name => {
                // The API server refuses the second claim (NamesAccepted false):
                // its resources are served by the first CRD, or not at all.
                if let Some(index) = index {
                    conflicts.push((index, format!(
                        "claims kind {kind} of group {group}, which CustomResourceDefinition {first} already claims; the API server does not accept the second (NamesAccepted: False)"
                    )));
                }
                continue;
            }
            Some(_) => continue,
            None => {
                claims.insert((group.to_owned(), kind.to_owned()), name.to_owned());
            }
        }
        for version in crd["spec"]["versions"].as_array().into_iter().flatten() {
            let version_name = version["name"].as_str().unwrap_or_default();
            let validator = jsonschema::options()
                .with_pattern_options(kubernetes::kube::pattern_engine())
                .build(&strict(&version["schema"]["openAPIV3Schema"]))
                .map_err(|e| format!("the schema of CRD {name} does not compile: {e}"));
            custom.insert(
                (format!("{group}/{version_name}"), kind.to_owned()),
                validator,
            );
        }
    }
    for (index, message) in conflicts {
        findings.report(
            Invariant::Api,
            index,
            &KeyPath::dotted("spec.names.kind"),
            message,
        );
    }
    custom
}

/// A CRD's structural schema with unknown fields made errors: the API server
/// prunes them silently, which for a rendered object means a typo.
///
/// The walk follows the schema's own structure (`properties`, `items`,
/// `additionalProperties`), never data such
/// as `default`, `enum` or `example`, and honours what the API server does:
/// `x-kubernetes-preserve-unknown-fields: true` keeps unknown fields at that
/// node, `x-kubernetes-embedded-resource: true` accepts `apiVersion`, `kind`
/// and `metadata` there, and the root's `metadata` is checked as ObjectMeta.
pub fn strict(schema: &Json) -> Json {
    let mut schema = schema.clone();
    tighten(&mut schema, true);
    schema
}

/// Makes one schema node (and the schemas below it) strict; `resource`
/// when the node is a whole object of the API (the root, or embedded).
fn tighten(node: &mut Json, resource: bool) {
    let Some(object) = node.as_object_mut() else {
        return;
    };
    let flag = |object: &serde_json::Map<String, Json>, key: &str| {
        object.get(key) == Some(&Json::Bool(true))
    };
    let resource = resource || flag(object, "x-kubernetes-embedded-resource");
    let preserve = flag(object, "x-kubernetes-preserve-unknown-fields");
    if let Some(properties) = object.get_mut("properties").and_then(Json::as_object_mut) {
        for (name, property) in properties.iter_mut() {
            if resource && name == "metadata" {
                // The API server checks metadata as ObjectMeta, not the CRD.
                *property = serde_json::json!({"type": "object"});
            } else {
                tighten(property, false);
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
    if object.contains_key("properties")
        && !preserve
        && !object.contains_key("additionalProperties")
    {
        object.insert("additionalProperties".into(), Json::Bool(false));
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = object.get_mut(key) {
            match child {
                Json::Array(schemas) => schemas.iter_mut().for_each(|s| tighten(s, false)),
                child => tighten(child, false),
            }
        }
    }
    // `allOf`, `anyOf`, `oneOf` and `not` only add value checks to fields the
    // node declares (a structural schema's rule): left as they are, since
    // closing one of them would refuse the node's other fields.
}

/// Whether `value` has an object member whose value is null, at any depth:
/// what [`without_nulls`] would leave out.
fn has_null_member(value: &Json) -> bool {
    match value {
        Json::Object(map) => map.values().any(|v| v.is_null() || has_null_member(v)),
        Json::Array(items) => items.iter().any(has_null_member),
        _ => false,
    }
}

/// `value` with every object member whose value is null left out, at any
/// depth (array items stay: a null item is an item).
fn without_nulls(value: &Json) -> Json {
    match value {
        Json::Object(map) => Json::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Json::Array(items) => Json::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}
