//! R1: events only through a write-only ClusterRole bound cluster-wide,
//! with create and patch on core events (ADR-2647).

use std::collections::HashSet;

use super::shared::grants::{
    Grants, buildd_subject, flag, names_events, rule_path, service_account_path,
};
use super::{DOC, Definition, Inputs};
use crate::check::facts::Instance;
use crate::check::rules::Invariant;
use crate::check::{Context, Findings};
use crate::plan::adr;
use kubernetes::diagnostic::Rule;
use kubernetes::json::Field;
use kubernetes::location::KeyPath;
use kubernetes::rbac::resolve::Scope;

/// R1: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "R1",
        title: "Events only through a write-only ClusterRole bound cluster-wide, with create and patch on core events",
        help: "ADR-2647: client-go's event recorder writes an event into the namespace of the object it describes, so a grant limited to one namespace loses the events of objects elsewhere, silently. buildd's ServiceAccount must be able to create and patch core (`\"\"`) events in every namespace, through a ClusterRoleBinding. A Role that names events, a RoleBinding to the events ClusterRole, and an events rule restricted by `resourceNames` (create cannot be restricted by name, and the recorder names every event anew) are findings. Events go to the operator's ServiceAccount only: a binding of the operator's (one that reaches its accounts, lives in its namespaces, or binds a role buildd holds) that gives events to any other subject is a finding, and a group subject (`system:serviceaccounts`, `system:serviceaccounts:<namespace>`, `system:authenticated`) gives them to every account it includes, however it also covers buildd's. A further write-only grant in `events.k8s.io` is tolerated, never required.",
        example: "R1 Deployment buildkit-operator/buildkit-buildd spec.template.spec.serviceAccountName: buildkit-operator/buildkit-buildd cannot create, patch events (core group) cluster-wide; the event recorder writes where each object lives (ADR-2647)",
        doc: DOC,
    },
    section: 10,
    rank: 50,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};

/// Checks R1 on the roles, the bindings and each buildd.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let (context, grants) = (inputs.context, inputs.grants());
    roles(grants, findings);
    bindings(context, grants, findings);
    recipients(context, grants, findings);
    for instance in &context.facts.instances {
        buildd(grants, instance, findings);
    }
}

