//! `chartgen render --output-dir` (issue 5, requirements 1 and 6): one file
//! per object, a kustomization listing them, atomic and idempotent writes,
//! only the tool's own files removed, the drift check.

use std::path::{Path, PathBuf};

use crate::harness::{Run, below, chartgen, chartgen_with_stdin, copy_tree, scratch};

/// The files below `dir` (folders left out), by their path below it.
fn files(dir: &Path) -> Vec<String> {
    let mut found: Vec<String> = kubernetes::files::walk(dir)
        .map(Result::unwrap)
        .filter(|entry| !entry.file_type().is_dir())
        .map(|entry| below(dir, entry.path()))
        .collect();
    found.sort();
    found
}

#[test]
fn the_directory_holds_the_same_objects_as_the_stream() {
    let dir_tmp = scratch("same");
    let dir = dir_tmp.path().to_path_buf();
    let target = dir.to_str().unwrap();
    let run = chartgen(&[
        "render",
        "-f",
        "values/ovh-prod.yaml",
        "--output-dir",
        target,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Two GitOps applications: the release, and the Kata bundle.
    assert_eq!(
        run.stdout,
        format!(
            "{target}/release: 40 added, 0 changed, 0 removed, 0 unchanged\n{target}/kata: 8 added, 0 changed, 0 removed, 0 unchanged\n"
        )
    );
    for (bundle, objects) in [("release", 38), ("kata", 7)] {
        let stream = chartgen(&["render", "-f", "values/ovh-prod.yaml", "--bundle", bundle]).stdout;
        let side = format!("{target}/{bundle}");
        let diff = chartgen_with_stdin(&["diff", "--exit-code", "-", &side], Some(&stream));
        assert_eq!(
            (diff.code, diff.stdout.as_str()),
            (0, "no differences\n"),
            "{bundle}"
        );
        assert_eq!(stream.matches("\n---\n").count() + 1, objects, "{bundle}");
    }
    let dir = dir.join("release");
    // The kustomization lists every object file, in install order.
    let kustomization = std::fs::read_to_string(dir.join("kustomization.yaml")).unwrap();
    let mut listed: Vec<String> = kustomization
        .lines()
        .filter_map(|l| l.strip_prefix("  - "))
        .map(str::to_owned)
        .collect();
    assert_eq!(listed[0], "cluster/namespace-buildkit-builds.yaml");
    listed.sort();
    let objects: Vec<String> = files(&dir)
        .into_iter()
        .filter(|f| f.contains('/'))
        .collect();
    assert_eq!(listed, objects);
    assert!(
        dir.join("buildkit-operator/deployment-buildkit-buildd.yaml")
            .is_file()
    );
    assert!(dir.join("kyverno-exemptions.yaml").is_file());
}

#[test]
fn rendering_again_changes_no_byte_and_keeps_foreign_files() {
    let dir_tmp = scratch("again");
    let dir = dir_tmp.path().to_path_buf();
    let target = dir.to_str().unwrap();
    chartgen(&["render", "-f", "values/dev.yaml", "--output-dir", target]);
    let before: Vec<(String, Vec<u8>, std::time::SystemTime)> = files(&dir)
        .into_iter()
        .map(|f| {
            let path = dir.join(&f);
            (
                f,
                std::fs::read(&path).unwrap(),
                std::fs::metadata(&path).unwrap().modified().unwrap(),
            )
        })
        .collect();
    std::fs::write(dir.join("README.md"), "our notes\n").unwrap();
    let run = chartgen(&["render", "-f", "values/dev.yaml", "--output-dir", target]);
    assert_eq!(
        run.stdout,
        format!("{target}/release: 0 added, 0 changed, 0 removed, 37 unchanged\n")
    );
    assert_eq!(
        run.stderr,
        format!("note: {target}/README.md is not part of this render; left alone\n")
    );
    for (file, bytes, modified) in before {
        let path = dir.join(&file);
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{file}");
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            modified,
            "{file} was rewritten"
        );
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("README.md")).unwrap(),
        "our notes\n"
    );
    // Nothing to write: the directory is not touched at all, not even by
    // the lock (so a read-only checkout that is up to date renders fine).
    let modified = std::fs::metadata(&dir).unwrap().modified().unwrap();
    chartgen(&["render", "-f", "values/dev.yaml", "--output-dir", target]);
    assert_eq!(
        std::fs::metadata(&dir).unwrap().modified().unwrap(),
        modified
    );
}

