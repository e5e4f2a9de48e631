//! ObjectMeta's rules, as the API server's `ValidateObjectMeta` and
//! `validateEmbeddedResource` hold an object's `metadata` to them: label
//! and annotation keys and values and the annotations' size, finalizers,
//! owner references, managed fields, and an embedded resource's whole
//! metadata. Over a JSON value, below the server's reading (`kube`), which
//! judges a custom resource's embedded resources by them, and the API
//! rules (`api`), which judge every built-in object's.

use serde_json::Value as Json;

use crate::json::{Field, Found, each};
use crate::location::KeyPath;
use crate::names;

/// Label and annotation keys found valid by [`crate::api::problems_remembering`], so
/// that the objects of one run, which mostly carry the same few keys, have
/// each checked once. A key's validity depends on the key and on whether
/// it labels or annotates, nothing else: a key remembered is one the check
/// would pass again. Up to [`ValidKeys::REMEMBERED`] keys of each are
/// kept, so that a run over many distinct keys stays linear; a key not
/// remembered is checked.
#[derive(Debug, Default)]
pub struct ValidKeys<'a> {
    /// Valid label keys.
    labels: Vec<&'a str>,
    /// Valid annotation keys.
    annotations: Vec<&'a str>,
}

impl<'a> ValidKeys<'a> {
    /// How many keys of each are remembered at most.
    pub const REMEMBERED: usize = 32;

    /// The keys remembered for `field`, `labels` or `annotations`.
    fn of(&mut self, field: &str) -> &mut Vec<&'a str> {
        match field {
            "labels" => &mut self.labels,
            _ => &mut self.annotations,
        }
    }

    /// The keys remembered for `field` (for tests).
    #[cfg(test)]
    pub(crate) fn remembered(&mut self, field: &str) -> &[&'a str] {
        self.of(field)
    }

    /// Whether `key` of `field` was found valid.
    fn holds(&mut self, field: &str, key: &str) -> bool {
        self.of(field).contains(&key)
    }

    /// Remembers that `key` of `field` is valid, while there is room.
    fn remember(&mut self, field: &str, key: &'a str) {
        let keys = self.of(field);
        if keys.len() < Self::REMEMBERED {
            keys.push(key);
        }
    }
}

/// Label keys and values, annotation keys, and the annotations' total size.
/// `at` makes the path of the metadata, for a finding.
pub(crate) fn labels_and_annotations<'a>(
    metadata: &'a Json,
    at: impl Fn() -> KeyPath,
    valid: &mut ValidKeys<'a>,
    found: &mut Found,
) {
    for (field, what) in [("labels", "label"), ("annotations", "annotation")] {
        let Some(map) = metadata.field(field).as_object() else {
            continue;
        };
        let mut size = 0;
        for (key, value) in map {
            // Made only for a finding: most keys and values are valid.
            let path = || at().key(field).key(key.clone());
            // An annotation key is a qualified name whatever its case: the
            // API server lowercases it before it checks (a label key keeps
            // its case).
            // A key with no capital letter is its own lowercase: not copied.
            let lower = || key.is_ascii() && !key.bytes().any(|b| b.is_ascii_uppercase());
            if !valid.holds(field, key) {
                let checked: std::borrow::Cow<'_, str> = if field == "annotations" && !lower() {
                    names::go_lowercase(key).into()
                } else {
                    key.as_str().into()
                };
                match names::qualified_name(&checked) {
                    Ok(()) => valid.remember(field, key),
                    Err(why) => {
                        found.push((path(), format!("`{key}` is not a valid {what} key: {why}")));
                    }
                }
            }
            match value.as_str() {
                Some(value) if field == "labels" => {
                    if let Err(why) = names::label_value(value) {
                        found.push((path(), format!("label value {value:?} is not valid: {why}")));
                    }
                }
                Some(value) => size += key.len() + value.len(),
                None => {}
            }
        }
        if size > 256 * 1024 {
            found.push((
                at().key(field),
                format!("the annotations hold {size} bytes; the API server takes at most 262144"),
            ));
        }
    }
}

