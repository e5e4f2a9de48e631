//! The command line as a Helm user types it (issue 12, "Command line"):
//! `render --show-only`, values from streams (a FIFO, `<(…)`,
//! `/dev/stdin`) under the same size limit, the examples every `--help`
//! ends with (run here for real), and suggestions for typos.

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::CommandFactory as _;

use crate::harness::{Run, chartgen, chartgen_with_stdin, root, scratch};

/// The documents of a stream, each from its `---` line.
fn documents(stream: &str) -> Vec<String> {
    stream
        .split("---\n")
        .filter(|d| !d.is_empty())
        .map(|d| format!("---\n{d}"))
        .collect()
}

/// Whether `document` is the object `kind`/`name`.
fn is(document: &str, kind: &str, name: &str) -> bool {
    document.contains(&format!("\nkind: {kind}\nmetadata:\n  name: {name}\n"))
}

fn render_stdout(args: &[&str]) -> String {
    let run = chartgen(args);
    assert_eq!(run.code, 0, "{}", run.transcript());
    run.stdout
}

/// The subset is the full render's documents, byte for byte and in its
/// order, and nothing else: an object by KIND/NAME and a template's every
/// object, each with its `# Source:` line.
#[test]
fn show_only_prints_exactly_the_selected_objects_of_the_full_render() {
    let full = render_stdout(&["render", "-f", "values/ovh-prod.yaml"]);
    let subset = render_stdout(&[
        "render",
        "-f",
        "values/ovh-prod.yaml",
        "--bundle",
        "release",
        "--show-only",
        "templates/rbac.yaml",
        "--show-only",
        "Deployment/buildkit-gateway",
    ]);
    let expected: Vec<String> = documents(&full)
        .into_iter()
        .filter(|d| {
            d.starts_with("---\n# Source: templates/rbac.yaml\n")
                || is(d, "Deployment", "buildkit-gateway")
        })
        .collect();
    assert!(expected.len() > 2, "{expected:?}");
    assert_eq!(documents(&subset), expected);
    assert!(
        subset
            .contains("# Source: templates/gateway.yaml\napiVersion: apps/v1\nkind: Deployment\n")
    );
}

