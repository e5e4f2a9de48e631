//! Reading manifest sets: directories, multi-document files, or stdin, as
//! a checker or a differ takes them.
//!
//! A `# Source: templates/<file>` comment before a document (as Helm and
//! other renderers write them) is kept as the object's template, so findings can
//! name where an object came from.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::location::{KeyPath, Segment};

use crate::diagnostic::{Problem, utf8_source};

use crate::error::Error;
use crate::files;
use crate::location::Source;
use crate::manifest::{self, LIMITS, Manifest};
use crate::text::printable;
use crate::yaml::{self, Node, Value};

mod git;

/// How the readers read: what, besides objects, a file may hold.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options<'a> {
    /// The file names of a release's artifacts: side files written beside
    /// the objects that are not objects themselves (a generator's data for
    /// another tool). A file of one of these names holds documents without
    /// `kind`, kept as its artifact ([`ManifestSet::artifact`]), and may
    /// lie beside a kustomization that does not list it. The caller knows
    /// its artifacts; this crate knows none.
    pub artifacts: &'a [&'a str],
    /// The command line that reads manifests from standard input, as
    /// hints name it (`mytool check -`): a hint that suggests building a
    /// stream (`kubectl kustomize DIR`) pipes it into this. Empty, the
    /// hint ends at the command that builds the stream. The caller knows
    /// its command; this crate knows none.
    pub pipe_into: &'a str,
    /// The CustomResourceDefinitions the cluster holds besides the input
    /// (a command's `--crd`): a custom resource whose CRD says
    /// `scope: Cluster` has no namespace, as one whose CRD is in the input
    /// ([`manifest::place_in_namespaces`]).
    pub crds: &'a [Manifest],
}

impl Options<'_> {
    /// The declared artifact name of the file shown as `shown`, if any.
    fn artifact_of(&self, shown: &str) -> Option<&str> {
        let name = Path::new(shown).file_name()?;
        self.artifacts.iter().copied().find(|a| name == *a)
    }
}

/// How this crate's tests read their diff fixtures (`tests/fixtures/diff`):
/// another program's output, with its one artifact declared as that
/// program declares it.
#[cfg(test)]
pub(crate) const TEST_OUT: Options<'static> = Options {
    artifacts: &["kyverno-exemptions.yaml"],
    pipe_into: "",
    crds: &[],
};

/// What a set of paths holds.
#[derive(Debug, Default)]
pub struct ManifestSet {
    /// The Kubernetes objects, in install order.
    pub manifests: Vec<Manifest>,
    /// The documents of each declared artifact ([`Options::artifacts`]),
    /// by its name, in the order read (one per release that has it).
    artifacts: Vec<(String, Vec<Node>)>,
    /// The `REV:PATH` arguments read from git, each with its copy.
    trees: Vec<(String, git::Tree)>,
    /// Each file read, by the name messages show (escaped: a control
    /// character as `\u{1b}`, bytes that are not UTF-8 as U+FFFD), with
    /// its real path.
    files: Vec<(String, PathBuf)>,
    /// Whether any file or stream read held a line that is no blank,
    /// comment or document marker. A set that holds no object is
    /// deliberately empty ([`read_side`]) only when none did (and a
    /// folder read holds no entry that is not hidden).
    held: bool,
}

impl ManifestSet {
    /// Where the files of the argument `arg` were read: `arg` itself, or
    /// for a `REV:PATH` argument the temporary copy of that file or folder
    /// (which lives as long as this set), so that the folders of a
    /// revision can be compared like the folders of a checkout.
    pub fn read_at<'a>(&'a self, arg: &'a str) -> &'a str {
        self.trees
            .iter()
            .find(|(given, _)| given == arg)
            .and_then(|(_, tree)| tree.root().to_str())
            .unwrap_or(arg)
    }

    /// Whether the set holds no object: a side [`read_side`] read as
    /// deliberately empty.
    pub fn is_empty(&self) -> bool {
        self.manifests.is_empty()
    }

    /// Removes the temporary copies of the `REV:PATH` arguments now. A
    /// command that leaves its set to the process's exit (never dropped,
    /// see `cli::commands`) calls it first, or the copies would stay in
    /// the temporary folder.
    pub fn remove_copies(&mut self) {
        self.trees.clear();
    }

    /// The real path of the file messages name `shown` (its bytes as the
    /// file system has them), when one was read under that name.
    pub fn real_path(&self, shown: &str) -> Option<&Path> {
        (self.files.iter())
            .find(|(name, _)| name == shown)
            .map(|(_, path)| path.as_path())
    }

    /// The documents read from the files of the artifact `name` (declared
    /// in [`Options::artifacts`]); none when the input has no such file.
    pub fn artifact(&self, name: &str) -> &[Node] {
        (self.artifacts.iter())
            .find(|(declared, _)| declared == name)
            .map_or(&[], |(_, documents)| documents.as_slice())
    }

    /// Keeps `document` as one of the artifact `name`'s.
    fn push_artifact(&mut self, name: &str, document: Node) {
        match self
            .artifacts
            .iter_mut()
            .find(|(declared, _)| declared == name)
        {
            Some((_, documents)) => documents.push(document),
            None => self.artifacts.push((name.to_owned(), vec![document])),
        }
    }
}

/// The names under which kustomize reads a directory's kustomization.
pub const KUSTOMIZATION_FILES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// The hint for any kustomization that does more than list resources.
fn kustomize_hint(dir: &Path, show: Show<'_>) -> String {
    match show.in_revision(dir) {
        // kubectl cannot read `REV:PATH`: it needs the revision checked out.
        Some((rev, path)) => format!(
            "only `resources` are evaluated; check what kustomize builds from a checkout of the revision: git worktree add /tmp/rev {rev} && {}",
            piped(
                &format!("kubectl kustomize /tmp/rev/{}", printable(&path)),
                show.pipe
            ),
            rev = printable(rev),
        ),
        None => format!(
            "only `resources` are evaluated; check what kustomize builds: {}",
            piped(&format!("kubectl kustomize {}", show.path(dir)), show.pipe)
        ),
    }
}

/// The command line `build`, its output piped into `pipe` when the caller
/// named one ([`Options::pipe_into`]).
fn piped(build: &str, pipe: &str) -> String {
    if pipe.is_empty() {
        build.to_owned()
    } else {
        format!("{build} | {pipe}")
    }
}

