//! Matching objects whose names differ between the two sides (maps
//! `OLD=NEW`), and removing Helm's own labels and annotations:
//! what comparing a `helm template` render with another tool's output needs.
//!
//! A map rewrites the identity of old objects before they are matched, and
//! every match it makes is listed in the diff, never silent. Only the
//! identity changes: the object is compared as it is, except that its
//! `metadata.name` and `metadata.namespace`, which the match line shows,
//! are not repeated as field changes.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{Class, Diff};
use crate::manifest::{Manifest, ObjectId};
use crate::yaml::{Node, Value};

/// One map `OLD=NEW`: each side `NAME`, `KIND/NAME` or
/// `KIND/NAMESPACE/NAME`, the same form on both sides; a part may hold one
/// `*`, matching any text on the old side, and standing for what it
/// matched on the new side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Map {
    text: String,
    kind: Option<String>,
    namespace: Option<(Part, Part)>,
    name: (Part, Part),
}

/// One part of a pattern: literal text, or text around one `*`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Part {
    prefix: String,
    /// After the `*`, when there is one.
    suffix: Option<String>,
}

impl Part {
    fn parse(text: &str) -> Result<Self, String> {
        match text.split_once('*') {
            None => Ok(Part {
                prefix: text.to_owned(),
                suffix: None,
            }),
            Some((_, after)) if after.contains('*') => {
                Err(format!("`{text}` has more than one `*`"))
            }
            Some((before, after)) => Ok(Part {
                prefix: before.to_owned(),
                suffix: Some(after.to_owned()),
            }),
        }
    }

    /// What the `*` matched, or `""` for a literal part that matches.
    fn capture<'a>(&self, text: &'a str) -> Option<&'a str> {
        match &self.suffix {
            None => (text == self.prefix).then_some(""),
            Some(suffix) => text
                .strip_prefix(self.prefix.as_str())?
                .strip_suffix(suffix.as_str()),
        }
    }

    fn build(&self, captured: &str) -> String {
        match &self.suffix {
            None => self.prefix.clone(),
            Some(suffix) => format!("{}{captured}{suffix}", self.prefix),
        }
    }
}

impl Map {
    /// Parses `OLD=NEW`, such as `release-name-*=*` or
    /// `Deployment/default/old=Deployment/buildkit-operator/new`; the error
    /// says what is wrong in words (the caller adds the argument it came
    /// from).
    pub fn parse(text: &str) -> Result<Self, String> {
        let invalid = |why: String| {
            format!(
                "{why} (the form is OLD=NEW, each side NAME, KIND/NAME or KIND/NAMESPACE/NAME, a part holding at most one `*`)"
            )
        };
        let (old, new) = text
            .split_once('=')
            .filter(|(_, new)| !new.contains('='))
            .ok_or_else(|| invalid("no single `=`".to_owned()))?;
        let (old, new): (Vec<&str>, Vec<&str>) =
            (old.split('/').collect(), new.split('/').collect());
        if old.len() != new.len() || old.len() > 3 {
            return Err(invalid("both sides must have the same parts".to_owned()));
        }
        if old.iter().chain(&new).any(|part| part.is_empty()) {
            return Err(invalid("an empty part".to_owned()));
        }
        let pair = |i: usize| -> Result<(Part, Part), String> {
            let (from, to) = (
                Part::parse(old[i]).map_err(invalid)?,
                Part::parse(new[i]).map_err(invalid)?,
            );
            if to.suffix.is_some() && from.suffix.is_none() {
                return Err(invalid(format!(
                    "`{}` has a `*` that `{}` does not",
                    new[i], old[i]
                )));
            }
            Ok((from, to))
        };
        let kind = (old.len() > 1).then(|| old[0].to_owned());
        if old.len() > 1 && old[0] != new[0] {
            return Err(invalid(
                "a map renames; it does not change kinds".to_owned(),
            ));
        }
        if kind.as_deref().is_some_and(|k| k.contains('*')) {
            return Err(invalid("a kind is written out, without `*`".to_owned()));
        }
        Ok(Map {
            text: text.to_owned(),
            kind,
            namespace: if old.len() == 3 { Some(pair(1)?) } else { None },
            name: pair(old.len() - 1)?,
        })
    }

