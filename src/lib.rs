//! The command line: the clap definitions ([`args`]) and the examples
//! their help ends with
//! ([`examples`]), one function per subcommand ([`commands`]), and
//! how errors are printed ([`report`]), which objects `render --show-only`
//! prints ([`select`]). `main.rs` only dispatches.

pub mod args;
pub mod commands;
pub mod contract;
pub mod examples;
pub mod report;
pub mod sarif;
pub mod select;
