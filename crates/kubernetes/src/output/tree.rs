//! What the output directory holds, read without following a link or
//! opening anything but a regular file.

use std::collections::BTreeMap;
use std::io::ErrorKind::NotFound;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use super::Owner;
use crate::error::Error;
use crate::text::printable;

/// How the temporary files of a write end: `.NAME-XXXXXX.tmp`, with the
/// owner's prefix ([`Owner::temp_prefix`]).
pub const TEMP_SUFFIX: &str = ".tmp";

/// One entry of the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// A real directory (walked).
    Dir,
    /// A regular file; `ours` when its first line is the marker.
    File {
        /// Whether its first line is the owner's [`Owner::marker`].
        ours: bool,
    },
    /// A temporary file of an interrupted write; `ours` when what it holds
    /// starts like every file the owner writes (the marker, or a part of it).
    Temporary {
        /// Whether its content is a prefix of, or starts with, the marker line.
        ours: bool,
    },
    /// The lock file a killed render left (or the one being held).
    Lock,
    /// A symbolic link (never followed) or a name the owner never writes.
    Foreign,
}

/// Every entry below the output directory, by slash-separated relative
/// path; hidden folders are not walked, hidden files other than the
/// owner's temporaries and lock are not listed.
pub type Tree = BTreeMap<String, Entry>;

/// Reads the tree below `root` (nothing when it does not exist yet), each
/// file judged `owner`'s or not. A FIFO, device or socket anywhere in it
/// is refused at once. Errors name paths below `shown`, the directory as
/// the user gave it.
pub fn scan(owner: &Owner, root: &Path, shown: &Path) -> Result<Tree, Error> {
    let mut tree = Tree::new();
    match std::fs::symlink_metadata(root) {
        Err(e) if e.kind() == NotFound => return Ok(tree),
        Err(source) => return Err(fail(shown, source)),
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(refuse(shown, "it is not a directory")),
    }
    let mut walk = crate::files::walk(root);
    while let Some(entry) = walk.next() {
        let entry = match entry {
            Ok(entry) => entry,
            // Gone since its folder was listed: another render's temporary
            // file or folder (a render plans again under its lock).
            Err(e) if e.io_error().map(std::io::Error::kind) == Some(NotFound) => continue,
            Err(e) => {
                let at = e.path().and_then(|p| p.strip_prefix(root).ok());
                let at = at.map_or(shown.to_path_buf(), |p| shown.join(p));
                return Err(fail(&at, crate::files::walk_error(e)));
            }
        };
        let path = entry.path();
        let kind = entry.file_type();
        let relative_path = path.strip_prefix(root).expect("walked below the root");
        let parent = relative_path.parent().map(Path::to_string_lossy);
        let prefix = match parent.as_deref() {
            None | Some("") => String::new(),
            Some(parent) => format!("{}/", parent.replace('\\', "/")),
        };
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            // The owner writes UTF-8 names only; anything else is not its.
            let shown = entry.file_name().to_string_lossy().into_owned();
            tree.insert(format!("{prefix}{shown}"), Entry::Foreign);
            if kind.is_dir() {
                walk.skip_current_dir();
            }
            continue;
        };
        let relative = format!("{prefix}{name}");
        let path_shown = join(shown, &relative);
        let special = !(kind.is_dir() || kind.is_file() || kind.is_symlink());
        let hidden = name.starts_with('.');
        // What they hold decides whether they are the owner's.
        let temporary = temporary_name(name.as_str(), owner.temp_prefix());
        let lock = prefix.is_empty() && name == owner.lock();
        if special && (!hidden || temporary || lock) {
            return Err(refuse(
                &path_shown,
                "it is a FIFO, device or socket; such a file is neither opened nor replaced: remove it",
            ));
        }
        if hidden && !temporary && !lock {
            if kind.is_dir() {
                walk.skip_current_dir();
            }
            continue;
        }
        let found = if kind.is_symlink() {
            Entry::Foreign
        } else if kind.is_dir() {
            if hidden {
                walk.skip_current_dir();
                Entry::Foreign
            } else {
                Entry::Dir
            }
        } else if lock {
            Entry::Lock
        } else {
            let limit = owner.marker().len() + if temporary { 1 } else { 2 };
            let Some(start) = read_start_if_there(path, &path_shown, limit)? else {
                continue;
            };
            match temporary {
                true => Entry::Temporary {
                    ours: format!("{}\n", owner.marker())
                        .as_bytes()
                        .starts_with(&start),
                },
                false => Entry::File {
                    ours: starts_with_marker(&start, owner.marker()),
                },
            }
        };
        tree.insert(relative, found);
    }
    Ok(tree)
}

