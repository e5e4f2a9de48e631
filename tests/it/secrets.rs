//! No Secret value reaches any output (issue 9, section 3). The corpus in
//! `tests/fixtures/hostile/secrets/` holds objects that could be Secrets
//! (every shape we could think of is the `kubernetes` crate's,
//! `crates/kubernetes/tests/fixtures/secret-shapes/`), and malformed
//! documents that hold one (`malformed/`); every value that must stay
//! hidden carries the marker `TOPSECRET` (or is its base64, or a number
//! written down here).

use std::path::Path;

use crate::diff::numbered_tokens;
use crate::harness::{Run, chartgen, chartgen_with_stdin};

const DIR: &str = "tests/fixtures/hostile/secrets";

/// What no output may hold: the marker, its base64, the numbers.
const MARKERS: [&str; 5] = [
    "TOPSECRET",
    "VE9QU0VDUkVU",
    "12345678",
    "87654321",
    "\\u0053ecret",
];

fn assert_hidden(run: &Run) {
    for marker in MARKERS {
        run.assert_shows_nowhere(marker);
    }
}

/// The Secret shapes, which the `kubernetes` crate's own tests read too.
fn shapes(side: &str) -> String {
    format!("crates/kubernetes/tests/fixtures/secret-shapes/{side}.yaml")
}

#[test]
fn diff_shows_that_secrets_changed_never_their_values() {
    for output in ["text", "json"] {
        let run = chartgen(&["diff", "--output", output, &shapes("old"), &shapes("new")]);
        assert_eq!(run.code, 0, "{}", run.transcript());
        assert_hidden(&run);
        // Every object differs, and the change is shown as tokens.
        for object in [
            "Secret ns/plain",
            "secret ns/lowercase",
            "SECRET ns/shouting",
            "Secret ns/odd-fields",
            "Secret ns/escaped-kind",
            // A list's items, one by one, in `default` without a namespace.
            "Secret default/in-list",
            "sEcReT default/deeper",
            "Secret default/one",
            "Secret default/without-kind",
            "ConfigMap ns/applied",
        ] {
            assert!(run.stdout.contains(object), "{object}:\n{}", run.stdout);
        }
        assert!(run.stdout.contains("<secret #"), "{}", run.stdout);
        // What is not a Secret's stays readable.
        assert!(run.stdout.contains("not-a-secret-new"), "{}", run.stdout);
    }
}

#[test]
fn diff_text_of_the_shapes() {
    let run = chartgen(&["diff", &shapes("old"), &shapes("new")]);
    insta::assert_snapshot!(numbered_tokens(&run.transcript()));
}

#[test]
fn check_findings_never_quote_a_secret() {
    for output in ["text", "json"] {
        for side in ["old", "new"] {
            let run = chartgen(&["check", "--output", output, &shapes(side)]);
            assert_eq!(run.code, 1, "{}", run.transcript());
            assert_hidden(&run);
        }
    }
}

/// jsonschema quotes the instance (`"…" is not of type "object"`): for an
/// object that could be a Secret, the message keeps its words only.
#[test]
fn schema_messages_about_a_secret_lose_the_instance() {
    let crd = format!("{DIR}/crd.yaml");
    let custom = format!("{DIR}/custom.yaml");
    for output in ["text", "json"] {
        let run = chartgen(&["check", "--output", output, "--crd", &crd, &custom]);
        assert_eq!(run.code, 1, "{}", run.transcript());
        assert_hidden(&run);
    }
    let run = chartgen(&["check", "--crd", &crd, &custom]);
    for line in [
        "K8S VaultSecret ns/wrong-types data.password: (hidden) does not match \"^[a-z]+$\"\n",
        "K8S VaultSecret ns/wrong-types data.other: [(hidden)] is not of type \"string\"\n",
        "K8S VaultSecret ns/wrong-types pin: (hidden) is not of type \"string\"\n",
        "K8S VaultSecret ns/wrong-types spec: (hidden) is not of type \"object\"\n",
        // The path stops at the hidden value: below it, keys are the value's.
        "K8S VaultSecret ns/wrong-types config: [(hidden)] is not of type \"string\"\n",
    ] {
        assert!(run.stdout.contains(line), "{line}{}", run.stdout);
    }
}

