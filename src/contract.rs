//! The versioned JSON output contract of `check`, `rbac`, `diff` and
//! `validate` (`--output json`): every document is one object whose first
//! key is `schemaVersion` ([`SCHEMA_VERSION`]), and whose shape is the
//! JSON Schema [`schema_text`] generates from the Rust output types
//! (committed in `schema/output/`, checked for freshness by `.ci/run`,
//! every object closed: `additionalProperties: false`).
//!
//! The promise (`docs/output.md`): a field added keeps the version; a field
//! removed or renamed, a type or meaning changed, bumps it.

use serde::Serialize;
use serde_json::{Value as Json, json};

use kubernetes::diagnostic::Diagnostic;
use kubernetes::rbac::resolve::Permissions;
use kubernetes::text::json_pretty;

/// The version of the JSON output contract, an integer: consumers compare
/// it with `==` (a breaking change is the only kind that changes it).
pub const SCHEMA_VERSION: u64 = 1;

/// The body of a document with `schemaVersion` before its own keys.
#[derive(Serialize)]
struct Versioned<'a, T: Serialize> {
    #[serde(rename = "schemaVersion")]
    schema_version: u64,
    #[serde(flatten)]
    body: &'a T,
}

/// `body` (a struct: its keys follow) as the pretty, escaped JSON text a
/// command prints ([`json_pretty`]), with `schemaVersion` first.
pub fn versioned<T: Serialize>(body: &T) -> serde_json::Result<String> {
    json_pretty(&Versioned {
        schema_version: SCHEMA_VERSION,
        body,
    })
}

/// `chartgen rbac --output json`: what each subject may do.
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(title = "chartgen rbac --output json")]
pub struct RbacOutput {
    /// Every subject a binding names, with its effective permissions.
    pub subjects: Vec<Permissions>,
}

/// `chartgen validate --output json`: whether the values are valid, and
/// every problem when they are not (the exit code is then 2).
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(title = "chartgen validate --output json")]
pub struct ValidateOutput {
    /// Whether the values passed the schema and the rules.
    pub valid: bool,
    /// The `-f` files, in the order given (`<stdin>` for `-f -`).
    pub files: Vec<String>,
    /// How many `KEY=VALUE` pairs the set flags (`--set`, `--set-string`,
    /// `--set-file`, `--set-json`) gave: `--set a=1,b=2` is two.
    pub sets: usize,
    /// Every problem, in input order; empty when valid.
    pub problems: Vec<Diagnostic>,
}

/// A JSON output whose schema is committed in `schema/output/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// `check --output json`: `schema/output/check.schema.json`.
    Check,
    /// `rbac --output json`: `schema/output/rbac.schema.json`.
    Rbac,
    /// `diff --output json`: `schema/output/diff.schema.json`.
    Diff,
    /// `validate --output json`: `schema/output/validate.schema.json`.
    Validate,
}

impl Output {
    /// Every output, in the order of `schema/output/`'s files.
    pub const ALL: [Output; 4] = [Output::Check, Output::Rbac, Output::Diff, Output::Validate];

    /// The command's name, and the file stem in `schema/output/`.
    pub fn name(self) -> &'static str {
        match self {
            Output::Check => "check",
            Output::Rbac => "rbac",
            Output::Diff => "diff",
            Output::Validate => "validate",
        }
    }

    /// What the document says, for its schema's description.
    fn describe(self) -> &'static str {
        match self {
            Output::Check => {
                "What `chartgen check` found: every finding, and what could not be verified \
                 (docs/output.md, docs/checks.md)."
            }
            Output::Rbac => {
                "What each subject may do and where, from the manifests' RBAC (docs/output.md)."
            }
            Output::Diff => {
                "What changes between two sets of manifests, with the impact summary \
                 (docs/output.md, docs/diff.md)."
            }
            Output::Validate => {
                "Whether the values are valid, with every problem when they are not \
                 (docs/output.md)."
            }
        }
    }
}

/// The JSON Schema of `output`'s document: generated from its Rust type
/// for what it serializes (a field skipped when empty is optional, the
/// others required), every object closed, `schemaVersion` added first.
pub fn schema(output: Output) -> Json {
    let settings = schemars::generate::SchemaSettings::draft2020_12().for_serialize();
    let generator = settings.into_generator();
    let root = match output {
        Output::Check => generator.into_root_schema_for::<chart::check::CheckReport>(),
        Output::Rbac => generator.into_root_schema_for::<RbacOutput>(),
        Output::Diff => generator.into_root_schema_for::<kubernetes::diff::Diff>(),
        Output::Validate => generator.into_root_schema_for::<ValidateOutput>(),
    };
    let mut schema = root.to_value();
    close(&mut schema);
    let object = schema.as_object_mut().expect("a root schema is an object");
    object.insert(
        "title".to_owned(),
        format!("chartgen {} --output json", output.name()).into(),
    );
    object.insert("description".to_owned(), output.describe().into());
    let mut properties = serde_json::Map::new();
    properties.insert(
        "schemaVersion".to_owned(),
        json!({
            "description": "The version of this contract: the same while fields are only added.",
            "const": SCHEMA_VERSION,
        }),
    );
    if let Some(Json::Object(rest)) = object.remove("properties") {
        properties.extend(rest);
    }
    object.insert("properties".to_owned(), properties.into());
    let required = object.entry("required").or_insert_with(|| json!([]));
    if let Json::Array(required) = required {
        required.insert(0, "schemaVersion".into());
    }
    // The keys in reading order: what it is, its fields, then definitions.
    let order = [
        "$schema",
        "title",
        "description",
        "type",
        "properties",
        "required",
        "additionalProperties",
    ];
    let mut sorted = serde_json::Map::new();
    for key in order {
        if let Some(value) = object.remove(key) {
            sorted.insert(key.to_owned(), value);
        }
    }
    sorted.append(object);
    sorted.into()
}

/// [`schema`] as the text committed in `schema/output/<name>.schema.json`.
pub fn schema_text(output: Output) -> String {
    let mut text =
        serde_json::to_string_pretty(&schema(output)).expect("a JSON value always serializes");
    text.push('\n');
    text
}

/// Every object schema with `properties` and no word on others gets
/// `additionalProperties: false`: a field added to an output type without
/// its schema regenerated fails the tests that validate against it.
fn close(schema: &mut Json) {
    match schema {
        Json::Object(object) => {
            if object.contains_key("properties") && !object.contains_key("additionalProperties") {
                object.insert("additionalProperties".to_owned(), false.into());
            }
            object.values_mut().for_each(close);
        }
        Json::Array(items) => items.iter_mut().for_each(close),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_comes_first_and_the_body_follows() {
        let body = RbacOutput {
            subjects: Vec::new(),
        };
        assert_eq!(
            versioned(&body).unwrap(),
            "{\n  \"schemaVersion\": 1,\n  \"subjects\": []\n}\n"
        );
    }

    #[test]
    fn every_schema_requires_the_version_and_closes_its_objects() {
        for output in Output::ALL {
            let schema = schema(output);
            assert_eq!(schema["required"][0], "schemaVersion", "{output:?}");
            assert_eq!(schema["properties"]["schemaVersion"]["const"], 1);
            assert_eq!(schema["additionalProperties"], false, "{output:?}");
        }
    }
}
