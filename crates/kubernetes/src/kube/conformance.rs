//! Every object of a set against its schema, strictly: built-in kinds (and
//! cert-manager's Certificate) against the baked schemas of one Kubernetes
//! version, custom resources against the `openAPIV3Schema` of a CRD in the
//! set or given besides it. An object of a kind with no schema is a
//! verdict of its own, never a silent pass.
//!
//! [`check`] only judges: each [`Verdict`] names the object by its index
//! and says what is wrong in data, so a caller words and ranks it as its
//! own findings (and names its own flags in a hint).

use std::collections::{BTreeMap, HashMap, HashSet};

use jsonschema::Validator;
use serde_json::Value as Json;

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

/// How a CRD's `openAPIV3Schema` is compiled: as JSON Schema draft 4,
/// the dialect of Kubernetes' `JSONSchemaProps` (OpenAPI 3.0's schema
/// object), where `exclusiveMinimum` and `exclusiveMaximum` are booleans
/// beside `minimum` and `maximum`. A later draft's meta-schema wants
/// numbers there and would call a schema the API server accepts one that
/// does not compile. The engine's `format` is not checked (draft 4 would
/// check it by JSON Schema's definitions of the formats): a format the
/// server keeps is judged by chartgen's keyword, as go-openapi judges it
/// (`go_formats`); patterns compile as the API server's do.
fn crd_schema_options() -> jsonschema::ValidationOptions<'static> {
    let options = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .should_validate_formats(false)
        .with_pattern_options(super::pattern_engine())
        .with_keyword(GO_PATTERN, go_pattern)
        .with_keyword(REQUIRED, |_, value, _| {
            let names = (value.as_array().into_iter().flatten())
                .filter_map(|name| Some(name.as_str()?.to_owned()))
                .collect();
            Ok(Box::new(Required(names)))
        });
    super::go_formats::keyword(super::go_numbers::keywords(options))
}

/// The keyword a CRD schema's `required` is judged by ([`tighten`] puts
/// it there): the engine's, but for an object that misses many names,
/// whose first [`MISSING_NAMED`] are each an error and the rest one more.
/// The engine collects every error before the first is read, so a list of
/// thousands of names over a list of many items made millions of them.
const REQUIRED: &str = "x-chartgen-required";

/// How many missing names of one object are each an error of their own.
const MISSING_NAMED: usize = 8;

/// A compiled [`REQUIRED`]: its names.
struct Required(Vec<String>);

impl Required {
    fn missing<'n>(
        &'n self,
        object: &'n serde_json::Map<String, Json>,
    ) -> impl Iterator<Item = &'n String> {
        self.0.iter().filter(|name| !object.contains_key(*name))
    }
}

impl<'i> jsonschema::Keyword<'i> for Required {
    fn validate(&self, instance: &'i Json) -> Result<(), jsonschema::ValidationError<'i>> {
        match self.iter_errors(instance).next() {
            None => Ok(()),
            Some(error) => Err(error),
        }
    }

    fn iter_errors(
        &self,
        instance: &'i Json,
    ) -> Box<dyn Iterator<Item = jsonschema::ValidationError<'i>> + 'i> {
        // Most objects miss nothing: no list is made for them.
        let Some(object) = instance
            .as_object()
            .filter(|o| self.missing(o).next().is_some())
        else {
            return Box::new(std::iter::empty());
        };
        let mut errors = Vec::new();
        let mut missing = self.missing(object);
        for name in missing.by_ref().take(MISSING_NAMED) {
            errors.push(jsonschema::ValidationError::custom(format!(
                "{} is a required property",
                Json::String(name.clone())
            )));
        }
        let more = missing.count();
        if more > 0 {
            errors.push(jsonschema::ValidationError::custom(format!(
                "and {more} more required properties are missing"
            )));
        }
        Box::new(errors.into_iter())
    }

    fn is_valid(&self, instance: &'i Json) -> bool {
        instance
            .as_object()
            .is_none_or(|object| self.missing(object).next().is_none())
    }
}

/// The keyword a CRD schema's `pattern` is judged by ([`strict`] renames
/// it): the engine reads `pattern` as ECMA-262 (no `(?i)`, Unicode `\s`,
/// a `.` that stops at `\r`), where the API server reads it as Go's
/// `regexp`.
const GO_PATTERN: &str = "x-chartgen-go-pattern";

/// Compiles a [`GO_PATTERN`]: Go's syntax read in the regex crate's
/// ([`crate::regexp::read`]: Go's ASCII classes and word boundary, its
/// octal escapes, group names and flags), within the engine's size
/// limits. One Go refuses does not compile, and the schema with it.
fn go_pattern<'a>(
    _: &'a serde_json::Map<String, Json>,
    value: &'a Json,
    _: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> jsonschema::Keyword<'i>>, jsonschema::ValidationError<'a>> {
    let pattern = value.as_str().unwrap_or_default();
    let refused = |why: String| {
        jsonschema::ValidationError::custom(format!(
            "the pattern {value} does not compile as Go's regexp compiles it: {why}"
        ))
    };
    let read = crate::regexp::read(pattern).map_err(refused)?;
    let matcher = match compile_go_pattern(&read, super::PATTERN_SIZE_LIMIT) {
        Err(regex::Error::CompiledTooBig(_)) => Matcher::Large(read, std::sync::OnceLock::new()),
        compiled => Matcher::Compiled(compiled.map_err(|e| refused(e.to_string()))?),
    };
    Ok(Box::new(GoPattern {
        matcher,
        pattern: pattern.to_owned(),
    }))
}

/// `read` compiled by the regex crate, its program at most `limit` bytes.
fn compile_go_pattern(read: &str, limit: usize) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(read)
        .size_limit(limit)
        .dfa_size_limit(super::PATTERN_SIZE_LIMIT)
        .build()
}

