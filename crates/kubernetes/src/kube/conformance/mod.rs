//! Every object of a set against its schema, strictly: built-in kinds (and
//! cert-manager's Certificate) against the baked schemas of one Kubernetes
//! version, custom resources against the `openAPIV3Schema` of a CRD in the
//! set or given besides it. An object of a kind with no schema is a
//! verdict of its own, never a silent pass.
//!
//! [`check`] only judges: each [`Verdict`] names the object by its index
//! and says what is wrong in data, so a caller words and ranks it as its
//! own findings (and names its own flags in a hint).

mod beside;
pub mod crd_defaults;
mod keywords;
mod strict;

use std::collections::BTreeMap;

use jsonschema::Validator;
use serde_json::Value as Json;

use self::beside::{beside_the_schema, read_as_object_meta};
use self::crd_defaults::{DEFAULTED_BUDGET, as_the_server_reads, defaults_matter, to_read};
use self::keywords::{LARGE_PATTERN_SIZE_LIMIT, LARGE_PATTERNS, UNJUDGED, crd_schema_options};
use self::strict::{Reading, strict};
use super::KubeSchemas;
use crate::json::Field;
use crate::location::KeyPath;

/// What the schema check finds wrong with one object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It breaks its schema at the path: the validator's message, and for
    /// an unknown field its name, a key of the object at the path (one
    /// verdict for each unknown field), so that a caller can point at the
    /// line of that key.
    Invalid(KeyPath, String, Option<String>),
    /// Its kind has no schema: neither built in at the version checked
    /// nor defined by a CRD.
    Unknown(Unknown),
    /// The CRD that defines its kind has a schema that does not compile:
    /// why.
    Uncompiled(String),
    /// Its kind is built in, but the API server keeps no object of it
    /// (a subresource's body, a review): why ([`super::not_stored`]).
    NotStored(String),
    /// It is a CRD claiming a group and kind that another CRD claimed
    /// first: the API server does not accept it (`NamesAccepted: False`).
    /// Why, said of its `spec.names.kind` ([`Verdict::CLAIM`]).
    ClaimTaken(String),
    /// It is a custom resource that was not judged whole: why (a pattern
    /// too large to match). Not a refusal: what could not be verified.
    Unjudged(String),
}

impl Verdict {
    /// Where a [`Verdict::ClaimTaken`] is: the kind the CRD claims.
    pub const CLAIM: &str = "spec.names.kind";
}

/// A kind with no schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unknown {
    /// The object's `apiVersion`.
    pub api_version: String,
    /// The object's `kind`.
    pub kind: String,
    /// For a group Kubernetes itself serves (no dot, or under `k8s.io`):
    /// the apiVersions at which the version checked serves a kind of this
    /// name, none when it has no such kind (every built-in kind is baked:
    /// the kind is removed, not yet there, or misspelt). `None` for any
    /// other group: a CRD would define it.
    pub served: Option<Vec<&'static str>>,
}

impl std::fmt::Display for Unknown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if super::off_by_default(&self.api_version) {
            return write!(
                f,
                "{} {} is not served: an alpha or beta API, which the API server serves only where its --runtime-config turns it on",
                self.api_version, self.kind
            );
        }
        write!(f, "no schema for {} {}", self.api_version, self.kind)
    }
}

/// Builds, once per process, what compiling the first CRD schema would:
/// the validator of the meta-schema that every CRD schema is held to
/// (draft 4's, the dialect of Kubernetes' `JSONSchemaProps`). A caller
/// with a core to spare calls it on that core while it does other work
/// (`render` does, while the values load); otherwise [`check`] builds it
/// when a CRD first needs it.
pub fn prepare() {
    let schema = serde_json::json!({"type": "object"});
    let valid = jsonschema::draft4::meta::is_valid(&schema);
    debug_assert!(valid, "the meta-schema takes an object schema");
}

/// Judges every object of `objects` against its schema: `schemas` for the
/// built-in kinds, the CRDs of `crds` (given besides the set: what the
/// cluster holds already) and of `objects` for the custom ones. Each
/// verdict names its object by index: first the CRDs whose claim is taken,
/// in the set's order, then each object's, object by object.
///
/// An explicit null is the field unset, as the API server reads it; in a
/// custom resource, where its CRD's schema does not make the field
/// `nullable` (a required field with a `default` may be left out: the
/// server defaults it).
/// Unknown fields are errors, in a CRD's schema too (where it does not
/// preserve them): the API server would drop them silently. A custom
/// resource's `status` is judged only for unknown fields where its version
/// has the status subresource: the API server's strict decoder refuses
/// those, then drops the status from what is created or applied. Its
/// `metadata` is judged as ObjectMeta.
///
/// ```
/// use kubernetes::kube::{DEFAULT_VERSION, KubeSchemas};
/// use kubernetes::kube::conformance::{Verdict, check};
///
/// let schemas = KubeSchemas::load(DEFAULT_VERSION).unwrap();
/// let typo = serde_json::json!({
///     "apiVersion": "v1", "kind": "ConfigMap",
///     "metadata": {"name": "settings"}, "dta": {"a": "1"},
/// });
/// let widget = serde_json::json!({
///     "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
/// });
/// let verdicts = check(&[&typo, &widget], &schemas, &[]);
/// assert_eq!(verdicts.len(), 2);
/// let (0, Verdict::Invalid(_, message, _)) = &verdicts[0] else { panic!("{verdicts:?}") };
/// assert!(message.contains("'dta' was unexpected"), "{message}");
/// let (1, Verdict::Unknown(unknown)) = &verdicts[1] else { panic!("{verdicts:?}") };
/// assert_eq!(unknown.to_string(), "no schema for example.com/v1 Widget");
/// assert_eq!(unknown.served, None);
/// ```
pub fn check(objects: &[&Json], schemas: &KubeSchemas, crds: &[Json]) -> Vec<(usize, Verdict)> {
    let minor = (schemas.version().strip_prefix("1.")).and_then(|m| m.parse().ok());
    let (custom, mut verdicts) = custom_validators(objects, crds, minor.unwrap_or(35));
    for (index, object) in objects.iter().enumerate() {
        verdicts.extend(
            judge(object, schemas, &custom)
                .into_iter()
                .map(|v| (index, v)),
        );
    }
    verdicts
}

