//! The command line, as clap parses it. Resolving these raw arguments into
//! settings is each command's job, in `commands/`.

// The doc comments below are clap's help text, written for a terminal:
// `[NAME]`, `<env>` and `<command>` there are what the user types, not
// links or HTML.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use kubernetes::kube;

use super::examples;

use chart::values::{Inputs, SetArg, SetKind};

/// Renders the buildkit-operator's Kubernetes manifests from typed, validated values.
#[derive(Debug, Parser)]
#[command(name = "chartgen", version, max_term_width = 100, after_help = examples::TOP)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// When to colour the output: `auto` colours a stream that is a
    /// terminal, unless NO_COLOR is set (any non-empty value) or CLICOLOR
    /// is 0; CLICOLOR_FORCE (non-empty, not 0) colours even a pipe; NO_COLOR
    /// wins over CLICOLOR_FORCE. `always` and `never` win over the
    /// environment. Stdout and stderr are judged apart.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    /// Print only what was asked for and what went wrong: no notes, no
    /// `info:` lines, no success lines (`values are valid`, `ok: …`, what
    /// --output-dir wrote). Errors, findings, drift and the main output
    /// (the rendered stream, a diff, a table, JSON) are printed as ever;
    /// exit codes are unchanged.
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

impl Cli {
    /// Parses `args` as [`clap::Parser::parse_from`] does (exiting on
    /// `--help` or a usage error), noting which choices with a default
    /// were given: a `--kube-version` given narrows Pod Security to that
    /// version's server.
    pub fn parse_noting(args: Vec<std::ffi::OsString>) -> Cli {
        use clap::{CommandFactory as _, FromArgMatches as _};
        let matches = Cli::command().get_matches_from(args);
        let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
        let given = || {
            let source =
                (matches.subcommand()).and_then(|(_, sub)| sub.value_source("kube_version"));
            source == Some(clap::parser::ValueSource::CommandLine)
        };
        match &mut cli.command {
            Command::Check(args) => args.kube_version_given = given(),
            Command::Render(args) => args.kube_version_given = given(),
            _ => {}
        }
        cli
    }
}

