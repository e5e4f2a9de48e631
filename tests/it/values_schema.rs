//! The values schema baked at build time and its validator against
//! jsonschema compiling `schema/values.schema.json` at run time, as
//! `src/chart/schema.rs` did before: the same errors (instance path, message,
//! order) with the same per-branch errors of every `anyOf`/`oneOf`, which is
//! all `schema::validate` reads to make its problems, on every fixture, every
//! environment and a seeded corpus of mutations.

use std::path::Path;
use std::sync::LazyLock;

use chart::schema::{VALUES, VALUES_ROOT};
use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use kubernetes::kube::validator::{self, ErrorKind, SchemaError};
use kubernetes::location::KeyPath;
use kubernetes::location::{Origin, Source};
use kubernetes::yaml::{Limits, Node, parse_document};
use serde_json::{Value as Json, json};

use crate::corpus::{Rng, pointers};

/// One error as `schema::validate` reads it: where, the message (which
/// carries the kind and every field of it), and each branch's errors.
#[derive(Debug, PartialEq)]
struct Seen {
    path: KeyPath,
    message: String,
    context: Vec<Vec<Seen>>,
}

fn reference() -> &'static jsonschema::Validator {
    static VALIDATOR: LazyLock<jsonschema::Validator> = LazyLock::new(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/values.schema.json");
        let schema: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        jsonschema::validator_for(&schema).unwrap()
    });
    &VALIDATOR
}

fn seen_reference(error: &ValidationError<'_>) -> Seen {
    // Read as the Kubernetes differential test reads it: `iter()` drops a
    // member named "" (which `schema.rs` located at its parent before).
    let path = KeyPath::from_pointer(error.instance_path().as_str());
    let context = match error.kind() {
        ValidationErrorKind::AnyOf { context }
        | ValidationErrorKind::OneOfNotValid { context }
        | ValidationErrorKind::OneOfMultipleValid { context } => context
            .iter()
            .map(|branch| branch.iter().map(seen_reference).collect())
            .collect(),
        _ => Vec::new(),
    };
    Seen {
        path,
        message: error.to_string(),
        context,
    }
}

fn seen_baked(error: &SchemaError<'_>) -> Seen {
    let context = match &error.kind {
        ErrorKind::AnyOf { context }
        | ErrorKind::OneOfNotValid { context }
        | ErrorKind::OneOfMultipleValid { context } => context
            .iter()
            .map(|branch| branch.iter().map(seen_baked).collect())
            .collect(),
        _ => Vec::new(),
    };
    // jsonschema's path reads a member named like a number as an index (the
    // tree tells them apart, before as now); compared as it reads them.
    Seen {
        path: validator::as_pointer_reads(error.path.clone()),
        message: error.to_string(),
        context,
    }
}

/// Fails the test where the two validators differ on `instance`; returns how
/// many errors they agree on.
fn agree(instance: &Json, case: &str) -> usize {
    // As in kube_schemas: the baked validator's integers are 64-bit ones.
    let instance = &crate::corpus::within_64_bits(instance);
    let expected: Vec<Seen> = reference()
        .iter_errors(instance)
        .map(|e| seen_reference(&e))
        .collect();
    let actual: Vec<Seen> = VALUES
        .validate(VALUES_ROOT, instance)
        .iter()
        .map(seen_baked)
        .collect();
    assert_eq!(
        actual, expected,
        "{case}: baked (left) and jsonschema (right) differ on\n{instance}"
    );
    // The problems are made from these errors: they must not fail to be.
    let document = Node::from_json(instance, &Origin::Default);
    let problems = chart::schema::validate(&document, instance);
    // One problem comes on top of the schema's errors by design: JSON Schema
    // counts `3.0` as an integer, serde does not (`floats_for_integers`).
    let beyond_schema = |p: &kubernetes::diagnostic::Problem| {
        p.message.starts_with("expected integer, found number")
    };
    let only_floats = actual.is_empty() && problems.iter().all(beyond_schema);
    assert!(
        problems.is_empty() == actual.is_empty() || only_floats,
        "{case}: {problems:?}"
    );
    actual.len()
}

/// `file` merged over the defaults, as the values stage merges it.
fn merged(file: &Path) -> Option<Json> {
    let text = std::fs::read_to_string(file).ok()?;
    let source = Source::file(file.display().to_string(), text);
    let layer = parse_document(&source, Limits::VALUES).ok()??;
    let mut document = chart::values::defaults();
    // An append that cannot be made is refused before the schema.
    if !chart::values::merge(&mut document, layer).is_empty() {
        return None;
    }
    Some(document.to_json())
}