#[test]
fn rbac_never_shows_a_secret() {
    for output in ["text", "json"] {
        let run = chartgen(&["rbac", "--output", output, &shapes("old")]);
        assert_eq!(run.code, 0, "{}", run.transcript());
        assert_hidden(&run);
    }
}

/// Input that does not parse, or is no object, holds a Secret: the error
/// names the file, line and column, and quotes none of it.
#[test]
fn errors_about_malformed_secrets_quote_nothing() {
    let mut files: Vec<_> = std::fs::read_dir(Path::new(DIR).join("malformed"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 8);
    for file in files {
        let file = crate::harness::relative(&file);
        let stdin = std::fs::read_to_string(&file).unwrap();
        for args in [
            vec!["check", file.as_str()],
            vec!["check", "--output", "json", file.as_str()],
            vec!["rbac", file.as_str()],
            vec!["diff", file.as_str(), &shapes("new")],
            vec!["diff", "--output", "json", &shapes("old"), file.as_str()],
        ] {
            let run = chartgen(&args);
            assert_eq!(
                (run.code, run.stdout.as_str()),
                (2, ""),
                "{}",
                run.transcript()
            );
            assert!(
                run.stderr.starts_with(&format!("error: {file}:")),
                "{}",
                run.stderr
            );
            assert_hidden(&run);
        }
        let run = chartgen_with_stdin(&["check", "-"], Some(&stdin));
        assert!(run.stderr.starts_with("error: <stdin>:"), "{}", run.stderr);
        assert_hidden(&run);
    }
}

/// The same errors for input with no Secret in it still quote the line: a
/// reviewer sees what is wrong.
#[test]
fn errors_about_other_input_still_quote_the_line() {
    let run = chartgen_with_stdin(
        &["check", "-"],
        Some("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: !!int seven}\n"),
    );
    run.assert_refused(2, " 4 | data: {a: !!int seven}\n");
}

/// A values file that does not parse follows the manifests' rule: its
/// entries are not known, so when it mentions "secret" the error names the
/// place and quotes neither the line nor its values, block or flow style;
/// one that mentions none still quotes its line.
#[test]
fn errors_about_malformed_values_follow_the_manifests_rule() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            "extraObjects:\n  - apiVersion: v1\n    kind: Secret\n    metadata: {name: registry-auth, namespace: buildkit-operator}\n    stringData:\n      password: Tr0ub4dor&3: x\n",
            ":6:28: invalid YAML: mapping values are not allowed in this context\n",
            "Tr0ub4dor",
        ),
        (
            "extraObjects:\n  - {kind: Secret, data: {p: HUNTER10: x}}\n",
            ":2:",
            "HUNTER10",
        ),
        (
            "extraObjects:\n  - {kind: \"\\x53ecret\", data: {p: HUNTER11: x}}\n",
            ":2:",
            "HUNTER11",
        ),
    ];
    for (i, (values, location, value)) in cases.iter().enumerate() {
        let file = tmp.path().join(format!("leak-{i}.yaml"));
        std::fs::write(&file, values).unwrap();
        let file = file.to_str().unwrap();
        for args in [vec!["validate", "-f", file], vec!["render", "-f", file]] {
            let run = chartgen(&args);
            run.assert_refused(2, &format!("{file}{location}"));
            run.assert_shows_nowhere(value);
            run.assert_stderr_lacks(" | ");
        }
        let run = chartgen_with_stdin(&["validate", "-f", "-"], Some(values));
        run.assert_refused(2, &format!("<stdin>{location}"));
        run.assert_shows_nowhere(value);
    }
    let run = chartgen_with_stdin(
        &["validate", "-f", "-"],
        Some("buildd:\n  logLevel: info: x\n"),
    );
    run.assert_refused(2, " 2 |   logLevel: info: x\n");
}

