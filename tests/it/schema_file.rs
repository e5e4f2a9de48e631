//! The committed schema is the one the code generates (issue 2, requirement 3).

use crate::harness::{chartgen, root};

#[test]
fn committed_schema_is_fresh() {
    let committed = std::fs::read_to_string(root().join("schema/values.schema.json"))
        .expect("schema/values.schema.json exists");
    let generated = chartgen::schema::values_schema_text();
    assert!(
        committed == generated,
        "schema/values.schema.json is stale; regenerate it with\n  cargo run -q -- schema > schema/values.schema.json"
    );
}

#[test]
fn schema_command_prints_the_committed_schema() {
    let run = chartgen(&["schema"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(run.stdout, chartgen::schema::values_schema_text());
}

#[test]
fn every_values_file_points_editors_at_the_schema() {
    for entry in std::fs::read_dir(root().join("values")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("# yaml-language-server: $schema=../schema/values.schema.json\n"),
            "{} lacks the schema line",
            path.display()
        );
    }
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