    /// The identity `id` gets, when this map applies to it.
    fn apply(&self, id: &ObjectId) -> Option<ObjectId> {
        if self.kind.as_ref().is_some_and(|kind| *kind != id.kind) {
            return None;
        }
        let namespace = match (&self.namespace, &id.namespace) {
            (None, namespace) => namespace.clone(),
            // A cluster-scoped object has no namespace: only `*` takes it.
            (Some((from, _)), None) => {
                (from.prefix.is_empty() && from.suffix.as_deref() == Some("")).then_some(None)?
            }
            (Some((from, to)), Some(namespace)) => Some(to.build(from.capture(namespace)?)),
        };
        let name = self.name.1.build(self.name.0.capture(&id.name)?);
        Some(ObjectId {
            namespace,
            name,
            ..id.clone()
        })
    }
}

/// An old object matched, through a map, with a new one of another name.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Matched {
    /// The old object, as `Kind namespace/name`.
    pub old: String,
    /// The new object it is compared with.
    pub new: String,
    /// The map that matched them, as written.
    pub map: String,
}

/// What [`rename`] did: each renamed old object's new identity, with its
/// old one and the map; and the maps that renamed nothing.
#[derive(Debug, Default)]
pub struct Renames {
    /// By new identity: the old one and the map, as written.
    renamed: BTreeMap<String, (ObjectId, String)>,
    /// The maps, as written, that applied to no old object (a typo in a
    /// release name would otherwise go unnoticed).
    pub unused: Vec<String>,
}

/// Two old objects that the maps gave one identity: one would hide the
/// other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collision {
    /// The first old object given the identity, as `Kind namespace/name`.
    pub first: String,
    /// The second.
    pub second: String,
    /// The identity both were given.
    pub identity: String,
}

impl std::fmt::Display for Collision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the maps give {} and {} one identity, {}: one would hide the other; make the maps more specific",
            self.first, self.second, self.identity
        )
    }
}

/// Gives the old objects the identities the first map that applies to each
/// says. Two old objects given one identity is an error ([`Collision`]):
/// one would hide the other.
pub fn rename(old: &mut [Manifest], maps: &[Map]) -> Result<Renames, Collision> {
    let mut renames = Renames::default();
    if maps.is_empty() {
        return Ok(renames);
    }
    let mut taken: BTreeMap<ObjectId, String> = BTreeMap::new();
    let mut used = vec![false; maps.len()];
    for manifest in old.iter_mut() {
        let before = manifest.id.to_string();
        let applies = maps
            .iter()
            .enumerate()
            .find_map(|(i, m)| Some((i, m.apply(&manifest.id)?)));
        if let Some((i, id)) = applies
            && id != manifest.id
        {
            used[i] = true;
            renames
                .renamed
                .insert(id.to_string(), (manifest.id.clone(), maps[i].text.clone()));
            manifest.id = id;
        }
        let key = ObjectId {
            version: String::new(),
            ..manifest.id.clone()
        };
        if let Some(other) = taken.insert(key, before.clone()) {
            return Err(Collision {
                first: other,
                second: before,
                identity: manifest.id.to_string(),
            });
        }
    }
    renames.unused = maps
        .iter()
        .zip(used)
        .filter(|(_, used)| !used)
        .map(|(map, _)| map.text.clone())
        .collect();
    Ok(renames)
}

