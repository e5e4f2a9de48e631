//! Output that cannot lie to a terminal (issue 9, section 6): control
//! characters, line separators, bidirectional overrides and invisible
//! characters from the input (names, keys, values, file names, arguments)
//! reach no output escaped or not, piped or not; an error quotes a short
//! window of a long line, never the line.

use std::path::Path;

use crate::harness::{Run, chartgen, chartgen_with_stdin, scratch};

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
    let rules = format!(
        "rules:\n  - apiGroups: [{h}]\n    resources: [{h}]\n    resourceNames: [{h}]\n    verbs: [get, {h}]\n"
    );
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
{rules}---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: b, namespace: {h}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: {h}}}
subjects:
  - {{kind: ServiceAccount, name: {forged}, namespace: {h}}}
  - {{kind: User, name: {h}}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {{name: {h}}}
{rules}---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {{name: {h}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: {h}}}
subjects:
  - {{kind: User, name: {user}}}
  - {{kind: Group, name: {h}}}
"#,
        value = quoted(&format!("{version}{HOSTILE}")),
        only = quoted(&format!("only-{version}{HOSTILE}")),
        forged = quoted(&format!("sa-{version}\nR1 forged finding{HOSTILE}")),
        user = quoted(&format!("user-{version}\nR1 forged finding{HOSTILE}")),
    )
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn diff_escapes_every_line() {
    let dir_tmp = scratch("terminal-diff");
    let dir = dir_tmp.path().to_path_buf();
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
}

#[test]
fn check_and_rbac_escape_names() {
    let dir_tmp = scratch("terminal-check");
    let dir = dir_tmp.path().to_path_buf();
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
}

#[test]
fn errors_escape_file_names_arguments_and_quoted_lines() {
    let dir_tmp = scratch("terminal-errors");
    let dir = dir_tmp.path().to_path_buf();
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
        assert_clean(&run);
        run.assert_refused(2, "\\u{001b}");
    }
    let run = chartgen(&["validate", "-f", &values]);
    run.assert_refused(2, " 2 |   replicas: \"\\u{001b}[2J");
    // A set flag's value is not quoted at all, escaped or not.
    let run = chartgen(&["validate", "--set", &format!("buildd.replicas={HOSTILE}")]);
    assert_clean(&run);
    run.assert_refused(
        2,
        "--set buildd.replicas=…: buildd.replicas: expected integer, found string \"…\"",
    );
    run.assert_stderr_lacks("2J");
}

/// A megabyte on one line: the error shows a short window of it, and a
/// finding that quotes it is clipped.
#[test]
fn long_lines_are_quoted_as_a_short_window() {
    let long = "x".repeat(1 << 20);
    let dir_tmp = scratch("terminal-long");
    let dir = dir_tmp.path().to_path_buf();
    let values = write(
        &dir,
        "values.yaml",
        &format!("buildd: {{note: {long}, replicas: [}}\n"),
    );
    let run = chartgen(&["validate", "-f", &values]);
    run.assert_refused(2, "…");
    assert!(run.stderr.len() < 2_000, "{} bytes", run.stderr.len());
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
        run.assert_refused(2, "\\u{001b}[2J");
        assert_eq!(run.stdout, "");
        assert_clean(&run);
    }
}

// Colour (issue 13, "Terminal"): decided per stream from --color, then
// NO_COLOR, CLICOLOR_FORCE and CLICOLOR, then whether the stream is a
// terminal (here it never is: the harness pipes both).

use crate::harness::chartgen_with;

/// The escape sequences chartgen itself writes: the SGR codes of its
/// styles (bold, red, green, yellow, cyan, reset).
const OURS: &[&str] = &[
    "\u{1b}[1m",
    "\u{1b}[31m",
    "\u{1b}[32m",
    "\u{1b}[33m",
    "\u{1b}[35m",
    "\u{1b}[36m",
    "\u{1b}[0m",
];