/// What the API server holds an embedded resource's `metadata` to (a
/// custom resource's field with `x-kubernetes-embedded-resource`, or a
/// CRD's default for one: `validateEmbeddedResource`, the generic
/// `ValidateObjectMeta` with path segment names), paths from `at`, the
/// metadata's: a name and a `generateName` that are path segments (no `/`
/// or `%`; a name not `.` or `..`), a namespace that is a DNS-1123 label
/// where given, label and annotation keys and values, finalizers, owner
/// references (as written: none dropped as a copy), managed fields, a
/// `generation` not below 0. Read from metadata that Go's
/// decoder reads as ObjectMeta (its types are the caller's to check).
pub fn embedded_metadata(metadata: &Json, at: &KeyPath) -> Found {
    let mut found = Vec::new();
    // Not an object, or of types ObjectMeta cannot be read from: the
    // caller's finding.
    if !metadata.is_object() {
        return found;
    }
    let text = |field: &str| metadata.field(field).as_str().unwrap_or_default();
    let name = text("name");
    if !name.is_empty()
        && let Err(why) = names::path_segment(name)
    {
        found.push((
            at.key("name"),
            format!("`{name}` is not a valid name: {why}"),
        ));
    }
    let prefix = text("generateName");
    if prefix.contains(['/', '%']) {
        found.push((
            at.key("generateName"),
            format!("`{prefix}` is not a valid name prefix: it may not contain '/' or '%'"),
        ));
    }
    let namespace = text("namespace");
    if !namespace.is_empty()
        && let Err(why) = names::dns1123_label(namespace)
    {
        found.push((
            at.key("namespace"),
            format!("`{namespace}` is not a valid namespace: {why}"),
        ));
    }
    labels_and_annotations(
        metadata,
        || at.clone(),
        &mut ValidKeys::default(),
        &mut found,
    );
    finalizers(
        metadata.field("finalizers"),
        false,
        &at.key("finalizers"),
        &mut found,
    );
    owner_references(
        metadata.field("ownerReferences"),
        &at.key("ownerReferences"),
        false,
        &mut found,
    );
    managed_fields(
        metadata.field("managedFields"),
        &at.key("managedFields"),
        &mut found,
    );
    if let Some(generation) = metadata.field("generation").as_f64()
        && generation < 0.0
    {
        found.push((
            at.key("generation"),
            format!("{generation} is not a generation: it is at least 0"),
        ));
    }
    found
}

/// Managed fields entries as `ValidateManagedFields` holds them: an
/// operation `Apply` or `Update`, a `fieldsType` `FieldsV1` where given,
/// a manager of at most 128 bytes, all printable (as Go's
/// `unicode.IsPrint`, of Unicode 15.0), a subresource of at most 256.
fn managed_fields(list: &Json, at: &KeyPath, found: &mut Found) {
    static PRINTABLE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^[ [\p{L}\p{M}\p{N}\p{P}\p{S}&&\p{Age=15.0}]]*$")
            .expect("the printable class compiles")
    });
    for (i, entry) in each(list) {
        let text = |field: &str| entry.field(field).as_str().unwrap_or_default();
        let mut refuse = |field: &str, why: String| found.push((at.index(i).key(field), why));
        if !matches!(text("operation"), "Apply" | "Update") {
            refuse(
                "operation",
                format!("{:?} must be `Apply` or `Update`", text("operation")),
            );
        }
        if !matches!(text("fieldsType"), "" | "FieldsV1") {
            refuse(
                "fieldsType",
                format!("{:?} must be `FieldsV1`", text("fieldsType")),
            );
        }
        let manager = text("manager");
        if manager.len() > 128 {
            refuse(
                "manager",
                format!("{} bytes: may not be more than 128", manager.len()),
            );
        }
        if !PRINTABLE.is_match(manager) {
            refuse(
                "manager",
                "it holds a character that is not printable".to_owned(),
            );
        }
        if text("subresource").len() > 256 {
            let length = text("subresource").len();
            refuse(
                "subresource",
                format!("{length} bytes: may not be more than 256"),
            );
        }
    }
}

