//! Writing a render into a GitOps directory: one file per object, a
//! `kustomization.yaml` listing them, and the artifacts the caller hands
//! over (side files that are not objects, see [`crate::input::Options`]).
//!
//! The program that writes is the directory's [`Owner`]: every file it
//! writes starts with its marker; that is how it knows its own files, and
//! the only way: every file beneath the output directory whose first line
//! is the marker is the owner's, whatever render wrote it (an interrupted
//! one included), and goes when this render does not produce it. Files
//! without the marker are never touched, only reported. This crate owns
//! no directory: the caller names itself.
//!
//! [`sync`] plans first and writes second: the whole tree is read (no link
//! followed, no FIFO, device or socket opened), every file decided and
//! every refusal made before the first byte is written; then, under a lock,
//! each file is written to a fresh temporary file and renamed over the old
//! one, so a crash leaves the old or the new content, never a mix.

mod path;
mod tree;
mod write;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

pub use path::{OutputDir, folder_to_write};
pub use tree::TEMP_SUFFIX;
#[doc(hidden)]
pub use write::{STOP_AT_STEP, STOPPED};

use crate::text::printable;
use tree::{Entry, join};
use write::refuse;

use crate::emit;
use crate::error::Error;
use crate::manifest::Manifest;

/// The program that owns an output directory, as its files show it: made
/// only by [`Owner::new`], which checks the names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Owner {
    marker: &'static str,
    lock: &'static str,
    temp_prefix: &'static str,
}

impl Owner {
    /// An owner of these names; a marker that is no one-line comment, or a
    /// lock or prefix that is no hidden file name, does not compile where
    /// the owner is a constant (and panics elsewhere).
    pub const fn new(marker: &'static str, lock: &'static str, temp_prefix: &'static str) -> Self {
        assert!(
            marker.len() > 2 && marker.as_bytes()[0] == b'#' && marker.as_bytes()[1] == b' ',
            "a marker is a YAML comment"
        );
        assert!(one_line(marker), "a marker is one line");
        assert!(hidden_name(lock), "a lock file has a hidden name");
        assert!(
            hidden_name(temp_prefix),
            "temporary files have hidden names"
        );
        Owner {
            marker,
            lock,
            temp_prefix,
        }
    }

    /// The first line of every file it writes: a YAML comment (`# …`).
    pub const fn marker(&self) -> &'static str {
        self.marker
    }

    /// Its lock file at the top of the directory (see [`sync`]): a hidden
    /// name, such as `.mytool.lock`.
    pub const fn lock(&self) -> &'static str {
        self.lock
    }

    /// How its temporary files start, `.mytool-` in `.mytool-XXXXXX.tmp`
    /// ([`TEMP_SUFFIX`]): a hidden name.
    pub const fn temp_prefix(&self) -> &'static str {
        self.temp_prefix
    }
}

/// Whether `text` holds no control character (C0, DEL or C1, NEL among
/// them) and no other line break of any YAML reader: U+2028 and U+2029
/// break lines for go-yaml (kubectl).
const fn one_line(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        // U+0080 to U+009F are 0xC2 0x80 to 0xC2 0x9F in UTF-8.
        let c1 = b == 0xC2 && i + 1 < bytes.len() && bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x9F;
        let separator = b == 0xE2
            && i + 2 < bytes.len()
            && bytes[i + 1] == 0x80
            && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9);
        if b < 0x20 || b == 0x7F || c1 || separator {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `name` is a hidden file name of ASCII letters, digits, `.`,
/// `-` and `_`, not only dots.
const fn hidden_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.len() < 2 || bytes[0] != b'.' {
        return false;
    }
    let mut i = 1;
    let mut letters = false;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_alphanumeric() {
            letters = true;
        } else if b != b'.' && b != b'-' && b != b'_' {
            return false;
        }
        i += 1;
    }
    letters
}

/// The kustomization file's name.
pub const KUSTOMIZATION: &str = "kustomization.yaml";

