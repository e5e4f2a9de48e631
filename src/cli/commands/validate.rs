//! `chartgen validate`: load and check values, render nothing.

use crate::cli::ValuesArgs;
use crate::exit::Exit;
use crate::values;

/// Loads the values; any problem becomes an error listing them all.
pub fn run(args: &ValuesArgs) -> anyhow::Result<Exit> {
    let inputs = args.inputs();
    values::load(&inputs)?;
    let sources = match (inputs.files.len(), inputs.sets.len()) {
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

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
