//! One function per subcommand; each returns how the run ended.

mod check;
mod completions;
mod diff;
mod exemptions;
mod explain;
mod man;
mod rbac;
mod render;
mod schema;
mod validate;

use std::io::Write as _;

use crate::args::{Cli, Command, DocsTopic};
use kubernetes::exit::Exit;

/// Runs the command the user asked for.
pub fn run(cli: Cli) -> anyhow::Result<Exit> {
    match cli.command {
        Command::Render(args) => render::run(&args),
        Command::Validate(args) => validate::run(&args),
        Command::Exemptions(args) => exemptions::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Rbac(args) => rbac::run(&args),
        Command::Diff(args) => diff::run(&args),
        Command::Schema(args) => schema::run(&args),
        Command::Completions(args) => completions::run(&args),
        Command::Man(args) => man::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Docs(args) => {
            let text = match args.topic {
                DocsTopic::Values => chart::docs::values_reference(),
                DocsTopic::Checks => chart::check::rules::reference(),
            };
            print_stdout(&text).map(|()| Exit::Success)
        }
    }
}

/// Leaves `value` to the end of the process instead of freeing it: `main`
/// exits as soon as the command returns, and freeing a render's trees node
/// by node is work nobody waits for (BENCHMARKS.md: 4 % of a diff, more of
/// a large render). Only for what a command holds when it is done.
fn leave_to_exit<T>(value: T) {
    std::mem::forget(value);
}

/// Whether to colour what goes to stdout (`--color`, NO_COLOR,
/// CLICOLOR_FORCE, a terminal: [`kubernetes::terminal`]).
fn colour() -> bool {
    kubernetes::terminal::stdout_colour()
}

/// Prints a success line (`values are valid`, `ok: …`, what a write did)
/// on stdout, unless `--quiet`.
fn print_success(text: &str) -> anyhow::Result<()> {
    if kubernetes::terminal::quiet() {
        return Ok(());
    }
    print_stdout(text)
}

/// Writes command output to stdout. A closed pipe (`chartgen schema | head`)
/// is not an error: the reader has what it wanted.
fn print_stdout(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(anyhow::Error::new(e).context("cannot write to standard output"))
        }
        _ => Ok(()),
    }
}
