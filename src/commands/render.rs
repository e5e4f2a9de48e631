//! `chartgen render`: the chart as one YAML stream on stdout, or as files
//! in a GitOps directory (`--output-dir`), for one environment or every
//! environment of a folder (`--all [DIR]`, default `values/`: the shared
//! `common.yaml`, then each `<env>.yaml`), written or only compared
//! (`--check`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::args::{BundleChoice, RenderArgs};
use crate::select::{self, Selector};
use chart::check;
use chart::pipeline::{self, Bundle, Output};
use chart::values::Inputs;
use kubernetes::diff::{self, Style};
use kubernetes::error::Error;
use kubernetes::exit::Exit;
use kubernetes::input;
use kubernetes::manifest::Manifest;
use kubernetes::output::{self, OutputDir, Report};
use kubernetes::text::printable;

/// Renders as the arguments ask. Prints nothing to stdout on an error
/// (exit 2) or when the render breaks an invariant (exit 1, findings on
/// stderr); with `--check`, exits 1 when a directory has drifted. The
/// stream is written in pieces once the checks pass: only a failed write
/// (a full disk) can leave part of it, as a failed write of a whole
/// string could.
///
/// With `--output-dir`, every environment is rendered and checked, and
/// every file of every directory decided, before the first write: a
/// refusal anywhere (a bad environment name, a foreign file in the way, a
/// link) leaves every directory as it was.
pub fn run(args: &RenderArgs) -> anyhow::Result<Exit> {
    if let Some(namespace) = &args.namespace {
        return Err(usage(format!(
            "chartgen has no release namespace (`-n {namespace}` is Helm's): the release targets one namespace per trust class (ADR-0006); set them with --set namespaces.operator={namespace} and --set namespaces.builds=…, or in a values file"
        ))
        .into());
    }
    let version = (args.kube_version.as_str(), args.kube_version_given);
    let inputs = args.values.inputs();
    if args.crds.iter().any(|c| c == "-") && inputs.files.iter().any(|f| f.as_os_str() == "-") {
        return Err(usage(
            "standard input (-) can be read only once; give the CRDs or the values as a file"
                .to_owned(),
        )
        .into());
    }
    let named =
        (args.crds.iter().map(|c| c.as_ref())).chain(inputs.files.iter().map(|f| f.as_os_str()));
    if let Some(twice) = kubernetes::files::one_stream_twice(named) {
        return Err(usage(kubernetes::files::named_twice(twice)).into());
    }
    let crds = crds(&args.crds)?;
    let Some(dir) = &args.output_dir else {
        // Named objects are looked for in every bundle unless told.
        let default = if args.show_only.is_empty() {
            BundleChoice::Release
        } else {
            BundleChoice::All
        };
        return to_stdout(
            &inputs,
            args.bundle.unwrap_or(default),
            &args.show_only,
            (version, &crds),
        );
    };
    let root = OutputDir::new(dir)?;
    if root.resolved_parent() {
        kubernetes::terminal::note(&format!(
            "--output-dir is taken as {}: `..` is resolved by name, never through a link",
            root.show("")
        ));
    }
    let environments: Vec<(Inputs, String)> = if let Some(dir) = &args.all {
        environments(dir, &inputs)?
    } else {
        vec![(inputs, String::new())]
    };
    // Every environment is rendered and checked before anything is written.
    let mut rendered = Vec::new();
    for (inputs, name) in environments {
        let Some(output) =
            in_environment(&name, &inputs, checked_render(&inputs, (version, &crds)))?
        else {
            return Ok(Exit::Findings);
        };
        rendered.push((name, output));
    }
    let targets = targets(args, &root, &rendered)?;
    let mut files = BTreeMap::new();
    for target in &targets {
        for (path, text) in &target.files {
            files.insert(join(&target.dir, path), text.clone());
        }
    }
    let groups: Vec<String> = targets.iter().map(|t| t.dir.clone()).collect();
    let reports = output::sync(&super::OWNER, &root, &files, &groups, !args.check)?;
    let (out, drifted) = sync_report(args, &root, &targets, &reports)?;
    super::print_stdout(&out)?;
    Ok(if drifted {
        Exit::Findings
    } else {
        Exit::Success
    })
}