/// The most bytes a pattern Go takes may compile into when
/// [`super::PATTERN_SIZE_LIMIT`] is too few: Go counts a class as one
/// instruction, the regex crate as the UTF-8 automaton of its ranges
/// (`^[\p{L}\p{N}]{0,63}$` is about 20,000 states). Go bounds a
/// repeat's count, nested repeats' product included, at 1,000
/// ([`crate::regexp::read`]), and `[\p{L}\p{N}]{1000}` compiles within
/// this.
const LARGE_PATTERN_SIZE_LIMIT: usize = 64 << 20;

/// How many patterns a run compiles past [`super::PATTERN_SIZE_LIMIT`]
/// (each about a tenth of a second and up to
/// [`LARGE_PATTERN_SIZE_LIMIT`]), the first a value is matched against:
/// a hostile CRD's patterns cannot cost more than these.
const LARGE_PATTERNS: usize = 8;

/// A pattern Go takes whose program passes [`super::PATTERN_SIZE_LIMIT`]
/// in the regex crate, compiled once a run ([`LargePatterns`]), when a
/// value is first matched against it. A schema compiles its patterns each
/// time it is built (a CRD's defaults build parts of it again), hence
/// the cache.
fn large_go_pattern(read: &str) -> Option<regex::Regex> {
    use std::sync::{Mutex, PoisonError};
    static COMPILED: Mutex<Option<LargePatterns>> = Mutex::new(None);
    let mut compiled = COMPILED.lock().unwrap_or_else(PoisonError::into_inner);
    let compiled = compiled.get_or_insert_with(|| LargePatterns {
        compiled: HashMap::new(),
        limit: LARGE_PATTERN_SIZE_LIMIT,
        budget: LARGE_PATTERNS,
    });
    compiled.get(read)
}

/// The large patterns of a run, each compiled within `limit` bytes while
/// `budget` patterns last; `None` (the pattern judges nothing) past
/// either, as chartgen cannot match it and Go would not refuse it.
struct LargePatterns {
    compiled: HashMap<String, Option<regex::Regex>>,
    limit: usize,
    budget: usize,
}

impl LargePatterns {
    fn get(&mut self, read: &str) -> Option<regex::Regex> {
        if let Some(regex) = self.compiled.get(read) {
            return regex.clone();
        }
        let regex = (self.compiled.len() < self.budget)
            .then(|| compile_go_pattern(read, self.limit).ok())
            .flatten();
        self.compiled.insert(read.to_owned(), regex.clone());
        regex
    }
}

/// A compiled [`GO_PATTERN`]: a string that does not match is refused in
/// the words the engine's `pattern` uses; any other value passes, and
/// every value where the pattern is too large to judge
/// ([`LargePatterns`]), which [`judge`] reports ([`Verdict::Unjudged`]).
struct GoPattern {
    matcher: Matcher,
    pattern: String,
}

