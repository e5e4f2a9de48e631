//! `chartgen diff`: what changes between two sets of manifests.

use super::READ;
use crate::args::{DiffArgs, FailOn, Format};
use kubernetes::cluster::{self, Target};
use kubernetes::diff::matching::{self, Map};
use kubernetes::diff::{self, Ignore, Level, Style};
use kubernetes::error::Error;
use kubernetes::exit::Exit;
use kubernetes::input;

/// Reads both sides, compares them, prints the differences.
pub fn run(args: &DiffArgs) -> anyhow::Result<Exit> {
    if args.old == "-" && args.new == "-" {
        anyhow::bail!("only one side of a diff can be read from stdin");
    }
    if let Some(twice) = kubernetes::files::one_stream_twice([args.old.as_ref(), args.new.as_ref()])
    {
        anyhow::bail!(
            "both sides of the diff name one stream ({twice} is the pipe the other side reads): it can be read only once; save one side to a file"
        );
    }
    let ignore = args
        .ignore
        .iter()
        .map(|text| {
            Ignore::parse(text).map_err(|why| Error::Usage {
                reason: format!("--ignore {why}"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let maps = args
        .maps
        .iter()
        .map(|text| {
            Map::parse(text).map_err(|why| Error::Usage {
                reason: format!("invalid --map `{text}`: {why}"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (mut old, mut new, names) = read_sides(args)?;
    // As a --map that applies to nothing is noted: a pattern that leaves
    // nothing out is mistyped most likely.
    for at in diff::unmatched(&ignore, (&old, &new), &[&chart::artifacts::Exemptions]) {
        kubernetes::terminal::note(&format!(
            "--ignore {} names no field of either side",
            kubernetes::text::printable(&args.ignore[at])
        ));
    }
    if args.ignore_helm {
        matching::strip_helm(&mut old.manifests, &mut new.manifests);
    }
    let renames = matching::rename(&mut old.manifests, &maps).map_err(|collision| Error::Usage {
        reason: format!(
            "--map gives {} and {} one identity, {}: one would hide the other; make the maps more specific",
            collision.first, collision.second, collision.identity
        ),
    })?;
    let mut difference = diff::diff_sets(
        diff::Side {
            path: names.old.as_deref().unwrap_or(old.read_at(&args.old)),
            set: &old,
        },
        diff::Side {
            path: names.new.as_deref().unwrap_or(new.read_at(&args.new)),
            set: &new,
        },
        &ignore,
        kubernetes::rbac::defaults::version(&args.kube_version),
        &[&chart::artifacts::Exemptions],
    );
    matching::finish(
        &mut difference,
        &renames,
        &mut old.manifests,
        &new.manifests,
        kubernetes::rbac::defaults::version(&args.kube_version).1,
    );
    if names.old.is_some() || names.new.is_some() {
        difference.judged_by_the_server();
    }
    for refusal in names.rejected {
        difference.reject(
            refusal.object,
            format!("the server rejects it: {}", refusal.message),
        );
    }
    notes(&renames, &difference);
    let text = match args.output {
        Format::Text => diff::render_text(&difference, Style::when(super::colour())),
        Format::Json => crate::contract::versioned(&difference)?,
    };
    super::print_stdout(&text)?;
    let gated = args
        .fail_on
        .is_some_and(|level| difference.worst() >= Some(level_of(level)));
    let exit = if (args.exit_code && !difference.is_empty()) || gated {
        Exit::Findings
    } else {
        Exit::Success
    };
    super::leave_to_exit((difference, text));
    old.remove_copies();
    new.remove_copies();
    super::leave_to_exit((old, new));
    Ok(exit)
}

/// The names of a cluster side (`cluster:CONTEXT`), and the dry runs the
/// server rejected, which the impact summary lists.
#[derive(Default)]
struct Names {
    old: Option<String>,
    new: Option<String>,
    rejected: Vec<cluster::Refusal>,
}

/// Reads both sides. A side written `cluster:` or `cluster:CONTEXT` is the
/// live cluster, read for the objects of the other side, which becomes
/// what the server would make of each object ([`cluster::read`]); notes
/// on stderr say what could not be dry-run or looked at.
fn read_sides(args: &DiffArgs) -> anyhow::Result<(input::ManifestSet, input::ManifestSet, Names)> {
    let (old_cluster, new_cluster) = (Target::of_side(&args.old), Target::of_side(&args.new));
    // One budget for both sides: together they are this command's input.
    let mut budget = input::Budget::default();
    let (target, local_arg, cluster_is_old) = match (old_cluster, new_cluster) {
        (Some(_), Some(_)) => {
            return Err(Error::Usage {
                reason: "only one side of a diff can be a cluster".to_owned(),
            }
            .into());
        }
        (None, None) => {
            // A side may be nothing on purpose (an empty folder or file,
            // /dev/null): a new environment against none. A path that does
            // not exist, or holds files but no object, is still refused.
            let old = input::read_side(&args.old, &READ, &mut budget)?;
            let new = input::read_side(&args.new, &READ, &mut budget)?;
            let shown = kubernetes::text::printable;
            let note = match (old.is_empty(), new.is_empty()) {
                (true, true) => {
                    Some("both sides are empty (no objects): nothing to compare".to_owned())
                }
                (true, false) => Some(format!(
                    "the old side, {}, is empty (no objects): every object of the new side is added",
                    shown(&args.old)
                )),
                (false, true) => Some(format!(
                    "the new side, {}, is empty (no objects): every object of the old side is removed",
                    shown(&args.new)
                )),
                (false, false) => None,
            };
            if let Some(note) = note {
                kubernetes::terminal::note(&note);
            }
            return Ok((old, new, Names::default()));
        }
        (Some(target), None) => (target, &args.new, true),
        (None, Some(target)) => (target, &args.old, false),
    };
    let mut local = input::read_within(std::slice::from_ref(local_arg), &READ, &mut budget)?;
    let live = cluster::read(&target, chart::plan::MANAGER, &mut local)?;
    for note in &live.notes {
        kubernetes::terminal::note(&kubernetes::text::printable(note));
    }
    let mut names = Names::default();
    for refusal in live.refusals {
        let what = if refusal.rejected {
            "rejected by the server"
        } else {
            "not dry-run"
        };
        kubernetes::terminal::note(&format!(
            "{}: {what}, compared as written: {}",
            kubernetes::text::printable(&refusal.object),
            kubernetes::text::printable(&refusal.message)
        ));
        if refusal.rejected {
            names.rejected.push(refusal);
        }
    }
    Ok(if cluster_is_old {
        names.old = Some(live.name);
        (live.set, local, names)
    } else {
        names.new = Some(live.name);
        (local, live.set, names)
    })
}

/// On stderr: the maps that renamed nothing, and the heuristic's
/// suggestion when removed objects look like added ones under a prefix.
fn notes(renames: &matching::Renames, difference: &diff::Diff) {
    for map in &renames.unused {
        kubernetes::terminal::note(&format!(
            "--map {} applies to no object of the old side",
            kubernetes::text::printable(map)
        ));
    }
    if let Some((prefix, count)) = matching::suggest(difference) {
        let (objects, are) = if count == 1 {
            ("object is", "an added one")
        } else {
            ("objects are", "added ones")
        };
        kubernetes::terminal::hint(&format!(
            "{count} removed {objects} {are} with the prefix `{}` (as Helm names objects after the release); --map '{}*=*' compares them field by field",
            kubernetes::text::printable(&prefix),
            kubernetes::text::printable(&prefix)
        ));
    }
}

/// The impact level a `--fail-on` value names.
fn level_of(fail_on: FailOn) -> Level {
    match fail_on {
        FailOn::Change => Level::Change,
        FailOn::Restart => Level::Restart,
        FailOn::Security => Level::Security,
        FailOn::Destructive => Level::Destructive,
        FailOn::Refused => Level::Refused,
    }
}