/// chartgen writes UTF-8 names only: a file named otherwise is never its,
/// whatever its first line says, so it is reported and kept, by a render
/// and by `--check` alike (a folder so named is not walked).
#[cfg(unix)]
#[test]
fn a_name_that_is_not_utf8_is_never_chartgens() {
    use std::os::unix::ffi::OsStrExt as _;
    let dir_tmp = scratch("not-utf8");
    let dir = dir_tmp.path();
    let target = dir.to_str().unwrap();
    chartgen(&["render", "-f", "values/dev.yaml", "--output-dir", target]);
    let odd = dir.join(std::ffi::OsStr::from_bytes(b"stale-\xff.yaml"));
    let marked = "# Generated by chartgen\nkind: ConfigMap\n";
    std::fs::write(&odd, marked).unwrap();
    let folder = dir.join(std::ffi::OsStr::from_bytes(b"old-\xfe"));
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("x.yaml"), marked).unwrap();
    let note = format!(
        "note: {target}/old-\u{fffd} is not part of this render; left alone\nnote: {target}/stale-\u{fffd}.yaml is not part of this render; left alone\n"
    );
    for check in [true, false] {
        let mut args = vec!["render", "-f", "values/dev.yaml", "--output-dir", target];
        args.extend(check.then_some("--check"));
        let run = chartgen(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(run.stderr, note);
        assert_eq!(std::fs::read_to_string(&odd).unwrap(), marked);
        assert_eq!(
            std::fs::read_to_string(folder.join("x.yaml")).unwrap(),
            marked
        );
    }
}

