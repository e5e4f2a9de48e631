//! Patching the output with a kustomize overlay over `out/<env>/release`,
//! then `check` on the result (docs/patching.md), as a user runs it:
//! `kubectl kustomize overlays/prod | chartgen check -`.
//!
//! kubectl is on PATH with the control plane's environment
//! (`source target/control-plane/env`); without it these tests say so in
//! one line and pass, unless `CHARTGEN_REQUIRE_SERVER` is set (`.ci/run`
//! sets it), when they fail. A real tool: they run under `CHARTGEN_SLOW=1`.

use std::path::Path;
use std::process::Command;

use crate::harness::{chartgen, chartgen_with_stdin};

/// Whether kubectl runs; `false` (after a line on stderr) when it does
/// not and it is not required.
fn kubectl_present(test: &str) -> bool {
    if !crate::tools::slow("kubectl kustomize") {
        return false;
    }
    let runs = Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !runs {
        assert!(
            std::env::var_os("CHARTGEN_REQUIRE_SERVER").is_none(),
            "{test}: CHARTGEN_REQUIRE_SERVER is set but kubectl does not run: source target/control-plane/env"
        );
        eprintln!(
            "skipped {test}: no kubectl on PATH (scripts/control-plane/cluster up, then source target/control-plane/env)"
        );
    }
    runs
}

/// Renders every environment into `DIR/out`, writes an overlay over
/// `out/ovh-prod/release` with `patch` (a JSON 6902 patch of `target`)
/// into `DIR/overlays/prod`, and returns what `kubectl kustomize` makes
/// of it.
fn kustomized(dir: &Path, target: &str, patch: &str) -> String {
    let out = dir.join("out");
    let run = chartgen(&[
        "render",
        "--all",
        "values",
        "--output-dir",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let overlay = dir.join("overlays/prod");
    std::fs::create_dir_all(&overlay).unwrap();
    let patch: String = patch.lines().map(|l| format!("      {l}\n")).collect();
    std::fs::write(
        overlay.join("kustomization.yaml"),
        format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../../out/ovh-prod/release\npatches:\n  - target: {target}\n    patch: |-\n{patch}"
        ),
    )
    .unwrap();
    let built = crate::harness::stdout_of(
        Command::new("kubectl").arg("kustomize").arg(&overlay),
        "kubectl kustomize",
    );
    String::from_utf8(built).unwrap()
}

#[test]
fn an_overlay_that_patches_a_replica_count_passes_check() {
    if !kubectl_present("an_overlay_that_patches_a_replica_count_passes_check") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let stream = kustomized(
        dir.path(),
        "{kind: Deployment, name: buildkit-gateway}",
        "- op: replace\n  path: /spec/replicas\n  value: 5",
    );
    assert!(stream.contains("\n  replicas: 5\n"), "{stream}");
    let run = chartgen_with_stdin(&["check", "-"], Some(&stream));
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.ends_with("no findings\n"), "{}", run.stdout);
}

#[test]
fn an_overlay_that_makes_buildd_privileged_is_refused_with_t3() {
    if !kubectl_present("an_overlay_that_makes_buildd_privileged_is_refused_with_t3") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let stream = kustomized(
        dir.path(),
        "{kind: Deployment, name: buildkit-buildd}",
        "- op: add\n  path: /spec/template/spec/containers/0/securityContext/privileged\n  value: true",
    );
    let run = chartgen_with_stdin(&["check", "-"], Some(&stream));
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with(
            "T3 Deployment buildkit-operator/buildkit-buildd spec.template.spec.containers[0].securityContext.privileged: Pod Security control \"Privileged Containers\""
        ),
        "{}",
        run.stdout
    );
}
