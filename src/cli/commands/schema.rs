//! `chartgen schema`: print the values schema, of the merged values or of
//! one values file (the overlay, for editors).

use crate::cli::{SchemaArgs, SchemaKind};
use crate::exit::Exit;

/// Prints the JSON Schema generated from the values types: the strict one
/// of the merged values, or the overlay one of a values file.
pub fn run(args: &SchemaArgs) -> anyhow::Result<Exit> {
    let text = match args.kind {
        SchemaKind::Merged => crate::schema::values_schema_text(),
        SchemaKind::Overlay => crate::schema_overlay::overlay_schema_text(),
    };
    super::print_stdout(&text)?;
    Ok(Exit::Success)
}
