//! Opening what the readers read. A file found in a directory (not named
//! by the user) must be a regular file, decided from metadata before anything
//! is opened, and is opened non-blocking so that a file that became a FIFO
//! in between is refused, never waited on. A path the user named may also
//! be a stream: a FIFO or character device (`<(…)`, a pipe, `/dev/stdin`),
//! read blocking as `cat` would, under the caller's size limit.

use std::fs::{File, FileType};
use std::path::Path;

use crate::text::printable;

/// The first argument of `paths` that names a stream an earlier one names
/// too (`-`, `/dev/stdin`, `/dev/fd/0` and a named pipe's two names are
/// one pipe): a pipe is read once, so the second would read nothing, and
/// a side read as empty says every object was removed. Files and devices
/// (`/dev/null`) read alike each time and may be named twice.
pub fn one_stream_twice<'a>(
    paths: impl IntoIterator<Item = &'a std::ffi::OsStr>,
) -> Option<&'a str> {
    use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
    let mut seen = std::collections::HashSet::new();
    let mut dash = false;
    for path in paths {
        // `-` twice is each reader's own error, worded as such.
        if path == "-" && std::mem::replace(&mut dash, true) {
            continue;
        }
        let named = if path == "-" {
            "/dev/stdin".as_ref()
        } else {
            path
        };
        let Ok(meta) = std::fs::metadata(named) else {
            continue;
        };
        let kind = meta.file_type();
        if (kind.is_fifo() || kind.is_socket()) && !seen.insert((meta.dev(), meta.ino())) {
            return Some(path.to_str().unwrap_or("-"));
        }
    }
    None
}

/// Why `path`, a stream another argument names too
/// ([`one_stream_twice`]), is refused.
pub fn named_twice(path: &str) -> String {
    format!(
        "{path} names a stream another argument reads too: a pipe can be read only once; save it to a file"
    )
}

/// The one walk of a directory tree: every entry below `root` (not `root`
/// itself), depth first, each folder's entries in name order; a symbolic
/// link is listed as one, never followed. Skip a folder's contents with
/// [`walkdir::IntoIter::skip_current_dir`].
pub fn walk(root: &Path) -> walkdir::IntoIter {
    walkdir::WalkDir::new(root)
        .min_depth(1)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
}

/// The I/O error of a [`walk`] step, as reading the folder gave it (the
/// walk's own wording adds the path, which every caller names itself).
pub fn walk_error(error: walkdir::Error) -> std::io::Error {
    let shown = error.to_string();
    error
        .into_io_error()
        .unwrap_or_else(|| std::io::Error::other(shown))
}

/// Opens `path` for reading. `follow_links`: the user named it, so a link
/// is followed and a stream is opened too ([`open_named`]); otherwise
/// the caller found it in a directory, and it must be a regular file reached
/// without a link.
pub fn open_regular(path: &Path, follow_links: bool) -> std::io::Result<File> {
    if follow_links {
        return open_named(path);
    }
    let kind = std::fs::symlink_metadata(path)?.file_type();
    if !kind.is_file() {
        return Err(refused(path, kind));
    }
    open_checked(path, true)
}

/// Opens `path`, named by the user, for reading: a regular file (through a
/// link if it is one), or a stream (a FIFO or character device: process
/// substitution's `/dev/fd/N`, `/dev/stdin`, a named pipe), opened
/// blocking, so that a FIFO waits for its writer as every reader does.
/// Sockets, block devices and directories are refused. The caller bounds
/// what it reads (`Read::take`): `/dev/zero` stops at its limit.
pub fn open_named(path: &Path) -> std::io::Result<File> {
    let kind = std::fs::metadata(path)?.file_type();
    if kind.is_file() {
        return open_checked(path, false);
    }
    if !is_stream(kind) {
        return Err(refused_named(path, kind));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOCTTY);
    }
    let file = options.open(path)?;
    // What was opened is checked again: a path swapped in between for a
    // socket or a device of another kind is refused.
    let kind = file.metadata()?.file_type();
    if !kind.is_file() && !is_stream(kind) {
        return Err(refused_named(path, kind));
    }
    Ok(file)
}

/// Whether `kind` is a stream a user may name: a FIFO or a character device.
pub fn is_stream(kind: FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        kind.is_fifo() || kind.is_char_device()
    }
    #[cfg(not(unix))]
    {
        let _ = kind;
        false
    }
}

/// Opens what metadata said is a regular file, non-blocking (and, when
/// `nofollow`, not through a link), and refuses it if what was opened is
/// not one after all.
fn open_checked(path: &Path, nofollow: bool) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        let nofollow = if nofollow { libc::O_NOFOLLOW } else { 0 };
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | nofollow);
    }
    let file = options.open(path)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        return Err(refused(path, kind));
    }
    Ok(file)
}

/// The error for a path that is no regular file.
pub fn refused(path: &Path, kind: FileType) -> std::io::Error {
    std::io::Error::other(format!(
        "{} is {}, not a regular file; nothing else is opened (a FIFO or device could block the reading or have side effects)",
        printable(&path.display().to_string()),
        describe(kind)
    ))
}

/// The error for a path the user named that is neither a regular file nor
/// a stream.
fn refused_named(path: &Path, kind: FileType) -> std::io::Error {
    std::io::Error::other(format!(
        "{} is {}, not a regular file or a stream (a pipe, `<(…)`, /dev/stdin)",
        printable(&path.display().to_string()),
        describe(kind)
    ))
}

/// What a file that is neither a regular file nor a directory is.
pub fn describe(kind: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_symlink() {
        return "a symbolic link";
    }
    if kind.is_dir() {
        return "a directory";
    }
    "not a regular file"
}
