//! `chartgen schema`: print the values schema.

use crate::exit::Exit;

/// Prints the JSON Schema generated from the values types.
pub fn run() -> anyhow::Result<Exit> {
    super::print_stdout(&crate::schema::values_schema_text())?;
    Ok(Exit::Success)
}
