//! `chartgen completions SHELL`: the shell's completion script, generated
//! by clap_complete from the same definitions as the parser, on stdout.

use clap::CommandFactory as _;

use crate::args::{Cli, CompletionsArgs};
use kubernetes::exit::Exit;

/// Prints the completion script for the shell.
pub fn run(args: &CompletionsArgs) -> anyhow::Result<Exit> {
    super::print_stdout(&script(args.shell))?;
    Ok(Exit::Success)
}

/// The completion script of `shell` for the command `chartgen`.
pub fn script(shell: clap_complete::Shell) -> String {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "chartgen", &mut out);
    // clap_complete writes the text of the definitions: UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}