/// The folders of the output directory and what each holds: every
/// environment's bundles (or the one asked for), and with `--all` the
/// folders no values file produces (emptied of chartgen's files) and the
/// top folder.
fn targets<'o>(
    args: &RenderArgs,
    root: &OutputDir,
    rendered: &'o [(String, Output)],
) -> anyhow::Result<Vec<Target<'o>>> {
    let choice = args.bundle.unwrap_or(BundleChoice::All);
    let mut targets = Vec::new();
    for (name, output) in rendered {
        match choice {
            BundleChoice::All => targets.extend(layout(Some(output), name)?),
            single => {
                let bundles = selected(output, single)?;
                targets.push(Target {
                    dir: name.clone(),
                    files: bundle_files(output, bundles[0])?,
                    bundles,
                    output: Some(output),
                });
            }
        }
    }
    if args.all.is_some() {
        // Folders no values file produced: chartgen's files in them go
        // (each is reported in its layout); foreign files stay.
        for stale in other_folders(root, rendered) {
            targets.extend(layout(None, &stale)?);
        }
        targets.push(Target {
            dir: String::new(),
            files: BTreeMap::new(),
            bundles: Vec::new(),
            output: None,
        });
    }
    Ok(targets)
}

/// What the sync did (or, with `--check`, would do) per folder, as text for
/// stdout, and whether any folder drifted.
fn sync_report(
    args: &RenderArgs,
    root: &OutputDir,
    targets: &[Target<'_>],
    reports: &[Report],
) -> anyhow::Result<(String, bool)> {
    let mut drifted = false;
    let mut out = String::new();
    for (target, report) in targets.iter().zip(reports) {
        for foreign in &report.foreign {
            kubernetes::terminal::note(&format!(
                "{} is not part of this render; left alone",
                root.show(&join(&target.dir, foreign))
            ));
        }
        if !args.check {
            // What goes is named: a count alone says nothing a user can
            // check, and a file that goes is gone.
            for removed in &report.removed {
                kubernetes::terminal::note(&format!(
                    "{} removed ({})",
                    root.show(&join(&target.dir, removed)),
                    why_removed(removed)
                ));
            }
        }
        // A folder with nothing of chartgen's to hold is reported only
        // when something of chartgen's went from it.
        if target.files.is_empty() && !report.drifted() {
            continue;
        }
        let shown = root.show(&target.dir);
        if !args.check {
            // A success line: none with --quiet.
            if !kubernetes::terminal::quiet() {
                out += &write_report(&shown, report);
            }
            continue;
        }
        drifted |= report.drifted();
        out += &match target.output.filter(|_| !target.bundles.is_empty()) {
            Some(output) => check_report(
                &shown,
                target,
                root,
                report,
                output.manifests(&target.bundles),
            )?,
            None => file_changes(&shown, report),
        };
    }
    Ok((out, drifted))
}

/// Why a render removed the file `path` of chartgen's: the lock or a
/// temporary file of an interrupted render (the only hidden files it
/// reads), else a file with its marker that this render does not produce.
fn why_removed(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name == super::OWNER.lock() {
        "the lock file of an interrupted render"
    } else if name.starts_with('.') {
        "a temporary file of an interrupted render"
    } else {
        "chartgen's marker, not produced by this render"
    }
}

fn join(dir: &str, path: &str) -> String {
    match (dir.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (_, true) => dir.to_owned(),
        _ => format!("{dir}/{path}"),
    }
}

fn join_path(root: &Path, dir: &str) -> PathBuf {
    if dir.is_empty() {
        root.to_path_buf()
    } else {
        root.join(dir)
    }
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
    let exemptions = (
        chart::artifacts::EXEMPTIONS_FILE,
        output.exemptions.as_str(),
    );
    let artifacts: &[(&str, &str)] = match bundle {
        Bundle::Release => &[exemptions],
        Bundle::Kata => &[],
    };
    let mut files = output::files(&super::OWNER, output.bundle(bundle), artifacts)?;
    // Templates other than the built-in ones are recorded where the
    // render's provenance is: after the kustomization's marker line.
    if let Some(line) = chart::render::templates_provenance()
        && let Some(text) = files.get_mut(output::KUSTOMIZATION)
        && let Some(end) = text.find('\n')
    {
        text.insert_str(end + 1, &format!("{line}\n"));
    }
    Ok(files)
}

/// One directory a render writes (or checks), and what goes in it.
struct Target<'a> {
    /// Relative to the output directory; `""` for itself.
    dir: String,
    /// The files; none for a folder whose files of chartgen's are to go.
    files: BTreeMap<String, String>,
    /// The bundles whose objects it holds.
    bundles: Vec<Bundle>,
    /// The render of its environment (none for a folder no values file produced).
    output: Option<&'a Output>,
}