/// When to colour (`--color`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// Colour a terminal, following NO_COLOR, CLICOLOR and CLICOLOR_FORCE.
    #[default]
    Auto,
    /// Always colour, even a pipe or a file.
    Always,
    /// Never colour.
    Never,
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
    #[command(after_help = examples::RENDER, visible_alias = "template")]
    Render(RenderArgs),
    /// Check values files and --set overrides, writing nothing.
    ///
    /// The values are rendered too, so that what `render` would refuse of
    /// them (an extraObjects entry the chart renders itself, values past
    /// the output budget) is refused here; the output's checks are
    /// `render`'s and `check`'s. Exits 0 when the values are valid, 2 with
    /// every problem listed otherwise.
    #[command(after_help = examples::VALIDATE)]
    Validate(ValidateArgs),
    /// Print a JSON Schema: of the merged values, of one values file, or of a JSON output.
    ///
    /// `merged` (the default), committed as schema/values.schema.json: the
    /// strict schema of the values after every layer is merged over the
    /// defaults, what `validate` and `render` check. `overlay`, committed as
    /// schema/values.overlay.schema.json: one values file, a layer in which
    /// every key is optional (a list item is written whole), with the same
    /// types, patterns and no unknown keys; point editors at it with
    /// `# yaml-language-server: $schema=../schema/values.overlay.schema.json`.
    /// `output-check`, `output-rbac`, `output-diff`, `output-validate`: the
    /// schema of that command's `--output json`, committed in schema/output/
    /// (docs/output.md).
    #[command(after_help = examples::SCHEMA)]
    Schema(SchemaArgs),
    /// Print a reference (Markdown): the values (docs/values.md) or the
    /// rules of `check` (docs/checks.md), as committed.
    #[command(after_help = examples::DOCS)]
    Docs(DocsArgs),
    /// Print the Kyverno policy exclusions the namespaces need (ADR-0006).
    ///
    /// YAML to paste into the platform's Kyverno values: the builds namespace
    /// in the security-context policy, the system namespace in both.
    #[command(after_help = examples::EXEMPTIONS)]
    Exemptions(ValuesArgs),
    /// Check rendered manifests: Kubernetes schema, effective RBAC, namespace posture.
    ///
    /// Takes directories, multi-document files, or - for stdin. Exits 0 when
    /// every invariant holds, 1 with every finding listed otherwise.
    #[command(after_help = examples::CHECK)]
    Check(CheckArgs),
    /// Print what each ServiceAccount may do and where, from the manifests' RBAC.
    ///
    /// Resolves Roles, ClusterRoles and their bindings like
    /// `kubectl auth can-i --list`, without a cluster.
    #[command(after_help = examples::RBAC)]
    Rbac(InputArgs),
    /// Show what changes between two sets of manifests, object by object and field by field.
    ///
    /// Each side is a directory, a multi-document file, a pipe
    /// (`<(chartgen render …)`), - for stdin, or REV:PATH: a file or folder
    /// of a git revision, read without a checkout (`HEAD~1:out/prod`,
    /// `origin/main:out/prod`; PATH from the top of the repository of the
    /// current directory, as in `git show REV:PATH`). A local path wins:
    /// an argument is REV:PATH only when no file or folder of that name
    /// exists, it does not start with `/`, `./` or `../`, and it has a `:`
    /// after the revision; write `./NAME` for a local file whose name holds
    /// a colon. Objects match by group, kind, namespace and name (or as
    /// --map says); named list items by name. Secret values are shown only
    /// as hashes.
    ///
    /// A side may be empty on purpose, to diff a new environment against
    /// nothing: an empty directory (or one of hidden files only), an empty
    /// file, /dev/null or a file of comments and `---` only holds no
    /// objects, and a note says so (`chartgen diff /dev/null out/new`:
    /// every object is added). A path that does not exist, a directory of
    /// other files or documents that are no objects are still refused.
    ///
    /// One side may be a live cluster: `cluster:` (the kubeconfig's current
    /// context) or `cluster:CONTEXT`, the kubeconfig read as kubectl reads
    /// it (KUBECONFIG, else ~/.kube/config). As `kubectl diff
    /// --server-side`, read-only: for each object of the other side, the
    /// live object (get) against what the server would make of the local
    /// one (server-side apply with dryRun=All, field manager chartgen:
    /// defaults filled in, admission run, nothing stored); the release's
    /// objects in the cluster that the local side lacks (labelled
    /// app.kubernetes.io/managed-by=chartgen with a local
    /// app.kubernetes.io/instance value; found by listing every served
    /// type) are removed. Fields the server manages (status,
    /// managedFields, resourceVersion, uid, creationTimestamp, generation,
    /// selfLink, the last-applied annotation) are left out. A dry run the
    /// server refuses compares the object as written, with a note; one it
    /// rejects as invalid or forbidden is a `refused` impact. A local path
    /// named `cluster:…` wins (write ./cluster:… in any case for a file);
    /// `cluster:` comes before REV:PATH (for a branch named cluster, write
    /// refs/heads/cluster:PATH). A cluster that cannot be read (no
    /// kubeconfig, unknown context, unreachable, TLS or credentials
    /// refused) is an error naming the context and server, exit 2. See
    /// docs/diff.md.
    #[command(after_help = examples::DIFF)]
    Diff(DiffArgs),
    /// Print a shell's completion script for chartgen on stdout.
    ///
    /// Load it once per session (bash: `source <(chartgen completions
    /// bash)`), or install it where the shell looks: bash
    /// ~/.local/share/bash-completion/completions/chartgen, zsh a file
    /// `_chartgen` in a folder of $fpath, fish
    /// ~/.config/fish/completions/chartgen.fish.
    #[command(after_help = examples::COMPLETIONS)]
    Completions(CompletionsArgs),
    /// Print a man page (roff) on stdout, or write every page into a folder.
    ///
    /// One page per subcommand (chartgen-render.1, …) and chartgen.1 for the
    /// whole tool, generated from the same definitions as --help. Without
    /// --output-dir, prints the page of COMMAND (default: chartgen.1), to
    /// read with `chartgen man render | man -l -`.
    #[command(after_help = examples::MAN)]
    Man(ManArgs),
    /// Explain a rendered field: the template line that wrote it and the values it came from.
    ///
    /// Renders as `render` does with the same values flags, then names, for
    /// OBJECT.field.path, the value, the template line that wrote it, and
    /// each values key it was built from with who set it: a file (file:line:col),
    /// a set flag (the argument), or the built-in default. A field written
    /// in the template itself names no values. Without a field path: the
    /// object's template and every values key that went into it. See
    /// docs/explain.md.
    #[command(after_help = examples::EXPLAIN)]
    Explain(ExplainArgs),
}

