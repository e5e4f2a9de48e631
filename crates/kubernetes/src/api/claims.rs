//! What the API server refuses in a claim's spec
//! (`ValidatePersistentVolumeClaimSpec`), of a PersistentVolumeClaim, a
//! StatefulSet's claim template and a pod's ephemeral volume: access modes
//! (at least one, each known, `ReadWriteOncePod` alone), its selector, its
//! resources (`resources::claim`), class names, the volume mode and its
//! data sources; and of an ephemeral volume, that it has a claim template
//! whose metadata holds labels and annotations alone.

use serde_json::Value as Json;

use super::resources;
use crate::json::{Field, Found, each};
use crate::location::KeyPath;
use crate::metadata::{ValidKeys, labels_and_annotations};
use crate::names;
use crate::scheduling::label_selector;

/// The access modes a claim may name.
const ACCESS_MODES: [&str; 4] = [
    "ReadWriteOnce",
    "ReadOnlyMany",
    "ReadWriteMany",
    "ReadWriteOncePod",
];

/// A claim's `spec`, at `at`, as written: a PersistentVolumeClaim's as its
/// strategy prepared it ([`crate::kube::defaults::defaulted`] drops the data sources it
/// does not validate), a template's as it stands.
pub(super) fn spec(spec: &Json, at: &KeyPath, found: &mut Found) {
    access_modes(spec, at, "a claim", found);
    if spec.field("selector").is_object() {
        label_selector(spec.field("selector"), &at.clone().key("selector"), found);
    }
    resources::claim(spec.field("resources"), &at.clone().key("resources"), found);
    for field in ["storageClassName", "volumeAttributesClassName"] {
        if let Some(name) = spec.field(field).as_str().filter(|n| !n.is_empty())
            && let Err(why) = names::dns1123_subdomain(name)
        {
            found.push((
                at.clone().key(field),
                format!("`{name}` is not a class name: {why}"),
            ));
        }
    }
    if let Some(mode) = spec.field("volumeMode").as_str()
        && !matches!(mode, "Block" | "Filesystem")
    {
        found.push((
            at.clone().key("volumeMode"),
            format!("`{mode}` is not a volume mode (Block, Filesystem)"),
        ));
    }
    data_sources(spec, at, found);
}

/// The `accessModes` of `spec` (a claim's or a PersistentVolume's, `what`):
/// at least one, each known, `ReadWriteOncePod` alone.
pub(super) fn access_modes(spec: &Json, at: &KeyPath, what: &str, found: &mut Found) {
    let modes: Vec<(usize, &Json)> = each(spec.field("accessModes")).collect();
    let modes_at = || at.clone().key("accessModes");
    if modes.is_empty() {
        found.push((
            modes_at(),
            format!(
                "{what} names at least one access mode ({})",
                ACCESS_MODES.join(", ")
            ),
        ));
    }
    let (mut only_pod, mut others) = (false, false);
    for (i, mode) in modes {
        let known = mode.as_str().filter(|m| ACCESS_MODES.contains(m));
        match known {
            Some("ReadWriteOncePod") => only_pod = true,
            Some(_) => others = true,
            None => found.push((
                modes_at().index(i),
                format!(
                    "`{}` is not an access mode ({})",
                    super::plain(mode),
                    ACCESS_MODES.join(", ")
                ),
            )),
        }
    }
    if only_pod && others {
        found.push((
            modes_at(),
            format!("ReadWriteOncePod is {what}'s only access mode"),
        ));
    }
}

/// A claim's `dataSource` and `dataSourceRef`: each names a kind and a
/// name, a kind other than PersistentVolumeClaim with its API group (a
/// DNS subdomain), a namespace (a reference's, a DNS label) only without a
/// `dataSource`; and both, when given, the same object.
fn data_sources(spec: &Json, at: &KeyPath, found: &mut Found) {
    let written = |field: &str| Some(spec.field(field)).filter(|object| object.is_object());
    let (source, reference) = (written("dataSource"), written("dataSourceRef"));
    for (field, object) in [("dataSource", source), ("dataSourceRef", reference)] {
        let Some(object) = object else {
            continue;
        };
        let at = at.clone().key(field);
        for key in ["name", "kind"] {
            if object.field(key).as_str().unwrap_or_default().is_empty() {
                found.push((
                    at.clone().key(key),
                    format!("a {field} names its object's {key}"),
                ));
            }
        }
        let group = object.field("apiGroup").as_str().unwrap_or_default();
        let kind = object.field("kind").as_str().unwrap_or_default();
        if group.is_empty() && kind != "PersistentVolumeClaim" {
            found.push((
                at.clone(),
                format!("a {field} of the core API group is a PersistentVolumeClaim, not `{kind}`; name the apiGroup of any other kind"),
            ));
        }
        if !group.is_empty()
            && let Err(why) = names::dns1123_subdomain(group)
        {
            found.push((
                at.clone().key("apiGroup"),
                format!("`{group}` is not an API group: {why}"),
            ));
        }
        if let Some(namespace) = object.field("namespace").as_str().filter(|n| !n.is_empty())
            && let Err(why) = names::dns1123_label(namespace)
        {
            found.push((
                at.key("namespace"),
                format!("`{namespace}` is not a valid namespace: {why}"),
            ));
        }
    }
    let (Some(source), Some(reference)) = (source, reference) else {
        return;
    };
    if reference
        .field("namespace")
        .as_str()
        .is_some_and(|n| !n.is_empty())
    {
        found.push((
            at.clone().key("dataSource"),
            "a claim whose dataSourceRef names a namespace has no dataSource".to_owned(),
        ));
    } else if ["apiGroup", "kind", "name"]
        .iter()
        .any(|key| source.field(key) != reference.field(key))
    {
        found.push((
            at.clone().key("dataSource"),
            "dataSource and dataSourceRef name one object, or only one of them is given".to_owned(),
        ));
    }
}

