//! `chartgen render --output-dir` (issue 5, requirements 1 and 6): one file
//! per object, a kustomization listing them, atomic and idempotent writes,
//! only the tool's own files removed, the drift check.

use std::path::{Path, PathBuf};

use crate::harness::{chartgen, chartgen_with_stdin};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chartgen-out-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(
                files(&path)
                    .into_iter()
                    .map(|f| format!("{}/{f}", path.file_name().unwrap().to_string_lossy())),
            );
        } else {
            found.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    found.sort();
    found
}

#[test]
fn the_directory_holds_the_same_objects_as_the_stream() {
    let dir = temp("same");
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
            "{target}/release: 34 added, 0 changed, 0 removed, 0 unchanged\n{target}/kata: 8 added, 0 changed, 0 removed, 0 unchanged\n"
        )
    );
    for (bundle, objects) in [("release", 32), ("kata", 7)] {
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
    std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
}

#[test]
fn rendering_again_changes_no_byte_and_keeps_foreign_files() {
    let dir = temp("again");
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
        format!("{target}/release: 0 added, 0 changed, 0 removed, 31 unchanged\n")
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
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn objects_that_go_away_take_their_files_with_them() {
    let dir = temp("away");
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
            "{target}/release: 0 added, 4 changed, 0 removed, 30 unchanged\n{target}/kata: 0 added, 0 changed, 8 removed, 0 unchanged\n"
        )
    );
    assert!(
        !dir.join("kata").exists(),
        "the emptied application goes too"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_reports_drift_and_writes_nothing() {
    let dir = temp("drift");
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
            format!("ok: {target}/release is up to date (31 files)\n")
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
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A link among the environments of `--all` is not an environment whose
/// values are gone: what it points at is never touched.
#[test]
fn a_linked_folder_is_no_stale_environment() {
    let dir = temp("linked");
    let elsewhere = temp("linked-elsewhere");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(elsewhere.join("release")).unwrap();
    let kustomization = elsewhere.join("release/kustomization.yaml");
    let mine = "# Generated by chartgen; do not edit: change the values and render again.\nresources:\n  - x.yaml\n";
    std::fs::write(&kustomization, mine).unwrap();
    std::os::unix::fs::symlink(&elsewhere, dir.join("linked")).unwrap();
    let run = chartgen(&["render", "--all", "--output-dir", dir.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&kustomization).unwrap(), mine);
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&elsewhere).unwrap();
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
        let run = chartgen(&["render", flag]);
        assert_eq!(run.code, 2, "{flag}");
        assert!(run.stderr.contains("--output-dir <DIR>"), "{}", run.stderr);
    }
}