/// The validators of the custom kinds, by apiVersion, then kind: found
/// by the object's two strings, without copying them into a key.
type Custom = BTreeMap<String, BTreeMap<String, Result<CustomSchema, String>>>;

/// A custom kind's schema ([`strict`]) and its validator.
struct CustomSchema {
    schema: Json,
    validator: Validator,
    /// Whether the version has the status subresource: the API server then
    /// drops `.status` from what is created or applied (it is written only
    /// through `/status`), so a manifest's status is validated only for
    /// the unknown fields its strict decoder refuses first.
    status_dropped: bool,
    /// Whether a default the server fills in can change a verdict
    /// ([`defaults_matter`]): custom resources are then judged with their
    /// defaults in.
    defaulted: bool,
}

/// Most findings one custom resource reports; one more says that more
/// were left out. A schema requiring many fields, over a list of many
/// items, would otherwise turn a small resource into millions of
/// findings (a review's 154 KB made 296 MB of them).
const RESOURCE_FINDINGS: usize = 100;

/// One object's verdicts.
fn judge(object: &Json, schemas: &KubeSchemas, custom: &Custom) -> Vec<Verdict> {
    // The API server validates what its decoder and defaults leave (a null
    // member unset: `maxSurge: null` is no int-or-string to refuse; a Go
    // struct field, absent, an empty one; a budget's v1beta1 selector key
    // stripped). Copied only when that differs.
    let read = super::as_validated(object, schemas);
    let validated = read.as_ref().unwrap_or(object);
    if let Some(errors) = schemas.validate(validated) {
        if let Some(why) = super::not_stored(object) {
            return vec![Verdict::NotStored(why)];
        }
        return invalid(errors);
    }
    let api_version = object.field("apiVersion").as_str().unwrap_or_default();
    let kind = object.field("kind").as_str().unwrap_or_default();
    match custom.get(api_version).and_then(|kinds| kinds.get(kind)) {
        // Every error collected, even for the many valid objects: asking
        // `is_valid` first would be cheaper, but jsonschema 0.61's
        // `is_valid` can answer true where `iter_errors` finds an error
        // (a schema whose `$ref`s form a cycle, an instance deep enough for
        // its cache: the test below).
        Some(Ok(custom)) => judge_custom(object, custom, schemas),
        Some(Err(why)) => vec![Verdict::Uncompiled(why.clone())],
        None => vec![Verdict::Unknown(unknown(
            (api_version.to_owned(), kind.to_owned()),
            schemas,
        ))],
    }
}

/// The verdicts on a custom resource: what the server's strict decoder
/// refuses of its `metadata` first, as the server does, then its schema's
/// errors and what the schema leaves to the server ([`beside_the_schema`]),
/// up to [`RESOURCE_FINDINGS`]; and a [`Verdict::Unjudged`] where a
/// pattern was too large to match.
fn judge_custom(object: &Json, custom: &CustomSchema, schemas: &KubeSchemas) -> Vec<Verdict> {
    let CustomSchema {
        schema,
        validator,
        status_dropped,
        defaulted,
    } = custom;
    let metadata = custom_metadata(object, schemas);
    // Copied only when the server's reading changes something.
    let read;
    let object = match *defaulted || to_read(object) {
        false => object,
        true => {
            let mut budget = DEFAULTED_BUDGET;
            read = as_the_server_reads(object, Some(schema), &mut budget);
            &read
        }
    };
    // A status the server drops is read by its strict decoder
    // first: only an unknown field there is refused.
    let dropped = *status_dropped && object.get("status").is_some();
    let in_status = |path: &str| path == "/status" || path.starts_with("/status/");
    let judged = |e: &jsonschema::ValidationError<'_>| {
        !dropped
            || !in_status(e.instance_path().as_str())
            || matches!(
                e.kind(),
                jsonschema::error::ValidationErrorKind::AdditionalProperties { .. }
            )
    };
    UNJUDGED.set(false);
    let errors = (validator.iter_errors(object))
        .filter(judged)
        .flat_map(|e| {
            let path = KeyPath::from_pointer(e.instance_path().as_str());
            // One verdict for each unknown field, located at it.
            match e.kind() {
                jsonschema::error::ValidationErrorKind::AdditionalProperties { unexpected } => {
                    let known = declared(schema, e.schema_path().as_str());
                    (unexpected.iter())
                        .map(|name| {
                            let message = super::unknown_field(name, known.iter().copied());
                            (path.clone(), message, Some(name.clone()))
                        })
                        .collect()
                }
                _ => vec![(path, e.to_string(), None)],
            }
        });
    let found: Vec<_> = (metadata.into_iter())
        .chain(errors)
        .chain(beside_the_schema(schema, object, Reading::Object, schemas))
        .take(RESOURCE_FINDINGS + 1)
        .collect();
    let mut verdicts = invalid(found);
    if verdicts.len() > RESOURCE_FINDINGS {
        verdicts.truncate(RESOURCE_FINDINGS);
        verdicts.push(Verdict::Invalid(
            KeyPath::root(),
            format!("more problems past these first {RESOURCE_FINDINGS} are not listed"),
            None,
        ));
    }
    if UNJUDGED.take() {
        verdicts.push(Verdict::Unjudged(format!(
            "a pattern of its CRD's schema compiles past what this check matches ({} MiB, or past {LARGE_PATTERNS} such patterns a run): its strings were not matched against it",
            LARGE_PATTERN_SIZE_LIMIT >> 20
        )));
    }
    verdicts
}

/// The members a closed object of the custom schema `schema` declares,
/// found from the `additionalProperties` keyword that refused an unknown
/// one (its `schema_path`, a JSON pointer): what a misspelt field may
/// have meant. None where the pointer leads to no `properties`.
fn declared<'s>(schema: &'s Json, keyword: &str) -> Vec<&'s str> {
    let node = keyword
        .strip_suffix("/additionalProperties")
        .unwrap_or(keyword);
    (schema.pointer(node))
        .and_then(|node| node.get("properties"))
        .and_then(Json::as_object)
        .map_or_else(Vec::new, |properties| {
            properties.keys().map(String::as_str).collect()
        })
}

