//! Opening what chartgen reads: regular files only, decided from metadata
//! before anything is opened, and opened non-blocking so that a file that
//! became a FIFO in between is refused, never waited on.

use std::fs::{File, FileType};
use std::path::Path;

use crate::diagnostic::printable;

/// Opens `path` for reading if it is a regular file. `follow_links`: a
/// link named by the user is followed; one found in a directory is not.
pub fn open_regular(path: &Path, follow_links: bool) -> std::io::Result<File> {
    let kind = if follow_links {
        std::fs::metadata(path)?
    } else {
        std::fs::symlink_metadata(path)?
    }
    .file_type();
    if !kind.is_file() {
        return Err(refused(path, kind));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        let nofollow = if follow_links { 0 } else { libc::O_NOFOLLOW };
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
        "{} is {}, not a regular file; chartgen opens nothing else (a FIFO or device could block it or have side effects)",
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
