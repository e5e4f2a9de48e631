//! `chartgen exemptions`: the Kyverno exclusions the namespaces need.

use crate::args::ValuesArgs;
use chart::{pipeline, values};
use kubernetes::exit::Exit;

/// Prints the exemptions artifact for the values.
pub fn run(args: &ValuesArgs) -> anyhow::Result<Exit> {
    let mut values = values::load(&args.inputs())?.values;
    // The exemptions are the chart's namespaces'; `extraObjects` add none
    // (and their custom kinds' scopes need no `--crd` here).
    values.extra_objects.clear();
    let output = pipeline::render(&values)?;
    super::print_stdout(&output.exemptions)?;
    Ok(Exit::Success)
}