/// A pod's ephemeral volume source, at `at`: a claim template whose
/// metadata holds labels and annotations alone, and whose spec is a
/// claim's.
pub(super) fn ephemeral(source: &Json, at: &KeyPath, found: &mut Found) {
    let template = source.field("volumeClaimTemplate");
    let at = at.clone().key("volumeClaimTemplate");
    if !template.is_object() {
        found.push((
            at,
            "an ephemeral volume has a volumeClaimTemplate".to_owned(),
        ));
        return;
    }
    let metadata = template.field("metadata");
    for (key, value) in metadata.as_object().into_iter().flatten() {
        // A field at its zero value is not set.
        let unset = match value {
            Json::Null => true,
            Json::String(text) => text.is_empty(),
            Json::Number(number) => number.as_f64() == Some(0.0),
            Json::Bool(set) => !set,
            _ => false,
        };
        if !unset && !matches!(key.as_str(), "labels" | "annotations") {
            found.push((
                at.clone().key("metadata").key(key.clone()),
                format!("a claim template's metadata holds labels and annotations, not {key}"),
            ));
        }
    }
    labels_and_annotations(
        metadata,
        || at.clone().key("metadata"),
        &mut ValidKeys::default(),
        found,
    );
    spec(template.field("spec"), &at.clone().key("spec"), found);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn found(claim: Json) -> Vec<String> {
        let mut found = Vec::new();
        spec(&claim, &KeyPath::root().key("spec"), &mut found);
        found
            .into_iter()
            .map(|(path, why)| format!("{path}: {why}"))
            .collect()
    }

    #[test]
    fn access_modes_and_storage() {
        assert_eq!(
            found(
                json!({"accessModes": ["ReadWriteOncePod", "Foo", "ReadOnlyMany"], "resources": {}})
            ),
            [
                "spec.accessModes[1]: `Foo` is not an access mode (ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod)",
                "spec.accessModes: ReadWriteOncePod is a claim's only access mode",
                "spec.resources.requests: a claim requests storage",
            ]
        );
    }

    /// A PersistentVolumeClaim's preparation drops a `dataSource` of
    /// another kind when no `dataSourceRef` is given, and a `dataSourceRef`
    /// naming a namespace (a real v1.35 server takes `dataSource: {}`, and
    /// the schema's required fields are not asked of it either); a
    /// template keeps and refuses them; one the decoder refuses is kept.
    #[test]
    fn a_claim_drops_what_a_template_refuses() {
        let claim = |sources: Json| {
            let mut spec = json!({"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}});
            spec.as_object_mut()
                .unwrap()
                .extend(sources.as_object().unwrap().clone());
            spec
        };
        let prepared = |spec: Json| {
            let object = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": "c", "namespace": "ops"}, "spec": spec});
            let read = crate::kube::defaults::defaulted(&object).unwrap_or(object);
            found(read["spec"].clone())
        };
        for dropped in [
            json!({"dataSource": {"kind": "Foo", "name": "x"}}),
            json!({"dataSource": {}}),
            json!({"dataSourceRef": {"kind": "Foo", "name": "x", "namespace": "other"}}),
        ] {
            assert!(prepared(claim(dropped.clone())).is_empty(), "{dropped}");
        }
        assert_eq!(
            found(claim(json!({"dataSource": {"kind": "Foo", "name": "x"}}))),
            [
                "spec.dataSource: a dataSource of the core API group is a PersistentVolumeClaim, not `Foo`; name the apiGroup of any other kind"
            ]
        );
        // Not dropped: a kind the preparation keeps, a member the decoder refuses.
        assert_eq!(
            prepared(claim(
                json!({"dataSource": {"kind": "PersistentVolumeClaim"}})
            ))
            .len(),
            1
        );
        let object = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "c"}, "spec": claim(json!({"dataSource": {"kind": 5}}))});
        assert!(crate::kube::defaults::defaulted(&object).is_none());
    }
}
