//! The `chartgen` binary: parse arguments, run the command, report, exit.

use std::ffi::OsString;
use std::process::ExitCode;

use anstream::ColorChoice;
use chartgen::args::{Cli, ColorWhen};
use chartgen::{commands, report};
use kubernetes::exit::Exit;
use kubernetes::terminal;

/// mimalloc: a render allocates and frees hundreds of thousands of small
/// nodes, and glibc's malloc spent a third of the instructions on them
/// (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = help_of_help(std::env::args_os().collect());
    // clap prints --help and usage errors while it parses: the colour
    // choice has to be made before, from the raw arguments.
    terminal::setup(
        choice(color_before_parsing(&args).unwrap_or_default()),
        false,
    );
    let cli = Cli::parse_noting(args);
    terminal::setup(choice(cli.color), cli.quiet);
    match commands::run(cli) {
        Ok(exit) => exit.into(),
        Err(error) => {
            eprint!("{}", report::render_for_stderr(&error));
            Exit::BadInput.into()
        }
    }
}

/// `chartgen help --help` (or `-h`) as `chartgen help help`: clap's help
/// subcommand takes subcommand names only, and calls `--help` an unknown
/// one; clap has no setting for it.
fn help_of_help(mut args: Vec<OsString>) -> Vec<OsString> {
    // The global flags that may come before the subcommand.
    let mut at = 1;
    while let Some(arg) = args.get(at).and_then(|a| a.to_str()) {
        match arg {
            "--color" => at += 2,
            "-q" | "--quiet" => at += 1,
            _ if arg.starts_with("--color=") => at += 1,
            _ => break,
        }
    }
    if args.get(at).is_some_and(|a| a == "help")
        && let Some(flag) = args
            .get_mut(at + 1)
            .filter(|a| *a == "--help" || *a == "-h")
    {
        *flag = OsString::from("help");
    }
    args
}

fn choice(when: ColorWhen) -> ColorChoice {
    match when {
        ColorWhen::Auto => ColorChoice::Auto,
        ColorWhen::Always => ColorChoice::Always,
        ColorWhen::Never => ColorChoice::Never,
    }
}

/// The last `--color WHEN` or `--color=WHEN` before `--`, when WHEN is one
/// clap accepts (clap itself reports any other).
fn color_before_parsing(args: &[OsString]) -> Option<ColorWhen> {
    use clap::ValueEnum as _;
    let mut found = None;
    let mut args = args.iter().skip(1).map(|a| a.to_str().unwrap_or(""));
    while let Some(arg) = args.next() {
        let value = match arg {
            "--" => break,
            "--color" => args.next().unwrap_or(""),
            _ => match arg.strip_prefix("--color=") {
                Some(value) => value,
                None => continue,
            },
        };
        found = ColorWhen::from_str(value, false).ok().or(found);
    }
    found
}