/// The GitOps layout of an environment (`None`: a folder no values file
/// produced): `DIR/release/` and `DIR/kata/`, each an application of its
/// own, with no files for a bundle the environment does not have (so an
/// earlier render's go); then `DIR` itself with no files, where what an
/// earlier render in the one-directory layout wrote is counted as it goes.
fn layout<'a>(output: Option<&'a Output>, dir: &str) -> Result<Vec<Target<'a>>, Error> {
    let mut targets = Vec::new();
    for bundle in Bundle::ALL {
        let present = output.filter(|o| !o.bundle(bundle).is_empty());
        targets.push(Target {
            dir: join(dir, bundle.name()),
            files: match present {
                Some(output) => bundle_files(output, bundle)?,
                None => BTreeMap::new(),
            },
            bundles: present.map(|_| vec![bundle]).unwrap_or_default(),
            output,
        });
    }
    targets.push(Target {
        dir: dir.to_owned(),
        files: BTreeMap::new(),
        bundles: Vec::new(),
        output,
    });
    Ok(targets)
}

/// With `--all`, an environment that fails is named, with its layers, after
/// the error itself (which names the file and line).
fn in_environment<T>(
    name: &str,
    inputs: &Inputs,
    result: anyhow::Result<Option<T>>,
) -> anyhow::Result<Option<T>> {
    if !name.is_empty() && !matches!(result, Ok(Some(_))) {
        let layers: Vec<String> = inputs
            .files
            .iter()
            .map(|f| printable(&f.display().to_string()).into_owned())
            .collect();
        // Said with the error, so not a note --quiet leaves out.
        let label = kubernetes::terminal::labelled("note:", kubernetes::terminal::NOTE, "");
        eprintln!(
            "{label}in environment `{name}`, from {}",
            layers.join(" then ")
        );
    }
    result
}

/// What a render is checked against: the Kubernetes version, and the
/// CustomResourceDefinitions given with `--crd`.
/// The Kubernetes version (and whether `--kube-version` chose it) and the
/// CRDs given besides the values.
type Against<'a> = ((&'a str, bool), &'a [Manifest]);

/// The CustomResourceDefinitions of `--crd`, read as `check` reads them.
pub(super) fn crds(paths: &[String]) -> anyhow::Result<Vec<Manifest>> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let set = input::read(paths, &super::READ)?;
    if let Some(other) = set.manifests.iter().find(|m| !m.id.is_crd()) {
        anyhow::bail!(
            "--crd takes CustomResourceDefinitions; {} is none",
            printable(&other.id.to_string())
        );
    }
    Ok(set.manifests)
}

/// Renders and checks; `None` (with the findings on stderr) when the render
/// breaks an invariant.
fn checked_render(inputs: &Inputs, against: Against<'_>) -> anyhow::Result<Option<Output>> {
    let (version, crds) = against;
    let output = pipeline::load_and_render(inputs, crds)?;
    let findings = pipeline::check_leaving(&output, version, crds).0;
    Ok(refuse_findings(&output, &findings).then_some(output))
}

/// Whether the render passed its checks; if not, prints the findings.
fn refuse_findings(output: &Output, findings: &[kubernetes::diagnostic::Diagnostic]) -> bool {
    if findings.is_empty() {
        return true;
    }
    let objects = output.release.len() + output.kata.len();
    // A finding quotes what the render holds, and the set flags' values
    // with it (an `extraObjects` label given with --set-json): those are
    // not quoted, as in any error about the values.
    let mut findings = findings.to_vec();
    for finding in &mut findings {
        let mut lines: Vec<&mut String> = std::iter::once(&mut finding.message)
            .chain(finding.hint.as_mut())
            .collect();
        output.withheld.withhold(&mut lines, |_| false);
    }
    eprint!(
        "{}",
        check::render_text_coloured(
            &findings,
            &[],
            objects,
            kubernetes::terminal::stderr_colour()
        )
    );
    eprintln!(
        "{}",
        kubernetes::terminal::labelled(
            "error:",
            kubernetes::terminal::ERROR,
            "the render breaks the invariants above; nothing was written"
        )
    );
    false
}

