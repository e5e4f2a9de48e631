//! `chartgen render`: the chart as one YAML stream on stdout, or as files
//! in a GitOps directory (`--output-dir`), for one environment or every
//! file in `values/` (`--all`), written or only compared (`--check`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::cli::RenderArgs;
use crate::diff::{self, Style};
use crate::error::Error;
use crate::exit::Exit;
use crate::output::{self, Report};
use crate::pipeline::{self, Bundle};
use crate::values::{self, Inputs};
use crate::{check, input, manifest};

/// Where `--all` finds the environments.
const VALUES_DIR: &str = "values";

/// Renders as the arguments ask. Prints nothing to stdout on an error
/// (exit 2) or when the render breaks an invariant (exit 1, findings on
/// stderr); with `--check`, exits 1 when a directory has drifted.
pub fn run(args: &RenderArgs) -> anyhow::Result<Exit> {
    let inputs = args.values.inputs();
    let Some(dir) = &args.output_dir else {
        let Some(bundle) = checked_render(&inputs)? else {
            return Ok(Exit::Findings);
        };
        super::print_stdout(&manifest::to_stream(&bundle.manifests))?;
        return Ok(Exit::Success);
    };
    let targets: Vec<(Inputs, PathBuf)> = if args.all {
        environments(&inputs, dir)?
    } else {
        vec![(inputs, dir.clone())]
    };
    let mut drifted = false;
    let mut out = String::new();
    for (inputs, target) in &targets {
        let Some(bundle) = checked_render(inputs)? else {
            return Ok(Exit::Findings);
        };
        let files = output::files(&bundle.manifests, &bundle.exemptions)?;
        let report = output::sync(target, &files, !args.check)?;
        for foreign in &report.foreign {
            eprintln!(
                "note: {} is not part of this render; left alone",
                target.join(foreign).display()
            );
        }
        if args.check {
            drifted |= report.drifted();
            out += &check_report(target, &report, &bundle)?;
        } else {
            out += &write_report(target, &report);
        }
    }
    if args.all {
        // Environments whose values file is gone: their files go too.
        for stale in stale_environments(dir, &targets)? {
            let report = output::sync(&stale, &Default::default(), !args.check)?;
            if args.check {
                drifted |= report.drifted();
                out += &file_changes(&stale, &report);
            } else if report.drifted() {
                out += &write_report(&stale, &report);
            }
        }
    }
    super::print_stdout(&out)?;
    Ok(if drifted {
        Exit::Findings
    } else {
        Exit::Success
    })
}

/// Renders and checks; `None` (with the findings on stderr) when the render
/// breaks an invariant.
fn checked_render(inputs: &Inputs) -> anyhow::Result<Option<Bundle>> {
    let loaded = values::load(inputs)?;
    let bundle = pipeline::render(&loaded.values)?;
    let findings = pipeline::check(&bundle);
    if findings.is_empty() {
        return Ok(Some(bundle));
    }
    eprint!("{}", check::render_text(&findings, bundle.manifests.len()));
    eprintln!("error: the render breaks the invariants above; nothing was written");
    Ok(None)
}

/// `values/<env>.yaml` → `DIR/<env>`, each with the `--set` overrides.
fn environments(inputs: &Inputs, dir: &Path) -> Result<Vec<(Inputs, PathBuf)>, Error> {
    let read = |source| Error::ReadValues {
        path: PathBuf::from(VALUES_DIR),
        source,
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(VALUES_DIR)
        .map_err(read)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(read)?;
    files.retain(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"));
    files.sort();
    Ok(files
        .into_iter()
        .map(|file| {
            let name = file
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let inputs = Inputs {
                files: vec![file],
                sets: inputs.sets.clone(),
            };
            (inputs, dir.join(name))
        })
        .collect())
}

/// Folders of `dir` that hold chartgen's files but no longer have a values file.
fn stale_environments(dir: &Path, targets: &[(Inputs, PathBuf)]) -> Result<Vec<PathBuf>, Error> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut stale: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir() && p.join(output::KUSTOMIZATION).is_file())
        .filter(|p| !targets.iter().any(|(_, t)| t == p))
        .collect();
    stale.sort();
    Ok(stale)
}

fn write_report(dir: &Path, report: &Report) -> String {
    format!(
        "{}: {} added, {} changed, {} removed, {} unchanged\n",
        dir.display(),
        report.added.len(),
        report.changed.len(),
        report.removed.len(),
        report.unchanged
    )
}

fn file_changes(dir: &Path, report: &Report) -> String {
    let mut out = String::new();
    if !report.drifted() {
        let _ = writeln!(
            out,
            "ok: {} is up to date ({} files)",
            dir.display(),
            report.unchanged
        );
        return out;
    }
    let _ = writeln!(
        out,
        "drift: {} is not what a render would write",
        dir.display()
    );
    for (sign, files) in [
        ('+', &report.added),
        ('~', &report.changed),
        ('-', &report.removed),
    ] {
        for file in files {
            let _ = writeln!(out, "  {sign} {file}");
        }
    }
    out
}

/// The drift of one directory: which files, then what changes in the objects.
fn check_report(dir: &Path, report: &Report, bundle: &Bundle) -> anyhow::Result<String> {
    let mut out = file_changes(dir, report);
    if report.drifted() && dir.exists() {
        let current = input::read(&[dir.display().to_string()])?;
        let difference = diff::diff(&current.manifests, &bundle.manifests, &[]);
        if !difference.is_empty() {
            let style = if super::colour() {
                Style::colour()
            } else {
                Style::default()
            };
            for line in diff::render_text(&difference, style).lines() {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
    Ok(out)
}
