//! Output that cannot lie to a terminal (issue 9, section 6): control
//! characters, line separators, bidirectional overrides and invisible
//! characters from the input (names, keys, values, file names, arguments)
//! reach no output escaped or not, piped or not; an error quotes a short
//! window of a long line, never the line.

use std::path::{Path, PathBuf};

use crate::harness::{Run, chartgen, chartgen_with_stdin};

/// What the input below smuggles in: ESC sequences (clear screen, set
/// title), CR, NEL, DEL, CSI, line and paragraph separators, a right-to-left
/// override, an isolate, a zero-width space, a Unicode tag.
const HOSTILE: &str = "\u{1b}[2J\u{1b}]0;title\u{7}\r\u{85}\u{7f}\u{9b}\u{2028}\u{2029}\u{202e}\u{2066}\u{200b}\u{e0041}";

/// Whether `c` may reach a terminal from the input.
fn dangerous(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}' | '\u{e0000}'..='\u{e007f}')
}

fn assert_clean(run: &Run) {
    for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        if let Some(c) = text.chars().find(|c| dangerous(*c)) {
            panic!(
                "{stream} of `chartgen {}` holds U+{:04X}:\n{}",
                run.args.join(" ").escape_debug(),
                c as u32,
                run.transcript().escape_debug()
            );
        }
    }
}

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("chartgen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `text` as a YAML double-quoted string with everything but printable
/// ASCII escaped: the reader takes the characters from the escapes (a raw
/// U+0085 or U+2028 is refused before any output could show it).
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            c if (c as u32) <= 0xffff => out += &format!("\\u{:04x}", c as u32),
            c => out += &format!("\\U{:08x}", c as u32),
        }
    }
    out + "\""
}

