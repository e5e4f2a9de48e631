//! `extraObjects`: manifests the chart does not know, added to the release
//! as written, and checked like the chart's own objects.
//!
//! An entry is any Kubernetes object: a mapping with `apiVersion`, `kind`
//! and `metadata.name` (the values schema says so, located). What a schema
//! cannot say is here: a core Secret with `data` or `stringData` (its
//! material would be written into `out/`, a Git repository), as the entry
//! or embedded anywhere in it, and a `List`
//! (an entry is one object) are refused; two entries with one identity
//! too. Where an entry lives and what the ADRs say of it is decided when
//! it is rendered and checked (`pipeline::extra_objects`, `check`): an
//! entry is no exception to any rule.

use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

use super::Values;
use super::violation::RuleBreach;
use kubernetes::location::KeyPath;

/// The values key of the extra objects.
pub const KEY: &str = "extraObjects";

/// One extra object, as written in the values.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ExtraObject(pub Map<String, Json>);

impl ExtraObject {
    /// A top-level text field (`apiVersion`, `kind`).
    pub fn text(&self, key: &str) -> &str {
        self.0.get(key).and_then(Json::as_str).unwrap_or_default()
    }

    /// A text field of `metadata` (`name`, `namespace`).
    pub fn metadata(&self, key: &str) -> Option<&str> {
        self.0.get("metadata")?.get(key)?.as_str()
    }
}

impl JsonSchema for ExtraObject {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ExtraObject".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Any Kubernetes object, written as it is to be applied: added to the release after the chart's own objects, without commonLabels or commonAnnotations, and checked like them (docs/patching.md). A namespaced kind needs `metadata.namespace`; a Secret with data, as the entry or embedded in it, is refused (use an ExternalSecret or SealedSecret).",
            "type": "object",
            "required": ["apiVersion", "kind", "metadata"]
        })
    }
}

/// Whether `api_version` and `kind` are the core Secret.
fn is_core_secret(object: &ExtraObject) -> bool {
    object.text("apiVersion") == "v1" && object.text("kind") == "Secret"
}

/// Whether a field holds something (a non-empty mapping, list or text).
fn holds(value: Option<&Json>) -> bool {
    match value {
        None | Some(Json::Null) => false,
        Some(Json::Object(map)) => !map.is_empty(),
        Some(Json::Array(items)) => !items.is_empty(),
        Some(Json::String(text)) => !text.is_empty(),
        Some(_) => true,
    }
}

/// The refusal of Secret material written into the output: `what` says
/// where it is.
fn secret_material(path: KeyPath, what: String) -> RuleBreach {
    RuleBreach {
        path,
        also: Vec::new(),
        message: format!(
            "{what}: its material would be written into the rendered output (out/, a Git repository) and into every diff"
        ),
        hint: Some(
            "keep the material out of Git: an ExternalSecret (external-secrets.io) or a SealedSecret (bitnami.com) in extraObjects makes the Secret in the cluster".to_owned(),
        ),
        at_key: false,
    }
}

/// The `data` and `stringData` holding something of each core Secret
/// nested anywhere below `object` (a policy's generated object, a
/// template's `objects`, a wrapper's `manifest`), at its path below `at`:
/// a mapping whose `kind` is `Secret` and whose `apiVersion` is `v1` or not
/// written (an embedding often leaves it to the kind), or an item without
/// a kind of a `SecretList` (a list's decoder makes it a Secret). The
/// object itself is judged apart.
fn embedded_secrets(object: &ExtraObject, at: &KeyPath) -> Vec<(KeyPath, &'static str)> {
    let children = object
        .0
        .iter()
        .map(|(key, value)| (value, at.key(key.as_str())));
    secrets_below(children.collect())
}

/// The Secret material of [`embedded_secrets`] in the trees of `stack`,
/// each with its path. Walked with a stack: the input's depth budget
/// bounds it, not the thread's stack.
fn secrets_below(mut stack: Vec<(&Json, KeyPath)>) -> Vec<(KeyPath, &'static str)> {
    let mut found = Vec::new();
    let core = |map: &serde_json::Map<String, Json>, kind: &str| {
        map.get("kind").and_then(Json::as_str) == Some(kind)
            && matches!(
                map.get("apiVersion").map(Json::as_str),
                None | Some(Some("v1"))
            )
    };
    let mut material = |map: &serde_json::Map<String, Json>, path: &KeyPath| {
        for field in ["data", "stringData"] {
            if holds(map.get(field)) {
                found.push((path.key(field), field));
            }
        }
    };
    stack.reverse();
    while let Some((value, path)) = stack.pop() {
        let children: Vec<(&Json, KeyPath)> = match value {
            Json::Object(map) => {
                if core(map, "Secret") {
                    material(map, &path);
                }
                if core(map, "SecretList")
                    && let Some(Json::Array(items)) = map.get("items")
                {
                    for (n, item) in items.iter().enumerate() {
                        if let Json::Object(item) = item
                            && !item.contains_key("kind")
                        {
                            material(item, &path.key("items").index(n));
                        }
                    }
                }
                map.iter()
                    .map(|(key, value)| (value, path.key(key.as_str())))
                    .collect()
            }
            Json::Array(items) => (items.iter().enumerate())
                .map(|(n, item)| (item, path.index(n)))
                .collect(),
            _ => continue,
        };
        stack.extend(children.into_iter().rev());
    }
    found
}

