//! `chartgen diff` on fixture pairs (issue 5, requirements 2-5). Each folder
//! in `tests/fixtures/diff/` holds `old.yaml` (or an `old/` directory),
//! `new.yaml` (or a `new/` directory) and optionally `args`: extra
//! arguments, one run per line.

use crate::harness::{chartgen, chartgen_with_stdin, relative};

/// `text` with each Secret token's hash (keyed anew every run) replaced by
/// its number in order of first appearance: `<secret #1>`. What a reviewer
/// relies on stays visible: equal values show one number, changed ones two.
pub fn numbered_tokens(text: &str) -> String {
    const PREFIX: &str = "<secret #";
    let mut seen: Vec<&str> = Vec::new();
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(PREFIX) {
        let (before, after) = rest.split_at(at + PREFIX.len());
        out.push_str(before);
        let hash = after
            .get(..16)
            .filter(|h| h.chars().all(|c| c.is_ascii_hexdigit()) && after[16..].starts_with('>'));
        match hash {
            Some(hash) => {
                let number = match seen.iter().position(|s| *s == hash) {
                    Some(n) => n + 1,
                    None => {
                        seen.push(hash);
                        seen.len()
                    }
                };
                out.push_str(&number.to_string());
                rest = &after[16..];
            }
            None => rest = after,
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn fixtures() {
    insta::glob!("../fixtures/diff", "*/{old.yaml,old}", |old| {
        let dir = old.parent().unwrap();
        let new = if dir.join("new").is_dir() {
            dir.join("new")
        } else {
            dir.join("new.yaml")
        };
        let runs = std::fs::read_to_string(dir.join("args")).unwrap_or_default();
        let mut transcripts = Vec::new();
        for extra in runs.lines().chain(runs.is_empty().then_some("")) {
            let mut args = vec!["diff".to_owned()];
            args.extend(extra.split_whitespace().map(str::to_owned));
            args.push(relative(old));
            args.push(relative(&new));
            let run = chartgen(&args);
            assert_eq!(run.stderr, "", "{args:?}");
            transcripts.push(run.transcript());
        }
        insta::assert_snapshot!(numbered_tokens(&transcripts.join("\n")));
    });
}

#[test]
fn a_set_against_itself_or_a_reordered_copy_has_no_difference() {
    let render = chartgen(&["render", "-f", "values/ovh-prod.yaml", "--bundle", "all"]).stdout;
    let run = chartgen_with_stdin(&["diff", "--exit-code", "out/ovh-prod", "-"], Some(&render));
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "no differences\n"),
        "{}",
        run.stderr
    );
    let mut documents: Vec<&str> = render.split("---\n").filter(|d| !d.is_empty()).collect();
    documents.reverse();
    let reversed = format!("---\n{}", documents.join("---\n"));
    let run = chartgen_with_stdin(
        &["diff", "--exit-code", "-", "out/ovh-prod"],
        Some(&reversed),
    );
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "no differences\n"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_values_change_shows_as_fields_and_permissions() {
    let old = chartgen(&["render", "-f", "values/dev.yaml"]).stdout;
    let dir = std::env::temp_dir().join(format!("chartgen-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let old_file = dir.join("old.yaml");
    std::fs::write(&old_file, old).unwrap();
    let new = chartgen(&[
        "render",
        "-f",
        "values/dev.yaml",
        "--set",
        "gateway.replicas=2",
    ])
    .stdout;
    let run = chartgen_with_stdin(&["diff", old_file.to_str().unwrap(), "-"], Some(&new));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        run.stdout,
        "~ Deployment buildkit-operator/buildkit-gateway\n    spec.replicas: 1 → 2\n1 object differs: 0 added, 0 removed, 1 changed\n"
    );
}

#[test]
fn bad_arguments_are_usage_errors() {
    let run = chartgen(&["diff", "-", "-"]);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (2, "error: only one side of a diff can be read from stdin\n")
    );
    let run = chartgen(&["diff", "--ignore", "metadata..name", "out/dev", "out/dev"]);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (2, "error: `metadata..name` has an empty segment\n")
    );
}

/// Permissions are compared on the RBAC objects alone, and computed once
/// when those are the same on both sides: past the grant budget the diff
/// still says they were not compared, whatever else changed.
#[test]
fn permissions_past_the_budget_are_not_compared_even_when_unchanged() {
    let rbac = crate::cost::hostile_rbac(61);
    let config = |value: &str| {
        format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c, namespace: ns}}\ndata: {{a: {value}}}\n"
        )
    };
    let dir = std::env::temp_dir().join(format!("chartgen-diff-rbac-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (old, new) = (dir.join("old.yaml"), dir.join("new.yaml"));
    std::fs::write(&old, format!("{rbac}{}", config("one"))).unwrap();
    std::fs::write(&new, format!("{rbac}{}", config("two"))).unwrap();
    let run = chartgen(&["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("~ ConfigMap ns/c\n    data.a: \"one\" → \"two\"\nEffective permissions:\n  not compared: the effective permissions of this input are more than 500000 grants"),
        "{}",
        run.stdout
    );
}

/// A role that changes among objects that do not: its permissions show.
#[test]
fn a_role_change_among_unchanged_objects_shows_in_permissions() {
    let role = |verbs: &str| {
        let configs: String = (0..50)
            .map(|i| format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}, namespace: ns}}\ndata: {{a: b}}\n"))
            .collect();
        format!(
            "{configs}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {{name: r, namespace: ns}}\nrules: [{{apiGroups: [\"\"], resources: [pods], verbs: [{verbs}]}}]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: r, namespace: ns}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}}\nsubjects: [{{kind: ServiceAccount, name: app}}]\n"
        )
    };
    let dir = std::env::temp_dir().join(format!("chartgen-diff-role-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let old = dir.join("old.yaml");
    std::fs::write(&old, role("get")).unwrap();
    let run = chartgen_with_stdin(
        &["diff", old.to_str().unwrap(), "-"],
        Some(&role("get, delete")),
    );
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        run.stdout,
        "Impact, most severe first:\n  security    ServiceAccount ns/app: gains delete on pods in ns\n~ Role ns/r\n    rules[0].verbs: [\"get\"] → [\"get\", \"delete\"]\nEffective permissions:\n  ns/app gains delete on pods in ns\n1 object differs: 0 added, 0 removed, 1 changed\n",
        "{}",
        run.stderr
    );
}

