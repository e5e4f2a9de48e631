//! Issue 24, "Distribution": the release workflow
//! (`examples/github/release.yml`), the download step of the CI examples
//! (`examples/ci/install-chartgen.sh`, run here against a release made on
//! the spot, and a tampered one), the container image (`Containerfile`,
//! read for what it promises: no shell needed, never root, only the
//! released binary), the GitHub workflows linted by actionlint (from the
//! Go module proxy, into `target/tools/actionlint`, as `.ci/run` does;
//! skipped with a line without Go or the proxy, failed under
//! CHARTGEN_REQUIRE_ACTIONLINT) and the scripts by shellcheck (Debian's;
//! CHARTGEN_REQUIRE_SHELLCHECK).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value as Json;
use sha2::{Digest as _, Sha256};

use crate::harness::{assert_contains, root};
use crate::integrations::{PYYAML, available, yaml_file};
use crate::tools;

/// The targets a release has an archive for.
const TARGETS: [&str; 4] = [
    "x86_64-unknown-linux-musl",
    "aarch64-unknown-linux-musl",
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
];

const INSTALL: &str = "examples/ci/install-chartgen.sh";
const RELEASE: &str = "examples/github/release.yml";

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

// ------------------------------------------------------------ actionlint

/// actionlint, pinned as `.ci/run` pins it.
const ACTIONLINT: &str = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12";

/// actionlint in `target/tools/actionlint`, built from the Go module proxy
/// once; `None` (skipped, or failed under CHARTGEN_REQUIRE_ACTIONLINT)
/// without Go or the proxy.
fn actionlint() -> Option<PathBuf> {
    if !tools::slow("actionlint") {
        return None;
    }
    let dir = root().join("target/tools/actionlint");
    let binary = dir.join("actionlint");
    let version = || {
        Command::new(&binary)
            .arg("-version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .next()
                    .map(str::to_owned)
            })
    };
    if version().as_deref() != Some("v1.7.12") {
        let installed = tools::step(
            Command::new("go")
                .args(["install", ACTIONLINT])
                .env("GOBIN", &dir),
        );
        if let Err(why) = installed {
            tools::unavailable(
                "CHARTGEN_REQUIRE_ACTIONLINT",
                &format!("actionlint ({ACTIONLINT}, the Go module proxy)"),
                &why,
            );
            return None;
        }
        assert_eq!(
            version().as_deref(),
            Some("v1.7.12"),
            "actionlint installed"
        );
    }
    Some(binary)
}

fn workflows() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples/github"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 2, "the CI workflow and the release");
    files
}

/// Every GitHub workflow of examples/github passes actionlint (syntax,
/// expressions, `needs`, matrix keys, action inputs, runner labels); a
/// copy with a matrix key misspelled and an unknown job in `needs` fails
/// it, naming both: the check can fail.
#[test]
fn github_workflows_pass_actionlint() {
    let Some(actionlint) = actionlint() else {
        return;
    };
    let output = Command::new(&actionlint)
        .arg("-no-color")
        .args(workflows())
        .current_dir(root())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(text(&output), "");

    let dir = tempfile::tempdir().unwrap();
    let release = std::fs::read_to_string(root().join(RELEASE)).unwrap();
    assert!(release.contains("name: build ${{ matrix.target }}"));
    assert!(release.contains("    needs: build\n"));
    let broken = release
        .replacen(
            "name: build ${{ matrix.target }}",
            "name: build ${{ matrix.targets }}",
            1,
        )
        .replacen("    needs: build\n", "    needs: compile\n", 1);
    let path = dir.path().join("release.yml");
    std::fs::write(&path, broken).unwrap();
    let output = Command::new(&actionlint)
        .arg("-no-color")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let found = text(&output);
    assert_contains(&found, "targets");
    assert_contains(&found, "compile");
}

/// shellcheck (Debian's package, as `.ci/run` installs it); `None` (skipped,
/// or failed under CHARTGEN_REQUIRE_SHELLCHECK) when it is not installed.
/// actionlint runs it too, on every `run:` of the workflows, when it is on
/// PATH.
fn shellcheck() -> Option<Command> {
    if !tools::slow("shellcheck") {
        return None;
    }
    match tools::step(Command::new("shellcheck").arg("--version")) {
        Ok(()) => Some(Command::new("shellcheck")),
        Err(why) => {
            tools::unavailable(
                "CHARTGEN_REQUIRE_SHELLCHECK",
                "shellcheck (apt-get install shellcheck)",
                &why,
            );
            None
        }
    }
}