/// Which shell `completions` writes for.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Which man pages `man` prints or writes.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (render, check, …); none: the
    /// page of chartgen itself.
    #[arg(value_name = "COMMAND", conflicts_with = "output_dir")]
    pub command: Option<String>,
    /// Write every page (chartgen.1 and one chartgen-COMMAND.1 per
    /// subcommand) into DIR, created when missing, each page replaced
    /// whole (written to a temporary file, then renamed). A DIR that is a
    /// symbolic link, or not a folder, is refused. To install, name a man1
    /// folder that man reads, such as ~/.local/share/man/man1.
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
}

/// What `explain` explains.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// Where the values come from, as for `render`.
    #[command(flatten)]
    pub values: ValuesArgs,
    /// The object, then optionally a field: KIND/NAME, NAMESPACE/KIND/NAME
    /// or KIND/NAMESPACE/NAME (kind ignoring case, in either bundle), then
    /// .field.path as `diff` prints paths: `"…"` around a key with dots,
    /// [NAME] for a list item by name, [N] by index. Example:
    /// `Deployment/buildkit-buildd.spec.template.spec.containers[buildd].image`
    #[arg(value_name = "OBJECT[.FIELD]")]
    pub target: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExplainFormat::Text)]
    pub output: ExplainFormat,
    /// A file or directory of CustomResourceDefinitions: the scopes of the
    /// custom kinds of `extraObjects`, as `render --crd`.
    #[arg(long = "crd", value_name = "PATH")]
    pub crds: Vec<String>,
}

/// How `explain` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExplainFormat {
    /// Lines for a reader.
    Text,
    /// One JSON object.
    Json,
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
    /// marker, the whole line `# Generated by chartgen; do not edit: change
    /// the values and render again.`, and that this render does not
    /// produce is removed, each named in a note on stderr; others are left
    /// alone. No symbolic link is followed, in DIR or beneath it.
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// With --output-dir: write nothing; exit 1 and show the differences
    /// when DIR is not what a render would write (the CI drift check),
    /// including what an interrupted render left.
    #[arg(long, requires = "output_dir")]
    pub check: bool,
    /// Render every environment of the folder ENVS (default: values) into
    /// DIR/<env>/ (with --output-dir), each as DIR/<env>/release/ and
    /// DIR/<env>/kata/.
    ///
    /// An environment is a list of layers: ENVS/common.yaml (or .yml), when
    /// present, is the shared base of every environment and no environment
    /// itself; each other ENVS/<env>.yaml is layered over it (maps merge,
    /// lists replace), then the --set overrides. Only the entries named
    /// *.yaml or *.yml (any case) count, hidden ones aside; each must be a
    /// regular file: a symbolic link, FIFO, device or folder so named is
    /// refused (exit 2) and never opened. Every other entry is passed over.
    /// Names must be plain folder names, distinct even ignoring case and
    /// extension.
    /// Example: `chartgen render --all values --output-dir out`
    #[arg(
        long,
        value_name = "ENVS",
        num_args = 0..=1,
        default_missing_value = "values",
        requires = "output_dir",
        conflicts_with_all = ["files", "bundle"]
    )]
    pub all: Option<PathBuf>,
    /// Which bundle: `release` (the operator and builds namespaces, the
    /// cluster objects), `kata` (the system namespace's node plumbing and the
    /// RuntimeClass, applied with the Kata install) or `all`. Default:
    /// `release` on stdout; `all` with --output-dir, each bundle in its own
    /// directory (DIR/release, DIR/kata) with its own kustomization.
    #[arg(long, value_enum, value_name = "BUNDLE")]
    pub bundle: Option<BundleChoice>,
    /// Print only the objects SELECTOR names; repeat for more. KIND/NAME (in
    /// any namespace), NAMESPACE/KIND/NAME, or templates/FILE (every object
    /// that template rendered, as its `# Source:` line says). Kinds match
    /// ignoring case; names exactly. Searches both bundles unless --bundle
    /// says otherwise. The checks still run on the whole render: a subset
    /// is printed only when every invariant holds for all of it. A selector
    /// that selects nothing is an error listing what exists.
    // --all and --check conflict too, although they require --output-dir:
    // clap waives a requirement whose argument conflicts with one present,
    // so `--all values --show-only …` would otherwise render the defaults.
    #[arg(
        long = "show-only",
        value_name = "SELECTOR",
        conflicts_with_all = ["output_dir", "all", "check"]
    )]
    pub show_only: Vec<String>,
    /// The Kubernetes version the render is checked against (every built-in
    /// kind's schema and the API rules of that version, and given, Pod
    /// Security as that version's server judges it), as `check
    /// --kube-version`.
    #[arg(long, value_name = "VERSION", default_value = kube::DEFAULT_VERSION,
          value_parser = clap::builder::PossibleValuesParser::new(kube::VERSIONS))]
    pub kube_version: String,
    /// Whether `--kube-version` was given (see [`Cli::parse_noting`]).
    #[arg(skip)]
    pub kube_version_given: bool,
    /// A file or directory of CustomResourceDefinitions for the custom
    /// kinds of `extraObjects` (their schemas and scopes), as `check --crd`.
    #[arg(long = "crd", value_name = "PATH")]
    pub crds: Vec<String>,
    /// Helm's release namespace: chartgen has none (one namespace per trust
    /// class); refused with where to set them.
    #[arg(short = 'n', long = "namespace", value_name = "NAMESPACE", hide = true)]
    pub namespace: Option<String>,
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