/// The files of a render, by path relative to the output directory: one per
/// object, the kustomization, and each of `artifacts` (path and text),
/// each marked as `owner`'s. An artifact may not take the path of another
/// file.
pub fn files(
    owner: &Owner,
    manifests: &[Manifest],
    artifacts: &[(&str, &str)],
) -> Result<BTreeMap<String, String>, Error> {
    let marker = owner.marker();
    let mut files = BTreeMap::new();
    let mut resources = Vec::new();
    // Objects whose paths collide (names that differ in case or in the
    // characters a file name does not hold, one kind of two groups) each
    // take a path marked with their whole identity.
    let mut paths: Vec<String> = manifests.iter().map(object_path).collect();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for path in &paths {
        *seen.entry(path.as_str()).or_default() += 1;
    }
    let colliding: HashSet<String> = (seen.into_iter())
        .filter(|&(_, n)| n > 1)
        .map(|(path, _)| path.to_owned())
        .collect();
    for (path, manifest) in paths.iter_mut().zip(manifests) {
        if colliding.contains(path.as_str()) {
            *path = identified_path(manifest);
        }
    }
    for (manifest, path) in manifests.iter().zip(paths) {
        let mut text = format!("{marker}\n");
        if let Some(template) = &manifest.template {
            text += &format!("# Source: templates/{template}\n");
        }
        manifest.push_block(&mut text);
        if files.insert(path.clone(), text).is_some() {
            return Err(Error::Output {
                path,
                reason: format!(
                    "two objects map to this file; the second is {}",
                    manifest.id
                ),
            });
        }
        resources.push(path);
    }
    let mut kustomization = format!(
        "{marker}\n# The objects of this directory in install order; `kubectl kustomize` reads them all.\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
    );
    for path in &resources {
        kustomization += &format!("  - {}\n", emit::scalar(path));
    }
    files.insert(KUSTOMIZATION.to_owned(), kustomization);
    for (path, text) in artifacts {
        if files
            .insert((*path).to_owned(), format!("{marker}\n{text}"))
            .is_some()
        {
            return Err(Error::Output {
                path: (*path).to_owned(),
                reason: "an artifact maps to the file of an object or the kustomization".to_owned(),
            });
        }
    }
    Ok(files)
}

/// The longest file name [`object_path`] writes, in bytes: well within
/// the 255 of Linux's and macOS's file systems (a name of 253 characters,
/// which Kubernetes allows, beside its kind would pass them).
pub const MAX_FILE_NAME: usize = 200;

/// `<namespace or cluster>/<kind>-<name>.yaml`, lowercase, with anything a
/// file name should not hold replaced by `_`. A file name longer than
/// [`MAX_FILE_NAME`] is cut, and ends with a digest of the object's
/// identity (`-<16 hex digits>.yaml`) so that two cut alike stay apart.
pub fn object_path(manifest: &Manifest) -> String {
    let id = &manifest.id;
    let folder = id
        .namespace
        .as_deref()
        .map_or_else(|| "cluster".to_owned(), clean);
    let stem = format!("{}-{}", clean(&id.kind), clean(&id.name));
    if stem.len() + ".yaml".len() <= MAX_FILE_NAME {
        return format!("{folder}/{stem}.yaml");
    }
    path_with_digest(&folder, &stem, manifest)
}

/// [`object_path`] for an object whose path another object's takes too:
/// its name ends with a digest of its whole identity (group, kind,
/// namespace and name as written).
fn identified_path(manifest: &Manifest) -> String {
    let id = &manifest.id;
    let folder = id
        .namespace
        .as_deref()
        .map_or_else(|| "cluster".to_owned(), clean);
    path_with_digest(
        &folder,
        &format!("{}-{}", clean(&id.kind), clean(&id.name)),
        manifest,
    )
}