/// Whether `name` is named as a temporary file of the owner whose prefix
/// is `prefix` (`.mytool-`): `.mytool-XXXXXX.tmp` as `tempfile` names
/// them, or `.NAME.mytool-PID.tmp`, the form an owner's writer may have
/// left before it used `tempfile`. Any
/// other hidden name holding the prefix is not one.
fn temporary_name(name: &str, prefix: &str) -> bool {
    let Some(stem) = name.strip_suffix(TEMP_SUFFIX) else {
        return false;
    };
    if let Some(random) = stem.strip_prefix(prefix) {
        return !random.is_empty() && random.bytes().all(|b| b.is_ascii_alphanumeric());
    }
    stem.rsplit_once(prefix).is_some_and(|(before, pid)| {
        before.len() > 1
            && before.starts_with('.')
            && !pid.is_empty()
            && pid.bytes().all(|b| b.is_ascii_digit())
    })
}

/// Whether `text` starts with the line `marker`: how an owner knows its
/// files.
pub(super) fn starts_with_marker(text: &[u8], marker: &str) -> bool {
    let Some(rest) = text.strip_prefix(marker.as_bytes()) else {
        return false;
    };
    matches!(rest, [] | [b'\n', ..] | [b'\r', b'\n', ..] | [b'\r'])
}

/// At most `limit` bytes from the start of the file at `path` (`shown` in
/// an error).
pub fn read_start(path: &Path, shown: &Path, limit: usize) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::with_capacity(limit);
    // Found in the tree, not named: no link followed, no FIFO waited on.
    crate::files::open_regular(path, false)
        .and_then(|file| file.take(limit as u64).read_to_end(&mut bytes))
        .map_err(|e| fail(shown, e))?;
    Ok(bytes)
}

/// [`read_start`], or `None` for a file gone since its folder was listed.
fn read_start_if_there(path: &Path, shown: &Path, limit: usize) -> Result<Option<Vec<u8>>, Error> {
    let mut bytes = Vec::with_capacity(limit);
    match crate::files::open_regular(path, false)
        .and_then(|file| file.take(limit as u64).read_to_end(&mut bytes))
    {
        Ok(_) => Ok(Some(bytes)),
        Err(e) if e.kind() == NotFound => Ok(None),
        Err(e) => Err(fail(shown, e)),
    }
}

/// Whether the file at `path` holds exactly `text` (reading at most one
/// byte more than `text`).
pub fn holds(path: &Path, shown: &Path, text: &str) -> Result<bool, Error> {
    Ok(read_start(path, shown, text.len() + 1)? == text.as_bytes())
}

fn fail(path: &Path, source: std::io::Error) -> Error {
    Error::WriteOutput {
        path: printable(&path.display().to_string()).into_owned(),
        source,
    }
}

fn refuse(path: &Path, reason: &str) -> Error {
    Error::Output {
        path: printable(&path.display().to_string()).into_owned(),
        reason: reason.to_owned(),
    }
}

/// `relative` below `root`.
pub fn join(root: &Path, relative: &str) -> PathBuf {
    if relative.is_empty() {
        root.to_path_buf()
    } else {
        root.join(relative)
    }
}

#[cfg(test)]
mod tests {
    use super::temporary_name;

    /// Only the two forms the owner writes are its temporaries; a user's
    /// hidden file that merely holds the prefix is not (were it empty, it
    /// would count as the owner's and go).
    #[test]
    fn only_the_owners_two_forms_are_temporaries() {
        for name in [".mytool-Ab12Cd.tmp", ".x.yaml.mytool-4242.tmp"] {
            assert!(temporary_name(name, ".mytool-"), "{name}");
        }
        for name in [
            ".notes.mytool-a.tmp",
            ".mytool-.tmp",
            ".mytool-a/b.tmp",
            ".mytool-Ab12Cd.tmp.bak",
            "x.mytool-42.tmp",
            ".mytool-42.tmp.mytool-",
            ".other-Ab12Cd.tmp",
            ".mytool-4242.tmp.tmp",
        ] {
            assert!(!temporary_name(name, ".mytool-"), "{name}");
        }
    }
}
