//! The command line, as clap parses it. Resolving these raw arguments into
//! settings is each command's job, in `commands/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::values::Inputs;

/// Renders the buildkit-operator's Kubernetes manifests from typed, validated values.
#[derive(Debug, Parser)]
#[command(name = "chartgen", version, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render the chart: every object as one YAML stream on stdout, in install order.
    ///
    /// Without -f, renders the built-in defaults. Prints nothing unless the
    /// whole render succeeds.
    Render(ValuesArgs),
    /// Check values files and --set overrides without rendering anything.
    ///
    /// Exits 0 when the values are valid, 2 with every problem listed otherwise.
    Validate(ValuesArgs),
    /// Print the JSON Schema of the values files.
    ///
    /// The same text is committed as schema/values.schema.json; point editors
    /// at it with a `# yaml-language-server: $schema=...` line.
    Schema,
    /// Print the Kyverno policy exclusions the namespaces need (ADR-0006).
    ///
    /// YAML to paste into the platform's Kyverno values: the builds namespace
    /// in the security-context policy, the system namespace in both.
    Exemptions(ValuesArgs),
}

/// Where the values come from.
#[derive(Debug, Args)]
pub struct ValuesArgs {
    /// A values file; repeat to layer several, later files winning (maps merge, lists replace).
    #[arg(short = 'f', long = "values", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Override one value after the files: KEY.PATH=VALUE, [N] for list items, VALUE read as YAML.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
}

impl ValuesArgs {
    /// The inputs to the values stage.
    pub fn inputs(&self) -> Inputs {
        Inputs {
            files: self.files.clone(),
            sets: self.sets.clone(),
        }
    }
}