fn yaml_files(dir: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_fixture_and_environment_gets_the_errors_jsonschema_gives() {
    let mut errors = 0;
    let mut checked = 0;
    for file in yaml_files("tests/fixtures/validate")
        .into_iter()
        .chain(yaml_files("values"))
    {
        if let Some(instance) = merged(&file) {
            errors += agree(&instance, &file.display().to_string());
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} files read");
    assert!(errors >= 10, "the fixtures hold only {errors} errors");
}

/// Values to put where they do not belong: every JSON type, numbers out of
/// every range the schema sets, strings breaking every pattern and length,
/// near misses of every const.
fn odd_values() -> Vec<Json> {
    let long = "a".repeat(64);
    let longer = "1".repeat(129);
    vec![
        Json::Null,
        json!(true),
        json!(0),
        json!(-1),
        json!(1),
        json!(1.5),
        json!(3.0),
        json!(11),
        json!(21),
        json!(65),
        json!(65_536),
        json!(-0.5),
        json!(18_446_744_073_709_551_615_u64),
        json!(""),
        json!("x"),
        json!("X"),
        json!("-a"),
        json!(long),
        json!(longer),
        json!("250m"),
        json!("1.5.5"),
        json!("12Mb"),
        json!("1h30m"),
        json!("90x"),
        json!("sha256:abc"),
        json!(format!("sha256:{}", "a".repeat(64))),
        json!("Alwayz"),
        json!("always"),
        json!("IfNotPresent"),
        json!("Never"),
        json!("Info"),
        json!("nodeport"),
        json!("Issuer"),
        json!("ClusterIssuer"),
        json!([]),
        json!(["x", 1]),
        json!({}),
        json!({"zz": 1}),
        json!({"name": "x"}),
        json!({"cpu": "1", "memory": -1}),
    ]
}

const ODD_KEYS: &[&str] = &["zz", "0", "+7", "a/b", "~1", "", "é", "replica", "Name"];

/// `instance` with one to three mutations: a node replaced, removed, or an
/// unknown member added next to it.
fn mutate(rng: &mut Rng, instance: &Json, odd: &[Json]) -> Json {
    let mut mutated = instance.clone();
    for _ in 0..=rng.below(3) {
        let mut all = Vec::new();
        pointers(&mutated, "", &mut all);
        let pointer = rng.pick(&all).clone();
        let (parent, last) = pointer.rsplit_once('/').unwrap();
        match rng.below(5) {
            0..=2 => *mutated.pointer_mut(&pointer).unwrap() = rng.pick(odd).clone(),
            3 => match mutated.pointer_mut(parent).unwrap() {
                Json::Object(map) => {
                    map.remove(&last.replace("~1", "/").replace("~0", "~"));
                }
                Json::Array(items) => {
                    items.clear();
                }
                _ => {}
            },
            _ => {
                if let Some(Json::Object(map)) = mutated.pointer_mut(parent) {
                    let key = (*rng.pick(ODD_KEYS)).to_owned();
                    map.insert(key, rng.pick(odd).clone());
                }
            }
        }
    }
    mutated
}

/// 4,000 mutations under `CHARTGEN_SLOW=1` (as `.ci/run` sets it), 1,000
/// in plain `cargo test`.
#[test]
fn mutations_of_the_values_get_the_errors_jsonschema_gives() {
    let odd = odd_values();
    let bases: Vec<Json> = yaml_files("values")
        .iter()
        .filter_map(|file| merged(file))
        .collect();
    let mut rng = Rng(10);
    let mut kinds = std::collections::BTreeSet::new();
    for case in 0..crate::tools::cases(1000, 4000) as usize {
        let base = &bases[case % bases.len()];
        let instance = mutate(&mut rng, base, &odd);
        agree(&instance, &format!("case {case}"));
        for error in VALUES.validate(VALUES_ROOT, &instance) {
            collect_kinds(&error, &mut kinds);
        }
    }
    // The corpus reaches every kind of error the values schema can give.
    let expected = [
        "AdditionalProperties",
        "AnyOf",
        "Constant",
        "MaxLength",
        "Maximum",
        "MinLength",
        "Minimum",
        "OneOfNotValid",
        "Pattern",
        "Required",
        "Type",
    ];
    let kinds: Vec<&str> = kinds.into_iter().collect();
    assert_eq!(kinds, expected);
}

fn collect_kinds(error: &SchemaError<'_>, kinds: &mut std::collections::BTreeSet<&'static str>) {
    let (name, context) = match &error.kind {
        ErrorKind::AdditionalProperties { .. } => ("AdditionalProperties", None),
        ErrorKind::AnyOf { context } => ("AnyOf", Some(context)),
        ErrorKind::Constant { .. } => ("Constant", None),
        ErrorKind::Enum { .. } => ("Enum", None),
        ErrorKind::MaxLength { .. } => ("MaxLength", None),
        ErrorKind::Maximum { .. } => ("Maximum", None),
        ErrorKind::MinLength { .. } => ("MinLength", None),
        ErrorKind::Minimum { .. } => ("Minimum", None),
        ErrorKind::OneOfNotValid { context } => ("OneOfNotValid", Some(context)),
        ErrorKind::OneOfMultipleValid { context } => ("OneOfMultipleValid", Some(context)),
        ErrorKind::Pattern { .. } => ("Pattern", None),
        ErrorKind::Required { .. } => ("Required", None),
        ErrorKind::Type { .. } => ("Type", None),
    };
    kinds.insert(name);
    for error in context.into_iter().flatten().flatten() {
        collect_kinds(error, kinds);
    }
}
