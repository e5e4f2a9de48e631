//! Issue 13: where platform teams run chartgen, each run here for real.
//! The editor (every values file against the committed overlay schema, by
//! Python's jsonschema, not the validator chartgen uses, and by
//! yaml-language-server driven as an editor drives it), CI
//! (`examples/ci/chartgen-ci.sh` in a scratch git repository, and the
//! GitHub and GitLab files that call it), pre-commit (the real `pre-commit`
//! against a scratch repository, offline), Argo CD (the plugin's generate
//! command run as the sidecar runs it) and Flux (the paths it names).
//! The tools are installed into `target/tools` once, as `.ci/run` does.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value as Json;

use crate::harness::{assert_contains, chartgen, chartgen_with_stdin, copy_tree, root};
use crate::tools;

/// The pinned Python packages, as `.ci/run` installs them.
pub(crate) const PYYAML: Tool = Tool {
    dir: "pyyaml",
    package: "PyYAML",
    module: "yaml",
    switch: "CHARTGEN_REQUIRE_PYYAML",
};
const JSONSCHEMA: Tool = Tool {
    dir: "jsonschema",
    package: "jsonschema==4.26.0",
    module: "jsonschema",
    switch: "CHARTGEN_REQUIRE_JSONSCHEMA",
};
const PRE_COMMIT: Tool = Tool {
    dir: "pre-commit",
    package: "pre-commit==4.7.0",
    module: "pre_commit",
    switch: "CHARTGEN_REQUIRE_PRE_COMMIT",
};

/// A Python package in `target/tools/DIR`, from PyPI; `switch` requires it
/// ([`tools`]).
pub(crate) struct Tool {
    dir: &'static str,
    package: &'static str,
    module: &'static str,
    switch: &'static str,
}

impl Tool {
    fn path(&self) -> PathBuf {
        root().join("target/tools").join(self.dir)
    }

    /// Installs the package unless it is importable; `Err` says why it is
    /// not (no python3, pip or PyPI).
    fn ensure(&self) -> Result<(), String> {
        let importable = || {
            Command::new("python3")
                .env("PYTHONPATH", self.path())
                .args(["-c", &format!("import {}", self.module)])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        if importable() {
            return Ok(());
        }
        tools::step(
            Command::new("python3")
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    "--retries",
                    "1",
                    "--timeout",
                    "20",
                ])
                .args(["--target"])
                .arg(self.path())
                .arg(self.package)
                .env("PIP_ROOT_USER_ACTION", "ignore"),
        )?;
        assert!(
            importable(),
            "{} installed but not importable",
            self.package
        );
        Ok(())
    }

    /// Whether the package is there (installing it if need be); if not,
    /// the test skips with a line, or fails under the tool's switch.
    fn available(&self) -> bool {
        if !tools::slow(self.package) {
            return false;
        }
        match self.ensure() {
            Ok(()) => true,
            Err(why) => {
                tools::unavailable(self.switch, &format!("{} from PyPI", self.package), &why);
                false
            }
        }
    }
}

/// Whether every tool is there: a test starts `if !available(&[...]) {
/// return; }`.
pub(crate) fn available(tools: &[&Tool]) -> bool {
    tools.iter().all(|tool| tool.available())
}

/// python3 with the tools importable (the test checked [`available`]).
fn python(tools: &[&Tool]) -> Command {
    for tool in tools {
        if let Err(why) = tool.ensure() {
            panic!("{}: {why}", tool.package);
        }
    }
    let paths: Vec<PathBuf> = tools.iter().map(|t| t.path()).collect();
    let mut command = Command::new("python3");
    command.env("PYTHONPATH", std::env::join_paths(paths).unwrap());
    command
}

/// A YAML file read by PyYAML (another reader than chartgen's), as JSON.
pub(crate) fn yaml_file(path: &Path) -> Json {
    let output = python(&[&PYYAML])
        .args([
            "-c",
            "import json, sys, yaml\njson.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)",
        ])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}: {}",
        path.display(),
        stderr(&output)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Every document of a YAML file read by PyYAML, as JSON.
fn yaml_documents(path: &Path) -> Vec<Json> {
    let program = "import json, sys, yaml\n\
                   json.dump(list(yaml.safe_load_all(open(sys.argv[1]))), sys.stdout)";
    let output = python(&[&PYYAML])
        .args(["-c", program])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}: {}",
        path.display(),
        stderr(&output)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The folder of the chartgen binary under test, first on PATH.
fn path_with_chartgen() -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_chartgen")).parent().unwrap();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin.to_path_buf()];
    paths.extend(std::env::split_paths(&rest));
    std::env::join_paths(paths).unwrap()
}

/// A command with chartgen on PATH and git on its own (no user
/// configuration, a fixed identity), in DIR.
fn command(program: &str, dir: &Path) -> Command {
    let mut command = Command::new(program);
    command
        .current_dir(dir)
        .env("PATH", path_with_chartgen())
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "chartgen test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "chartgen test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env_remove("CHARTGEN_TEMPLATES")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null());
    command
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = command("git", dir).args(args).output().unwrap();
    assert!(output.status.success(), "git {args:?}: {}", stderr(&output));
    stdout(&output).trim().to_owned()
}

/// A GitOps repository as a team has it: values/, out/ rendered by the
/// chartgen under test, one commit. Returns it and the commit.
fn gitops_repo() -> (tempfile::TempDir, String) {
    let repo = tempfile::tempdir().unwrap();
    copy_tree(&root().join("values"), &repo.path().join("values"));
    render(repo.path());
    git(repo.path(), &["init", "--quiet", "--initial-branch=main"]);
    git(repo.path(), &["add", "--all"]);
    git(repo.path(), &["commit", "--quiet", "--message", "base"]);
    let base = git(repo.path(), &["rev-parse", "HEAD"]);
    (repo, base)
}