/// A pattern's regex: compiled within the usual limit, or a large one
/// (its text as the regex crate reads it) compiled on its first match.
enum Matcher {
    Compiled(regex::Regex),
    Large(String, std::sync::OnceLock<Option<regex::Regex>>),
}

std::thread_local! {
    /// Whether this thread matched a value against a pattern too large to
    /// judge since [`judge`] last asked.
    static UNJUDGED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl<'i> jsonschema::Keyword<'i> for GoPattern {
    fn validate(&self, instance: &'i Json) -> Result<(), jsonschema::ValidationError<'i>> {
        match self.is_valid(instance) {
            true => Ok(()),
            false => Err(jsonschema::ValidationError::custom(format!(
                r#"{instance} does not match "{}""#,
                crate::text::clip(&self.pattern, 200)
            ))),
        }
    }

    fn is_valid(&self, instance: &'i Json) -> bool {
        let Some(text) = instance.as_str() else {
            return true;
        };
        let regex = match &self.matcher {
            Matcher::Compiled(regex) => Some(regex),
            Matcher::Large(read, compiled) => {
                compiled.get_or_init(|| large_go_pattern(read)).as_ref()
            }
        };
        match regex {
            Some(regex) => regex.is_match(text),
            None => {
                UNJUDGED.set(true);
                true
            }
        }
    }
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
            "a pattern of its CRD's schema compiles past what chartgen matches ({} MiB, or past {LARGE_PATTERNS} such patterns a run): its strings were not matched against it",
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

/// `metadata` (an object) read into ObjectMeta as the built-in kinds'
/// schemas read it, paths from the object (`metadata.…`). Judged through
/// a ConfigMap of that metadata alone, whose other fields are all
/// optional.
fn read_as_object_meta(metadata: &Json, schemas: &KubeSchemas) -> Vec<super::Violation> {
    let alone = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata});
    let read = super::as_validated(&alone, schemas);
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
fn embedded_metadata(
    metadata: &Json,
    at: &KeyPath,
    (reading, schemas): (Reading, &KubeSchemas),
) -> Vec<super::Violation> {
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
    let undecodable: Vec<super::Violation> = (read_as_object_meta(metadata, schemas).into_iter())
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
fn beside_the_schema(
    schema: &Json,
    object: &Json,
    reading: Reading,
    schemas: &KubeSchemas,
) -> Vec<super::Violation> {
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

/// The Kubernetes minor version defaults are judged at: the newest
/// chartgen targets (where they are judged, the server's version is not
/// known; only the formats it keeps depend on it).
const DEFAULTS_MINOR: u32 = 35;

/// The most findings reported for one default: the first of its
/// problems say it is refused.
const DEFAULT_FINDINGS: usize = 3;

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
fn object_meta_refusal(default: &Json) -> Option<String> {
    let schemas = KubeSchemas::load(super::DEFAULT_VERSION).ok()?;
    let problems = embedded_metadata(default, &KeyPath::root(), (Reading::Default, &schemas));
    let (at, why, _) = problems.into_iter().next()?;
    Some(format!("must result in valid metadata: {at}: {why}"))
}

/// `node` with the extension `flag` set.
fn with_flag(node: &Json, flag: &str) -> Json {
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
fn type_meta_refusal(name: &str, default: &Json) -> Option<String> {
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
        "kind" => crate::names::dns1035_label(&text.to_lowercase())
            .err()
            .map(|why| format!("`{text}` may have mixed case, but should otherwise match: {why}")),
        _ => None,
    }
}

/// Why the API server refuses `default` against `node`, its schema: the
/// first [`DEFAULT_FINDINGS`] problems, each at its place in the default.
fn default_refusals(node: &Json, default: &Json) -> Vec<String> {
    // Only what the default reaches is compiled: a default in each of a
    // deep schema's levels costs its own size, not its subtree's.
    let schema = strict(&reached(node, &[default]), Reading::Default, DEFAULTS_MINOR);
    let Ok(validator) = crd_schema_options().build(&schema) else {
        return Vec::new();
    };
    let written = default.to_string();
    let shown = crate::text::clip(&written, 80);
    let Ok(schemas) = KubeSchemas::load(super::DEFAULT_VERSION) else {
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
fn reached(schema: &Json, values: &[&Json]) -> Json {
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

/// A CRD's structural schema with unknown fields made errors: the API server
/// prunes them silently, which for a rendered object means a typo.
///
/// The walk follows the schema's own structure (`properties`, `items`,
/// `additionalProperties`), never data such
/// as `default`, `enum` or `example`, and honours what the API server does:
/// `x-kubernetes-preserve-unknown-fields: true` keeps unknown fields at that
/// node, `x-kubernetes-embedded-resource: true` accepts `apiVersion`, `kind`
/// and `metadata` there, and the root's `metadata` is checked as ObjectMeta.
/// A `nullable: true` node takes null besides its `type`, as the API server
/// keeps and accepts a null there; a field with a `default` is not
/// required, as the API server defaults it before it validates.
fn strict(schema: &Json, reading: Reading, minor: u32) -> Json {
    let mut schema = schema.clone();
    tighten(&mut schema, reading == Reading::Object, reading);
    if let Some(root) = schema.as_object_mut() {
        let definitions = root
            .entry("definitions")
            .or_insert_with(|| serde_json::json!({}));
        if let Some(definitions) = definitions.as_object_mut() {
            definitions.insert(
                PRUNED.into(),
                serde_json::json!({
                    "properties": {},
                    "additionalProperties": false,
                    "items": {"$ref": PRUNED_REF},
                }),
            );
        }
    }
    go_keywords(&mut schema, reading, minor);
    schema
}

/// Every `pattern` of a schema, value validations included, renamed
/// [`GO_PATTERN`]: judged as Go reads it. One Go refuses (an `API` finding
/// on the CRD) makes the schema not compile. The numeric keywords and an
/// `integer` type likewise, judged as go-openapi judges them
/// ([`super::go_numbers`]). Follows the schema's own structure only, never
/// data such as `default` or `enum`.
fn go_keywords(schema: &mut Json, reading: Reading, minor: u32) {
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        let Some(object) = node.as_object_mut() else {
            continue;
        };
        if let Some(pattern) = object.remove("pattern") {
            object.insert(GO_PATTERN.into(), pattern);
        }
        super::go_formats::mark(object, minor);
        super::go_numbers::rename(object, reading == Reading::Default, minor);
        for (key, value) in object.iter_mut() {
            match (key.as_str(), value) {
                ("properties", Json::Object(properties)) => stack.extend(properties.values_mut()),
                (
                    "items" | "additionalProperties" | "not" | "allOf" | "anyOf" | "oneOf",
                    Json::Array(schemas),
                ) => stack.extend(schemas.iter_mut()),
                ("items" | "additionalProperties" | "not", value) => stack.push(value),
                _ => {}
            }
        }
    }
}

/// A `nullable: true` node as the API server judges a null there: its
/// type takes null, and the checks a null would fail beside the type
/// (`anyOf`, `oneOf`, `allOf`, `not`) are only asked of other values; its
/// `enum` still refuses a null (the server matches no null against one).
fn nullable(object: &mut serde_json::Map<String, Json>) {
    match object.get("type") {
        Some(Json::String(kind)) => {
            let kind = kind.clone();
            object.insert("type".into(), serde_json::json!([kind, "null"]));
        }
        Some(Json::Array(kinds)) if !kinds.contains(&Json::from("null")) => {
            let mut kinds = kinds.clone();
            kinds.push("null".into());
            object.insert("type".into(), Json::Array(kinds));
        }
        _ => {}
    }
    if let Some(Json::Array(values)) = object.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    let combined: serde_json::Map<String, Json> = ["anyOf", "oneOf", "allOf", "not"]
        .into_iter()
        .filter_map(|key| Some((key.to_owned(), object.remove(key)?)))
        .collect();
    if !combined.is_empty() {
        object.insert(
            "anyOf".into(),
            serde_json::json!([{"type": "null"}, combined]),
        );
    }
}

/// What the API server keeps of a value that no schema describes (the
/// values of `additionalProperties: true`): no member of any object, in
/// arrays too. A definition of the strict schema's root.
const PRUNED: &str = "x-chartgen-pruned";

/// A reference to [`PRUNED`].
const PRUNED_REF: &str = "#/definitions/x-chartgen-pruned";

/// What a strict schema judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reading {
    /// A custom resource, as the API server decodes and defaults it.
    Object,
    /// A `default` of the schema, as written: the server judges it
    /// against the node it stands on with nothing defaulted inside it (a
    /// required member is required even where it has a default of its
    /// own) and an int-or-string of any type (the schema it builds for a
    /// default gives it none).
    Default,
}

/// Makes one schema node (and the schemas below it) strict; `resource`
/// when the node is a whole object of the API (the root, or embedded).
fn tighten(node: &mut Json, resource: bool, reading: Reading) {
    let Some(object) = node.as_object_mut() else {
        return;
    };
    let flag = |object: &serde_json::Map<String, Json>, key: &str| {
        object.get(key) == Some(&Json::Bool(true))
    };
    let resource = resource || flag(object, "x-kubernetes-embedded-resource");
    let preserve = flag(object, "x-kubernetes-preserve-unknown-fields");
    // An int-or-string takes an integer or a string, whatever else the
    // node says (the API server gives it that type).
    if flag(object, "x-kubernetes-int-or-string")
        && !object.contains_key("type")
        && reading == Reading::Object
    {
        object.insert("type".into(), serde_json::json!(["integer", "string"]));
    }
    if flag(object, "nullable") {
        nullable(object);
    }
    // A required field with a `default` is never missing: the API server
    // puts the default there before it validates (and held the default to
    // the schema when it took the CRD). A null default is none.
    if matches!(object.get("required"), Some(Json::Array(_)))
        && let Some(Json::Array(mut required)) = object.remove("required")
    {
        let properties = object.get("properties");
        required.retain(|name| {
            let default = (name.as_str()).and_then(|name| properties?.get(name)?.get("default"));
            reading == Reading::Default || default.is_none_or(Json::is_null)
        });
        // Draft 4 wants at least one name there. A list of more names
        // than an object's errors may name is chartgen's keyword, which
        // names a few and counts the rest ([`REQUIRED`]); the engine's
        // also compared the `required` of a closed object with its
        // properties name by name, quadratic in a list of thousands. A
        // short one stays the engine's, which it fuses with the object's
        // other keywords.
        if required.len() > MISSING_NAMED {
            object.insert(REQUIRED.into(), Json::Array(required));
        } else if !required.is_empty() {
            object.insert("required".into(), Json::Array(required));
        }
    }
    // An embedded resource (not the root) needs its apiVersion and kind,
    // strings that are not empty: a group version, and a DNS-1035 label in
    // any case (`validateEmbeddedResource`; its metadata is not read here).
    if flag(object, "x-kubernetes-embedded-resource") {
        let asked = serde_json::json!({
            "required": ["apiVersion", "kind"],
            "properties": {
                "apiVersion": {"type": "string", "minLength": 1, "pattern": "^[^/]*(/[^/]*)?$"},
                "kind": {"type": "string", "minLength": 1, "maxLength": 63,
                    "pattern": "^[A-Za-z]([-A-Za-z0-9]*[A-Za-z0-9])?$"},
            },
        });
        match object.get_mut("allOf") {
            Some(Json::Array(all)) => all.push(asked),
            _ => {
                object.insert("allOf".into(), Json::Array(vec![asked]));
            }
        }
    }
    // A resource takes its apiVersion, kind and metadata, declared or not.
    if resource && !preserve && !object.contains_key("properties") {
        object.insert("properties".into(), Json::Object(serde_json::Map::new()));
    }
    // The API server prunes what a map value's schema does not declare:
    // under `additionalProperties: true` or `{}` that is every member of
    // every object inside (it walks a missing schema down arrays too).
    if matches!(object.get("additionalProperties"), Some(Json::Bool(true)))
        || object
            .get("additionalProperties")
            .is_some_and(|a| a.as_object().is_some_and(serde_json::Map::is_empty))
    {
        object.insert(
            "additionalProperties".into(),
            serde_json::json!({ "$ref": PRUNED_REF }),
        );
    }
    if let Some(properties) = object.get_mut("properties").and_then(Json::as_object_mut) {
        for (name, property) in properties.iter_mut() {
            if resource && name == "metadata" {
                // The API server reads metadata as ObjectMeta, and holds
                // it to what the CRD declares of it besides: open, with
                // the declared keywords kept.
                if let Some(declared) = property.as_object_mut() {
                    declared.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
                    declared.insert("type".into(), "object".into());
                }
                tighten(property, false, reading);
            } else {
                tighten(property, false, reading);
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
    // What the node does not declare the API server prunes, with or
    // without `properties` (`type: object` alone keeps no member).
    if !preserve && !object.contains_key("additionalProperties") {
        // With `properties` beside it, however empty, the engine names each
        // member it refuses (one finding a field, at its key).
        if !object.contains_key("properties") {
            object.insert("properties".into(), Json::Object(serde_json::Map::new()));
        }
        object.insert("additionalProperties".into(), Json::Bool(false));
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = object.get_mut(key) {
            match child {
                Json::Array(schemas) => schemas.iter_mut().for_each(|s| tighten(s, false, reading)),
                child => tighten(child, false, reading),
            }
        }
    }
    // An array where no `items` says what it holds (beside a format that
    // lets one through, an int-or-string, no type) keeps no member of an
    // object in it: the server prunes them. (Where the type refuses an
    // array, nothing is added.)
    let arrays = match object.get("type") {
        None => true,
        Some(kind) => {
            let numeric = |k: &Json| k == "integer" || k == "number";
            let typed = kind
                .as_array()
                .map_or(vec![kind], |kinds| kinds.iter().collect());
            !typed.iter().any(|k| numeric(k)) && super::go_formats::kept(object, 35).is_some()
        }
    };
    if arrays && !preserve && !object.contains_key("items") {
        object.insert("items".into(), serde_json::json!({ "$ref": PRUNED_REF }));
    }
    // `allOf`, `anyOf`, `oneOf` and `not` only add value checks to fields the
    // node declares (a structural schema's rule): left as they are, since
    // closing one of them would refuse the node's other fields.
}

/// Whether [`as_the_server_reads`] may change `value`: it holds a null
/// member or item, or a whole number written with a fraction or an
/// exponent.
fn to_read(value: &Json) -> bool {
    match value {
        Json::Object(map) => map.values().any(to_read),
        Json::Array(items) => items.iter().any(to_read),
        Json::Null => true,
        Json::Number(n) => whole(n).is_some(),
        Json::Bool(_) | Json::String(_) => false,
    }
}

/// A number written as a float (`1.0`, `1e+07`) whose value is a whole
/// number an int64 holds: as an integer. The API server's `integer` takes
/// it (kubectl and Helm send it as one); draft 4's `integer` would not.
pub(super) fn whole(n: &serde_json::Number) -> Option<serde_json::Number> {
    let f = n.as_f64().filter(|_| n.is_f64())?;
    crate::json::go_whole(f).map(serde_json::Number::from)
}

/// The most JSON values the defaults of one custom resource put in
/// ([`as_the_server_reads`]): past it, no more are (a small default under
/// a long list of objects would otherwise multiply the input).
const DEFAULTED_BUDGET: usize = 1 << 20;

/// Whether a default the API server fills in can change what `schema` (a
/// strict schema) says of a custom resource: the default is valid against
/// its own field (the server held it to it), and a required field with
/// one is not required here, so it matters only where a node counts or
/// matches its members whole (`minProperties`, `maxProperties`, `enum`,
/// the value validations `allOf`, `anyOf`, `oneOf`, `not`), on the field's
/// object or any object above it (`guarded`), or where it fills in an
/// embedded resource's `apiVersion` or `kind`.
fn defaults_matter(schema: &Json, guarded: bool) -> bool {
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
fn fits(value: &Json, budget: &mut usize) -> bool {
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
/// whole number written as a float is an integer ([`whole`]).
fn as_the_server_reads(value: &Json, schema: Option<&Json>, budget: &mut usize) -> Json {
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
        Json::Number(n) => whole(n).map_or_else(|| value.clone(), Json::Number),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

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
            whole(&serde_json::Number::from_f64(1e16).unwrap()),
            Some(10_000_000_000_000_000_i64.into())
        );
        assert_eq!(whole(&serde_json::Number::from_f64(1e19).unwrap()), None);
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

    /// A pattern too large to match passes every string and says so:
    /// [`judge_custom`] turns that into a note ([`Verdict::Unjudged`]), no
    /// refusal; a value that is no string has nothing to match.
    #[test]
    fn a_pattern_too_large_to_match_is_said_not_judged() {
        use jsonschema::Keyword as _;
        let pattern = GoPattern {
            matcher: Matcher::Large("x".to_owned(), std::sync::OnceLock::from(None)),
            pattern: "x".to_owned(),
        };
        UNJUDGED.set(false);
        assert!(pattern.is_valid(&json!(5)) && !UNJUDGED.take());
        assert!(pattern.is_valid(&json!("anything")) && UNJUDGED.take());
        assert!(pattern.validate(&json!("y")).is_ok() && UNJUDGED.take());
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