/// A custom resource's `metadata` as the API server decodes it: into
/// ObjectMeta, strictly, as a built-in kind's (`labels: {a: 1}`, an
/// unknown `metadata.foo`, a time it cannot read are refused before the
/// CRD's schema is asked). Judged through a ConfigMap of that metadata
/// alone, whose other fields are all optional; skipped for the usual
/// metadata (a name, a namespace, string labels and annotations), which
/// ObjectMeta always takes.
fn custom_metadata(object: &Json, schemas: &KubeSchemas) -> Vec<super::Violation> {
    let metadata = object.field("metadata");
    let strings = |value: &Json| {
        value
            .as_object()
            .is_some_and(|map| map.values().all(Json::is_string))
    };
    let usual = metadata.as_object().is_some_and(|map| {
        map.iter().all(|(key, value)| match key.as_str() {
            "name" | "namespace" | "generateName" => value.is_string(),
            "labels" | "annotations" => strings(value),
            _ => false,
        })
    });
    // Not an object at all: the CRD's schema says so.
    if usual || !metadata.is_object() {
        return Vec::new();
    }
    read_as_object_meta(metadata, schemas)
}

fn invalid(errors: Vec<super::Violation>) -> Vec<Verdict> {
    (errors.into_iter())
        .map(|(path, message, field)| Verdict::Invalid(path, message, field))
        .collect()
}

/// What is known of a kind without a schema.
fn unknown((api_version, kind): (String, String), schemas: &KubeSchemas) -> Unknown {
    let builtin = super::is_kubernetes_group(crate::manifest::api_group(&api_version));
    let served = builtin.then(|| {
        (schemas.kinds())
            .filter(|(_, served)| *served == kind)
            .map(|(api_version, _)| api_version)
            .collect()
    });
    Unknown {
        api_version,
        kind,
        served,
    }
}

