//! `chartgen schema`: print a JSON Schema: of the merged values, of one
//! values file (the overlay, for editors), or of a command's JSON output.

use crate::args::{SchemaArgs, SchemaKind};
use crate::contract::{self, Output};
use kubernetes::exit::Exit;

/// Prints the JSON Schema generated from the values types (the strict one
/// of the merged values, or the overlay one of a values file), or from a
/// command's output types.
pub fn run(args: &SchemaArgs) -> anyhow::Result<Exit> {
    let text = match args.kind {
        SchemaKind::Merged => chart::schema::values_schema_text(),
        SchemaKind::Overlay => chart::schema_overlay::overlay_schema_text(),
        SchemaKind::OutputCheck => contract::schema_text(Output::Check),
        SchemaKind::OutputRbac => contract::schema_text(Output::Rbac),
        SchemaKind::OutputDiff => contract::schema_text(Output::Diff),
        SchemaKind::OutputValidate => contract::schema_text(Output::Validate),
    };
    super::print_stdout(&text)?;
    Ok(Exit::Success)
}
