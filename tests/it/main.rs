//! The integration tests: one binary, a module per area.

mod harness;
mod schema_file;
mod validate;
