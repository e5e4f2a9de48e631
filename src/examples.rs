//! The examples each `--help` ends with. Every line that starts with
//! `  chartgen ` is run for real from the repository root by
//! `tests/it/cli.rs` (through bash, so pipes and `<(…)` work) and must exit
//! 0: an example cannot rot.

/// `chartgen --help`.
pub const TOP: &str = "\
Examples:
  chartgen render -f values/dev.yaml
  chartgen render -f values/dev.yaml | chartgen check -
  chartgen diff out/dev/release out/ovh-prod/release";

/// `chartgen render --help`.
pub const RENDER: &str = "\
Examples:
  chartgen render -f values/ovh-prod.yaml --set buildd.replicas=3
  chartgen render -f values/ovh-prod.yaml --bundle kata
  chartgen render --show-only Deployment/buildkit-gateway --show-only templates/rbac.yaml
  chartgen render -f values/dev.yaml -f <(echo 'gateway: {replicas: 2}')
  chartgen render --all --output-dir out --check";

/// `chartgen validate --help`.
pub const VALIDATE: &str = "\
Examples:
  chartgen validate -f values/ovh-prod.yaml
  chartgen validate -f values/dev.yaml --set gateway.replicas=2
  chartgen validate -f values/ovh-prod.yaml --output json";

/// `chartgen schema --help`.
pub const SCHEMA: &str = "\
Examples:
  chartgen schema | cmp - schema/values.schema.json
  chartgen schema overlay | cmp - schema/values.overlay.schema.json
  chartgen schema output-check | cmp - schema/output/check.schema.json";

/// `chartgen docs --help`.
pub const DOCS: &str = "\
Examples:
  chartgen docs values
  chartgen docs checks";

/// `chartgen exemptions --help`.
pub const EXEMPTIONS: &str = "\
Examples:
  chartgen exemptions -f values/ovh-prod.yaml";

/// `chartgen check --help`.
pub const CHECK: &str = "\
Examples:
  chartgen check out/ovh-prod/release out/ovh-prod/kata
  chartgen render -f values/dev.yaml | chartgen check --output json -
  chartgen check --output sarif out/ovh-prod > /dev/null";

/// `chartgen rbac --help`.
pub const RBAC: &str = "\
Examples:
  chartgen rbac out/dev/release
  chartgen render | chartgen rbac --output json -";

/// `chartgen diff --help`.
pub const DIFF: &str = "\
Examples:
  chartgen diff out/dev/release out/ovh-prod/release
  chartgen diff --ignore 'metadata.labels.*' out/dev/release out/ovh-prod/release";

/// `chartgen completions --help`.
pub const COMPLETIONS: &str = "\
Examples:
  chartgen completions bash | bash -c 'source /dev/stdin && complete -p chartgen'
  chartgen completions zsh | head -n 1
  chartgen completions fish | grep -c '^complete -c chartgen'";

/// `chartgen man --help`.
pub const MAN: &str = "\
Examples:
  chartgen man render | man -l - | grep -A2 -- --output-dir
  chartgen man --output-dir target/man";

/// `chartgen explain --help`.
pub const EXPLAIN: &str = "\
Examples:
  chartgen explain 'Deployment/buildkit-buildd.spec.template.spec.containers[buildd].image'
  chartgen explain -f values/common.yaml -f values/ovh-prod.yaml Deployment/buildkit-buildd
  chartgen explain --set buildd.replicas=2 Deployment/buildkit-buildd.spec.replicas
  chartgen explain 'Deployment/buildkit-gateway.metadata.labels.\"app.kubernetes.io/version\"'
  chartgen explain --output json 'Service/buildkit-gateway.spec.ports[0].port'";