/// The exit-code table of `diff` (the README's): 0 unless asked; with
/// `--exit-code`, 1 on any difference; with `--fail-on LEVEL`, 1 when the
/// impact reaches LEVEL (`change`: any difference); 2 on bad input,
/// whatever the flags.
#[test]
fn exit_codes_follow_the_table() {
    let fixture = |name: &str| format!("tests/fixtures/diff/{name}");
    let inputs = [
        // (old, new): no difference; differences without impact; a
        // restart; a refused change.
        (
            fixture("impact-restart/old.yaml"),
            fixture("impact-restart/old.yaml"),
        ),
        (
            fixture("json-output/old.yaml"),
            fixture("json-output/new.yaml"),
        ),
        (
            fixture("impact-restart/old.yaml"),
            fixture("impact-restart/new.yaml"),
        ),
        (
            fixture("impact-immutable/old.yaml"),
            fixture("impact-immutable/new.yaml"),
        ),
    ];
    let table: [(&[&str], [i32; 4]); 8] = [
        (&[], [0, 0, 0, 0]),
        (&["--exit-code"], [0, 1, 1, 1]),
        (&["--fail-on", "change"], [0, 1, 1, 1]),
        (&["--fail-on", "restart"], [0, 0, 1, 1]),
        (&["--fail-on", "security"], [0, 0, 0, 1]),
        (&["--fail-on", "refused"], [0, 0, 0, 1]),
        (&["--exit-code", "--fail-on", "refused"], [0, 1, 1, 1]),
        (&["--output", "json", "--fail-on", "restart"], [0, 0, 1, 1]),
    ];
    for (flags, codes) in table {
        for ((old, new), code) in inputs.iter().zip(codes) {
            let mut args = vec!["diff"];
            args.extend(flags);
            args.extend([old.as_str(), new.as_str()]);
            let run = chartgen(&args);
            assert_eq!((run.code, run.stderr.as_str()), (code, ""), "{args:?}");
        }
        let mut args = vec!["diff"];
        args.extend(flags);
        args.extend(["tests/fixtures/diff/no-such-file.yaml", "out/dev"]);
        assert_eq!(chartgen(&args).code, 2, "{args:?}");
    }
    let run = chartgen(&["diff", "--fail-on", "severe", "out/dev", "out/dev"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("possible values: change, restart, security, destructive, refused"),
        "{}",
        run.stderr
    );
}

/// Names in the impact summary come from the input: escaped in the text,
/// in the JSON too, and a Secret's values never appear, not even when an
/// immutable Secret's data changes.
#[test]
fn impact_lines_escape_names_and_hide_secret_values() {
    let hostile = "x\u{1b}[2J\u{9b}\u{202e}y";
    let objects = |image: &str, password: &str| {
        format!(
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: agent, namespace: ns}}\nspec:\n  selector: {{matchLabels: {{app: a}}}}\n  template:\n    metadata: {{labels: {{app: a}}}}\n    spec:\n      containers: [{{name: \"{hostile}\", image: \"{image}\", securityContext: {{privileged: true}}}}]\n      volumes: [{{name: h, hostPath: {{path: \"/{hostile}\"}}}}]\n---\napiVersion: v1\nkind: Secret\nmetadata: {{name: token, namespace: ns}}\nimmutable: true\nstringData: {{password: \"{password}\"}}\n"
        )
        .replace("\u{1b}", "\\e")
        .replace("\u{9b}", "\\x9b")
        .replace("\u{202e}", "\\u202e")
    };
    let dir = std::env::temp_dir().join(format!("chartgen-diff-impact-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (old, new) = (dir.join("old.yaml"), dir.join("new.yaml"));
    std::fs::write(&old, objects("agent:1", "hunter2-old-value")).unwrap();
    std::fs::write(&new, objects("agent:2", "hunter2-new-value")).unwrap();
    for output in ["text", "json"] {
        let run = chartgen(&[
            "diff",
            "--output",
            output,
            old.to_str().unwrap(),
            new.to_str().unwrap(),
        ]);
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{}", run.stdout);
        for raw in ['\u{1b}', '\u{9b}', '\u{202e}'] {
            assert!(!run.stdout.contains(raw), "{}", run.stdout.escape_debug());
        }
        assert!(!run.stdout.contains("hunter2"), "{}", run.stdout);
        assert!(run.stdout.contains("refused"), "{}", run.stdout);
        assert!(run.stdout.contains("stringData.password"), "{}", run.stdout);
        assert!(
            run.stdout
                .contains("its pods restart on every node, with host access (hostPath /x"),
            "{}",
            run.stdout
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