fn render(repo: &Path) {
    let output = command("chartgen", repo)
        .args(["render", "--all", "values", "--output-dir", "out"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
}

/// values/dev.yaml with buildd's image tag bumped (the gateway's stays).
fn bump_buildd(repo: &Path) {
    let path = repo.join("values/dev.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let old = "repository: ghcr.io/buildkit-operator/buildd\n    tag: \"0.4.0\"";
    assert!(
        text.contains(old),
        "values/dev.yaml changed: update this test"
    );
    let new = old.replace("0.4.0", "0.4.1");
    std::fs::write(&path, text.replace(old, &new)).unwrap();
}

fn append(path: &Path, text: &str) {
    let mut old = std::fs::read_to_string(path).unwrap();
    old.push_str(text);
    std::fs::write(path, old).unwrap();
}

// ---------------------------------------------------------------- editor

/// Validates each file named after the schema with Python's jsonschema, by
/// the draft the schema declares and by draft-07 (what yaml-language-server
/// implements); prints both verdicts, {file: ["path: message", ...]}, and
/// the `$ref`s with validation keywords beside them (draft-07 ignores those).
const VALIDATE: &str = r##"
import json, sys, yaml, jsonschema
schema = json.load(open(sys.argv[1]))
declared = jsonschema.validators.validator_for(schema)
declared.check_schema(schema)
def verdicts(validator):
    check = validator(schema, format_checker=validator.FORMAT_CHECKER)
    errors = {}
    for name in sys.argv[2:]:
        document = yaml.safe_load(open(name))
        errors[name] = sorted(
            "/".join(str(p) for p in e.absolute_path) + ": " + e.message
            for e in check.iter_errors(document))
    return errors
siblings = []
def walk(node, path):
    if isinstance(node, dict):
        if "$ref" in node and set(node) - {"$ref", "description", "default", "title"}:
            siblings.append(path)
        for key, value in node.items():
            walk(value, path + "/" + key)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            walk(value, path + "/" + str(i))
walk(schema, "#")
json.dump({"draft": declared.__name__, "errors": verdicts(declared),
           "draft7": verdicts(jsonschema.Draft7Validator), "ref_siblings": siblings}, sys.stdout)
"##;

const OVERLAY: &str = "schema/values.overlay.schema.json";

/// What an independent validator says of FILES against the overlay schema.
fn independent_verdicts(files: &[PathBuf]) -> Json {
    let output = python(&[&PYYAML, &JSONSCHEMA])
        .args(["-c", VALIDATE])
        .arg(root().join(OVERLAY))
        .args(files)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let verdicts: Json = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(verdicts["draft"], "Draft202012Validator");
    // The editor's reading is the same: nothing draft-07 would read otherwise.
    assert_eq!(verdicts["ref_siblings"], Json::Array(vec![]));
    assert_eq!(verdicts["draft7"], verdicts["errors"]);
    verdicts["errors"].clone()
}

fn values_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("values"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 3,
        "values/ holds common.yaml and environments"
    );
    files
}

/// Every file under values/ names the overlay schema on its first line, as
/// yaml-language-server reads it, and passes that schema in another
/// validator than chartgen's.
#[test]
fn every_values_file_is_valid_against_the_overlay_schema_for_an_independent_validator() {
    if !available(&[&PYYAML, &JSONSCHEMA]) {
        return;
    }
    let files = values_files();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let first = text.lines().next().unwrap_or_default();
        let target = first
            .strip_prefix("# yaml-language-server: $schema=")
            .unwrap_or_else(|| panic!("{}: no yaml-language-server line", file.display()));
        let schema = file.parent().unwrap().join(target);
        assert_eq!(
            std::fs::canonicalize(&schema).unwrap(),
            root().join(OVERLAY).canonicalize().unwrap(),
            "{}",
            file.display()
        );
    }
    let verdicts = independent_verdicts(&files);
    for file in &files {
        let errors = &verdicts[file.to_str().unwrap()];
        assert_eq!(errors, &Json::Array(vec![]), "{}", file.display());
    }
}

/// The same validator refuses a values file with an unknown key or a value
/// of the wrong type, naming the key: the test above can fail. chartgen
/// refuses them too.
#[test]
fn the_independent_validator_refuses_a_broken_values_file() {
    if !available(&[&PYYAML, &JSONSCHEMA]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let dev = std::fs::read_to_string(root().join("values/dev.yaml")).unwrap();
    let cases = [
        (
            "unknown-key.yaml",
            "buildd:\n  replicas: 1\n",
            "buildd:\n  replicas: 1\n  replica: 2\n",
            "buildd: Additional properties are not allowed ('replica' was unexpected)",
        ),
        (
            "wrong-type.yaml",
            "gateway:\n  replicas: 1\n",
            "gateway:\n  replicas: many\n",
            "gateway/replicas: 'many' is not of type 'integer'",
        ),
    ];
    let mut files = Vec::new();
    for (name, old, new, _) in cases {
        assert!(
            dev.contains(old),
            "values/dev.yaml changed: update this test"
        );
        let path = dir.path().join(name);
        std::fs::write(&path, dev.replacen(old, new, 1)).unwrap();
        files.push(path);
    }
    let verdicts = independent_verdicts(&files);
    for ((_, _, _, expected), file) in cases.iter().zip(&files) {
        let errors = verdicts[file.to_str().unwrap()].as_array().unwrap();
        assert!(
            errors
                .iter()
                .any(|e| e.as_str().unwrap().starts_with(expected)),
            "{}: {errors:?}",
            file.display()
        );
        let ours = chartgen(&[
            "validate",
            "-f",
            "values/common.yaml",
            "-f",
            file.to_str().unwrap(),
        ]);
        assert_eq!(ours.code, 2, "{}", ours.stderr);
    }
}

/// yaml-language-server, pinned as `.ci/run` pins it.
pub(crate) const YAML_LANGUAGE_SERVER: &str = "yaml-language-server@1.25.0";

/// The server's entry point, installed into `target/tools` once (from
/// npm), and node to run it; `None` (the test skips, or fails under
/// CHARTGEN_REQUIRE_YAML_LANGUAGE_SERVER) when either is missing.
pub(crate) fn yaml_language_server() -> Option<PathBuf> {
    if !tools::slow(YAML_LANGUAGE_SERVER) {
        return None;
    }
    let tools = root().join("target/tools/yaml-language-server");
    let server = tools.join("node_modules/yaml-language-server/bin/yaml-language-server");
    let installed = if server.is_file() {
        Ok(())
    } else {
        tools::step(
            Command::new("npm")
                .args(["install", "--silent", "--no-audit", "--no-fund", "--prefix"])
                .arg(&tools)
                .arg(YAML_LANGUAGE_SERVER),
        )
    };
    let runs = installed.and_then(|()| tools::step(Command::new("node").arg("--version")));
    match runs {
        Ok(()) => Some(server),
        Err(why) => {
            let what = format!("{YAML_LANGUAGE_SERVER} from npm, run by node");
            tools::unavailable("CHARTGEN_REQUIRE_YAML_LANGUAGE_SERVER", &what, &why);
            None
        }
    }
}

/// An editor's side of the language server protocol, in node, shared by
/// the scripts that drive yaml-language-server: starts the server (the
/// first argument; the rest are the script's `args`), frames messages,
/// answers the server's configuration requests with `settings` and its
/// other requests with null, and after `initialize` calls `opened()`;
/// every other message goes to `received(msg)`. The script after it
/// defines `settings`, `opened` and `received` (read only once messages
/// arrive).
pub(crate) const LSP_SESSION: &str = r##"
const { spawn } = require("child_process");
const path = require("path");
const fs = require("fs");
const [server, ...args] = process.argv.slice(1);
const child = spawn(process.execPath, [server, "--stdio"], { stdio: ["pipe", "pipe", "inherit"] });
let buffer = Buffer.alloc(0);
const send = (msg) => {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...msg }));
  child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
  child.stdin.write(body);
};
const finish = (value) => {
  process.stdout.write(JSON.stringify(value));
  child.kill();
  process.exit(0);
};
child.stdout.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const end = buffer.indexOf("\r\n\r\n");
    if (end < 0) return;
    const length = Number(/Content-Length: (\d+)/i.exec(buffer.slice(0, end).toString())[1]);
    if (buffer.length < end + 4 + length) return;
    const msg = JSON.parse(buffer.slice(end + 4, end + 4 + length).toString());
    buffer = buffer.slice(end + 4 + length);
    handle(msg);
  }
});
function handle(msg) {
  if (msg.method === "workspace/configuration") {
    send({ id: msg.id, result: msg.params.items.map((i) => (i.section ? settings[i.section] ?? null : settings)) });
  } else if (msg.id !== undefined && msg.method) {
    send({ id: msg.id, result: null });
  } else if (msg.id === 1) {
    send({ method: "initialized", params: {} });
    send({ method: "workspace/didChangeConfiguration", params: { settings } });
    opened();
  } else {
    received(msg);
  }
}
const open = (uri, file) =>
  send({ method: "textDocument/didOpen", params: { textDocument: { uri, languageId: "yaml", version: 1, text: fs.readFileSync(file, "utf8") } } });
