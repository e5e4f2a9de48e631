//! Issue 13, "Terminal": the completion scripts, loaded into the real
//! shells and asked what they complete, and the man pages, rendered by the
//! real `man`. bash is always there; zsh and fish are installed by
//! `.ci/run` (which sets CHARTGEN_REQUIRE_SHELLS=1, so that a missing shell
//! fails there instead of skipping).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use clap::CommandFactory as _;

use crate::harness::{chartgen, root, scratch};

/// `chartgen completions SHELL`, written to a file of `dir`.
fn script(shell: &str, dir: &Path) -> PathBuf {
    let run = chartgen(&["completions", shell]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_eq!(run.stderr, "");
    let path = dir.join(format!("chartgen.{shell}"));
    std::fs::write(&path, &run.stdout).unwrap();
    path
}

/// Runs `program ARGS` and returns its stdout, asserting success.
fn output(program: &str, args: &[&str]) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_chartgen")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(program)
        .args(args)
        .current_dir(root())
        .env("PATH", path)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Whether `shell` can run; a missing shell skips the test, unless
/// CHARTGEN_REQUIRE_SHELLS is set (as `.ci/run` sets it).
fn present(shell: &str) -> bool {
    if !crate::tools::slow(shell) {
        return false;
    }
    let runs = Command::new(shell)
        .args(["-c", "exit 0"])
        .stdin(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !runs {
        assert!(
            std::env::var_os("CHARTGEN_REQUIRE_SHELLS").is_none(),
            "{shell} is not installed: .ci/run's shells step installs it"
        );
        eprintln!("skipped: {shell} is not installed");
    }
    runs
}

/// What bash offers for the words of `line` (the last being completed),
/// through the function `complete -p chartgen` names, as bash calls it.
fn bash_completes(script: &Path, line: &[&str]) -> Vec<String> {
    let words: Vec<String> = line.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        r#"source '{}' || exit 1
function=$(complete -p chartgen | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
[ -n "$function" ] || {{ echo 'chartgen has no completion function' >&2; exit 1; }}
COMP_WORDS=({words})
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
COMP_LINE="${{COMP_WORDS[*]}}"
COMP_POINT=${{#COMP_LINE}}
"$function" chartgen "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#,
        script.display(),
        words = words.join(" ")
    );
    let mut offered: Vec<String> = output("bash", &["--norc", "-c", &program])
        .lines()
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect();
    offered.sort();
    offered
}

#[test]
fn bash_completes_subcommands_flags_and_values() {
    let dir_tmp = scratch("bash");
    let dir = dir_tmp.path().to_path_buf();
    let script = script("bash", &dir);
    for (line, expected) in [
        (&["chartgen", "re"][..], &["render"][..]),
        (&["chartgen", "render", "--out"], &["--output-dir"]),
        (&["chartgen", "diff", "--ignore-h"], &["--ignore-helm"]),
        (&["chartgen", "check", "--col"], &["--color"]),
        (&["chartgen", "--color", ""], &["always", "auto", "never"]),
        (&["chartgen", "completions", "f"], &["fish"]),
        (&["chartgen", "schema", "ov"], &["overlay"]),
        (
            &["chartgen", "schema", "output-"],
            &[
                "output-check",
                "output-diff",
                "output-rbac",
                "output-validate",
            ],
        ),
        (
            &["chartgen", "diff", "--fail-on", "re"],
            &["refused", "restart"],
        ),
    ] {
        assert_eq!(bash_completes(&script, line), expected, "{line:?}");
    }
    // A positional value: every shell (and the global flags).
    let offered = bash_completes(&script, &["chartgen", "completions", ""]);
    let values: Vec<&String> = offered.iter().filter(|o| !o.starts_with('-')).collect();
    assert_eq!(values, ["bash", "elvish", "fish", "powershell", "zsh"]);
    // Every subcommand is offered after `chartgen `.
    let offered = bash_completes(&script, &["chartgen", ""]);
    for command in chartgen::args::Cli::command().get_subcommands() {
        assert!(
            offered.iter().any(|o| o == command.get_name()),
            "{} not offered: {offered:?}",
            command.get_name()
        );
    }
}

#[test]
fn fish_completes_subcommands_and_flags() {
    if !present("fish") {
        return;
    }
    let dir_tmp = scratch("fish");
    let dir = dir_tmp.path().to_path_buf();
    let script = script("fish", &dir);
    output(
        "fish",
        &["--no-config", "--no-execute", script.to_str().unwrap()],
    );
    let completes = |line: &str| -> Vec<String> {
        let program = format!(
            "source '{}'; complete --do-complete '{line}'",
            script.display()
        );
        let mut offered: Vec<String> = output("fish", &["--no-config", "-c", &program])
            .lines()
            .map(|l| l.split('\t').next().unwrap_or("").to_owned())
            .collect();
        offered.sort();
        offered
    };
    assert_eq!(completes("chartgen re"), ["render"]);
    assert_eq!(completes("chartgen render --out"), ["--output-dir"]);
    assert_eq!(completes("chartgen check --kube"), ["--kube-version"]);
    assert_eq!(completes("chartgen render --color n"), ["never"]);
    assert_eq!(
        completes("chartgen diff --fail-on re"),
        ["refused", "restart"]
    );
}

/// zsh: the script parses, registers `_chartgen` for chartgen with
/// compinit, and completes for real in an interactive zsh driven through
/// zpty (a pseudo-terminal): `chartgen re<TAB>` becomes `chartgen render`.
#[test]
fn zsh_registers_and_completes() {
    if !present("zsh") {
        return;
    }
    let dir_tmp = scratch("zsh");
    let dir = dir_tmp.path().to_path_buf();
    let script = script("zsh", &dir);
    output("zsh", &["-n", script.to_str().unwrap()]);
    let functions = dir.join("functions");
    std::fs::create_dir_all(&functions).unwrap();
    std::fs::copy(&script, functions.join("_chartgen")).unwrap();
    let setup = format!(
        "fpath=('{}' $fpath); autoload -U compinit; compinit -u -D",
        functions.display()
    );
    let registered = output(
        "zsh",
        &["-f", "-c", &format!("{setup}; print $_comps[chartgen]")],
    );
    assert_eq!(registered.trim(), "_chartgen");
    for (typed, expected) in [
        ("chartgen re", "chartgen render "),
        // zsh offers an option that takes a value with its `=`.
        (
            "chartgen render --output-d",
            "chartgen render --output-dir=",
        ),
        ("chartgen completions fi", "chartgen completions fish "),
    ] {
        let line = zsh_line_after_tab(&setup, typed);
        assert_eq!(line, expected, "{typed}<TAB>");
    }
}

/// The command line of an interactive zsh after typing `typed` and TAB.
fn zsh_line_after_tab(setup: &str, typed: &str) -> String {
    // A widget bound to Ctrl-X, sent after the TAB, prints the edit buffer
    // between the bytes 1 and 2, which the echoed command lines cannot hold.
    let program = format!(
        r#"zmodload zsh/zpty
zpty -b z zsh -f -i
zpty -w z "PS1=''; {setup}; show() {{ print -r -- \$'\\x01'\"\$BUFFER\"\$'\\x02' }}; zle -N show; bindkey '^X' show"
zpty -w -n z $'{typed}\t'
sleep 1
zpty -w -n z $'\x18'
out=''
for i in {{1..100}}; do
  zpty -r -t z chunk && out+=$chunk
  [[ $out == *$'\x01'*$'\x02'* ]] && break
  sleep 0.1
done
zpty -d z
print -r -- "${{${{out##*$'\x01'}}%%$'\x02'*}}""#
    );
    output("zsh", &["-f", "-c", &program])
        .trim_end_matches('\n')
        .to_owned()
}

/// `chartgen man --output-dir DIR` writes chartgen.1 and one page per
/// subcommand; `man -l` renders each without a warning, naming its command
/// and every long flag the subcommand takes.
#[test]
fn man_pages_render_with_every_flag() {
    if !crate::tools::slow("man") {
        return;
    }
    let dir_tmp = scratch("man");
    let dir = dir_tmp.path().to_path_buf();
    let run = chartgen(&["man", "--output-dir", dir.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let cli = chartgen::args::Cli::command();
    let mut expected = vec![("chartgen.1".to_owned(), cli.clone())];
    for sub in cli.get_subcommands() {
        expected.push((format!("chartgen-{}.1", sub.get_name()), sub.clone()));
    }
    assert!(
        run.stdout
            .contains(&format!("wrote {} man pages to ", expected.len())),
        "{}",
        run.stdout
    );
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    let mut names: Vec<String> = expected.iter().map(|(f, _)| f.clone()).collect();
    names.sort();
    assert_eq!(files, names, "no temporary file is left");
    for (file, command) in &expected {
        // Words, as a reader sees them: justification pads with spaces.
        let text = rendered_page(&dir.join(file))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let name = file.trim_end_matches(".1");
        assert!(text.contains(&format!("NAME {name} - ")), "{file}:\n{text}");
        let flags = command
            .get_arguments()
            .filter(|a| !a.is_hide_set())
            .filter_map(|a| a.get_long())
            .chain(["color", "quiet"]);
        for flag in flags {
            assert!(
                text.contains(&format!("--{flag}")),
                "{file}: --{flag}\n{text}"
            );
        }
        for sub in command.get_subcommands() {
            assert!(text.contains(sub.get_name()), "{file}: {}", sub.get_name());
        }
    }
}

/// A page rendered by `man -l` in C.UTF-8 (ASCII hyphens), failing on
/// any warning of groff.
fn rendered_page(page: &Path) -> String {
    let out = Command::new("man")
        .args(["--warnings", "-l"])
        .arg(page)
        .env("LC_ALL", "C.UTF-8")
        .env("MANWIDTH", "100")
        // No hyphenation: a flag is never split over two lines.
        .env("MANROFFOPT", "-rHY=0")
        .env("MAN_KEEP_FORMATTING", "")
        .stdin(Stdio::null())
        .output()
        .expect("man runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.is_empty(),
        "man -l {}: {stderr}",
        page.display()
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Without --output-dir, one page on stdout: the top one, or a
/// subcommand's; an unknown one is an error naming those that exist.
#[test]
fn man_prints_one_page() {
    let top = chartgen(&["man"]);
    assert_eq!(top.code, 0);
    assert!(
        top.stdout.starts_with(".ie \\n(.g .ds Aq"),
        "{}",
        top.stdout
    );
    assert!(top.stdout.contains(".TH chartgen 1 "), "{}", top.stdout);
    let render = chartgen(&["man", "render"]);
    assert!(render.stdout.contains(".TH chartgen-render 1 "));
    assert!(render.stdout.contains("\\-\\-output\\-dir"));
    let run = chartgen(&["man", "rendr\u{1b}[2J"]);
    run.assert_refused(
        2,
        "`rendr\\u{001b}[2J` is no subcommand of chartgen; man pages exist for: render, validate",
    );
    assert_eq!(run.stdout, "");
}

/// The output folder: a link, a file, or a folder under a file is refused
/// naming it, with nothing written; a page that is a link is replaced by
/// the page, the file it pointed at left alone.
#[cfg(unix)]
#[test]
fn man_refuses_links_and_files_and_replaces_pages_whole() {
    let dir_tmp = scratch("man-refuse");
    let dir = dir_tmp.path().to_path_buf();
    let real = dir.join("real");
    std::fs::create_dir(&real).unwrap();
    let link = dir.join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let file = dir.join("file");
    std::fs::write(&file, "not a folder").unwrap();
    for (target, reason) in [
        (link.clone(), "a symbolic link"),
        (file.clone(), "is a file, not a directory"),
        (file.join("below"), "Not a directory"),
    ] {
        let run = chartgen(&["man", "--output-dir", target.to_str().unwrap()]);
        run.assert_refused(2, target.to_str().unwrap());
        run.assert_refused(2, reason);
        assert_eq!(run.stdout, "", "{}", run.transcript());
    }
    // A link on the way below the working directory (a repository's):
    // refused; the same folder named from outside is the machine's.
    let run = crate::harness::chartgen_at(&dir, &["man", "--output-dir", "link/man1"], None, &[]);
    run.assert_refused(2, "`");
    run.assert_refused(2, "/link` is a symbolic link");
    assert_eq!(std::fs::read_dir(&real).unwrap().count(), 0);
    let outside = link.join("man1");
    let run = chartgen(&["--quiet", "man", "--output-dir", outside.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(real.join("man1/chartgen.1").is_file());
    std::fs::remove_dir_all(real.join("man1")).unwrap();
    assert_eq!(std::fs::read_dir(&real).unwrap().count(), 0);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a folder");
    // A folder where a page goes: refused before any page is written.
    std::fs::create_dir(real.join("chartgen-render.1")).unwrap();
    let run = chartgen(&["man", "--output-dir", real.to_str().unwrap()]);
    run.assert_refused(2, "chartgen-render.1");
    run.assert_refused(2, "not a file");
    assert_eq!(std::fs::read_dir(&real).unwrap().count(), 1);
    std::fs::remove_dir(real.join("chartgen-render.1")).unwrap();
    // A page that is a link to another file: the link is replaced.
    let secret = dir.join("secret");
    std::fs::write(&secret, "keep").unwrap();
    std::os::unix::fs::symlink(&secret, real.join("chartgen.1")).unwrap();
    let run = chartgen(&["--quiet", "man", "--output-dir", real.to_str().unwrap()]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, ""),
        "{}",
        run.transcript()
    );
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "keep");
    let page = std::fs::symlink_metadata(real.join("chartgen.1")).unwrap();
    assert!(page.is_file());
    use std::os::unix::fs::PermissionsExt as _;
    assert_eq!(page.permissions().mode() & 0o777, 0o644);
}
