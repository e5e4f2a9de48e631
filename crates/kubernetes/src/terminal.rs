//! The terminal: whether stdout and stderr take colour, the styles
//! a program colours with, and `--quiet`. Set once by `main` ([`setup`]);
//! a program that never calls it (a test, a user of the library) gets no
//! colour and every note.
//!
//! The decision ([`decide`]), per stream: `--color always|never` wins;
//! under `auto`, NO_COLOR (non-empty) turns colour off, then CLICOLOR_FORCE
//! (non-empty, not `0`) turns it on even for a pipe, then CLICOLOR=0 turns
//! it off, and otherwise a stream is coloured when it is a terminal (with
//! `TERM` set and not `dumb`, or under CI). That is anstream's order
//! (`AutoStream::choice`), except that CLICOLOR_FORCE=0 forces nothing, as
//! the CLICOLOR convention says. The outcome is written as anstream's
//! global choice, which clap reads: `--help` and usage errors follow it.
//!
//! Colour codes come only from here, as [`anstyle::Style`]s written
//! around text the caller has already escaped ([`crate::text::printable`]):
//! the input never carries an escape sequence through, coloured or not.

use std::ffi::OsString;
use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicBool, Ordering};

use anstream::ColorChoice;
use anstyle::Style;

use anstyle::{AnsiColor, Effects};

static QUIET: AtomicBool = AtomicBool::new(false);
static STDOUT_COLOUR: AtomicBool = AtomicBool::new(false);
static STDERR_COLOUR: AtomicBool = AtomicBool::new(false);

/// Decides colour for stdout and stderr under `choice` (also made the
/// global choice clap and anstream read), and whether notes are shown.
pub fn setup(choice: ColorChoice, quiet: bool) {
    let env = |name: &str| std::env::var_os(name);
    let stdout = decide(choice, std::io::stdout().is_terminal(), &env);
    let stderr = decide(choice, std::io::stderr().is_terminal(), &env);
    // clap writes help to stdout and errors to stderr under one choice:
    // when the streams differ, anstream judges each (as `decide` does but
    // for CLICOLOR_FORCE=0).
    let global = match (stdout, stderr) {
        (true, true) => ColorChoice::Always,
        (false, false) => ColorChoice::Never,
        _ => ColorChoice::Auto,
    };
    global.write_global();
    STDOUT_COLOUR.store(stdout, Ordering::Relaxed);
    STDERR_COLOUR.store(stderr, Ordering::Relaxed);
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether a stream (a terminal or not) is coloured under `choice`, with
/// the environment read through `env`.
pub fn decide(choice: ColorChoice, terminal: bool, env: &dyn Fn(&str) -> Option<OsString>) -> bool {
    let set = |name: &str| env(name).is_some_and(|v| !v.is_empty());
    let is = |name: &str, value: &str| env(name).is_some_and(|v| v == value);
    match choice {
        ColorChoice::Always | ColorChoice::AlwaysAnsi => true,
        ColorChoice::Never => false,
        ColorChoice::Auto if set("NO_COLOR") => false,
        ColorChoice::Auto if set("CLICOLOR_FORCE") && !is("CLICOLOR_FORCE", "0") => true,
        ColorChoice::Auto if is("CLICOLOR", "0") => false,
        ColorChoice::Auto => {
            let term = set("TERM") && !is("TERM", "dumb");
            let clicolor = env("CLICOLOR").is_some();
            terminal && (term || clicolor || env("CI").is_some())
        }
    }
}

/// Whether `--quiet` asked for no notes and no success lines.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Whether what goes to stdout is coloured.
pub fn stdout_colour() -> bool {
    STDOUT_COLOUR.load(Ordering::Relaxed)
}

/// Whether what goes to stderr is coloured.
pub fn stderr_colour() -> bool {
    STDERR_COLOUR.load(Ordering::Relaxed)
}

/// `error:`: bold red.
pub const ERROR: Style = AnsiColor::Red.on_default().effects(Effects::BOLD);
/// `warning:`: bold yellow.
pub const WARNING: Style = AnsiColor::Yellow.on_default().effects(Effects::BOLD);
/// `note:` and `info:`: bold green.
pub const NOTE: Style = AnsiColor::Green.on_default().effects(Effects::BOLD);
/// `hint:`: bold cyan.
pub const HINT: Style = AnsiColor::Cyan.on_default().effects(Effects::BOLD);

/// `style` when `on`, else the plain style, which writes nothing.
pub fn when(on: bool, style: Style) -> Style {
    if on { style } else { Style::new() }
}

/// `label` (`note:`, `hint:`) in `style`, followed by a space and `text`,
/// as a line for stderr; `text` must already be escaped.
pub fn labelled(label: &str, style: Style, text: &str) -> String {
    let style = when(stderr_colour(), style);
    format!("{style}{label}{style:#} {text}")
}

/// Prints a note on stderr (`note: TEXT`), unless `--quiet`. `text` must
/// already be escaped ([`crate::text::printable`]).
pub fn note(text: &str) {
    if !quiet() {
        eprintln!("{}", labelled("note:", NOTE, text));
    }
}

/// Prints a hint on stderr (`hint: TEXT`), unless `--quiet`: advice, never
/// a problem. `text` must already be escaped.
pub fn hint(text: &str) {
    if !quiet() {
        eprintln!("{}", labelled("hint:", HINT, text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a terminal and a pipe are coloured under `choice` and `vars`.
    fn colours(choice: ColorChoice, vars: &[(&str, &str)]) -> (bool, bool) {
        let env = |name: &str| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        };
        (decide(choice, true, &env), decide(choice, false, &env))
    }

    #[test]
    fn colour_follows_the_flag_then_the_environment_then_the_stream() {
        use ColorChoice::{Always, Auto, Never};
        let term = ("TERM", "xterm-256color");
        for (choice, vars, expected) in [
            (Auto, vec![term], (true, false)),
            (Auto, vec![term, ("NO_COLOR", "1")], (false, false)),
            // An empty NO_COLOR is no NO_COLOR.
            (Auto, vec![term, ("NO_COLOR", "")], (true, false)),
            (Auto, vec![term, ("CLICOLOR_FORCE", "1")], (true, true)),
            (Auto, vec![term, ("CLICOLOR_FORCE", "0")], (true, false)),
            (Auto, vec![term, ("CLICOLOR_FORCE", "")], (true, false)),
            // NO_COLOR wins over CLICOLOR_FORCE.
            (
                Auto,
                vec![term, ("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")],
                (false, false),
            ),
            (Auto, vec![term, ("CLICOLOR", "0")], (false, false)),
            (Auto, vec![("TERM", "dumb")], (false, false)),
            (Auto, vec![], (false, false)),
            (Auto, vec![("CI", "true")], (true, false)),
            // The flag wins over the environment.
            (Always, vec![("NO_COLOR", "1")], (true, true)),
            (Never, vec![term, ("CLICOLOR_FORCE", "1")], (false, false)),
        ] {
            assert_eq!(colours(choice, &vars), expected, "{choice:?} {vars:?}");
        }
    }

    #[test]
    fn a_style_is_written_only_when_on() {
        assert_eq!(
            format!("{0}x{0:#}", when(true, ERROR)),
            "\u{1b}[1m\u{1b}[31mx\u{1b}[0m"
        );
        assert_eq!(format!("{0}x{0:#}", when(false, ERROR)), "x");
    }
}