send({ id: 1, method: "initialize", params: { processId: process.pid, rootUri: null, capabilities: { workspace: { configuration: true } } } });
"##;

/// After [`LSP_SESSION`]: opens each file and prints
/// [[file, ["LINE: message", ...]], ...] once every file has diagnostics.
const DIAGNOSTICS: &str = r##"
const files = args;
const uris = files.map((f) => "file://" + path.resolve(f));
const results = {};
const settings = { yaml: { validate: true, schemaStore: { enable: false }, format: { enable: false } } };
function opened() {
  uris.forEach((uri, i) => open(uri, files[i]));
}
function received(msg) {
  if (msg.method === "textDocument/publishDiagnostics") {
    results[msg.params.uri] = msg.params.diagnostics.map((d) => `${d.range.start.line + 1}: ${d.message}`);
    if (uris.every((u) => u in results)) {
      finish(files.map((f, i) => [f, results[uris[i]]]));
    }
  }
}
setTimeout(() => { console.error("no diagnostics in time", JSON.stringify(results)); process.exit(3); }, 30000);
"##;

/// The diagnostics yaml-language-server publishes for FILES, as an editor
/// gets them, each file's schema from its first line.
pub(crate) fn editor_diagnostics(server: &Path, files: &[PathBuf]) -> Vec<(String, Vec<String>)> {
    let output = Command::new("node")
        .args(["-e", &format!("{LSP_SESSION}{DIAGNOSTICS}")])
        .arg(server)
        .args(files)
        .current_dir(root())
        .output()
        .expect("node runs");
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The editor itself: yaml-language-server, given each values file as VS
/// Code or Neovim gives it, finds the committed schema from the file's first
/// line and reports nothing; in a copy with an unknown key and a wrong type
/// it reports both, on their lines.
#[test]
fn yaml_language_server_validates_values_files_with_the_committed_schema() {
    let Some(server) = yaml_language_server() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&root().join("schema"), &dir.path().join("schema"));
    let dev = std::fs::read_to_string(root().join("values/dev.yaml")).unwrap();
    assert!(
        dev.contains("gateway:\n  replicas: 1\n"),
        "values/dev.yaml changed: update this test"
    );
    let broken =
        dev.replace("gateway:\n  replicas: 1\n", "gateway:\n  replicas: many\n") + "colour: blue\n";
    let line = |text: &str, needle: &str| text.lines().position(|l| l == needle).unwrap() + 1;
    let (wrong, unknown) = (
        line(&broken, "  replicas: many"),
        line(&broken, "colour: blue"),
    );
    std::fs::create_dir_all(dir.path().join("values")).unwrap();
    let broken_path = dir.path().join("values/broken.yaml");
    std::fs::write(&broken_path, &broken).unwrap();

    let mut files = values_files();
    files.push(broken_path.clone());
    let diagnostics = editor_diagnostics(&server, &files);
    for (file, found) in &diagnostics[..diagnostics.len() - 1] {
        assert_eq!(found, &Vec::<String>::new(), "{file}");
    }
    let (file, found) = diagnostics.last().unwrap();
    assert_eq!(Path::new(file), broken_path);
    assert_eq!(
        found,
        &vec![
            format!("{wrong}: Incorrect type. Expected one of integer, null."),
            format!("{unknown}: Property colour is not allowed."),
        ]
    );
}

