//! The `chartgen` binary: parse arguments, run the command, report, exit.

use std::process::ExitCode;

use clap::Parser as _;

use chartgen::{cli::Cli, commands, exit::Exit, report};

/// mimalloc: a render allocates and frees hundreds of thousands of small
/// nodes, and glibc's malloc spent a third of the instructions on them
/// (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
