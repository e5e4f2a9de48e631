//! The integration tests: one binary, a module per area.

mod check;
mod compile_fail;
mod diff;
mod harness;
mod hostile_values;
mod output;
mod reading;
mod render;
mod schema_file;
mod validate;