// -------------------------------------------------------------------- CI

const CI_SCRIPT: &str = "examples/ci/chartgen-ci.sh";

/// What one run of the CI script did: exit code, its output, the summary.
struct CiRun {
    code: i32,
    output: String,
    summary: String,
}

/// Runs the CI script in REPO against BASE, with ENV added.
fn ci(repo: &Path, base: &str, env: &[(&str, &str)]) -> CiRun {
    let summary = repo.join("chartgen-summary.md");
    let _ = std::fs::remove_file(&summary);
    // Run as CI runs it: by its path (executable, its `#!/bin/sh`).
    let output = command(root().join(CI_SCRIPT).to_str().unwrap(), repo)
        .arg(base)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    CiRun {
        code: output.status.code().expect("the script exits"),
        output: format!("{}{}", stdout(&output), stderr(&output)),
        summary: std::fs::read_to_string(&summary).unwrap_or_default(),
    }
}

/// A change with its render passes; the summary names the one workload
/// that restarts, and nothing else; a gate at `restart` fails on it.
#[test]
fn ci_script_passes_a_rendered_change_and_summarises_its_restart() {
    if !tools::slow("the CI script, on git repositories") {
        return;
    }
    let (repo, base) = gitops_repo();
    let clean = ci(repo.path(), &base, &[]);
    assert_eq!(clean.code, 0, "{}", clean.output);
    assert_contains(
        &clean.summary,
        "**Render**: `out/` is what `values/` renders.",
    );
    assert_eq!(
        clean.summary.matches("\nno differences\n").count(),
        2,
        "{}",
        clean.summary
    );

    bump_buildd(repo.path());
    render(repo.path());
    let run = ci(repo.path(), &base, &[]);
    assert_eq!(run.code, 0, "{}", run.output);
    let summary = &run.summary;
    assert_contains(summary, "* `dev`: every invariant holds.");
    assert_contains(summary, "* `ovh-prod`: every invariant holds.");
    let dev =
        &summary[summary.find("#### `dev`").unwrap()..summary.find("#### `ovh-prod`").unwrap()];
    assert!(
        dev.contains(
            "  restart     Deployment buildkit-operator/buildkit-buildd: new pod template"
        ),
        "{summary}"
    );
    assert_eq!(
        dev.matches("restart ").count(),
        1,
        "only buildd restarts: {summary}"
    );
    assert!(summary[summary.find("#### `ovh-prod`").unwrap()..].contains("no differences"));

    // Committed or in the worktree: the same; and the gate fails on it.
    git(
        repo.path(),
        &["commit", "--quiet", "--all", "--message", "bump buildd"],
    );
    let gated = ci(repo.path(), &base, &[("CHARTGEN_FAIL_ON", "restart")]);
    assert_eq!(gated.code, 1, "{}", gated.output);
    assert_contains(&gated.summary, "**Fails the gate** (`--fail-on restart`).");
    assert_eq!(
        ci(repo.path(), &base, &[("CHARTGEN_FAIL_ON", "security")]).code,
        0
    );
}

/// A values change without its render fails, and the summary says what to
/// run; the check and the diff still run.
#[test]
fn ci_script_fails_on_drift() {
    if !tools::slow("the CI script, on git repositories") {
        return;
    }
    let (repo, base) = gitops_repo();
    bump_buildd(repo.path());
    let run = ci(repo.path(), &base, &[]);
    assert_eq!(run.code, 1, "{}", run.output);
    assert_contains(
        &run.summary,
        "**Render**: `out/` is **not** what `values/` renders (exit 1). Run `chartgen render --all values --output-dir out` and commit the result.",
    );
    assert_contains(
        &run.summary,
        "drift: out/dev/release is not what a render would write",
    );
    assert_contains(&run.summary, "#### `ovh-prod`");
}

/// Invalid values are no drift: the render exits 2, and the summary says
/// the values or the tree are bad, not to render again and commit.
#[test]
fn ci_script_says_bad_values_are_bad_values() {
    if !tools::slow("the CI script, on git repositories") {
        return;
    }
    let (repo, base) = gitops_repo();
    append(&repo.path().join("values/dev.yaml"), "colour: blue\n");
    let run = ci(repo.path(), &base, &[]);
    assert_eq!(run.code, 2, "{}", run.output);
    assert_contains(
        &run.summary,
        "**Render**: `chartgen render --all values --output-dir out --check` failed (exit 2): the values in `values/` or the files of `out/` are bad (the error below). Fix them; rendering again fails the same way.",
    );
    assert_contains(&run.summary, "unknown key `colour`");
    assert!(!run.summary.contains("and commit"), "{}", run.summary);
}

/// A finding fails the job, and the summary names the command that found
/// it on one line (the bundles joined by spaces, not by the newline the
/// script splits names on), so it can be copied and run.
#[test]
fn ci_script_names_a_failed_check_on_one_line() {
    if !tools::slow("the CI script, on git repositories") {
        return;
    }
    let (repo, base) = gitops_repo();
    let role = repo
        .path()
        .join("out/ovh-prod/release/cluster/clusterrole-buildkit-operator-events.yaml");
    let text = std::fs::read_to_string(&role).unwrap();
    assert!(
        text.contains("verbs: [create, patch]"),
        "the events ClusterRole changed: update this test"
    );
    std::fs::write(
        &role,
        text.replace("verbs: [create, patch]", "verbs: [create, patch, get]"),
    )
    .unwrap();
    let run = ci(repo.path(), &base, &[]);
    assert_eq!(run.code, 1, "{}", run.output);
    assert_contains(
        &run.summary,
        "\n* `ovh-prod`: `chartgen check out/ovh-prod/release out/ovh-prod/kata` failed (exit 1):\n",
    );
    assert_contains(&run.summary, "R2 ClusterRole buildkit-operator-events");
    assert_contains(&run.summary, "* `dev`: every invariant holds.");
}

