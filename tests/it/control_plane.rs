//! `scripts/control-plane/cluster` itself: a clear skip without Go, and a
//! `down` that stops only what `up` started. Neither needs Go nor a server.

use std::path::Path;
use std::process::{Command, Output};

use crate::harness::root;

fn script() -> std::path::PathBuf {
    root().join("scripts/control-plane/cluster")
}

/// Where `tool` is found on this process's `PATH`.
fn which(tool: &str) -> String {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .expect("sh runs");
    assert!(found.status.success(), "{tool} is on PATH");
    String::from_utf8(found.stdout)
        .expect("a UTF-8 path")
        .trim()
        .to_owned()
}

/// Runs the script with `PATH` holding only the tools named (links in a
/// folder of their own), its state in `state`.
fn run_with_only(tools: &[&str], state: &Path, command: &str) -> Output {
    let bin = tempfile::tempdir().expect("a temporary folder");
    for tool in tools {
        std::os::unix::fs::symlink(which(tool), bin.path().join(tool)).expect("a link");
    }
    Command::new(which("bash"))
        .arg(script())
        .arg(command)
        .env("PATH", bin.path())
        .env("CHARTGEN_CONTROL_PLANE_DIR", state)
        .output()
        .expect("bash runs")
}

#[test]
fn without_go_the_script_says_it_skipped_in_one_line_and_exits_3() {
    let state = tempfile::tempdir().expect("a temporary folder");
    for command in ["build", "up", "crds"] {
        let out = run_with_only(&["dirname", "mkdir"], state.path(), command);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{command}: {stderr}");
        assert_eq!(
            stderr, "control plane: skipped: go is not on PATH (install Go 1.25 or newer)\n",
            "{command}"
        );
    }
}

/// What `down` runs besides bash's builtins.
const DOWN_TOOLS: &[&str] = &[
    "dirname", "mkdir", "rm", "tr", "head", "grep", "seq", "sleep",
];

#[test]
fn down_stops_only_the_processes_up_recorded() {
    let state = tempfile::tempdir().expect("a temporary folder");
    let mut bystander = Command::new("sleep").arg("30").spawn().expect("sleep runs");
    // A pid file naming the bystander's pid but another binary: a recycled
    // pid, or a file someone wrote. `down` must leave that process alone.
    std::fs::write(
        state.path().join("kube-apiserver.pid"),
        format!("{} /nonexistent/kube-apiserver\n", bystander.id()),
    )
    .expect("a pid file");
    let out = run_with_only(DOWN_TOOLS, state.path(), "down");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        bystander.try_wait().expect("a status").is_none(),
        "down killed a process it did not start"
    );
    assert!(
        !state.path().join("kube-apiserver.pid").exists(),
        "the stale pid file is gone"
    );
    bystander.kill().expect("the bystander stops");
    bystander.wait().expect("reaped");

    // The pid file of a process the script did start (same pid, same
    // binary) is honoured: `down` stops it.
    let mut started = Command::new(which("sleep"))
        .arg("30")
        .spawn()
        .expect("sleep runs");
    std::fs::write(
        state.path().join("etcd.pid"),
        format!("{} {}\n", started.id(), which("sleep")),
    )
    .expect("a pid file");
    let out = run_with_only(DOWN_TOOLS, state.path(), "down");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let status = started.wait().expect("the started process ends");
    assert!(!status.success(), "stopped by a signal: {status:?}");
}