/// Which schema `schema` prints.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// `merged` (schema/values.schema.json), `overlay`
    /// (schema/values.overlay.schema.json), or the schema of a command's
    /// `--output json`: `output-check`, `output-rbac`, `output-diff`,
    /// `output-validate` (schema/output/<command>.schema.json).
    #[arg(value_enum, default_value_t = SchemaKind::Merged)]
    pub kind: SchemaKind,
}

/// A schema `schema` can print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SchemaKind {
    /// The strict schema of the merged values: every required key, what
    /// `validate` and `render` check.
    Merged,
    /// The schema of one values file, for editors: every key optional.
    Overlay,
    /// The JSON output of `check` (schema/output/check.schema.json).
    OutputCheck,
    /// The JSON output of `rbac` (schema/output/rbac.schema.json).
    OutputRbac,
    /// The JSON output of `diff` (schema/output/diff.schema.json).
    OutputDiff,
    /// The JSON output of `validate` (schema/output/validate.schema.json).
    OutputValidate,
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
    /// The old manifests: a directory, a file, a pipe, -, REV:PATH, or
    /// cluster:[CONTEXT]. An empty directory (or one of hidden files only)
    /// or an empty file (or /dev/null, or one of comments and `---` only)
    /// is a side of no objects, noted: every object of NEW is added. A path
    /// that does not exist, or files that hold no object, are refused.
    #[arg(value_name = "OLD")]
    pub old: String,
    /// The new manifests, as OLD: an empty side means every object of OLD
    /// is removed.
    #[arg(value_name = "NEW")]
    pub new: String,
    /// Leave a field out of the comparison, such as
    /// 'metadata.labels."app.kubernetes.io/version"'; `*` matches any one key or item.
    /// A pattern that names no field of either side is noted.
    #[arg(long, value_name = "PATH")]
    pub ignore: Vec<String>,
    /// Compare old objects with new ones of another name: OLD=NEW, each
    /// side NAME, KIND/NAME or KIND/NAMESPACE/NAME (the same form on both
    /// sides, kinds written out and equal); a part may hold one `*`, which
    /// on the new side stands for what it matched on the old side. Helm's
    /// release prefix: --map 'RELEASE-*=*'. The first map that applies to
    /// an old object wins; every match it makes is listed (`= OLD as NEW`).
    /// Two old objects mapped to one identity is an error; a map that
    /// applies to nothing is noted. Without it, removed objects that are
    /// added ones under a common prefix get a hint naming the --map.
    #[arg(long = "map", value_name = "OLD=NEW")]
    pub maps: Vec<String>,
    /// Remove Helm's own labels and annotations from both sides before
    /// comparing: the labels helm.sh/chart, app.kubernetes.io/managed-by,
    /// heritage, chart and release, from an object's metadata and its pod
    /// template's (spec.template, a CronJob's spec.jobTemplate and its
    /// template); the annotations meta.helm.sh/release-name and
    /// meta.helm.sh/release-namespace. Selectors, a pod template's label
    /// that a selector selects on (a Service selecting release),
    /// app.kubernetes.io/instance and Helm's hook annotations stay compared:
    /// they change what happens.
    #[arg(long)]
    pub ignore_helm: bool,
    /// Exit 1 when the sets differ.
    #[arg(long)]
    pub exit_code: bool,
    /// Exit 1 when the impact summary has an item at LEVEL or above
    /// (change < restart < security < destructive < refused); exit 0
    /// otherwise, unless --exit-code.
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub fail_on: Option<FailOn>,
    /// Output format: `text`, or `json` (schema/output/diff.schema.json,
    /// docs/output.md).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub output: Format,
    /// The Kubernetes version whose default RBAC roles a binding may name
    /// (a binding to `view` grants what that version's `view` holds).
    #[arg(long, value_name = "VERSION", default_value = kube::DEFAULT_VERSION,
          value_parser = clap::builder::PossibleValuesParser::new(kube::VERSIONS))]
    pub kube_version: String,
}