/// Shows the renamed objects in `diff` as the user knows them: a removed
/// one under its old identity, a matched one in [`Diff::matched`], without
/// the `metadata.name` and `metadata.namespace` changes the match shows;
/// gives `old`'s objects back the identities they were read with.
///
/// A match is compared field by field, but for the cluster it is another
/// object: the apply creates the new one (so none of its fields is refused
/// as immutable, nor is its new pod template a rollout of the old one's)
/// and the old one is deleted (pruned, or by `helm uninstall`). Its impact
/// is that of a creation and a deletion (`impact`'s `mapped`),
/// judged by the Pod Security rules of Kubernetes 1.`minor`.
pub fn finish(
    diff: &mut Diff,
    renames: &Renames,
    old: &mut [Manifest],
    new: &[Manifest],
    minor: u32,
) {
    let removed: BTreeSet<String> = diff.removed.iter().cloned().collect();
    // A match: an old object renamed onto an object of the new set.
    let matched = |new: &String| renames.renamed.contains_key(new) && !removed.contains(new);
    diff.impact
        .retain(|i| !(matches!(i.class, Class::Immutable | Class::Restart) && matched(&i.object)));
    for id in &mut diff.removed {
        if let Some((old, _)) = renames.renamed.get(id.as_str()) {
            *id = old.to_string();
        }
    }
    for change in &mut diff.changed {
        if renames.renamed.contains_key(&change.object) {
            change
                .fields
                .retain(|f| f.path != "metadata.name" && f.path != "metadata.namespace");
        }
    }
    diff.changed.retain(|change| !change.fields.is_empty());
    diff.matched = renames
        .renamed
        .iter()
        .filter(|(new, _)| !removed.contains(*new))
        .map(|(new, (old, map))| Matched {
            old: old.to_string(),
            new: new.clone(),
            map: map.clone(),
        })
        .collect();
    // The old set as read, and each match's two objects.
    let mut olds: BTreeMap<String, usize> = BTreeMap::new();
    for (i, manifest) in old.iter_mut().enumerate() {
        let id = manifest.id.to_string();
        if let Some((was, _)) = renames.renamed.get(&id) {
            manifest.id = was.clone();
            if !removed.contains(&id) {
                olds.insert(id, i);
            }
        }
    }
    let old: &[Manifest] = old;
    let pairs: Vec<(&Manifest, &Manifest)> = new
        .iter()
        .filter_map(|m| Some((&old[*olds.get(&m.id.to_string())?], m)))
        .collect();
    let sets = super::impact::Sets {
        old,
        new,
        minor,
        declared: None,
    };
    diff.impact.extend(super::impact::mapped(&pairs, sets));
    super::impact::sort(&mut diff.impact);
}

/// The heuristic, which only suggests: when removed objects are added
/// ones with a prefix (`buildkit-buildkit-gateway` removed, the Deployment
/// `buildkit-gateway` added in the same namespace), the most common such
/// prefix and how many objects it would match. Never applied by itself: the
/// user decides, with the map it names (`PREFIX*=*`).
pub fn suggest(diff: &Diff) -> Option<(String, usize)> {
    // `Kind namespace/name` or `Kind name`: the kind, and the rest.
    let split = |id: &str| {
        id.split_once(' ')
            .map(|(kind, rest)| (kind.to_owned(), rest.to_owned()))
    };
    let added: BTreeSet<(String, String)> = diff.added.iter().filter_map(|id| split(id)).collect();
    let mut prefixes: BTreeMap<String, usize> = BTreeMap::new();
    for (kind, rest) in diff.removed.iter().filter_map(|id| split(id)) {
        let (namespace, name) = rest.rsplit_once('/').unwrap_or(("", &rest));
        let at = |i: usize| {
            if namespace.is_empty() {
                name[i..].to_owned()
            } else {
                format!("{namespace}/{}", &name[i..])
            }
        };
        // Each suffix after a `-`, longest first: `a-b-c` tries `b-c`, `c`.
        for (i, _) in name.match_indices('-') {
            if added.contains(&(kind.clone(), at(i + 1))) {
                *prefixes.entry(name[..=i].to_owned()).or_default() += 1;
                break;
            }
        }
    }
    prefixes
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
}