/// How paths are named in messages: as they are, or, for a revision's
/// folder copied out of git, as `REV:PATH/…` instead of the copy's path;
/// and what hints pipe a built stream into.
#[derive(Clone, Copy, Debug, Default)]
struct Show<'a> {
    /// The copy, and the argument it stands for.
    copy: Option<(&'a Path, &'a git::Spec)>,
    /// [`Options::pipe_into`].
    pipe: &'a str,
}

impl<'a> Show<'a> {
    /// `path` as the user knows it, escaped for a message.
    /// For a path inside a revision's copy: the revision and the path from
    /// the top of the repository (`.` for the top itself).
    fn in_revision(self, path: &Path) -> Option<(&'a str, String)> {
        let (copy, spec) = self.copy?;
        let rest = path.strip_prefix(copy).ok()?.to_string_lossy();
        let within = match (spec.path.as_str(), rest.as_ref()) {
            ("", "") => ".".to_owned(),
            ("", rest) => rest.to_owned(),
            (top, "") => top.to_owned(),
            (top, rest) => format!("{top}/{rest}"),
        };
        Some((spec.rev.as_str(), within))
    }

    fn path(self, path: &Path) -> String {
        if let Some((copy, spec)) = self.copy
            && let Ok(rest) = path.strip_prefix(copy)
        {
            let rest = rest.to_string_lossy();
            let named = if rest.is_empty() {
                spec.shown()
            } else {
                spec.beneath(&rest)
            };
            return printable(&named).into_owned();
        }
        printable(&path.display().to_string()).into_owned()
    }

    /// [`files::refused`], naming the path as the user knows it.
    fn refused(self, path: &Path, kind: std::fs::FileType) -> std::io::Error {
        files::refused(Path::new(&self.path(path)), kind)
    }
}

/// How a file found in the input is read.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    /// Its objects are applied.
    Objects,
    /// An artifact beside a kustomization that does not list it: read for
    /// the artifact only; an object in it is refused.
    ArtifactOnly,
}

/// What a command has spent of [`LIMITS`]: the byte and node budgets
/// bound the whole input (every file and stdin together, both sides of a
/// `diff`), not each file, so many small files cannot add up to more than
/// one budget's memory.
#[derive(Debug, Default)]
pub struct Budget {
    bytes: usize,
    nodes: usize,
}

impl Budget {
    /// The bytes a next file may still hold, plus one to tell when it
    /// holds more.
    fn bytes_to_read(&self) -> u64 {
        LIMITS.max_bytes.saturating_sub(self.bytes) as u64 + 1
    }

    fn exhausted(&self) -> bool {
        self.bytes > LIMITS.max_bytes || self.nodes > LIMITS.max_nodes
    }

    /// Charges a source's bytes and reads its documents against what is
    /// left of the budgets.
    fn parse(&mut self, source: &Arc<Source>) -> Result<Vec<Node>, Problem> {
        self.bytes = self.bytes.saturating_add(source.text.len());
        if self.bytes > LIMITS.max_bytes {
            return Err(Problem::new(
                source_origin(source),
                KeyPath::root(),
                format!(
                    "more than the limit of {} bytes in the whole input, this file and those read before it together",
                    LIMITS.max_bytes
                ),
            )
            .with_hint(WHOLE_INPUT_HINT));
        }
        yaml::parse_manifests_sharing(source, LIMITS, &mut self.nodes).map_err(|mut e| {
            if self.nodes > LIMITS.max_nodes {
                e.hint = Some(WHOLE_INPUT_HINT.to_owned());
            }
            e
        })
    }
}

const WHOLE_INPUT_HINT: &str = "the budget is the total of everything one command reads; split the input into several runs if it is legitimate";

/// A file to read.
struct Input {
    path: PathBuf,
    role: Role,
    /// Named on the command line (a link to it is followed).
    named: bool,
    /// Named on the command line and a FIFO or character device (a pipe,
    /// process substitution's `/dev/fd/N`): read as it streams, blocking.
    stream: bool,
}

/// Reads every path: a directory (its `.yaml`/`.yml` files, recursively, in
/// name order; or, where it holds a kustomization, the `resources` it
/// lists), a file, or `-` for stdin. Every problem is collected.
///
/// A path named here may be a regular file, a FIFO or a character device
/// (`<(some-tool render …)`, a pipe, `/dev/stdin`), each read under the same
/// byte budget; a socket or block device is refused. Inside a directory
/// nothing is opened that is not a regular file: a FIFO, socket or device
/// found there is refused from its metadata. A symbolic link inside a
/// directory is not followed (a note on stderr says so); one named on the
/// command line is. A file named as one of `options`' artifacts is read
/// as that artifact.
pub fn read(paths: &[String], options: &Options<'_>) -> Result<ManifestSet, Error> {
    read_within(paths, options, &mut Budget::default())
}

/// [`read`], spending from `budget`, which a command shares between the
/// sets it reads (`diff`'s two sides).
pub fn read_within(
    paths: &[String],
    options: &Options<'_>,
    budget: &mut Budget,
) -> Result<ManifestSet, Error> {
    read_all(paths, (options, budget), Named::ByTheUser)
}

/// [`read_within`] for one side of a comparison, which may hold nothing
/// on purpose (the old side of a new environment): an empty folder (or
/// one of hidden entries only, a `.gitkeep`), an empty file or stream
/// (`/dev/null`), or one of blank lines, comments and `---` only, is a
/// set of no objects, not an error. Anything else that holds no object
/// is still refused (a folder of other files, a file of documents that
/// are no objects: most likely the wrong path), and so is a path that
/// does not exist. [`ManifestSet::is_empty`] tells the caller.
pub fn read_side(
    path: &str,
    options: &Options<'_>,
    budget: &mut Budget,
) -> Result<ManifestSet, Error> {
    let paths = [path.to_owned()];
    let set = read_any(&paths, (options, budget), Named::ByTheUser)?;
    if set.manifests.is_empty() && (set.held || !nothing_at(path)) {
        return Err(no_objects(&paths));
    }
    Ok(set)
}