/// An environment added or removed by the change is named as such.
#[test]
fn ci_script_names_added_and_removed_environments() {
    if !tools::slow("the CI script, on git repositories") {
        return;
    }
    let (repo, base) = gitops_repo();
    let values = repo.path().join("values");
    std::fs::copy(values.join("dev.yaml"), values.join("staging.yaml")).unwrap();
    std::fs::remove_file(values.join("dev.yaml")).unwrap();
    render(repo.path());
    assert!(!repo.path().join("out/dev").exists());
    let run = ci(repo.path(), &base, &[]);
    assert_eq!(run.code, 0, "{}", run.output);
    assert_contains(
        &run.summary,
        "#### `dev`: removed (every object of it goes)",
    );
    assert_contains(&run.summary, "#### `staging`: new environment");
    assert_contains(&run.summary, "* `staging`: every invariant holds.");
}

/// BASE is data: an option, an unknown revision, or a revision a path of
/// the change would stand in for (`chartgen diff` reads a local path
/// first) is refused with exit 2.
#[test]
fn ci_script_refuses_a_bad_or_shadowed_base() {
    if !tools::slow("the CI script, on git repositories") {
        return;
    }
    let (repo, base) = gitops_repo();
    let option = ci(repo.path(), "--output=x", &[]);
    assert_eq!(option.code, 2, "{}", option.output);
    assert_contains(
        &option.output,
        "must be a git revision, not empty or an option",
    );
    assert!(!repo.path().join("x").exists());
    let unknown = ci(repo.path(), "no-such-branch", &[]);
    assert_eq!(unknown.code, 2, "{}", unknown.output);
    assert_contains(
        &unknown.output,
        "`no-such-branch` is not a commit of this repository",
    );
    let gate = ci(repo.path(), &base, &[("CHARTGEN_FAIL_ON", "everything")]);
    assert_eq!(gate.code, 2, "{}", gate.output);

    // The change adds manifests at the path `BASE:out/dev`.
    let fake = repo.path().join(format!("{base}:out/dev"));
    copy_tree(&repo.path().join("out/dev"), &fake);
    let shadowed = ci(repo.path(), &base, &[]);
    assert_eq!(shadowed.code, 2, "{}", shadowed.output);
    assert_contains(&shadowed.output, "exists as a path in the working tree");
    assert_contains(&shadowed.summary, "#### `dev`: not compared");
}

/// Folder names of out/ and text of the manifests are data: a folder named
/// like a command is skipped, not run; a run of backticks in a value gets
/// a longer fence, so it cannot close the code block and write Markdown.
#[test]
fn ci_script_keeps_names_and_manifest_text_as_data() {
    if !tools::slow("the CI script, on git repositories") {
        return;
    }
    let (repo, base) = gitops_repo();
    let odd = repo.path().join("out/$(touch pwned) x");
    std::fs::create_dir_all(&odd).unwrap();
    std::fs::write(odd.join("notes.txt"), "not chartgen's\n").unwrap();
    append(
        &repo.path().join("values/dev.yaml"),
        "commonAnnotations:\n  example.com/note: \"`````\\n## @everyone approve\"\n",
    );
    render(repo.path());
    let run = ci(repo.path(), &base, &[]);
    assert_eq!(run.code, 0, "{}", run.output);
    assert!(!repo.path().join("pwned").exists());
    assert!(!repo.path().join("out/dev/pwned").exists());
    assert_contains(
        &run.summary,
        "* a folder of `out/` whose name is not a plain environment name was skipped",
    );
    assert_contains(&run.summary, "@everyone");
    assert_fenced(&run.summary);
    assert_contains(&run.summary, "\n``````\n");
    // Cut to fit a comment: whole lines, the blocks closed, and said so.
    let small = ci(repo.path(), &base, &[("CHARTGEN_MAX_BYTES", "1500")]);
    assert_eq!(small.code, 0, "{}", small.output);
    assert!(small.summary.len() < 1500, "{}", small.summary.len());
    assert!(
        small
            .summary
            .contains(" lines shown; the job log has all of them)"),
        "{}",
        small.summary
    );
    assert_fenced(&small.summary);
}

/// A pull request controls out/: an environment or bundle folder that is
/// a symbolic link (to a folder of the CI runner, or replacing a committed
/// environment) is neither checked nor diffed, so no text of what it
/// points to reaches the job log or the comment.
#[test]
fn ci_script_reads_no_linked_environment() {
    if !tools::slow("the CI script, on git repositories") {
        return;
    }
    let (repo, base) = gitops_repo();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(outside.path().join("release")).unwrap();
    std::fs::write(
        outside.path().join("release/creds.yaml"),
        "apiVersion: v1\nkind: Secret\nmetadata: {name: runner-secret-name}\ndata: {token: cnVubmVyLXNlY3JldC12YWx1ZQ==}\n",
    )
    .unwrap();
    let out = repo.path().join("out");
    std::os::unix::fs::symlink(outside.path(), out.join("linked")).unwrap();
    std::fs::remove_dir_all(out.join("dev")).unwrap();
    std::os::unix::fs::symlink(outside.path(), out.join("dev")).unwrap();
    let run = ci(repo.path(), &base, &[]);
    for leaked in ["runner-secret-name", "cnVubmVyLXNlY3JldC12YWx1ZQ=="] {
        assert!(!run.output.contains(leaked), "{}", run.output);
        assert!(!run.summary.contains(leaked), "{}", run.summary);
    }
    assert_eq!(run.code, 2, "{}", run.output);
    assert_contains(
        &run.summary,
        "#### `dev`: not compared: `out/dev` is a symbolic link",
    );
}

/// Every code block of SUMMARY is closed, and every line outside one is a
/// line the script wrote (none holds text of the manifests).
fn assert_fenced(summary: &str) {
    // Every line outside a code block is one the script wrote.
    let mut open: Option<usize> = None;
    for line in summary.lines() {
        let ticks = line.len() - line.trim_start_matches('`').len();
        match open {
            None if ticks >= 3 => open = Some(ticks),
            Some(n) if ticks >= n && line.trim_end().len() == ticks => open = None,
            None => assert!(!line.contains("@everyone"), "outside a block: {line}"),
            Some(_) => {}
        }
    }
    assert_eq!(open, None, "{}", summary);
}

