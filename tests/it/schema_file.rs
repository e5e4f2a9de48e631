//! The committed schema is the one the code generates (issue 2, requirement 3).

use crate::harness::{chartgen, root};

#[test]
fn committed_schema_is_fresh() {
    let committed = std::fs::read_to_string(root().join("schema/values.schema.json"))
        .expect("schema/values.schema.json exists");
    let generated = chart::schema::values_schema_text();
    assert!(
        committed == generated,
        "schema/values.schema.json is stale; regenerate it with\n  cargo run -q -- schema > schema/values.schema.json"
    );
}

#[test]
fn schema_command_prints_the_committed_schema() {
    let run = chartgen(&["schema"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(run.stdout, chart::schema::values_schema_text());
}

/// Issue 12: the files of `values/` point editors at the overlay schema,
/// by a path that resolves from the file's own folder.
#[test]
fn every_values_file_points_editors_at_the_overlay_schema() {
    let mut seen = 0;
    for entry in std::fs::read_dir(root().join("values")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let first = text.lines().next().unwrap_or("");
        let target = first
            .strip_prefix("# yaml-language-server: $schema=")
            .unwrap_or_else(|| panic!("{} lacks the schema line", path.display()));
        let resolved = path.parent().unwrap().join(target);
        assert_eq!(
            resolved.canonicalize().unwrap(),
            root()
                .join("schema/values.overlay.schema.json")
                .canonicalize()
                .unwrap(),
            "{}",
            path.display()
        );
        seen += 1;
    }
    assert!(seen >= 3, "common, dev and ovh-prod");
}

#[test]
fn committed_overlay_schema_is_fresh() {
    let committed = std::fs::read_to_string(root().join("schema/values.overlay.schema.json"))
        .expect("schema/values.overlay.schema.json exists");
    assert!(
        committed == chart::schema_overlay::overlay_schema_text(),
        "schema/values.overlay.schema.json is stale; regenerate it with\n  cargo run -q -- schema overlay > schema/values.overlay.schema.json"
    );
    let run = chartgen(&["schema", "overlay"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(run.stdout, committed);
}

fn validator(file: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

/// Issue 12: a values file that sets only one tag is a complete layer: the
/// overlay schema takes it where the strict schema of the merged values
/// demands the repository too; a typo, a wrong type, or a project written
/// without its repository (a list item is written whole) still fail.
#[test]
fn an_overlay_with_only_a_tag_fits_the_overlay_schema_and_a_typo_does_not() {
    let overlay = validator("schema/values.overlay.schema.json");
    let strict = validator("schema/values.schema.json");
    let tag = serde_json::json!({"images": {"buildd": {"tag": "1.10"}}});
    assert!(overlay.is_valid(&tag));
    assert!(
        !strict.is_valid(&tag),
        "the strict schema demands repository"
    );
    for wrong in [
        serde_json::json!({"images": {"buildd": {"tga": "1.10"}}}),
        serde_json::json!({"imgaes": {"buildd": {"tag": "1.10"}}}),
        serde_json::json!({"buildd": {"replicas": "two"}}),
        serde_json::json!({"images": {"buildd": {"digest": "sha256:short"}}}),
        serde_json::json!({"buildd": {"logLevel": "loud"}}),
        serde_json::json!({"projects": [{"name": "app"}]}),
    ] {
        assert!(!overlay.is_valid(&wrong), "{wrong}");
    }
    let project =
        serde_json::json!({"projects": [{"name": "app", "repository": "https://x/app.git"}]});
    assert!(overlay.is_valid(&project));
    // An empty or comments-only file (its document null) changes nothing,
    // and chartgen takes it: so does an editor; a list or a scalar is no
    // layer.
    assert!(overlay.is_valid(&serde_json::Value::Null));
    assert!(!strict.is_valid(&serde_json::Value::Null));
    for wrong in [serde_json::json!([]), serde_json::json!("tag")] {
        assert!(!overlay.is_valid(&wrong), "{wrong}");
    }
}

/// Every committed values file fits the overlay schema.
#[test]
fn every_values_file_fits_the_overlay_schema() {
    use kubernetes::location::Source;
    use kubernetes::yaml;
    let overlay = validator("schema/values.overlay.schema.json");
    for entry in std::fs::read_dir(root().join("values")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let nodes =
            yaml::parse_stream(&Source::file("values", &text), kubernetes::manifest::LIMITS)
                .unwrap();
        let errors: Vec<String> = overlay
            .iter_errors(&nodes[0].to_json())
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
    }
}

/// The rules' reference is made from the rule files (`docs checks`): a
/// rule added, removed or reworded without it fails here, not only in
/// `.ci/run`.
#[test]
fn committed_checks_reference_is_fresh() {
    let committed =
        std::fs::read_to_string(root().join("docs/checks.md")).expect("docs/checks.md exists");
    let run = chartgen(&["docs", "checks"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        committed == run.stdout,
        "docs/checks.md is stale; regenerate it with\n  cargo run -q -- docs checks > docs/checks.md"
    );
}

#[test]
fn committed_values_reference_is_fresh() {
    let committed =
        std::fs::read_to_string(root().join("docs/values.md")).expect("docs/values.md exists");
    let run = chartgen(&["docs"]);
    assert_eq!(run.code, 0);
    assert!(
        committed == run.stdout,
        "docs/values.md is stale; regenerate it with\n  cargo run -q -- docs > docs/values.md"
    );
    // Every leaf key of the defaults is documented.
    for key in [
        "buildd.replicas",
        "builds.tls.issuerRef.kind",
        "kata.vcpuTuning.defaultVcpus",
        "projects[].trusted",
    ] {
        assert!(
            committed.contains(&format!("| `{key}` |")),
            "{key} is missing"
        );
    }
}
