//! The command line, as clap parses it. Resolving these raw arguments into
//! settings is each command's job, in `commands/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::kube;

use crate::values::{Inputs, SetArg, SetKind};

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
    /// Without -f, renders the built-in defaults. Prints the release (the
    /// operator and builds namespaces); `--bundle kata` prints the Kata node
    /// plumbing, applied separately with the Kata install (ADR-0006).
    /// Prints nothing unless the whole render succeeds.
    Render(RenderArgs),
    /// Check values files and --set overrides without rendering anything.
    ///
    /// Exits 0 when the values are valid, 2 with every problem listed otherwise.
    Validate(ValuesArgs),
    /// Print the JSON Schema of the values files.
    ///
    /// The same text is committed as schema/values.schema.json; point editors
    /// at it with a `# yaml-language-server: $schema=...` line.
    Schema,
    /// Print a reference (Markdown): the values (docs/values.md) or the
    /// rules of `check` (docs/checks.md), as committed.
    Docs(DocsArgs),
    /// Print the Kyverno policy exclusions the namespaces need (ADR-0006).
    ///
    /// YAML to paste into the platform's Kyverno values: the builds namespace
    /// in the security-context policy, the system namespace in both.
    Exemptions(ValuesArgs),
    /// Check rendered manifests: Kubernetes schema, effective RBAC, namespace posture.
    ///
    /// Takes directories, multi-document files, or - for stdin. Exits 0 when
    /// every invariant holds, 1 with every finding listed otherwise.
    Check(CheckArgs),
    /// Print what each ServiceAccount may do and where, from the manifests' RBAC.
    ///
    /// Resolves Roles, ClusterRoles and their bindings like
    /// `kubectl auth can-i --list`, without a cluster.
    Rbac(InputArgs),
    /// Show what changes between two sets of manifests, object by object and field by field.
    ///
    /// Each side is a directory, a multi-document file, or - for stdin.
    /// Objects match by group, kind, namespace and name; named list items
    /// by name. Secret values are shown only as hashes.
    Diff(DiffArgs),
}

/// What `render` renders and where it goes.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Where the values come from.
    #[command(flatten)]
    pub values: ValuesArgs,
    /// Write one file per object, a kustomization.yaml and the Kyverno
    /// exemptions into DIR instead of printing the stream. DIR is
    /// chartgen's: every file beneath it whose first line is chartgen's
    /// marker and that this render does not produce is removed; others are
    /// left alone. No symbolic link is followed, in DIR or beneath it.
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// With --output-dir: write nothing; exit 1 and show the differences
    /// when DIR is not what a render would write (the CI drift check),
    /// including what an interrupted render left.
    #[arg(long, requires = "output_dir")]
    pub check: bool,
    /// Render every file in values/ into DIR/<name>/ (with --output-dir), each
    /// as DIR/<name>/release/ and DIR/<name>/kata/. Names must be plain
    /// folder names, distinct even ignoring case and extension.
    #[arg(long, requires = "output_dir", conflicts_with_all = ["files", "bundle"])]
    pub all: bool,
    /// Which bundle: `release` (the operator and builds namespaces, the
    /// cluster objects), `kata` (the system namespace's node plumbing and the
    /// RuntimeClass, applied with the Kata install) or `all`. Default:
    /// `release` on stdout; `all` with --output-dir, each bundle in its own
    /// directory (DIR/release, DIR/kata) with its own kustomization.
    #[arg(long, value_enum, value_name = "BUNDLE")]
    pub bundle: Option<BundleChoice>,
}

/// What `--bundle` selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BundleChoice {
    /// The release: operator and builds namespaces, CRD, RBAC.
    Release,
    /// The Kata node plumbing: system namespace, kata-deploy, vCPU tuning, RuntimeClass.
    Kata,
    /// Both: on stdout one stream; with --output-dir one directory each.
    All,
}

/// Which reference `docs` prints.
#[derive(Debug, Args)]
pub struct DocsArgs {
    /// `values` (docs/values.md) or `checks` (docs/checks.md).
    #[arg(value_enum, default_value_t = DocsTopic::Values)]
    pub topic: DocsTopic,
}