/// `metadata.ownerReferences` (`ValidateOwnerReferences`): each with an
/// API version that names a version, a kind, a name and a uid, none an
/// Event of the core group, and at most one of them the controller.
pub(crate) fn owner_references(list: &Json, at: &KeyPath, dedup: bool, found: &mut Found) {
    let at = || at.clone();
    let mut controllers = 0;
    // The server drops a reference written twice whole before it
    // validates an object it creates (`dedupOwnerReferences`, with a
    // warning); an embedded resource's are validated as written.
    let mut seen = std::collections::HashSet::new();
    for (i, owner) in each(list) {
        let fields = [
            "apiVersion",
            "kind",
            "name",
            "uid",
            "controller",
            "blockOwnerDeletion",
        ]
        .map(|field| owner.field(field).to_string());
        if !seen.insert(fields) && dedup {
            continue;
        }
        let text = |field: &str| owner.field(field).as_str().unwrap_or_default();
        // `group/version` or `version`; with more than one `/`, the API
        // machinery reads no version at all.
        let (group, version) = match text("apiVersion").split('/').collect::<Vec<_>>()[..] {
            [version] => ("", version),
            [group, version] => (group, version),
            _ => ("", ""),
        };
        for (field, empty) in [
            ("apiVersion", version.is_empty()),
            ("kind", text("kind").is_empty()),
            ("name", text("name").is_empty()),
            ("uid", text("uid").is_empty()),
        ] {
            if empty {
                found.push((
                    at().index(i).key(field),
                    format!("an owner reference names its {field}"),
                ));
            }
        }
        if (group, version, text("kind")) == ("", "v1", "Event") {
            found.push((at().index(i), "an Event cannot own an object".to_owned()));
        }
        controllers += usize::from(owner.field("controller") == &Json::Bool(true));
    }
    if controllers > 1 {
        found.push((
            at(),
            format!("{controllers} owner references are the controller; at most one is"),
        ));
    }
}

/// Whether the API server holds `object`'s finalizers to Kubernetes' own
/// names (`validateKubeFinalizerName`, which core's `ValidateObjectMeta`
/// adds to the generic one): every built-in kind's validation calls it
/// but those that validate their metadata by the generic rules alone
/// (webhook and admission policy kinds, Leases, RuntimeClasses,
/// PodDisruptionBudgets, CRDs, APIServices) and a core `v1` Event, which
/// keeps its legacy validation (`events.k8s.io/v1` Events do not).
pub(crate) fn kubernetes_finalizer_names(object: &Json) -> bool {
    let api_version = object.field("apiVersion").as_str().unwrap_or_default();
    let kind = object.field("kind").as_str().unwrap_or_default();
    let generic = match crate::manifest::api_group(api_version) {
        "admissionregistration.k8s.io"
        | "coordination.k8s.io"
        | "node.k8s.io"
        | "apiextensions.k8s.io"
        | "apiregistration.k8s.io" => true,
        "policy" => kind == "PodDisruptionBudget",
        "" => kind == "Event",
        _ => false,
    };
    !generic
}

/// Finalizer names (`ValidateFinalizers`, and with `kubernetes`
/// `validateKubeFinalizerName`): each a qualified name, with `kubernetes`
/// one of the standard `kubernetes`, `orphan` and `foregroundDeletion`
/// unless it has a `/`; `orphan` and `foregroundDeletion` not both.
pub(crate) fn finalizers(list: &Json, kubernetes: bool, at: &KeyPath, found: &mut Found) {
    let names: Vec<(usize, &str)> = each(list)
        .map(|(i, n)| (i, n.as_str().unwrap_or_default()))
        .collect();
    for &(i, name) in &names {
        let why = match names::qualified_name(name) {
            Err(why) => why,
            Ok(()) if kubernetes && !name.contains('/') && !matches!(name, "kubernetes" | "orphan" | "foregroundDeletion") => {
                "it is no standard finalizer (kubernetes, orphan, foregroundDeletion) and has no domain prefix".to_owned()
            }
            Ok(()) => continue,
        };
        found.push((
            at.clone().index(i),
            format!("`{name}` is not a finalizer name: {why}"),
        ));
    }
    let has = |wanted: &str| names.iter().any(|&(_, name)| name == wanted);
    if has("orphan") && has("foregroundDeletion") {
        found.push((
            at.clone(),
            "finalizers orphan and foregroundDeletion cannot both be set".to_owned(),
        ));
    }
}