/// Both CI files are YAML, call the script, and run no chartgen command of
/// their own: what runs is what the tests above ran.
#[test]
fn ci_files_parse_and_call_the_one_script() {
    if !available(&[&PYYAML]) {
        return;
    }
    let commands = |steps: Vec<&str>| {
        assert!(
            steps.iter().any(|s| s.contains(CI_SCRIPT)),
            "the script is called: {steps:?}"
        );
        for step in steps {
            for verb in ["render", "check", "diff", "validate"] {
                assert!(
                    !step.contains(&format!("chartgen {verb}")),
                    "inline command: {step}"
                );
            }
        }
    };
    let github = yaml_file(&root().join("examples/github/chartgen.yml"));
    // PyYAML reads the key `on` as YAML 1.1's true; GitHub as "on".
    let on = github.get("on").or_else(|| github.get("true")).unwrap();
    assert!(on.get("pull_request").is_some(), "{github}");
    let steps = github["jobs"]["chartgen"]["steps"].as_array().unwrap();
    commands(steps.iter().filter_map(|s| s["run"].as_str()).collect());
    let script_step = steps
        .iter()
        .find(|s| s["run"].as_str().is_some_and(|r| r.contains(CI_SCRIPT)))
        .unwrap();
    assert_eq!(
        script_step["env"]["BASE_SHA"],
        "${{ github.event.pull_request.base.sha }}"
    );
    assert!(steps.iter().any(|s| {
        s["run"]
            .as_str()
            .is_some_and(|r| r.contains("gh pr comment"))
    }));

    let gitlab = yaml_file(&root().join("examples/gitlab/.gitlab-ci.yml"));
    let job = &gitlab["chartgen"];
    let lines = |key: &str| -> Vec<&str> {
        job[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect()
    };
    let mut all = lines("script");
    all.extend(lines("after_script"));
    commands(all);
    assert!(
        lines("script")
            .iter()
            .any(|l| l.contains("$CI_MERGE_REQUEST_DIFF_BASE_SHA"))
    );
    assert_eq!(
        job["artifacts"]["paths"][0],
        job["variables"]["CHARTGEN_SUMMARY"]
    );
}

// ------------------------------------------------------------- pre-commit

/// A repository of hooks as pre-commit clones it: this repository's hooks
/// file and the scripts it names, committed. Returns it and the commit.
fn hooks_repo() -> (tempfile::TempDir, String) {
    let hooks = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join(".pre-commit-hooks.yaml"),
        hooks.path().join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    copy_tree(&root().join("examples"), &hooks.path().join("examples"));
    git(hooks.path(), &["init", "--quiet"]);
    git(hooks.path(), &["add", "--all"]);
    git(hooks.path(), &["commit", "--quiet", "--message", "hooks"]);
    let rev = git(hooks.path(), &["rev-parse", "HEAD"]);
    (hooks, rev)
}

/// `pre-commit run ARGS` in REPO, its cache in CACHE, offline.
fn pre_commit(repo: &Path, cache: &Path, args: &[&str]) -> (i32, String) {
    let output = command("python3", repo)
        .env("PYTHONPATH", PRE_COMMIT.path())
        .env("PRE_COMMIT_HOME", cache)
        .env("HOME", cache)
        .env("PIP_NO_INDEX", "1")
        .env("https_proxy", "http://127.0.0.1:9")
        .env("http_proxy", "http://127.0.0.1:9")
        .args(["-m", "pre_commit", "run", "--color", "never"])
        .args(args)
        .output()
        .unwrap();
    let code = output.status.code().expect("pre-commit exits");
    (code, format!("{}{}", stdout(&output), stderr(&output)))
}

/// The line pre-commit prints for HOOK: `Passed` or `Failed`.
fn verdict<'a>(output: &'a str, hook: &str) -> &'a str {
    let line = output
        .lines()
        .find(|l| l.starts_with(hook))
        .unwrap_or_else(|| panic!("no line for {hook}: {output}"));
    line.rsplit('.').next().unwrap().trim()
}

/// A rendered GitOps repository whose `.pre-commit-config.yaml` takes
/// the hooks `ids` from a local clone of the hooks at a rev, and a cache
/// for pre-commit: (the hooks' clone, the repository, the cache), each
/// kept for the test's length.
fn pre_commit_repo(ids: &[&str]) -> (tempfile::TempDir, tempfile::TempDir, tempfile::TempDir) {
    let (hooks, rev) = hooks_repo();
    let (repo, _) = gitops_repo();
    let cache = tempfile::tempdir().unwrap();
    let listed: String = ids.iter().map(|id| format!("      - id: {id}\n")).collect();
    let config = format!(
        "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n{listed}",
        hooks.path().display()
    );
    std::fs::write(repo.path().join(".pre-commit-config.yaml"), config).unwrap();
    git(repo.path(), &["add", ".pre-commit-config.yaml"]);
    (hooks, repo, cache)
}

/// The real pre-commit, with `repo:` a local clone of the hooks at a rev:
/// both hooks pass on a rendered repository; a values change without its
/// render fails the drift hook; an unknown key fails the validate hook,
/// whether in an environment's file or in common.yaml.
#[test]
fn pre_commit_hooks_pass_and_fail_for_real() {
    if !available(&[&PRE_COMMIT]) {
        return;
    }
    let (_hooks, repo, cache) = pre_commit_repo(&["chartgen-validate", "chartgen-drift"]);
    let (validate, drift) = ("chartgen validate", "chartgen render --check");

    let (code, output) = pre_commit(repo.path(), cache.path(), &["--all-files"]);
    assert_eq!(code, 0, "{output}");
    assert_eq!(
        (verdict(&output, validate), verdict(&output, drift)),
        ("Passed", "Passed"),
        "{output}"
    );

    bump_buildd(repo.path());
    git(repo.path(), &["add", "--all"]);
    let (code, output) = pre_commit(repo.path(), cache.path(), &[]);
    assert_eq!(code, 1, "{output}");
    assert_eq!(
        (verdict(&output, validate), verdict(&output, drift)),
        ("Passed", "Failed"),
        "{output}"
    );
    assert_contains(
        &output,
        "drift: out/dev/release is not what a render would write",
    );

    render(repo.path());
    git(repo.path(), &["add", "--all"]);
    let (code, output) = pre_commit(repo.path(), cache.path(), &[]);
    assert_eq!(code, 0, "{output}");

    git(repo.path(), &["commit", "--quiet", "--message", "bump"]);
    append(&repo.path().join("values/common.yaml"), "colour: blue\n");
    git(repo.path(), &["add", "--all"]);
    let (code, output) = pre_commit(repo.path(), cache.path(), &[]);
    assert_eq!(code, 1, "{output}");
    assert_eq!(verdict(&output, validate), "Failed", "{output}");
    // A common file validates every environment over it.
    for env in ["dev", "ovh-prod"] {
        assert!(
            output.contains(&format!(
                "chartgen-validate: values/{env}.yaml is not valid (over values/common.yaml)"
            )),
            "{output}"
        );
    }
    assert_contains(&output, "colour");
}