/// `<folder>/<stem, cut>-<digest>.yaml`, the file name at most
/// [`MAX_FILE_NAME`] bytes.
fn path_with_digest(folder: &str, stem: &str, manifest: &Manifest) -> String {
    use sha2::Digest as _;
    let id = &manifest.id;
    let identity = format!(
        "{}\n{}\n{}\n{}",
        id.group,
        id.kind,
        id.namespace.as_deref().unwrap_or_default(),
        id.name
    );
    let digest = sha2::Sha256::digest(identity.as_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    // The stem is ASCII (`clean`): cut at any byte.
    let room = MAX_FILE_NAME - "-".len() - hex.len() - ".yaml".len();
    format!("{folder}/{}-{hex}.yaml", &stem[..stem.len().min(room)])
}

/// A kind, name or namespace as a file name holds it: lowercase ASCII
/// letters, digits, `-` and `.`, anything else `_`.
fn clean(s: &str) -> String {
    s.to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// What writing (or checking) a directory found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Files that were (or would be) created.
    pub added: Vec<String>,
    /// Files whose content was (or would be) replaced.
    pub changed: Vec<String>,
    /// Files of the owner's (the marker shows it) that were (or would be)
    /// removed: stale objects, temporary files and the lock file of an
    /// interrupted render.
    pub removed: Vec<String>,
    /// Files already as a render would write them.
    pub unchanged: usize,
    /// Files and links the tool did not write; left alone.
    pub foreign: Vec<String>,
}

impl Report {
    /// Whether the directory differs from the render.
    pub fn drifted(&self) -> bool {
        !(self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty())
    }
}

/// Compares the output directory with `files` (paths relative to it), as
/// `owner`; with `write`, makes it match. Returns one [`Report`] per entry of `groups`
/// (folders relative to the output directory, `""` for itself): each path
/// counts in the deepest group that holds it, relative to that group.
///
/// Every refusal comes before the first write: a file without the marker
/// where an object goes, a symbolic link at or above a path it writes, a
/// FIFO, device or socket anywhere in the tree, another render holding the
/// lock. Writing takes the lock ([`Owner::lock`], removed at the end),
/// plans again under it, then writes every file, kustomizations last, then
/// removes the owner's stale files and the folders they leave empty.
pub fn sync(
    owner: &Owner,
    root: &OutputDir,
    files: &BTreeMap<String, String>,
    groups: &[String],
    write: bool,
) -> Result<Vec<Report>, Error> {
    let plan = Plan::new(owner, root, files, (write, false))?;
    // Nothing to write: no lock taken either, so an up-to-date directory
    // is not touched at all (a render that is writing would have been seen
    // holding the lock).
    if !write || (plan.steps().is_empty() && !plan.stale_lock) {
        return Ok(plan.reports(groups));
    }
    // A lock file that is there before this render takes the lock is one a
    // killed render left: it goes with this render's, and is counted.
    let stale_lock = plan.stale_lock;
    let lock = write::Lock::acquire(root.real(), root.shown(), owner.lock())?;
    // Under the lock: what a render that just finished wrote counts too.
    let mut plan = Plan::new(owner, root, files, (write, true))?;
    if stale_lock {
        plan.actions
            .push((owner.lock().to_owned(), Action::Removed));
    }
    write::apply(lock.top(), (root.real(), root.shown()), &plan.steps())?;
    lock.release()?;
    Ok(plan.reports(groups))
}

/// What becomes of one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Added,
    Changed,
    Unchanged,
    Removed,
    Foreign,
}

/// Every decision of a render into one directory, made before any write.
struct Plan<'a> {
    /// Whose files these are.
    owner: &'a Owner,
    /// Each path and what becomes of it.
    actions: Vec<(String, Action)>,
    /// Folders to create.
    dirs: BTreeSet<String>,
    /// The files to write.
    files: &'a BTreeMap<String, String>,
    /// Whether a lock file is there (in check mode, counted as removed).
    stale_lock: bool,
}

/// What the plan does about a lock file left in the directory: a lock
/// another render holds is an error; a stale one is removed (and counted
/// as a change in check mode).
fn lock_action(
    (owner, root): (&Owner, &OutputDir),
    tree: &tree::Tree,
    write: bool,
    holding: bool,
) -> Result<Option<Action>, Error> {
    match tree.get(owner.lock()) {
        Some(Entry::Lock) if !holding => {
            // Another render is writing: say so, rather than whatever its
            // half-done state would make this plan say.
            if write::lock_held(&root.real().join(owner.lock()))? == Some(true) {
                return Err(write::busy(root.shown(), owner.lock()));
            }
            Ok((!write).then_some(Action::Removed))
        }
        Some(Entry::Foreign) => Err(refuse(
            &root.shown().join(owner.lock()),
            "it is not a regular file (the lock file has this name); remove it",
        )),
        _ => Ok(None),
    }
}