/// The Secret material in an entry's last-applied annotation (what
/// `kubectl get -o yaml` of a Secret leaves there): its JSON read whole,
/// the object it holds judged as an entry and all below it. The path is
/// the annotation's.
fn last_applied_secret(object: &ExtraObject, at: &KeyPath) -> Option<KeyPath> {
    let text = object
        .0
        .get("metadata")?
        .get("annotations")?
        .get(kubernetes::secret::LAST_APPLIED)?
        .as_str()?;
    let applied: Json = serde_json::from_str(text).ok()?;
    let path = (at.key("metadata").key("annotations")).key(kubernetes::secret::LAST_APPLIED);
    (!secrets_below(vec![(&applied, KeyPath::root())]).is_empty()).then_some(path)
}

/// Whether `object` has what identifies an object (a non-empty text
/// `apiVersion`, `kind`, `metadata.name`, and `metadata.namespace` when
/// written); reports each that is missing or no text.
fn identified(object: &ExtraObject, at: &KeyPath, violations: &mut Vec<RuleBreach>) -> bool {
    let metadata = object.0.get("metadata");
    let mut found = true;
    let mut text = |path: KeyPath, value: Option<&Json>, required: bool| match value {
        Some(Json::String(text)) if !text.is_empty() => {}
        None if !required => {}
        _ => {
            found = false;
            violations.push(RuleBreach {
                message: format!(
                    "`{path}` must be a non-empty text: it identifies the object in the cluster"
                ),
                path,
                also: Vec::new(),
                hint: None,
                at_key: false,
            });
        }
    };
    text(at.key("apiVersion"), object.0.get("apiVersion"), true);
    text(at.key("kind"), object.0.get("kind"), true);
    match metadata {
        Some(Json::Object(metadata)) => {
            text(at.key("metadata").key("name"), metadata.get("name"), true);
            text(
                at.key("metadata").key("namespace"),
                metadata.get("namespace"),
                false,
            );
        }
        _ => {
            found = false;
            violations.push(RuleBreach {
                path: at.key("metadata"),
                also: Vec::new(),
                message: "`metadata` must be a mapping holding at least `name`".to_owned(),
                hint: None,
                at_key: false,
            });
        }
    }
    found
}

/// The rules of `extraObjects` a schema cannot state.
pub fn check(values: &Values, violations: &mut Vec<RuleBreach>) {
    let mut seen: BTreeMap<(String, String, Option<String>, String), usize> = BTreeMap::new();
    for (i, object) in values.extra_objects.iter().enumerate() {
        let at = KeyPath::root().key(KEY).index(i);
        if !identified(object, &at, violations) {
            continue;
        }
        if is_core_secret(object) {
            for field in ["data", "stringData"] {
                if holds(object.0.get(field)) {
                    violations.push(secret_material(
                        at.key(field),
                        format!("{KEY}[{i}] is a Secret with {field}"),
                    ));
                }
            }
        }
        if let Some(path) = last_applied_secret(object, &at) {
            violations.push(secret_material(
                path,
                format!(
                    "{KEY}[{i}] ({} `{}`) holds a Secret with data in its last-applied annotation",
                    object.text("kind"),
                    object.metadata("name").unwrap_or_default()
                ),
            ));
        }
        for (path, field) in embedded_secrets(object, &at) {
            violations.push(secret_material(
                path,
                format!(
                    "{KEY}[{i}] ({} `{}`) embeds a Secret with {field}",
                    object.text("kind"),
                    object.metadata("name").unwrap_or_default()
                ),
            ));
        }
        let kind = object.text("kind");
        if kind.ends_with("List") && object.0.contains_key("items") {
            violations.push(RuleBreach {
                path: at.key("items"),
                also: Vec::new(),
                message: format!(
                    "{KEY}[{i}] is a {kind}: each entry is one object, checked and written as one file"
                ),
                hint: Some(format!("write each item as an entry of its own in {KEY}")),
                at_key: false,
            });
            continue;
        }
        let group = kubernetes::manifest::api_group(object.text("apiVersion"));
        // A kind of Kubernetes' own groups has a scope known without a
        // CRD, so a missing namespace is judged here as `render` does; a
        // custom kind's scope waits for its CRD (`render --crd`).
        if object.metadata("namespace").is_none()
            && kubernetes::kube::is_kubernetes_group(group)
            && !kubernetes::manifest::is_cluster_scoped(kind)
        {
            violations.push(RuleBreach {
                path: at.key("metadata").key("namespace"),
                also: vec![at.key("metadata")],
                message: format!(
                    "{KEY}[{i}] ({kind} `{}`) has no metadata.namespace: chartgen has no release namespace to put a namespaced object in, and `kubectl apply` would put it in `default`",
                    object.metadata("name").unwrap_or_default()
                ),
                hint: Some(format!(
                    "write the namespace it belongs in (the operator's is `{}`, the builds' `{}`)",
                    values.namespaces.operator.as_str(),
                    values.namespaces.builds.as_str()
                )),
                at_key: false,
            });
        }
        let key = (
            group.to_owned(),
            kind.to_owned(),
            object.metadata("namespace").map(str::to_owned),
            object.metadata("name").unwrap_or_default().to_owned(),
        );
        if let Some(first) = seen.get(&key) {
            violations.push(RuleBreach {
                path: at.key("metadata").key("name"),
                also: Vec::new(),
                message: format!(
                    "{KEY}[{i}] is the same object as {KEY}[{first}] ({kind} `{}`): the second would replace the first when applied",
                    key.3
                ),
                hint: Some("give each object its own name".to_owned()),
                at_key: false,
            });
        } else {
            seen.insert(key, i);
        }
    }
}
