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
    let environments: Vec<(Inputs, PathBuf)> = if args.all {
        environments(&inputs, dir)?
    } else {
        vec![(inputs, dir.clone())]
    };
    let choice = args.bundle.unwrap_or(BundleChoice::All);
    let mut drifted = false;
    let mut out = String::new();
    let mut sync = |output: Option<&Output>, targets: Vec<Target>| -> anyhow::Result<()> {
        for target in targets {
            let report = output::sync(&target.dir, &target.files, !args.check)?;
            for foreign in &report.foreign {
                // An environment folder's own bundle folders are not foreign to it.
                let in_bundle = Bundle::ALL
                    .iter()
                    .any(|b| foreign.starts_with(&format!("{}/", b.name())));
                if !(target.holds_bundles && in_bundle) {
                    eprintln!(
                        "note: {} is not part of this render; left alone",
                        target.dir.join(foreign).display()
                    );
                }
            }
            // A folder left with nothing of chartgen's goes, only if empty;
            // one that had nothing before either is not reported.
            if target.files.is_empty() {
                if !args.check {
                    let _ = std::fs::remove_dir(&target.dir);
                }
                if !report.drifted() {
                    continue;
                }
            }
            if !args.check {
                out += &write_report(&target.dir, &report);
                continue;
            }
            drifted |= report.drifted();
            out += &match output.filter(|_| !target.bundles.is_empty()) {
                Some(output) => {
                    check_report(&target.dir, &report, output.manifests(&target.bundles))?
                }
                None => file_changes(&target.dir, &report),
            };
        }
        Ok(())
    };
    for (inputs, dir) in &environments {
        let Some(output) = checked_render(inputs)? else {
            return Ok(Exit::Findings);
        };
        // Every directory and its files are decided before anything is written.
        let targets = match choice {
            BundleChoice::All => layout(Some(&output), dir)?,
            single => {
                let bundles = selected(&output, single)?;
                vec![Target {
                    dir: dir.clone(),
                    files: bundle_files(&output, bundles[0])?,
                    bundles,
                    holds_bundles: false,
                }]
            }
        };
        sync(Some(&output), targets)?;
    }
    if args.all {
        // Environments whose values file is gone: chartgen's files go too.
        for stale in stale_environments(dir, &environments)? {
            sync(None, layout(None, &stale)?)?;
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

/// One directory a render writes (or checks), and what goes in it.
struct Target {
    dir: PathBuf,
    /// The files; none for a folder whose files of chartgen's are to go.
    files: BTreeMap<String, String>,
    /// The bundles whose objects it holds.
    bundles: Vec<Bundle>,
    /// Whether it is an environment's folder, holding the bundle folders.
    holds_bundles: bool,
}

/// The GitOps layout of an environment (`None`: one whose values are gone):
/// `DIR/release/` and `DIR/kata/`, each an application of its own, with no
/// files for a bundle the environment does not have (so an earlier render's
/// go); then `DIR` itself with no files, so what an earlier render in the
/// one-directory layout wrote there (its kustomization lists it) goes.
fn layout(output: Option<&Output>, dir: &Path) -> Result<Vec<Target>, Error> {
    let mut targets = Vec::new();
    for bundle in Bundle::ALL {
        let present = output.filter(|o| !o.bundle(bundle).is_empty());
        targets.push(Target {
            dir: dir.join(bundle.name()),
            files: match present {
                Some(output) => bundle_files(output, bundle)?,
                None => BTreeMap::new(),
            },
            bundles: present.map(|_| vec![bundle]).unwrap_or_default(),
            holds_bundles: false,
        });
    }
    // Last, so that it goes when the bundle folders went and left it empty.
    targets.push(Target {
        dir: dir.to_path_buf(),
        files: BTreeMap::new(),
        bundles: Vec::new(),
        holds_bundles: true,
    });
    Ok(targets)
}

/// Whether `dir` holds a kustomization as a regular file (links are not followed).
fn holds_kustomization(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(output::KUSTOMIZATION)).is_ok_and(|m| m.is_file())
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

/// Folders of `dir` (not links) that hold chartgen's files, at the top or in
/// a bundle folder, but no longer have a values file.
fn stale_environments(dir: &Path, targets: &[(Inputs, PathBuf)]) -> Result<Vec<PathBuf>, Error> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut stale: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter(|p| {
            holds_kustomization(p)
                || Bundle::ALL
                    .iter()
                    .any(|b| holds_kustomization(&p.join(b.name())))
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
