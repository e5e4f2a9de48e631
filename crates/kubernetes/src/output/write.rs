//! Carrying out a [`super::Plan`]: the lock, then every write step.
//!
//! Each step (a folder created, a temporary file created, its first line
//! written, the rest written, the rename, a removal, the lock taken or
//! dropped) passes through [`step`], where a test can stop the process as a
//! kill would (see [`STOP_AT_STEP`]).

use std::fs::File;
use std::io::Write as _;
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Owner;
use super::tree::{TEMP_SUFFIX, join};
use crate::error::Error;
use crate::text::printable;

/// Test hook, not an interface: with this variable set to N, the process
/// exits with [`STOPPED`] right before its write step N (counted from 0),
/// running no cleanup, as if it were killed there. Honoured only by a build
/// with debug assertions (a test's or a developer's), never by a release
/// build, whatever its environment. The fault-injection test
/// (`tests/it/output.rs`) uses it; nothing else sets it.
#[doc(hidden)]
pub const STOP_AT_STEP: &str = "TEST_ONLY_STOP_BEFORE_OUTPUT_WRITE_STEP";

/// The exit code of a process stopped by [`STOP_AT_STEP`].
#[doc(hidden)]
pub const STOPPED: i32 = 86;

/// Counts one write step; stops the process here when the test hook asks.
fn step() {
    static STOP: OnceLock<Option<u64>> = OnceLock::new();
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let stop = STOP.get_or_init(|| {
        if !cfg!(debug_assertions) {
            return None;
        }
        std::env::var(STOP_AT_STEP)
            .ok()
            .and_then(|v| v.parse().ok())
    });
    let count = COUNT.fetch_add(1, Ordering::SeqCst);
    if *stop == Some(count) {
        eprintln!("stopped before write step {count} ({STOP_AT_STEP})");
        std::process::exit(STOPPED);
    }
}

pub(super) fn fail(path: &Path, source: std::io::Error) -> Error {
    Error::WriteOutput {
        path: printable(&path.display().to_string()).into_owned(),
        source,
    }
}

pub(super) fn refuse(path: &Path, reason: &str) -> Error {
    Error::Output {
        path: printable(&path.display().to_string()).into_owned(),
        reason: reason.to_owned(),
    }
}

/// The lock that keeps two renders out of one directory at once: an
/// exclusive `flock` on the owner's lock file ([`Owner::lock`]) at its
/// top, taken without waiting.
/// The file goes when the render ends; one a killed render left is taken
/// over (the kernel dropped its lock) and goes too.
pub(super) struct Lock {
    path: PathBuf,
    // Held for its lock; closing it unlocks.
    _file: File,
    released: bool,
}

impl Lock {
    /// Creates the missing folders down to `root` (each checked not to be a
    /// link when [`super::OutputDir::new`] ran), then takes the lock of
    /// the file named `lock`. `shown` is the directory as the user gave
    /// it, for the error.
    pub(super) fn acquire(root: &Path, shown: &Path, lock: &str) -> Result<Lock, Error> {
        create_dirs(root)?;
        let path = root.join(lock);
        // The path must still name the file locked: a render that ends
        // removes it, and one that starts then creates a new one.
        for _ in 0..8 {
            step();
            let file = match std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .mode(0o666)
                .open(&path)
            {
                Ok(file) => file,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let metadata = std::fs::symlink_metadata(&path).map_err(|e| fail(&path, e))?;
                    if !metadata.is_file() {
                        return Err(refuse(
                            &path,
                            "it is not a regular file (the lock file has this name); remove it",
                        ));
                    }
                    std::fs::OpenOptions::new()
                        .read(true)
                        .write(true)
                        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
                        .open(&path)
                        .map_err(|e| fail(&path, e))?
                }
                Err(e) => return Err(fail(&path, e)),
            };
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => return Err(busy(shown, lock)),
                Err(std::fs::TryLockError::Error(e)) => return Err(fail(&path, e)),
            }
            let held = file.metadata().map_err(|e| fail(&path, e))?;
            let named = std::fs::symlink_metadata(&path);
            if named.is_ok_and(|n| n.dev() == held.dev() && n.ino() == held.ino()) {
                return Ok(Lock {
                    path,
                    _file: file,
                    released: false,
                });
            }
        }
        Err(busy(shown, lock))
    }

    /// Removes the lock file, then unlocks.
    pub(super) fn release(mut self) -> Result<(), Error> {
        step();
        self.released = true;
        std::fs::remove_file(&self.path).map_err(|e| fail(&self.path, e))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        if !self.released {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The error for a directory another render is writing, which holds the
/// lock file `lock`.
pub(super) fn busy(root: &Path, lock: &str) -> Error {
    refuse(
        root,
        &format!(
            "another render is writing this directory now (it holds {lock}); wait for it to finish, then run again"
        ),
    )
}

/// Whether another process holds the lock on the lock file at `path`
/// (opened for reading only, so `--check` writes nothing).
pub(super) fn lock_held(path: &Path) -> Result<bool, Error> {
    let file = crate::files::open_regular(path, false).map_err(|e| fail(path, e))?;
    match file.try_lock_shared() {
        Ok(()) => Ok(false),
        Err(std::fs::TryLockError::WouldBlock) => Ok(true),
        Err(std::fs::TryLockError::Error(e)) => Err(fail(path, e)),
    }
}

/// Creates every missing folder down to `dir`, one step each; an existing
/// component must be a real directory.
fn create_dirs(dir: &Path) -> Result<(), Error> {
    let mut missing = Vec::new();
    let mut current = Some(dir);
    while let Some(path) = current {
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.is_dir() => break,
            Ok(_) => return Err(refuse(path, "it is not a directory")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => missing.push(path),
            Err(e) => return Err(fail(path, e)),
        }
        current = path.parent();
    }
    for path in missing.into_iter().rev() {
        step();
        match std::fs::create_dir(path) {
            Ok(()) => {}
            // mkdir never follows a link: an existing name is checked again.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
                    return Err(refuse(path, "it is not a directory"));
                }
            }
            Err(e) => return Err(fail(path, e)),
        }
    }
    Ok(())
}