/// A file reached through a symbolic link could be any file (a key, a
/// password store): an error about it quotes none of it.
#[test]
fn errors_about_a_linked_file_quote_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    std::fs::create_dir_all(dir.join("set")).unwrap();
    let target = dir.join("id_rsa");
    std::fs::write(
        &target,
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA: [PRIVATE-MATERIAL\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&target, dir.join("set/key.yaml")).unwrap();
    // Inside a directory, the link is not read at all; named, it is read
    // (the user named it), and an error about it quotes nothing.
    let in_dir = chartgen(&["check", dir.join("set").to_str().unwrap()]);
    let named = chartgen(&["check", dir.join("set/key.yaml").to_str().unwrap()]);
    crate::harness::assert_contains(&in_dir.stderr, "not reading");
    crate::harness::assert_contains(&in_dir.stderr, "symbolic link");
    named.assert_refused(2, "/set/key.yaml:");
    // A folder of its path linked: the same.
    std::fs::create_dir_all(dir.join("private")).unwrap();
    std::fs::copy(&target, dir.join("private/key.yaml")).unwrap();
    std::os::unix::fs::symlink(dir.join("private"), dir.join("linked")).unwrap();
    let through = chartgen(&["check", dir.join("linked/key.yaml").to_str().unwrap()]);
    through.assert_refused(2, "/linked/key.yaml:");
    let linked_folder = chartgen(&["check", dir.join("linked").to_str().unwrap()]);
    linked_folder.assert_refused(2, "/linked/key.yaml:");
    // A values file reached through a link: neither its line nor its
    // keys' path.
    let values_link = dir.join("values.yaml");
    std::os::unix::fs::symlink(&target, &values_link).unwrap();
    let values = chartgen(&["validate", "-f", values_link.to_str().unwrap()]);
    values.assert_refused(2, "/values.yaml:");
    for run in [&in_dir, &named, &through, &linked_folder, &values] {
        for quoted in ["b3BlbnNzaC1rZXk", "PRIVATE"] {
            run.assert_stderr_lacks(quoted);
        }
    }
}

/// Tokens are keyed per run: equal values show equal tokens within a run,
/// and nothing matches between two runs (no offline guessing, no
/// comparing outputs).
#[test]
fn tokens_are_equal_within_a_run_and_differ_between_runs() {
    let old = "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: ns}\nstringData: {a: one, b: two}\n";
    let new = "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: ns}\nstringData: {a: two, b: one}\n";
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    std::fs::write(dir.join("old.yaml"), old).unwrap();
    let old_file = dir.join("old.yaml");
    let tokens = |run: &Run| -> Vec<String> {
        run.stdout
            .split("<secret #")
            .skip(1)
            .map(|rest| rest[..16].to_owned())
            .collect()
    };
    let first = chartgen_with_stdin(&["diff", old_file.to_str().unwrap(), "-"], Some(new));
    let second = chartgen_with_stdin(&["diff", old_file.to_str().unwrap(), "-"], Some(new));
    let (a, b) = (tokens(&first), tokens(&second));
    // stringData.a: one → two, stringData.b: two → one.
    assert_eq!(a.len(), 4, "{}", first.stdout);
    assert_eq!((&a[0], &a[1]), (&a[3], &a[2]), "{}", first.stdout);
    assert_ne!(a[0], a[1]);
    assert!(a.iter().all(|t| !b.contains(t)), "{a:?} {b:?}");
    assert!(!first.stdout.contains("one") && !first.stdout.contains("two"));
}

