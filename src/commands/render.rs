//! `chartgen render`: the chart as one YAML stream on stdout.

use crate::cli::ValuesArgs;
use crate::exit::Exit;
use crate::{check, manifest, pipeline, values};

/// Loads the values, renders, checks, and prints the stream. Prints nothing
/// to stdout on an error (exit 2) or when the render breaks an invariant
/// (exit 1, the findings on stderr).
pub fn run(args: &ValuesArgs) -> anyhow::Result<Exit> {
    let loaded = values::load(&args.inputs())?;
    let bundle = pipeline::render(&loaded.values)?;
    let findings = pipeline::check(&bundle)?;
    if !findings.is_empty() {
        eprint!("{}", check::render_text(&findings, bundle.manifests.len()));
        eprintln!("error: the render breaks the invariants above; nothing was printed");
        return Ok(Exit::Findings);
    }
    super::print_stdout(&manifest::to_stream(&bundle.manifests))?;
    Ok(Exit::Success)
}
