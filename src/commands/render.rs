//! `chartgen render`: the chart as one YAML stream on stdout, or as files
//! in a GitOps directory (`--output-dir`), for one environment or every
//! file in `values/` (`--all`), written or only compared (`--check`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::cli::{BundleChoice, RenderArgs};
use crate::diff::{self, Style};
use crate::error::Error;
use crate::exit::Exit;
use crate::manifest::Manifest;
use crate::output::{self, Report};
use crate::pipeline::{self, Bundle, Output};
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
        let Some(output) = checked_render(&inputs)? else {
            return Ok(Exit::Findings);
        };
        let bundles = selected(&output, args.bundle.unwrap_or(BundleChoice::Release))?;
        super::print_stdout(&manifest::to_stream(&output.manifests(&bundles)))?;
        return Ok(Exit::Success);
    };
    let targets: Vec<(Inputs, PathBuf)> = if args.all {
        environments(&inputs, dir)?
    } else {
        vec![(inputs, dir.clone())]
    };
    let choice = args.bundle.unwrap_or(BundleChoice::All);
    let mut drifted = false;
    let mut out = String::new();
    for (inputs, target) in &targets {
        let Some(output) = checked_render(inputs)? else {
            return Ok(Exit::Findings);
        };
        // Every directory and its files are decided before anything is written.
        let plan = match choice {
            BundleChoice::All => layout(&output, target)?,
            BundleChoice::Release => {
                vec![(target.clone(), bundle_files(&output, Bundle::Release)?)]
            }
            BundleChoice::Kata => {
                selected(&output, choice)?;
                vec![(target.clone(), bundle_files(&output, Bundle::Kata)?)]
            }
        };
        for (directory, files) in &plan {
            let report = output::sync(directory, files, !args.check)?;
            let nested = directory == target && choice == BundleChoice::All;
            for foreign in &report.foreign {
                // The layout's own bundle directories are not foreign to its root.
                if nested
                    && Bundle::ALL
                        .iter()
                        .any(|b| foreign.starts_with(&format!("{}/", b.name())))
                {
                    continue;
                }
                eprintln!(
                    "note: {} is not part of this render; left alone",
                    directory.join(foreign).display()
                );
            }
            // A bundle directory with nothing in it, before and after, is not
            // reported; one emptied by this render goes (only if empty).
            if files.is_empty() {
                if !args.check {
                    let _ = std::fs::remove_dir(directory);
                }
                if !report.drifted() {
                    continue;
                }
            }
            if args.check {
                drifted |= report.drifted();
                out += &if nested {
                    file_changes(directory, &report)
                } else {
                    let bundles = bundles_in(&output, directory, target, choice);
                    check_report(directory, &report, output.manifests(&bundles))?
                };
            } else {
                out += &write_report(directory, &report);
            }
        }
    }
    if args.all {
        // Environments whose values file is gone: their files go too.
        for stale in stale_environments(dir, &targets)? {
            for directory in std::iter::once(stale.clone())
                .chain(Bundle::ALL.iter().map(|b| stale.join(b.name())))
            {
                let report = output::sync(&directory, &BTreeMap::new(), !args.check)?;
                if args.check {
                    drifted |= report.drifted();
                    if report.drifted() {
                        out += &file_changes(&directory, &report);
                    }
                } else if report.drifted() {
                    out += &write_report(&directory, &report);
                }
            }
            if !args.check {
                // Emptied folders go; anything left in them keeps them.
                for directory in Bundle::ALL
                    .iter()
                    .map(|b| stale.join(b.name()))
                    .chain([stale.clone()])
                {
                    let _ = std::fs::remove_dir(directory);
                }
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

/// The bundles `choice` names; an error when it names the Kata bundle of an
/// environment that does not run Kata.
fn selected(output: &Output, choice: BundleChoice) -> Result<Vec<Bundle>, Error> {
    match choice {
        BundleChoice::Release => Ok(vec![Bundle::Release]),
        BundleChoice::All => Ok(output.bundles()),
        BundleChoice::Kata if output.kata.is_empty() => Err(Error::Usage {
            reason: "this environment does not run Kata (kata.enabled is false), so it has no Kata bundle".to_owned(),
        }),
        BundleChoice::Kata => Ok(vec![Bundle::Kata]),
    }
}

/// The files of one bundle's GitOps directory; the release's holds the
/// environment's Kyverno exemptions too.
fn bundle_files(output: &Output, bundle: Bundle) -> Result<BTreeMap<String, String>, Error> {
    let exemptions = (bundle == Bundle::Release).then_some(output.exemptions.as_str());
    output::files(output.bundle(bundle), exemptions)
}

/// Directories and the files each gets, decided before anything is written.
type Plan = Vec<(PathBuf, BTreeMap<String, String>)>;

/// The GitOps layout of an environment: `DIR/release/` and `DIR/kata/`, each
/// an application of its own (no files for Kata when the environment does
/// not run it, so an earlier render's are removed), and `DIR` itself with no
/// files, so a render in the earlier one-directory layout is removed.
fn layout(output: &Output, dir: &Path) -> Result<Plan, Error> {
    let mut plan = vec![(dir.to_path_buf(), BTreeMap::new())];
    for bundle in Bundle::ALL {
        let files = if output.bundle(bundle).is_empty() {
            BTreeMap::new()
        } else {
            bundle_files(output, bundle)?
        };
        plan.push((dir.join(bundle.name()), files));
    }
    Ok(plan)
}

/// The bundles whose objects belong in `directory` of the render into `target`.
fn bundles_in(
    output: &Output,
    directory: &Path,
    target: &Path,
    choice: BundleChoice,
) -> Vec<Bundle> {
    match choice {
        BundleChoice::Release => vec![Bundle::Release],
        BundleChoice::Kata => vec![Bundle::Kata],
        BundleChoice::All => output
            .bundles()
            .into_iter()
            .filter(|b| target.join(b.name()) == directory)
            .collect(),
    }
}

/// Renders and checks; `None` (with the findings on stderr) when the render
/// breaks an invariant.
fn checked_render(inputs: &Inputs) -> anyhow::Result<Option<Output>> {
    let loaded = values::load(inputs)?;
    let output = pipeline::render(&loaded.values)?;
    let findings = pipeline::check(&output);
    if findings.is_empty() {
        return Ok(Some(output));
    }
    let objects = output.release.len() + output.kata.len();
    eprint!("{}", check::render_text(&findings, &[], objects));
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
        .filter(|p| {
            p.is_dir()
                && std::iter::once(p.clone())
                    .chain(Bundle::ALL.iter().map(|b| p.join(b.name())))
                    .any(|d| d.join(output::KUSTOMIZATION).is_file())
        })
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
fn check_report(dir: &Path, report: &Report, rendered: Vec<Manifest>) -> anyhow::Result<String> {
    let mut out = file_changes(dir, report);
    if report.drifted() && dir.exists() {
        let current = input::read(&[dir.display().to_string()])?;
        let difference = diff::diff(&current.manifests, &rendered, &[]);
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