#[test]
fn objects_that_go_away_take_their_files_with_them() {
    let dir_tmp = scratch("away");
    let dir = dir_tmp.path().to_path_buf();
    let target = dir.to_str().unwrap();
    chartgen(&[
        "render",
        "-f",
        "values/ovh-prod.yaml",
        "--output-dir",
        target,
    ]);
    assert!(dir.join("kata/buildkit-system").is_dir());
    let run = chartgen(&[
        "render",
        "-f",
        "values/ovh-prod.yaml",
        "--set",
        "kata.enabled=false",
        "--output-dir",
        target,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // buildd loses --untrusted-runtime-class, the untrusted projects their
    // runtimeClassName, the exemptions the system namespace: the Kata
    // application empties, and its folders go too.
    assert_eq!(
        run.stdout,
        format!(
            "{target}/release: 0 added, 4 changed, 0 removed, 36 unchanged\n{target}/kata: 0 added, 0 changed, 8 removed, 0 unchanged\n"
        )
    );
    assert!(
        !dir.join("kata").exists(),
        "the emptied application goes too"
    );
}

#[test]
fn check_reports_drift_and_writes_nothing() {
    let dir_tmp = scratch("drift");
    let dir = dir_tmp.path().to_path_buf();
    let target = dir.to_str().unwrap();
    chartgen(&["render", "-f", "values/dev.yaml", "--output-dir", target]);
    let run = chartgen(&[
        "render",
        "-f",
        "values/dev.yaml",
        "--output-dir",
        target,
        "--check",
    ]);
    assert_eq!(
        (run.code, run.stdout.clone()),
        (
            0,
            format!("ok: {target}/release is up to date (37 files)\n")
        )
    );
    let deployment = dir.join("release/buildkit-operator/deployment-buildkit-gateway.yaml");
    let edited = std::fs::read_to_string(&deployment)
        .unwrap()
        .replace("replicas: 1", "replicas: 5");
    std::fs::write(&deployment, &edited).unwrap();
    let run = chartgen(&[
        "render",
        "-f",
        "values/dev.yaml",
        "--output-dir",
        target,
        "--check",
    ]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stdout,
        format!(
            "drift: {target}/release is not what a render would write\n  ~ buildkit-operator/deployment-buildkit-gateway.yaml\n  ~ Deployment buildkit-operator/buildkit-gateway\n      spec.replicas: 5 → 1\n  1 object differs: 0 added, 0 removed, 1 changed\n"
        )
    );
    assert_eq!(
        std::fs::read_to_string(&deployment).unwrap(),
        edited,
        "--check writes nothing"
    );
}

/// A stale file of chartgen's that does not read as manifests (edited
/// by hand) is drift, exit 1, named by the file list; the objects are not
/// compared, and nothing of the file is quoted.
#[test]
fn check_reports_a_stale_file_that_does_not_parse_as_drift() {
    let dir_tmp = scratch("stale-unparsed");
    let dir = dir_tmp.path().to_path_buf();
    let target = dir.to_str().unwrap();
    let render = |extra: &[&str]| {
        let args = [
            &["render", "-f", "values/dev.yaml", "--output-dir", target][..],
            extra,
        ]
        .concat();
        chartgen(&args)
    };
    assert_eq!(render(&[]).code, 0);
    let stale = dir.join("release/cluster/stale.yaml");
    let marker = "# Generated by chartgen; do not edit: change the values and render again.\n";
    std::fs::write(&stale, format!("{marker}password: hunter2 {{\n")).unwrap();
    let run = render(&["--check"]);
    assert_eq!((run.code, run.stderr.as_str()), (1, ""));
    assert_eq!(
        run.stdout,
        format!(
            "drift: {target}/release is not what a render would write\n  - cluster/stale.yaml\n  the objects are not compared: a file here does not read as manifests\n"
        )
    );
    assert!(stale.exists(), "--check writes nothing");
}

/// A link among the environments of `--all` is not an environment whose
/// values are gone: what it points at is never touched.
#[test]
fn a_linked_folder_is_no_stale_environment() {
    let dir_tmp = scratch("linked");
    let dir = dir_tmp.path().to_path_buf();
    let elsewhere_tmp = scratch("linked-elsewhere");
    let elsewhere = elsewhere_tmp.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(elsewhere.join("release")).unwrap();
    let kustomization = elsewhere.join("release/kustomization.yaml");
    let mine = "# Generated by chartgen; do not edit: change the values and render again.\nresources:\n  - x.yaml\n";
    std::fs::write(&kustomization, mine).unwrap();
    std::os::unix::fs::symlink(&elsewhere, dir.join("linked")).unwrap();
    let run = chartgen(&["render", "--all", "--output-dir", dir.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&kustomization).unwrap(), mine);
}

#[test]
fn an_unwritable_directory_is_bad_input() {
    let run = chartgen(&["render", "--output-dir", "/dev/null/out"]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert_eq!(
        run.stderr,
        "error: cannot write `/dev/null/out`: `/dev/null` is a FIFO, device or socket, not a directory\n"
    );
}

#[test]
fn all_and_check_need_an_output_directory() {
    for flag in ["--all", "--check"] {
        chartgen(&["render", flag]).assert_refused(2, "--output-dir <DIR>");
    }
}

// Issue 9, section 1: the output directory under attack and interruption.

/// Runs `chartgen ARGS` in `cwd` with `env` added: (exit code, stdout, stderr).
fn chartgen_in(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let run = run_in(cwd, args, env);
    (run.code, run.stdout, run.stderr)
}

/// Runs `chartgen ARGS` in `cwd`, as a [`Run`] for its assertions.
fn run_in(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    crate::harness::chartgen_at(cwd, args, None, env)
}

/// A values file of the repository, by absolute path.
fn values(name: &str) -> String {
    crate::harness::root()
        .join("values")
        .join(name)
        .display()
        .to_string()
}

/// Every entry below `dir` (hidden ones too; links not followed) with its
/// content: `Some(bytes)` for a file, `None` for a link or folder.
/// (A folder that cannot be read, `dir` itself too, holds nothing here.)
fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Option<Vec<u8>>> {
    let mut found = std::collections::BTreeMap::new();
    for entry in kubernetes::files::walk(dir).filter_map(Result::ok) {
        let name = below(dir, entry.path());
        let kind = entry.file_type();
        if kind.is_dir() {
            found.insert(format!("{name}/"), None);
        } else if kind.is_file() {
            found.insert(name, Some(std::fs::read(entry.path()).unwrap()));
        } else {
            found.insert(name, None);
        }
    }
    found
}

/// A folder the output directory links to, holding a file of chartgen's
/// that a render followed through the link would remove.
fn victim(base: &Path) -> PathBuf {
    let victim = base.join("victim");
    std::fs::create_dir_all(victim.join("release")).unwrap();
    std::fs::write(
        victim.join("release/kustomization.yaml"),
        format!("{}\nresources: []\n", chartgen::commands::OWNER.marker()),
    )
    .unwrap();
    std::fs::write(victim.join("id_rsa"), "secret\n").unwrap();
    victim
}

#[test]
fn no_spelling_of_a_linked_output_directory_is_followed() {
    let base = tempfile::tempdir().unwrap();
    let base = base.path();
    let victim = victim(base);
    let before = snapshot(&victim);
    std::os::unix::fs::symlink(&victim, base.join("out")).unwrap();
    std::fs::create_dir_all(base.join("real")).unwrap();
    std::os::unix::fs::symlink(&victim, base.join("real/release")).unwrap();
    std::fs::create_dir_all(base.join("deep/release")).unwrap();
    std::os::unix::fs::symlink(&victim, base.join("deep/release/buildkit-operator")).unwrap();
    let absolute = base.join("out").display().to_string();
    let spellings = [
        ("out", "`out`: `"),
        ("out/", "`out`: `"),
        ("out/.", "`out`: `"),
        ("./out", "`out`: `"),
        ("x/../out", "`out`: `"),
        ("out/sub", "`out/sub`: `"),
        ("out/release", "`out/release`: `"),
        (absolute.as_str(), ""),
    ];
    let dev = values("dev.yaml");
    for (spelling, start) in spellings {
        for check in [false, true] {
            let mut args = vec!["render", "-f", &dev, "--output-dir", spelling];
            if check {
                args.push("--check");
            }
            let run = run_in(base, &args, &[]);
            run.assert_refused(2, &format!("error: cannot write {start}"));
            run.assert_refused(2, "/out` is a symbolic link");
            assert_eq!(run.stdout, "", "{spelling}");
        }
    }
    // A link inside the output directory, where an application or a
    // namespace folder goes: refused before anything is written.
    for dir in ["real", "deep"] {
        run_in(base, &["render", "-f", &dev, "--output-dir", dir], &[])
            .assert_refused(2, "is a symbolic link");
        assert!(!base.join(dir).join("release/kustomization.yaml").exists());
        assert!(!base.join(dir).join(".chartgen.lock").exists());
    }
    assert_eq!(snapshot(&victim), before, "nothing written through a link");
    assert!(!base.join("real/kata").exists() && !base.join("deep/kata").exists());
}

#[test]
fn the_working_directory_and_its_parents_are_no_output_directory() {
    let base = tempfile::tempdir().unwrap();
    let inner = base.path().join("repo");
    std::fs::create_dir_all(&inner).unwrap();
    for spelling in [".", "./", "..", "sub/../.."] {
        run_in(
            &inner,
            &[
                "render",
                "-f",
                &values("dev.yaml"),
                "--output-dir",
                spelling,
            ],
            &[],
        )
        .assert_refused(2, "it is the working directory or holds it");
    }
    assert_eq!(snapshot(base.path()).len(), 1, "nothing written");
}

#[test]
fn dotdot_is_resolved_by_name_and_said() {
    let base = tempfile::tempdir().unwrap();
    let base = base.path();
    std::fs::create_dir_all(base.join("a")).unwrap();
    let (code, stdout, stderr) = chartgen_in(
        base,
        &[
            "render",
            "-f",
            &values("dev.yaml"),
            "--output-dir",
            "a/../out/",
        ],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr,
        "note: --output-dir is taken as out: `..` is resolved by name, never through a link\n"
    );
    assert_eq!(
        stdout,
        "out/release: 37 added, 0 changed, 0 removed, 0 unchanged\n"
    );
}

/// Makes a FIFO at `path` (never opened by the test either).
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

#[test]
fn a_fifo_anywhere_chartgen_looks_is_refused_at_once() {
    let dev = values("dev.yaml");
    for place in [
        "",
        "release/kustomization.yaml",
        "release/buildkit-operator",
        "release/notes",
        "release/.chartgen-abc123.tmp",
        ".chartgen.lock",
    ] {
        let base = tempfile::tempdir().unwrap();
        let out = base.path().join("out");
        if !place.is_empty() {
            let (code, _, stderr) = chartgen_in(
                base.path(),
                &["render", "-f", &dev, "--output-dir", "out"],
                &[],
            );
            assert_eq!(code, 0, "{stderr}");
            let _ = std::fs::remove_file(out.join(place));
            let _ = std::fs::remove_dir_all(out.join(place));
        }
        mkfifo(&if place.is_empty() {
            out.clone()
        } else {
            out.join(place)
        });
        let before = snapshot(base.path());
        for check in [false, true] {
            let mut args = vec!["render", "-f", &dev, "--output-dir", "out"];
            if check {
                args.push("--check");
            }
            // A render that opened the FIFO would wait here for a writer.
            let run = run_in(base.path(), &args, &[]);
            run.assert_refused(2, "FIFO, device or socket");
            assert_eq!(run.stdout, "", "{place}");
        }
        assert_eq!(snapshot(base.path()), before, "{place}: nothing written");
    }
}

#[test]
fn what_a_killed_render_left_is_chartgens_and_goes() {
    let base = tempfile::tempdir().unwrap();
    let out = base.path().join("out");
    let dev = values("dev.yaml");
    let render = |check: bool| {
        let mut args = vec!["render", "-f", &dev, "--output-dir", "out"];
        if check {
            args.push("--check");
        }
        chartgen_in(base.path(), &args, &[])
    };
    assert_eq!(render(false).0, 0);
    // Files a killed render of other values wrote, before it rewrote the
    // kustomization: no kustomization lists them; a temporary file cut
    // short; its lock; and an empty temporary file in a folder of its own.
    let marker = chartgen::commands::OWNER.marker();
    std::fs::create_dir_all(out.join("release/other-ns")).unwrap();
    std::fs::write(
        out.join("release/other-ns/configmap-x.yaml"),
        format!(
            "{marker}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: other-ns\n"
        ),
    )
    .unwrap();
    std::fs::write(out.join("release/.chartgen-Q1w2E3.tmp"), &marker[..20]).unwrap();
    std::fs::write(out.join("release/other-ns/.chartgen-abcdef.tmp"), "").unwrap();
    // As builds before the atomic writes through tempfile named them.
    std::fs::write(
        out.join("release/.x.yaml.chartgen-4242.tmp"),
        format!("{marker}\nx: 0\n"),
    )
    .unwrap();
    std::fs::write(out.join(".chartgen.lock"), "").unwrap();
    let (code, stdout, stderr) = render(true);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stderr, "", "chartgen's own files are never foreign");
    assert!(
        stdout.starts_with("drift: out/release is not what a render would write\n  - .chartgen-Q1w2E3.tmp\n  - .x.yaml.chartgen-4242.tmp\n  - other-ns/.chartgen-abcdef.tmp\n  - other-ns/configmap-x.yaml\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("drift: out is not what a render would write\n  - .chartgen.lock\n"),
        "{stdout}"
    );
    let (code, stdout, stderr) = render(false);
    // Each file that goes is named, with why.
    assert_eq!(
        (code, stderr.as_str()),
        (
            0,
            "note: out/release/.chartgen-Q1w2E3.tmp removed (a temporary file of an interrupted render)\n\
             note: out/release/.x.yaml.chartgen-4242.tmp removed (a temporary file of an interrupted render)\n\
             note: out/release/other-ns/.chartgen-abcdef.tmp removed (a temporary file of an interrupted render)\n\
             note: out/release/other-ns/configmap-x.yaml removed (chartgen's marker, not produced by this render)\n\
             note: out/.chartgen.lock removed (the lock file of an interrupted render)\n"
        )
    );
    assert_eq!(
        stdout,
        "out/release: 0 added, 0 changed, 4 removed, 37 unchanged\nout: 0 added, 0 changed, 1 removed, 0 unchanged\n"
    );
    assert!(!out.join("release/other-ns").exists());
    assert!(!out.join(".chartgen.lock").exists());
    assert_eq!(render(true).0, 0);
}

#[test]
fn a_second_render_while_one_writes_refuses_and_writes_nothing() {
    let base = tempfile::tempdir().unwrap();
    let out = base.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    // The first render holds the lock (as `sync` does while it writes).
    let first = std::fs::File::create(out.join(".chartgen.lock")).unwrap();
    first.lock().unwrap();
    for check in [false, true] {
        let mut args = vec!["render", "-f", "values/dev.yaml", "--output-dir"];
        let target = out.display().to_string();
        args.push(&target);
        if check {
            args.push("--check");
        }
        let run = chartgen(&args);
        assert_eq!((run.code, run.stdout.as_str()), (2, ""));
        assert_eq!(
            run.stderr,
            format!(
                "error: cannot write `{target}`: another process is writing this directory now (it holds .chartgen.lock); wait for it to finish, then run again\n"
            )
        );
    }
    assert_eq!(snapshot(&out).len(), 1, "only the first render's lock");
    drop(first);
    let target = out.display().to_string();
    let run = chartgen(&["render", "-f", "values/dev.yaml", "--output-dir", &target]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!out.join(".chartgen.lock").exists(), "the lock goes");
}

/// A folder with `values/` holding `files` (each a copy of dev.yaml).
fn repository(files: &[&str]) -> tempfile::TempDir {
    let base = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(base.path().join("values")).unwrap();
    let dev = std::fs::read_to_string(values("dev.yaml")).unwrap();
    for file in files {
        std::fs::write(base.path().join("values").join(file), &dev).unwrap();
    }
    base
}

// Over 80 lines: a table of environment names and the refusal each must give.
#[test]
fn environments_that_would_share_a_folder_or_have_no_plain_name_are_refused() {
    for (files, message) in [
        (
            &["dev.yaml", "dev.yml"][..],
            "values/dev.yaml and values/dev.yml would render into one folder",
        ),
        (
            &["Dev.yaml", "dev.yaml"][..],
            "values/Dev.yaml and values/dev.yaml would render into one folder",
        ),
        (
            &["a.yaml", "é.yaml"][..],
            "values/é.yaml: an environment's name",
        ),
        (
            &["a.yaml", "-x.yaml"][..],
            "values/-x.yaml: an environment's name",
        ),
        (
            &["a.yaml", "b c.yaml"][..],
            "values/b c.yaml: an environment's name",
        ),
        (
            &["a.yaml", "b\u{1b}[2J.yaml"][..],
            "values/b\\u{001b}[2J.yaml: an environment's name",
        ),
    ] {
        let base = repository(files);
        let (code, stdout, stderr) = chartgen_in(
            base.path(),
            &["render", "--all", "--output-dir", "out"],
            &[],
        );
        assert_eq!((code, stdout.as_str()), (2, ""), "{files:?}");
        assert!(stderr.starts_with(&format!("error: {message}")), "{stderr}");
        assert!(
            !base.path().join("out").exists(),
            "{files:?}: nothing written"
        );
    }
    // No environment at all: refused, rather than every file removed.
    let base = repository(&[]);
    std::fs::create_dir_all(base.path().join("out/dev/release")).unwrap();
    let kustomization = base.path().join("out/dev/release/kustomization.yaml");
    std::fs::write(
        &kustomization,
        format!("{}\n", chartgen::commands::OWNER.marker()),
    )
    .unwrap();
    let (code, _, stderr) = chartgen_in(
        base.path(),
        &["render", "--all", "--output-dir", "out"],
        &[],
    );
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: values/ holds no environment"),
        "{stderr}"
    );
    assert!(kustomization.exists());
    // A link in values/ is not read: it could point at any file, whose first
    // line an error would quote.
    let base = repository(&["dev.yaml"]);
    let secret = base.path().join("id_rsa");
    std::fs::write(&secret, "PRIVATE-KEY-MATERIAL\n").unwrap();
    std::os::unix::fs::symlink(&secret, base.path().join("values/leak.yaml")).unwrap();
    let run = run_in(
        base.path(),
        &["render", "--all", "--output-dir", "out"],
        &[],
    );
    assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{}", run.stderr);
    assert!(
        run.stderr.starts_with(
            "error: values/leak.yaml: a symbolic link; --all reads only the regular files"
        ),
        "{}",
        run.stderr
    );
    run.assert_stderr_lacks("PRIVATE");
    assert!(!base.path().join("out").exists(), "nothing written");
    // Hidden files (editors' locks and backups) are no environments.
    let base = repository(&["dev.yaml"]);
    std::os::unix::fs::symlink("nowhere", base.path().join("values/.#dev.yaml")).unwrap();
    let (code, stdout, stderr) = chartgen_in(
        base.path(),
        &["render", "--all", "--output-dir", "out"],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "out/dev/release: 37 added, 0 changed, 0 removed, 0 unchanged\n"
    );
}

#[test]
fn a_refusal_in_the_last_environment_leaves_the_first_ones_unwritten() {
    let base = repository(&["a.yaml", "b.yaml", "c.yaml"]);
    let out = base.path().join("out");
    // A file chartgen did not write where c's kustomization goes.
    std::fs::create_dir_all(out.join("c/release")).unwrap();
    std::fs::write(out.join("c/release/kustomization.yaml"), "mine\n").unwrap();
    let before = snapshot(&out);
    let run = run_in(
        base.path(),
        &["render", "--all", "--output-dir", "out"],
        &[],
    );
    run.assert_refused(
        2,
        "out/c/release/kustomization.yaml`: a file this tool did not write",
    );
    assert_eq!(run.stdout, "");
    assert_eq!(snapshot(&out), before, "a and b unwritten too");
    // Values that fail in the last environment: nothing written either.
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::write(
        base.path().join("values/c.yaml"),
        "buildd: {replicas: many}\n",
    )
    .unwrap();
    let (code, _, _) = chartgen_in(
        base.path(),
        &["render", "--all", "--output-dir", "out"],
        &[],
    );
    assert_eq!(code, 2);
    assert!(!out.exists());
}

#[test]
fn a_folder_no_values_file_produced_loses_chartgens_files_only() {
    let base = repository(&["dev.yaml", "gone.yaml"]);
    let out = base.path().join("out");
    let all = |check: bool| {
        let mut args = vec!["render", "--all", "--output-dir", "out"];
        if check {
            args.push("--check");
        }
        chartgen_in(base.path(), &args, &[])
    };
    assert_eq!(all(false).0, 0);
    std::fs::remove_file(base.path().join("values/gone.yaml")).unwrap();
    // Foreign files: beside chartgen's in the stale folder, and alone in a
    // folder of their own (a name with a control character too).
    std::fs::write(out.join("gone/release/NOTES.md"), "ours\n").unwrap();
    std::fs::create_dir_all(out.join("docs")).unwrap();
    std::fs::write(out.join("docs/README.md"), "ours\n").unwrap();
    std::fs::write(out.join("docs/evil\u{1b}[2J.yaml"), "ours\n").unwrap();
    let notes = "note: out/docs/README.md is not part of this render; left alone\nnote: out/docs/evil\\u{001b}[2J.yaml is not part of this render; left alone\nnote: out/gone/release/NOTES.md is not part of this render; left alone\n";
    let (code, stdout, stderr) = all(true);
    assert_eq!(code, 1);
    assert_eq!(stderr, notes);
    assert!(
        stdout.contains(
            "drift: out/gone/release is not what a render would write\n  - buildkit-builds/"
        ),
        "{stdout}"
    );
    let (code, stdout, stderr) = all(false);
    assert_eq!(code, 0, "{stderr}");
    // The foreign files noted, then each of chartgen's files that went.
    let removed = stderr.strip_prefix(notes).expect(&stderr);
    assert_eq!(removed.lines().count(), 37, "{removed}");
    assert!(
        removed
            .lines()
            .all(|l| l.starts_with("note: out/gone/release/")
                && l.ends_with(".yaml removed (chartgen's marker, not produced by this render)")),
        "{removed}"
    );
    assert!(
        removed.contains("note: out/gone/release/kustomization.yaml removed (chartgen's marker, not produced by this render)\n"),
        "{removed}"
    );
    assert_eq!(
        stdout,
        "out/dev/release: 0 added, 0 changed, 0 removed, 37 unchanged\nout/gone/release: 0 added, 0 changed, 37 removed, 0 unchanged\n"
    );
    assert_eq!(
        snapshot(&out.join("gone")).keys().collect::<Vec<_>>(),
        ["release/", "release/NOTES.md"]
    );
    assert_eq!(
        std::fs::read_to_string(out.join("docs/README.md")).unwrap(),
        "ours\n"
    );
    let (code, stdout, _) = all(true);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "ok: out/dev/release is up to date (37 files)\n")
    );
}