/// The labels Helm writes itself (`helm create`'s helpers and the older
/// convention), left out by `--ignore-helm`. `app.kubernetes.io/instance`
/// and `app.kubernetes.io/name` are not among them: they are selectors.
pub const HELM_LABELS: [&str; 5] = [
    "helm.sh/chart",
    "app.kubernetes.io/managed-by",
    "heritage",
    "chart",
    "release",
];

/// The annotations `helm install` writes, left out by `--ignore-helm`
/// (Helm's hook and resource-policy annotations change what Helm does, and
/// stay).
pub const HELM_ANNOTATIONS: [&str; 2] = [
    "meta.helm.sh/release-name",
    "meta.helm.sh/release-namespace",
];

/// Where an object carries labels that are no selector: its own, and its
/// pod template's (Deployment and the like, a CronJob's job and pod).
const LABELLED: [&[&str]; 4] = [
    &["metadata"],
    &["spec", "template", "metadata"],
    &["spec", "jobTemplate", "metadata"],
    &["spec", "jobTemplate", "spec", "template", "metadata"],
];

/// `--ignore-helm`: removes [`HELM_LABELS`] wherever an object or its pod
/// template carries labels, and [`HELM_ANNOTATIONS`] from the object, from
/// every object of both sides before they are compared; a `labels` or
/// `annotations` left empty goes too, so that Helm's keys leave no trace
/// against an object that has none. Selectors are never touched: a
/// selector that differs is immutable, and the migration has to know. Nor
/// is a pod template's label that a selector of the new side selects on (a
/// Service selecting `release`): pods that lose it lose their traffic.
pub fn strip_helm(old: &mut [Manifest], new: &mut [Manifest]) {
    // The new side's selectors: they select the pods the apply creates (an
    // old selector on `release` that the new set drops shows as its own
    // change, and the labels it selected stay ignorable).
    let mut selected = BTreeSet::new();
    for manifest in new.iter() {
        selected_keys(manifest.node(), &mut selected);
    }
    let pod_labels: Vec<&str> = HELM_LABELS
        .into_iter()
        .filter(|key| !selected.contains(*key))
        .collect();
    for manifest in old.iter_mut().chain(new.iter_mut()) {
        for at in LABELLED {
            // The object's own labels, and its pods', which selectors select.
            let labels = if at == ["metadata"] {
                &HELM_LABELS[..]
            } else {
                &pod_labels
            };
            if let Some(metadata) = walk_mut(manifest.node_mut(), at) {
                remove_keys(metadata, "labels", labels);
            }
        }
        if let Some(metadata) = walk_mut(manifest.node_mut(), &["metadata"]) {
            remove_keys(metadata, "annotations", &HELM_ANNOTATIONS);
        }
    }
}

/// The label keys the selectors under `node` select on: the keys of a
/// `matchLabels`, the `key` of each `matchExpressions` item, and the keys
/// of a plain `selector` map (a Service's, a ReplicationController's).
fn selected_keys(node: &Node, keys: &mut BTreeSet<String>) {
    let names = |node: &Node| match &node.value {
        Value::Mapping(entries) => entries.iter().map(|(k, _)| k.name.clone()).collect(),
        _ => Vec::new(),
    };
    match &node.value {
        Value::Mapping(entries) => {
            for (key, value) in entries {
                match key.name.as_str() {
                    "matchLabels" => keys.extend(names(value)),
                    "matchExpressions" => {
                        if let Value::Sequence(items) = &value.value {
                            keys.extend(items.iter().filter_map(
                                |item| match &item.get("key")?.value {
                                    Value::String(key) => Some(key.clone()),
                                    _ => None,
                                },
                            ));
                        }
                    }
                    "selector"
                        if value.get("matchLabels").is_none()
                            && value.get("matchExpressions").is_none() =>
                    {
                        keys.extend(names(value));
                    }
                    _ => {}
                }
                selected_keys(value, keys);
            }
        }
        Value::Sequence(items) => {
            for item in items {
                selected_keys(item, keys);
            }
        }
        _ => {}
    }
}