/// One environment as a YAML stream on stdout, written only if the checks
/// pass, in pieces as it is made: never held whole (`print_stream`).
///
/// `show_only`: the `--show-only` selectors; the stream holds only what
/// they select, while the checks still run on the whole render.
fn to_stdout(
    inputs: &Inputs,
    choice: BundleChoice,
    show_only: &[String],
    against: Against<'_>,
) -> anyhow::Result<Exit> {
    let (version, crds) = against;
    // A malformed selector is refused before any work.
    for arg in show_only {
        Selector::parse(arg)?;
    }
    let output = pipeline::load_and_render(inputs, crds)?;
    let bundles = selected(&output, choice)?;
    let mut objects = output.in_order(&bundles);
    if !show_only.is_empty() {
        let others: Vec<Bundle> = Bundle::ALL
            .into_iter()
            .filter(|b| !bundles.contains(b))
            .collect();
        objects = select::select(&objects, show_only, &output.in_order(&others))?;
    }
    let (findings, copies) = pipeline::check_leaving(&output, version, crds);
    super::leave_to_exit(copies);
    if !refuse_findings(&output, &findings) {
        return Ok(Exit::Findings);
    }
    super::print_stream(chart::render::templates_provenance(), &objects)?;
    super::leave_to_exit(output);
    Ok(Exit::Success)
}

/// The shared base of an environments folder: `DIR/common.yaml` (or
/// `.yml`) is the first layer of every environment, and none itself.
const COMMON: &str = "common";

/// The environments of `dir`: each `DIR/<env>.yaml` (or `.yml`) → the
/// folder `<env>`, rendered from its layers: `DIR/common.yaml` when there is
/// one, then `DIR/<env>.yaml`, then the `--set` overrides. Files whose name
/// starts with `.` are not environments (editors leave such files). A name
/// that is not a plain folder name (letters, digits, `-`, `_`, `.`,
/// starting with a letter or digit), an entry that is not a regular file,
/// two files that would share a folder (`dev.yaml` and `dev.yml`, or
/// `Dev.yaml` and `dev.yaml`, one folder on a case-insensitive file system),
/// and a folder with no environment are refused.
fn environments(dir: &Path, inputs: &Inputs) -> Result<Vec<(Inputs, String)>, Error> {
    let shown = |p: &Path| printable(&p.display().to_string()).into_owned();
    let mut common: Option<PathBuf> = None;
    let mut folders: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut found = Vec::new();
    for file in yaml_files(dir)? {
        let name = environment_name(&file)?;
        if name.eq_ignore_ascii_case(COMMON) {
            if let Some(other) = common.replace(file.clone()) {
                return Err(usage(format!(
                    "{} and {} are both the shared base of {}; keep one",
                    shown(&other),
                    shown(&file),
                    shown(dir)
                )));
            }
            continue;
        }
        if let Some(other) = folders.insert(name.to_ascii_lowercase(), file.clone()) {
            return Err(usage(format!(
                "{} and {} would render into one folder (names that differ only in extension or case); rename one",
                shown(&other),
                shown(&file)
            )));
        }
        found.push((file, name));
    }
    if found.is_empty() {
        // Rendering nothing would remove every file of chartgen's in DIR.
        return Err(usage(format!(
            "{}/ holds no environment (no .yaml or .yml file besides {COMMON}.yaml); name the folder of environments: render --all DIR",
            shown(dir).trim_end_matches('/')
        )));
    }
    Ok(found
        .into_iter()
        .map(|(file, name)| {
            let mut layers = inputs.clone();
            layers.files = common.iter().cloned().chain([file]).collect();
            (layers, name)
        })
        .collect())
}

fn usage(reason: String) -> Error {
    Error::Usage { reason }
}

/// The `.yaml` and `.yml` entries of `dir` (in any case) that are not
/// hidden, sorted.
fn yaml_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let read = |e: std::io::Error| {
        usage(format!(
            "{}: cannot read the folder of environments: {e}",
            printable(&dir.display().to_string())
        ))
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(read)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(read)?;
    files.retain(|p| {
        let hidden = p
            .file_name()
            .is_some_and(|n| n.as_encoded_bytes().starts_with(b"."));
        // Any case, as the shared base's name is matched: `Dev.YAML` is an
        // environment, never silently left out.
        !hidden
            && p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"))
    });
    files.sort();
    Ok(files)
}

