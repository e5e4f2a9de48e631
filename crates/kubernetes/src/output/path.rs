//! The output directory as the user gave it, normalised by name and checked
//! before anything is read or written.
//!
//! `.` components and trailing slashes go; `..` is resolved by name (`a/../b`
//! is `b`, whatever `a` is), never through a link. A relative path starts at
//! the working directory; every component from there on (for an absolute
//! path: every component that is not the working directory or one of its
//! ancestors, which the kernel names without links) must be a real directory
//! or not exist yet. A symbolic link anywhere, even `/tmp` on a system where
//! it is one, is refused: give the real path.

use std::path::{Component, Path, PathBuf};

use crate::error::Error;
use crate::text::printable;

/// The output directory: as shown to the user, and as the writer reaches it.
#[derive(Debug, Clone)]
pub struct OutputDir {
    /// Normalised as given: relative stays relative.
    shown: PathBuf,
    /// Absolute, resolved by name from the working directory.
    real: PathBuf,
    /// Whether a `..` after a name was resolved by name.
    resolved_parent: bool,
}

impl OutputDir {
    /// Normalises `given` and refuses a path through a symbolic link, a
    /// component that is a file, FIFO, device or socket, and the working
    /// directory itself or one of its ancestors (whose every file of the
    /// owner's, `out/` included, would belong to this render).
    pub fn new(given: &Path) -> Result<Self, Error> {
        let refuse = |path: &Path, reason: String| Error::Output {
            path: printable(&path.display().to_string()).into_owned(),
            reason,
        };
        let Located {
            cwd,
            shown,
            real,
            resolved_parent,
        } = located(given)?;
        if cwd.starts_with(&real) {
            return Err(refuse(
                &shown,
                "it is the working directory or holds it; every file with the writer's marker beneath the output directory is the writer's, so give it a folder of its own (e.g. `out`)".to_owned(),
            ));
        }
        no_link_on_the_way(&cwd, &real, &shown, true)?;
        Ok(OutputDir {
            shown,
            real,
            resolved_parent,
        })
    }

    /// The directory as shown to the user (normalised, relative if given so).
    pub fn shown(&self) -> &Path {
        &self.shown
    }

    /// The absolute directory every read and write goes to.
    pub fn real(&self) -> &Path {
        &self.real
    }

    /// Whether a `..` that followed a name was resolved by name.
    pub fn resolved_parent(&self) -> bool {
        self.resolved_parent
    }

    /// `relative` (slash-separated, `""` for the directory itself) below the
    /// directory, as shown to the user, with control characters escaped.
    pub fn show(&self, relative: &str) -> String {
        let path = if relative.is_empty() {
            self.shown.clone()
        } else {
            self.shown.join(relative)
        };
        printable(&path.display().to_string()).into_owned()
    }
}

/// A folder a command writes its files into (`man --output-dir`), given as
/// `given`: normalised by name and absolute, refused where the folder
/// itself, or a component of it below the working directory (where a
/// checked-out repository may have placed one), is a symbolic link or no
/// folder (`no_link_on_the_way`). Unlike [`OutputDir`], it may be the
/// working directory, and a link above it or outside it (a home folder
/// that is one) is the machine's, not refused.
pub fn folder_to_write(given: &Path) -> Result<PathBuf, Error> {
    let Located {
        cwd, shown, real, ..
    } = located(given)?;
    no_link_on_the_way(&cwd, &real, &shown, false)?;
    Ok(real)
}

/// A folder as given, located by name: the working directory, the folder
/// normalised as given, and absolute.
struct Located {
    cwd: PathBuf,
    shown: PathBuf,
    real: PathBuf,
    /// Whether a `..` after a name was resolved by name.
    resolved_parent: bool,
}

fn located(given: &Path) -> Result<Located, Error> {
    let cwd = std::env::current_dir().map_err(|source| Error::WriteOutput {
        path: printable(&given.display().to_string()).into_owned(),
        source,
    })?;
    let (shown, resolved_parent) = normalise(given);
    let (real, _) = normalise(&cwd.join(&shown));
    Ok(Located {
        cwd,
        shown,
        real,
        resolved_parent,
    })
}

/// Refuses a folder to write into, `real` (absolute, normalised by name;
/// `shown` as the user gave it) when a component of it is a symbolic link,
/// a file, a FIFO, device or socket; components that do not exist yet are
/// fine. The working directory and its ancestors are not judged; without
/// `outside`, neither are the components outside the working directory
/// but the folder itself.
fn no_link_on_the_way(cwd: &Path, real: &Path, shown: &Path, outside: bool) -> Result<(), Error> {
    let refuse = |path: &Path, reason: String| Error::Output {
        path: printable(&path.display().to_string()).into_owned(),
        reason,
    };
    let mut current = PathBuf::new();
    for component in real.components() {
        current.push(component);
        if cwd.starts_with(&current)
            || (!outside && !current.starts_with(cwd) && current.as_path() != real)
        {
            continue;
        }
        let metadata = match std::fs::symlink_metadata(&current) {
            Ok(metadata) => metadata,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
            Err(source) => {
                return Err(Error::WriteOutput {
                    path: printable(&current.display().to_string()).into_owned(),
                    source,
                });
            }
        };
        let kind = metadata.file_type();
        let problem = if kind.is_symlink() {
            "is a symbolic link; links are neither followed nor written through: give the real directory"
        } else if kind.is_dir() {
            continue;
        } else if kind.is_file() {
            "is a file, not a directory"
        } else {
            "is a FIFO, device or socket, not a directory"
        };
        return Err(refuse(
            shown,
            format!("`{}` {problem}", printable(&current.display().to_string())),
        ));
    }
    Ok(())
}

/// Drops `.` components and trailing slashes, resolves `..` after a name by
/// name; `..` at the start of a relative path stays. `""` becomes `.`. The
/// flag tells whether a name was dropped for a `..`.
fn normalise(path: &Path) -> (PathBuf, bool) {
    let mut parts: Vec<Component<'_>> = Vec::new();
    let mut resolved = false;
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match parts.last() {
                Some(Component::Normal(_)) => {
                    parts.pop();
                    resolved = true;
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => parts.push(component),
            },
            _ => parts.push(component),
        }
    }
    if parts.is_empty() {
        return (PathBuf::from("."), resolved);
    }
    (parts.iter().collect(), resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_one_directory_normalise_alike() {
        for (given, shown, resolved) in [
            ("out", "out", false),
            ("out/", "out", false),
            ("out/.", "out", false),
            ("./out//./", "out", false),
            ("a/../out", "out", true),
            ("../out", "../out", false),
            ("/x/../../out/", "/out", true),
            ("a/..", ".", true),
            ("", ".", false),
        ] {
            assert_eq!(
                normalise(Path::new(given)),
                (PathBuf::from(shown), resolved),
                "{given}"
            );
        }
    }
}
