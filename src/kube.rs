//! Kubernetes object schemas: the vendored, strict JSON schemas of the kinds
//! the chart emits, per pinned Kubernetes version, plus cert-manager's
//! Certificate, compiled into the binary.
//!
//! Strict means unknown fields are errors: a misspelt field in a template is
//! caught here, not silently dropped by the API server.

use std::collections::BTreeMap;

use jsonschema::{Registry, Resource, Validator};
use serde_json::Value as Json;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/schemas.rs"));
}

/// The Kubernetes versions whose schemas are vendored, oldest first.
pub const VERSIONS: &[&str] = &["1.33", "1.35"];

/// The version checked when none is asked for.
pub const DEFAULT_VERSION: &str = "1.35";

/// Where the per-kind files `$ref` their shared definitions.
const DEFINITIONS_URI: &str = "https://kubernetes.io/api/_definitions.json";

/// `(apiVersion, kind)`, the key of a schema.
pub type Kind = (String, String);

/// Compiled validators of every vendored kind for one Kubernetes version.
pub struct KubeSchemas {
    validators: BTreeMap<Kind, Validator>,
}

impl KubeSchemas {
    /// The schemas of Kubernetes `version` (one of [`VERSIONS`]).
    pub fn load(version: &str) -> Result<Self, String> {
        if !VERSIONS.contains(&version) {
            return Err(format!(
                "no schemas for Kubernetes {version}; vendored: {}",
                VERSIONS.join(", ")
            ));
        }
        let dir = format!("kubernetes/v{version}.0/");
        let parse =
            |text: &str| serde_json::from_str::<Json>(text).expect("vendored schemas are JSON");
        let definitions = embedded::SCHEMA_FILES
            .iter()
            .find(|(path, _)| *path == format!("{dir}_definitions.json"))
            .map(|(_, text)| parse(text))
            .ok_or_else(|| format!("schema/{dir}_definitions.json is missing"))?;
        let registry = Registry::new()
            .add(DEFINITIONS_URI, Resource::from_contents(definitions))
            .and_then(|builder| builder.prepare())
            .map_err(|e| format!("cannot load the definitions of Kubernetes {version}: {e}"))?;
        let mut validators = BTreeMap::new();
        let kind_files = embedded::SCHEMA_FILES.iter().filter(|(path, _)| {
            (path.starts_with(&dir) && !path.ends_with("/_definitions.json"))
                || path.starts_with("cert-manager/")
        });
        for (path, text) in kind_files {
            let schema = parse(text);
            let key = kind_of(&schema).ok_or_else(|| format!("schema/{path} names no kind"))?;
            let validator = jsonschema::options()
                .with_pattern_options(pattern_engine())
                .with_registry(&registry)
                .build(&schema)
                .map_err(|e| format!("schema/{path} does not compile: {e}"))?;
            validators.insert(key, validator);
        }
        Ok(KubeSchemas { validators })
    }

    /// The kinds these schemas cover.
    pub fn kinds(&self) -> impl Iterator<Item = &Kind> {
        self.validators.keys()
    }

    /// Validates `object`; `None` when its kind has no schema here, else
    /// every violation with the path of the offending node.
    pub fn validate(&self, object: &Json) -> Option<Vec<(crate::diagnostic::KeyPath, String)>> {
        let api_version = object.get("apiVersion")?.as_str()?;
        let kind = object.get("kind")?.as_str()?;
        let validator = self
            .validators
            .get(&(api_version.to_owned(), kind.to_owned()))?;
        Some(
            validator
                .iter_errors(object)
                .map(|e| {
                    (
                        crate::diagnostic::KeyPath::from_pointer(e.instance_path().as_str()),
                        e.to_string(),
                    )
                })
                .collect(),
        )
    }
}

/// The `(apiVersion, kind)` a per-kind schema accepts.
fn kind_of(schema: &Json) -> Option<Kind> {
    let first = |field: &str| {
        schema
            .pointer(&format!("/properties/{field}/enum/0"))
            .and_then(Json::as_str)
            .map(str::to_owned)
    };
    Some((first("apiVersion")?, first("kind")?))
}

/// The regular expression engine of every Kubernetes and CRD schema: the
/// linear-time `regex` crate, as the API server's Go RE2 is, so a pattern
/// with backreferences or look-around does not compile (the API server
/// refuses it too) and no pattern can backtrack for seconds per value. The
/// size limit keeps a pattern such as `(a{1000}){1000}` from compiling into
/// megabytes.
pub fn pattern_engine() -> jsonschema::PatternOptions<jsonschema::Regex> {
    jsonschema::PatternOptions::regex()
        .size_limit(1 << 20)
        .dfa_size_limit(1 << 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vendored_version_loads_every_kind() {
        for version in VERSIONS {
            let schemas = KubeSchemas::load(version).unwrap();
            assert_eq!(schemas.kinds().count(), 17, "{version}");
        }
        assert!(KubeSchemas::load("1.20").is_err());
    }

    #[test]
    fn unknown_fields_are_errors() {
        let schemas = KubeSchemas::load(DEFAULT_VERSION).unwrap();
        let object = serde_json::json!({
            "apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "x", "labelz": {}},
        });
        let errors = schemas.validate(&object).unwrap();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].0.to_string(), "metadata", "{errors:?}");
        assert!(
            schemas
                .validate(&serde_json::json!({"apiVersion": "x/v1", "kind": "Y"}))
                .is_none()
        );
    }
}
