//! `chartgen diff`: what changes between two sets of manifests.

use crate::cli::{DiffArgs, FailOn, Format};
use crate::diff::{self, Ignore, Level, Style};
use crate::error::Error;
use crate::exit::Exit;
use crate::input;

/// Reads both sides, compares them, prints the differences.
pub fn run(args: &DiffArgs) -> anyhow::Result<Exit> {
    if args.old == "-" && args.new == "-" {
        anyhow::bail!("only one side of a diff can be read from stdin");
    }
    let ignore = args
        .ignore
        .iter()
        .map(|text| Ignore::parse(text))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|reason| Error::Usage { reason })?;
    // One budget for both sides: together they are this command's input.
    let mut budget = input::Budget::default();
    let old = input::read_within(std::slice::from_ref(&args.old), &mut budget)?;
    let new = input::read_within(std::slice::from_ref(&args.new), &mut budget)?;
    let difference = diff::diff_sets(
        diff::Side {
            path: &args.old,
            set: &old,
        },
        diff::Side {
            path: &args.new,
            set: &new,
        },
        &ignore,
    );
    let text = match args.output {
        Format::Text => {
            let style = if super::colour() {
                Style::colour()
            } else {
                Style::default()
            };
            diff::render_text(&difference, style)
        }
        Format::Json => crate::diagnostic::json_pretty(&difference)?,
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
    super::leave_to_exit((old, new, difference, text));
    Ok(exit)
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
