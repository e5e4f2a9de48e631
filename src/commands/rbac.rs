//! `chartgen rbac`: effective permissions per subject, without a cluster.

use crate::check::rbac;
use crate::cli::{Format, InputArgs};
use crate::exit::Exit;
use crate::input;

/// Resolves every binding in the manifests and prints what each subject may do.
pub fn run(args: &InputArgs) -> anyhow::Result<Exit> {
    let set = input::read(&args.paths)?;
    let objects: Vec<serde_json::Value> = set.manifests.iter().map(|m| m.node.to_json()).collect();
    let permissions = rbac::effective_permissions(&objects).map_err(anyhow::Error::msg)?;
    let text = match args.output {
        Format::Text => rbac::render_text(&permissions),
        Format::Json => serde_json::to_string_pretty(&permissions)? + "\n",
    };
    super::print_stdout(&text)?;
    Ok(Exit::Success)
}
