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

/// The switch that runs the slow tests (above).
pub const SLOW: &str = "CHARTGEN_SLOW";

/// Whether the slow tests run, read from `var` (the environment): `Err`
/// when a `CHARTGEN_REQUIRE_…` switch asks for the real tools but [`SLOW`]
/// is not set, so that their tests would be skipped.
pub fn slow_from(var: impl Fn(&str) -> Option<String>) -> Result<bool, String> {
    let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
    if set(SLOW) {
        return Ok(true);
    }
    match REQUIRE.iter().find(|switch| set(switch)) {
        Some(switch) => Err(format!(
            "{switch} is set but {SLOW} is not: the tests of the tools it requires would be \
             skipped as slow; set {SLOW}=1 too (.ci/run sets both)"
        )),
        None => Ok(false),
    }
}

/// Every `CHARTGEN_REQUIRE_…` switch (above).
pub const REQUIRE: [&str; 11] = [
    "CHARTGEN_REQUIRE_PYYAML",
    "CHARTGEN_REQUIRE_JSONSCHEMA",
    "CHARTGEN_REQUIRE_PRE_COMMIT",
    "CHARTGEN_REQUIRE_YAML_LANGUAGE_SERVER",
    "CHARTGEN_REQUIRE_HELM",
    "CHARTGEN_REQUIRE_SARIF_SCHEMA",
    "CHARTGEN_REQUIRE_ACTIONLINT",
    "CHARTGEN_REQUIRE_SHELLCHECK",
    "CHARTGEN_REQUIRE_SHELLS",
    "CHARTGEN_REQUIRE_CHECKOV",
    "CHARTGEN_REQUIRE_SERVER",
];

/// Whether the slow tests run ([`SLOW`] is set). When not, says once per
/// test that `what` was skipped as slow; fails when a `CHARTGEN_REQUIRE_…`
/// switch is set without [`SLOW`]. A slow test starts
/// `if !tools::slow("WHAT") { return; }`.
pub fn slow(what: &str) -> bool {
    thread_local! {
        static SAID: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    let test = test_name();
    match slow_from(|name| std::env::var(name).ok()) {
        Ok(true) => true,
        Ok(false) => {
            if !SAID.replace(true) {
                eprintln!("skipped {test}: {what}: slow ({SLOW}=1 runs it, as .ci/run does)");
            }
            false
        }
        Err(why) => panic!("{test}: {why}"),
    }
}

/// How many cases a sweep tries: `fast` under plain `cargo test`, `full`
/// under [`SLOW`] (with the same failure as [`slow`] when a
/// `CHARTGEN_REQUIRE_…` switch is set without it).
pub fn cases(fast: u32, full: u32) -> u32 {
    match slow_from(|name| std::env::var(name).ok()) {
        Ok(true) => full,
        Ok(false) => fast,
        Err(why) => panic!("{}: {why}", test_name()),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    /// The switch runs the slow tests; an empty value is no switch; a
    /// requirement of real tools without it is a failure, never a skip.
    #[test]
    fn the_slow_switch_runs_the_slow_tests_and_cannot_be_forgotten_under_a_requirement() {
        assert_eq!(slow_from(env(&[])), Ok(false));
        assert_eq!(slow_from(env(&[(SLOW, "1")])), Ok(true));
        assert_eq!(slow_from(env(&[(SLOW, "")])), Ok(false));
        for switch in REQUIRE {
            assert_eq!(slow_from(env(&[(SLOW, "1"), (switch, "1")])), Ok(true));
            let error = slow_from(env(&[(switch, "1")])).unwrap_err();
            assert!(
                error.starts_with(&format!("{switch} is set but {SLOW} is not")),
                "{error}"
            );
        }
    }

    /// Every requirement this module documents is one [`slow_from`] knows,
    /// and `.ci/run` exports each, and the slow switch, before its test step
    /// (`cargo test --locked`): CI runs the proof, not the fast subset.
    #[test]
    fn the_ci_script_runs_the_slow_tests_and_requires_every_tool() {
        let docs = include_str!("tools.rs");
        let script = std::fs::read_to_string(crate::harness::root().join(".ci/run")).unwrap();
        let step = script
            .find("\ncargo test --locked\n")
            .expect(".ci/run runs `cargo test --locked` on a line of its own");
        let exported = |name: &str| {
            script[..step].lines().any(|line| {
                line.starts_with("export ")
                    && line
                        .split_whitespace()
                        .any(|word| word == format!("{name}=1"))
            })
        };
        assert!(
            exported(SLOW),
            ".ci/run must `export {SLOW}=1` before `cargo test --locked`"
        );
        for switch in REQUIRE {
            assert!(
                docs.contains(&format!("`{switch}`")),
                "{switch} is documented above"
            );
            assert!(
                exported(switch),
                ".ci/run must `export {switch}=1` before `cargo test --locked`"
            );
        }
    }
}