/// The files of a snapshot (folders left out).
fn only_files(
    snapshot: std::collections::BTreeMap<String, Option<Vec<u8>>>,
) -> std::collections::BTreeMap<String, Vec<u8>> {
    snapshot
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect()
}

/// Stops a render before each of its write steps in turn, as a kill would
/// (no cleanup runs), and checks what it leaves: every file old or new
/// (a temporary file is a beginning of a new one), `--check` failing, the
/// next render converging to exactly what an uninterrupted one writes, and
/// `--check` passing then. Plain `cargo test` stops it at every seventh
/// step (the first included) and at each step after the last of those,
/// so the count of steps is still exact; `CHARTGEN_SLOW=1` (as `.ci/run`
/// sets it) at every one.
// Over 80 lines: one scenario (stop, inspect, converge) whose steps share the same scratch directories.
#[test]
fn a_render_stopped_at_any_write_step_leaves_old_or_new_and_the_next_converges() {
    let prod = values("ovh-prod.yaml");
    let old_args = [
        "render",
        "-f",
        &prod,
        "--bundle",
        "kata",
        "--set",
        "kata.vcpuTuning.enabled=false",
        "--output-dir",
        "out",
    ];
    let new_args = [
        "render",
        "-f",
        &prod,
        "--bundle",
        "kata",
        "--set",
        "kata.runtimeClass.overhead.cpu=500m",
        "--output-dir",
        "out",
    ];
    let mut check_args = new_args.to_vec();
    check_args.push("--check");
    // The old state: an earlier render (less one folder), a stale file of
    // chartgen's in a folder of its own, a foreign file.
    let template = tempfile::tempdir().unwrap();
    let (code, _, stderr) = chartgen_in(template.path(), &old_args, &[]);
    assert_eq!(code, 0, "{stderr}");
    let out = template.path().join("out");
    std::fs::remove_dir_all(out.join("buildkit-system")).unwrap();
    std::fs::create_dir_all(out.join("legacy")).unwrap();
    std::fs::write(
        out.join("legacy/configmap-stale.yaml"),
        format!(
            "{}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stale\n  namespace: legacy\n",
            chartgen::commands::OWNER.marker()
        ),
    )
    .unwrap();
    std::fs::write(out.join("NOTES.md"), "ours\n").unwrap();
    let old = only_files(snapshot(&out));
    // The new state, written without interruption.
    let reference = tempfile::tempdir().unwrap();
    copy_tree(&out, &reference.path().join("out"));
    let (code, _, stderr) = chartgen_in(reference.path(), &new_args, &[]);
    assert_eq!(code, 0, "{stderr}");
    let new = only_files(snapshot(&reference.path().join("out")));
    assert!(!new.contains_key("legacy/configmap-stale.yaml"));
    assert!(new.keys().any(|k| k.starts_with("buildkit-system/")));
    let changed = old
        .iter()
        .filter(|(k, v)| new.get(*k).is_some_and(|n| n != *v))
        .count();
    assert_eq!(changed, 2, "the scenario changes files too");

    let mut stride = crate::tools::cases(7, 1) as usize;
    let mut step = 0;
    loop {
        assert!(step < 1_000, "the render never finishes");
        let base = tempfile::tempdir().unwrap();
        let out = base.path().join("out");
        copy_tree(&template.path().join("out"), &out);
        let stop = step.to_string();
        let (code, _, stderr) = chartgen_in(
            base.path(),
            &new_args,
            &[(kubernetes::output::STOP_AT_STEP, &stop)],
        );
        // The hook is read by builds with debug assertions only (the test
        // profile keeps them): a binary that ignores it finishes at step 0.
        assert!(
            step > 0 || code == kubernetes::output::STOPPED,
            "the render did not stop before write step 0: the binary ignores the hook (built without debug assertions?): {stderr}"
        );
        if code == 0 && stride > 1 && step > 0 {
            // Past the last step: the ones skipped since, one by one.
            step = step + 1 - stride;
            stride = 1;
            continue;
        }
        if code == 0 {
            break;
        }
        assert_eq!(code, kubernetes::output::STOPPED, "step {step}: {stderr}");
        let left = only_files(snapshot(&out));
        for (path, content) in &left {
            let name = path.rsplit('/').next().unwrap();
            if path == ".chartgen.lock" {
                continue;
            }
            if name.starts_with(".chartgen-") && name.ends_with(".tmp") {
                assert!(
                    new.values().any(|n| n.starts_with(content)),
                    "step {step}: {path} is no beginning of a new file"
                );
                continue;
            }
            assert!(
                old.get(path) == Some(content) || new.get(path) == Some(content),
                "step {step}: {path} is neither old nor new"
            );
        }
        for path in old.keys().filter(|k| new.contains_key(*k)) {
            assert!(left.contains_key(path), "step {step}: {path} went missing");
        }
        let (code, _, stderr) = chartgen_in(base.path(), &check_args, &[]);
        assert_eq!(
            code, 1,
            "step {step}: --check passes a half-written directory: {stderr}"
        );
        let (code, _, stderr) = chartgen_in(base.path(), &new_args, &[]);
        assert_eq!(code, 0, "step {step}: {stderr}");
        // What the stopped render left goes, each file named; none of it
        // is foreign.
        let not_removed: String = stderr
            .lines()
            .filter(|l| !(l.starts_with("note: out/") && l.contains(" removed (")))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            not_removed, "note: out/NOTES.md is not part of this render; left alone\n",
            "step {step}: chartgen's own files are never foreign"
        );
        assert!(
            only_files(snapshot(&out)) == new,
            "step {step}: the next render does not converge"
        );
        let (code, _, stderr) = chartgen_in(base.path(), &check_args, &[]);
        assert_eq!(code, 0, "step {step}: {stderr}");
        step += stride;
    }
    // Every write step was tried: the lock, a folder, four steps per file
    // (3 added, 2 changed), a removal and its folder, the lock again.
    assert_eq!(step, 25, "write steps");
}