/// A reference `docs` can print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DocsTopic {
    /// Every values key with its type, default and description.
    Values,
    /// Every rule of `check` with what it protects and an example finding.
    Checks,
}

/// The two sides of `diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The old manifests: a directory, a file, or -.
    #[arg(value_name = "OLD")]
    pub old: String,
    /// The new manifests: a directory, a file, or -.
    #[arg(value_name = "NEW")]
    pub new: String,
    /// Leave a field out of the comparison, such as
    /// 'metadata.labels."app.kubernetes.io/version"'; `*` matches any one key or item.
    #[arg(long, value_name = "PATH")]
    pub ignore: Vec<String>,
    /// Exit 1 when the sets differ.
    #[arg(long)]
    pub exit_code: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub output: Format,
}

/// How a command prints its result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people.
    #[default]
    Text,
    /// For machines.
    Json,
}

/// Manifests to read.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// A directory, a multi-document YAML file, or - for stdin.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub output: Format,
}

/// What `check` reads and checks against.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A directory, a multi-document YAML file, or - for stdin.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,
    /// The Kubernetes version whose schemas to check against.
    #[arg(long, value_name = "VERSION", default_value = kube::DEFAULT_VERSION,
          value_parser = clap::builder::PossibleValuesParser::new(kube::VERSIONS))]
    pub kube_version: String,
    /// A file or directory of CustomResourceDefinitions for custom kinds not in the input.
    #[arg(long = "crd", value_name = "PATH")]
    pub crds: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub output: Format,
}

/// Where the values come from: the files, then the set flags in
/// command-line order (clap keeps each flag's values apart, so the order
/// across flags is read from the argument indices).
#[derive(Clone, Debug)]
pub struct ValuesArgs {
    /// The `-f` files in order.
    pub files: Vec<PathBuf>,
    /// Every set flag's argument, in command-line order.
    pub sets: Vec<SetArg>,
}

/// The values flags as clap declares them.
#[derive(Debug, Args)]
struct ValuesFlags {
    /// A values file, or - for standard input (once); repeat to layer
    /// several, later files winning (maps merge, lists replace).
    #[arg(short = 'f', long = "values", value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Override one value after the files: KEY.PATH=VALUE, [N] for list
    /// items, VALUE read as YAML (a number where the key is a string is the
    /// text as written: images.buildd.tag=1.10). All set flags apply in the
    /// order given, later ones winning.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Like --set, but VALUE is always a string, whatever it looks like
    /// (true, 0644, null).
    #[arg(long = "set-string", value_name = "KEY=VALUE")]
    set_strings: Vec<String>,
    /// Like --set, the value being the text of the file PATH (UTF-8, at
    /// most 4 MiB; a named pipe such as <(command) is read up to that).
    #[arg(long = "set-file", value_name = "KEY=PATH")]
    set_files: Vec<String>,
    /// Like --set, VALUE being JSON: any value, a mapping merging over the
    /// key ('projects=[{"name":"app","repository":"https://example.com/a.git"}]').
    #[arg(long = "set-json", value_name = "KEY=JSON")]
    set_jsons: Vec<String>,
}

impl clap::FromArgMatches for ValuesArgs {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let flags = ValuesFlags::from_arg_matches(matches)?;
        let mut sets: Vec<(usize, SetArg)> = Vec::new();
        for (id, kind, values) in [
            ("sets", SetKind::Yaml, flags.sets),
            ("set_strings", SetKind::String, flags.set_strings),
            ("set_files", SetKind::File, flags.set_files),
            ("set_jsons", SetKind::Json, flags.set_jsons),
        ] {
            let indices = matches.indices_of(id).into_iter().flatten();
            sets.extend(
                indices
                    .zip(values)
                    .map(|(at, arg)| (at, SetArg { kind, arg })),
            );
        }
        sets.sort_by_key(|(at, _)| *at);
        Ok(ValuesArgs {
            files: flags.files,
            sets: sets.into_iter().map(|(_, set)| set).collect(),
        })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for ValuesArgs {
    fn augment_args(command: clap::Command) -> clap::Command {
        ValuesFlags::augment_args(command)
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        ValuesFlags::augment_args_for_update(command)
    }
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
