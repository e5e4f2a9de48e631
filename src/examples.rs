//! What each `--help` ends with: its exit status, then its examples.
//! Every example line, one that starts with `  chartgen `, is run for real
//! from the repository root by `tests/it/cli.rs` (through bash, so pipes
//! and `<(…)` work) and must exit 0: an example cannot rot. The exit
//! status paragraphs are the README's table ("Exit codes"), command by
//! command.

/// `chartgen --help`.
pub const TOP: &str = "\
Exit status:
  0  done: printed, written, valid, every invariant holds, no difference
  1  render, render --check and check: findings or drift; diff, with --exit-code or --fail-on:
     differences it gates on (each command's --help says its own)
  2  bad usage or bad input

Examples:
  chartgen render -f values/common.yaml -f values/dev.yaml
  chartgen render -f values/common.yaml -f values/dev.yaml | chartgen check -
  chartgen diff out/dev/release out/ovh-prod/release";

/// `chartgen render --help`.
pub const RENDER: &str = "\
Exit status:
  0  printed (or written; with --check: DIR is what a render would write)
  1  the render breaks an invariant: the findings on stderr, nothing printed or written;
     with --check, also: DIR has drifted (the drift on stdout)
  2  bad usage or bad input (invalid values, a selector that selects nothing, a DIR chartgen
     cannot write): nothing on stdout, nothing written

Examples:
  chartgen render -f values/common.yaml -f values/ovh-prod.yaml --set buildd.replicas=3
  chartgen render -f values/common.yaml -f values/ovh-prod.yaml --bundle kata
  chartgen render --show-only Deployment/buildkit-gateway --show-only templates/rbac.yaml
  chartgen render -f values/common.yaml -f values/dev.yaml -f <(echo 'gateway: {replicas: 2}')
  chartgen render --all --output-dir out --check";

/// `chartgen validate --help`.
pub const VALIDATE: &str = "\
Exit status:
  0  the values are valid
  2  they are not (every problem listed), or bad usage; never 1

Examples:
  chartgen validate -f values/common.yaml -f values/ovh-prod.yaml
  chartgen validate -f values/common.yaml -f values/dev.yaml --set gateway.replicas=2
  chartgen validate -f values/common.yaml -f values/ovh-prod.yaml --output json";

/// `chartgen schema --help`.
pub const SCHEMA: &str = "\
Exit status:
  0  printed
  2  bad usage; never 1

Examples:
  chartgen schema | cmp - schema/values.schema.json
  chartgen schema overlay | cmp - schema/values.overlay.schema.json
  chartgen schema output-check | cmp - schema/output/check.schema.json";

/// `chartgen docs --help`.
pub const DOCS: &str = "\
Exit status:
  0  printed
  2  bad usage; never 1

Examples:
  chartgen docs values
  chartgen docs checks";

/// `chartgen exemptions --help`.
pub const EXEMPTIONS: &str = "\
Exit status:
  0  printed
  2  invalid values (every problem listed), or bad usage; never 1

Examples:
  chartgen exemptions -f values/common.yaml -f values/ovh-prod.yaml";

/// `chartgen check --help`.
pub const CHECK: &str = "\
Exit status:
  0  every invariant holds (info: lines change nothing)
  1  findings
  2  bad usage or bad input (a file that cannot be read as Kubernetes reads it)

Examples:
  chartgen check out/ovh-prod/release out/ovh-prod/kata
  chartgen render -f values/common.yaml -f values/dev.yaml | chartgen check --output json -
  chartgen check --output sarif out/ovh-prod > /dev/null";

/// `chartgen rbac --help`.
pub const RBAC: &str = "\
Exit status:
  0  printed (rbac judges nothing: `chartgen check` does)
  2  bad usage or bad input, or more grants than its budget; never 1

Examples:
  chartgen rbac out/dev/release
  chartgen render | chartgen rbac --output json -";

/// `chartgen diff --help`.
pub const DIFF: &str = "\
Exit status:
  0  no difference, or none the flags gate on
  1  --exit-code: any difference; --fail-on LEVEL: an impact at LEVEL or above
  2  bad usage or bad input (a cluster that cannot be read too), whatever the flags

Examples:
  chartgen diff out/dev/release out/ovh-prod/release
  chartgen diff --ignore 'metadata.labels.*' out/dev/release out/ovh-prod/release";

/// `chartgen completions --help`.
pub const COMPLETIONS: &str = "\
Exit status:
  0  printed
  2  bad usage; never 1

Examples:
  chartgen completions bash | bash -c 'source /dev/stdin && complete -p chartgen'
  chartgen completions zsh | head -n 1
  chartgen completions fish | grep -c '^complete -c chartgen'";

/// `chartgen man --help`.
pub const MAN: &str = "\
Exit status:
  0  printed, or written
  2  bad usage, or a folder it cannot write (nothing written); never 1

Examples:
  chartgen man render | man -l - | grep -A2 -- --output-dir
  chartgen man --output-dir target/man";

/// `chartgen explain --help`.
pub const EXPLAIN: &str = "\
Exit status:
  0  explained (explain runs no check: a render that breaks an invariant, which render refuses,
     is explained all the same)
  2  bad usage, invalid values, or an object or field that does not exist (the closest named);
     never 1

Examples:
  chartgen explain 'Deployment/buildkit-buildd.spec.template.spec.containers[buildd].image'
  chartgen explain -f values/common.yaml -f values/ovh-prod.yaml Deployment/buildkit-buildd
  chartgen explain --set buildd.replicas=2 Deployment/buildkit-buildd.spec.replicas
  chartgen explain 'Deployment/buildkit-gateway.metadata.labels.\"app.kubernetes.io/version\"'
  chartgen explain --output json 'Service/buildkit-gateway.spec.ports[0].port'";