/// The shell scripts users copy (the CI script, the install step, the
/// validate hook) have no shellcheck warning or error; a script reading a
/// variable nothing sets has one: the check can fail.
#[test]
fn shell_scripts_pass_shellcheck() {
    let Some(mut check) = shellcheck() else {
        return;
    };
    let scripts = [
        "examples/ci/chartgen-ci.sh",
        INSTALL,
        "examples/pre-commit/chartgen-validate",
    ];
    let output = check
        .args(["--severity=warning", "--format=gcc"])
        .args(scripts)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.sh");
    std::fs::write(&bad, "#!/bin/sh\necho \"$never_set\"\n").unwrap();
    let output = Command::new("shellcheck")
        .args(["--severity=warning", "--format=gcc"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert_contains(&text(&output), "SC2154");
}

// --------------------------------------------------------- the release

/// The release workflow builds every target the install script downloads,
/// on tags, each archive named as the script names it and attested in the
/// job that built it; the release holds the archives and SHA256SUMS; the
/// image is built from the Containerfile's targets, from the Linux
/// binaries laid out as the Containerfile copies them.
#[test]
fn release_workflow_builds_every_target_with_checksums_and_provenance() {
    if !available(&[&PYYAML]) {
        return;
    }
    let workflow = yaml_file(&root().join(RELEASE));
    let on = workflow.get("on").or_else(|| workflow.get("true")).unwrap();
    assert_eq!(on["push"]["tags"], serde_json::json!(["v*"]));
    assert_eq!(
        workflow["permissions"],
        serde_json::json!({"contents": "read"})
    );

    let build = &workflow["jobs"]["build"];
    let targets: Vec<&str> = build["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["target"].as_str().unwrap())
        .collect();
    assert_eq!(targets, TARGETS);
    assert_eq!(build["permissions"]["id-token"], "write");
    assert_eq!(build["permissions"]["attestations"], "write");
    let steps = build["steps"].as_array().unwrap();
    let position = |needle: &str| {
        steps
            .iter()
            .position(|s| s.to_string().contains(needle))
            .unwrap_or_else(|| panic!("no build step with {needle}"))
    };
    let (built, archived, attested) = (
        position("cargo build --locked --release --target"),
        position(r#"chartgen-$GITHUB_REF_NAME-$TARGET"#),
        position("actions/attest-build-provenance@"),
    );
    assert!(built < archived && archived < attested);
    assert_eq!(steps[attested]["with"]["subject-path"], "dist/*.tar.gz");
    // The script downloads chartgen-VERSION-TARGET.tar.gz, for these targets.
    let script = std::fs::read_to_string(root().join(INSTALL)).unwrap();
    assert_contains(
        &script,
        "name=chartgen-$version-$target\narchive=$name.tar.gz",
    );
    assert_contains(&script, &TARGETS.join(" | "));

    let release = workflow["jobs"]["release"].to_string();
    assert_contains(&release, "sha256sum -- *.tar.gz > SHA256SUMS");
    assert_contains(&release, "dist/*.tar.gz dist/SHA256SUMS");
    assert_eq!(
        workflow["jobs"]["release"]["permissions"]["contents"],
        "write"
    );

    let image = &workflow["jobs"]["image"];
    let image_targets: Vec<&str> = image["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["target"].as_str().unwrap())
        .collect();
    let stages = containerfile();
    for target in &image_targets {
        assert!(
            stages.iter().any(|s| s.name == *target),
            "no stage {target} in the Containerfile"
        );
    }
    let image = image.to_string();
    assert_contains(&image, "\"file\":\"Containerfile\"");
    assert_contains(&image, "linux/amd64,linux/arm64");
    assert_contains(
        &image,
        r#"mv \"dist/$name/chartgen\" \"dist/linux-$arch/chartgen\""#,
    );
    assert_contains(&image, "\"push-to-registry\":true");
}

// ------------------------------------------------- the download step

/// A release made here: DIR/v9.9.9/ARCHIVE (a `chartgen` that prints its
/// version) and DIR/v9.9.9/SHA256SUMS.
struct FakeRelease {
    dir: tempfile::TempDir,
    archive: PathBuf,
}

const VERSION: &str = "v9.9.9";
const TARGET: &str = "x86_64-unknown-linux-musl";

fn sha256(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn fake_release(binary: &str) -> FakeRelease {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("chartgen-{VERSION}-{TARGET}");
    let package = dir.path().join("package").join(&name);
    std::fs::create_dir_all(&package).unwrap();
    std::fs::write(package.join("chartgen"), binary).unwrap();
    let chmod = Command::new("chmod")
        .arg("755")
        .arg(package.join("chartgen"))
        .status()
        .unwrap();
    assert!(chmod.success());
    let release = dir.path().join("releases").join(VERSION);
    std::fs::create_dir_all(&release).unwrap();
    let archive = release.join(format!("{name}.tar.gz"));
    let tar = Command::new("tar")
        .arg("-C")
        .arg(dir.path().join("package"))
        .arg("-czf")
        .arg(&archive)
        .arg(&name)
        .status()
        .unwrap();
    assert!(tar.success());
    let fake = FakeRelease { dir, archive };
    fake.write_sums(&[&format!("{}  {name}.tar.gz", sha256(&fake.archive))]);
    fake
}

impl FakeRelease {
    fn url(&self) -> String {
        format!("file://{}", self.dir.path().join("releases").display())
    }

    fn write_sums(&self, lines: &[&str]) {
        let mut text = lines.join("\n");
        text.push('\n');
        std::fs::write(self.archive.parent().unwrap().join("SHA256SUMS"), text).unwrap();
    }

    /// Runs the install script into INTO with ENV added.
    fn install(&self, into: &Path, env: &[(&str, &str)]) -> Output {
        Command::new(root().join(INSTALL))
            .arg(VERSION)
            .arg(into)
            .env("CHARTGEN_RELEASE_URL", self.url())
            .env("CHARTGEN_TARGET", TARGET)
            .env_remove("CHARTGEN_SHA256")
            .env_remove("CHARTGEN_ATTESTATION_REPO")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }
}

const BINARY: &str = "#!/bin/sh\necho 'chartgen 9.9.9'\n";

/// The release's archive is installed when its SHA-256 is the one
/// SHA256SUMS lists (and the one pinned, when pinned), and runs.
#[test]
fn install_script_installs_a_verified_release() {
    let release = fake_release(BINARY);
    let into = tempfile::tempdir().unwrap();
    let bin = into.path().join("bin");
    let output = release.install(&bin, &[]);
    assert!(output.status.success(), "{}", text(&output));
    let installed = Command::new(bin.join("chartgen"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&installed.stdout),
        "chartgen 9.9.9\n"
    );
    assert_contains(&text(&output), &sha256(&release.archive));

    let pin = sha256(&release.archive);
    let output = release.install(&bin, &[("CHARTGEN_SHA256", &pin)]);
    assert!(output.status.success(), "{}", text(&output));
}

/// A tampered archive, an archive SHA256SUMS does not list, an archive and
/// SHA256SUMS both replaced while the SHA-256 is pinned, and a provenance
/// `gh attestation verify` refuses: each exits 1 and installs nothing (a
/// binary already there stays as it was).
#[test]
fn install_script_refuses_a_tampered_release() {
    let into = tempfile::tempdir().unwrap();
    let bin = into.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("chartgen"), "the old one\n").unwrap();
    let unchanged = |case: &str| {
        assert_eq!(
            std::fs::read_to_string(bin.join("chartgen")).unwrap(),
            "the old one\n",
            "{case}"
        );
        let entries = std::fs::read_dir(&bin).unwrap().count();
        assert_eq!(entries, 1, "{case}: nothing left beside it");
    };

    let good = fake_release(BINARY);
    let pin = sha256(&good.archive);

    // Tampered after its checksum was published.
    let tampered = fake_release(BINARY);
    let mut bytes = std::fs::read(&tampered.archive).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&tampered.archive, bytes).unwrap();
    let output = tampered.install(&bin, &[]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert_contains(&text(&output), "checksum mismatch");
    assert_contains(&text(&output), "nothing installed");
    unchanged("tampered");

    // Not listed (another archive's line only).
    let unlisted = fake_release(BINARY);
    unlisted.write_sums(&[&format!(
        "{pin}  chartgen-{VERSION}-aarch64-apple-darwin.tar.gz"
    )]);
    let output = unlisted.install(&bin, &[]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert_contains(
        &text(&output),
        "lists no chartgen-v9.9.9-x86_64-unknown-linux-musl.tar.gz",
    );
    unchanged("unlisted");

    // Archive and SHA256SUMS replaced together: only the pin sees it.
    let replaced = fake_release("#!/bin/sh\necho 'something else'\n");
    assert_ne!(sha256(&replaced.archive), pin);
    let output = replaced.install(&bin, &[("CHARTGEN_SHA256", &pin)]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert_contains(&text(&output), "CHARTGEN_SHA256 pins");
    unchanged("replaced");

    // Provenance: `gh attestation verify` decides (a stand-in gh here).
    let gh = tempfile::tempdir().unwrap();
    let fake_gh = |verdict: u8| {
        let script = format!(
            "#!/bin/sh\n[ \"$1 $2\" = 'attestation verify' ] && [ \"$4 $5\" = '--repo OWNER/chartgen' ] || exit 9\n[ -f \"$3\" ] || exit 9\nexit {verdict}\n"
        );
        std::fs::write(gh.path().join("gh"), script).unwrap();
        let chmod = Command::new("chmod")
            .arg("755")
            .arg(gh.path().join("gh"))
            .status()
            .unwrap();
        assert!(chmod.success());
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![gh.path().to_path_buf()];
        paths.extend(std::env::split_paths(&path));
        std::env::join_paths(paths).unwrap()
    };
    let path = fake_gh(1);
    let attested = [
        ("CHARTGEN_ATTESTATION_REPO", "OWNER/chartgen"),
        ("PATH", path.to_str().unwrap()),
    ];
    let output = good.install(&bin, &attested);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert_contains(
        &text(&output),
        "has no valid build provenance from OWNER/chartgen",
    );
    unchanged("provenance refused");
    let path = fake_gh(0);
    let attested = [
        ("CHARTGEN_ATTESTATION_REPO", "OWNER/chartgen"),
        ("PATH", path.to_str().unwrap()),
    ];
    let output = good.install(&bin, &attested);
    assert!(output.status.success(), "{}", text(&output));
}

/// Bad input is refused with exit 2 before anything is downloaded: a
/// version that is not a tag (a path), plain http, an unknown target, a
/// pin that is not a SHA-256; a release that is not there is exit 2 too.
#[test]
fn install_script_refuses_bad_input() {
    let release = fake_release(BINARY);
    let into = tempfile::tempdir().unwrap();
    let bin = into.path().join("bin");
    let run = |version: &str, env: &[(&str, &str)]| {
        Command::new(root().join(INSTALL))
            .arg(version)
            .arg(&bin)
            .env("CHARTGEN_RELEASE_URL", release.url())
            .env("CHARTGEN_TARGET", TARGET)
            .env_remove("CHARTGEN_SHA256")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    for (version, env, expected) in [
        ("../v9.9.9", vec![], "VERSION must be a release tag"),
        ("v9.9.9/../x", vec![], "VERSION must be a release tag"),
        ("latest", vec![], "VERSION must be a release tag"),
        (
            VERSION,
            vec![("CHARTGEN_RELEASE_URL", "http://example.com/releases")],
            "must be an https://",
        ),
        (
            VERSION,
            vec![("CHARTGEN_TARGET", "riscv64-unknown-linux-musl")],
            "is not a target of the releases",
        ),
        (
            VERSION,
            vec![("CHARTGEN_SHA256", "abc")],
            "CHARTGEN_SHA256 must be 64",
        ),
        ("v1.0.0", vec![], "could not download"),
    ] {
        let output = run(version, &env);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{version} {env:?}: {}",
            text(&output)
        );
        assert_contains(&text(&output), expected);
        assert!(!bin.exists(), "{version} {env:?}");
    }
}

/// The CI examples install a release with the script, before running the
/// CI script, and build nothing; `cargo install --locked` stays documented.
#[test]
fn ci_examples_install_a_release_instead_of_building() {
    if !available(&[&PYYAML]) {
        return;
    }
    let github = yaml_file(&root().join("examples/github/chartgen.yml"));
    let steps: Vec<String> = github["jobs"]["chartgen"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["run"].as_str().unwrap_or_default().to_owned())
        .collect();
    let gitlab = yaml_file(&root().join("examples/gitlab/.gitlab-ci.yml"));
    let job = &gitlab["chartgen"];
    let lines = |key: &str| -> Vec<String> {
        job[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_owned())
            .collect()
    };
    let gitlab_steps = [lines("before_script"), lines("script")].concat();
    for (file, steps) in [("github", &steps), ("gitlab", &gitlab_steps)] {
        let install = steps
            .iter()
            .position(|s| s.contains("examples/ci/install-chartgen.sh \"$CHARTGEN_VERSION\""))
            .unwrap_or_else(|| panic!("{file}: no install step"));
        let run = steps
            .iter()
            .position(|s| s.contains("examples/ci/chartgen-ci.sh"))
            .unwrap();
        assert!(install < run, "{file}");
        assert!(
            steps.iter().all(|s| !s.contains("cargo")),
            "{file} builds: {steps:?}"
        );
    }
    let install = github["jobs"]["chartgen"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Install chartgen")
        .unwrap();
    assert!(
        install["env"]["CHARTGEN_VERSION"]
            .as_str()
            .unwrap()
            .starts_with('v')
    );
    assert_eq!(
        install["env"]["CHARTGEN_ATTESTATION_REPO"],
        "OWNER/chartgen"
    );
    assert!(
        job["variables"]["CHARTGEN_VERSION"]
            .as_str()
            .unwrap()
            .starts_with('v')
    );
    for file in [
        "examples/github/chartgen.yml",
        "examples/gitlab/.gitlab-ci.yml",
    ] {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        assert_contains(&text, "cargo install --locked --git");
    }
}

// ------------------------------------------------------ the container

/// One stage of the Containerfile: its name, base, and instructions
/// (keyword upper-cased, arguments), continuation lines joined.
struct Stage {
    name: String,
    base: String,
    instructions: Vec<(String, String)>,
}

impl Stage {
    fn all(&self, keyword: &str) -> Vec<&str> {
        (self.instructions.iter())
            .filter(|(k, _)| k == keyword)
            .map(|(_, a)| a.as_str())
            .collect()
    }
}

fn containerfile() -> Vec<Stage> {
    let text = std::fs::read_to_string(root().join("Containerfile")).unwrap();
    let mut logical = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if current.is_empty() && (trimmed.is_empty() || trimmed.starts_with('#')) {
            continue;
        }
        match trimmed.strip_suffix('\\') {
            Some(part) => {
                current.push_str(part);
                current.push(' ');
            }
            None => {
                current.push_str(trimmed);
                logical.push(std::mem::take(&mut current));
            }
        }
    }
    let mut stages: Vec<Stage> = Vec::new();
    for line in logical {
        let (keyword, args) = line.split_once(' ').unwrap_or((&line, ""));
        let keyword = keyword.to_ascii_uppercase();
        let args = args.trim().to_owned();
        if keyword == "FROM" {
            let words: Vec<&str> = args.split_whitespace().collect();
            assert!(
                words.len() == 3 && words[1].eq_ignore_ascii_case("as"),
                "every stage is named: FROM {args}"
            );
            stages.push(Stage {
                name: words[2].to_owned(),
                base: words[0].to_owned(),
                instructions: Vec::new(),
            });
        } else {
            let stage = stages.last_mut().expect("FROM comes first");
            stage.instructions.push((keyword, args));
        }
    }
    stages
}

/// `USER uid:gid`, numeric, not root.
fn non_root_user(stage: &Stage) -> u32 {
    let users = stage.all("USER");
    let user = users
        .last()
        .unwrap_or_else(|| panic!("{}: no USER", stage.name));
    let (uid, gid) = user.split_once(':').unwrap_or((user, ""));
    let uid: u32 = uid
        .parse()
        .unwrap_or_else(|_| panic!("{}: USER {user} is a number", stage.name));
    assert!(
        uid != 0 && gid != "0" && !gid.is_empty(),
        "{}: USER {user}",
        stage.name
    );
    uid
}

/// The image: its default target (the last stage) and the Argo CD
/// sidecar's are distroless/static (no shell, no package manager), run no
/// RUN (there is no shell to run it), copy only the release's binary
/// (`dist/linux-$TARGETARCH/chartgen`, as the release workflow lays it
/// out) read-only, and never run as root; the default's entrypoint is
/// chartgen in exec form, so no shell is needed; the sidecar adds exactly
/// the one static `sh` the plugin's generate command runs, and runs as
/// the user docs/integrations.md's sidecar patch names.
#[test]
fn containerfile_is_minimal_static_and_non_root() {
    let stages = containerfile();
    let names: Vec<&str> = stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["busybox", "argocd-cmp", "chartgen"]);
    let binary = "--chmod=0555 dist/linux-${TARGETARCH}/chartgen /usr/local/bin/chartgen";
    for stage in &stages[1..] {
        assert!(
            stage
                .base
                .starts_with("gcr.io/distroless/static-debian12:nonroot"),
            "{}: {}",
            stage.name,
            stage.base
        );
        assert!(
            stage.all("RUN").is_empty(),
            "{}: RUN needs a shell",
            stage.name
        );
        assert!(stage.all("ADD").is_empty(), "{}", stage.name);
        assert_eq!(stage.all("ARG"), ["TARGETARCH"], "{}", stage.name);
        let copies = stage.all("COPY");
        assert!(copies.contains(&binary), "{}: {copies:?}", stage.name);
    }
    let chartgen = &stages[2];
    assert_eq!(non_root_user(chartgen), 65532);
    assert_eq!(chartgen.all("COPY"), [binary]);
    let entrypoint: Json = serde_json::from_str(chartgen.all("ENTRYPOINT")[0])
        .expect("ENTRYPOINT in exec form (a JSON array): no shell runs it");
    assert_eq!(entrypoint, serde_json::json!(["/usr/local/bin/chartgen"]));
    for cmd in chartgen.all("CMD") {
        serde_json::from_str::<Json>(cmd).expect("CMD in exec form");
    }

    let sidecar = &stages[1];
    let busybox = &stages[0];
    assert!(
        busybox.base.starts_with("docker.io/library/busybox:") && busybox.base.contains("-musl"),
        "the static busybox: {}",
        busybox.base
    );
    assert!(busybox.instructions.is_empty());
    assert_eq!(
        sidecar.all("COPY"),
        ["--from=busybox /bin/busybox /bin/sh", binary]
    );
    assert!(
        sidecar.all("ENTRYPOINT").is_empty(),
        "Argo CD starts argocd-cmp-server"
    );
    let uid = non_root_user(sidecar);
    let docs = std::fs::read_to_string(root().join("docs/integrations.md")).unwrap();
    assert_contains(&docs, &format!("runAsUser: {uid}"));
    assert_contains(&docs, "--target argocd-cmp");
    // The plugin's generate command is what the sidecar has.
    let plugin = std::fs::read_to_string(root().join("examples/argocd/plugin.yaml")).unwrap();
    assert_contains(&plugin, "command: [sh, -c]");

    let ignore = std::fs::read_to_string(root().join(".dockerignore")).unwrap();
    assert_eq!(
        ignore
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>(),
        ["*", "!dist/linux-*/chartgen"]
    );
}

/// Every release tag the docs and examples give chartgen (to install,
/// pull, pin as a pre-commit `rev` or a Cargo `tag`) is this checkout's
/// version, so that copying one gets what this README describes.
#[test]
fn release_tags_in_the_docs_are_this_version() {
    let version = format!("v{}", env!("CARGO_PKG_VERSION"));
    let tag = regex::Regex::new(
        r#"(?:install-chartgen\.sh |chartgen:|chartgen-|--tag |rev: |tag = "|CHARTGEN_VERSION: )(v[0-9]+\.[0-9]+\.[0-9]+)"#,
    )
    .unwrap();
    let mut files = vec![root().join("README.md")];
    for dir in ["docs", "examples/ci", "examples/github", "examples/gitlab"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            files.push(entry.unwrap().path());
        }
    }
    let mut seen = 0;
    for file in files.iter().filter(|f| f.is_file()) {
        let text = std::fs::read_to_string(file).unwrap();
        for found in tag.captures_iter(&text) {
            seen += 1;
            assert_eq!(&found[1], version, "{}: {}", file.display(), &found[0]);
        }
    }
    assert!(seen > 10, "the pattern finds the tags ({seen})");
}