/// A set flag's value is never quoted back, by any command that takes set
/// flags, in text or JSON: the error names the flag and the key
/// (`--set buildd.logLevel=…`), says what is wrong and what is allowed,
/// and quotes nothing of the value, whole, cut, in part or as it reads.
#[test]
fn errors_about_a_set_flag_name_its_key_never_its_value() {
    let long = format!("images.buildd.tag=Sup3r{}", "s3cr3t".repeat(30));
    let cases: Vec<([&str; 2], Vec<&str>, &str)> = vec![
        (
            ["--set", "buildd.logLevel=MySecretPassw0rd"],
            vec!["MySecretPassw0rd"],
            "--set buildd.logLevel=…: buildd.logLevel: string \"…\" is not one of: debug, info, warn, error",
        ),
        (
            ["--set-string", "buildd.replicas=Hunter1pw"],
            vec!["Hunter1pw"],
            "--set-string buildd.replicas=…: buildd.replicas: expected integer, found string \"…\"",
        ),
        (
            ["--set-json", "buildd.replicas=\"Hunter2pw\""],
            vec!["Hunter2pw"],
            "--set-json buildd.replicas=…: buildd.replicas: expected integer, found string \"…\"",
        ),
        // The closest option would say what the value is: no "did you mean".
        (
            ["--set", "buildd.logLevel=INFO"],
            vec!["INFO", "did you mean"],
            "buildd.logLevel: string \"…\" is not one of: debug, info, warn, error",
        ),
        // A number, as written and as YAML reads it.
        (
            ["--set", "buildd.logLevel=0644"],
            vec!["0644", "420"],
            "buildd.logLevel: expected string, found integer `…`",
        ),
        (
            ["--set-string", "buildd.replicas=918273"],
            vec!["918273"],
            "use --set to write the integer …",
        ),
        // A value YAML cannot read, or JSON refuses.
        (
            ["--set", "buildd.replicas=99999999999999999999999"],
            vec!["99999999999999999999999"],
            "invalid argument `--set buildd.replicas=…`: the value is not valid YAML: `…`",
        ),
        (
            ["--set-json", "buildd.replicas=12345678e999"],
            vec!["12345678"],
            "invalid argument `--set-json buildd.replicas=…`: the JSON value is refused",
        ),
        // A rule's message, and one quoting a long value.
        (
            ["--set", "commonLabels.team=Hunter 3!"],
            vec!["Hunter 3"],
            "commonLabels.team: label value \"…\" is not valid",
        ),
        (
            ["--set", &long],
            vec!["Sup3r", "s3cr3ts3cr3t"],
            "--set images.buildd.tag=…: images.buildd.tag: ",
        ),
    ];
    let commands: [&[&str]; 5] = [
        &["validate"],
        &["validate", "--output", "json"],
        &["render"],
        &["explain", "Deployment/buildkit-buildd"],
        &["exemptions"],
    ];
    for (set, hidden, expected) in &cases {
        for command in commands {
            let mut args = command.to_vec();
            args.extend(set);
            let run = chartgen(&args);
            for text in hidden {
                run.assert_shows_nowhere(text);
            }
            if command.contains(&"json") {
                assert_eq!(run.code, 2, "{}", run.transcript());
                // A refused argument is an error on stderr; a value the
                // schema refuses is a problem of the document.
                if run.stdout.is_empty() {
                    crate::harness::assert_contains(&run.stderr, expected);
                    continue;
                }
                let document: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
                let problem = &document["problems"][0];
                let key = set[1].split_once('=').unwrap().0;
                assert_eq!(problem["path"], key, "{}", run.stdout);
                assert_eq!(
                    problem["location"]["file"],
                    format!("{} {key}=…", set[0]),
                    "{}",
                    run.stdout
                );
            } else {
                run.assert_refused(2, expected);
            }
        }
    }
}

