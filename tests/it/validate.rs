//! `chartgen validate` on fixture values files (issue 2, requirements 4-8).
//!
//! Each file in `tests/fixtures/validate/` is one case. Its first line may be
//! `# args: ...`, the whole command line with `{}` standing for the fixture's
//! path; without it the case runs `validate -f <fixture>`. The transcript
//! (command, exit code, stdout, stderr) is pinned by a snapshot.

use crate::harness::{chartgen, chartgen_with_stdin, relative, root};

#[test]
fn fixtures() {
    insta::glob!("../fixtures/validate", "*.yaml", |path| {
        let fixture = relative(path);
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let args: Vec<String> = match text.lines().next().and_then(|l| l.strip_prefix("# args: ")) {
            Some(line) => line
                .split_whitespace()
                .map(|a| a.replace("{}", &fixture))
                .collect(),
            None => vec!["validate".into(), "-f".into(), fixture.clone()],
        };
        let run = chartgen(&args);
        if run.code == 0 {
            assert!(run.stderr.is_empty(), "a success says nothing on stderr");
        } else {
            assert!(run.stdout.is_empty(), "a failure prints nothing on stdout");
        }
        insta::assert_snapshot!(run.transcript());
    });
}

#[test]
fn every_environment_in_values_is_valid() {
    let mut seen = 0;
    for entry in std::fs::read_dir(root().join("values")).unwrap() {
        let path = relative(&entry.unwrap().path());
        let run = chartgen(&["validate", "-f", &path]);
        assert_eq!(run.code, 0, "{path}:\n{}", run.stderr);
        seen += 1;
    }
    assert!(
        seen >= 2,
        "values/ holds a dev and a production environment"
    );
}

