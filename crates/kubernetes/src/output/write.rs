//! Carrying out a [`super::Plan`]: the lock, then every write step.
//!
//! Each step (a folder created, a temporary file created, its first line
//! written, the rest written, the rename, a removal, the lock taken or
//! dropped) passes through [`step`], where a test can stop the process as a
//! kill would (see [`STOP_AT_STEP`]).

use std::fs::File;
use std::io::Write as _;
use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use rustix::fs::{self as rfs, AtFlags, Mode, OFlags};
use rustix::io::Errno;
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
/// over (the kernel dropped its lock) and goes too. The lock holds the
/// output directory's handle, through which [`apply`] writes.
pub(super) struct Lock {
    /// The output directory, opened without following a link.
    top: OwnedFd,
    /// The lock file's name in it, and its path for messages.
    name: String,
    path: PathBuf,
    // Held for its lock; closing it unlocks.
    _file: File,
    released: bool,
}

impl Lock {
    /// Creates the missing folders down to `root` and opens it, one name
    /// at a time without following a link (`open_root`), then takes the
    /// lock of the file named `lock` in it. `shown` is the directory as
    /// the user gave it, for the error.
    pub(super) fn acquire(root: &Path, shown: &Path, lock: &str) -> Result<Lock, Error> {
        let top = open_root(root)?;
        let path = root.join(lock);
        let opened = |flags: OFlags| -> rustix::io::Result<File> {
            let flags = flags | OFlags::RDWR | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            rfs::openat(&top, lock, flags, Mode::from_raw_mode(0o666)).map(File::from)
        };
        // The name must still name the file locked: a render that ends
        // removes it, and one that starts then creates a new one.
        for _ in 0..8 {
            step();
            let file = match opened(OFlags::CREATE | OFlags::EXCL) {
                Ok(file) => file,
                Err(Errno::EXIST) => {
                    // Gone between the two calls: a render that ended
                    // removed it; try again.
                    let stat = match rfs::statat(&top, lock, AtFlags::SYMLINK_NOFOLLOW) {
                        Err(Errno::NOENT) => continue,
                        stat => stat.map_err(|e| fail(&path, e.into()))?,
                    };
                    if !regular(&stat) {
                        return Err(refuse(
                            &path,
                            "it is not a regular file (the lock file has this name); remove it",
                        ));
                    }
                    match opened(OFlags::NONBLOCK | OFlags::NOCTTY) {
                        Err(Errno::NOENT) => continue,
                        file => file.map_err(|e| fail(&path, e.into()))?,
                    }
                }
                Err(e) => return Err(fail(&path, e.into())),
            };
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => return Err(busy(shown, lock)),
                Err(std::fs::TryLockError::Error(e)) => return Err(fail(&path, e)),
            }
            let held = file.metadata().map_err(|e| fail(&path, e))?;
            let named = rfs::statat(&top, lock, AtFlags::SYMLINK_NOFOLLOW);
            if named.is_ok_and(|n| n.st_dev == held.dev() && n.st_ino == held.ino()) {
                return Ok(Lock {
                    top,
                    name: lock.to_owned(),
                    path,
                    _file: file,
                    released: false,
                });
            }
        }
        Err(busy(shown, lock))
    }

    /// The output directory's handle.
    pub(super) fn top(&self) -> &OwnedFd {
        &self.top
    }

    /// Removes the lock file, then unlocks.
    pub(super) fn release(mut self) -> Result<(), Error> {
        step();
        self.released = true;
        rfs::unlinkat(&self.top, self.name.as_str(), AtFlags::empty())
            .map_err(|e| fail(&self.path, e.into()))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        if !self.released {
            let _ = rfs::unlinkat(&self.top, self.name.as_str(), AtFlags::empty());
        }
    }
}

/// The error for a directory another process is writing, which holds the
/// lock file `lock`.
pub(super) fn busy(root: &Path, lock: &str) -> Error {
    refuse(
        root,
        &format!(
            "another process is writing this directory now (it holds {lock}); wait for it to finish, then run again"
        ),
    )
}