/// What the plan does with the file `relative` it writes: its folders
/// (added to `dirs` when missing) must be real folders, and what is there
/// now must be the owner's file or nothing.
fn file_action(
    tree: &tree::Tree,
    (real, shown): (&Path, &Path),
    relative: &str,
    text: &str,
    dirs: &mut BTreeSet<String>,
) -> Result<Action, Error> {
    let parts: Vec<&str> = relative.split('/').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || p.starts_with('.') || p.contains('\\'))
    {
        return Err(refuse(
            &join(shown, relative),
            "no such path is written (a bug)",
        ));
    }
    for end in 1..parts.len() {
        let folder = parts[..end].join("/");
        match tree.get(&folder) {
            None => {
                dirs.insert(folder);
            }
            Some(Entry::Dir) => {}
            Some(Entry::Foreign) => {
                return Err(refuse(
                    &join(shown, &folder),
                    "it is a symbolic link; nothing is written through links: remove it or make it a real folder",
                ));
            }
            Some(_) => {
                return Err(refuse(
                    &join(shown, &folder),
                    "it is a file where a folder is needed; move it away",
                ));
            }
        }
    }
    let path = join(shown, relative);
    match tree.get(relative) {
        None => Ok(Action::Added),
        Some(Entry::File { ours: true }) => {
            Ok(if tree::holds(&join(real, relative), &path, text)? {
                Action::Unchanged
            } else {
                Action::Changed
            })
        }
        Some(Entry::File { ours: false }) => Err(refuse(
            &path,
            "a file this tool did not write (its first line is not the marker) is where it would write an object; move it away",
        )),
        Some(Entry::Dir) => Err(refuse(
            &path,
            "a folder is where this tool would write a file; move it away",
        )),
        Some(_) => Err(refuse(
            &path,
            "it is a symbolic link; nothing is written through links: remove it",
        )),
    }
}

/// On a case-insensitive file system `Dev/x.yaml` is `dev/x.yaml`: writing
/// one and removing the other would remove what was written. Refuses a
/// name in the tree that differs only in case from one the render writes.
fn refuse_names_differing_in_case(
    tree: &tree::Tree,
    files: &BTreeMap<String, String>,
    shown: &Path,
) -> Result<(), Error> {
    let mut folded: BTreeMap<String, &str> = BTreeMap::new();
    for relative in files.keys() {
        let mut end = relative.len();
        loop {
            folded.insert(relative[..end].to_lowercase(), &relative[..end]);
            match relative[..end].rfind('/') {
                Some(slash) => end = slash,
                None => break,
            }
        }
    }
    for relative in tree.keys() {
        if let Some(ours) = folded.get(&relative.to_lowercase())
            && *ours != relative
        {
            return Err(refuse(
                &join(shown, relative),
                &format!(
                    "its name differs only in case from `{}`, which is to be written (one name on a case-insensitive file system); rename it",
                    printable(&join(shown, ours).display().to_string())
                ),
            ));
        }
    }
    Ok(())
}