/// The environment name of `file` (its stem), once it is known to be a
/// plain folder name and a regular file, not a link.
fn environment_name(file: &Path) -> Result<String, Error> {
    let shown = || printable(&file.display().to_string()).into_owned();
    let name = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let plain = name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !plain {
        return Err(usage(format!(
            "{}: an environment's name (the file name without .yaml) must be a plain folder name: letters, digits, `-`, `_` or `.`, starting with a letter or digit; rename the file",
            shown()
        )));
    }
    // Found, not named: a link could point at any file (a key, a password
    // store), whose first line an error would quote.
    let kind = std::fs::symlink_metadata(file).map(|m| m.file_type());
    if kind.as_ref().is_ok_and(|k| k.is_symlink()) {
        return Err(usage(format!(
            "{}: a symbolic link; --all reads only the regular files of its folder (render a linked file with -f FILE --output-dir DIR)",
            shown()
        )));
    }
    if !kind.is_ok_and(|k| k.is_file()) {
        return Err(usage(format!(
            "{}: not a regular file; every .yaml file of the folder is an environment or the shared {COMMON}.yaml",
            shown()
        )));
    }
    Ok(name.to_owned())
}

/// Folders at the top of the output directory (real folders, not links nor
/// hidden) that no environment renders into.
fn other_folders(root: &OutputDir, rendered: &[(String, Output)]) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root.real()) else {
        return Vec::new();
    };
    let mut other: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|name| !name.starts_with('.') && !rendered.iter().any(|(n, _)| n == name))
        .collect();
    other.sort();
    other
}

fn write_report(dir: &str, report: &Report) -> String {
    format!(
        "{}: {} added, {} changed, {} removed, {} unchanged\n",
        dir,
        report.added.len(),
        report.changed.len(),
        report.removed.len(),
        report.unchanged
    )
}

fn file_changes(dir: &str, report: &Report) -> String {
    let mut out = String::new();
    if !report.drifted() {
        // A success line: none with --quiet.
        if !kubernetes::terminal::quiet() {
            let _ = writeln!(
                out,
                "ok: {} is up to date ({} files)",
                dir, report.unchanged
            );
        }
        return out;
    }
    let _ = writeln!(out, "drift: {} is not what a render would write", dir);
    for (sign, files) in [
        ('+', &report.added),
        ('~', &report.changed),
        ('-', &report.removed),
    ] {
        for file in files {
            let _ = writeln!(out, "  {sign} {}", printable(file));
        }
    }
    out
}

/// The drift of one directory: which files, then what changes in the objects.
/// The objects on disk are read from chartgen's own files only (regular
/// files with the marker, found without following a link): foreign files
/// are noted, never read.
fn check_report(
    shown: &str,
    target: &Target<'_>,
    root: &OutputDir,
    report: &Report,
    rendered: Vec<Manifest>,
) -> anyhow::Result<String> {
    let mut out = file_changes(shown, report);
    if report.drifted() {
        let is_yaml = |f: &&String| f.ends_with(".yaml") || f.ends_with(".yml");
        // The kustomization lists the objects; it is none of them.
        let is_object = |f: &&String| is_yaml(f) && !f.ends_with(output::KUSTOMIZATION);
        let ours: Vec<String> = target
            .files
            .keys()
            .filter(|f| !report.added.contains(f))
            .chain(report.removed.iter())
            .filter(is_object)
            .map(|f| {
                join_path(root.real(), &join(&target.dir, f))
                    .display()
                    .to_string()
            })
            .collect();
        // None yet (no render, or one stopped right after creating the
        // folder): the file list says it all.
        if ours.is_empty() {
            return Ok(out);
        }
        // A file that does not read as manifests (a stale one someone
        // edited) is drift the file list shows already: the objects are
        // then not compared, and nothing of the file is quoted.
        let Ok(current) = input::read_found(&ours, &super::READ) else {
            out += "  the objects are not compared: a file here does not read as manifests\n";
            return Ok(out);
        };
        let current = current.manifests;
        let difference = diff::diff(&current, &rendered, &[]);
        if !difference.is_empty() {
            let style = Style::when(super::colour());
            for line in diff::render_text(&difference, style).lines() {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
    Ok(out)
}