/// Objects whose names, keys and values hold every hostile character.
fn objects(version: &str) -> String {
    let h = quoted(&format!("x{HOSTILE}y"));
    let multi = quoted(&format!("line one\nline {HOSTILE} {version}\nline three\n"));
    format!(
        r#"apiVersion: v1
kind: ConfigMap
metadata: {{name: {h}, namespace: {h}, labels: {{{h}: {h}}}}}
data: {{{h}: {value}, script: {multi}}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {{name: {only}, namespace: ns}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: {h}, namespace: {h}}}
rules:
  - apiGroups: [{h}]
    resources: [{h}]
    resourceNames: [{h}]
    verbs: [get, {h}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: b, namespace: {h}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: {h}}}
subjects:
  - {{kind: ServiceAccount, name: {forged}, namespace: {h}}}
  - {{kind: User, name: {h}}}
"#,
        value = quoted(&format!("{version}{HOSTILE}")),
        only = quoted(&format!("only-{version}{HOSTILE}")),
        forged = quoted(&format!("sa-{version}\nR1 forged finding{HOSTILE}")),
    )
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn diff_escapes_every_line() {
    let dir = scratch("terminal-diff");
    let old = write(&dir, "old.yaml", &objects("old"));
    let new = write(&dir, "new.yaml", &objects("new"));
    for output in ["text", "json"] {
        let run = chartgen(&["diff", "--output", output, &old, &new]);
        assert_eq!(run.code, 0, "{}", run.transcript().escape_debug());
        assert_clean(&run);
        assert!(run.stdout.contains("\\u{1b}[2J") || run.stdout.contains("\\u001b[2J"));
    }
    let run = chartgen(&["diff", &old, &new]);
    // Renamed (the added and removed accounts differ only by name), changed,
    // the line diff, permissions: all there.
    for shown in [
        "  change      ServiceAccount ns/only-old",
        " → ServiceAccount ns/only-new",
        "~ ConfigMap x\\u{001b}",
        "      - line \\u{001b}[2J",
        "Effective permissions:",
    ] {
        assert!(run.stdout.contains(shown), "{shown}\n{}", run.stdout);
    }
    assert!(!run.stdout.contains("\nR1 forged"), "{}", run.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_and_rbac_escape_names() {
    let dir = scratch("terminal-check");
    let file = write(&dir, "objects.yaml", &objects("old"));
    for args in [
        vec!["check", file.as_str()],
        vec!["check", "--output", "json", file.as_str()],
        vec!["rbac", file.as_str()],
        vec!["rbac", "--output", "json", file.as_str()],
    ] {
        let run = chartgen(&args);
        assert_ne!(run.code, 2, "{}", run.transcript().escape_debug());
        assert_clean(&run);
        assert!(!run.stdout.contains("\nR1 forged"), "{}", run.stdout);
    }
    let run = chartgen(&["rbac", &file]);
    assert!(
        run.stdout
            .contains("x\\u{001b}[2J\\u{001b}]0;title\\u{0007}\\u{000d}"),
        "{}",
        run.stdout
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_escape_file_names_arguments_and_quoted_lines() {
    let dir = scratch("terminal-errors");
    // A file name and a line that hold escape sequences, in a manifest...
    let bad = write(
        &dir,
        &format!("bad{HOSTILE}.yaml"),
        &format!("kind: [\"{HOSTILE}\"\n"),
    );
    // ... and in a values file, where the line is quoted.
    let values = write(
        &dir,
        "values.yaml",
        &format!("buildd:\n  replicas: \"{HOSTILE}\"\n"),
    );
    for (args, stdin) in [
        (vec!["check", bad.as_str()], None),
        (vec!["diff", bad.as_str(), bad.as_str()], None),
        (
            vec!["check", "-"],
            Some("a: b\nc: \"\u{1b}[2J\u{202e}\" ]\n".to_owned()),
        ),
        (vec!["check", &format!("missing{HOSTILE}")], None),
        (vec!["validate", "-f", values.as_str()], None),
        (
            vec!["validate", "--set", &format!("buildd.replicas={HOSTILE}")],
            None,
        ),
        (
            vec!["validate", "--set", &format!("buildd{HOSTILE}=1")],
            None,
        ),
        (
            vec![
                "diff",
                "--ignore",
                &format!("a\"{HOSTILE}"),
                bad.as_str(),
                bad.as_str(),
            ],
            None,
        ),
    ] {
        let run = chartgen_with_stdin(&args, stdin.as_deref());
        assert_eq!(run.code, 2, "{}", run.transcript().escape_debug());
        assert_clean(&run);
        assert!(
            run.stderr.contains("\\u{001b}"),
            "{}",
            run.transcript().escape_debug()
        );
    }
    let run = chartgen(&["validate", "-f", &values]);
    assert!(
        run.stderr.contains(" 2 |   replicas: \"\\u{001b}[2J"),
        "{}",
        run.stderr
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A megabyte on one line: the error shows a short window of it, and a
/// finding that quotes it is clipped.
#[test]
fn long_lines_are_quoted_as_a_short_window() {
    let long = "x".repeat(1 << 20);
    let dir = scratch("terminal-long");
    let values = write(
        &dir,
        "values.yaml",
        &format!("buildd: {{note: {long}, replicas: [}}\n"),
    );
    let run = chartgen(&["validate", "-f", &values]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.len() < 2_000, "{} bytes", run.stderr.len());
    assert!(run.stderr.contains("…"), "{}", run.stderr);
    let run = chartgen_with_stdin(&["check", "-"], Some(&format!("a: {long}: [\n")));
    assert_eq!(run.code, 2);
    assert!(run.stderr.len() < 2_000, "{} bytes", run.stderr.len());
    // jsonschema quotes the whole instance in its message.
    let manifest = format!(
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {{name: a, namespace: ns}}\nautomountServiceAccountToken: {long}\n"
    );
    for output in ["text", "json"] {
        let run = chartgen_with_stdin(&["check", "--output", output, "-"], Some(&manifest));
        assert_eq!(run.code, 1, "{}", &run.stderr);
        assert!(run.stdout.len() < 4_000, "{} bytes", run.stdout.len());
        assert!(run.stdout.contains("characters left out"), "{}", run.stdout);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Thousands of problems: the first hundred are shown, then how many more.
#[test]
fn many_problems_are_cut_short() {
    let object =
        "---\n{apiVersion: v1, kind: ServiceAccount, metadata: {name: a, namespace: ns}}\n";
    let run = chartgen_with_stdin(&["check", "-"], Some(&object.repeat(5_000)));
    assert_eq!(run.code, 2);
    let errors = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .count();
    assert_eq!(errors, 102, "{}", run.stderr);
    assert!(
        run.stderr.ends_with(
            "error: … and 4899 more (only the first 100 are shown)\nerror: 4999 problems in the manifests\n"
        ),
        "{}",
        run.stderr
    );
}

/// A `--show-only` selector is shown escaped in its errors, malformed or
/// selecting nothing.
#[test]
fn a_hostile_selector_is_shown_escaped() {
    for selector in [format!("Deployment/{HOSTILE}"), format!("x{HOSTILE}")] {
        let run = chartgen(&["render", "--show-only", &selector]);
        assert_eq!((run.code, run.stdout.as_str()), (2, ""));
        assert!(run.stderr.contains("\\u{001b}[2J"), "{}", run.stderr);
        assert_clean(&run);
    }
}
