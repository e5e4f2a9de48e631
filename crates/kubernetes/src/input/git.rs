//! Manifests from a git revision, without a checkout: `REV:PATH`.
//!
//! The `git` binary answers (`rev-parse`, `ls-tree`, `cat-file --batch`),
//! never through a shell, every argument passed as one `argv` entry after
//! `--end-of-options` or `--`, a revision starting with `-` refused before.
//! The file or folder is copied into a private temporary directory as a
//! checkout would write it (regular files; a symbolic link as a link to the
//! same target; a submodule as the folder of its checkout, marked by its
//! `.git`), bounded by the byte budget (what the reader reads by name)
//! before anything is read, and then
//! read by the directory reader: one reading of a folder, so a revision's
//! folder is read exactly as a checkout of it is (kustomization, unlisted
//! files, links and submodules skipped or refused with the same words,
//! GitOps applications). Only the file or folder named is refused when it
//! is a link or a submodule: outside a checkout, nothing to follow it to.
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::os::unix::ffi::OsStringExt as _;
use std::path::{Component, Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::text::printable;

/// The most entries a revision's folder may hold: bounds what a hostile
/// tree of empty files costs.
const MAX_ENTRIES: usize = 100_000;

/// The most bytes `git ls-tree` may print (names, ids, sizes).
const MAX_LISTING: u64 = 64 << 20;

/// A `REV:PATH` argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The revision: anything `git rev-parse` takes (a branch, tag, commit,
    /// `HEAD~1`, `origin/main`).
    pub rev: String,
    /// The path from the top of the repository, `/`-separated; empty for
    /// the whole tree.
    pub path: String,
}

impl Spec {
    /// The argument as given, for messages.
    pub fn shown(&self) -> String {
        format!("{}:{}", self.rev, self.path)
    }

    /// `REV:PATH/name`, for `name` inside the named folder, as a user
    /// would write it (`REV:name` beneath the whole tree, never `REV:/name`).
    pub fn beneath(&self, name: &str) -> String {
        if self.path.is_empty() {
            format!("{}:{name}", self.rev)
        } else {
            format!("{}:{}/{name}", self.rev, self.path)
        }
    }
}

/// Whether `arg` names a file or folder in a git revision rather than a
/// local path. A local path wins: `-`, an existing file or folder, and
/// anything starting with `/`, `./` or `../` is local; otherwise an
/// argument with a `:` after a non-empty revision is `REV:PATH` (a git
/// revision never holds a `:`).
pub fn parse(arg: &str) -> Option<Spec> {
    if arg == "-"
        || arg.starts_with('/')
        || arg.starts_with("./")
        || arg.starts_with("../")
        || std::fs::symlink_metadata(arg).is_ok()
    {
        return None;
    }
    let (rev, path) = arg.split_once(':')?;
    (!rev.is_empty()).then(|| Spec {
        rev: rev.to_owned(),
        path: path.trim_end_matches('/').to_owned(),
    })
}

/// A revision's file or folder, copied into a private temporary directory
/// that lives as long as this value.
#[derive(Debug)]
pub struct Tree {
    /// Removed when the tree is dropped.
    _dir: tempfile::TempDir,
    /// The copy of the named file or folder.
    root: PathBuf,
    /// The argument, `REV:PATH`, that names it (and, beneath it, its
    /// files) in messages.
    pub spec: Spec,
}