/// Whether another process holds the lock on the lock file at `path`
/// (opened for reading only, so `--check` writes nothing); `None` when
/// the file is gone (the render that held it has finished).
pub(super) fn lock_held(path: &Path) -> Result<Option<bool>, Error> {
    let file = match crate::files::open_regular(path, false) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(fail(path, e)),
    };
    match file.try_lock_shared() {
        Ok(()) => Ok(Some(false)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(Some(true)),
        Err(std::fs::TryLockError::Error(e)) => Err(fail(path, e)),
    }
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

/// Carries out `steps` below `root` (the lock held), through folder
/// handles: each folder is opened from the root one component at a time,
/// never through a link, and every write, rename and removal is made in
/// the folder so opened. A folder swapped for a link after the plan looked
/// at it is refused, never followed out of the tree.
///
/// A step that fails stops the rest: once a file was written or removed,
/// the error ([`Error::PartlyWritten`]) says how many files were already
/// written (each whole: renamed into place) or removed, and that the
/// others were left as they were (the failed file's temporary file is
/// removed); before, it is the failure alone.
/// `shown` names the directory as the user gave it, in that error.
pub(super) fn apply(
    top: &OwnedFd,
    (root, shown): (&Path, &Path),
    steps: &Steps<'_>,
) -> Result<(), Error> {
    let mut done = Done::default();
    carry_out(top, root, steps, &mut done).map_err(|source| {
        // Nothing written or removed: the error alone says it all.
        if done.written == 0 && done.removed == 0 {
            return source;
        }
        Error::PartlyWritten {
            state: done.state(shown, steps),
            source: Box::new(source),
        }
    })
}

/// How far [`carry_out`] got: files written (renamed into place), then
/// stale files removed.
#[derive(Default)]
struct Done {
    written: usize,
    removed: usize,
}

impl Done {
    /// What the output directory `root` holds after a step of `steps`
    /// failed, in words: how many files were written or removed, and that
    /// the rest were left as they were.
    fn state(&self, root: &Path, steps: &Steps<'_>) -> String {
        let (writes, removes) = (steps.writes.len(), steps.removes.len());
        let stale = |n: usize| match n {
            1 => "1 stale file to remove".to_owned(),
            n => format!("{n} stale files to remove"),
        };
        let how_far = if self.written < writes {
            let untouched = match removes {
                0 => files(writes - self.written),
                r => format!("{} and the {}", files(writes - self.written), stale(r)),
            };
            format!(
                "{} of {} were already written, each one whole (replaced or created); the other {untouched} were left as they were",
                self.written,
                files(writes)
            )
        } else {
            let written = match writes {
                0 => String::new(),
                1 => "the 1 file was written, and ".to_owned(),
                n => format!("all {n} files were written, and "),
            };
            format!(
                "{written}{} of the {removes} stale files were removed; the other {} left as they were",
                self.removed,
                match removes - self.removed {
                    1 => "1 was".to_owned(),
                    n => format!("{n} were"),
                }
            )
        };
        format!(
            "writing `{}` stopped part-way: {how_far}",
            printable(&root.display().to_string())
        )
    }
}

/// `1 file` or `N files`.
fn files(n: usize) -> String {
    match n {
        1 => "1 file".to_owned(),
        n => format!("{n} files"),
    }
}

/// [`apply`]'s steps, counting each done into `done`.
fn carry_out(top: &OwnedFd, root: &Path, steps: &Steps<'_>, done: &mut Done) -> Result<(), Error> {
    for dir in &steps.dirs {
        create_folders(top, root, dir)?;
    }
    let mut touched = std::collections::BTreeSet::new();
    // Each folder opened once for its writes (a handle stays the folder
    // it opened, whatever its name comes to point at).
    let mut folders: std::collections::HashMap<&str, OwnedFd> = std::collections::HashMap::new();
    for (relative, text) in &steps.writes {
        let (parent, name) = split(relative);
        let folder = match folders.entry(parent) {
            std::collections::hash_map::Entry::Occupied(entry) => entry.into_mut(),
            std::collections::hash_map::Entry::Vacant(entry) => {
                entry.insert(beneath(top, parent).map_err(|e| changed(root, parent, e))?)
            }
        };
        write_atomically(folder, &join(root, relative), name, text, steps.owner)?;
        done.written += 1;
        touched.insert(parent.to_owned());
    }
    drop(folders);
    for relative in &steps.removes {
        let (parent, name) = split(relative);
        let path = join(root, relative);
        let folder = match beneath(top, parent) {
            Ok(folder) => folder,
            Err(Errno::NOENT) => {
                done.removed += 1;
                continue;
            }
            Err(e) => return Err(changed(root, parent, e)),
        };
        // Checked again right before: still a regular file, not a link.
        if !rfs::statat(&folder, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|s| regular(&s)) {
            continue;
        }
        step();
        match rfs::unlinkat(&folder, name, AtFlags::empty()) {
            Ok(()) | Err(Errno::NOENT) => {}
            Err(e) => return Err(fail(&path, e.into())),
        }
        done.removed += 1;
        touched.insert(parent.to_owned());
        remove_empty_parents(top, parent, &mut touched);
    }
    // The renames and removals reach the disk before the lock goes.
    for dir in touched {
        if let Ok(folder) = beneath(top, &dir) {
            let _ = rfs::fsync(&folder);
        }
    }
    Ok(())
}

/// The output directory `root` (absolute, normalised by name), opened as
/// [`super::OutputDir::new`] checked it: its deepest ancestor that is the
/// working directory or holds it by path, then each further name without
/// following a link, so that a component swapped for a link since the
/// check is refused. A missing folder is made on the way, one step each.
fn open_root(root: &Path) -> Result<OwnedFd, Error> {
    let cwd = std::env::current_dir().map_err(|e| fail(root, e))?;
    let mut trusted = PathBuf::new();
    let mut below = Vec::new();
    for component in root.components() {
        let next = trusted.join(component);
        if below.is_empty() && cwd.starts_with(&next) {
            trusted = next;
        } else {
            below.push(component.as_os_str());
        }
    }
    // The folders above the output directory are only passed through: a
    // path handle needs no read permission on them (a home folder of mode
    // 0711), as a path does not.
    let through = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut folder =
        rfs::open(&trusted, through, Mode::empty()).map_err(|e| fail(root, e.into()))?;
    let count = below.len();
    for (i, name) in below.into_iter().enumerate() {
        let flags = if i + 1 == count {
            folder_flags()
        } else {
            through | OFlags::NOFOLLOW
        };
        if matches!(
            rfs::statat(&folder, name, AtFlags::SYMLINK_NOFOLLOW),
            Err(Errno::NOENT)
        ) {
            step();
            match rfs::mkdirat(&folder, name, Mode::from_raw_mode(0o777)) {
                // mkdir never follows a link: an existing name is checked
                // again as it is opened.
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(fail(root, e.into())),
            }
        }
        folder = rfs::openat(&folder, name, flags, Mode::empty()).map_err(|e| {
            if matches!(e, Errno::LOOP | Errno::NOTDIR) {
                refuse(root, "it changed since it was looked at (a link or a file is where a folder was); nothing was written through it")
            } else {
                fail(root, e.into())
            }
        })?;
    }
    Ok(folder)
}

/// How a folder of the output is opened: for reading its entries, never
/// through a link, not inherited by a child process.
fn folder_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// The folder `relative` (`a/b`, or `""` for the root) below `top`, opened
/// one component at a time without following a link (`ELOOP`) or entering
/// what is no folder (`ENOTDIR`).
fn beneath(top: &OwnedFd, relative: &str) -> rustix::io::Result<OwnedFd> {
    let mut folder = rfs::openat(top, ".", folder_flags(), Mode::empty())?;
    for part in relative.split('/').filter(|p| !p.is_empty()) {
        folder = rfs::openat(&folder, part, folder_flags(), Mode::empty())?;
    }
    Ok(folder)
}

/// `relative` as its folder and its name (`a/b.yaml` → `a`, `b.yaml`).
fn split(relative: &str) -> (&str, &str) {
    relative.rsplit_once('/').unwrap_or(("", relative))
}

/// Whether `stat` is a regular file's.
fn regular(stat: &rfs::Stat) -> bool {
    rfs::FileType::from_raw_mode(stat.st_mode) == rfs::FileType::RegularFile
}

/// The error for the folder `relative` below `root` that could not be
/// opened as it was planned: a link or a file where a folder was.
fn changed(root: &Path, relative: &str, error: Errno) -> Error {
    let path = join(root, relative);
    if matches!(error, Errno::LOOP | Errno::NOTDIR) {
        refuse(
            &path,
            "it changed since it was looked at (a link or a file is where a folder was); nothing was written through it",
        )
    } else {
        fail(&path, error.into())
    }
}

/// Creates every missing folder of `relative` below `top`, one step each,
/// each in the folder handle of its parent; an existing component must be
/// a real folder.
fn create_folders(top: &OwnedFd, root: &Path, relative: &str) -> Result<(), Error> {
    let mut folder = beneath(top, "").map_err(|e| fail(root, e.into()))?;
    let mut done = String::new();
    for part in relative.split('/').filter(|p| !p.is_empty()) {
        if !done.is_empty() {
            done.push('/');
        }
        done.push_str(part);
        let path = join(root, &done);
        let next = match rfs::openat(&folder, part, folder_flags(), Mode::empty()) {
            Ok(next) => next,
            Err(Errno::NOENT) => {
                step();
                match rfs::mkdirat(&folder, part, Mode::from_raw_mode(0o777)) {
                    // mkdir never follows a link: an existing name is
                    // checked again as it is opened.
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(fail(&path, e.into())),
                }
                rfs::openat(&folder, part, folder_flags(), Mode::empty()).map_err(|e| match e {
                    Errno::LOOP | Errno::NOTDIR => refuse(&path, "it is not a directory"),
                    e => fail(&path, e.into()),
                })?
            }
            Err(Errno::LOOP | Errno::NOTDIR) => return Err(refuse(&path, "it is not a directory")),
            Err(e) => return Err(fail(&path, e.into())),
        };
        folder = next;
    }
    Ok(())
}

/// A temporary file not yet renamed into place: removed from its folder
/// when dropped, unless [`Temporary::keep`] was called.
struct Temporary<'a> {
    folder: &'a OwnedFd,
    name: String,
    kept: bool,
}