/// A value a set flag wrote is not quoted by a problem about another key
/// either (a rule comparing two values), nor named by `explain` where it
/// hides the value (an object that could be a Secret).
#[test]
fn a_set_value_is_not_quoted_where_another_key_is_at_fault() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("requests.yaml");
    std::fs::write(
        &file,
        "builds:\n  daemonResources:\n    requests:\n      cpu: \"7\"\n",
    )
    .unwrap();
    let run = chartgen(&[
        "validate",
        "-f",
        file.to_str().unwrap(),
        "--set",
        "builds.limitRange.default.cpu=3",
    ]);
    run.assert_refused(
        2,
        "requests.cpu 7 is above the limit … the builds LimitRange",
    );
    // Nor by a finding of the render's own checks (an `extraObjects`
    // label the values stage does not judge).
    let labelled = r#"extraObjects=[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"buildkit-builds","labels":{"a":"Hunter 6pw"}}}]"#;
    let run = chartgen(&["render", "--set-json", labelled]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    run.assert_shows_nowhere("Hunter 6pw");
    crate::harness::assert_contains(
        &run.stderr,
        "metadata.labels.a: label value \"…\" is not valid",
    );
    let secret = r#"extraObjects=[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"buildkit-builds","annotations":{"a":"Hunter9pw"}}}]"#;
    for output in ["text", "json"] {
        let run = chartgen(&[
            "explain",
            "--output",
            output,
            "--set-json",
            secret,
            "Secret/s.metadata.annotations.a",
        ]);
        assert_eq!(run.code, 0, "{}", run.transcript());
        run.assert_shows_nowhere("Hunter9pw");
        assert!(
            run.stdout.contains("--set-json extraObjects=…"),
            "{}",
            run.stdout
        );
    }
    // Where the value is shown, the argument is too, as given.
    let run = chartgen(&[
        "explain",
        "--set",
        "buildd.replicas=5",
        "Deployment/buildkit-buildd.spec.replicas",
    ]);
    assert!(
        run.stdout
            .contains("buildd.replicas: 5  (--set buildd.replicas=5)"),
        "{}",
        run.stdout
    );
}

/// `validate --output json` masks what the text on stderr masks, field
/// for field: a values file reached through a link (its message, hint and
/// key path), and a file that did not read as values and could hold a
/// Secret.
#[test]
fn validate_json_masks_what_the_text_masks() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("nearmiss.yaml"), "gatway:\n  replicas: 2\n").unwrap();
    std::os::unix::fs::symlink(dir.join("nearmiss.yaml"), dir.join("lnk.yaml")).unwrap();
    std::fs::write(
        dir.join("tagged.yaml"),
        "extraObjects:\n  - {apiVersion: v1, kind: Secret, metadata: {name: s, namespace: b}, stringData: {p: !!int Hunter10pw}}\n",
    )
    .unwrap();
    let cases = [
        ("lnk.yaml", vec!["gatway", "gateway"], "unknown key `…`"),
        (
            "tagged.yaml",
            vec!["Hunter10pw", "!!int"],
            "`…` is not an integer, as its tag `…` says",
        ),
    ];
    for (file, hidden, message) in cases {
        let file = dir.join(file);
        let file = file.to_str().unwrap();
        let text = chartgen(&["validate", "-f", file]);
        text.assert_refused(2, &format!("{file}:"));
        text.assert_refused(2, message);
        let json = chartgen(&["validate", "--output", "json", "-f", file]);
        assert_eq!(json.code, 2, "{}", json.transcript());
        for text_of in [&text, &json] {
            for word in &hidden {
                text_of.assert_shows_nowhere(word);
            }
        }
        let document: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
        let problem = &document["problems"][0];
        assert_eq!(problem["message"], message, "{}", json.stdout);
        assert_eq!(problem["location"]["file"], file, "{}", json.stdout);
    }
    // The link's keys' path is left out too; the file it leads to is
    // quoted as usual.
    let json = chartgen(&[
        "validate",
        "--output",
        "json",
        "-f",
        dir.join("lnk.yaml").to_str().unwrap(),
    ]);
    let document: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(document["problems"][0]["path"], "", "{}", json.stdout);
    assert_eq!(
        document["problems"][0]["hint"], "did you mean `…`?",
        "{}",
        json.stdout
    );
    let plain = dir.join("nearmiss.yaml");
    let json = chartgen(&[
        "validate",
        "--output",
        "json",
        "-f",
        plain.to_str().unwrap(),
    ]);
    let document: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(document["problems"][0]["path"], "gatway", "{}", json.stdout);
    assert_eq!(document["problems"][0]["hint"], "did you mean `gateway`?");
}

