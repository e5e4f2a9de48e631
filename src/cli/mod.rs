//! The command line: the clap definitions ([`args`], re-exported here so
//! `cli::Cli` names them), one function per subcommand ([`commands`]), and
//! how errors are printed ([`report`]), which objects `render --show-only`
//! prints ([`select`]). `main.rs` only dispatches.

pub mod args;
pub mod commands;
pub mod report;
pub mod select;

pub use args::*;