impl Tree {
    /// The copy of the named file or folder.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

fn error(message: String) -> std::io::Error {
    std::io::Error::other(message)
}

/// One entry of `git ls-tree -z -l`.
struct Entry {
    mode: String,
    oid: String,
    size: u64,
    path: String,
}

/// Copies `spec`'s file or folder out of the repository of the current
/// directory, refusing more than `budget` bytes before reading any.
pub fn materialise(spec: &Spec, budget: u64) -> std::io::Result<Tree> {
    let shown = printable(&spec.shown()).into_owned();
    check_spec(spec)?;
    let git_dir = run(&["rev-parse", "--git-dir"]);
    if let Err(why) = git_dir {
        return Err(error(format!(
            "not a git repository here, so `{shown}` cannot be read as REV:PATH ({why}): run inside the repository, or write ./{shown} for a local file whose name holds a colon"
        )));
    }
    let tree = run(&[
        "rev-parse",
        "--verify",
        "--quiet",
        "--end-of-options",
        &format!("{}^{{tree}}", spec.rev),
    ])
    .map_err(|_| {
        error(format!(
            "unknown revision `{}` in `{shown}`, and no local file or folder has that name",
            printable(&spec.rev)
        ))
    })?;
    let tree = tree.trim().to_owned();
    let dir = tempfile::Builder::new()
        .prefix("manifests-rev-")
        .tempdir()?;
    let (entries, base, root) = if spec.path.is_empty() {
        (
            list(&tree, &shown)?,
            dir.path().to_owned(),
            dir.path().to_owned(),
        )
    } else {
        let name = spec.path.rsplit('/').next().unwrap_or_default();
        let root = dir.path().join(name);
        let entry = named_entry(&tree, spec, &shown)?;
        match entry.mode.as_str() {
            "040000" => (list(&entry.oid, &shown)?, root.clone(), root),
            "100644" | "100755" => {
                let file = Entry {
                    path: name.to_owned(),
                    ..entry
                };
                (vec![file], dir.path().to_owned(), root)
            }
            mode => return Err(error(format!("`{shown}` is {}", unreadable(mode)))),
        }
    };
    copy(&entries, &base, budget, &shown)?;
    Ok(Tree {
        _dir: dir,
        root,
        spec: spec.clone(),
    })
}

/// Refuses a revision that `git` could take as an option, and a path that
/// leaves the tree or names it twice.
fn check_spec(spec: &Spec) -> std::io::Result<()> {
    if spec.rev.starts_with('-') {
        return Err(error(format!(
            "`{}` is no revision: a revision never starts with `-`",
            printable(&spec.rev)
        )));
    }
    if spec.path.contains('\0')
        || Path::new(&spec.path)
            .components()
            .any(|c| !matches!(c, Component::Normal(_)))
    {
        return Err(error(format!(
            "`{}`: the path of REV:PATH goes from the top of the repository, without `.`, `..` or a leading `/`",
            printable(&spec.shown())
        )));
    }
    Ok(())
}

/// What a tree entry of `mode` is, when it is not read.
fn unreadable(mode: &str) -> String {
    match mode {
        "120000" => "a symbolic link in the revision; links are not followed".to_owned(),
        "160000" => {
            "a submodule; no other repository is read (name a path inside the submodule's own repository)".to_owned()
        }
        other => format!("a tree entry of mode {other}, which is not read"),
    }
}

/// The entry `spec.path` names in `tree`, or why there is none.
fn named_entry(tree: &str, spec: &Spec, shown: &str) -> std::io::Result<Entry> {
    let listing = run(&[
        "--literal-pathspecs",
        "ls-tree",
        "-z",
        "-l",
        "--full-tree",
        tree,
        "--",
        &spec.path,
    ])
    .map_err(error)?;
    let mut entries = parse_listing(&listing, shown)?;
    entries.retain(|e| e.path == spec.path);
    entries.pop().ok_or_else(|| {
        error(format!(
            "`{}` is not in revision `{}` (the path goes from the top of the repository)",
            printable(&spec.path),
            printable(&spec.rev)
        ))
    })
}

/// Every entry under the tree `oid`, recursively: files, links and
/// submodules.
fn list(oid: &str, shown: &str) -> std::io::Result<Vec<Entry>> {
    let listing = run(&["ls-tree", "-r", "-z", "-l", "--end-of-options", oid]).map_err(error)?;
    let entries = parse_listing(&listing, shown)?;
    if entries.len() > MAX_ENTRIES {
        return Err(error(format!(
            "`{shown}` holds more than {MAX_ENTRIES} files; rendered folders are read, not whole repositories"
        )));
    }
    Ok(entries)
}

/// Reads `git ls-tree -z -l` output: `MODE TYPE OID SIZE\tPATH\0`.
fn parse_listing(listing: &str, shown: &str) -> std::io::Result<Vec<Entry>> {
    let malformed = || error(format!("git listed `{shown}` in a form not known here"));
    listing
        .split('\0')
        .filter(|record| !record.is_empty())
        .map(|record| {
            let (meta, path) = record.split_once('\t').ok_or_else(malformed)?;
            let mut fields = meta.split_whitespace();
            let (Some(mode), Some(_kind), Some(oid), Some(size)) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                return Err(malformed());
            };
            let safe = Path::new(path)
                .components()
                .all(|c| matches!(c, Component::Normal(_)));
            if !safe || path.is_empty() {
                return Err(error(format!(
                    "`{shown}` holds the path `{}`, which leaves the folder; it is refused",
                    printable(path)
                )));
            }
            Ok(Entry {
                mode: mode.to_owned(),
                oid: oid.to_owned(),
                // A submodule has no size (`-`).
                size: size.parse().unwrap_or(0),
                path: path.to_owned(),
            })
        })
        .collect()
}

/// Mode of a symbolic link in a git tree.
const LINK: &str = "120000";

/// Mode of a submodule in a git tree.
const SUBMODULE: &str = "160000";