/// `text` without chartgen's own colour codes.
fn uncoloured(text: &str) -> String {
    OURS.iter()
        .fold(text.to_owned(), |text, code| text.replace(code, ""))
}

/// A run of `chartgen ARGS` under `env`, NO_COLOR unset unless `env` sets it.
fn coloured_run(args: &[&str], env: &[(&str, &str)]) -> Run {
    let env: Vec<(&str, &str)> = [("NO_COLOR", "")]
        .into_iter()
        .chain(env.iter().copied())
        .collect();
    chartgen_with(args, None, &env)
}

const DIFF: &[&str] = &["diff", "out/dev/release", "out/ovh-prod/release"];

/// Piped output is plain unless forced; the flag wins over the
/// environment; NO_COLOR wins over CLICOLOR_FORCE; CLICOLOR_FORCE=0 forces
/// nothing. Colour only adds codes: the words are the same.
#[test]
fn diff_colour_follows_the_flag_then_the_environment() {
    let plain = coloured_run(DIFF, &[]);
    assert_eq!(plain.code, 0, "{}", plain.transcript());
    assert!(!plain.stdout.contains('\u{1b}'), "piped: no colour");
    for (args, env, coloured) in [
        (vec![], vec![("CLICOLOR_FORCE", "1")], true),
        (vec![], vec![("CLICOLOR_FORCE", "0")], false),
        (
            vec![],
            vec![("CLICOLOR_FORCE", "1"), ("CLICOLOR", "0")],
            true,
        ),
        (
            vec![],
            vec![("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")],
            false,
        ),
        (vec!["--color", "always"], vec![("NO_COLOR", "1")], true),
        (vec!["--color=always"], vec![], true),
        (
            vec!["--color", "never"],
            vec![("CLICOLOR_FORCE", "1")],
            false,
        ),
        (vec!["--color", "auto"], vec![("CLICOLOR_FORCE", "1")], true),
    ] {
        let args = [DIFF, &args[..]].concat();
        let run = coloured_run(&args, &env);
        assert_eq!(run.code, 0, "{}", run.transcript());
        assert_eq!(
            run.stdout.contains("\u{1b}[32m+ ") || run.stdout.contains("\u{1b}[33m~ "),
            coloured,
            "{args:?} {env:?}:\n{}",
            run.stdout.escape_debug()
        );
        assert_eq!(uncoloured(&run.stdout), plain.stdout, "{args:?} {env:?}");
    }
}

/// Colour where a reader looks (issue 24): in `diff`, each impact level's
/// label, bold in its colour (refused and destructive red, security
/// magenta, restart yellow); in `check`, each finding's rule id in bold
/// red, `info:` in bold green and the count line. `--color never` and a
/// pipe: no escape code at all, and the same words.
#[test]
fn impact_levels_and_check_findings_are_coloured() {
    let bold = |colour: u8, text: &str| format!("\u{1b}[1m\u{1b}[{colour}m{text}\u{1b}[0m");
    let diff = coloured_run(&[DIFF, &["--color", "always"]].concat(), &[]);
    assert_eq!(diff.code, 0, "{}", diff.transcript());
    for (colour, level) in [(31, "destructive"), (35, "security"), (33, "restart")] {
        let label = format!("\n  {} ", bold(colour, level));
        assert!(
            diff.stdout.contains(&label),
            "{level}: {}",
            diff.stdout.escape_debug()
        );
    }
    let findings = "tests/fixtures/check/helm-violations";
    let check = coloured_run(&["check", "--color", "always", findings], &[]);
    assert_eq!(check.code, 1, "{}", check.transcript());
    assert!(
        check
            .stdout
            .lines()
            .any(|l| l.starts_with(&bold(31, "R2")) && l.contains(" ClusterRole bk-event-reader")),
        "{}",
        check.stdout.escape_debug()
    );
    assert!(
        check.stdout.lines().any(|l| l.starts_with(&bold(31, "R4"))),
        "{}",
        check.stdout.escape_debug()
    );
    let count = check.stdout.lines().last().unwrap_or_default();
    assert!(
        count.starts_with("\u{1b}[1m\u{1b}[31m") && count.contains(" findings\u{1b}[0m in "),
        "{}",
        count.escape_debug()
    );
    let info = coloured_run(&["check", "--color", "always", "out/dev/release"], &[]);
    assert_eq!(info.code, 0, "{}", info.transcript());
    assert!(
        info.stdout.contains(&format!("\n{} ", bold(32, "info:")))
            && info.stdout.contains(&bold(32, "ok:")),
        "{}",
        info.stdout.escape_debug()
    );
    for (run, args) in [
        (&diff, DIFF.to_vec()),
        (&check, vec!["check", findings]),
        (&info, vec!["check", "out/dev/release"]),
    ] {
        // `--color never` even when forced by the environment, and a pipe.
        let never = coloured_run(
            &[&args[..], &["--color", "never"]].concat(),
            &[("CLICOLOR_FORCE", "1")],
        );
        let piped = coloured_run(&args, &[]);
        for plain in [&never, &piped] {
            assert!(!plain.stdout.contains('\u{1b}'), "{args:?}");
            assert_eq!(plain.stdout, uncoloured(&run.stdout), "{args:?}");
        }
    }
}

