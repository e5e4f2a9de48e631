//! The `chartgen` binary: parse arguments, run the command, report, exit.

use std::process::ExitCode;

use clap::Parser as _;

use chartgen::{cli::Cli, commands, exit::Exit, report};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match commands::run(cli) {
        Ok(exit) => exit.into(),
        Err(error) => {
            eprint!("{}", report::render(&error));
            Exit::BadInput.into()
        }
    }
}