/// Whether `path` (read, and found to hold no line) is no folder with an
/// entry that is not hidden ([`read_side`]): a folder of other files is
/// not nothing. `-` and a file or stream that held no line are nothing.
fn nothing_at(path: &str) -> bool {
    if path == "-" {
        return true;
    }
    let path = Path::new(path);
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::read_dir(path).is_ok_and(|mut entries| {
            entries.all(|e| e.is_ok_and(|e| e.file_name().as_encoded_bytes().starts_with(b".")))
        }),
        Ok(_) => true,
        Err(_) => false,
    }
}

/// The refusal of paths that hold no object.
fn no_objects(paths: &[String]) -> Error {
    Error::Usage {
        reason: format!("no Kubernetes objects in {}", printable(&paths.join(", "))),
    }
}

/// Whether `text` holds no YAML document: only blank lines, comments and
/// document markers.
fn holds_nothing(text: &[u8]) -> bool {
    text.split(|b| *b == b'\n').all(|line| {
        let line = line.trim_ascii();
        line.is_empty() || line.starts_with(b"#") || line == b"---" || line == b"..."
    })
}

/// Reads files the caller found itself (such as those of an output
/// directory), not named by the user: regular files or directories only,
/// never a FIFO or device (one swapped in after the caller listed the folder
/// must not hang it), never a git revision.
pub fn read_found(paths: &[String], options: &Options<'_>) -> Result<ManifestSet, Error> {
    read_all(paths, (options, &mut Budget::default()), Named::Found)
}

/// Who named the paths read.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Named {
    /// The user, on the command line: a FIFO or device is read as it
    /// streams, and `REV:PATH` names a git revision's file or folder.
    ByTheUser,
    /// The caller, which found them: regular files and directories only.
    Found,
}

