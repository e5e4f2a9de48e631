//! Objects that change GitOps application between two sets read from
//! directories, and applications that continue under another folder.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::{Key, Move, Renamed, Side, key};
use crate::manifest::ObjectId;

/// The files that make a folder a Kustomize application.
const KUSTOMIZATIONS: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// Objects on both sides whose applications are known and differ. An old
/// application continues as the new one that receives most of its objects
/// (the same folder on a tie): the GitOps tool's application is re-pointed
/// there, so only the objects that go elsewhere move.
pub(super) fn moves(old: Side<'_>, new: Side<'_>) -> (Vec<Renamed>, Vec<Move>) {
    let (before, after) = (applications(old), applications(new));
    let mut flows: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (k, (_, to)) in &after {
        if let Some((_, from)) = before.get(k) {
            *flows.entry((from.as_str(), to.as_str())).or_default() += 1;
        }
    }
    let mut continues: BTreeMap<&str, (&str, usize)> = BTreeMap::new();
    for ((from, to), count) in &flows {
        let best = continues.entry(from).or_insert((to, *count));
        if *count > best.1 || (*count == best.1 && to == from) {
            *best = (to, *count);
        }
    }
    let renamed = continues
        .iter()
        .filter(|(from, (to, _))| **from != *to)
        .map(|(from, (to, _))| Renamed {
            from: (*from).to_owned(),
            to: (*to).to_owned(),
        })
        .collect();
    let mut moves = Vec::new();
    for (k, (id, to)) in &after {
        if let Some((_, from)) = before.get(k)
            && continues.get(from.as_str()).map(|(c, _)| *c) != Some(to.as_str())
        {
            let takes_others = match (id.group.as_str(), id.kind.as_str()) {
                ("", "Namespace") => Some("deleting a Namespace deletes everything in it"),
                ("apiextensions.k8s.io", "CustomResourceDefinition") => Some(
                    "deleting a CustomResourceDefinition deletes every custom resource of its kind",
                ),
                _ => None,
            };
            moves.push(Move {
                object: id.to_string(),
                from: from.clone(),
                to: to.clone(),
                takes_others,
            });
        }
    }
    (renamed, moves)
}

/// Each object's application, for a side read from a directory: the folder
/// (relative to that directory, `.` for itself) of the nearest ancestor of
/// its file that holds a kustomization. Objects outside any have none.
fn applications(side: Side<'_>) -> BTreeMap<Key, (ObjectId, String)> {
    let root = Path::new(side.path);
    if side.path == "-" || !root.is_dir() {
        return BTreeMap::new();
    }
    let mut known = HashMap::new();
    side.set
        .manifests
        .iter()
        .filter_map(|m| {
            let file = Path::new(m.file.as_deref()?);
            let folder = file.strip_prefix(root).ok()?.parent()?;
            let application = nearest_application(root, folder, &mut known)?;
            Some((key(&m.id), (m.id.clone(), application)))
        })
        .collect()
}

/// The application of `folder` (relative to `root`), remembered in `known`.
fn nearest_application(
    root: &Path,
    folder: &Path,
    known: &mut HashMap<PathBuf, Option<String>>,
) -> Option<String> {
    if let Some(application) = known.get(folder) {
        return application.clone();
    }
    let here = root.join(folder);
    let application = if KUSTOMIZATIONS.iter().any(|name| here.join(name).is_file()) {
        let parts: Vec<_> = folder
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect();
        Some(if parts.is_empty() {
            ".".to_owned()
        } else {
            parts.join("/")
        })
    } else {
        folder
            .parent()
            .and_then(|up| nearest_application(root, up, known))
    };
    known.insert(folder.to_owned(), application.clone());
    application
}
