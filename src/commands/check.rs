//! `chartgen check`: prove a set of rendered manifests.

use crate::args::{CheckArgs, CheckFormat};
use crate::{contract, sarif};
use chart::check::{self, Options};
use kubernetes::exit::Exit;
use kubernetes::input;
use kubernetes::kube::KubeSchemas;

/// Reads the manifests, runs every check, prints the findings; exits 1 when
/// there are any.
pub fn run(args: &CheckArgs) -> anyhow::Result<Exit> {
    if args.crds.iter().any(|c| c == "-") && args.paths.iter().any(|p| p == "-") {
        anyhow::bail!("standard input (-) can be read only once; give the CRDs as a file");
    }
    let named = args.crds.iter().chain(&args.paths).map(|p| p.as_ref());
    if let Some(twice) = kubernetes::files::one_stream_twice(named) {
        anyhow::bail!(kubernetes::files::named_twice(twice));
    }
    // The CRDs first: their scopes place the input's custom resources.
    // Anything else is refused, as `render --crd` and `explain --crd` do:
    // a file of other objects given there checks nothing.
    let crds = super::render::crds(&args.crds)?;
    let read = input::Options {
        crds: &crds,
        ..super::READ
    };
    let mut set = input::read(&args.paths, &read)?;
    let schemas = KubeSchemas::load(&args.kube_version).map_err(anyhow::Error::msg)?;
    let (report, copies) = check::run_leaving(
        &set.manifests,
        set.artifact(chart::artifacts::EXEMPTIONS_FILE),
        &Options {
            schemas: &schemas,
            extra_crds: &crds,
            only_version: args.kube_version_given,
        },
    );
    let quiet = kubernetes::terminal::quiet();
    let text = match args.output {
        // --quiet: the findings and their count, or nothing.
        CheckFormat::Text if quiet && report.findings.is_empty() => String::new(),
        CheckFormat::Text if quiet => {
            check::render_text_coloured(&report.findings, &[], set.manifests.len(), super::colour())
        }
        CheckFormat::Text => check::render_text_coloured(
            &report.findings,
            &report.info,
            set.manifests.len(),
            super::colour(),
        ),
        CheckFormat::Json => contract::versioned(&report)?,
        CheckFormat::Sarif => {
            // Files of the working tree: not stdin, not a git revision.
            let local: Vec<&str> = (args.paths.iter())
                .filter(|p| *p != "-" && set.read_at(p) == p.as_str())
                .map(String::as_str)
                .collect();
            let cwd = std::env::current_dir().ok();
            let real = |shown: &str| set.real_path(shown).map(std::path::Path::to_path_buf);
            let log = sarif::log(&report, &local, cwd.as_deref(), &real);
            kubernetes::text::json_pretty(&log)?
        }
    };
    super::print_stdout(&text)?;
    let exit = if report.findings.is_empty() {
        Exit::Success
    } else {
        Exit::Findings
    };
    set.remove_copies();
    super::leave_to_exit((set, crds, report, copies, text));
    Ok(exit)
}