impl Temporary<'_> {
    fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Temporary<'_> {
    fn drop(&mut self) {
        if !self.kept {
            let _ = rfs::unlinkat(self.folder, self.name.as_str(), AtFlags::empty());
        }
    }
}

/// Writes `text` into a new temporary file in `folder` (created
/// exclusively, never through a link, with an unpredictable name), then
/// renames it over `name` there: readers see the old or the new file.
/// The temporary file's name and first line are `owner`'s; `path` names
/// the file in messages.
fn write_atomically(
    folder: &OwnedFd,
    path: &Path,
    name: &str,
    text: &str,
    owner: &Owner,
) -> Result<(), Error> {
    if rfs::statat(folder, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|s| !regular(&s)) {
        return Err(refuse(
            path,
            "it changed since it was looked at (a link, a folder or a special file is there now)",
        ));
    }
    step();
    let (temporary, file) = create_temporary(folder, owner).map_err(|e| fail(path, e))?;
    let mut file = File::from(file);
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
        .and_then(|()| file.sync_all())
        .map_err(|e| fail(path, e))?;
    step();
    rfs::renameat(folder, temporary.name.as_str(), folder, name)
        .map_err(|e| fail(path, e.into()))?;
    temporary.keep();
    Ok(())
}

/// Creates `owner`'s temporary file in `folder`: a name of its prefix, 12
/// random letters and digits and [`TEMP_SUFFIX`], created exclusively
/// (never over a link or another file), readable as any file the umask
/// allows.
fn create_temporary<'a>(
    folder: &'a OwnedFd,
    owner: &Owner,
) -> std::io::Result<(Temporary<'a>, OwnedFd)> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    for _ in 0..16 {
        let mut bytes = [0u8; 12];
        getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
        let random: String = (bytes.iter())
            .map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()]))
            .collect();
        let name = format!("{}{random}{TEMP_SUFFIX}", owner.temp_prefix());
        match rfs::openat(folder, name.as_str(), flags, Mode::from_raw_mode(0o666)) {
            Ok(file) => {
                let temporary = Temporary {
                    folder,
                    name,
                    kept: false,
                };
                return Ok((temporary, file));
            }
            Err(Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        "no free name for a temporary file",
    ))
}

