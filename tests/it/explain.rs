//! `chartgen explain`: the template line and the values (with who set
//! them) behind a rendered field, run as a user runs it.

use crate::harness::{chartgen, root};

const PROD: [&str; 4] = ["-f", "values/common.yaml", "-f", "values/ovh-prod.yaml"];
const BUILDD_IMAGE: &str =
    "Deployment/buildkit-operator/buildkit-buildd.spec.template.spec.containers[buildd].image";

/// The 1-based line of `file` (from the repository root) that contains
/// `text`, so the tests follow edits of the values and templates.
fn line_of(file: &str, text: &str) -> usize {
    let source = std::fs::read_to_string(root().join(file)).unwrap();
    1 + source
        .lines()
        .position(|l| l.contains(text))
        .unwrap_or_else(|| panic!("`{text}` is not in {file}"))
}

/// `explain --output json ARGS`, parsed, exiting 0.
fn explain_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["explain", "--output", "json"];
    all.extend(args);
    let run = chartgen(&all);
    assert_eq!(run.code, 0, "{}", run.transcript());
    serde_json::from_str(&run.stdout).unwrap()
}

/// Each values source as `path origin`, origin as `file:line:col`,
/// the argument, or `default`.
fn sources(json: &serde_json::Value) -> Vec<String> {
    json["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let o = &s["origin"];
            let origin = match o["kind"].as_str().unwrap() {
                "file" => format!(
                    "{}:{}:{}",
                    o["file"].as_str().unwrap(),
                    o["line"],
                    o["column"]
                ),
                "argument" => o["argument"].as_str().unwrap().to_owned(),
                kind => kind.to_owned(),
            };
            format!("{} {origin}", s["path"].as_str().unwrap())
        })
        .collect()
}

#[test]
fn the_image_of_buildd_in_prod_names_its_values_files_and_lines() {
    let mut args = PROD.to_vec();
    args.push(BUILDD_IMAGE);
    let json = explain_json(&args);
    let prod = "values/ovh-prod.yaml";
    let repository = line_of(
        prod,
        "repository: registry.example.com/buildkit-operator/buildd",
    );
    let digest = line_of(prod, "digest: sha256:3f1c");
    assert_eq!(
        sources(&json),
        [
            format!("images.buildd.repository {prod}:{repository}:17"),
            format!("images.buildd.tag {prod}:{}:10", repository + 1),
            format!("images.buildd.digest {prod}:{digest}:13"),
        ]
    );
    assert_eq!(json["template"]["file"], "templates/buildd.yaml");
    assert_eq!(
        json["template"]["line"],
        line_of("templates/buildd.yaml", "image: {{ w.image }}")
    );
    assert_eq!(json["field"], "spec.template.spec.containers[buildd].image");
    let value = json["value"].as_str().unwrap();
    assert!(value.starts_with("registry.example.com/buildkit-operator/buildd:0.4.0@sha256:"));
    assert_eq!(json["literal"], false);
    // The same, for a reader.
    args.insert(0, "explain");
    let text = chartgen(&args).stdout;
    assert!(
        text.contains(&format!(
            "images.buildd.tag: \"0.4.0\"  ({prod}:{}:10)",
            repository + 1
        )),
        "{text}"
    );
}