/// Kinds match ignoring case (as `kubectl get deployment/x`), the
/// namespace form narrows, and a selector matching twice prints once.
#[test]
fn show_only_matches_kinds_ignoring_case_and_namespaces_exactly() {
    let one = render_stdout(&["render", "--show-only", "Deployment/buildkit-gateway"]);
    assert_eq!(documents(&one).len(), 1);
    for same in [
        vec!["render", "--show-only", "deployment/buildkit-gateway"],
        vec![
            "render",
            "--show-only",
            "buildkit-operator/DEPLOYMENT/buildkit-gateway",
        ],
        vec![
            "render",
            "--show-only",
            "Deployment/buildkit-gateway",
            "--show-only",
            "buildkit-operator/Deployment/buildkit-gateway",
        ],
    ] {
        assert_eq!(render_stdout(&same), one, "{same:?}");
    }
    let run = chartgen(&[
        "render",
        "--show-only",
        "buildkit-builds/Deployment/buildkit-gateway",
    ]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert!(
        run.stderr
            .contains("did you mean `buildkit-operator/Deployment/buildkit-gateway`?"),
        "{}",
        run.stderr
    );
    // A name matches exactly.
    let run = chartgen(&["render", "--show-only", "Deployment/BUILDKIT-gateway"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

/// Without --bundle, a selector finds the Kata bundle's objects too; with
/// --bundle, only that bundle's.
#[test]
fn show_only_looks_in_every_bundle_unless_told() {
    let args = ["render", "-f", "values/ovh-prod.yaml", "--show-only"];
    let selector = "buildkit-system/DaemonSet/buildkit-kata-clh-vcpu-tune";
    let found = render_stdout(&[&args[..], &[selector]].concat());
    let documents = documents(&found);
    assert_eq!(documents.len(), 1);
    assert!(documents[0].starts_with("---\n# Source: templates/kata/node-plumbing.yaml\n"));
    assert_eq!(
        render_stdout(&[&args[..], &[selector, "--bundle", "kata"]].concat()),
        found
    );
    let run = chartgen(&[&args[..], &[selector, "--bundle", "release"]].concat());
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert_eq!(
        run.stderr,
        format!(
            "error: --show-only `{selector}` selects only objects of a bundle --bundle leaves out; add --bundle all (or name that bundle)\n"
        )
    );
    // In no bundle at all: the choices.
    let run = chartgen(&[&args[..], &["DaemonSet/nothing", "--bundle", "release"]].concat());
    run.assert_refused(2, "selects no object of this render");
    assert_eq!(run.stdout, "");
}

/// A selector that selects nothing: exit 2, nothing printed, the nearest
/// choice as a "did you mean" and the choices that exist, closest first.
#[test]
fn a_selector_that_selects_nothing_names_the_choices_closest_first() {
    let run = chartgen(&["render", "--show-only", "Deploymnt/buildkit-gateway"]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert_eq!(
        run.stderr,
        "error: --show-only `Deploymnt/buildkit-gateway` selects no object of this render; did you mean `buildkit-operator/Deployment/buildkit-gateway`? The render has (closest first): buildkit-operator/Deployment/buildkit-gateway, buildkit-operator/Service/buildkit-gateway, buildkit-operator/Deployment/buildkit-buildd and 41 more\n"
    );
    let run = chartgen(&["render", "--show-only", "templates/rbc.yaml"]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert!(
        run.stderr.starts_with("error: --show-only `templates/rbc.yaml` selects no object of this render; did you mean `templates/rbac.yaml`? The render has (closest first): templates/rbac.yaml, "),
        "{}",
        run.stderr
    );
    // Every selector must select something, even beside one that does.
    let run = chartgen(&[
        "render",
        "--show-only",
        "Deployment/buildkit-gateway",
        "--show-only",
        "Deployment/nothing",
    ]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert!(
        run.stderr
            .contains("`Deployment/nothing` selects no object")
    );
}

/// A selector of no known form is refused before any rendering, with the
/// forms; a bare file name is pointed at its template path.
#[test]
fn a_malformed_selector_is_refused_with_the_forms() {
    for (selector, why) in [
        (
            "rbac.yaml",
            "(a template path starts with templates/, as in templates/rbac.yaml)",
        ),
        ("buildd", "(not one of the forms)"),
        ("a/b/c/d", "(not one of the forms)"),
        ("Deployment/", "(an empty part)"),
        (
            "templates/",
            "(a template path names a file under templates/)",
        ),
    ] {
        let run = chartgen(&["render", "--show-only", selector]);
        assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{selector}");
        assert_eq!(
            run.stderr,
            format!(
                "error: invalid --show-only `{selector}` {why}: write KIND/NAME, NAMESPACE/KIND/NAME or templates/FILE, e.g. Deployment/buildd or templates/rbac.yaml\n"
            )
        );
    }
}

/// --show-only prints a subset of the stream; a GitOps directory is whole
/// or it is wrong, so the two are refused together.
#[test]
fn show_only_refuses_an_output_directory() {
    let run = chartgen(&[
        "render",
        "--show-only",
        "Deployment/buildkit-gateway",
        "--output-dir",
        "x",
    ]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert!(
        run.stderr.starts_with(
            "error: the argument '--show-only <SELECTOR>' cannot be used with '--output-dir <DIR>'"
        ),
        "{}",
        run.stderr
    );
    assert!(!root().join("x").exists());
    // Without --output-dir, its companions --all and --check are refused
    // with --show-only too, not dropped: `--all values --show-only …` would
    // otherwise print the built-in defaults and exit 0.
    for (flag, named) in [
        (&["--all", "values"][..], "--all [<ENVS>]"),
        (&["--check"][..], "--check"),
    ] {
        let mut args = vec!["render", "--show-only", "Namespace/buildkit-builds"];
        args.extend(flag);
        let run = chartgen(&args);
        assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{args:?}");
        assert!(
            run.stderr.starts_with(&format!(
                "error: the argument '--show-only <SELECTOR>' cannot be used with '{named}'"
            )),
            "{}",
            run.stderr
        );
    }
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// A FIFO at `path` that a thread writes `bytes` into, as a shell's
/// process substitution does; the thread ends when the reader took them
/// or closed its end (a reader stopping at its limit closes early).
fn fifo_writing(path: &Path, bytes: Vec<u8>) -> std::thread::JoinHandle<()> {
    mkfifo(path);
    let path = path.to_owned();
    std::thread::spawn(move || {
        // Opening for writing waits for the reader; a closed pipe is fine.
        let _ = std::fs::write(&path, bytes);
    })
}

/// `-f FIFO` (what `-f <(…)` passes) renders as the file does.
#[test]
fn values_from_a_fifo_render_as_from_the_file() {
    let dir_tmp = scratch("fifo");
    let dir = dir_tmp.path().to_path_buf();
    let fifo = dir.join("values");
    let text = std::fs::read(root().join("values/ovh-prod.yaml")).unwrap();
    let writer = fifo_writing(&fifo, text);
    let run = chartgen(&["render", "-f", fifo.to_str().unwrap()]);
    writer.join().unwrap();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        render_stdout(&["render", "-f", "values/ovh-prod.yaml"])
    );
    // Layered after a file, and located in its errors by the path given.
    let fifo = dir.join("overlay");
    let writer = fifo_writing(&fifo, b"buildd:\n  replicas: many\n".to_vec());
    let run = chartgen(&[
        "validate",
        "-f",
        "values/dev.yaml",
        "-f",
        fifo.to_str().unwrap(),
    ]);
    writer.join().unwrap();
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with(&format!("error: {}:2:13: buildd.replicas:", fifo.display())),
        "{}",
        run.stderr
    );
}

/// `-f /dev/stdin` reads standard input, whatever it is (here a pipe).
#[test]
fn values_from_dev_stdin() {
    let text = std::fs::read_to_string(root().join("values/dev.yaml")).unwrap();
    let run = chartgen_with_stdin(&["render", "-f", "/dev/stdin"], Some(&text));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        render_stdout(&["render", "-f", "values/dev.yaml"])
    );
    let run = chartgen_with_stdin(
        &["validate", "-f", "/dev/stdin"],
        Some("gateway:\n  replicas: many\n"),
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("error: /dev/stdin:2:13: gateway.replicas:"),
        "{}",
        run.stderr
    );
}

/// A stream is read up to the values files' size limit and no further:
/// `/dev/zero` and a FIFO that writes too much are refused, not buffered.
#[test]
fn a_stream_past_the_values_limit_is_refused() {
    let limit = kubernetes::yaml::Limits::VALUES.max_bytes;
    let run = chartgen(&["validate", "-f", "/dev/zero"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(&format!(
            "error: /dev/zero:1:1: larger than the limit of {limit} bytes"
        )),
        "{}",
        run.stderr
    );
    let dir_tmp = scratch("fifo-large");
    let dir = dir_tmp.path().to_path_buf();
    let fifo = dir.join("large");
    let writer = fifo_writing(&fifo, "# padding\n".repeat(limit / 10 + 10).into_bytes());
    let run = chartgen(&["validate", "-f", fifo.to_str().unwrap()]);
    writer.join().unwrap();
    run.assert_refused(2, &format!("larger than the limit of {limit} bytes"));
}

/// What cannot be read as a stream stays refused when named: a socket, a
/// directory.
#[test]
fn a_socket_or_a_directory_named_as_values_is_refused() {
    let dir_tmp = scratch("socket");
    let dir = dir_tmp.path().to_path_buf();
    let socket = dir.join("socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    for (path, what) in [
        (socket.as_path(), "a socket"),
        (dir.as_path(), "a directory"),
    ] {
        let run = chartgen(&["validate", "-f", path.to_str().unwrap()]);
        run.assert_refused(2, &format!("is {what}, not a regular file"));
        // A path the user names may be a pipe: the message says so, and
        // does not claim that a FIFO is refused.
        run.assert_refused(2, "or a stream (a pipe, `<(…)`, /dev/stdin)");
        run.assert_stderr_lacks("opens nothing else");
    }
}

/// Runs `chartgen ARGS` in `dir`, failing the test if it has not ended
/// within a minute (it would be waiting on a FIFO).
fn run_in(dir: &Path, args: &[&str]) -> crate::harness::Run {
    let mut child = crate::harness::command(dir, args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("chartgen {args:?} hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    crate::harness::Run {
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        code: status.code().unwrap(),
        stdout: String::new(),
        stderr,
    }
}

/// A FIFO nobody writes to, found by chartgen rather than named (in the
/// values folder `--all` reads, in an output directory), is refused from
/// its metadata, never opened: opening it would wait forever.
#[test]
fn a_fifo_nobody_writes_in_a_folder_chartgen_reads_never_hangs() {
    let dir_tmp = scratch("found-fifo");
    let dir = dir_tmp.path().to_path_buf();
    std::fs::create_dir(dir.join("values")).unwrap();
    std::fs::copy(root().join("values/dev.yaml"), dir.join("values/dev.yaml")).unwrap();
    mkfifo(&dir.join("values/stuck.yaml"));
    // Refused, named, and never waited on.
    run_in(&dir, &["render", "--all", "--output-dir", "out"])
        .assert_refused(2, "values/stuck.yaml");
    std::fs::remove_file(dir.join("values/stuck.yaml")).unwrap();
    std::fs::create_dir_all(dir.join("out/dev/release")).unwrap();
    mkfifo(&dir.join("out/dev/release/stuck.yaml"));
    for check in [&[][..], &["--check"]] {
        let args = [&["render", "--all", "--output-dir", "out"][..], check].concat();
        run_in(&dir, &args).assert_refused(2, "out/dev/release/stuck.yaml`: it is a FIFO");
    }
}

/// The examples at the end of a help text: its lines that start with
/// `  chartgen `.
fn examples(help: &str) -> Vec<String> {
    let Some((_, examples)) = help.split_once("\nExamples:\n") else {
        return Vec::new();
    };
    examples
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter(|l| l.starts_with("chartgen "))
        .map(str::to_owned)
        .collect()
}

/// Every `--help` (the top one and each subcommand's) ends with examples,
/// and each runs from the repository root, through bash, exiting 0.
#[test]
fn every_help_ends_with_examples_that_run() {
    let bin = Path::new(env!("CARGO_BIN_EXE_chartgen")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut commands = vec![String::new()];
    commands.extend(
        chartgen::args::Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_owned()),
    );
    for command in commands {
        let args: Vec<&str> = [command.as_str(), "--help"]
            .into_iter()
            .filter(|a| !a.is_empty())
            .collect();
        let help = chartgen(&args);
        assert_eq!(help.code, 0);
        let examples = examples(&help.stdout);
        assert!(
            !examples.is_empty(),
            "`chartgen {command} --help` has no examples:\n{}",
            help.stdout
        );
        for example in examples {
            let out = Command::new("bash")
                .args(["-c", &format!("set -o pipefail; {example}")])
                .current_dir(root())
                .env("PATH", &path)
                .env("NO_COLOR", "1")
                .env_remove("CHARTGEN_TEMPLATES")
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "`{example}` (from `chartgen {command} --help`) failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// Every `--help` states its exit status before its examples: a `1` line
/// for the commands that exit 1 (render, check, diff; the README's table),
/// "never 1" for the others.
#[test]
fn every_help_states_its_exit_status() {
    let mut commands = vec![String::new()];
    commands.extend(
        chartgen::args::Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_owned())
            .filter(|name| name != "help"),
    );
    for command in commands {
        let args: Vec<&str> = [command.as_str(), "--help"]
            .into_iter()
            .filter(|a| !a.is_empty())
            .collect();
        let help = chartgen(&args).stdout;
        let Some((_, status)) = help.split_once("\nExit status:\n  0  ") else {
            panic!("`chartgen {command} --help` states no exit status:\n{help}")
        };
        let status = status.split("\n\nExamples:\n").next().unwrap();
        let exits_1 = ["", "render", "check", "diff"].contains(&command.as_str());
        assert_eq!(status.contains("\n  1  "), exits_1, "{command}: {status}");
        assert_eq!(status.contains("never 1"), !exits_1, "{command}: {status}");
        assert!(status.contains("\n  2  "), "{command}: {status}");
    }
}

/// `chartgen help --help` is the help subcommand's own help, as `help
/// help` is (clap alone calls `--help` an unknown subcommand).
#[test]
fn help_of_help_is_help() {
    for args in [
        &["help", "--help"][..],
        &["help", "-h"],
        &["--color", "never", "-q", "help", "--help"],
    ] {
        let run = chartgen(args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert!(
            run.stdout.contains("Usage: chartgen help [COMMAND]..."),
            "{args:?}: {}",
            run.stdout
        );
    }
}

/// A typo in a subcommand or a flag: exit 2 and the nearest as a tip
/// (clap's `suggestions`, a default feature).
#[test]
fn typos_suggest_the_nearest_command_and_flag() {
    for (args, tip) in [
        (&["rendr"][..], "tip: a similar subcommand exists: 'render'"),
        (
            &["render", "--sett", "x"],
            "tip: a similar argument exists: '--set'",
        ),
        (
            &["render", "--show-onyl", "x"],
            "tip: a similar argument exists: '--show-only'",
        ),
        (
            &["check", "--kube-versoin", "1.33", "out"],
            "tip: a similar argument exists: '--kube-version'",
        ),
    ] {
        let run: Run = chartgen(args);
        run.assert_refused(2, tip);
        assert_eq!(run.stdout, "", "{args:?}");
    }
}

/// Helm's habits: `template` renders, `-n` says where chartgen puts
/// namespaces, `--kube-version` picks the API the render is checked
/// against, and a Helm chart's top-level keys point to chartgen's.
#[test]
fn helm_habits_are_met() {
    let render = chartgen(&["render"]);
    let template = chartgen(&["template"]);
    assert_eq!(template.code, 0, "{}", template.stderr);
    assert_eq!(template.stdout, render.stdout);
    let run = chartgen(&["render", "-n", "builds"]);
    run.assert_refused(
        2,
        "chartgen has no release namespace (`-n builds` is Helm's)",
    );
    run.assert_refused(2, "--set namespaces.operator=builds");
    let old = chartgen(&["render", "--kube-version", "1.33"]);
    assert_eq!(old.code, 0, "{}", old.stderr);
    assert_eq!(old.stdout, render.stdout);
    assert_eq!(chartgen(&["render", "--kube-version", "1.20"]).code, 2);
    let run = chartgen(&[
        "validate",
        "--set",
        "replicaCount=2",
        "--set",
        "tolerations[0].key=a",
        "--set",
        "fullnameOverride=x",
    ]);
    for hint in [
        "hint: Helm's `replicaCount` is per workload here: `buildd.replicas`, `gateway.replicas`",
        "hint: a Helm chart's top-level `tolerations` is per workload here: `buildd.tolerations`",
        "hint: Helm's `fullnameOverride` is `releaseName` here",
    ] {
        run.assert_refused(2, hint);
    }
    // A workload's Helm names lead to its escape hatches; the top level's
    // to the workloads'.
    let run = chartgen(&[
        "validate",
        "--set-json",
        r#"buildd.env=[{"name":"X","value":"1"}]"#,
        "--set",
        "gateway.args[0]=--verbose",
        "--set-json",
        "builds.daemon.extraContainers=[]",
        "--set-json",
        "extraEnv=[]",
    ]);
    for hint in [
        "buildd.env: unknown key `env`\n  hint: did you mean `extraEnv`? (a Helm chart's `env`",
        "gateway.args: unknown key `args`\n  hint: did you mean `extraArgs`?",
        "builds.daemon.extraContainers: unknown key `extraContainers`\n  hint: did you mean `sidecars`?",
        "hint: a Helm chart's top-level `extraEnv` is per workload here: `buildd.extraEnv`",
    ] {
        run.assert_refused(2, hint);
    }
}

/// A render of some hundred kilobytes, more than one piece of the stream
/// (`print_stream`; the pieces themselves are `manifest`'s unit test): a
/// reader that stops after the first bytes (`| head -c 100`) ends the run
/// cleanly, and a stdout that cannot be written (`> /dev/full`) is an
/// error that says so, with no half-hidden success.
#[test]
fn a_large_render_into_a_reader_that_stops_or_a_full_device() {
    let dir = scratch("pieces");
    let values = crate::harness::many_projects(dir.path(), 400);
    let args = ["render", "-f", values.to_str().unwrap()];
    let whole = render_stdout(&args);
    assert!(whole.len() > 3 * (64 << 10), "{} bytes", whole.len());

    let mut child = crate::harness::command(root(), &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0; 100];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The pipe's reading end is closed here, after 100 bytes.
    let out = child.wait_with_output().unwrap();
    assert_eq!(&first[..], &whole.as_bytes()[..100]);
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).as_ref()
        ),
        (Some(0), "")
    );

    let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
    let Ok(full) = full else {
        eprintln!("skipped the full device: this system has no /dev/full");
        return;
    };
    let out = crate::harness::command(root(), &args)
        .stdout(full)
        .output()
        .unwrap();
    crate::harness::Run::of(&args, out)
        .assert_refused_each(2, &["cannot write to standard output", "No space left"]);
}