/// Errors on stderr: `error:` red and `hint:` cyan when stderr takes
/// colour, plain otherwise; clap's own usage errors and help follow the
/// same choice.
#[test]
fn errors_and_help_are_coloured_by_the_same_rules() {
    let args = ["validate", "--set", "foo"];
    let run = coloured_run(&args, &[("CLICOLOR_FORCE", "1")]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("\u{1b}[1m\u{1b}[31merror:\u{1b}[0m invalid argument `--set foo`"),
        "{}",
        run.stderr.escape_debug()
    );
    assert!(
        run.stderr
            .contains("\n  \u{1b}[1m\u{1b}[36mhint:\u{1b}[0m write --set")
    );
    let plain = coloured_run(&args, &[]);
    assert_eq!(uncoloured(&run.stderr), plain.stderr);
    plain.assert_stderr_lacks("\u{1b}");
    for (args, env, coloured) in [
        (vec!["--help"], vec![("CLICOLOR_FORCE", "1")], true),
        (
            vec!["--color", "never", "--help"],
            vec![("CLICOLOR_FORCE", "1")],
            false,
        ),
        (
            vec!["render", "--help", "--color=always"],
            vec![("NO_COLOR", "1")],
            true,
        ),
        (vec!["--help"], vec![], false),
        (vec!["rendr"], vec![("CLICOLOR_FORCE", "1")], true),
        (
            vec!["rendr", "--color", "never"],
            vec![("CLICOLOR_FORCE", "1")],
            false,
        ),
    ] {
        let run = coloured_run(&args, &env);
        let text = format!("{}{}", run.stdout, run.stderr);
        assert_eq!(
            text.contains('\u{1b}'),
            coloured,
            "{args:?} {env:?}: {}",
            text.escape_debug()
        );
    }
}

