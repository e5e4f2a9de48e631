//! `chartgen render`: the chart as one YAML stream on stdout.

use crate::cli::ValuesArgs;
use crate::exit::Exit;
use crate::{manifest, pipeline, values};

/// Loads the values, renders, and prints the stream; prints nothing on error.
pub fn run(args: &ValuesArgs) -> anyhow::Result<Exit> {
    let loaded = values::load(&args.inputs())?;
    let bundle = pipeline::render(&loaded.values)?;
    super::print_stdout(&manifest::to_stream(&bundle.manifests))?;
    Ok(Exit::Success)
}
