//! `chartgen exemptions`: the Kyverno exclusions the namespaces need.

use crate::cli::ValuesArgs;
use crate::exit::Exit;
use crate::{pipeline, values};

/// Prints the exemptions artifact for the values.
pub fn run(args: &ValuesArgs) -> anyhow::Result<Exit> {
    let loaded = values::load(&args.inputs())?;
    let output = pipeline::render(&loaded.values)?;
    super::print_stdout(&output.exemptions)?;
    Ok(Exit::Success)
}