impl<'a> Plan<'a> {
    /// `holding`: this process holds the lock.
    fn new(
        owner: &'a Owner,
        root: &OutputDir,
        files: &'a BTreeMap<String, String>,
        (write, holding): (bool, bool),
    ) -> Result<Plan<'a>, Error> {
        let (real, shown) = (root.real(), root.shown());
        let mut tree = tree::scan(owner, real, shown)?;
        // A lock file gone since the scan: a render that just finished
        // removed it; none is left, stale or held.
        if tree.get(owner.lock()) == Some(&Entry::Lock)
            && !holding
            && write::lock_held(&real.join(owner.lock()))?.is_none()
        {
            tree.remove(owner.lock());
        }
        let mut actions = Vec::new();
        if let Some(action) = lock_action((owner, root), &tree, write, holding)? {
            actions.push((owner.lock().to_owned(), action));
        }
        let mut dirs = BTreeSet::new();
        for (relative, text) in files {
            // A file this owner would not know as its own afterwards, which
            // the next render would refuse to replace.
            if !tree::starts_with_marker(text.as_bytes(), owner.marker()) {
                return Err(refuse(
                    &join(shown, relative),
                    "its text does not start with the owner's marker line (a bug)",
                ));
            }
            let action = file_action(&tree, (real, shown), relative, text, &mut dirs)?;
            actions.push((relative.clone(), action));
        }
        refuse_names_differing_in_case(&tree, files, shown)?;
        for (relative, kind) in &tree {
            if files.contains_key(relative) {
                continue;
            }
            let action = match kind {
                Entry::File { ours: true } | Entry::Temporary { ours: true } => Action::Removed,
                Entry::File { ours: false } | Entry::Temporary { ours: false } | Entry::Foreign => {
                    Action::Foreign
                }
                Entry::Dir | Entry::Lock => continue,
            };
            actions.push((relative.clone(), action));
        }
        Ok(Plan {
            owner,
            actions,
            dirs,
            files,
            stale_lock: tree.get(owner.lock()) == Some(&Entry::Lock),
        })
    }

    /// The write steps: folders, then files (kustomizations last, so that
    /// none lists a file not yet written), then removals.
    fn steps(&self) -> write::Steps<'_> {
        let is_kustomization =
            |p: &str| p == KUSTOMIZATION || p.ends_with(&format!("/{KUSTOMIZATION}"));
        let mut writes: Vec<(&str, &str)> = self
            .actions
            .iter()
            .filter(|(_, a)| matches!(a, Action::Added | Action::Changed))
            .map(|(p, _)| (p.as_str(), self.files[p].as_str()))
            .collect();
        writes.sort_by_key(|(p, _)| (is_kustomization(p), *p));
        write::Steps {
            owner: self.owner,
            dirs: self.dirs.iter().map(String::as_str).collect(),
            writes,
            removes: self
                .actions
                .iter()
                .filter(|(p, a)| *a == Action::Removed && p != self.owner.lock())
                .map(|(p, _)| p.as_str())
                .collect(),
        }
    }

    /// One report per group.
    fn reports(&self, groups: &[String]) -> Vec<Report> {
        let mut reports: Vec<Report> = groups.iter().map(|_| Report::default()).collect();
        for (relative, action) in &self.actions {
            let inside = |g: &String| g.is_empty() || relative.starts_with(&format!("{g}/"));
            let Some(index) = groups
                .iter()
                .enumerate()
                .filter(|(_, g)| inside(g))
                .max_by_key(|(_, g)| g.len())
                .map(|(i, _)| i)
            else {
                continue;
            };
            let group = &groups[index];
            let within = if group.is_empty() {
                relative.clone()
            } else {
                relative[group.len() + 1..].to_owned()
            };
            let report = &mut reports[index];
            match action {
                Action::Added => report.added.push(within),
                Action::Changed => report.changed.push(within),
                Action::Unchanged => report.unchanged += 1,
                Action::Removed => report.removed.push(within),
                Action::Foreign => report.foreign.push(within),
            }
        }
        for report in &mut reports {
            report.removed.sort();
            report.foreign.sort();
        }
        reports
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An owner of the tests' own: nothing here names a real program.
    const OWNER: Owner = Owner::new("# Written by testgen.", ".testgen.lock", ".testgen-");
    const MARKER: &str = OWNER.marker();
    const LOCK: &str = OWNER.lock();

    fn temp() -> (tempfile::TempDir, OutputDir) {
        let dir = tempfile::tempdir().unwrap();
        let out = OutputDir::new(&dir.path().join("out")).unwrap();
        (dir, out)
    }

    fn sync1(
        dir: &OutputDir,
        files: &BTreeMap<String, String>,
        write: bool,
    ) -> Result<Report, Error> {
        sync(&OWNER, dir, files, &[String::new()], write).map(|mut r| r.remove(0))
    }

    /// The files, and a kustomization listing them as a render writes it.
    fn files_of(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        let mut files: BTreeMap<String, String> = pairs
            .iter()
            .map(|(p, t)| ((*p).to_owned(), format!("{MARKER}\n{t}")))
            .collect();
        let listed: String = pairs.iter().map(|(p, _)| format!("  - {p}\n")).collect();
        files.insert(
            KUSTOMIZATION.to_owned(),
            format!("{MARKER}\nresources:\n{listed}"),
        );
        files
    }

    fn object(api_version: &str, kind: &str, namespace: Option<&str>, name: &str) -> Manifest {
        let mut json = serde_json::json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name}});
        if let Some(namespace) = namespace {
            json["metadata"]["namespace"] = namespace.into();
        }
        let node = crate::yaml::Node::from_json(&json, &crate::location::Origin::Default);
        Manifest::new(crate::manifest::identify(&node).unwrap(), node)
    }

    /// Every file name fits a file system: a name Kubernetes allows (253
    /// characters) beside its kind is cut, with a digest of the object's
    /// identity, so two names cut alike stay apart; objects whose paths
    /// collide (names differing in case, one kind of two groups) take
    /// paths marked with their identity, the others keep theirs; one
    /// object twice is still refused.
    #[test]
    fn every_object_has_a_file_of_its_own_that_fits() {
        let long = |last: char| format!("{}.{}", "a".repeat(200), last.to_string().repeat(52));
        let objects = [
            object("scheduling.k8s.io/v1", "PriorityClass", None, &long('b')),
            object("scheduling.k8s.io/v1", "PriorityClass", None, &long('c')),
            object("rbac.authorization.k8s.io/v1", "ClusterRole", None, "Foo"),
            object("rbac.authorization.k8s.io/v1", "ClusterRole", None, "foo"),
            object("v1", "Event", Some("apps"), "e1"),
            object("events.k8s.io/v1", "Event", Some("apps"), "e1"),
            object("v1", "ConfigMap", Some("apps"), "settings"),
        ];
        let files = files(&OWNER, &objects, &[]).unwrap();
        let paths: Vec<&String> = files.keys().filter(|p| *p != KUSTOMIZATION).collect();
        assert_eq!(paths.len(), objects.len(), "{paths:#?}");
        for path in &paths {
            let name = path.rsplit('/').next().unwrap();
            assert!(name.len() <= MAX_FILE_NAME, "{name}");
        }
        assert!(
            files.contains_key("apps/configmap-settings.yaml"),
            "{paths:#?}"
        );
        let digested = |prefix: &str| {
            (paths.iter())
                .filter(|p| {
                    p.strip_prefix(prefix).is_some_and(|rest| {
                        rest.len() == "-0123456789abcdef.yaml".len() && rest.ends_with(".yaml")
                    })
                })
                .count()
        };
        assert_eq!(digested("cluster/clusterrole-foo"), 2, "{paths:#?}");
        assert_eq!(digested("apps/event-e1"), 2, "{paths:#?}");
        let stem = format!("priorityclass-{}", long('b'));
        let cut = format!(
            "cluster/{}",
            &stem[..MAX_FILE_NAME - "-0123456789abcdef.yaml".len()]
        );
        assert_eq!(digested(&cut), 2, "{paths:#?}");
        // The same names, the same files: nothing moves from one render to
        // the next.
        assert_eq!(super::files(&OWNER, &objects, &[]).unwrap(), files);
        let twice = [objects[6].clone(), objects[6].clone()];
        assert!(super::files(&OWNER, &twice, &[]).is_err());
    }

    #[test]
    fn writes_then_keeps_then_removes_only_its_own_files() {
        let (_keep, out) = temp();
        let dir = out.real();
        let first = files_of(&[("a/x.yaml", "x: 1\n"), ("b/y.yaml", "y: 1\n")]);
        let report = sync1(&out, &first, true).unwrap();
        assert_eq!(report.added, ["a/x.yaml", "b/y.yaml", KUSTOMIZATION]);
        std::fs::write(dir.join("README.md"), "mine\n").unwrap();
        let again = sync1(&out, &first, true).unwrap();
        assert_eq!((again.unchanged, again.drifted()), (3, false));
        assert_eq!(again.foreign, ["README.md"]);
        let second = files_of(&[("a/x.yaml", "x: 2\n")]);
        let check = sync1(&out, &second, false).unwrap();
        assert_eq!(check.changed, ["a/x.yaml", KUSTOMIZATION]);
        assert_eq!(check.removed, ["b/y.yaml"]);
        assert!(dir.join("b/y.yaml").exists(), "a check writes nothing");
        sync1(&out, &second, true).unwrap();
        assert!(!dir.join("b").exists(), "the emptied folder goes too");
        assert!(!dir.join(LOCK).exists(), "the lock goes at the end");
        assert_eq!(
            std::fs::read_to_string(dir.join("README.md")).unwrap(),
            "mine\n"
        );
    }

    #[test]
    fn links_are_never_followed_nor_written_through() {
        let (_keep, out) = temp();
        let dir = out.real();
        let elsewhere = tempfile::tempdir().unwrap();
        let elsewhere = elsewhere.path();
        std::fs::write(elsewhere.join("keep.yaml"), format!("{MARKER}\nkeep: me\n")).unwrap();
        sync1(&out, &files_of(&[("a/x.yaml", "x: 1\n")]), true).unwrap();
        std::os::unix::fs::symlink(elsewhere, dir.join("shared")).unwrap();
        let report = sync1(&out, &files_of(&[("a/x.yaml", "x: 1\n")]), true).unwrap();
        assert_eq!(report.foreign, ["shared"]);
        assert!(elsewhere.join("keep.yaml").exists());
        let error = sync1(&out, &files_of(&[("shared/y.yaml", "y: 1\n")]), true).unwrap_err();
        assert!(error.to_string().contains("is a symbolic link"), "{error}");
        assert!(!elsewhere.join("y.yaml").exists());
    }

    #[test]
    fn a_foreign_file_in_the_way_is_an_error_and_nothing_is_written() {
        let (_keep, out) = temp();
        let dir = out.real();
        std::fs::create_dir_all(dir.join("b")).unwrap();
        std::fs::write(dir.join("b/x.yaml"), "hand: written\n").unwrap();
        let files = files_of(&[("a/x.yaml", "x: 1\n"), ("b/x.yaml", "x: 1\n")]);
        let error = sync1(&out, &files, true).unwrap_err();
        assert!(error.to_string().starts_with("cannot write "), "{error}");
        assert_eq!(
            std::fs::read_to_string(dir.join("b/x.yaml")).unwrap(),
            "hand: written\n"
        );
        assert!(!dir.join("a").exists(), "a refused render writes nothing");
        assert!(!dir.join(LOCK).exists());
    }

    #[test]
    fn files_with_the_marker_are_ours_whoever_listed_them() {
        let (_keep, out) = temp();
        let dir = out.real();
        sync1(&out, &files_of(&[("a/x.yaml", "x: 1\n")]), true).unwrap();
        // What a killed render left: a file no kustomization lists, a
        // temporary file cut short, its lock.
        std::fs::create_dir_all(dir.join("c")).unwrap();
        std::fs::write(dir.join("c/z.yaml"), format!("{MARKER}\nz: 1\n")).unwrap();
        std::fs::write(dir.join("a/.testgen-Ab12Cd.tmp"), &MARKER[..10]).unwrap();
        std::fs::write(dir.join(LOCK), "").unwrap();
        // As earlier builds named their temporary files.
        std::fs::write(
            dir.join("a/.x.yaml.testgen-4242.tmp"),
            format!("{MARKER}\nx: 0\n"),
        )
        .unwrap();
        // And a hostile temporary-looking file that is not ours.
        std::fs::write(dir.join("a/.testgen-zzzzzz.tmp"), "secret\n").unwrap();
        let files = files_of(&[("a/x.yaml", "x: 1\n")]);
        let check = sync1(&out, &files, false).unwrap();
        assert_eq!(
            check.removed,
            [
                LOCK,
                "a/.testgen-Ab12Cd.tmp",
                "a/.x.yaml.testgen-4242.tmp",
                "c/z.yaml"
            ]
        );
        assert_eq!(check.foreign, ["a/.testgen-zzzzzz.tmp"]);
        sync1(&out, &files, true).unwrap();
        let check = sync1(&out, &files, false).unwrap();
        assert!(!check.drifted(), "{check:?}");
        assert!(dir.join("a/.testgen-zzzzzz.tmp").exists());
        assert!(!dir.join("c").exists());
    }

    #[test]
    fn a_held_lock_refuses_a_second_render_and_a_check() {
        let (_keep, out) = temp();
        let dir = out.real();
        std::fs::create_dir_all(dir).unwrap();
        let held = std::fs::File::create(dir.join(LOCK)).unwrap();
        held.lock().unwrap();
        let files = files_of(&[("a/x.yaml", "x: 1\n")]);
        for write in [true, false] {
            let error = sync1(&out, &files, write).unwrap_err();
            assert!(
                error.to_string().contains("another process is writing"),
                "{error}"
            );
        }
        assert!(!dir.join("a").exists(), "nothing of the second render");
        drop(held);
        sync1(&out, &files, true).unwrap();
        assert!(!dir.join(LOCK).exists());
    }

    #[test]
    fn another_owners_files_are_foreign() {
        let (_keep, out) = temp();
        let dir = out.real();
        let other = Owner::new("# Written by othergen.", ".othergen.lock", ".othergen-");
        let files = files_of(&[("a/x.yaml", "x: 1\n")]);
        sync1(&out, &files, true).unwrap();
        std::fs::write(dir.join("a/y.yaml"), format!("{}\ny: 1\n", other.marker())).unwrap();
        std::fs::write(dir.join(other.lock()), "").unwrap();
        let check = sync1(&out, &files, false).unwrap();
        assert_eq!(
            (check.removed.len(), check.foreign),
            (0, vec!["a/y.yaml".to_owned()])
        );
        // The other program sees this one's files as foreign, and its own
        // stale file and lock as its to remove.
        let theirs = sync(&other, &out, &BTreeMap::new(), &[String::new()], false).unwrap();
        assert_eq!(theirs[0].removed, [other.lock(), "a/y.yaml"]);
        assert_eq!(theirs[0].foreign, ["a/x.yaml", KUSTOMIZATION]);
    }

    #[test]
    fn files_another_owner_marked_are_not_written() {
        let (_keep, out) = temp();
        let other = Owner::new("# Written by othergen.", ".othergen.lock", ".othergen-");
        let files = files_of(&[("a/x.yaml", "x: 1\n")]);
        let error = sync(&other, &out, &files, &[String::new()], true).unwrap_err();
        assert!(error.to_string().contains("owner's marker line"), "{error}");
        assert!(!out.real().exists(), "nothing written");
    }

    #[test]
    fn an_owner_refuses_names_that_are_no_marker_or_hidden_file() {
        for (marker, lock, prefix) in [
            ("Written by x", ".x.lock", ".x-"),
            ("# two\nlines", ".x.lock", ".x-"),
            ("# two\u{2028}lines", ".x.lock", ".x-"),
            ("# two\u{85}lines", ".x.lock", ".x-"),
            ("# an \u{9b}31m escape", ".x.lock", ".x-"),
            ("# a\ttab", ".x.lock", ".x-"),
            ("# x", "..", ".x-"),
            ("# x", ".", ".x-"),
            ("# x", "x.lock", ".x-"),
            ("# x", ".x/lock", ".x-"),
            ("# x", ".x.lock", "..."),
        ] {
            let made = std::panic::catch_unwind(|| Owner::new(marker, lock, prefix));
            assert!(made.is_err(), "{marker:?} {lock:?} {prefix:?}");
        }
    }

    #[test]
    fn a_name_that_differs_only_in_case_is_refused_before_any_write() {
        let (_keep, out) = temp();
        let dir = out.real();
        std::fs::create_dir_all(dir.join("Dev/release")).unwrap();
        std::fs::write(dir.join("Dev/release/x.yaml"), format!("{MARKER}\nx: 0\n")).unwrap();
        let mut files = BTreeMap::new();
        files.insert("dev/release/x.yaml".to_owned(), format!("{MARKER}\nx: 1\n"));
        let error = sync1(&out, &files, true).unwrap_err();
        assert!(
            error.to_string().contains("differs only in case from"),
            "{error}"
        );
        assert!(!dir.join("dev").exists());
        assert!(dir.join("Dev/release/x.yaml").exists());
    }
}