/// Writes every entry under `base` as a checkout would (a file's blob, a
/// link to its target, a submodule's folder with its `.git`), after
/// checking that the files the directory reader reads by their name
/// (manifests, kustomizations: [`crate::input::read_by_name`]) fit in
/// `budget`, as they must on disk. Any other file (a README, an image, an
/// archive) is read only when a kustomization lists it: it is copied too
/// when everything fits, and left out when it does not, so that a large
/// file beside the manifests refuses the revision no more than the folder
/// on disk (a kustomization that lists a file left out finds it missing).
fn copy(entries: &[Entry], base: &Path, budget: u64, shown: &str) -> std::io::Result<()> {
    let is_file = |entry: &&Entry| !matches!(entry.mode.as_str(), LINK | SUBMODULE);
    let read = |entry: &Entry| crate::input::read_by_name(Path::new(&entry.path));
    let size = |sum: u64, entry: &Entry| sum.saturating_add(entry.size);
    let manifests = (entries.iter().filter(is_file))
        .filter(|e| read(e))
        .fold(0u64, size);
    if manifests >= budget {
        return Err(error(format!(
            "`{shown}` holds {manifests} bytes of manifests, more than is left of the limit of {} bytes for the whole input; nothing of it was read",
            crate::manifest::LIMITS.max_bytes
        )));
    }
    let others_fit = entries.iter().filter(is_file).fold(0u64, size) < budget;
    std::fs::create_dir_all(base)?;
    if entries.is_empty() {
        return Ok(());
    }
    let mut batch = Batch::start()?;
    for entry in entries {
        if !others_fit && is_file(&entry) && !read(entry) {
            continue;
        }
        let target = base.join(&entry.path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        match entry.mode.as_str() {
            "100644" | "100755" => {
                let blob = batch.blob(&entry.oid, entry.size)?;
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&target)?
                    .write_all(&blob)?;
            }
            // Never followed by the reader: only its being a link counts.
            LINK if entry.size <= 4096 => {
                let blob = batch.blob(&entry.oid, entry.size)?;
                let to = std::ffi::OsString::from_vec(blob);
                std::os::unix::fs::symlink(to, &target)?;
            }
            LINK => std::os::unix::fs::symlink("too-long", &target)?,
            SUBMODULE => {
                std::fs::create_dir_all(&target)?;
                std::fs::write(target.join(".git"), "")?;
            }
            mode => {
                return Err(error(format!(
                    "`{shown}` holds {}, {}",
                    printable(&entry.path),
                    unreadable(mode)
                )));
            }
        }
    }
    batch.finish()
}

/// `git cat-file --batch`, asked for one blob at a time (so neither side
/// waits on a full pipe).
struct Batch {
    child: Child,
    output: BufReader<std::process::ChildStdout>,
}

impl Batch {
    fn start() -> std::io::Result<Self> {
        let mut child = git()
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let output = BufReader::new(child.stdout.take().ok_or_else(|| error("no pipe".into()))?);
        Ok(Batch { child, output })
    }

    /// The blob `oid`, which `ls-tree` said holds `size` bytes; anything
    /// else git answers is refused.
    fn blob(&mut self, oid: &str, size: u64) -> std::io::Result<Vec<u8>> {
        let input = self
            .child
            .stdin
            .as_mut()
            .ok_or_else(|| error("no pipe".into()))?;
        writeln!(input, "{oid}")?;
        input.flush()?;
        let mut header = String::new();
        (&mut self.output).take(512).read_line(&mut header)?;
        if header.trim_end() != format!("{oid} blob {size}") {
            return Err(error(format!(
                "git answered `{}` for blob {oid}",
                printable(header.trim_end())
            )));
        }
        let mut blob = Vec::new();
        (&mut self.output).take(size + 1).read_to_end(&mut blob)?;
        if blob.pop() != Some(b'\n') || blob.len() as u64 != size {
            return Err(error(format!("git's answer for blob {oid} was cut short")));
        }
        Ok(blob)
    }

    fn finish(mut self) -> std::io::Result<()> {
        drop(self.child.stdin.take());
        self.child.wait()?;
        Ok(())
    }
}

/// `git` in the current directory: no pager, no prompt, no optional locks,
/// no fetch of a partial clone's missing objects (reading a revision never
/// reaches the network), nothing read from stdin unless asked.
fn git() -> Command {
    let mut command = Command::new("git");
    command
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_NO_LAZY_FETCH", "1")
        .env_remove("GIT_PAGER")
        .stdin(Stdio::null());
    command
}

/// Runs `git ARGS` and returns its stdout (at most [`MAX_LISTING`] bytes),
/// or its first stderr line as the reason it failed.
fn run(args: &[&str]) -> Result<String, String> {
    let mut child = git()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    // stderr drains on its own thread: git may fill that pipe before it
    // writes stdout, and would then wait on us while we wait on it.
    let stderr = child.stderr.take();
    let errors = std::thread::spawn(move || {
        let mut err = Vec::new();
        if let Some(mut stderr) = stderr {
            let _ = (&mut stderr).take(4096).read_to_end(&mut err);
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        }
        String::from_utf8_lossy(&err).into_owned()
    });
    let mut out = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        stdout
            .take(MAX_LISTING + 1)
            .read_to_end(&mut out)
            .map_err(|e| e.to_string())?;
    }
    if out.len() as u64 > MAX_LISTING {
        // git waits to write the rest: stop it rather than read on.
        let _ = child.kill();
        let _ = child.wait();
        return Err(format!("git printed more than {MAX_LISTING} bytes"));
    }
    let err = errors.join().unwrap_or_default();
    let status = child.wait().map_err(|e| e.to_string())?;
    if !status.success() {
        let first = err.lines().next().unwrap_or("git failed").trim();
        return Err(printable(first).into_owned());
    }
    String::from_utf8(out).map_err(|_| "git printed a name that is not UTF-8".to_owned())
}
