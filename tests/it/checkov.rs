//! Issue 23, "Done when": checkov on the production render (both bundles)
//! fails no check but those `docs/checkov.md` explains, on the objects it
//! names, and each of those still fails: the page is the list.
//!
//! checkov is installed by `.ci/run` into `target/tools/checkov-venv`
//! (pinned as [`VERSION`]); without it the test prints a skip line, unless
//! `CHARTGEN_REQUIRE_CHECKOV` is set (as `.ci/run` sets it).
//! `CHARTGEN_CHECKOV_PRINT=1` prints the table rows of the current
//! failures, to refresh the page (docs/checkov.md, "Refreshing the table").

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Stdio};

use serde_json::Value as Json;

use crate::harness::root;

/// The checkov version `.ci/run` installs.
const VERSION: &str = "3.2.500";

/// The render checkov scans: both bundles of production.
const RENDER: &str = "out/ovh-prod";

/// The page that lists the accepted failures.
const PAGE: &str = "docs/checkov.md";

/// The checkov of `target/tools/checkov-venv`, if it runs as [`VERSION`].
fn checkov() -> Option<Command> {
    if !crate::tools::slow("checkov") {
        return None;
    }
    let binary = root().join("target/tools/checkov-venv/bin/checkov");
    let version = Command::new(&binary)
        .arg("--version")
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    match version {
        Some(version) if version == VERSION => {
            let mut command = Command::new(binary);
            command.current_dir(root());
            Some(command)
        }
        found => {
            let why = match found {
                Some(other) => format!("checkov {other} is installed, the test pins {VERSION}"),
                None => "checkov is not installed".to_owned(),
            };
            assert!(
                std::env::var_os("CHARTGEN_REQUIRE_CHECKOV").is_none(),
                "{why}: .ci/run's checkov step installs it into target/tools/checkov-venv"
            );
            eprintln!(
                "skipped checkov: {why} (.ci/run installs it into target/tools/checkov-venv)"
            );
            None
        }
    }
}

/// The accepted failures of `docs/checkov.md`: check id → (objects, reason).
fn accepted(page: &str) -> BTreeMap<String, (BTreeSet<String>, String)> {
    let mut rows = BTreeMap::new();
    for line in page.lines().filter(|l| l.starts_with("| `CKV")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(cells.len(), 3, "{PAGE}: a row has three cells: {line}");
        let id = cells[0].trim_matches('`').to_owned();
        let objects = cells[1]
            .split(", ")
            .map(|o| o.trim_matches('`').to_owned())
            .collect();
        let reason = cells[2].to_owned();
        assert!(!reason.is_empty(), "{PAGE}: {id} has no reason");
        assert!(
            rows.insert(id.clone(), (objects, reason)).is_none(),
            "{PAGE}: {id} has two rows"
        );
    }
    rows
}

/// checkov's failed checks on `RENDER`, as check id → objects, and the
/// bundles (`release`, `kata`) it read objects of.
fn failures(mut checkov: Command) -> (BTreeMap<String, BTreeSet<String>>, BTreeSet<String>) {
    let output = checkov
        .args(["--directory", RENDER, "--framework", "kubernetes"])
        .args(["--output", "json", "--compact", "--skip-download"])
        .output()
        .expect("checkov runs");
    // checkov exits 1 when a check fails; the JSON says which.
    let report: Json = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "checkov printed no JSON report ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let results = &report["results"];
    assert_eq!(
        results["parsing_errors"].as_array().map(Vec::len),
        Some(0),
        "checkov could not read some files: {}",
        results["parsing_errors"]
    );
    let mut failed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut bundles = BTreeSet::new();
    for (list, is_failure) in [("passed_checks", false), ("failed_checks", true)] {
        for check in results[list].as_array().into_iter().flatten() {
            let path = check["file_path"].as_str().unwrap_or_default();
            for bundle in ["release", "kata"] {
                if path.contains(&format!("/{bundle}/")) {
                    bundles.insert(bundle.to_owned());
                }
            }
            if is_failure {
                failed
                    .entry(check["check_id"].as_str().unwrap().to_owned())
                    .or_default()
                    .insert(check["resource"].as_str().unwrap().to_owned());
            }
        }
    }
    (failed, bundles)
}

/// The table rows of `failed`, with the reasons of `accepted` where known.
fn rows(
    failed: &BTreeMap<String, BTreeSet<String>>,
    accepted: &BTreeMap<String, (BTreeSet<String>, String)>,
) -> String {
    failed
        .iter()
        .map(|(id, objects)| {
            let objects: Vec<String> = objects.iter().map(|o| format!("`{o}`")).collect();
            let reason = accepted.get(id).map_or("(why?)", |(_, r)| r.as_str());
            format!("| `{id}` | {} | {reason} |\n", objects.join(", "))
        })
        .collect()
}

#[test]
fn checkov_fails_only_the_checks_docs_checkov_md_explains() {
    let Some(checkov) = checkov() else {
        return;
    };
    let page = std::fs::read_to_string(root().join(PAGE)).unwrap();
    let accepted = accepted(&page);
    let (failed, bundles) = failures(checkov);
    if std::env::var_os("CHARTGEN_CHECKOV_PRINT").is_some() {
        println!("{}", rows(&failed, &accepted));
    }
    assert_eq!(
        bundles,
        BTreeSet::from(["kata".to_owned(), "release".to_owned()]),
        "checkov read both bundles of {RENDER}"
    );
    let mut unexplained = Vec::new();
    for (id, objects) in &failed {
        let known = accepted.get(id).map(|(o, _)| o);
        for object in objects {
            if !known.is_some_and(|k| k.contains(object)) {
                unexplained.push(format!("{id} on {object}"));
            }
        }
    }
    let mut stale = Vec::new();
    for (id, (objects, _)) in &accepted {
        for object in objects {
            if !failed.get(id).is_some_and(|f| f.contains(object)) {
                stale.push(format!("{id} on {object}"));
            }
        }
    }
    assert!(
        unexplained.is_empty() && stale.is_empty(),
        "checkov on {RENDER} and {PAGE} disagree.\nfailed, not explained: {unexplained:#?}\nexplained, no longer failing: {stale:#?}\nthe rows of the current failures (CHARTGEN_CHECKOV_PRINT=1 prints them):\n{}",
        rows(&failed, &accepted)
    );
}

#[test]
fn the_accepted_list_is_read_from_its_table() {
    let page = "| Check | Objects | Why |\n|---|---|---|\n| `CKV_K8S_1` | `Pod.a.b`, `Pod.a.c` | one |\n| `CKV_K8S_2` | `Pod.a.b` | two |\n";
    let table = accepted(page);
    assert_eq!(table.len(), 2);
    assert_eq!(
        table["CKV_K8S_1"].0,
        BTreeSet::from(["Pod.a.b".to_owned(), "Pod.a.c".to_owned()])
    );
    assert_eq!(table["CKV_K8S_2"].1, "two");
    let mut failed = BTreeMap::new();
    failed.insert(
        "CKV_K8S_2".to_owned(),
        BTreeSet::from(["Pod.a.b".to_owned()]),
    );
    failed.insert(
        "CKV_K8S_3".to_owned(),
        BTreeSet::from(["Pod.a.d".to_owned()]),
    );
    assert_eq!(
        rows(&failed, &table),
        "| `CKV_K8S_2` | `Pod.a.b` | two |\n| `CKV_K8S_3` | `Pod.a.d` | (why?) |\n"
    );
}