/// The re-rendering hook (`chartgen-render`, the documented alternative
/// to `chartgen-drift`): a values change without its render fails the
/// commit, as pre-commit fails any hook that changes files, and leaves
/// `out/` rendered, so adding it makes the next run pass; nothing to do on
/// a rendered repository.
#[test]
fn pre_commit_render_hook_re_renders() {
    if !available(&[&PRE_COMMIT]) {
        return;
    }
    let (_hooks, repo, cache) = pre_commit_repo(&["chartgen-render"]);
    let hook = "chartgen render";

    let (code, output) = pre_commit(repo.path(), cache.path(), &["--all-files"]);
    assert_eq!((code, verdict(&output, hook)), (0, "Passed"), "{output}");

    bump_buildd(repo.path());
    git(repo.path(), &["add", "--all"]);
    let (code, output) = pre_commit(repo.path(), cache.path(), &[]);
    assert_eq!((code, verdict(&output, hook)), (1, "Failed"), "{output}");
    assert_contains(&output, "files were modified by this hook");
    // out/ is what values/ renders now: the drift check agrees.
    let check = command("chartgen", repo.path())
        .args([
            "render",
            "--all",
            "values",
            "--output-dir",
            "out",
            "--check",
        ])
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", stderr(&check));
    assert_ne!(git(repo.path(), &["status", "--porcelain", "out"]), "");

    git(repo.path(), &["add", "--all"]);
    let (code, output) = pre_commit(repo.path(), cache.path(), &[]);
    assert_eq!((code, verdict(&output, hook)), (0, "Passed"), "{output}");
}

// ------------------------------------------------------- Argo CD and Flux

/// The plugin's generate command (`command` then `args`), read by PyYAML.
fn generate_command() -> Vec<String> {
    let plugin = yaml_file(&root().join("examples/argocd/plugin.yaml"));
    assert_eq!(plugin["kind"], "ConfigManagementPlugin");
    assert_eq!(
        plugin["spec"]["discover"]["fileName"],
        "./values/common.yaml"
    );
    let generate = &plugin["spec"]["generate"];
    let strings = |key: &str| -> Vec<String> {
        generate[key]
            .as_array()
            .map(|a| a.iter().map(|s| s.as_str().unwrap().to_owned()).collect())
            .unwrap_or_default()
    };
    let mut argv = strings("command");
    argv.extend(strings("args"));
    argv
}

/// Runs the generate command as the sidecar does: the program and its
/// arguments without a shell of its own, in the application's path, with
/// Argo CD's variables and the Application's `plugin.env` as ARGOCD_ENV_*.
fn argocd_generate(app: &Path, env: &[(&str, &str)]) -> Output {
    let argv = generate_command();
    Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(app)
        .env_clear()
        .env("PATH", path_with_chartgen())
        .env("ARGOCD_APP_NAME", "buildkit")
        .env("ARGOCD_APP_NAMESPACE", "argocd")
        .env(
            "ARGOCD_APP_REVISION",
            "0123456789abcdef0123456789abcdef01234567",
        )
        .env("ARGOCD_APP_SOURCE_PATH", ".")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// An application's path: a copy of values/.
fn argocd_app() -> tempfile::TempDir {
    let app = tempfile::tempdir().unwrap();
    copy_tree(&root().join("values"), &app.path().join("values"));
    app
}

/// The stream of each environment and bundle: exactly chartgen's render,
/// the objects of the committed out/ENV/BUNDLE, nothing on stdout but YAML
/// documents that are objects.
#[test]
fn argocd_plugin_generates_the_stream_of_the_environment() {
    if !available(&[&PYYAML]) {
        return;
    }
    let app = argocd_app();
    for (env, bundle) in [
        ("dev", None),
        ("ovh-prod", Some("release")),
        ("ovh-prod", Some("kata")),
    ] {
        let mut vars = vec![("ARGOCD_ENV_CHARTGEN_ENV", env)];
        vars.extend(bundle.map(|b| ("ARGOCD_ENV_CHARTGEN_BUNDLE", b)));
        let output = argocd_generate(app.path(), &vars);
        assert!(output.status.success(), "{env}: {}", stderr(&output));
        let stream = stdout(&output);
        let bundle = bundle.unwrap_or("release");
        let env_file = format!("values/{env}.yaml");
        let direct = chartgen(&[
            "render",
            "-f",
            "values/common.yaml",
            "-f",
            &env_file,
            "--bundle",
            bundle,
        ]);
        assert_eq!(stream, direct.stdout, "{env} {bundle}");
        let committed = format!("out/{env}/{bundle}");
        let diff = chartgen_with_stdin(&["diff", "--exit-code", "-", &committed], Some(&stream));
        assert_eq!(
            (diff.code, diff.stdout.as_str()),
            (0, "no differences\n"),
            "{env} {bundle}"
        );
        let documents = yaml_documents(write_temp(&stream).path());
        assert!(documents.len() > 5, "{env} {bundle}");
        for document in documents {
            assert!(
                document["apiVersion"].is_string() && document["kind"].is_string(),
                "{document}"
            );
            assert!(document["metadata"]["name"].is_string(), "{document}");
        }
    }
}

fn write_temp(text: &str) -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), text).unwrap();
    file
}