/// The node at `path` (mapping keys), if every step is a mapping.
fn walk_mut<'a>(node: &'a mut Node, path: &[&str]) -> Option<&'a mut Node> {
    path.iter()
        .try_fold(node, |node, step| match &mut node.value {
            Value::Mapping(entries) => entries
                .iter_mut()
                .find(|(key, _)| key.name == *step)
                .map(|(_, node)| node),
            _ => None,
        })
}

/// Removes `keys` from the mapping `field` of `metadata`, and `field` when
/// that leaves it empty.
fn remove_keys(metadata: &mut Node, field: &str, keys: &[&str]) {
    let Value::Mapping(entries) = &mut metadata.value else {
        return;
    };
    let Some(at) = entries.iter().position(|(key, _)| key.name == field) else {
        return;
    };
    if let Value::Mapping(inner) = &mut entries[at].1.value {
        let before = inner.len();
        inner.retain(|(key, _)| !keys.contains(&key.name.as_str()));
        if inner.is_empty() && before > 0 {
            entries.remove(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(kind: &str, namespace: Option<&str>, name: &str) -> ObjectId {
        ObjectId {
            group: String::new(),
            version: "v1".to_owned(),
            kind: kind.to_owned(),
            namespace: namespace.map(str::to_owned),
            name: name.to_owned(),
        }
    }

    fn mapped(map: &str, from: &ObjectId) -> Option<String> {
        Map::parse(map)
            .unwrap()
            .apply(from)
            .map(|id| id.to_string())
    }

    #[test]
    fn maps_rewrite_names_namespaces_and_filter_kinds() {
        let gateway = id("Deployment", Some("default"), "old-buildkit-gateway");
        assert_eq!(
            mapped("old-*=*", &gateway).as_deref(),
            Some("Deployment default/buildkit-gateway")
        );
        assert_eq!(
            mapped("old-buildkit-*=buildkit-*-x", &gateway).as_deref(),
            Some("Deployment default/buildkit-gateway-x")
        );
        assert_eq!(mapped("Service/old-*=Service/*", &gateway), None);
        assert_eq!(
            mapped(
                "Deployment/default/old-*=Deployment/buildkit-operator/*",
                &gateway
            )
            .as_deref(),
            Some("Deployment buildkit-operator/buildkit-gateway")
        );
        assert_eq!(
            mapped(
                "Deployment/default/old-buildkit-gateway=Deployment/ops/gw",
                &gateway
            )
            .as_deref(),
            Some("Deployment ops/gw")
        );
        assert_eq!(mapped("new-*=*", &gateway), None);
        let namespace = id("Namespace", None, "old-ns");
        assert_eq!(
            mapped("Namespace/*/old-*=Namespace/*/*", &namespace).as_deref(),
            Some("Namespace ns")
        );
        assert_eq!(mapped("Namespace/x/old-*=Namespace/x/*", &namespace), None);
    }

    #[test]
    fn malformed_maps_say_why() {
        for (text, why) in [
            ("a", "no single `=`"),
            ("a=b=c", "no single `=`"),
            ("a/b=c", "same parts"),
            ("a/b/c/d=a/b/c/d", "same parts"),
            ("a=*", "has a `*` that `a` does not"),
            ("a**=b", "more than one `*`"),
            ("Deployment/a=Service/a", "does not change kinds"),
            ("*/a=*/a", "without `*`"),
            ("=a", "an empty part"),
        ] {
            let error = Map::parse(text).unwrap_err();
            assert!(error.contains(why), "{text}: {error}");
        }
    }
}