/// `--check` shows what differs in the objects of chartgen's own files; a
/// link in the directory (to a secret, say) is noted, never read.
#[test]
fn check_reads_no_file_through_a_link() {
    let base = tempfile::tempdir().unwrap();
    let out = base.path().join("out");
    let dev = values("dev.yaml");
    assert_eq!(
        chartgen_in(
            base.path(),
            &["render", "-f", &dev, "--output-dir", "out"],
            &[]
        )
        .0,
        0
    );
    let secret = base.path().join("secret.yaml");
    std::fs::write(&secret, "password: hunter2\n").unwrap();
    std::os::unix::fs::symlink(&secret, out.join("release/leak.yaml")).unwrap();
    let deployment = out.join("release/buildkit-operator/deployment-buildkit-gateway.yaml");
    let edited = std::fs::read_to_string(&deployment)
        .unwrap()
        .replace("replicas: 1", "replicas: 5");
    std::fs::write(&deployment, edited).unwrap();
    let run = run_in(
        base.path(),
        &["render", "-f", &dev, "--output-dir", "out", "--check"],
        &[],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "note: out/release/leak.yaml is not part of this render; left alone\n"
    );
    assert!(
        run.stdout.contains("spec.replicas: 5 → 1"),
        "{}",
        run.stdout
    );
    run.assert_shows_nowhere("hunter2");
}

#[test]
fn paths_are_printed_with_control_characters_escaped() {
    let base = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = chartgen_in(
        base.path(),
        &[
            "render",
            "-f",
            &values("dev.yaml"),
            "--output-dir",
            "a\u{1b}[2J\u{85}b",
        ],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "a\\u{001b}[2J\\u{0085}b/release: 37 added, 0 changed, 0 removed, 0 unchanged\n"
    );
}
