//! The integration tests: one binary, a module per area.

mod check;
mod compile_fail;
mod harness;
mod hostile_values;
mod render;
mod schema_file;
mod validate;