/// ADR-2647 gives events to the operator's ServiceAccount and nobody else:
/// a binding of the operator's that gives events (it reaches the
/// operator's accounts, lives in its namespaces, or binds a role that
/// buildd holds) names no other subject. A group subject
/// (`system:serviceaccounts`, `system:serviceaccounts:<ns>`,
/// `system:authenticated`) gives them to every account it includes. The
/// subjects are read as the binding writes them.
fn recipients(context: &Context<'_>, grants: &Grants<'_>, findings: &mut Findings<'_>) {
    let instances = &context.facts.instances;
    if instances.is_empty() {
        return;
    }
    let buildd: HashSet<(&str, &str)> = instances
        .iter()
        .map(|i| (i.operator.as_str(), i.account.as_str()))
        .collect();
    let operators: HashSet<&str> = buildd.iter().map(|(ns, _)| *ns).collect();
    // Whether a subject includes some buildd's account: the account, its
    // namespace's group, every account (constant time, however many).
    let includes_buildd = |s: &kubernetes::rbac::resolve::Subject| match s.kind.as_str() {
        "ServiceAccount" => s
            .namespace
            .as_deref()
            .is_some_and(|ns| buildd.contains(&(ns, s.name.as_str()))),
        "Group" => match s.name.strip_prefix("system:serviceaccounts:") {
            Some(ns) => operators.contains(ns),
            None => matches!(
                s.name.as_str(),
                "system:serviceaccounts" | "system:authenticated"
            ),
        },
        "User" => s
            .name
            .strip_prefix("system:serviceaccount:")
            .and_then(|rest| rest.split_once(':'))
            .is_some_and(|account| buildd.contains(&account)),
        _ => false,
    };
    let rbac = &grants.rbac;
    let mut held_by_buildd = vec![false; rbac.count()];
    for binding in &rbac.bindings {
        if binding.subjects.iter().any(includes_buildd) {
            held_by_buildd[binding.role] = true;
        }
    }
    // Whether a role (with what it aggregates) names events, a `*`
    // resource or group included; asked once per role.
    let mut gives_events: Vec<Option<bool>> = vec![None; rbac.count()];
    for binding in &rbac.bindings {
        if !(context.in_scope(binding.index) || held_by_buildd[binding.role]) {
            continue;
        }
        let gives = *gives_events[binding.role].get_or_insert_with(|| {
            let mut work = usize::MAX;
            rbac.sources(binding.role, &mut work)
                .into_iter()
                .flatten()
                .any(|source| rbac.own[source].iter().any(names_events))
        });
        if !gives {
            continue;
        }
        let object = context.objects[binding.index];
        let namespace = (object.field("kind") == "RoleBinding").then(|| {
            object
                .field("metadata")
                .field("namespace")
                .as_str()
                .unwrap_or("default")
        });
        for (k, subject) in object
            .field("subjects")
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let kind = subject.field("kind").as_str().unwrap_or_default();
            let name = subject.field("name").as_str().unwrap_or_default();
            let account_namespace = subject
                .field("namespace")
                .as_str()
                .filter(|ns| !ns.is_empty())
                .or(namespace)
                .unwrap_or_default();
            let user = name
                .strip_prefix("system:serviceaccount:")
                .and_then(|rest| rest.split_once(':'));
            if (kind == "ServiceAccount" && buildd.contains(&(account_namespace, name)))
                || (kind == "User" && user.is_some_and(|account| buildd.contains(&account)))
            {
                continue;
            }
            let who = match kind {
                "ServiceAccount" => format!("ServiceAccount {account_namespace}/{name}"),
                "Group" if is_account_group(name) => {
                    format!("Group {name}, every ServiceAccount it includes (buildd's among them)")
                }
                _ => format!("{kind} {name}"),
            };
            findings.report(
                Invariant::EventsClusterWide,
                binding.index,
                &KeyPath::root().key("subjects").index(k),
                format!(
                    "gives events to {who}; ADR-2647 gives them to the operator's ServiceAccount only"
                ),
            );
        }
    }
}

/// Whether group `name` includes ServiceAccounts: every account, those of
/// one namespace, or every authenticated user.
fn is_account_group(name: &str) -> bool {
    matches!(name, "system:serviceaccounts" | "system:authenticated")
        || name.starts_with("system:serviceaccounts:")
}

/// A Role naming events, and an events rule restricted by name.
fn roles(grants: &Grants<'_>, findings: &mut Findings<'_>) {
    for (role, r, rule) in grants.role_rules() {
        if !names_events(rule) {
            continue;
        }
        if !role.cluster {
            findings.report(
                Invariant::EventsClusterWide,
                role.index,
                &rule_path(r, "resources"),
                "events in a namespaced Role; the recorder writes events where the object lives, so they are granted by the write-only events ClusterRole (ADR-2647)",
            );
        }
        if !rule.names.is_empty() {
            findings.report(
                Invariant::EventsClusterWide,
                role.index,
                &rule_path(r, "resourceNames"),
                "events restricted by resourceNames; create cannot be restricted by name and the recorder names each event anew, so its writes would be refused (ADR-2647)",
            );
        }
    }
}

/// A RoleBinding to an events ClusterRole grants events in one namespace
/// only (a Role naming events is reported with the role itself).
fn bindings(context: &Context<'_>, grants: &Grants<'_>, findings: &mut Findings<'_>) {
    let rbac = &grants.rbac;
    for binding in rbac.bindings.iter().filter(|b| context.in_scope(b.index)) {
        let Scope::Namespace(ns) = &binding.scope else {
            continue;
        };
        if !rbac.cluster_role[binding.role] || grants.flags[binding.role] & flag::EVENTS == 0 {
            continue;
        }
        let mut seen = HashSet::new();
        for subject in binding.subjects.iter().filter(|s| seen.insert(*s)) {
            findings.report(
                Invariant::EventsClusterWide,
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
            Invariant::EventsClusterWide,
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
