//! The integration tests: one binary, a module per area.

mod accepted;
mod check;
mod cli;
mod compile_fail;
mod corpus;
mod cost;
mod diff;
mod explain;
mod fuzz;
mod harness;
mod helm;
mod hostile_values;
mod integrations;
mod kube_schemas;
mod output;
mod outputs;
mod reading;
mod render;
mod schema_file;
mod secrets;
mod shell;
mod terminal;
mod truth_api;
mod upgrade;
mod validate;
mod values_schema;