#[test]
fn a_set_override_names_the_argument() {
    let mut args = vec!["explain"];
    args.extend(PROD);
    args.extend([
        "--set",
        "buildd.replicas=5",
        "Deployment/buildkit-buildd.spec.replicas",
    ]);
    let run = chartgen(&args);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(run.stdout.contains("value: 5\n"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("buildd.replicas: 5  (--set buildd.replicas=5)"),
        "{}",
        run.stdout
    );
    let json = explain_json(&[
        "--set-string",
        "commonLabels.team=0123",
        "Deployment/buildkit-buildd.metadata.labels.team",
    ]);
    assert_eq!(
        sources(&json),
        ["commonLabels.team --set-string commonLabels.team=0123"]
    );
}

#[test]
fn a_default_names_default() {
    let json = explain_json(&["Deployment/buildkit-gateway.spec.replicas"]);
    assert_eq!(sources(&json), ["gateway.replicas default"]);
    let run = chartgen(&["explain", "Deployment/buildkit-gateway.spec.replicas"]);
    assert!(run.stdout.contains("(built-in default)"), "{}", run.stdout);
}

#[test]
fn a_template_literal_names_only_the_template_line() {
    let json = explain_json(&["Deployment/buildkit-buildd.spec.revisionHistoryLimit"]);
    assert_eq!(json["literal"], true);
    assert_eq!(json["values"], serde_json::json!([]));
    assert_eq!(
        json["template"]["line"],
        line_of("templates/buildd.yaml", "revisionHistoryLimit:")
    );
    let run = chartgen(&[
        "explain",
        "Deployment/buildkit-buildd.spec.revisionHistoryLimit",
    ]);
    assert!(
        run.stdout.contains("(written in the template: no values)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("values: none"), "{}", run.stdout);
}

#[test]
fn a_constant_of_the_chart_names_no_values() {
    let run = chartgen(&[
        "explain",
        r#"Namespace/buildkit-builds.metadata.labels."pod-security.kubernetes.io/enforce""#,
    ]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout.contains("values: none (fixed by the chart)\n"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("written in the template"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_name_written_by_a_macro_names_the_release_name_and_the_call() {
    let mut args = PROD.to_vec();
    args.push("ServiceAccount/buildkit-operator/buildkit-buildd.metadata.name");
    let json = explain_json(&args);
    assert_eq!(sources(&json), ["releaseName values/common.yaml:7:14"]);
    assert_eq!(json["inMacro"], true);
    let mut args = PROD.to_vec();
    args.push(
        r#"Deployment/buildkit-buildd.spec.template.metadata.labels."app.kubernetes.io/version""#,
    );
    let json = explain_json(&args);
    let tag = line_of(
        "values/ovh-prod.yaml",
        "repository: registry.example.com/buildkit-operator/buildd",
    ) + 1;
    assert_eq!(
        sources(&json),
        [format!("images.buildd.tag values/ovh-prod.yaml:{tag}:10")]
    );
}

#[test]
fn an_object_without_a_field_names_its_template_and_values() {
    let mut args = vec!["explain"];
    args.extend(PROD);
    args.push("BuildProject/community-plugins");
    let run = chartgen(&args);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout.starts_with(
            "BuildProject buildkit-builds/community-plugins\n  template: templates/projects.yaml:"
        ),
        "{}",
        run.stdout
    );
    for key in [
        "projects[2].name",
        "projects[2].trusted",
        "kata.runtimeClass.name",
        "builds.daemonResources.requests.cpu",
    ] {
        assert!(
            run.stdout.contains(&format!("    {key}: ")),
            "{key}: {}",
            run.stdout
        );
    }
}

#[test]
fn a_field_that_does_not_exist_names_the_closest() {
    let run = chartgen(&["explain", "Deployment/buildkit-buildd.spec.replicaz"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: `spec` has no field `replicaz`; did you mean `replicas`?\n"
    );
    let run = chartgen(&[
        "explain",
        "Deployment/buildkit-buildd.spec.template.spec.containers[buildx].image",
    ]);
    run.assert_refused(2, "has no field `buildx`; did you mean `buildd`?");
    let run = chartgen(&["explain", "Deployment/buildkit-buildd.spec.replicas.deeper"]);
    run.assert_refused(2, "(integer has no fields)");
}

#[test]
fn an_object_that_does_not_exist_names_the_closest() {
    let run = chartgen(&["explain", "Deployment/buildkit-buildx.spec.replicas"]);
    run.assert_refused(2, "did you mean `Deployment/buildkit-buildd`?");
    assert_eq!(run.stdout, "");
    let run = chartgen(&["explain", "buildkit-operator/Deployment/buildkit-gatewy"]);
    run.assert_refused(
        2,
        "did you mean `buildkit-operator/Deployment/buildkit-gateway`?",
    );
}

#[test]
fn a_hostile_argument_is_escaped_and_limited() {
    let huge = format!("Deployment/buildkit-buildd.{}", "a.".repeat(50_000));
    let run = chartgen(&["explain", &huge]);
    run.assert_refused(2, "is longer than 2048 bytes");
    assert!(run.stderr.len() < 600, "{}", run.stderr.len());
    for hostile in [
        "Deployment/buildkit-buildd.spec.\u{1b}]0;owned\u{7}",
        "Deployment/buildkit-buildd.spec.\u{202e}dlrow",
        "Deployment/buildkit\u{1b}[2J-buildd.spec",
    ] {
        let run = chartgen(&["explain", hostile]);
        run.assert_refused(2, "\\u{");
        assert!(
            !run.stderr
                .chars()
                .any(|c| c.is_control() && c != '\n' || c == '\u{202e}'),
            "{:?}",
            run.stderr
        );
    }
}

#[test]
fn a_set_file_text_is_never_printed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("note.txt");
    std::fs::write(&file, "s3cr3t-t0ken-v4lue").unwrap();
    let set = format!("commonAnnotations.note={}", file.display());
    let args = [
        "explain",
        "--set-file",
        &set,
        "Deployment/buildkit-buildd.metadata.annotations.note",
    ];
    let run = chartgen(&args);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout.contains(&format!("(--set-file {set})")),
        "{}",
        run.stdout
    );
    // Neither the key's value nor the field built from it.
    assert!(!run.stdout.contains("s3cr3t"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("value: (not shown: it holds the text of a --set-file file)"),
        "{}",
        run.stdout
    );
    let mut json = args.to_vec();
    json.insert(1, "--output");
    json.insert(2, "json");
    let run = chartgen(&json);
    assert!(!run.stdout.contains("s3cr3t"), "{}", run.stdout);
    let parsed: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(parsed["values"][0]["value"], serde_json::Value::Null);
    assert_eq!(parsed["value"], serde_json::Value::Null);
}

#[test]
fn values_with_terminal_escapes_are_printed_escaped() {
    let set = r#"commonAnnotations.x="\u001b]0;owned\u0007\u202e""#;
    for output in ["text", "json"] {
        let run = chartgen(&[
            "explain",
            "--output",
            output,
            "--set-json",
            set,
            "Deployment/buildkit-buildd.metadata.annotations.x",
        ]);
        assert_eq!(run.code, 0, "{}", run.transcript());
        assert!(
            !run.stdout
                .chars()
                .any(|c| c.is_control() && c != '\n' || c == '\u{202e}'),
            "{:?}",
            run.stdout
        );
        assert!(run.stdout.contains("commonAnnotations.x"), "{}", run.stdout);
    }
}

/// A workload's pod settings name their own key: a toleration, a pod
/// label, a node selector key beside Kata's (the chart's own, no values),
/// and the daemons' pod template (all of `builds.daemon`).
#[test]
fn pod_settings_name_their_own_keys() {
    let fixture = "tests/fixtures/render/pod-settings.yaml";
    let at = |text: &str, column: usize| format!("{fixture}:{}:{column}", line_of(fixture, text));
    let json = explain_json(&[
        "-f",
        fixture,
        "Deployment/buildkit-buildd.spec.template.spec.tolerations[0].key",
    ]);
    assert_eq!(
        sources(&json),
        [format!(
            "buildd.tolerations[0].key {}",
            at("key: dedicated", 13)
        )]
    );
    let json = explain_json(&[
        "-f",
        fixture,
        "Deployment/buildkit-buildd.spec.template.metadata.labels.\"example.com/team\"",
    ]);
    assert_eq!(
        sources(&json),
        [format!(
            "buildd.podLabels.\"example.com/team\" {}",
            at("example.com/team", 33)
        )]
    );
    let json = explain_json(&[
        "-f",
        fixture,
        "DaemonSet/buildkit-kata-clh-vcpu-tune.spec.template.spec.nodeSelector",
    ]);
    let vcpu = line_of(fixture, "vcpuTuning:");
    let node_pool = format!("{fixture}:{}:31", vcpu + 2);
    assert_eq!(
        sources(&json),
        [format!(
            "kata.vcpuTuning.nodeSelector.node-pool {node_pool}"
        )]
    );
    let json = explain_json(&[
        "-f",
        fixture,
        "ConfigMap/buildkit-daemon-pod-template.data.\"pod-template.yaml\"",
    ]);
    let daemon = format!("{fixture}:{}:5", line_of(fixture, "  daemon:") + 1);
    assert_eq!(sources(&json), [format!("builds.daemon {daemon}")]);
}