/// Removes the folders `relative` leaves empty, up to (not including) the
/// root, each from its parent's handle.
fn remove_empty_parents(
    top: &OwnedFd,
    relative: &str,
    touched: &mut std::collections::BTreeSet<String>,
) {
    let mut current = relative;
    while !current.is_empty() {
        let (parent, name) = split(current);
        let Ok(folder) = beneath(top, current) else {
            break;
        };
        let empty = rfs::Dir::read_from(&folder).is_ok_and(|mut entries| {
            !entries.any(|e| e.is_ok_and(|e| !matches!(e.file_name().to_bytes(), b"." | b"..")))
        });
        if !empty {
            break;
        }
        let Ok(above) = beneath(top, parent) else {
            break;
        };
        step();
        if rfs::unlinkat(&above, name, AtFlags::REMOVEDIR).is_err() {
            break;
        }
        touched.remove(current);
        touched.insert(parent.to_owned());
        current = parent;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWNER: Owner = Owner::new("# Written by testgen.", ".testgen.lock", ".testgen-");

    /// A folder swapped for a link after the plan looked at it (a race an
    /// attacker who can write the output directory can win): nothing is
    /// removed or written through the link, the run fails naming the
    /// folder, and the files outside the tree are whole.
    #[test]
    fn a_folder_swapped_for_a_link_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let (root, outside) = (dir.path().join("out"), dir.path().join("outside"));
        std::fs::create_dir_all(root.join("builds")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let stale = format!("{}\nold\n", OWNER.marker());
        std::fs::write(root.join("builds/stale.yaml"), &stale).unwrap();
        std::fs::write(outside.join("stale.yaml"), "precious\n").unwrap();
        // The swap, after the plan: the folder is now a link out of the tree.
        std::fs::rename(root.join("builds"), dir.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("builds")).unwrap();
        let text = format!("{}\nnew\n", OWNER.marker());
        for steps in [
            Steps {
                owner: &OWNER,
                dirs: vec![],
                writes: vec![],
                removes: vec!["builds/stale.yaml"],
            },
            Steps {
                owner: &OWNER,
                dirs: vec![],
                writes: vec![("builds/new.yaml", &text)],
                removes: vec![],
            },
            Steps {
                owner: &OWNER,
                dirs: vec!["builds/deeper"],
                writes: vec![],
                removes: vec![],
            },
        ] {
            let top = open_root(&root).unwrap();
            let error = apply(&top, (&root, &root), &steps).unwrap_err().to_string();
            assert!(error.contains("builds"), "{error}");
            assert!(
                error.contains("changed since it was looked at")
                    || error.contains("not a directory"),
                "{error}"
            );
        }
        let left: Vec<_> = std::fs::read_dir(&outside)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["stale.yaml"]);
        assert_eq!(
            std::fs::read_to_string(outside.join("stale.yaml")).unwrap(),
            "precious\n"
        );
    }

    /// A lock file is held, left behind, or gone (a render that finished
    /// removed it since the tree was read: no error, two renders racing
    /// get "another process is writing" or succeed).
    #[test]
    fn a_lock_is_held_stale_or_gone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(OWNER.lock());
        assert_eq!(lock_held(&path).unwrap(), None);
        let lock = Lock::acquire(dir.path(), dir.path(), OWNER.lock()).unwrap();
        assert_eq!(lock_held(&path).unwrap(), Some(true));
        lock.release().unwrap();
        assert_eq!(lock_held(&path).unwrap(), None);
        std::fs::write(&path, "").unwrap();
        assert_eq!(lock_held(&path).unwrap(), Some(false));
    }

    /// The output directory itself, or a folder above it below the working
    /// directory, swapped for a link after it was checked: refused.
    #[test]
    fn an_output_directory_swapped_for_a_link_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(outside.join("out")).unwrap();
        std::fs::create_dir_all(dir.path().join("repo")).unwrap();
        std::os::unix::fs::symlink(&outside, dir.path().join("repo/env")).unwrap();
        // `dir` is not the working directory: every name below `/` up to it
        // is a real folder, then `repo/env` is the link.
        let root = dir.path().join("repo/env/out/deeper");
        let Err(error) = Lock::acquire(&root, &root, OWNER.lock()) else {
            panic!("a lock taken through a link");
        };
        assert!(
            error.to_string().contains("changed since it was looked at"),
            "{error}"
        );
        let made = std::fs::read_dir(outside.join("out")).unwrap().count();
        assert_eq!(made, 0, "nothing is made outside");
    }

    /// A write that fails after others were made (a folder where the
    /// second file goes, as a process outside chartgen could put there
    /// after the plan; root is not stopped by permissions): the error says
    /// how many files were already written and that the rest, the failed
    /// file included, were left as they were, which is what the directory
    /// then holds. One that fails before anything was written is its
    /// error alone.
    #[test]
    fn a_write_that_fails_part_way_says_how_far_it_got() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("out");
        std::fs::create_dir_all(root.join("b.yaml")).unwrap();
        let text = |t: &str| format!("{}\n{t}\n", OWNER.marker());
        for name in ["a.yaml", "c.yaml", "stale.yaml"] {
            std::fs::write(root.join(name), text("old")).unwrap();
        }
        let new = text("new");
        let steps = Steps {
            owner: &OWNER,
            dirs: vec![],
            writes: vec![("a.yaml", &new), ("b.yaml", &new), ("c.yaml", &new)],
            removes: vec!["stale.yaml"],
        };
        let error = apply(&open_root(&root).unwrap(), (&root, &root), &steps).unwrap_err();
        let shown = error.to_string();
        assert!(
            shown.contains("stopped part-way: 1 of 3")
                && shown.contains("1 of 3 files were already written, each one whole")
                && shown.contains(
                    "the other 2 files and the 1 stale file to remove were left as they were"
                ),
            "{shown}"
        );
        let cause = std::error::Error::source(&error).unwrap().to_string();
        assert!(cause.contains("b.yaml"), "{cause}");
        assert_eq!(std::fs::read_to_string(root.join("a.yaml")).unwrap(), new);
        for name in ["c.yaml", "stale.yaml"] {
            assert_eq!(
                std::fs::read_to_string(root.join(name)).unwrap(),
                text("old")
            );
        }
        let mut names: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["a.yaml", "b.yaml", "c.yaml", "stale.yaml"],
            "no temporary file stays"
        );

        // Failing before any write or removal: the error alone, as it was.
        let steps = Steps {
            owner: &OWNER,
            dirs: vec![],
            writes: vec![("b.yaml", &new)],
            removes: vec![],
        };
        let error = apply(&open_root(&root).unwrap(), (&root, &root), &steps).unwrap_err();
        assert!(matches!(error, Error::Output { .. }), "{error}");
    }

    /// Written through folder handles, a file replaces the old one whole
    /// and leaves no temporary file; a removal leaves no empty folder.
    #[test]
    fn writes_and_removals_through_folder_handles() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("out");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        let text = |t: &str| format!("{}\n{t}\n", OWNER.marker());
        std::fs::write(root.join("a/b/old.yaml"), text("old")).unwrap();
        let new = text("new");
        let steps = Steps {
            owner: &OWNER,
            dirs: vec!["c/d"],
            writes: vec![("c/d/x.yaml", &new)],
            removes: vec!["a/b/old.yaml"],
        };
        apply(&open_root(&root).unwrap(), (&root, &root), &steps).unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("c/d/x.yaml")).unwrap(),
            new
        );
        assert!(!root.join("a").exists(), "empty folders go");
        let names: Vec<_> = std::fs::read_dir(root.join("c/d"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["x.yaml"]);
    }
}