/// chartgen's own buildd Deployment names `--daemon-tls-secret`: an error
/// about it is quoted like any other object's, as it cannot hold a
/// Secret's value.
#[test]
fn errors_about_an_object_that_only_mentions_secrets_are_quoted() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let render = chartgen(&["render", "--output-dir", out.to_str().unwrap()]);
    assert_eq!(render.code, 0, "{}", render.transcript());
    let file = out.join("release/buildkit-operator/deployment-buildkit-buildd.yaml");
    let rendered = std::fs::read_to_string(&file).unwrap();
    assert!(rendered.contains("--daemon-tls-secret"), "{rendered}");
    let out_arg = out.to_str().unwrap();
    std::fs::write(
        &file,
        rendered.replacen("  replicas: 2\n", "  replicas: on\n", 1),
    )
    .unwrap();
    let run = chartgen(&["check", out_arg]);
    run.assert_refused(
        2,
        "spec.replicas: plain `on` is the boolean `true` to Kubernetes (go-yaml, YAML 1.1) but the string \"on\" in YAML 1.2",
    );
    run.assert_refused(2, " |   replicas: on\n");
    run.assert_refused(
        2,
        "hint: write `true` if you mean the boolean, or quote it (\"on\") for the text",
    );
    std::fs::write(
        &file,
        rendered.replacen("  replicas: 2\n", "  replicas: 2\n  replicas: 3\n", 1),
    )
    .unwrap();
    chartgen(&["check", out_arg]).assert_refused(2, "duplicate key `replicas`");
}

/// Each document is judged on its own, and whatever could be a Secret, or
/// hide one, keeps every error about it masked: a Secret beside the
/// object at fault hides nothing of it; a Secret whose `kind` comes after
/// the error, one in a `List`, one that does not parse before its kind,
/// an alias, a tag go-yaml decodes, an embedded Secret, quote nothing.
#[test]
fn errors_are_masked_by_the_document_they_are_in() {
    let secret = "---\napiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: ns}\nstringData: {password: TOPSECRET-beside}\n";
    let config_map =
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns}\ndata: {a: on}\n";
    // The error in the ConfigMap, a Secret before and after it.
    for text in [
        format!("{config_map}{secret}"),
        format!("{}\n---\n{config_map}", &secret[4..]),
    ] {
        let run = chartgen_with_stdin(&["check", "-"], Some(&text));
        run.assert_refused(2, "data.a: plain `on` is the boolean `true`");
        run.assert_refused(2, " | data: {a: on}\n");
        assert_hidden(&run);
    }
    let masked = [
        // The kind after the error.
        "apiVersion: v1\nmetadata: {name: s, namespace: ns}\nstringData: {password: TOPSECRET-on, pin: on}\nkind: Secret\n",
        // A List's item, with or without its kind.
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret, metadata: {name: s}, stringData: {password: TOPSECRET, pin: on}}\n",
        "apiVersion: v1\nkind: SecretList\nitems:\n- {metadata: {name: s}, stringData: {password: TOPSECRET, pin: on}}\n",
        // A document that does not parse before its kind.
        "apiVersion: v1\nstringData: {password: TOPSECRET: x}\nkind: Secret\n",
        // A value of a Secret's, reused by an alias in a ConfigMap's item.
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret, metadata: {name: s}, stringData: {password: &pw TOPSECRET}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {a: *pw, b: on}}\n",
        // A kind go-yaml decodes from base64 (`Secret`), on one line.
        "{apiVersion: v1, kind: !!binary U2VjcmV0, metadata: {name: my-secret}, data: {password: TOPSECRET}}\n",
        // A Secret inside another object.
        "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata: {name: t}\nobjects:\n- {apiVersion: v1, kind: Secret, metadata: {name: s}, stringData: {password: TOPSECRET, pin: on}}\n",
    ];
    for text in masked {
        let run = chartgen_with_stdin(&["check", "-"], Some(text));
        assert_eq!(run.code, 2, "{}", run.transcript());
        assert!(run.stderr.starts_with("error: <stdin>:"), "{}", run.stderr);
        run.assert_stderr_lacks(" | ");
        assert_hidden(&run);
    }
}
