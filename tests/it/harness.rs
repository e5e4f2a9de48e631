//! Running the `chartgen` binary the way a user does, from the repository
//! root, and showing a run as one text for snapshots.

use std::path::Path;
use std::process::{Command, Stdio};

/// What one run of `chartgen` did.
pub struct Run {
    pub args: Vec<String>,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The run of `chartgen ARGS` that ended with `output` (a test that
    /// starts the command itself, for a stream of its own).
    pub fn of<S: AsRef<str>>(args: &[S], output: std::process::Output) -> Run {
        Run {
            args: args.iter().map(|a| a.as_ref().to_owned()).collect(),
            code: output.status.code().expect("chartgen exits, not killed"),
            stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
        }
    }

    /// The run as a snapshot: command line, exit code, stdout, stderr.
    pub fn transcript(&self) -> String {
        format!(
            "$ chartgen {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
            self.args.join(" "),
            self.code,
            self.stdout,
            self.stderr
        )
    }

    /// Asserts that the run ended with `code` (1: findings, 2: input or
    /// arguments refused) and said `needle` on stderr, showing the whole
    /// run when not: the one check of a refused run.
    #[track_caller]
    pub fn assert_refused(&self, code: i32, needle: &str) {
        self.assert_refused_each(code, &[needle]);
    }

    /// [`Run::assert_refused`] with several texts, each of which stderr
    /// says.
    #[track_caller]
    pub fn assert_refused_each(&self, code: i32, needles: &[&str]) {
        let missing: Vec<&&str> = needles
            .iter()
            .filter(|n| !self.stderr.contains(**n))
            .collect();
        assert!(
            self.code == code && missing.is_empty(),
            "expected exit {code} and {missing:?} on stderr:\n{}",
            self.transcript()
        );
    }

    /// Asserts that `needle` is not on stderr (a secret, a raw control
    /// character, a message of another case), showing the whole run when
    /// it is: the negative check of a run's messages.
    #[track_caller]
    pub fn assert_stderr_lacks(&self, needle: &str) {
        assert!(
            !self.stderr.contains(needle),
            "{needle:?} is on stderr:\n{}",
            self.transcript().escape_debug()
        );
    }

    /// Asserts that `needle` is shown nowhere, neither on stdout nor on
    /// stderr (a secret's value), showing the whole run when it is.
    #[track_caller]
    pub fn assert_shows_nowhere(&self, needle: &str) {
        assert!(
            !self.stdout.contains(needle) && !self.stderr.contains(needle),
            "{needle:?} is shown:\n{}",
            self.transcript().escape_debug()
        );
    }
}

/// A fresh folder for one test, named after it (`chartgen-NAME-…`),
/// removed when dropped, a failing test's too.
pub fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("chartgen-{name}-"))
        .tempdir()
        .unwrap()
}

/// The repository root, where every run starts.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// What `command` (named `what` in a failure) prints on stdout; it must
/// exit 0, or the test fails showing its stderr: the one runner of the
/// tools the tests call (kubectl, helm, node, the repository's scripts).
#[track_caller]
pub fn stdout_of(command: &mut Command, what: &str) -> Vec<u8> {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{what} does not run: {e}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// `values/ovh-prod.yaml` with `projects` generated BuildProjects
/// (`scripts/many-projects`), written into `dir`: its path.
pub fn many_projects(dir: &Path, projects: usize) -> std::path::PathBuf {
    let many = stdout_of(
        Command::new(root().join("scripts/many-projects")).arg(projects.to_string()),
        "scripts/many-projects",
    );
    let path = dir.join(format!("p{projects}.yaml"));
    std::fs::write(&path, many).unwrap();
    path
}

/// Runs `chartgen ARGS` in the repository root.
pub fn chartgen<S: AsRef<str>>(args: &[S]) -> Run {
    chartgen_with_stdin(args, None)
}

/// Runs `chartgen ARGS` in the repository root with `input` on stdin.
pub fn chartgen_with_stdin<S: AsRef<str>>(args: &[S], input: Option<&str>) -> Run {
    chartgen_with(args, input, &[])
}

/// Runs `chartgen ARGS` in the repository root with `input` on stdin and
/// `env` added to the environment.
pub fn chartgen_with<S: AsRef<str>>(args: &[S], input: Option<&str>, env: &[(&str, &str)]) -> Run {
    chartgen_at(root(), args, input, env)
}

/// `chartgen ARGS` in `cwd`, not yet run, as every test runs it: no
/// colour, nothing on stdin, and none of the developer's environment that
/// changes what it prints (`CHARTGEN_TEMPLATES`, the output directory's
/// test stop). For a test that needs the process itself (a pipe it reads
/// part of, a stdout it chooses); [`chartgen_at`] runs it.
pub fn command<S: AsRef<std::ffi::OsStr>>(cwd: &Path, args: &[S]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chartgen"));
    command
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .env("NO_COLOR", "1")
        .env_remove("CHARTGEN_TEMPLATES")
        .env_remove(kubernetes::output::STOP_AT_STEP);
    command
}

/// Runs `chartgen ARGS` in `cwd` with `input` on stdin and `env` added to
/// the environment.
pub fn chartgen_at<S: AsRef<str>>(
    cwd: &Path,
    args: &[S],
    input: Option<&str>,
    env: &[(&str, &str)],
) -> Run {
    use std::io::Write as _;
    let args: Vec<String> = args.iter().map(|a| a.as_ref().to_owned()).collect();
    let mut child = command(cwd, &args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .envs(env.iter().copied())
        .spawn()
        .expect("the chartgen binary runs");
    if let Some(input) = input {
        let mut stdin = child.stdin.take().expect("stdin is piped");
        // A run may refuse before it reads its input (`-f -` given twice)
        // and exit: the pipe is then closed under the write, which is no
        // failure of the test; what the run said is.
        if let Err(e) = stdin.write_all(input.as_bytes())
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            panic!("chartgen reads stdin: {e}");
        }
    }
    Run::of(&args, child.wait_with_output().expect("chartgen finishes"))
}

/// `path` relative to the repository root, with forward slashes.
pub fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// `path` below `base`, with forward slashes: a walked entry's name.
pub fn below(base: &Path, path: &Path) -> String {
    path.strip_prefix(base)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// Copies the folders and files below `from` into `to` (made if missing),
/// walked as chartgen walks a folder ([`kubernetes::files::walk`]): a
/// link is copied as the file it names, never followed into.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in kubernetes::files::walk(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Asserts that `text` contains `needle`, showing the whole text when not.
#[track_caller]
pub fn assert_contains(text: &str, needle: &str) {
    assert!(text.contains(needle), "{needle:?} is not in:\n{text}");
}

/// `check`'s text without the `info:` lines about the prerequisites
/// (cert-manager, Kyverno) whose CRDs a test's input does not hold: what
/// a test about something else compares.
pub fn without_prerequisites(text: &str) -> String {
    text.lines()
        .filter(|l| !is_prerequisite_line(l))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Whether `line` is `check`'s `info:` line about a prerequisite.
pub fn is_prerequisite_line(line: &str) -> bool {
    line.starts_with("info: cert-manager: ") || line.starts_with("info: Kyverno: ")
}

/// The object of `kind` named `name` among rendered objects (as JSON).
pub fn find<'a>(objects: &'a [serde_json::Value], kind: &str, name: &str) -> &'a serde_json::Value {
    objects
        .iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}
