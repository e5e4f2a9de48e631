//! R2: no role reads, updates or deletes events (ADR-2647).

use super::grants::{Grants, names_events, rule_path};
use crate::check::{Findings, Invariant};
use crate::plan::adr;

/// Checks R2 on every role's rules that name events.
pub(super) fn check(grants: &Grants<'_>, findings: &mut Findings<'_>) {
    let writes = adr::EVENT_VERBS.map(|v| v.name());
    for (role, r, rule) in grants.role_rules() {
        if !names_events(rule) {
            continue;
        }
        let extra: Vec<&str> = rule
            .verbs
            .iter()
            .map(String::as_str)
            .filter(|v| !writes.contains(v))
            .collect();
        if !extra.is_empty() {
            findings.report(
                Invariant::R2,
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