/// The validators of the custom kinds: one per (group/version, kind) of
/// the first CRD that claims it, `crds` first; with the verdicts on the
/// CRDs of `objects` whose claim is taken (the API server refuses it).
fn custom_validators(
    objects: &[&Json],
    crds: &[Json],
    minor: u32,
) -> (Custom, Vec<(usize, Verdict)>) {
    let mut custom = Custom::new();
    // The given CRDs first: a CRD in the set that claims their kind is the second claim.
    let all = (crds.iter().map(|crd| (None, crd)))
        .chain(objects.iter().enumerate().map(|(i, o)| (Some(i), *o)))
        .filter(|(_, o)| crate::manifest::is_crd(o));
    let mut claims: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut taken = Vec::new();
    for (index, crd) in all {
        let group = crd["spec"]["group"].as_str().unwrap_or_default();
        let kind = crd["spec"]["names"]["kind"].as_str().unwrap_or_default();
        let name = crd["metadata"]["name"].as_str().unwrap_or_default();
        match claims.get(&(group.to_owned(), kind.to_owned())) {
            Some(first) if first != name => {
                // The API server refuses the second claim (NamesAccepted false):
                // its resources are served by the first CRD, or not at all.
                if let Some(index) = index {
                    taken.push((index, Verdict::ClaimTaken(format!(
                        "claims kind {kind} of group {group}, which CustomResourceDefinition {first} already claims; the API server does not accept the second (NamesAccepted: False)"
                    ))));
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
            if version["served"] == Json::Bool(false) {
                // The API server serves no such resource: kubectl finds no
                // kind to create ("no matches for kind").
                let why = format!(
                    "version {version_name} of CRD {name} is not served (`served: false`): the API server has no {kind} at {group}/{version_name} to create"
                );
                (custom.entry(format!("{group}/{version_name}")).or_default())
                    .insert(kind.to_owned(), Err(why));
                continue;
            }
            let schema = strict(
                &version["schema"]["openAPIV3Schema"],
                Reading::Object,
                minor,
            );
            let status_dropped = version["subresources"]["status"].is_object();
            let validator = match crd_schema_options().build(&schema) {
                Ok(validator) => Ok(CustomSchema {
                    defaulted: defaults_matter(&schema, false),
                    schema,
                    validator,
                    status_dropped,
                }),
                Err(e) => Err(format!("the schema of CRD {name} does not compile: {e}")),
            };
            (custom.entry(format!("{group}/{version_name}")).or_default())
                .insert(kind.to_owned(), validator);
        }
    }
    (custom, taken)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use std::collections::HashMap;

    use super::crd_defaults::refused_defaults;
    use super::keywords::LargePatterns;
    use super::*;

    /// A CRD whose schema's `$ref`s form a cycle, and a Widget nested 16
    /// deep: jsonschema 0.61's `is_valid` says valid, `iter_errors` finds
    /// the error, and the API server's reading (no `$ref` at all) would
    /// refuse the CRD. The verdict is the error, as before `is_valid` was
    /// tried (a review found this).
    #[test]
    fn a_custom_resource_is_judged_by_its_errors_not_by_is_valid() {
        let crd = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
                "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                    "definitions": {
                        "P": {"allOf": [{"$ref": "#/definitions/P"}, {"not": {"anyOf": [{"$ref": "#/definitions/R"}]}}]},
                        "Q": {"allOf": [{"oneOf": [{"$ref": "#/definitions/R"}]}]},
                        "R": {"allOf": [{"oneOf": [{"$ref": "#/definitions/P"}, {"$ref": "#/definitions/R"}]}, {"$ref": "#/definitions/W"}]},
                        "W": {"properties": {"c": {"$ref": "#/definitions/W"}}}
                    },
                    "allOf": [{"$ref": "#/definitions/W"}, {"not": {"$ref": "#/definitions/P"}}, {"not": {"$ref": "#/definitions/Q"}}],
                    "type": "object"
                }}}]}
        });
        let mut nested = json!({});
        for _ in 0..16 {
            nested = json!({"c": nested});
        }
        let mut widget = json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": "ops"}});
        widget["c"] = nested["c"].clone();
        let schemas = crate::kube::KubeSchemas::load(crate::kube::DEFAULT_VERSION).unwrap();
        let verdicts = check(&[&crd, &widget], &schemas, &[]);
        assert!(
            verdicts
                .iter()
                .any(|(i, v)| *i == 1 && matches!(v, Verdict::Invalid(..))),
            "{verdicts:?}"
        );
    }

    fn widget_crd(properties: Json) -> Json {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
                "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {"spec": {"type": "object", "properties": properties}}
                }}}]}
        })
    }

    fn widget(spec: Json) -> Json {
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": "ops"}, "spec": spec})
    }

    /// The verdicts on the widget (index 1) beside `crd`.
    fn widget_verdicts(crd: &Json, spec: Json) -> Vec<Verdict> {
        let schemas = crate::kube::KubeSchemas::load(crate::kube::DEFAULT_VERSION).unwrap();
        let verdicts = check(&[crd, &widget(spec)], &schemas, &[]);
        assert!(verdicts.iter().all(|(i, _)| *i == 1), "{verdicts:?}");
        verdicts.into_iter().map(|(_, v)| v).collect()
    }

    /// With the status subresource, the API server drops a custom
    /// resource's `status` when it is created or applied (only `/status`
    /// writes it): a status the schema refuses is no finding there, but
    /// for an unknown field, which its strict decoder refuses first (as a
    /// real v1.35 server did); all of it still one without the
    /// subresource. The rest is judged as before.
    #[test]
    fn a_status_the_server_drops_is_not_judged() {
        let mut crd = widget_crd(json!({ "size": {"type": "integer"} }));
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"] =
            json!({"type": "object", "properties": {"ready": {"type": "boolean"}}});
        let schemas = crate::kube::KubeSchemas::load(crate::kube::DEFAULT_VERSION).unwrap();
        let mut widget = widget(json!({ "size": 3 }));
        widget["status"] = json!({"ready": "yes", "typo": null, "n": 1.0});
        let invalid_at = |crd: &Json, widget: &Json| -> Vec<String> {
            (check(&[crd, widget], &schemas, &[]).into_iter())
                .map(|(i, v)| match v {
                    Verdict::Invalid(path, ..) if i == 1 => path.to_string(),
                    other => panic!("{i}: {other:?}"),
                })
                .collect()
        };
        // One verdict for each unknown field.
        assert_eq!(
            invalid_at(&crd, &widget),
            ["status.ready", "status", "status"]
        );
        crd["spec"]["versions"][0]["subresources"] = json!({"status": {}});
        // The unknown `typo` and `n`, not the type of `ready`.
        assert_eq!(invalid_at(&crd, &widget), ["status", "status"]);
        widget["status"] = json!({"ready": "yes"});
        assert_eq!(invalid_at(&crd, &widget), Vec::<String>::new());
        widget["spec"]["size"] = json!("three");
        assert_eq!(invalid_at(&crd, &widget), ["spec.size"]);
        // Without a status, nothing is copied or changed.
        let plain = self::widget(json!({ "size": 3 }));
        assert_eq!(invalid_at(&crd, &plain), Vec::<String>::new());
        // A status with nothing else to read is dropped alone.
        let mut simple = self::widget(json!({ "size": 3 }));
        simple["status"] = json!({"ready": "yes"});
        assert_eq!(invalid_at(&crd, &simple), Vec::<String>::new());
    }

    /// An unknown field of a custom resource is one verdict, carrying its
    /// name, with a did-you-mean from the CRD's declared fields where one
    /// is close.
    #[test]
    fn a_custom_resources_unknown_field_names_the_field_it_may_mean() {
        let crd = widget_crd(json!({ "size": {"type": "integer"}, "colour": {"type": "string"} }));
        let schemas = crate::kube::KubeSchemas::load(crate::kube::DEFAULT_VERSION).unwrap();
        let widget = widget(json!({ "sise": 3, "zzzzzzzz": 1 }));
        let found: Vec<(String, String, Option<String>)> = (check(&[&crd, &widget], &schemas, &[]))
            .into_iter()
            .map(|(i, v)| match v {
                Verdict::Invalid(path, message, field) if i == 1 => {
                    (path.to_string(), message, field)
                }
                other => panic!("{i}: {other:?}"),
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    "spec".to_owned(),
                    "Additional properties are not allowed ('sise' was unexpected); did you mean `size`?".to_owned(),
                    Some("sise".to_owned())
                ),
                (
                    "spec".to_owned(),
                    "Additional properties are not allowed ('zzzzzzzz' was unexpected)".to_owned(),
                    Some("zzzzzzzz".to_owned())
                ),
            ]
        );
    }

    /// A custom resource's metadata is decoded as ObjectMeta, strictly, as
    /// a real v1.35 server decodes it: a label that is no string, an
    /// unknown member, a time it cannot read are refused.
    #[test]
    fn a_custom_resources_metadata_is_object_meta() {
        let crd = widget_crd(json!({ "size": {"type": "integer"} }));
        let schemas = crate::kube::KubeSchemas::load(crate::kube::DEFAULT_VERSION).unwrap();
        let invalid_at = |metadata: Json| -> Vec<String> {
            let mut widget = widget(json!({ "size": 3 }));
            widget["metadata"] = metadata;
            (check(&[&crd, &widget], &schemas, &[]).into_iter())
                .map(|(i, v)| match v {
                    Verdict::Invalid(path, ..) if i == 1 => path.to_string(),
                    other => panic!("{i}: {other:?}"),
                })
                .collect()
        };
        assert!(invalid_at(json!({"name": "w", "labels": {"a": "b"}})).is_empty());
        assert!(
            invalid_at(json!({"name": "w", "labels": {"a": null}, "generation": 2})).is_empty()
        );
        assert_eq!(
            invalid_at(json!({"name": "w", "labels": {"a": 1}})),
            ["metadata.labels.a"]
        );
        assert_eq!(invalid_at(json!({"name": "w", "foo": "x"})), ["metadata"]);
        assert_eq!(
            invalid_at(json!({"name": "w", "creationTimestamp": "2024-02-30T00:00:00Z"})),
            ["metadata.creationTimestamp"]
        );
        // Not an object: the CRD's schema says so, once.
        assert_eq!(invalid_at(json!("w")), ["metadata"]);
    }

    /// Only a CustomResourceDefinition of `apiextensions.k8s.io` defines a
    /// kind: a custom kind of that name in another group defines none.
    #[test]
    fn a_custom_kind_named_customresourcedefinition_defines_nothing() {
        let mut crd = widget_crd(json!({ "size": {"type": "integer"} }));
        crd["apiVersion"] = json!("example.com/v1");
        let schemas = crate::kube::KubeSchemas::load(crate::kube::DEFAULT_VERSION).unwrap();
        let widget = widget(json!({ "size": 3 }));
        let verdicts = check(&[&crd, &widget], &schemas, &[]);
        assert!(
            verdicts
                .iter()
                .any(|(i, v)| *i == 1 && matches!(v, Verdict::Unknown(_))),
            "{verdicts:?}"
        );
    }

    /// What a review measured a v1.35.4 server refuse or take in custom
    /// resources: the CRD's defaults filled in before a node counts its
    /// members, objects in an array no `items` describes pruned, declared
    /// metadata schemas kept, an embedded resource's metadata decoded
    /// strictly and held to ObjectMeta's rules as written.
    #[test]
    fn custom_resources_are_judged_as_the_server_fills_and_reads_them() {
        let refused = |properties: Json, spec: Json| {
            !widget_verdicts(&widget_crd(properties), spec).is_empty()
        };
        let counted = json!({"m": {"type": "object", "maxProperties": 1,
            "properties": {"a": {"type": "string", "default": "x"}, "b": {"type": "string"}}}});
        assert!(refused(counted.clone(), json!({"m": {"b": "y"}})));
        assert!(!refused(counted, json!({"m": {"a": "y"}})));
        let typed = json!({"e": {"type": "object", "x-kubernetes-embedded-resource": true,
            "x-kubernetes-preserve-unknown-fields": true,
            "properties": {"apiVersion": {"type": "string", "default": "v1"},
                "kind": {"type": "string", "default": "K"}}}});
        assert!(!refused(typed, json!({"e": {}})));
        let bytes = json!({"b": {"type": "string", "format": "byte"}});
        assert!(refused(bytes, json!({"b": [{"a": 1}]})));
        let embedded = |metadata: Json| {
            json!({"e": {"type": "object",
            "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true,
            "properties": {"metadata": metadata}}})
        };
        let short = embedded(
            json!({"type": "object", "properties": {"name": {"type": "string", "maxLength": 3}}}),
        );
        let resource =
            |metadata: Json| json!({"e": {"apiVersion": "v1", "kind": "K", "metadata": metadata}});
        assert!(refused(short.clone(), resource(json!({"name": "abcd"}))));
        assert!(!refused(
            short,
            resource(json!({"name": "abc", "labels": {"a": "b"}}))
        ));
        let open = embedded(json!({"type": "object"}));
        for bad in [
            json!({"foo": 1}),
            json!({"managedFields": [{"operation": "Bogus"}]}),
            json!({"ownerReferences": [
                {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u", "controller": true},
                {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u", "controller": true}]}),
        ] {
            assert!(refused(open.clone(), resource(bad.clone())), "{bad}");
        }
        let raw = json!({"managedFields": [{"operation": "Apply", "fieldsV1": "x"}]});
        assert!(!refused(open, resource(raw)));
    }

    /// The defaults a resource gets stop at a budget: a small default
    /// under a long list of objects does not multiply the input.
    #[test]
    fn defaults_filled_in_stop_at_a_budget() {
        let schema = json!({"type": "array", "items": {"type": "object",
            "properties": {"d": {"type": "object", "default": {"a": 1, "b": 2}}}}});
        let items = Json::Array(vec![json!({}); 10]);
        let mut budget = 9;
        let read = as_the_server_reads(&items, Some(&schema), &mut budget);
        let filled = read
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i.get("d").is_some())
            .count();
        assert_eq!((filled, budget), (3, 0));
    }

    /// A root default is a whole resource's; an embedded resource's
    /// `apiVersion` and `kind` defaults make a valid one, and its
    /// `metadata` default is held to the declared schema and ObjectMeta.
    #[test]
    fn the_resource_parts_of_defaults_are_held_as_a_resource_is() {
        let root = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "default": {"apiVersion": "a/v1"}});
        assert_eq!(refused_defaults(&root).len(), 1);
        let taken = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "default": {"apiVersion": "a/v1", "kind": "K"}});
        assert_eq!(refused_defaults(&taken), Vec::new());
        let typed = |apiversion: Json, metadata: Json| {
            json!({"type": "object", "properties": {"e": {
            "type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true,
            "properties": {"apiVersion": {"type": "string", "default": apiversion}, "metadata": metadata}}}})
        };
        let meta = |default: Json| json!({"type": "object", "properties": {"name": {"type": "string", "maxLength": 2}}, "default": default});
        assert_eq!(
            refused_defaults(&typed(json!("a/b/c"), meta(json!({})))).len(),
            1
        );
        assert_eq!(
            refused_defaults(&typed(json!("v1"), meta(json!({"name": "abc"})))).len(),
            1
        );
        assert_eq!(
            refused_defaults(&typed(
                json!("v1"),
                meta(json!({"labels": {"bad key!": "v"}}))
            ))
            .len(),
            1
        );
        assert_eq!(
            refused_defaults(&typed(json!("v1"), meta(json!({"name": "ab", "foo": 1})))),
            Vec::new()
        );
    }

    /// `k8s-short-name` and `k8s-long-name` are kept from Kubernetes 1.34
    /// on: a 1.33 server strips them, and judges nothing by them.
    #[test]
    fn the_kubernetes_name_formats_are_those_of_1_34_on() {
        let crd = widget_crd(json!({"name": {"type": "string", "format": "k8s-short-name"}}));
        let at = |version: &str| {
            let schemas = crate::kube::KubeSchemas::load(version).unwrap();
            check(
                &[&crd, &widget(json!({"name": "Not_A_Name"}))],
                &schemas,
                &[],
            )
            .len()
        };
        assert_eq!((at("1.33"), at("1.35")), (0, 1));
    }

    /// A default is held to the schema of its node as the API server
    /// holds it when it takes the CRD (each verdict a v1.35.4 server's).
    #[test]
    fn defaults_are_held_to_their_schema_as_written() {
        let refused = |x: Json| {
            let schema = json!({"type": "object", "properties": {"x": x}});
            refused_defaults(&schema)
                .into_iter()
                .map(|(path, why)| format!("{}: {why}", path.join(".")))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            refused(json!({"type": "integer", "default": "x"})),
            [
                r#"properties.x.default: the default "x" is refused by its own schema: "x" is not of type "integer""#
            ]
        );
        // Nothing is defaulted inside a default, and its nulls are kept.
        let child = json!({"type": "string", "default": "v"});
        let parent =
            json!({"type": "object", "default": {}, "required": ["a"], "properties": {"a": child}});
        assert_eq!(refused(parent).len(), 1);
        let nulls = json!({"type": "object", "default": {"a": null}, "properties": {"a": {"type": "string"}}});
        assert_eq!(refused(nulls).len(), 1);
        // Pruned members are refused; a default under a map's values, or a
        // null one, is not read; a list's duplicates are not looked for.
        let pruned =
            json!({"type": "object", "default": {"b": 1}, "properties": {"a": {"type": "string"}}});
        assert_eq!(refused(pruned).len(), 1);
        for taken in [
            json!({"type": "object", "additionalProperties": {"type": "integer", "default": "x"}}),
            json!({"type": "string", "default": null}),
            json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}, "default": ["a", "a"]}),
            // Any format loosens the type here, and an int-or-string has none.
            json!({"type": "boolean", "format": "foo", "default": "x"}),
            json!({"x-kubernetes-int-or-string": true, "default": 1.5}),
            json!({"type": "integer", "default": 3.0}),
        ] {
            assert_eq!(refused(taken.clone()), Vec::<String>::new(), "{taken}");
        }
        // An embedded resource's metadata, in its default or as one.
        let embedded = json!({"type": "object", "x-kubernetes-embedded-resource": true,
            "x-kubernetes-preserve-unknown-fields": true,
            "default": {"apiVersion": "v1", "kind": "K", "metadata": {"labels": {"bad key!": "v"}}}});
        let found = refused(embedded);
        assert!(found[0].contains("at metadata.labels"), "{found:?}");
        let meta = json!({"type": "object", "x-kubernetes-embedded-resource": true,
            "properties": {"metadata": {"type": "object", "default": {"generation": -1}}}});
        let found = refused(meta);
        assert!(
            found[0].starts_with(
                "properties.x.properties.metadata.default: must result in valid metadata"
            ),
            "{found:?}"
        );
    }

    /// A CRD's schema is Kubernetes' `JSONSchemaProps`, JSON Schema draft
    /// 4: `exclusiveMinimum: true` makes `minimum` exclusive (a later
    /// draft's meta-schema wanted a number there and called the schema one
    /// that does not compile), a whole number written as a float is an
    /// integer (as the API server's `integer` takes it; draft 4's would
    /// not), an int-or-string takes nothing else, and a `type` no draft has
    /// is still refused. A `format` the server keeps is its, not JSON
    /// Schema's: `date-time` takes a lowercase `t`.
    #[test]
    fn a_crd_schema_is_read_as_kubernetes_reads_it() {
        let bounded = widget_crd(json!({
            "count": {"type": "integer", "minimum": 0, "exclusiveMinimum": true,
                "maximum": 10, "exclusiveMaximum": true},
            "stamp": {"type": "string", "format": "date-time"},
        }));
        assert_eq!(
            crate::json::whole_number(&serde_json::Number::from_f64(1e16).unwrap()),
            Some(10_000_000_000_000_000_i64.into())
        );
        assert_eq!(
            crate::json::whole_number(&serde_json::Number::from_f64(1e19).unwrap()),
            None
        );
        for count in [json!(5), json!(5.0), json!(1e0)] {
            let spec = json!({"count": count, "stamp": "2024-01-31t10:00:00z"});
            assert_eq!(widget_verdicts(&bounded, spec), vec![], "{count}");
        }
        let verdicts = widget_verdicts(&bounded, json!({ "stamp": "not a date" }));
        assert!(
            matches!(&verdicts[..], [Verdict::Invalid(path, message, _)]
                if *path == "spec.stamp" && message == r#""not a date" is not a "date-time""#),
            "{verdicts:?}"
        );
        let verdicts = widget_verdicts(&bounded, json!({ "count": 5.5 }));
        assert!(
            matches!(&verdicts[..], [Verdict::Invalid(path, ..)] if *path == "spec.count"),
            "{verdicts:?}"
        );
        let port = widget_crd(json!({
            "port": {"x-kubernetes-int-or-string": true,
                "anyOf": [{"type": "integer"}, {"type": "string"}]},
            "loose": {"x-kubernetes-int-or-string": true},
        }));
        let spec = json!({"port": 8080, "loose": "http"});
        assert_eq!(widget_verdicts(&port, spec), vec![]);
        for spec in [json!({"port": true}), json!({"loose": {"a": 1}})] {
            let verdicts = widget_verdicts(&port, spec.clone());
            assert!(
                matches!(&verdicts[..], [Verdict::Invalid(..), ..]),
                "{spec}: {verdicts:?}"
            );
        }
        for count in [0, 10] {
            let verdicts = widget_verdicts(&bounded, json!({ "count": count }));
            assert!(
                matches!(&verdicts[..], [Verdict::Invalid(path, ..)] if *path == "spec.count"),
                "{count}: {verdicts:?}"
            );
        }
        let crd = widget_crd(json!({ "field": {"type": "strin"} }));
        let verdicts = widget_verdicts(&crd, json!({}));
        assert!(
            matches!(&verdicts[..], [Verdict::Uncompiled(message)] if message.contains("\"strin\"")),
            "{verdicts:?}"
        );
    }

    /// A null in a custom resource, as the API server reads it: dropped
    /// where the field is not `nullable` (so a required one is missing),
    /// the field's default where it has one, kept and accepted where it is
    /// `nullable`; a null array item is an item, and no string.
    #[test]
    fn a_null_in_a_custom_resource_is_dropped_defaulted_or_kept() {
        let mut crd = widget_crd(json!({
            "plain": {"type": "string"},
            "maybe": {"type": "string", "nullable": true},
            "defaulted": {"type": "integer", "default": 3},
            "list": {"type": "array", "items": {"type": "string"}},
            "nested": {"type": "object", "properties": {"inner": {"type": "string"}}},
        }));
        spec_required(&mut crd, json!(["maybe", "defaulted"]));
        let accepted =
            json!({"plain": null, "maybe": null, "defaulted": null, "nested": {"inner": null}});
        assert_eq!(widget_verdicts(&crd, accepted), vec![]);
        // Left out, a required field with a default is defaulted too.
        assert_eq!(widget_verdicts(&crd, json!({"maybe": null})), vec![]);
        for (spec, path, why) in [
            (
                json!({"maybe": "a", "defaulted": 1, "list": ["a", null]}),
                "spec.list[1]",
                "null",
            ),
            (
                json!({"maybe": "a", "defaulted": 1, "extra": null}),
                "spec",
                "extra",
            ),
        ] {
            let verdicts = widget_verdicts(&crd, spec.clone());
            assert!(
                matches!(&verdicts[..], [Verdict::Invalid(at, message, _)]
                    if *at == path && message.contains(why)),
                "{spec}: {verdicts:?}"
            );
        }
        // A null item takes the items' default; a nullable int-or-string
        // takes null, but a nullable enum does not.
        let mut crd = widget_crd(json!({
            "sizes": {"type": "array", "items": {"type": "integer", "default": 1}},
            "port": {"x-kubernetes-int-or-string": true, "nullable": true,
                "anyOf": [{"type": "integer"}, {"type": "string"}]},
            "mode": {"type": "string", "nullable": true, "enum": ["a", null]},
            "nothing": {"type": "string", "default": null},
            "plain": {"type": "string"},
        }));
        let spec = json!({"sizes": [2, null], "port": null, "nothing": "x"});
        assert_eq!(widget_verdicts(&crd, spec), vec![]);
        let verdicts = widget_verdicts(&crd, json!({"mode": null}));
        assert!(
            matches!(&verdicts[..], [Verdict::Invalid(at, ..)] if *at == "spec.mode"),
            "{verdicts:?}"
        );
        // A null default is no default: the field stays required.
        spec_required(&mut crd, json!(["nothing"]));
        let verdicts = widget_verdicts(&crd, json!({}));
        assert!(
            matches!(&verdicts[..], [Verdict::Invalid(_, message, _)] if message.contains("\"nothing\" is a required")),
            "{verdicts:?}"
        );
        spec_required(&mut crd, json!(["plain"]));
        let verdicts = widget_verdicts(&crd, json!({"plain": null}));
        assert!(
            matches!(&verdicts[..], [Verdict::Invalid(_, message, _)] if message.contains("\"plain\" is a required")),
            "{verdicts:?}"
        );
    }

    /// A pattern Go takes whose Unicode classes compile past the regex
    /// crate's usual limit is compiled larger (a v1.35.4 server took
    /// `^[\p{L}\p{N}]{0,63}$` and `abc`), once a run: past the run's
    /// budget of such patterns, or past their limit, a pattern judges
    /// nothing rather than refuse what Go takes.
    #[test]
    fn a_pattern_of_unicode_classes_compiles_as_go_takes_it() {
        let crd = widget_crd(json!({
            "name": {"type": "string", "pattern": r"^[\p{L}\p{N}]{0,63}$"},
        }));
        assert_eq!(widget_verdicts(&crd, json!({"name": "abc\u{e9}9"})), vec![]);
        let verdicts = widget_verdicts(&crd, json!({"name": "a b"}));
        assert!(
            matches!(&verdicts[..], [Verdict::Invalid(at, ..)] if *at == "spec.name"),
            "{verdicts:?}"
        );
        let mut large = LargePatterns {
            compiled: HashMap::new(),
            limit: LARGE_PATTERN_SIZE_LIMIT,
            budget: 1,
        };
        let first = large.get(r"^\p{L}{0,63}$").expect("within the limit");
        assert!(first.is_match("abc") && !first.is_match("1"));
        // Asked again, the same; another past the budget judges nothing.
        assert!(large.get(r"^\p{L}{0,63}$").is_some());
        assert!(large.get(r"^\p{N}{0,63}$").is_none());
        large.budget = 8;
        large.limit = 1 << 21;
        assert!(large.get(r"^\p{L}{100}$").is_none());
    }

    /// A custom resource reports its first findings and says more were
    /// left out: a schema requiring many fields over a list of many items
    /// is not a million findings.
    #[test]
    fn a_custom_resources_findings_stop_at_a_limit() {
        let required: Vec<String> = (0..5).map(|i| format!("f{i}")).collect();
        let crd = widget_crd(json!({
            "items": {"type": "array", "items": {"type": "object", "required": required}},
        }));
        let verdicts = widget_verdicts(&crd, json!({"items": vec![json!({}); 40]}));
        assert_eq!(verdicts.len(), RESOURCE_FINDINGS + 1);
        assert!(
            matches!(verdicts.last(), Some(Verdict::Invalid(at, message, None))
                if at.is_root() && message.contains("more problems past these first 100")),
            "{:?}",
            verdicts.last()
        );
        // Just within the limit, every finding and no note.
        let verdicts = widget_verdicts(&crd, json!({"items": vec![json!({}); 20]}));
        assert_eq!(verdicts.len(), RESOURCE_FINDINGS);
    }

    /// An object missing many required names has the first few each
    /// named and the rest counted, so that a list of thousands of names
    /// over a list of many items is not millions of errors (a review made
    /// 1.4 GB of them from 38 KB).
    #[test]
    fn many_missing_names_are_named_a_few_and_counted() {
        let required: Vec<String> = (0..20).map(|i| format!("f{i}")).collect();
        let crd = widget_crd(json!({
            "items": {"type": "array", "items": {"type": "object", "required": required}},
        }));
        let messages: Vec<String> = widget_verdicts(&crd, json!({"items": [{}]}))
            .into_iter()
            .map(|v| match v {
                Verdict::Invalid(path, message, _) => format!("{path}: {message}"),
                other => panic!("{other:?}"),
            })
            .collect();
        let mut expected: Vec<String> = (0..8)
            .map(|i| format!("spec.items[0]: \"f{i}\" is a required property"))
            .collect();
        expected.push("spec.items[0]: and 12 more required properties are missing".to_owned());
        assert_eq!(messages, expected);
        // Inside `not`, the keyword agrees with itself: missing names pass.
        let crd = widget_crd(json!({"x": {"type": "object", "not": {"required": ["a"]},
            "properties": {"a": {"type": "integer"}}}}));
        assert_eq!(widget_verdicts(&crd, json!({"x": {}})), vec![]);
        assert_eq!(widget_verdicts(&crd, json!({"x": {"a": 1}})).len(), 1);
    }

    /// A null item of an array whose items are not `nullable` becomes
    /// their default, whatever its shape, and the copy is defaulted
    /// within (apiextensions' `Default` copies it, then defaults the
    /// copy), as a v1.35.4 server showed: an object or array default
    /// replaces the null the type check would refuse, and a `b` defaulted
    /// into the copy breaks its `maxProperties`. Without a default the
    /// null stays and is refused.
    #[test]
    fn a_null_item_becomes_its_items_default_of_any_shape() {
        let crd = widget_crd(json!({
            "whole": {"type": "array", "items": {"type": "object", "required": ["a", "b"],
                "default": {"a": "x", "b": 1},
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}},
            "within": {"type": "array", "items": {"type": "object", "maxProperties": 1,
                "default": {"a": "x"},
                "properties": {"a": {"type": "string"}, "b": {"type": "integer", "default": 2}}}},
            "lists": {"type": "array", "items": {"type": "array", "default": [1],
                "items": {"type": "integer"}}},
            "none": {"type": "array", "items": {"type": "object"}},
        }));
        let spec = json!({"whole": [null, {"a": "y", "b": 3}, null], "lists": [null, [2]]});
        assert_eq!(widget_verdicts(&crd, spec), vec![]);
        for (spec, path) in [
            (json!({"none": [null]}), "spec.none[0]"),
            (json!({"within": [null]}), "spec.within[0]"),
        ] {
            let verdicts = widget_verdicts(&crd, spec.clone());
            assert!(
                matches!(&verdicts[..], [Verdict::Invalid(at, ..)] if *at == path),
                "{spec}: {verdicts:?}"
            );
        }
        // Each copy is counted: past the budget, nulls stay nulls.
        let schema = json!({"type": "array", "items": {"type": "object", "default": {"a": 1}}});
        let mut budget = 5;
        let read = as_the_server_reads(&json!([null, null, null]), Some(&schema), &mut budget);
        assert_eq!(read, json!([{"a": 1}, {"a": 1}, null]));
        assert_eq!(budget, 0);
    }

    /// A required field with a default may be left out: the API server
    /// defaults it before it validates. One without a default may not,
    /// and a default does not excuse a wrong value.
    #[test]
    fn a_required_field_with_a_default_may_be_left_out() {
        let mut crd = widget_crd(json!({
            "size": {"type": "integer", "default": 3},
            "name": {"type": "string"},
        }));
        spec_required(&mut crd, json!(["size"]));
        assert_eq!(widget_verdicts(&crd, json!({})), vec![]);
        let verdicts = widget_verdicts(&crd, json!({"size": "big"}));
        assert!(
            matches!(&verdicts[..], [Verdict::Invalid(at, ..)] if *at == "spec.size"),
            "{verdicts:?}"
        );
        spec_required(&mut crd, json!(["size", "name"]));
        let verdicts = widget_verdicts(&crd, json!({}));
        assert!(
            matches!(&verdicts[..], [Verdict::Invalid(_, message, _)] if message.contains("\"name\" is a required")),
            "{verdicts:?}"
        );
    }

    fn spec_required(crd: &mut Json, required: Json) {
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["required"] =
            required;
    }

    /// What the custom resources' reading may change is found: a null
    /// anywhere, a whole number written as a float.
    #[test]
    fn the_scan_finds_what_the_reading_changes() {
        assert!(to_read(&json!({"a": [{"b": null}]})));
        assert!(to_read(&json!([1, [null]])));
        for (value, to_read) in [
            (json!({"a": 1.0}), true),
            (json!({"a": [1e7]}), true),
            (json!({"a": 1.5}), false),
            (json!({"a": 1, "b": "1.0", "c": [true]}), false),
        ] {
            assert_eq!(super::to_read(&value), to_read, "{value}");
        }
    }

    /// A `required` of any length gives the same verdicts (each missing
    /// name, none for a name with a default, none for a null where the
    /// node is nullable), and a CRD of thousands of required fields
    /// compiles at once (it was quadratic in the engine; BENCHMARKS.md).
    #[test]
    fn a_long_required_list_gives_the_same_verdicts() {
        for count in [9, 65, 5_000] {
            let mut properties = serde_json::Map::new();
            let mut spec = serde_json::Map::new();
            for n in 0..count {
                properties.insert(format!("p{n}"), json!({"type": "integer"}));
                spec.insert(format!("p{n}"), json!(n));
            }
            properties.insert("d".into(), json!({"type": "integer", "default": 1}));
            let mut required: Vec<Json> = (0..count).map(|n| json!(format!("p{n}"))).collect();
            required.push(json!("d"));
            let mut crd = widget_crd(Json::Object(properties));
            let node =
                &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
            node["required"] = Json::Array(required);
            node["nullable"] = json!(true);
            assert_eq!(
                widget_verdicts(&crd, Json::Object(spec.clone())),
                [],
                "{count}"
            );
            spec.remove("p7");
            spec.remove(&format!("p{}", count - 1));
            let missing: Vec<String> = (widget_verdicts(&crd, Json::Object(spec)).into_iter())
                .map(|v| match v {
                    Verdict::Invalid(path, message, _) => format!("{path}: {message}"),
                    other => panic!("{count}: {other:?}"),
                })
                .collect();
            assert_eq!(
                missing,
                [
                    "spec: \"p7\" is a required property".to_owned(),
                    format!("spec: \"p{}\" is a required property", count - 1)
                ],
                "{count}"
            );
            assert_eq!(widget_verdicts(&crd, Json::Null), [], "{count}");
        }
    }
}
