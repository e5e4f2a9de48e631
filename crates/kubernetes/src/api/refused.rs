//! Which objects the API server refuses on their own, and why: the two
//! readings of an object in the order the server applies them, its
//! schema ([`crate::kube::conformance`]: an unknown field, a wrong type, an
//! apiVersion not served) and then the rules of this module
//! ([`super::problems`], read as the server validates:
//! [`crate::kube::as_validated`]). Read by [`crate::rbac`] (a refused
//! role grants nothing) and by [`crate::diff`] (the apply of a refused
//! object fails).

use serde_json::Value as Json;

use crate::kube::KubeSchemas;
use crate::kube::conformance::{self, Unknown, Verdict};

/// Why the API server refuses one object: its first reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The object's index in the objects judged.
    pub index: usize,
    /// `path: message`, or what is not served.
    pub why: String,
    /// Set when the reason is that no schema has its kind: a CRD the
    /// cluster already holds may define it (the caller decides).
    pub unknown: Option<Unknown>,
}

/// A reason at `path`: the path first, but for the object's root (an
/// unknown top-level field), which has none to name.
fn at(path: &crate::location::KeyPath, message: &str) -> String {
    if path.is_root() {
        message.to_owned()
    } else {
        format!("{path}: {message}")
    }
}

/// The objects of `objects` the API server refuses, in input order, each
/// with its first reason. Custom resources are judged against the CRDs
/// among `objects` and in `crds` (what the cluster holds besides).
///
/// ```
/// use kubernetes::api::refused::refused;
/// use kubernetes::kube::{DEFAULT_VERSION, KubeSchemas};
///
/// let schemas = KubeSchemas::load(DEFAULT_VERSION).unwrap();
/// let typo = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
///     "metadata": {"name": "settings"}, "dta": {}});
/// let name = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
///     "metadata": {"name": "Settings"}});
/// let fine = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
///     "metadata": {"name": "settings"}});
/// let found = refused(&[&typo, &fine, &name], &schemas, &[]);
/// assert_eq!(found.iter().map(|r| r.index).collect::<Vec<_>>(), [0, 2]);
/// assert!(found[1].why.starts_with("metadata.name: "), "{}", found[1].why);
/// // A top-level field has no path to name.
/// assert!(found[0].why.starts_with("Additional properties are not allowed ('dta' was unexpected)"), "{}", found[0].why);
/// ```
pub fn refused(objects: &[&Json], schemas: &KubeSchemas, crds: &[Json]) -> Vec<Refusal> {
    let mut why: Vec<Option<Refusal>> = vec![None; objects.len()];
    for (index, verdict) in conformance::check(objects, schemas, crds) {
        let (reason, unknown) = match verdict {
            // Not verified is not refused.
            Verdict::Unjudged(_) => continue,
            Verdict::Invalid(path, message, _) => (at(&path, &message), None),
            Verdict::Unknown(unknown) => (
                format!("no {} {} is served", unknown.api_version, unknown.kind),
                Some(unknown),
            ),
            Verdict::Uncompiled(reason)
            | Verdict::ClaimTaken(reason)
            | Verdict::NotStored(reason) => (reason, None),
        };
        why[index].get_or_insert(Refusal {
            index,
            why: reason,
            unknown,
        });
    }
    // Read as the server validates it only where the schema passed; the
    // label and annotation keys found valid are remembered across objects.
    let read: Vec<Option<Json>> = (objects.iter().zip(&why))
        .map(|(object, why)| {
            why.is_none()
                .then(|| crate::kube::as_validated(object, schemas))
                .flatten()
        })
        .collect();
    let mut valid = super::ValidKeys::default();
    for (index, object) in objects.iter().enumerate() {
        if why[index].is_some() {
            continue;
        }
        let object = read[index].as_ref().unwrap_or(object);
        let kind = object
            .get("kind")
            .and_then(Json::as_str)
            .unwrap_or_default();
        let scope = crate::manifest::ObjectScope::of_kind(kind);
        if let Some((path, message)) = super::problems_remembering(object, scope, &mut valid)
            .into_iter()
            .next()
        {
            why[index] = Some(Refusal {
                index,
                why: at(&path, &message),
                unknown: None,
            });
        }
    }
    why.into_iter().flatten().collect()
}