/// With colour forced, the input still reaches no terminal: every escape
/// sequence on either stream is one of chartgen's own colour codes, and the
/// hostile text shows escaped.
#[test]
fn forced_colour_lets_no_escape_from_the_input_through() {
    let dir_tmp = scratch("terminal-colour");
    let dir = dir_tmp.path().to_path_buf();
    let old = write(&dir, "old.yaml", &objects("old"));
    let new = write(&dir, "new.yaml", &objects("new"));
    // Also one of chartgen's own colour codes, spelled by the input.
    let bad = write(
        &dir,
        &format!("bad{HOSTILE}\u{1b}[31m.yaml"),
        &format!("kind: [\"{HOSTILE}\"\n"),
    );
    for args in [
        vec!["diff", old.as_str(), new.as_str()],
        vec!["check", old.as_str()],
        vec!["rbac", old.as_str()],
        vec!["check", bad.as_str()],
        vec![
            "diff",
            "--map",
            &format!("x{HOSTILE}=y"),
            old.as_str(),
            new.as_str(),
        ],
    ] {
        let run = coloured_run(&args, &[("CLICOLOR_FORCE", "1")]);
        assert_ne!(run.code, 101, "{}", run.transcript().escape_debug());
        assert!(
            run.stdout.contains("\\u{001b}[2J") || run.stderr.contains("\\u{001b}[2J"),
            "{}",
            run.transcript().escape_debug()
        );
        // Uncoloured, the forced run is the plain run, which holds no
        // escape at all: colour added only chartgen's codes, and an input
        // that spelled one of them would show in the plain run too.
        let plain = coloured_run(&args, &[]);
        assert_clean(&plain);
        let clean = Run {
            args: run.args.clone(),
            code: run.code,
            stdout: uncoloured(&run.stdout),
            stderr: uncoloured(&run.stderr),
        };
        assert_eq!(
            (clean.stdout.as_str(), clean.stderr.as_str()),
            (plain.stdout.as_str(), plain.stderr.as_str())
        );
        assert_clean(&clean);
    }
    // The diff is coloured, and its colour codes frame escaped text only.
    let run = coloured_run(&["diff", &old, &new], &[("CLICOLOR_FORCE", "1")]);
    assert!(
        run.stdout.contains("\u{1b}[33m~ ConfigMap x\\u{001b}[2J"),
        "{}",
        run.stdout.escape_debug()
    );
}

// --quiet (issue 13, "Terminal"): no notes, info lines or success lines;
// errors, findings, drift and the main output as ever; exit codes as ever.

/// `chartgen ARGS` and `chartgen -q ARGS` (or `--quiet` after the
/// subcommand, as a global flag may be).
fn loud_and_quiet(args: &[&str]) -> (Run, Run) {
    let loud = chartgen(args);
    let quiet = chartgen(&[&["-q"], args].concat());
    let after = chartgen(&[args, &["--quiet"]].concat());
    assert_eq!(
        (quiet.code, &quiet.stdout, &quiet.stderr),
        (after.code, &after.stdout, &after.stderr),
        "{args:?}"
    );
    assert_eq!(
        loud.code, quiet.code,
        "{args:?}: the exit code is unchanged"
    );
    (loud, quiet)
}

#[test]
fn quiet_keeps_the_main_output() {
    for args in [
        &["render", "-f", "values/ovh-prod.yaml"][..],
        &["render", "--show-only", "Deployment/buildkit-gateway"],
        &["diff", "out/dev/release", "out/ovh-prod/release"],
        &[
            "diff",
            "--output",
            "json",
            "out/dev/release",
            "out/ovh-prod/release",
        ],
        &["rbac", "out/dev/release"],
        &["check", "--output", "json", "out/ovh-prod/release"],
        &["schema"],
        &["docs", "checks"],
        &["exemptions"],
        &["completions", "bash"],
        &["man", "render"],
    ] {
        let (loud, quiet) = loud_and_quiet(args);
        assert_eq!(loud.code, 0, "{}", loud.transcript());
        assert!(!quiet.stdout.is_empty(), "{args:?}");
        assert_eq!(quiet.stdout, loud.stdout, "{args:?}");
    }
}