/// The impact level `diff --fail-on` gates on, least severe first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Any difference at all (as --exit-code).
    Change,
    /// A workload's pods are replaced (a new pod template), or worse.
    Restart,
    /// Permissions gained, Pod Security or Kyverno relaxed, a workload
    /// gaining privileges or losing its hardening, or worse.
    Security,
    /// A deletion that deletes or breaks other objects (a Namespace, a CRD
    /// or a served version, a bound ServiceAccount, a volume claim), or
    /// worse.
    Destructive,
    /// A change the API server refuses (an immutable field).
    Refused,
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
    /// A directory, a multi-document YAML file, a pipe, - for stdin, or
    /// REV:PATH for a file or folder of a git revision (see `diff --help`).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,
    /// Output format: `text`, or `json` (schema/output/rbac.schema.json,
    /// docs/output.md).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub output: Format,
    /// The Kubernetes version whose default RBAC roles and bindings (the
    /// API server's bootstrap policy) the cluster holds beside the input.
    #[arg(long, value_name = "VERSION", default_value = kube::DEFAULT_VERSION,
          value_parser = clap::builder::PossibleValuesParser::new(kube::VERSIONS))]
    pub kube_version: String,
}

/// What `check` reads and checks against.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A directory, a multi-document YAML file, a pipe, - for stdin, or
    /// REV:PATH for a file or folder of a git revision (see `diff --help`).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,
    /// The Kubernetes version whose schemas and default RBAC roles (the
    /// API server's bootstrap policy: `view`, `edit`, `system:*`) to check
    /// against. Given, Pod Security is judged as that version's server
    /// judges it (`latest` its rules); left out, as each version chartgen
    /// targets judges it.
    #[arg(long, value_name = "VERSION", default_value = kube::DEFAULT_VERSION,
          value_parser = clap::builder::PossibleValuesParser::new(kube::VERSIONS))]
    pub kube_version: String,
    /// Whether `--kube-version` was given (see [`Cli::parse_noting`]).
    #[arg(skip)]
    pub kube_version_given: bool,
    /// A file or directory of CustomResourceDefinitions for custom kinds not in the input:
    /// their schemas, and their scopes (a cluster-scoped custom resource has no namespace).
    /// Any other object in it is refused (exit 2), as `render --crd` refuses it.
    #[arg(long = "crd", value_name = "PATH")]
    pub crds: Vec<String>,
    /// Output format: `text`, `json` (schema/output/check.schema.json) or
    /// `sarif` (SARIF 2.1.0, for code scanning; docs/output.md).
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub output: CheckFormat,
}

/// How `check` prints its report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// For people.
    #[default]
    Text,
    /// For machines: the versioned JSON output contract.
    Json,
    /// SARIF 2.1.0: one result per finding, every rule with its help, file
    /// paths relative to the current directory.
    Sarif,
}

/// What `validate` reads, and how it answers.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Where the values come from.
    #[command(flatten)]
    pub values: ValuesArgs,
    /// Output format: `text`, or `json` (schema/output/validate.schema.json:
    /// every problem on stdout, exit 2 when the values are invalid).
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
    /// Like --set, the value being the text of the file PATH as it is, a
    /// last line break included, as Helm reads it (UTF-8, at most 4 MiB; a
    /// named pipe such as <(command) is read up to that).
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
