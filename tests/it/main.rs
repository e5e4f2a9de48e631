//! The integration tests: one binary, a module per area.

mod check;
mod compile_fail;
mod cost;
mod diff;
mod harness;
mod hostile_values;
mod output;
mod render;
mod schema_file;
mod validate;