#[test]
fn a_missing_file_names_the_file_and_the_cause() {
    let run = chartgen(&["validate", "-f", "values/nope.yaml"]);
    insta::assert_snapshot!(run.transcript(), @r"
    $ chartgen validate -f values/nope.yaml
    exit: 2
    --- stdout
    --- stderr
    error: cannot read values file `values/nope.yaml`
      caused by: No such file or directory (os error 2)
    ");
}

#[test]
fn a_directory_is_not_a_values_file() {
    let run = chartgen(&["validate", "-f", "values"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("error: cannot read values file `values`\n  caused by: ")
    );
}

#[test]
fn bad_usage_exits_2() {
    chartgen(&["validate", "--frobnicate"]).assert_refused(2, "unexpected argument '--frobnicate'");
}

#[test]
fn a_huge_file_fails_fast_with_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let path = dir.join("huge.yaml");
    let line = format!("# {}\n", "x".repeat(1022));
    std::fs::write(&path, line.repeat(5 * 1024)).unwrap();
    let run = chartgen(&["validate", "-f", path.to_str().unwrap()]);
    run.assert_refused(2, ":1:1: larger than the limit of 4194304 bytes");
}

/// A rendered release as one text, the run asserted successful.
fn rendered(args: &[&str]) -> String {
    let mut all = vec!["render"];
    all.extend_from_slice(args);
    let run = chartgen(&all);
    assert_eq!(run.code, 0, "{all:?}\n{}", run.stderr);
    run.stdout
}

#[test]
fn string_fields_keep_plain_numbers_as_written() {
    let out = rendered(&["-f", "tests/fixtures/validate/strings-as-written.yaml"]);
    for image in [
        "image: ghcr.io/buildkit-operator/buildd:1.10",
        "image: ghcr.io/buildkit-operator/gateway:20240101",
        "app.kubernetes.io/version: \"1.10\"",
        "release: \"1.10\"",
        "build: \"007\"",
    ] {
        assert!(out.contains(image), "{image} missing");
    }
    let out = rendered(&[
        "-f",
        "tests/fixtures/validate/strings-as-written.yaml",
        "--bundle",
        "kata",
    ]);
    assert!(out.contains("kata-deploy:0x1F"), "{out}");
    assert!(out.contains(":0644"));
    // --set reads the same way; a quoted value was a string already.
    for set in ["images.buildd.tag=1.10", "images.buildd.tag=\"1.10\""] {
        let out = rendered(&["--set", set]);
        assert!(out.contains("buildd:1.10\n"), "{set}");
    }
    // A number no JSON number holds is refused, even where the key is a
    // string (YAML, Helm and an editor read a number there), saying how
    // to write the text; the same in an `extraObjects` entry.
    let run = chartgen(&["validate", "--set", "images.buildd.tag=4e51234"]);
    // The set flag's value is not quoted back.
    run.assert_refused(2, "`…` is not a finite number");
    run.assert_refused(2, "--set-string");
    run.assert_stderr_lacks("4e51234");
    let run = chartgen(&["validate", "--set-string", "images.buildd.tag=4e51234"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = chartgen_with_stdin(
        &["validate", "-f", "-"],
        Some(
            "extraObjects:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: buildkit-builds}, data: {big: 99999999999999999999}}\n",
        ),
    );
    run.assert_refused(2, "`99999999999999999999` does not fit in a 64-bit integer");
}

#[test]
fn set_flags_apply_in_command_line_order() {
    let replicas = |args: &[&str]| {
        let out = rendered(args);
        let at = out.find("name: buildkit-buildd\n").unwrap();
        let tail = &out[at..];
        let line = tail
            .lines()
            .find(|l| l.trim_start().starts_with("replicas:"))
            .unwrap();
        line.trim().to_owned()
    };
    assert_eq!(
        replicas(&[
            "--set",
            "buildd.replicas=2",
            "--set-json",
            "buildd.replicas=3"
        ]),
        "replicas: 3"
    );
    assert_eq!(
        replicas(&[
            "--set-json",
            "buildd.replicas=3",
            "--set",
            "buildd.replicas=2"
        ]),
        "replicas: 2"
    );
    let out = rendered(&["--set-string", "commonLabels.feature=true"]);
    assert!(out.contains("feature: \"true\""));
    // A JSON mapping merges over the key: the repository stays.
    let out = rendered(&["--set-json", r#"images.buildd={"tag":"9.9"}"#]);
    assert!(out.contains("image: ghcr.io/buildkit-operator/buildd:9.9\n"));
    // Every command that takes values takes the flags.
    for command in ["validate", "exemptions"] {
        let run = chartgen(&[
            command,
            "--set-string",
            "commonLabels.a=b",
            "--set-json",
            "buildd.replicas=2",
        ]);
        assert_eq!(run.code, 0, "{command}: {}", run.stderr);
    }
}

#[test]
fn set_json_errors_name_the_argument_and_the_column() {
    let run = chartgen(&["validate", "--set-json", r#"commonLabels={"a": "b",}"#]);
    insta::assert_snapshot!(run.transcript(), @r#"
    $ chartgen validate --set-json commonLabels={"a": "b",}
    exit: 2
    --- stdout
    --- stderr
    error: invalid argument `--set-json commonLabels=…`: the value is not valid JSON at column 24: key must be a string
    "#);
    // The value is never echoed (in `extraObjects` it may hold a Secret):
    // the key and the column are enough to find the mistake.
    let run = chartgen(&[
        "validate",
        "--set-json",
        r#"extraObjects=[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"a","namespace":"buildkit-operator"},"stringData":{"p":"HUNTER20"}]"#,
    ]);
    assert_eq!(
        run.stderr,
        "error: invalid argument `--set-json extraObjects=…`: the value is not valid JSON at column 135: expected `,` or `}`\n",
    );
    for (flag, arg) in [
        ("--set", "extraObjects[0].stringData.p=[HUNTER21"),
        ("--set", "buildd.replicas.x=HUNTER22"),
        ("--set-json", r#"extraObjects=[{"p":"HUNTER23"}]x"#),
    ] {
        let run = chartgen(&["validate", flag, arg]);
        let key = arg.split_once('=').unwrap().0;
        run.assert_refused(2, &format!("error: invalid argument `{flag} {key}=…`: "));
        run.assert_shows_nowhere("HUNTER2");
    }
    let run = chartgen(&[
        "validate",
        "--set-json",
        r#"commonLabels={"a":"b","a":"c"}"#,
    ]);
    run.assert_refused(2, "duplicate key");
    // Deep JSON: refused by its depth, never a stack overflow.
    for depth in [70, 60_000] {
        let deep = format!("commonLabels={}1{}", "[".repeat(depth), "]".repeat(depth));
        let run = chartgen(&["validate", "--set-json", &deep]);
        run.assert_refused(2, "nesting deeper than the limit of 64 levels");
        assert!(run.stderr.len() < 1_000, "the argument is clipped");
    }
}

fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(name).tempdir().unwrap()
}

#[test]
fn set_file_reads_a_file_or_a_pipe_within_the_limit() {
    let dir = temp_dir("chartgen-set-file");
    let path = |name: &str| dir.path().join(name).display().to_string();
    std::fs::write(path("tag"), "1.2.3").unwrap();
    let out = rendered(&["--set-file", &format!("images.buildd.tag={}", path("tag"))]);
    assert!(out.contains("buildd:1.2.3\n"));
    // Too large: refused with the limit, naming the argument.
    std::fs::write(path("huge"), "x".repeat(4 * 1024 * 1024 + 1)).unwrap();
    let arg = format!("commonLabels.a={}", path("huge"));
    let run = chartgen(&["validate", "--set-file", &arg]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "error: invalid argument `--set-file {arg}`: `{}` is larger than the limit of 4194304 bytes\n",
            path("huge")
        )
    );
    // A directory, a missing file and a device are refused.
    for (target, reason) in [
        (path(""), "is a directory, not a file"),
        (path("missing"), "No such file or directory"),
        (
            "/dev/zero".to_owned(),
            "is a device; only a file or a named pipe is read",
        ),
    ] {
        let arg = format!("commonLabels.a={target}");
        let run = chartgen(&["validate", "--set-file", &arg]);
        assert_eq!(run.code, 2, "{target}");
        assert!(
            run.stderr
                .starts_with(&format!("error: invalid argument `--set-file {arg}`: "))
        );
        run.assert_refused(2, reason);
    }
    // A named pipe is read, up to the limit, even from an endless writer.
    let fifo = path("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            use std::io::Write as _;
            let mut pipe = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            let chunk = vec![b'y'; 64 * 1024];
            while pipe.write_all(&chunk).is_ok() {}
        })
    };
    let arg = format!("commonLabels.a={fifo}");
    let run = chartgen(&["validate", "--set-file", &arg]);
    writer.join().unwrap();
    run.assert_refused(2, "is larger than the limit of 4194304 bytes");
}

#[test]
fn set_file_text_is_never_quoted_back() {
    let dir = temp_dir("chartgen-set-file-secret");
    let key = dir.path().join("key.pem");
    let secret = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n";
    std::fs::write(&key, secret).unwrap();
    for flag_path in [
        "commonLabels.a",
        "buildd.replicas",
        "images.buildd.tag",
        "releaseName",
    ] {
        let arg = format!("{flag_path}={}", key.display());
        let run = chartgen(&["validate", "--set-file", &arg]);
        run.assert_refused(2, &format!("--set-file {arg}"));
        run.assert_stderr_lacks("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC");
        run.assert_stderr_lacks("BEGIN PRIVATE");
    }
}

/// `--set-file` keeps the file's text as it is, as Helm does, its last
/// line break too; when that break is what makes the value wrong, the
/// hint says so, still without quoting the text.
#[test]
fn set_file_text_ending_in_a_line_break_is_said() {
    let dir = temp_dir("chartgen-set-file-break");
    let level = dir.path().join("level.txt");
    std::fs::write(&level, "info\n").unwrap();
    let arg = format!("buildd.logLevel={}", level.display());
    let run = chartgen(&["validate", "--set-file", &arg]);
    assert_eq!(
        (run.code, run.stderr),
        (
            2,
            format!(
                "error: --set-file {arg}: buildd.logLevel: string <the text of {path}> is not one of: debug, info, warn, error\n  hint: the text of {path} ends with a line break, which --set-file keeps (as Helm does): write the file without it (printf, not echo), or give the value with --set\n",
                path = level.display()
            )
        )
    );
    // Without the break, the value is the option: no problem.
    std::fs::write(&level, "info").unwrap();
    assert_eq!(chartgen(&["validate", "--set-file", &arg]).code, 0);
    // A text of several lines is not one value with a stray break.
    std::fs::write(&level, "info\nwarn\n").unwrap();
    let run = chartgen(&["validate", "--set-file", &arg]);
    run.assert_refused(2, "is not one of");
    run.assert_stderr_lacks("line break");
}

/// Each hint fits what was written: an integer past 64 bits, where the
/// reader cannot know the key's type, says both ways out; a `!!str` tag is
/// no quote; an index into a key the values do not have names the key.
#[test]
fn hints_name_what_was_written() {
    let dir = temp_dir("chartgen-hints");
    let file = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let big = file("big.yaml", "buildd:\n  replicas: 99999999999999999999\n");
    let run = chartgen(&["validate", "-f", &big]);
    run.assert_refused(
        2,
        "hint: an integer is at most 9223372036854775807 (and at least -9223372036854775808); where the key takes text, quote it (\"99999999999999999999\")\n",
    );
    let tagged = file("tagged.yaml", "buildd:\n  replicas: !!str 2\n");
    let run = chartgen(&["validate", "-f", &tagged]);
    run.assert_refused(2, "hint: remove the tag `!!str` to write the integer 2\n");
    let quoted = file("quoted.yaml", "buildd:\n  replicas: \"2\"\n");
    let run = chartgen(&["validate", "-f", &quoted]);
    run.assert_refused(2, "hint: remove the quotes to write the integer 2\n");
    let run = chartgen(&["validate", "--set", "a[99999999]=1"]);
    run.assert_refused(2, "error: --set a[99999999]=…: a: unknown key `a`\n");
    run.assert_stderr_lacks("items");
    let run = chartgen(&["validate", "--set", "bulidd.extraArgs[3]=x"]);
    run.assert_refused(2, "unknown key `bulidd`\n  hint: did you mean `buildd`?\n");
    let run = chartgen(&["validate", "--set", "buildd.extraArgs[3]=x"]);
    run.assert_refused(2, "`buildd.extraArgs` has 0 items; [3] is past the end");
}

#[test]
fn set_flag_keys_with_escapes_are_shown_escaped() {
    let run = chartgen(&[
        "validate",
        "--set-string",
        "common\u{1b}[31mLabels\u{202e}.a=b",
    ]);
    run.assert_refused(2, "common\\u{001b}[31mLabels\\u{202e}");
    run.assert_stderr_lacks("\u{1b}");
    run.assert_stderr_lacks("\u{202e}");
}

#[test]
fn values_from_stdin_once() {
    let run = chartgen_with_stdin(
        &["validate", "-f", "-", "--set", "buildd.replicas=2"],
        Some("buildd:\n  replicaz: 2\n"),
    );
    insta::assert_snapshot!(run.transcript(), @r"
    $ chartgen validate -f - --set buildd.replicas=2
    exit: 2
    --- stdout
    --- stderr
    error: <stdin>:2:3: buildd.replicaz: unknown key `replicaz`
       |
     2 |   replicaz: 2
       |   ^^^^^^^^
      hint: did you mean `replicas`?
    ");
    let run = chartgen_with_stdin(&["validate", "-f", "-"], Some("releaseName: b\n"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = chartgen_with_stdin(&["validate", "-f", "-", "-f", "-"], Some("a: 1\n"));
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: cannot read values file `-`\n  caused by: standard input is read once: give `-f -` at most once\n"
    );
}

#[test]
fn many_unknown_keys_are_all_counted_and_the_first_shown() {
    // Each unknown key once located (no search of its mapping per key) and
    // the rules run on the rest. That this stays linear is a figure in
    // BENCHMARKS.md (10,000 and 50,000 keys), not a timed assertion here.
    // 50,000 keys under CHARTGEN_SLOW, 2,000 in plain `cargo test`.
    let count = crate::tools::cases(2_000, 50_000);
    let dir = temp_dir("chartgen-many-keys");
    let path = dir.path().join("many.yaml");
    let mut text = String::from("buildd:\n");
    for i in 0..count {
        text.push_str(&format!("  k{i}: 1\n"));
    }
    std::fs::write(&path, text).unwrap();
    let run = chartgen(&["validate", "-f", path.to_str().unwrap()]);
    run.assert_refused(2, &format!("… and {} more", count - 100));
    assert!(
        run.stderr
            .ends_with(&format!("error: {count} problems in the values\n")),
        "{}",
        run.stderr
    );
}

#[test]
fn daemon_pod_annotations_past_the_api_servers_limit_are_refused() {
    // The daemons' pod template is text in a ConfigMap, which `check` does
    // not read as a pod: the values stage states the annotations' limit.
    let dir = temp_dir("chartgen-big-annotations");
    let path = dir.path().join("big.yaml");
    let mut text = String::from("builds:\n  daemon:\n    podAnnotations:\n");
    for i in 0..3 {
        text.push_str(&format!(
            "      example.com/a{i}: \"{}\"\n",
            "x".repeat(100_000)
        ));
    }
    std::fs::write(&path, text).unwrap();
    let run = chartgen(&["validate", "-f", path.to_str().unwrap()]);
    run.assert_refused(2, "builds.daemon.podAnnotations: the pod annotations hold 300042 bytes; the API server takes at most 262144");
}

/// Helm's value syntax: pairs in one `--set`, `{a,b}` lists, and a null
/// deleting what a lower layer set (a label here; a key with a default
/// gets the default back).
#[test]
fn helm_pairs_lists_and_null_deletions() {
    let out = rendered(&[
        "--set-json",
        r#"commonLabels={"team":"a","env":"x"}"#,
        "--set",
        "commonLabels.team=null,buildd.replicas=5",
    ]);
    assert!(out.contains("env: x"), "{out}");
    assert!(!out.contains("team: a"), "{out}");
    assert!(out.contains("replicas: 5"), "{out}");
    let run = chartgen(&["validate", "--set", "buildd.replicas=2,gateway.replicas=2"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "values are valid (2 --set overrides)\n");
    let run = chartgen(&["validate", "--set", "buildd.replicas=2,gateway"]);
    run.assert_refused(
        2,
        "a comma ends `buildd.replicas=…` and the text after it has no `=`: pairs are separated by commas, as in Helm",
    );
}

/// A bracket left open is a mistake, never an index: `projects[0=x` does
/// not set `projects[0]`.
#[test]
fn an_unclosed_bracket_in_a_set_key_is_refused() {
    for arg in [
        "projects[0=x",
        "projects[0.trusted=true",
        "builds.daemon.tolerations[=x",
    ] {
        chartgen(&["validate", "--set", arg]).assert_refused(2, "has no closing `]`");
    }
}

/// An environment appends one project to the list a lower layer gives
/// (`projects+`), without restating it: the render has every project, and
/// `explain` names the appending file's line for the new one's field.
#[test]
fn a_layer_appends_one_project_with_a_plus_key() {
    let dir = tempfile::tempdir().unwrap();
    let extra = dir.path().join("extra.yaml");
    std::fs::write(
        &extra,
        "# one more project, in this environment only\nprojects+:\n  - name: extra\n    repository: https://example.com/extra.git\n",
    )
    .unwrap();
    let extra = extra.to_string_lossy().into_owned();
    let prod = "values/ovh-prod.yaml";
    let before = rendered(&["-f", prod]);
    let after = rendered(&["-f", prod, "-f", &extra]);
    let projects = |text: &str| text.matches("\nkind: BuildProject\n").count();
    assert_eq!(projects(&after), projects(&before) + 1);
    assert!(after.contains("\n  name: extra\n"), "{after}");
    let run = chartgen(&[
        "explain",
        "-f",
        prod,
        "-f",
        &extra,
        "BuildProject/extra.spec.repository",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let index = projects(&before);
    assert!(
        run.stdout.contains(&format!(
            "projects[{index}].repository: \"https://example.com/extra.git\"  ({extra}:4:17)"
        )),
        "{}",
        run.stdout
    );
    // --set-json appends as the file does.
    let project = r#"projects+=[{"name":"extra","repository":"https://example.com/extra.git"}]"#;
    let set = rendered(&["-f", prod, "--set-json", project]);
    assert_eq!(projects(&set), projects(&before) + 1);
    // The same file over nothing to append to is refused where it says so.
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "gateway:\n  tolerations+: [{key: a, operator: Exists}]\n",
    )
    .unwrap();
    let bad = bad.to_string_lossy().into_owned();
    let run = chartgen(&["validate", "-f", prod, "-f", &bad]);
    run.assert_refused(2, &format!(
            "error: {bad}:2:3: gateway.tolerations: `tolerations+` appends to the list `tolerations`, but nothing is below it"
        ));
}

/// A values file is read as it was written: JSON's escapes as JSON reads
/// them (a surrogate pair is one character, in a file as in `--set-json`;
/// a lone one refused), a trailing `---` as the empty document it starts
/// (nothing, as in manifests), a second document where it is, a tag as
/// written.
#[test]
fn values_are_read_as_written() {
    let pair = r#"{"a":"\ud83d\ude00"}"#;
    let file = format!("{{\"commonAnnotations\":{pair}}}\n");
    for run in [
        chartgen_with_stdin(&["render", "-f", "-"], Some(&file)),
        chartgen(&["render", "--set-json", &format!("commonAnnotations={pair}")]),
    ] {
        assert_eq!(run.code, 0, "{}", run.transcript());
        assert!(run.stdout.contains("a: \"😀\"\n"), "{}", run.transcript());
    }
    let lone = r#"{"a":"\ud83d"}"#;
    let run = chartgen(&[
        "validate",
        "--set-json",
        &format!("commonAnnotations={lone}"),
    ]);
    run.assert_refused(2, "a lone surrogate escape");
    let run = chartgen_with_stdin(
        &["validate", "-f", "-"],
        Some(&format!("{{\"commonAnnotations\":{lone}}}\n")),
    );
    run.assert_refused(2, "<stdin>:1:27: invalid YAML: while parsing a quoted scalar, found invalid Unicode character escape code");
    // JSON followed by a comment, or a flow mapping, is YAML.
    for text in [
        "{\"buildd\": {\"replicas\": 2}}\n# two\n",
        "{buildd: {replicas: 2}}\n",
    ] {
        let run = chartgen_with_stdin(&["validate", "-f", "-"], Some(text));
        assert_eq!(run.code, 0, "{}", run.transcript());
    }
    for text in [
        "---\nbuildd:\n  replicas: 2\n---\n",
        "buildd: {}\n---\n# nothing\n---\n",
    ] {
        let run = chartgen_with_stdin(&["validate", "-f", "-"], Some(text));
        assert_eq!(run.code, 0, "{}", run.transcript());
    }
    let run = chartgen_with_stdin(
        &["validate", "-f", "-"],
        Some("buildd:\n  replicas: 2\n---\n---\ngateway: {}\n"),
    );
    run.assert_refused(2, "error: <stdin>:5:1: a second YAML document; a values file holds exactly one\n   |\n 5 | gateway: {}\n");
    for (tag, shown) in [
        ("!!binary", "!!binary"),
        ("!local", "!local"),
        ("!<tag:example.com,2000:x>", "tag:example.com,2000:x"),
    ] {
        let run = chartgen_with_stdin(
            &["validate", "-f", "-"],
            Some(&format!("buildd:\n  logLevel: {tag} aW5mbw==\n")),
        );
        run.assert_refused(
            2,
            &format!("<stdin>:2:13: unsupported YAML tag `{shown}`\n"),
        );
    }
}