/// An environment or bundle an Application may set is data: a path, `..`,
/// spaces, newlines, a command substitution, an option, a link or a FIFO
/// in values/ is refused with exit 2, a clear error that does not echo the
/// value, nothing on stdout, and no command run.
#[test]
fn argocd_plugin_refuses_hostile_environment_names() {
    if !available(&[&PYYAML]) {
        return;
    }
    let app = argocd_app();
    let values = app.path().join("values");
    std::os::unix::fs::symlink("dev.yaml", values.join("linked.yaml")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", values.join("passwd.yaml")).unwrap();
    let fifo = command("mkfifo", &values)
        .arg("fifo.yaml")
        .status()
        .unwrap();
    assert!(fifo.success());
    let not_plain = "is not a plain environment name";
    let cases: &[(&[(&str, &str)], &str)] = &[
        (&[], "set the environment"),
        (&[("ARGOCD_ENV_CHARTGEN_ENV", "")], "set the environment"),
        (
            &[("ARGOCD_ENV_CHARTGEN_ENV", "common")],
            "common is the shared layer",
        ),
        (&[("ARGOCD_ENV_CHARTGEN_ENV", "../values/dev")], not_plain),
        (&[("ARGOCD_ENV_CHARTGEN_ENV", "..")], not_plain),
        (&[("ARGOCD_ENV_CHARTGEN_ENV", "dev/../dev")], not_plain),
        (&[("ARGOCD_ENV_CHARTGEN_ENV", "/etc/passwd")], not_plain),
        (&[("ARGOCD_ENV_CHARTGEN_ENV", ".hidden")], not_plain),
        (&[("ARGOCD_ENV_CHARTGEN_ENV", "dev ovh-prod")], not_plain),
        (
            &[("ARGOCD_ENV_CHARTGEN_ENV", "dev\n\u{1b}[31mred")],
            not_plain,
        ),
        (&[("ARGOCD_ENV_CHARTGEN_ENV", "$(touch pwned)")], not_plain),
        (&[("ARGOCD_ENV_CHARTGEN_ENV", "dev;touch pwned")], not_plain),
        (&[("ARGOCD_ENV_CHARTGEN_ENV", "-f")], not_plain),
        (
            &[("ARGOCD_ENV_CHARTGEN_ENV", "nope")],
            "no environment nope in values/",
        ),
        (
            &[("ARGOCD_ENV_CHARTGEN_ENV", "linked")],
            "no environment linked in values/",
        ),
        (
            &[("ARGOCD_ENV_CHARTGEN_ENV", "passwd")],
            "no environment passwd in values/",
        ),
        (
            &[("ARGOCD_ENV_CHARTGEN_ENV", "fifo")],
            "no environment fifo in values/",
        ),
        (
            &[
                ("ARGOCD_ENV_CHARTGEN_ENV", "dev"),
                ("ARGOCD_ENV_CHARTGEN_BUNDLE", "all; touch pwned"),
            ],
            "CHARTGEN_BUNDLE must be release, kata or all",
        ),
    ];
    for (vars, expected) in cases {
        let output = argocd_generate(app.path(), vars);
        let (err, out) = (stderr(&output), stdout(&output));
        assert_eq!(output.status.code(), Some(2), "{vars:?}: {err}");
        assert_eq!(out, "", "{vars:?}");
        assert!(
            err.starts_with("chartgen plugin: ") && err.contains(expected),
            "{vars:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{vars:?}: {err}");
        assert!(
            !err.contains('\u{1b}') && !err.contains("pwned"),
            "{vars:?}: {err}"
        );
    }
    assert!(!app.path().join("pwned").exists() && !values.join("pwned").exists());
}

/// Every path the Flux example and docs/integrations.md name is a committed
/// render with its kustomization, and every committed render has its Flux
/// Kustomization.
#[test]
fn flux_kustomizations_name_the_committed_renders() {
    if !available(&[&PYYAML]) {
        return;
    }
    let example = root().join("examples/flux/kustomizations.yaml");
    let text = std::fs::read_to_string(&example).unwrap();
    let documents = yaml_documents(&example);
    let kustomizations: Vec<&Json> = documents
        .iter()
        .filter(|d| d["kind"] == "Kustomization")
        .collect();
    let names: Vec<&str> = kustomizations
        .iter()
        .map(|k| k["metadata"]["name"].as_str().unwrap())
        .collect();
    let mut paths = Vec::new();
    for kustomization in &kustomizations {
        assert_eq!(
            kustomization["apiVersion"],
            "kustomize.toolkit.fluxcd.io/v1"
        );
        assert_eq!(
            kustomization["spec"]["sourceRef"]["name"],
            "buildkit-operator"
        );
        for dependency in kustomization["spec"]["dependsOn"]
            .as_array()
            .into_iter()
            .flatten()
        {
            assert!(
                names.contains(&dependency["name"].as_str().unwrap()),
                "{dependency}"
            );
        }
        paths.push(kustomization["spec"]["path"].as_str().unwrap().to_owned());
    }
    every_named_render_is_committed(&text);
    for env in std::fs::read_dir(root().join("out")).unwrap() {
        for bundle in std::fs::read_dir(env.unwrap().path()).unwrap() {
            let relative = bundle
                .unwrap()
                .path()
                .strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .into_owned();
            assert!(
                paths.contains(&format!("./{relative}")),
                "no Flux Kustomization for {relative}"
            );
        }
    }
}

/// Each `./out/...` path TEXT and docs/integrations.md name is a committed
/// render with its kustomization.
fn every_named_render_is_committed(text: &str) {
    let docs = std::fs::read_to_string(root().join("docs/integrations.md")).unwrap();
    let all = format!("{text}\n{docs}");
    let named = all.match_indices("./out/").map(|(at, _)| {
        let rest = &all[at + 2..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || "/-_.".contains(c)))
            .unwrap_or(rest.len());
        rest[..end].trim_end_matches(['.', '/'])
    });
    let mut count = 0;
    for path in named {
        assert!(
            root().join(path).join("kustomization.yaml").is_file(),
            "{path} is not a committed render"
        );
        count += 1;
    }
    assert!(count >= 5, "the example and the docs name the renders");
}
