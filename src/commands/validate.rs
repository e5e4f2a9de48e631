//! `chartgen validate`: load and check values, write nothing.

use crate::args::{Format, ValidateArgs};
use crate::contract::{self, ValidateOutput};
use chart::error::Error;
use chart::values;
use kubernetes::exit::Exit;

/// Loads the values and renders them, as `render` would before its
/// checks; any problem becomes an error listing them all. With
/// `--output json`, the problems of invalid values are the document on
/// stdout (exit 2, nothing on stderr); an error that is no problem in the
/// values (a file that cannot be read) stays an error on stderr.
pub fn run(args: &ValidateArgs) -> anyhow::Result<Exit> {
    let inputs = args.values.inputs();
    if let Some(twice) =
        kubernetes::files::one_stream_twice(inputs.files.iter().map(|f| f.as_os_str()))
    {
        anyhow::bail!(kubernetes::files::named_twice(twice));
    }
    // What `render` refuses of the values (an extra object the chart
    // renders itself, values past the output budget), `validate` refuses
    // too: the values render, and the output is dropped unchecked.
    let loaded = values::load(&inputs)
        .and_then(|loaded| chart::pipeline::render_unscoped(&loaded).map(|_| loaded));
    if args.output == Format::Json {
        let problems = match loaded {
            Ok(_) => Vec::new(),
            Err(Error::InvalidValues { problems }) => problems,
            Err(error) => return Err(error.into()),
        };
        let output = ValidateOutput {
            valid: problems.is_empty(),
            files: inputs.files.iter().map(|f| shown(f)).collect(),
            sets: inputs.set_pairs(),
            // Masked as the text on stderr masks them.
            problems: crate::report::values_shown(&problems),
        };
        super::print_stdout(&contract::versioned(&output)?)?;
        return Ok(if output.valid {
            Exit::Success
        } else {
            Exit::BadInput
        });
    }
    loaded?;
    let sources = match (inputs.files.len(), inputs.set_pairs()) {
        (0, 0) => "the built-in defaults".to_owned(),
        (files, 0) => plural(files, "file"),
        (0, sets) => plural(sets, "--set override"),
        (files, sets) => format!(
            "{} and {}",
            plural(files, "file"),
            plural(sets, "--set override")
        ),
    };
    super::print_success(&format!("values are valid ({sources})\n"))?;
    Ok(Exit::Success)
}

/// A `-f` file as the messages name it: `<stdin>` for `-`.
fn shown(file: &std::path::Path) -> String {
    if file.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        file.display().to_string()
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
