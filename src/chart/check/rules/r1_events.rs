//! R1: events only through a write-only ClusterRole bound cluster-wide,
//! with create and patch on core events (ADR-2647).

use std::collections::HashSet;

use super::grants::{Grants, buildd_subject, flag, names_events, rule_path, service_account_path};
use crate::check::facts::Instance;
use crate::check::rbac::Scope;
use crate::check::{Context, Findings, Invariant};
use crate::diagnostic::KeyPath;
use crate::plan::adr;

/// Checks R1 on the roles, the bindings and each buildd.
pub(super) fn check(context: &Context<'_>, grants: &Grants<'_>, findings: &mut Findings<'_>) {
    roles(grants, findings);
    bindings(grants, findings);
    for instance in &context.facts.instances {
        buildd(grants, instance, findings);
    }
}

/// A Role naming events, and an events rule restricted by name.
fn roles(grants: &Grants<'_>, findings: &mut Findings<'_>) {
    for (role, r, rule) in grants.role_rules() {
        if !names_events(rule) {
            continue;
        }
        if !role.cluster {
            findings.report(
                Invariant::R1,
                role.index,
                &rule_path(r, "resources"),
                "events in a namespaced Role; the recorder writes events where the object lives, so they are granted by the write-only events ClusterRole (ADR-2647)",
            );
        }
        if !rule.names.is_empty() {
            findings.report(
                Invariant::R1,
                role.index,
                &rule_path(r, "resourceNames"),
                "events restricted by resourceNames; create cannot be restricted by name and the recorder names each event anew, so its writes would be refused (ADR-2647)",
            );
        }
    }
}

/// A RoleBinding to an events ClusterRole grants events in one namespace
/// only (a Role naming events is reported with the role itself).
fn bindings(grants: &Grants<'_>, findings: &mut Findings<'_>) {
    let rbac = &grants.rbac;
    for binding in &rbac.bindings {
        let Scope::Namespace(ns) = &binding.scope else {
            continue;
        };
        if !rbac.cluster_role[binding.role] || grants.flags[binding.role] & flag::EVENTS == 0 {
            continue;
        }
        let mut seen = HashSet::new();
        for subject in binding.subjects.iter().filter(|s| seen.insert(*s)) {
            findings.report(
                Invariant::R1,
                binding.index,
                &KeyPath::dotted("roleRef"),
                format!(
                    "events granted to {} only in {ns}; events of objects in other namespaces are lost (ADR-2647)",
                    subject.describe()
                ),
            );
        }
    }
}

/// buildd can write core events everywhere, as client-go's tools/record
/// recorder writes them; a rule restricted by name does not count (create
/// cannot be restricted).
fn buildd(grants: &Grants<'_>, instance: &Instance, findings: &mut Findings<'_>) {
    let cluster = grants.held.buildd(instance).cluster;
    let missing: Vec<&str> = adr::EVENT_VERBS
        .iter()
        .enumerate()
        .filter(|(i, _)| cluster & flag::event_write(*i) == 0)
        .map(|(_, verb)| verb.name())
        .collect();
    if !missing.is_empty() {
        findings.report(
            Invariant::R1,
            instance.buildd,
            &service_account_path(),
            format!(
                "{} cannot {} events (core group) cluster-wide; the event recorder writes where each object lives (ADR-2647)",
                buildd_subject(instance).describe(),
                missing.join(", ")
            ),
        );
    }
}