fn read_all(
    paths: &[String],
    (options, budget): (&Options<'_>, &mut Budget),
    named: Named,
) -> Result<ManifestSet, Error> {
    let set = read_any(paths, (options, budget), named)?;
    if set.manifests.is_empty() {
        return Err(no_objects(paths));
    }
    Ok(set)
}

/// [`read_all`], which may find no object.
fn read_any(
    paths: &[String],
    (options, budget): (&Options<'_>, &mut Budget),
    named: Named,
) -> Result<ManifestSet, Error> {
    if paths.iter().filter(|p| *p == "-").count() > 1 {
        return Err(Error::Usage {
            reason: "standard input (-) can be read only once".to_owned(),
        });
    }
    if let Some(twice) = crate::files::one_stream_twice(paths.iter().map(|p| p.as_ref())) {
        return Err(Error::Usage {
            reason: crate::files::named_twice(twice),
        });
    }
    let mut set = ManifestSet::default();
    let mut problems = Vec::new();
    for path in paths {
        if budget.exhausted() {
            break;
        }
        if path == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .take(budget.bytes_to_read())
                .read_to_end(&mut bytes)
                .map_err(|source| Error::ReadManifests {
                    path: "-".to_owned(),
                    source,
                })?;
            set.held |= !holds_nothing(&bytes);
            let source = match utf8_source("<stdin>".to_owned(), bytes) {
                Ok(source) => source,
                Err(problem) => {
                    problems.push(problem);
                    continue;
                }
            };
            // A stream is objects only: it has no file name to declare an
            // artifact by.
            read_text(
                source,
                (None, Role::Objects, None),
                options.pipe_into,
                budget,
                &mut set,
                &mut problems,
            );
            continue;
        }
        let cannot = |source| Error::ReadManifests {
            path: printable(path).into_owned(),
            source,
        };
        let spec = match named {
            Named::ByTheUser => git::parse(path),
            Named::Found => None,
        };
        let Some(spec) = spec else {
            let show = Show {
                copy: None,
                pipe: options.pipe_into,
            };
            let local = (Path::new(path.as_str()), show, named);
            read_path(path, local, (options, budget), &mut set, &mut problems)?;
            continue;
        };
        let tree = git::materialise(&spec, budget.bytes_to_read()).map_err(cannot)?;
        let show = Show {
            copy: Some((tree.root(), &tree.spec)),
            pipe: options.pipe_into,
        };
        let copy = (tree.root(), show, named);
        read_path(path, copy, (options, budget), &mut set, &mut problems)?;
        set.trees.push((path.clone(), tree));
    }
    if budget.exhausted() {
        return Err(Error::InvalidManifests { problems });
    }
    manifest::place_in_namespaces(
        &mut set.manifests,
        manifest::DEFAULT_NAMESPACE,
        options.crds,
    );
    duplicates(&mut set, &mut problems);
    if !problems.is_empty() {
        return Err(Error::InvalidManifests { problems });
    }
    manifest::sort(&mut set.manifests);
    Ok(set)
}

/// Reads the files the argument `arg` stands for, at `path` (a directory,
/// a file, a FIFO), into `set`, naming them in messages as `show` says.
fn read_path(
    arg: &str,
    (path, show, named): (&Path, Show<'_>, Named),
    (options, budget): (&Options<'_>, &mut Budget),
    set: &mut ManifestSet,
    problems: &mut Vec<Problem>,
) -> Result<(), Error> {
    let mut files = Vec::new();
    let streams = named == Named::ByTheUser;
    let found = (&mut files, &mut *problems);
    collect(
        path,
        found,
        (&mut *budget, options.artifacts),
        show,
        streams,
    )
    .map_err(|source| Error::ReadManifests {
        path: printable(arg).into_owned(),
        source,
    })?;
    for file in files {
        if budget.exhausted() {
            // The rest would only fail the same way.
            break;
        }
        let shown = show.path(&file.path);
        let read = if file.stream {
            read_stream(&file.path, budget)
        } else {
            read_file(&file.path, file.named, budget)
        };
        let text = read.map_err(|source| Error::ReadManifests {
            path: shown.clone(),
            source,
        })?;
        set.files.push((shown.clone(), file.path.clone()));
        set.held |= !holds_nothing(&text);
        let artifact = options.artifact_of(&shown);
        let source = match utf8_source(shown.clone(), text) {
            Ok(source) => source,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        read_text(
            source,
            (Some(file.path.display().to_string()), file.role, artifact),
            show.pipe,
            budget,
            set,
            problems,
        );
    }
    Ok(())
}

/// Reads a regular file (see [`files::open_regular`]) up to what is left of
/// the byte budget (and one more byte, to tell); a file found in a
/// directory is not opened through a link.
fn read_file(path: &Path, named: bool, budget: &Budget) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    files::open_regular(path, named)?
        .take(budget.bytes_to_read())
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The files a path given on the command line stands for; `streams`: a
/// FIFO or device is read.
fn collect(
    path: &Path,
    (files, problems): (&mut Vec<Input>, &mut Vec<Problem>),
    (budget, artifacts): (&mut Budget, &[&str]),
    show: Show<'_>,
    streams: bool,
) -> std::io::Result<()> {
    // Named on the command line: a link is followed, as the user asked.
    let kind = std::fs::metadata(path)?.file_type();
    if kind.is_dir() {
        return walk(path, (files, problems), (budget, artifacts), show);
    }
    let stream = streams && files::is_stream(kind);
    if !kind.is_file() && !stream {
        return Err(show.refused(path, kind));
    }
    files.push(Input {
        path: path.to_owned(),
        role: Role::Objects,
        named: true,
        stream,
    });
    Ok(())
}

/// Reads a FIFO or character device named on the command line (see
/// [`files::open_named`]: blocking until its writer closes it; what is
/// opened is checked again), up to what is left of the byte budget (and
/// one more byte, to tell): `/dev/zero` stops at the budget. Inside a
/// directory streams stay refused ([`collect`]): nobody asked for them
/// there, and a FIFO planted in an output directory must not hang a reader.
fn read_stream(path: &Path, budget: &Budget) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    files::open_named(path)?
        .take(budget.bytes_to_read())
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Whether the directory reader reads a file of this name whatever lists
/// it: a manifest ([`is_yaml`]) or a kustomization. Any other file is read
/// only when a kustomization lists it.
pub(crate) fn read_by_name(path: &Path) -> bool {
    is_yaml(path)
        || path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| KUSTOMIZATION_FILES.contains(&n))
}

/// The files kubectl reads in a directory (`kubectl apply -f DIR`):
/// `.yaml`, `.yml` and `.json`.
fn is_yaml(path: &Path) -> bool {
    path.extension()
        .is_some_and(|ext| ext == "yaml" || ext == "yml" || ext == "json")
}

/// Whether the folder `dir` is the checkout of another repository (a
/// submodule): it holds a `.git`. Inside an input directory it is not
/// read, as a revision's submodule is not: no other repository is read.
fn is_other_repository(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(".git")).is_ok()
}

/// Whether `path` is a checkout's `.git` (a folder, or a submodule's
/// file): git's own, in no revision's tree, so not read.
fn is_git_metadata(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == ".git")
}

/// Why a submodule inside an input directory is not read.
const SUBMODULE: &str = "a submodule (another repository's checkout); no other repository is read";

fn skip_submodule(path: &Path, show: Show<'_>) {
    crate::terminal::note(&format!("not reading {}: {SUBMODULE}", show.path(path)));
}

fn skip_link(path: &Path, show: Show<'_>) {
    crate::terminal::note(&format!(
        "not reading {}: a symbolic link inside an input directory is not followed",
        show.path(path)
    ));
}

/// Every YAML file under `dir`; a folder with a kustomization is read as
/// kustomize reads it, `artifacts` beside it.
fn walk(
    dir: &Path,
    (files, problems): (&mut Vec<Input>, &mut Vec<Problem>),
    (budget, artifacts): (&mut Budget, &[&str]),
    show: Show<'_>,
) -> std::io::Result<()> {
    if let Some(kustomization) = kustomization_of(dir, show)? {
        let found = (files, budget, problems);
        return kustomize((dir, &kustomization), found, artifacts, show);
    }
    let mut walk = crate::files::walk(dir);
    while let Some(entry) = walk.next() {
        let entry = entry.map_err(crate::files::walk_error)?;
        let (path, kind) = (entry.path(), entry.file_type());
        if is_git_metadata(path) {
            // Not in any revision's tree: git's own, never content.
            if kind.is_dir() {
                walk.skip_current_dir();
            }
        } else if kind.is_symlink() {
            // A link to a folder could loop and repeat every object; a link
            // to a file could reach outside the input.
            skip_link(path, show);
        } else if kind.is_dir() && is_other_repository(path) {
            skip_submodule(path, show);
            walk.skip_current_dir();
        } else if kind.is_dir() {
            // A folder with a kustomization is read as kustomize reads it.
            if let Some(kustomization) = kustomization_of(path, show)? {
                walk.skip_current_dir();
                let found = (&mut *files, &mut *budget, &mut *problems);
                kustomize((path, &kustomization), found, artifacts, show)?;
            }
        } else if !kind.is_file() {
            return Err(show.refused(path, kind));
        } else if is_yaml(path) {
            files.push(Input {
                path: path.to_path_buf(),
                role: Role::Objects,
                named: false,
                stream: false,
            });
        }
    }
    Ok(())
}

/// The kustomization file of `dir`, if it has one (two is an error, as in
/// kustomize).
fn kustomization_of(dir: &Path, show: Show<'_>) -> std::io::Result<Option<PathBuf>> {
    let mut found = None;
    for name in KUSTOMIZATION_FILES {
        let path = dir.join(name);
        let kind = match std::fs::symlink_metadata(&path) {
            Ok(meta) => meta.file_type(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        if !kind.is_file() {
            return Err(show.refused(&path, kind));
        }
        if let Some(first) = found.replace(path) {
            return Err(std::io::Error::other(format!(
                "{} has both {} and {name}; kustomize refuses that",
                show.path(dir),
                show.path(&first),
            )));
        }
    }
    Ok(found)
}

/// Reads a kustomization and adds the files its `resources` list (folders
/// with a kustomization of their own, recursively). Any other field is
/// refused: it is not evaluated here, and ignoring it would check
/// something other than what gets applied. A YAML file in the folder that
/// nothing lists is refused too: kustomize would not apply it; an
/// `artifacts` file is read as its artifact.
fn kustomize(
    (dir, kustomization): (&Path, &Path),
    (files, budget, problems): (&mut Vec<Input>, &mut Budget, &mut Vec<Problem>),
    artifacts: &[&str],
    show: Show<'_>,
) -> std::io::Result<()> {
    if budget.exhausted() {
        return Ok(());
    }
    let shown = show.path(kustomization);
    let source = match utf8_source(shown, read_file(kustomization, false, budget)?) {
        Ok(source) => source,
        Err(problem) => {
            problems.push(problem);
            return Ok(());
        }
    };
    let before = problems.len();
    let mut listed: Vec<PathBuf> = Vec::new();
    let mut folders: Vec<PathBuf> = Vec::new();
    let Some(entries) = kustomization_fields(&source, budget, problems) else {
        return Ok(());
    };
    for (key, node) in &entries {
        let path = KeyPath(vec![crate::location::Segment::Key(key.name.clone())]);
        let text = match &node.value {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        };
        match key.name.as_str() {
            "apiVersion" if text == Some("kustomize.config.k8s.io/v1beta1") => {}
            "kind" if text == Some("Kustomization") => {}
            "apiVersion" | "kind" => problems.push(
                Problem::new(
                    node.origin.clone(),
                    path,
                    "not a kustomization that can be read here (apiVersion kustomize.config.k8s.io/v1beta1, kind Kustomization)".to_owned(),
                )
                .with_hint(kustomize_hint(dir, show)),
            ),
            "resources" => {
                list_resources(dir, node, path, (&mut listed, &mut folders), problems, show);
            }
            other => problems.push(
                Problem::new(
                    key.origin.clone(),
                    path,
                    format!(
                        "`{}` changes what kustomize applies, and is not evaluated here",
                        yaml::quote(other)
                    ),
                )
                .with_hint(kustomize_hint(dir, show)),
            ),
        }
    }
    if problems.len() > before {
        return Ok(());
    }
    for file in &listed {
        files.push(Input {
            path: file.clone(),
            role: Role::Objects,
            named: false,
            stream: false,
        });
    }
    for folder in &folders {
        // `resource` checked that it has a kustomization.
        if let Some(inner) = kustomization_of(folder, show)? {
            let found = (&mut *files, &mut *budget, &mut *problems);
            kustomize((folder, &inner), found, artifacts, show)?;
        }
    }
    let listed = (listed.as_slice(), folders.as_slice());
    unlisted(dir, listed, (files, problems), artifacts, show)
}

/// The fields of a kustomization, or `None` once it says why it has none
/// it can read (a second document, invalid YAML, not a mapping).
fn kustomization_fields(
    source: &Arc<Source>,
    budget: &mut Budget,
    problems: &mut Vec<Problem>,
) -> Option<Vec<(yaml::Key, yaml::Node)>> {
    let document = match budget.parse(source) {
        Ok(mut documents) if documents.len() == 1 => documents.pop(),
        Ok(documents) if documents.is_empty() => None,
        Ok(documents) => {
            problems.push(Problem::new(
                documents[1].origin.clone(),
                KeyPath::root(),
                "a second document in a kustomization".to_owned(),
            ));
            return None;
        }
        Err(e) => {
            problems.push(e);
            return None;
        }
    };
    match document.map(|d| d.value) {
        None | Some(Value::Null) => Some(Vec::new()),
        Some(Value::Mapping(entries)) => Some(entries),
        Some(other) => {
            problems.push(Problem::new(
                source_origin(source),
                KeyPath::root(),
                format!(
                    "a kustomization must be a mapping, not {}",
                    other.type_name()
                ),
            ));
            None
        }
    }
}

/// The paths a kustomization's `resources` (at `path`) lists: files into
/// `listed`, folders (with a kustomization of their own) into `folders`.
fn list_resources(
    dir: &Path,
    node: &yaml::Node,
    path: KeyPath,
    (listed, folders): (&mut Vec<PathBuf>, &mut Vec<PathBuf>),
    problems: &mut Vec<Problem>,
    show: Show<'_>,
) {
    let items: &[yaml::Node] = match &node.value {
        Value::Sequence(items) => items,
        Value::Null => &[],
        _ => {
            problems.push(Problem::new(
                node.origin.clone(),
                path,
                "resources must be a list of paths".to_owned(),
            ));
            return;
        }
    };
    for (index, item) in items.iter().enumerate() {
        let mut at = path.clone();
        at.0.push(crate::location::Segment::Index(index));
        match resource(dir, item, show) {
            Ok((path, true)) => folders.push(path),
            Ok((path, false)) => listed.push(path),
            Err(why) => problems.push(
                Problem::new(item.origin.clone(), at, why).with_hint(kustomize_hint(dir, show)),
            ),
        }
    }
}

/// The origin of a whole source: its first line.
fn source_origin(source: &Arc<Source>) -> crate::location::Origin {
    crate::location::Origin::At {
        source: Arc::clone(source),
        line: 1,
        col: 1,
        width: 1,
    }
}

/// Checks one `resources` entry: a relative path inside the folder, no
/// `..`, no URL, no link on the way, naming a file or a folder with a
/// kustomization. Returns the path and whether it is a folder.
fn resource(dir: &Path, item: &yaml::Node, show: Show<'_>) -> Result<(PathBuf, bool), String> {
    let Value::String(entry) = &item.value else {
        return Err("a resource must be a path".to_owned());
    };
    let quoted = yaml::quote(entry);
    if entry.contains("://") || entry.starts_with("git@") || entry.contains('?') {
        return Err(format!(
            "`{quoted}` is a URL; only files inside the directory are read"
        ));
    }
    let mut path = dir.to_owned();
    for component in Path::new(entry).components() {
        match component {
            std::path::Component::Normal(part) => {
                path.push(part);
                let kind = std::fs::symlink_metadata(&path)
                    .map_err(|e| match e.kind() {
                        std::io::ErrorKind::NotFound => format!(
                            "`{quoted}` is not in the directory (kustomize would try it as a remote URL)"
                        ),
                        _ => format!("`{quoted}` cannot be read at {}: {e}", show.path(&path)),
                    })?
                    .file_type();
                if kind.is_symlink() {
                    return Err(format!(
                        "`{quoted}` goes through the symbolic link {}, and links are not followed",
                        show.path(&path)
                    ));
                }
                if kind.is_dir() && is_other_repository(&path) {
                    return Err(format!(
                        "`{quoted}` goes through {}, {SUBMODULE}",
                        show.path(&path)
                    ));
                }
            }
            std::path::Component::CurDir => {}
            _ => {
                return Err(format!(
                    "`{quoted}` leaves the directory (absolute or `..`); only files inside it are read"
                ));
            }
        }
    }
    let kind = std::fs::symlink_metadata(&path)
        .map_err(|e| format!("`{quoted}`: {e}"))?
        .file_type();
    if path == dir {
        return Err(format!("`{quoted}` is the directory itself"));
    }
    if kind.is_dir() {
        return match kustomization_of(&path, show) {
            Ok(Some(_)) => Ok((path, true)),
            Ok(None) => Err(format!(
                "`{quoted}` is a folder without a kustomization; kustomize refuses it"
            )),
            Err(e) => Err(e.to_string()),
        };
    }
    if !kind.is_file() {
        return Err(show.refused(&path, kind).to_string());
    }
    Ok((path, false))
}

/// Refuses the YAML files under `root` that its kustomization does not
/// list (they are not applied), except the `artifacts`, read as artifacts
/// only.
fn unlisted(
    root: &Path,
    (listed, folders): (&[PathBuf], &[PathBuf]),
    (files, problems): (&mut Vec<Input>, &mut Vec<Problem>),
    artifacts: &[&str],
    show: Show<'_>,
) -> std::io::Result<()> {
    // Looked up once per entry walked: a list searched for each would cost
    // files × listed comparisons of paths (a folder `render --output-dir`
    // wrote for 5,000 projects lists 5,000 files).
    let listed: std::collections::HashSet<&Path> = (listed.iter().chain(folders))
        .map(PathBuf::as_path)
        .collect();
    let mut walk = crate::files::walk(root);
    while let Some(entry) = walk.next() {
        let entry = entry.map_err(crate::files::walk_error)?;
        let kind = entry.file_type();
        let entry = entry.path();
        let skip = listed.contains(entry);
        if skip || is_git_metadata(entry) {
            if kind.is_dir() {
                walk.skip_current_dir();
            }
            continue;
        }
        if kind.is_symlink() {
            skip_link(entry, show);
        } else if kind.is_dir() && is_other_repository(entry) {
            skip_submodule(entry, show);
            walk.skip_current_dir();
        } else if kind.is_dir() {
            // Walked on: its files are checked against the list too.
        } else if !kind.is_file() {
            return Err(show.refused(entry, kind));
        } else if entry.parent() == Some(root)
            && entry
                .file_name()
                .is_some_and(|n| KUSTOMIZATION_FILES.iter().any(|k| n == *k))
        {
            // The kustomization being evaluated.
        } else if entry
            .file_name()
            .is_some_and(|n| artifacts.iter().any(|a| n == *a))
        {
            files.push(Input {
                path: entry.to_path_buf(),
                role: Role::ArtifactOnly,
                named: false,
                stream: false,
            });
        } else if is_yaml(entry) {
            let shown = show.path(entry);
            problems.push(
                Problem::new(
                    source_origin(&Source::file(shown.clone(), String::new())),
                    KeyPath::root(),
                    format!(
                        "{shown} is not listed in the resources of {}'s kustomization, so `kubectl apply -k` does not apply it",
                        show.path(root)
                    ),
                )
                .with_hint("list it in resources, or move it out of the directory"),
            );
        }
    }
    Ok(())
}

/// Two objects with one identity: one would silently hide the other. The
/// exception is a CustomResourceDefinition that two releases both hold,
/// identical (it carries nothing of one instance): it is one object.
fn duplicates(set: &mut ManifestSet, problems: &mut Vec<Problem>) {
    let mut seen: std::collections::HashMap<crate::manifest::ObjectId, usize> =
        std::collections::HashMap::new();
    let mut shared = Vec::new();
    for (index, manifest) in set.manifests.iter().enumerate() {
        let Some(&first) = seen.get(&manifest.id) else {
            seen.insert(manifest.id.clone(), index);
            continue;
        };
        let first = &set.manifests[first];
        if manifest.id.is_crd() && manifest.json() == first.json() {
            shared.push(index);
            continue;
        }
        problems.push(Problem::new(
            manifest.node().origin.clone(),
            KeyPath::root(),
            format!(
                "{} again; it is also at {}",
                manifest.id,
                first.node().origin
            ),
        ));
    }
    for index in shared.into_iter().rev() {
        set.manifests.remove(index);
    }
}

/// Reads manifests from `text`, named `name` in messages.
pub fn parse(name: &str, text: &str) -> Result<ManifestSet, Error> {
    let mut set = ManifestSet::default();
    let mut problems = Vec::new();
    read_text(
        Source::file(name, text),
        (None, Role::Objects, None),
        "",
        &mut Budget::default(),
        &mut set,
        &mut problems,
    );
    manifest::place_in_namespaces(&mut set.manifests, manifest::DEFAULT_NAMESPACE, &[]);
    duplicates(&mut set, &mut problems);
    if !problems.is_empty() {
        return Err(Error::InvalidManifests { problems });
    }
    manifest::sort(&mut set.manifests);
    Ok(set)
}

/// Reads one text's documents into `set`. `file` is the path it was read
/// from, when it was a file; `artifact` the declared artifact it is, when
/// it is one: its documents without `kind` are that artifact's. `pipe` is
/// [`Options::pipe_into`].
fn read_text(
    source: Arc<Source>,
    (file, role, artifact): (Option<String>, Role, Option<&str>),
    pipe: &str,
    budget: &mut Budget,
    set: &mut ManifestSet,
    problems: &mut Vec<Problem>,
) {
    let documents = match budget.parse(&source) {
        Ok(documents) => documents,
        Err(e) => {
            problems.push(e);
            return;
        }
    };
    let templates = source_comments(&source.text);
    let mut objects = Vec::with_capacity(documents.len());
    for node in documents {
        if matches!(node.value, Value::Null) {
            continue;
        }
        if let Some(artifact) = artifact
            && node.get("kind").is_none()
        {
            set.push_artifact(artifact, node);
            continue;
        }
        if node.get("items").is_some() && role == Role::Objects {
            flatten_list(node, &mut objects, problems);
        } else {
            objects.push(node);
        }
    }
    for node in objects {
        if role == Role::ArtifactOnly {
            problems.push(
                Problem::new(
                    node.origin.clone(),
                    KeyPath::root(),
                    "an object in a file the kustomization does not list: `kubectl apply -k` does not apply it".to_owned(),
                )
                .with_hint("list the file in resources, or move the object"),
            );
            continue;
        }
        if let Some(why) = kustomize_document(&node) {
            problems.push(
                Problem::new(node.origin.clone(), KeyPath::root(), why).with_hint(format!(
                    "give the directory instead, whose kustomization.yaml lists only resources, or check what kustomize builds: {}",
                    piped("kubectl kustomize DIR", pipe)
                )),
            );
            continue;
        }
        match manifest::identify(&node) {
            Ok(id) => {
                let line = manifest::line_of(&node.origin);
                let after = templates.partition_point(|(start, _)| *start <= line);
                let template = after.checked_sub(1).and_then(|i| templates[i].1.clone());
                let mut manifest = Manifest::new(id, node);
                manifest.template = template;
                manifest.file = file.clone();
                set.manifests.push(manifest);
            }
            Err(why) => problems.push(
                Problem::new(
                    node.origin.clone(),
                    KeyPath::root(),
                    format!("not a Kubernetes object: a document {why}"),
                )
                .with_hint("every document needs apiVersion, kind and metadata.name"),
            ),
        }
    }
}

/// The objects of a list, each one of its own, as `kubectl apply` reads
/// them: kubectl decodes any document with an `items` field as a list
/// (`v1 List`, `PodList`, `RoleList`, …; apimachinery's unstructured
/// decoder) and applies its items one by one. An item with neither `kind`
/// nor `apiVersion` in a typed list (`FooList`) is a `Foo` of the list's
/// apiVersion, as the decoder sets it; any other item without them, a
/// list inside a list, or `items` that is not a list is refused where it
/// is written. The items are the list's own nodes, moved: no copy, so the
/// input's node budget bounds them.
fn flatten_list(list: Node, objects: &mut Vec<Node>, problems: &mut Vec<Problem>) {
    let text = |node: &Node, key: &str| match node.get(key).map(|n| &n.value) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    };
    let list_kind = text(&list, "kind");
    let list_version = text(&list, "apiVersion");
    let (Some(list_kind), Some(list_version)) = (list_kind, list_version) else {
        problems.push(Problem::new(
            list.origin.clone(),
            KeyPath::root(),
            "not a Kubernetes object: a list (a document with `items`) without apiVersion and kind".to_owned(),
        ).with_hint("a list needs apiVersion and kind, such as apiVersion: v1 and kind: List"));
        return;
    };
    let Value::Mapping(entries) = list.value else {
        return;
    };
    let Some((key, items)) = entries.into_iter().find(|(key, _)| key.name == "items") else {
        return;
    };
    let items = match items.value {
        Value::Sequence(items) => items,
        Value::Null => Vec::new(),
        other => {
            problems.push(Problem::new(
                items.origin,
                KeyPath(vec![Segment::Key(key.name)]),
                format!(
                    "the items of a {} must be a list, not {}",
                    yaml::quote(&list_kind),
                    other.type_name()
                ),
            ));
            return;
        }
    };
    let item_kind = list_kind.strip_suffix("List").filter(|k| !k.is_empty());
    for (index, mut item) in items.into_iter().enumerate() {
        let at = KeyPath(vec![
            Segment::Key("items".to_owned()),
            Segment::Index(index),
        ]);
        if !matches!(item.value, Value::Mapping(_)) {
            problems.push(Problem::new(
                item.origin.clone(),
                at,
                format!(
                    "not a Kubernetes object: an item of a {} that is {}, not a mapping",
                    yaml::quote(&list_kind),
                    item.value.type_name()
                ),
            ));
            continue;
        }
        if item.get("items").is_some() {
            problems.push(
                Problem::new(
                    item.origin.clone(),
                    at,
                    format!("a list inside a {}: one level of list is read, as kubectl applies it", yaml::quote(&list_kind)),
                )
                .with_hint("put the inner list's items in the outer list, or the inner list in a document of its own"),
            );
            continue;
        }
        let (kind, version) = (item.get("kind").is_some(), item.get("apiVersion").is_some());
        match item_kind {
            Some(item_kind) if !kind && !version => {
                let origin = item.origin.clone();
                if let Value::Mapping(fields) = &mut item.value {
                    for (name, value) in [
                        ("apiVersion", &list_version),
                        ("kind", &item_kind.to_owned()),
                    ] {
                        fields.push((
                            yaml::Key {
                                name: name.to_owned(),
                                origin: origin.clone(),
                            },
                            Node::new(Value::String(value.clone()), origin.clone()),
                        ));
                    }
                }
            }
            _ if !kind || !version => {
                problems.push(
                    Problem::new(
                        item.origin.clone(),
                        at,
                        format!(
                            "not a Kubernetes object: an item of a {} without {}",
                            yaml::quote(&list_kind),
                            if kind { "apiVersion" } else { "kind" }
                        ),
                    )
                    .with_hint("every item of a v1 List needs apiVersion and kind"),
                );
                continue;
            }
            _ => {}
        }
        objects.push(item);
    }
}

/// Why a document is kustomize's, not the cluster's: a `Kustomization` or
/// `Component` of `kustomize.config.k8s.io` changes what gets applied and
/// is no object. (Flux's `kustomize.toolkit.fluxcd.io` Kustomization is a
/// cluster object, read like any other.)
fn kustomize_document(node: &Node) -> Option<String> {
    let text = |key: &str| match node.get(key).map(|n| &n.value) {
        Some(Value::String(s)) => Some(s.as_str()),
        _ => None,
    };
    let kind = text("kind")?;
    if kind != "Kustomization" && kind != "Component" {
        return None;
    }
    let api_version = text("apiVersion").unwrap_or("");
    (api_version.is_empty() || api_version.starts_with("kustomize.config.k8s.io/")).then(|| {
        format!(
            "a kustomize {kind} ({}) changes what gets applied; only the `resources` of a directory's kustomization file are evaluated",
            if api_version.is_empty() { "no apiVersion" } else { api_version }
        )
    })
}

/// For each document start (`---` line, and line 1), the template named by
/// a `# Source:` comment within that document's leading comment lines.
fn source_comments(text: &str) -> Vec<(usize, Option<String>)> {
    let mut starts = vec![(1, None)];
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line == "---" || line.starts_with("--- ") {
            starts.push((number, None));
        } else if let Some(template) = line.strip_prefix("# Source: ")
            && let Some(last) = starts.last_mut()
        {
            let template = template.strip_prefix("templates/").unwrap_or(template);
            // Helm writes `# Source: <chart>/templates/<file>`.
            let template = template
                .split_once("/templates/")
                .map_or(template, |(_, t)| t);
            last.1 = Some(template.to_owned());
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<String> {
        parse("t", text)
            .unwrap()
            .manifests
            .iter()
            .map(|m| m.id.to_string())
            .collect()
    }

    #[test]
    fn a_typed_lists_items_without_kind_are_of_its_item_kind() {
        let text = "apiVersion: v1\nkind: ServiceAccountList\nitems:\n  - metadata: {name: a, namespace: x}\n  - metadata: {name: b}\n";
        assert_eq!(
            ids(text),
            ["ServiceAccount default/b", "ServiceAccount x/a"]
        );
        let set = parse("t", text).unwrap();
        let a = &set.manifests[1];
        assert_eq!(
            a.node().get("apiVersion").unwrap().value,
            Value::String("v1".into())
        );
        assert_eq!(manifest::line_of(&a.node().origin), 4);
    }

    #[test]
    fn a_custom_resource_takes_its_scope_from_its_crd() {
        let crd = |scope: &str, kind: &str| {
            format!(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: x.example.com}}\nspec:\n  group: example.com\n  scope: {scope}\n  names: {{kind: {kind}}}\n---\napiVersion: example.com/v1\nkind: {kind}\nmetadata: {{name: one, namespace: ignored}}\n---\napiVersion: other.com/v1\nkind: {kind}\nmetadata: {{name: two}}\n---\n"
            )
        };
        let text = crd("Cluster", "Global");
        assert_eq!(
            ids(&text),
            [
                "CustomResourceDefinition x.example.com",
                "Global one",
                "Global default/two"
            ]
        );
        let text = crd("Namespaced", "Local");
        assert_eq!(
            ids(&text),
            [
                "CustomResourceDefinition x.example.com",
                "Local default/two",
                "Local ignored/one"
            ]
        );
    }

    #[test]
    fn the_default_namespace_is_written_into_the_object() {
        let set = parse("t", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: \"\"}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n").unwrap();
        let json: Vec<_> = set.manifests.iter().map(|m| m.json()).collect();
        assert_eq!(set.manifests[0].id.to_string(), "Namespace ns");
        assert_eq!(json[0]["metadata"].get("namespace"), None);
        assert_eq!(set.manifests[1].id.to_string(), "ConfigMap default/c");
        assert_eq!(json[1]["metadata"]["namespace"], "default");
    }

    #[test]
    fn source_comments_follow_document_starts() {
        let text = "---\n# Source: templates/a.yaml\nkind: A\n---\n# Source: chart/templates/b.yaml\nkind: B\n---\nkind: C\n";
        assert_eq!(
            source_comments(text),
            [
                (1, None),
                (1, Some("a.yaml".to_owned())),
                (4, Some("b.yaml".to_owned())),
                (7, None)
            ]
        );
    }

    /// A made-up artifact a caller declares: its documents without `kind`
    /// are kept as the artifact, beside a kustomization that does not list
    /// it too; undeclared, the same file is refused as not listed.
    #[test]
    fn a_declared_artifact_is_read_beside_the_objects() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write(
            "kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n",
        );
        write(
            "cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        );
        write("quotas.yaml", "team-a: {cpu: 2}\n");
        let paths = [dir.path().display().to_string()];
        let options = Options {
            artifacts: &["quotas.yaml"],
            ..Options::default()
        };
        let set = read(&paths, &options).unwrap();
        assert_eq!(set.manifests.len(), 1);
        let artifact: Vec<_> = set
            .artifact("quotas.yaml")
            .iter()
            .map(Node::to_json)
            .collect();
        assert_eq!(artifact, [serde_json::json!({"team-a": {"cpu": 2}})]);
        assert!(set.artifact("kyverno-exemptions.yaml").is_empty());
        let Err(Error::InvalidManifests { problems }) = read(&paths, &Options::default()) else {
            panic!("an undeclared, unlisted file was read");
        };
        assert!(problems[0].message.contains("quotas.yaml is not listed"));
    }

    /// A hint to check what kustomize builds names the caller's command
    /// ([`Options::pipe_into`]), and no program when it names none: the
    /// kustomization's own `images`, and a kustomize document in a file.
    #[test]
    fn a_kustomize_hint_pipes_into_the_callers_command_only() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write("kustomization.yaml", "resources: [cm.yaml]\nimages: []\n");
        write(
            "cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        );
        let stream =
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamePrefix: p-\n";
        std::fs::create_dir(dir.path().join("plain")).unwrap();
        std::fs::write(dir.path().join("plain/k.yaml"), stream).unwrap();
        let shown = dir.path().display().to_string();
        let hints = |paths: &[String], pipe_into: &'static str| {
            let options = Options {
                pipe_into,
                ..Options::default()
            };
            let Err(Error::InvalidManifests { problems }) = read(paths, &options) else {
                panic!("read");
            };
            problems
                .into_iter()
                .filter_map(|p| p.hint)
                .collect::<Vec<_>>()
        };
        let directory = [shown.clone()];
        let file = [format!("{shown}/plain/k.yaml")];
        assert_eq!(
            hints(&directory, ""),
            [format!(
                "only `resources` are evaluated; check what kustomize builds: kubectl kustomize {shown}"
            )]
        );
        assert_eq!(
            hints(&directory, "mytool check -"),
            [format!(
                "only `resources` are evaluated; check what kustomize builds: kubectl kustomize {shown} | mytool check -"
            )]
        );
        let [hint] = &hints(&file, "")[..] else {
            panic!("one hint");
        };
        assert!(
            hint.ends_with("check what kustomize builds: kubectl kustomize DIR"),
            "{hint}"
        );
        let [hint] = &hints(&file, "mytool check -")[..] else {
            panic!("one hint");
        };
        assert!(
            hint.ends_with("kubectl kustomize DIR | mytool check -"),
            "{hint}"
        );
    }
}