#[test]
fn quiet_drops_success_and_info_lines_not_errors() {
    let (loud, quiet) = loud_and_quiet(&["validate", "-f", "values/dev.yaml"]);
    assert_eq!(loud.stdout, "values are valid (1 file)\n");
    assert_eq!(
        (quiet.code, quiet.stdout.as_str(), quiet.stderr.as_str()),
        (0, "", "")
    );
    let (loud, quiet) = loud_and_quiet(&["validate", "--set", "buildd.replicas=x"]);
    assert_eq!(quiet.code, 2);
    assert_eq!(quiet.stderr, loud.stderr);
    assert!(quiet.stderr.starts_with("error: "), "{}", quiet.stderr);
    // check: the info line and the `ok:` line go; findings stay.
    let (loud, quiet) = loud_and_quiet(&["check", "out/ovh-prod/release"]);
    assert!(loud.stdout.contains("\ninfo: ") || loud.stdout.starts_with("info: "));
    assert!(loud.stdout.ends_with(", no findings\n"), "{}", loud.stdout);
    assert_eq!((quiet.code, quiet.stdout.as_str()), (0, ""));
    let dir_tmp = scratch("quiet-check");
    let dir = dir_tmp.path().to_path_buf();
    let file = write(&dir, "objects.yaml", &objects("old"));
    let (loud, quiet) = loud_and_quiet(&["check", &file]);
    assert_eq!(quiet.code, 1, "{}", quiet.transcript());
    assert!(quiet.stdout.contains(" findings in "), "{}", quiet.stdout);
    let findings = |text: &str| text.lines().filter(|l| !l.starts_with("info: ")).count();
    assert_eq!(findings(&quiet.stdout), findings(&loud.stdout));
    assert!(!quiet.stdout.contains("info: "), "{}", quiet.stdout);
}

/// Notes on stderr go: an unused --map, a link skipped inside an input
/// folder.
#[cfg(unix)]
#[test]
fn quiet_drops_notes() {
    let (loud, quiet) = loud_and_quiet(&[
        "diff",
        "--map",
        "zz-*=*",
        "out/dev/release",
        "out/dev/release",
    ]);
    assert!(
        loud.stderr
            .starts_with("note: --map zz-*=* applies to no object"),
        "{}",
        loud.stderr
    );
    assert_eq!(
        (quiet.stdout.as_str(), quiet.stderr.as_str()),
        ("no differences\n", "")
    );
    let dir_tmp = scratch("quiet-link");
    let dir = dir_tmp.path().to_path_buf();
    std::fs::write(
        dir.join("a.yaml"),
        "{apiVersion: v1, kind: Namespace, metadata: {name: a}}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(dir.join("a.yaml"), dir.join("b.yaml")).unwrap();
    let input = dir.to_str().unwrap();
    let (loud, quiet) = loud_and_quiet(&["rbac", input]);
    crate::harness::assert_contains(&loud.stderr, "note: not reading ");
    assert_eq!(quiet.stderr, "");
    assert_eq!(quiet.stdout, loud.stdout);
}

/// render --output-dir: what was written is a success line; --check's `ok:`
/// lines too; drift is a finding and stays.
#[test]
fn quiet_render_to_a_folder_says_only_drift() {
    let dir_tmp = scratch("quiet-render");
    let dir = dir_tmp.path().to_path_buf();
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let run = chartgen(&["render", "-q", "-f", "values/dev.yaml", "--output-dir", out]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "", "")
    );
    let (loud, quiet) = loud_and_quiet(&["render", "-f", "values/dev.yaml", "--output-dir", out]);
    assert!(loud.stdout.contains(" unchanged\n"), "{}", loud.stdout);
    assert_eq!((quiet.stdout.as_str(), quiet.stderr.as_str()), ("", ""));
    let check = [
        "render",
        "-f",
        "values/dev.yaml",
        "--output-dir",
        out,
        "--check",
    ];
    let (loud, quiet) = loud_and_quiet(&check);
    assert!(loud.stdout.contains("ok: "), "{}", loud.stdout);
    assert_eq!((quiet.code, quiet.stdout.as_str()), (0, ""));
    let file = std::fs::read_dir(dir.join("out/release"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "yaml") && !p.ends_with("kustomization.yaml"))
        .unwrap();
    std::fs::remove_file(&file).unwrap();
    let (loud, quiet) = loud_and_quiet(&check);
    assert_eq!(quiet.code, 1, "{}", quiet.transcript());
    assert!(quiet.stdout.contains("drift: "), "{}", quiet.stdout);
    assert_eq!(
        quiet
            .stdout
            .lines()
            .filter(|l| !l.starts_with("ok: "))
            .count(),
        loud.stdout
            .lines()
            .filter(|l| !l.starts_with("ok: "))
            .count()
    );
}
