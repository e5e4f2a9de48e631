//! R2: no role reads, updates or deletes events (ADR-2647).

use super::shared::grants::{names_events, rule_path};
use super::{DOC, Definition, Inputs};
use crate::check::Findings;
use crate::check::rules::Invariant;
use crate::plan::adr;
use kubernetes::diagnostic::Rule;
use kubernetes::location::KeyPath;
use kubernetes::rbac::resolve::PolicyRule;

/// R2: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "R2",
        title: "No role reads, updates or deletes events",
        help: "ADR-2647: the events grant stays write-only: the operator cannot read, list, watch, update or delete events anywhere. Any verb on events besides create and patch, in any role, is a finding; a cluster default role (`view`, `edit`, `admin`, `cluster-admin`, …) that the operator's binding grants is judged by its rules, the finding at the binding's `roleRef`.",
        example: "R2 ClusterRole buildkit-operator-events rules[0].verbs: grants get, watch on events; events are write-only: create and patch (ADR-2647)",
        doc: DOC,
    },
    section: 20,
    rank: 60,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};

/// Checks R2 on every role's rules that name events, and on the default
/// roles the operator's bindings grant.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let (context, grants) = (inputs.context, inputs.grants());
    let writes = adr::EVENT_VERBS.map(|v| v.name());
    let extra = |rule: &PolicyRule| -> Vec<String> {
        if !names_events(rule) {
            return Vec::new();
        }
        rule.verbs
            .iter()
            .filter(|v| !writes.contains(&v.as_str()))
            .cloned()
            .collect()
    };
    for (binding, rule) in grants.default_role_rules(context) {
        let extra = extra(rule);
        if !extra.is_empty() {
            findings.report(
                Invariant::EventsWriteOnly,
                binding.index,
                &KeyPath::root().key("roleRef"),
                format!(
                    "binds a default role that grants {} on events; events are write-only: {} (ADR-2647)",
                    extra.join(", "),
                    writes.join(" and ")
                ),
            );
        }
    }
    for (role, r, rule) in grants.role_rules() {
        let extra = extra(rule);
        if !extra.is_empty() {
            findings.report(
                Invariant::EventsWriteOnly,
                role.index,
                &rule_path(r, "verbs"),
                format!(
                    "grants {} on events; events are write-only: {} (ADR-2647)",
                    extra.join(", "),
                    writes.join(" and ")
                ),
            );
        }
    }
}