/// What [`super::Plan`] decided, for [`apply`].
pub(super) struct Steps<'a> {
    /// Whose files these are.
    pub owner: &'a Owner,
    /// Folders to create, parents first, relative to the root.
    pub dirs: Vec<&'a str>,
    /// Files to write, kustomizations last.
    pub writes: Vec<(&'a str, &'a str)>,
    /// Files to remove: the owner's stale files and temporaries.
    pub removes: Vec<&'a str>,
}

impl Steps<'_> {
    /// Whether there is nothing to do.
    pub(super) fn is_empty(&self) -> bool {
        self.dirs.is_empty() && self.writes.is_empty() && self.removes.is_empty()
    }
}

/// Carries out `steps` below `root` (the lock held).
pub(super) fn apply(root: &Path, steps: &Steps<'_>) -> Result<(), Error> {
    for dir in &steps.dirs {
        create_dirs(&join(root, dir))?;
    }
    let mut touched = std::collections::BTreeSet::new();
    for (relative, text) in &steps.writes {
        let path = join(root, relative);
        write_atomically(&path, text, steps.owner)?;
        touched.insert(path.parent().map(Path::to_path_buf));
    }
    for relative in &steps.removes {
        let path = join(root, relative);
        // Checked again right before: still a regular file, not a link.
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            continue;
        }
        step();
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(fail(&path, e)),
        }
        touched.insert(path.parent().map(Path::to_path_buf));
        remove_empty_parents(root, &path, &mut touched);
    }
    // The renames and removals reach the disk before the lock goes.
    for dir in touched.into_iter().flatten() {
        if let Ok(handle) = File::open(&dir) {
            let _ = handle.sync_all();
        }
    }
    Ok(())
}

/// Writes `text` into a new temporary file beside `path` (created
/// exclusively, never through a link, with an unpredictable name), then
/// renames it over `path`: readers see the old or the new file. The
/// temporary file's name and first line are `owner`'s.
fn write_atomically(path: &Path, text: &str, owner: &Owner) -> Result<(), Error> {
    let parent = path.parent().unwrap_or(Path::new("."));
    if !std::fs::symlink_metadata(parent).is_ok_and(|m| m.is_dir())
        || std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file())
    {
        return Err(refuse(
            path,
            "it changed since it was looked at (a link, a folder or a special file is there now)",
        ));
    }
    step();
    let mut file = tempfile::Builder::new()
        .prefix(owner.temp_prefix())
        .suffix(TEMP_SUFFIX)
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(parent)
        .map_err(|e| fail(path, e))?;
    // The marker line first: a temporary file cut short anywhere is still
    // recognisably the owner's.
    let (first, rest) = text.split_at(text.find('\n').map_or(text.len(), |i| i + 1));
    debug_assert!(first.starts_with(owner.marker()));
    step();
    file.write_all(first.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| fail(path, e))?;
    step();
    file.write_all(rest.as_bytes())
        .and_then(|()| file.as_file().sync_all())
        .map_err(|e| fail(path, e))?;
    step();
    file.persist(path).map_err(|e| fail(path, e.error))?;
    Ok(())
}

/// Removes the folders `path` leaves empty, up to (not including) `root`.
fn remove_empty_parents(
    root: &Path,
    path: &Path,
    touched: &mut std::collections::BTreeSet<Option<PathBuf>>,
) {
    let mut dir = path.parent();
    while let Some(current) = dir {
        if current == root || !current.starts_with(root) {
            break;
        }
        let empty = std::fs::read_dir(current).is_ok_and(|mut d| d.next().is_none());
        if !empty {
            break;
        }
        step();
        if std::fs::remove_dir(current).is_err() {
            break;
        }
        touched.remove(&Some(current.to_path_buf()));
        touched.insert(current.parent().map(Path::to_path_buf));
        dir = current.parent();
    }
}
