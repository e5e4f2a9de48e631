//! Issue 13: the outputs machines read. `check --output sarif` is valid
//! SARIF 2.1.0 (the OASIS schema, from a pinned npm package installed into
//! `target/tools/sarif` as `.ci/run` does; never committed; without npm or
//! its registry the validation is skipped with a line, or fails under
//! CHARTGEN_REQUIRE_SARIF_SCHEMA) and says each
//! finding's rule, file and line; the `--output json` of `check`, `rbac`,
//! `diff` and `validate` carries `schemaVersion` and is valid against the
//! committed schemas in `schema/output/`, whose objects are closed.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::LazyLock;

use serde_json::Value as Json;

use crate::harness::{Run, chartgen, chartgen_with_stdin, relative, root};

/// The npm package the SARIF schema ships in, pinned as `.ci/run` pins it.
const PACKAGE: &str = "@microsoft/sarif-multitool-linux@5.7.0";
const TARBALL: &str = "microsoft-sarif-multitool-linux-5.7.0.tgz";
const MEMBER: &str = "package/sarif-2.1.0.json";

const VIOLATIONS: &str = "tests/fixtures/check/helm-violations/manifests.yaml";

/// The SARIF 2.1.0 schema: installed into `target/tools/sarif` (once, from
/// npm, as `.ci/run` does) when absent; `Err` says why it cannot be.
fn sarif_schema() -> Result<Json, String> {
    let tools = root().join("target/tools/sarif");
    let schema = tools.join("sarif-2.1.0.json");
    if !schema.is_file() {
        std::fs::create_dir_all(&tools).unwrap();
        // The package unpacked in a scratch folder beside the tools (the
        // schema is renamed out of it), removed when done, a failed step or
        // a panic too.
        let scratch = tempfile::Builder::new()
            .prefix("sarif-package-")
            .tempdir_in(root().join("target/tools"))
            .unwrap();
        let package = scratch.path();
        let installed = crate::tools::step(
            Command::new("npm")
                .args(["pack", "--silent", PACKAGE])
                .current_dir(package),
        )
        .and_then(|()| {
            crate::tools::step(
                Command::new("tar")
                    .args(["xzf", TARBALL, MEMBER])
                    .current_dir(package),
            )
        });
        if installed.is_ok() {
            std::fs::rename(package.join(MEMBER), &schema).unwrap();
        }
        drop(scratch);
        installed?;
    }
    Ok(serde_json::from_str(&std::fs::read_to_string(&schema).unwrap()).unwrap())
}

/// The SARIF schema's validator, formats (URIs) checked too; `Err` when
/// the schema cannot be installed.
static SARIF: LazyLock<Result<jsonschema::Validator, String>> = LazyLock::new(|| {
    let schema = sarif_schema()?;
    assert!(
        schema["title"]
            .as_str()
            .unwrap()
            .contains("SARIF) Version 2.1.0"),
        "{}",
        schema["title"]
    );
    Ok(jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap())
});

/// Fails when `document` is not valid SARIF 2.1.0; without the schema (no
/// npm, no registry) says the validation was skipped, or fails under
/// CHARTGEN_REQUIRE_SARIF_SCHEMA.
fn assert_sarif(document: &Json, what: &str) {
    match &*SARIF {
        Ok(validator) => assert_valid(validator, document, what),
        Err(why) => crate::tools::unavailable(
            "CHARTGEN_REQUIRE_SARIF_SCHEMA",
            &format!(
                "validating the SARIF logs (first: {what}) against the SARIF 2.1.0 schema (npm {PACKAGE})"
            ),
            why,
        ),
    }
}

/// The validator of the committed schema of `command`'s JSON output.
fn contract(command: &str) -> jsonschema::Validator {
    let path = root().join(format!("schema/output/{command}.schema.json"));
    let schema: Json = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

/// Fails with every error when `document` is not valid.
fn assert_valid(validator: &jsonschema::Validator, document: &Json, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(document)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .take(10)
        .collect();
    assert!(errors.is_empty(), "{what}:\n{}", errors.join("\n"));
}

fn parsed(run: &Run) -> Json {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.transcript()))
}

/// Every string in `value`, decoded, with its JSON pointer.
fn strings(value: &Json, at: String, out: &mut Vec<(String, String)>) {
    match value {
        Json::String(text) => out.push((at, text.clone())),
        Json::Array(items) => {
            (items.iter().enumerate()).for_each(|(i, item)| strings(item, format!("{at}/{i}"), out))
        }
        Json::Object(map) => (map.iter()).for_each(|(k, v)| strings(v, format!("{at}/{k}"), out)),
        _ => {}
    }
}

/// What a viewer must never show raw: controls, bidi and invisible marks.
fn dangerous(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

#[test]
fn sarif_names_each_findings_rule_file_and_line() {
    let sarif = chartgen(&["check", "--output", "sarif", VIOLATIONS]);
    assert_eq!((sarif.code, sarif.stderr.as_str()), (1, ""));
    let log = parsed(&sarif);
    assert_sarif(&log, "check --output sarif");
    let report = parsed(&chartgen(&["check", "--output", "json", VIOLATIONS]));
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let expected: Vec<&str> = chart::check::rules::RULES.iter().map(|r| r.id).collect();
    assert_eq!(ids, expected);
    for (rule, source) in rules.iter().zip(chart::check::rules::RULES) {
        assert_eq!(rule["shortDescription"]["text"], source.title);
        assert!(rule["help"]["text"].as_str().unwrap().contains(source.help));
        assert!(
            rule["help"]["markdown"]
                .as_str()
                .unwrap()
                .contains(source.example)
        );
        assert!(
            rule.get("helpUri").is_none(),
            "a relative link is no helpUri"
        );
    }
    let results = run["results"].as_array().unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(results.len(), findings.len());
    assert!(results.len() >= 8, "{}", sarif.stdout);
    for (result, finding) in results.iter().zip(findings) {
        assert_eq!(result["ruleId"], finding["invariant"]);
        assert_eq!(
            rules[result["ruleIndex"].as_u64().unwrap() as usize]["id"],
            result["ruleId"]
        );
        assert_eq!(result["level"], "error");
        let message = result["message"]["text"].as_str().unwrap();
        assert!(
            message.ends_with(finding["message"].as_str().unwrap()),
            "{message}"
        );
        let physical = &result["locations"][0]["physicalLocation"];
        assert_eq!(physical["artifactLocation"]["uri"], VIOLATIONS);
        assert_eq!(physical["artifactLocation"]["uriBaseId"], "SRCROOT");
        let line = finding["location"]
            .as_str()
            .unwrap()
            .rsplit(':')
            .next()
            .unwrap();
        assert_eq!(physical["region"]["startLine"].to_string(), line);
        assert!(physical["region"]["startColumn"].as_u64().unwrap() >= 1);
    }
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    if let Ok(validator) = &*SARIF {
        assert!(
            !validator.is_valid(&broken),
            "the SARIF schema refuses an unknown level"
        );
    }
    let base = run["originalUriBaseIds"]["SRCROOT"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        base.starts_with("file:///") && base.ends_with('/'),
        "{base}"
    );
}

#[test]
fn sarif_of_a_clean_render_and_of_stdin() {
    let clean = chartgen(&["check", "--output", "sarif", "out/ovh-prod"]);
    assert_eq!((clean.code, clean.stderr.as_str()), (0, ""));
    let log = parsed(&clean);
    assert_sarif(&log, "check --output sarif out/ovh-prod");
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
    // Notes are the invocation's notifications, never results.
    let notes = parsed(&chartgen(&[
        "check",
        "--output",
        "json",
        "out/ovh-prod/release",
    ]));
    let log = parsed(&chartgen(&[
        "check",
        "--output",
        "sarif",
        "out/ovh-prod/release",
    ]));
    assert_sarif(&log, "check --output sarif out/ovh-prod/release");
    let notifications = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert!(
        !notes["info"].as_array().unwrap().is_empty(),
        "the release alone shows notes"
    );
    assert_eq!(
        notifications.as_array().unwrap().len(),
        notes["info"].as_array().unwrap().len()
    );
    assert_eq!(notifications[0]["level"], "note");
    // A stream and a git revision have no file of the working tree:
    // logical locations only, and where they were read.
    let stream = std::fs::read_to_string(root().join(VIOLATIONS)).unwrap();
    let revision = format!("HEAD:{VIOLATIONS}");
    for (args, input, read_at) in [
        (
            ["check", "--output", "sarif", "-"],
            Some(stream.as_str()),
            "<stdin>",
        ),
        (["check", "--output", "sarif", &revision], None, &revision),
    ] {
        let run = chartgen_with_stdin(&args, input);
        assert_eq!(run.code, 1, "{}", run.transcript());
        let log = parsed(&run);
        assert_sarif(&log, &args.join(" "));
        let results = log["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), 8, "{}", run.stdout);
        for result in results {
            let location = &result["locations"][0];
            assert!(location.get("physicalLocation").is_none(), "{location}");
            let text = location["message"]["text"].as_str().unwrap();
            assert!(text.starts_with(&format!("read at {read_at}:")), "{text}");
            let object = location["logicalLocations"][0]["fullyQualifiedName"]
                .as_str()
                .unwrap();
            let message = result["message"]["text"].as_str().unwrap();
            assert!(message.starts_with(object), "{message}");
        }
    }
}

/// SARIF names the real file: a name with a space, a `%` and a non-ASCII
/// letter is its UTF-8 bytes percent-encoded (RFC 3986), and a name with
/// a control character and a byte that is not UTF-8 (which messages show
/// escaped) its bytes too, not the escaped text; relative to SRCROOT, the
/// directory chartgen ran in. Decoding each URI gives back the file.
#[test]
fn sarif_uri_is_the_real_file_percent_encoded() {
    use std::os::unix::ffi::OsStrExt as _;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("in dir")).unwrap();
    let role = |name: &str| {
        format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: {name}\n  namespace: ns\nrules:\n  - apiGroups: [\"\"]\n    resources: [\"*\"]\n    verbs: [\"*\"]\n"
        )
    };
    let odd = std::ffi::OsStr::from_bytes(b"c\xff\x1b.yaml");
    std::fs::write(
        dir.path().join("in dir").join("a b%25 é.yaml"),
        role("wide"),
    )
    .unwrap();
    std::fs::write(dir.path().join("in dir").join(odd), role("other")).unwrap();
    let output = crate::harness::command(dir.path(), &["check", "--output", "sarif", "in dir"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let log: Json = serde_json::from_slice(&output.stdout).unwrap();
    assert_sarif(
        &log,
        "file names with a space, %, é, a control character and a byte not UTF-8",
    );
    let results = log["runs"][0]["results"].as_array().unwrap();
    let uris: BTreeSet<&str> = results
        .iter()
        .map(|result| {
            let artifact = &result["locations"][0]["physicalLocation"]["artifactLocation"];
            assert_eq!(artifact["uriBaseId"], "SRCROOT", "{artifact}");
            artifact["uri"].as_str().unwrap()
        })
        .collect();
    assert_eq!(
        uris,
        BTreeSet::from(["in%20dir/a%20b%2525%20%C3%A9.yaml", "in%20dir/c%FF%1B.yaml"])
    );
    for uri in uris {
        let bytes: Vec<u8> = percent_encoding::percent_decode_str(uri).collect();
        let path = dir.path().join(std::ffi::OsStr::from_bytes(&bytes));
        assert!(path.is_file(), "{uri}");
    }
    let base = log["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"]
        .as_str()
        .unwrap();
    let base: Vec<u8> =
        percent_encoding::percent_decode_str(base.strip_prefix("file://").unwrap()).collect();
    assert_eq!(
        Path::new(std::ffi::OsStr::from_bytes(&base))
            .canonicalize()
            .unwrap(),
        dir.path().canonicalize().unwrap()
    );
}

/// A hostile object name and file name reach SARIF escaped (a viewer shows
/// no control or bidi character), a URI percent-encoded, and a value that
/// could be a Secret's does not reach it at all.
#[test]
fn sarif_text_stays_safe() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("evil\u{1b}[2J\u{202e}.yaml");
    std::fs::write(
        &file,
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: \"x\\e[2J\\u202Eforged\"\n  namespace: ns\nrules:\n  - apiGroups: [\"\"]\n    resources: [\"*\"]\n    verbs: [\"*\"]\n",
    )
    .unwrap();
    let arg = dir.path().to_str().unwrap();
    let run = chartgen(&["check", "--output", "sarif", arg]);
    assert_eq!(run.code, 1, "{}", run.transcript().escape_debug());
    let log = parsed(&run);
    assert_sarif(&log, "hostile names");
    let mut texts = Vec::new();
    strings(&log["runs"][0]["results"], String::new(), &mut texts);
    strings(&log["runs"][0]["invocations"], String::new(), &mut texts);
    assert!(
        texts
            .iter()
            .any(|(_, t)| t.contains("x\\u{001b}[2J\\u{202e}forged")),
        "{texts:?}"
    );
    for (at, text) in &texts {
        assert!(
            !text.chars().any(dangerous),
            "{at}: {}",
            text.escape_debug()
        );
    }
    for result in log["runs"][0]["results"].as_array().unwrap() {
        let uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        assert!(
            uri.starts_with("file:///") && uri.chars().all(|c| c.is_ascii_graphic()),
            "{uri}"
        );
    }
    // jsonschema quotes the instance; for a possible Secret, check hides it.
    let secrets = "tests/fixtures/hostile/secrets";
    let crd = format!("{secrets}/crd.yaml");
    let custom = format!("{secrets}/custom.yaml");
    for args in [
        vec!["check", "--output", "sarif", "--crd", &crd, &custom],
        vec![
            "check",
            "--output",
            "sarif",
            "crates/kubernetes/tests/fixtures/secret-shapes/old.yaml",
        ],
    ] {
        let run = chartgen(&args);
        assert_eq!(run.code, 1, "{}", run.transcript());
        assert_sarif(&parsed(&run), "secrets");
        for marker in ["TOPSECRET", "VE9QU0VDUkVU", "12345678", "87654321"] {
            assert!(!run.stdout.contains(marker), "{marker}: {}", run.stdout);
        }
    }
}

#[test]
fn check_and_rbac_json_match_their_schemas() {
    let (check, rbac) = (contract("check"), contract("rbac"));
    let shapes = "crates/kubernetes/tests/fixtures/secret-shapes/old.yaml";
    let mut findings = 0;
    for input in [VIOLATIONS, "out/ovh-prod", "out/dev/release", shapes] {
        let run = chartgen(&["check", "--output", "json", input]);
        let document = parsed(&run);
        assert_eq!(document["schemaVersion"], 1);
        assert_valid(&check, &document, &format!("check {input}"));
        findings += document["findings"].as_array().unwrap().len();
        let run = chartgen(&["rbac", "--output", "json", input]);
        assert_eq!(run.code, 0, "{}", run.transcript());
        assert_valid(&rbac, &parsed(&run), &format!("rbac {input}"));
    }
    assert!(findings > 8, "the inputs hold findings");
}

#[test]
fn diff_json_of_every_fixture_and_impact_level_matches_its_schema() {
    let schema = contract("diff");
    let mut levels = BTreeSet::new();
    let mut matched = false;
    let mut dirs: Vec<_> = std::fs::read_dir(root().join("crates/kubernetes/tests/fixtures/diff"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let side = |name: &str| {
            let folder = dir.join(name);
            relative(&if folder.is_dir() {
                folder
            } else {
                dir.join(format!("{name}.yaml"))
            })
        };
        let args = std::fs::read_to_string(dir.join("args")).unwrap_or_default();
        for extra in args.lines().chain([""]) {
            let mut command = vec!["diff".to_owned(), "--output".to_owned(), "json".to_owned()];
            command.extend(
                extra
                    .split_whitespace()
                    .map(str::to_owned)
                    .filter(|a| a != "--output" && a != "json"),
            );
            command.extend([side("old"), side("new")]);
            let run = chartgen(&command);
            assert_ne!(run.code, 2, "{}", run.transcript());
            let document = parsed(&run);
            assert_valid(&schema, &document, &command.join(" "));
            for impact in document["impact"].as_array().unwrap() {
                levels.insert(impact["level"].as_str().unwrap().to_owned());
            }
            matched |= document.get("matched").is_some();
        }
    }
    let all = ["change", "destructive", "refused", "restart", "security"];
    assert_eq!(levels.iter().map(String::as_str).collect::<Vec<_>>(), all);
    assert!(matched, "a --map fixture lists its matches");
}

#[test]
fn validate_json_of_valid_and_invalid_values_matches_its_schema() {
    let schema = contract("validate");
    let valid = chartgen(&["validate", "--output", "json", "-f", "values/ovh-prod.yaml"]);
    assert_eq!((valid.code, valid.stderr.as_str()), (0, ""));
    let document = parsed(&valid);
    assert_valid(&schema, &document, "valid values");
    assert_eq!(
        (
            &document["valid"],
            &document["files"],
            &document["problems"]
        ),
        (
            &Json::Bool(true),
            &serde_json::json!(["values/ovh-prod.yaml"]),
            &serde_json::json!([])
        )
    );
    // Standard input is named as the messages name it.
    let text = std::fs::read_to_string(root().join("values/ovh-prod.yaml")).unwrap();
    let stdin = chartgen_with_stdin(&["validate", "--output", "json", "-f", "-"], Some(&text));
    assert_eq!(parsed(&stdin)["files"], serde_json::json!(["<stdin>"]));
    // A file that cannot be read is no problem in the values: an error on
    // stderr, and no half document on stdout.
    let missing = chartgen(&["validate", "--output", "json", "-f", "values/nope.yaml"]);
    assert_eq!((missing.code, missing.stdout.as_str()), (2, ""));
    assert!(missing.stderr.starts_with("error: "), "{}", missing.stderr);
    let (mut invalid, mut set_refused) = (0, 0);
    let mut files: Vec<_> = std::fs::read_dir(root().join("tests/fixtures/validate"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    for file in files {
        let file = relative(&file);
        let args = [
            "validate",
            "--output",
            "json",
            "-f",
            &file,
            "--set",
            "buildd.replicas=x",
        ];
        let run = chartgen(&args);
        if run.stdout.is_empty() {
            // Not a problem in the values (unreadable, not UTF-8): an error.
            assert_eq!(run.code, 2, "{}", run.transcript());
            assert!(run.stderr.starts_with("error: "), "{}", run.transcript());
            continue;
        }
        assert_eq!(
            (run.code, run.stderr.as_str()),
            (2, ""),
            "{}",
            run.transcript()
        );
        let document = parsed(&run);
        assert_valid(&schema, &document, &file);
        assert_eq!(document["valid"], false);
        let problems = document["problems"].as_array().unwrap();
        assert!(!problems.is_empty(), "{}", run.stdout);
        // A file that reads applies the set flag, which is refused there.
        let named = |p: &Json| p["location"]["file"] == "--set buildd.replicas=…";
        set_refused += usize::from(problems.iter().any(named));
        invalid += 1;
    }
    assert!(set_refused > 10, "{set_refused} documents name the --set");
    assert!(invalid > 20, "{invalid} fixtures gave a document");
}

/// The schemas close every object and pin the version: a field added to
/// an output without its schema regenerated, or a version bumped, fails.
#[test]
fn the_schemas_refuse_what_they_do_not_describe() {
    let check = contract("check");
    let mut document = parsed(&chartgen(&["check", "--output", "json", VIOLATIONS]));
    assert_valid(&check, &document, "as printed");
    let refused = |change: &dyn Fn(&mut Json)| {
        let mut changed = document.clone();
        change(&mut changed);
        assert!(!check.is_valid(&changed), "{changed:#}");
    };
    refused(&|d| d["extra"] = 1.into());
    refused(&|d| d["findings"][0]["extra"] = 1.into());
    refused(&|d| d["schemaVersion"] = 2.into());
    refused(&|d| {
        d.as_object_mut().unwrap().remove("schemaVersion");
    });
    document["findings"][0]["hint"] = "a hint is part of the contract".into();
    assert_valid(&check, &document, "with a hint");
}

#[test]
fn the_committed_schemas_are_fresh() {
    for command in ["check", "rbac", "diff", "validate"] {
        let run = chartgen(&["schema", &format!("output-{command}")]);
        let path = Path::new("schema/output").join(format!("{command}.schema.json"));
        let committed = std::fs::read_to_string(root().join(&path)).unwrap();
        assert!(
            run.stdout == committed,
            "{} is stale: cargo run -q -- schema output-{command} > {}",
            path.display(),
            path.display()
        );
    }
}
