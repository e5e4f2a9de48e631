//! R3: pods and leader-election leases in the operator namespace's Role
//! (ADR-2647, ADR-0006).

use std::collections::{BTreeSet, HashMap, HashSet};

use super::shared::grants::{Grants, buildd_subject, flag, names, rule_path, service_account_path};
use super::{DOC, Definition, Inputs};
use crate::check::facts::Instance;
use crate::check::rules::Invariant;
use crate::check::{Class, Context, Findings};
use crate::plan::adr;
use kubernetes::diagnostic::Rule;
use kubernetes::location::KeyPath;
use kubernetes::rbac::resolve::GRANT_BUDGET;

/// R3: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "R3",
        title: "Pods and leader-election leases in the operator namespace's Role",
        help: "ADR-2647 and ADR-0006: buildd takes its leader-election Lease in the namespace it runs in, and the Role there keeps pods and leases. That Role names nothing but core pods and `coordination.k8s.io` leases (deployments there, or a ClusterRole a RoleBinding binds in the operator namespace that grants more, is a finding; events and secrets there are R1's and R6's). Leases are granted nowhere else; pods only in the operator and builds namespaces, never cluster-wide. buildd must keep get on pods, create on leases, and get and update on the Lease its `--leader-election-id` names; a buildd run with `--leader-elect=false` takes no Lease and needs no lease grant (without that flag, leader election is taken as on).",
        example: "R3 Deployment buildkit-operator/buildkit-buildd spec.template.spec.serviceAccountName: buildkit-operator/buildkit-buildd lacks get, update on lease buildkit-buildd-leader (its --leader-election-id) in buildkit-operator; the operator namespace's Role keeps pods and leases (ADR-2647)",
        doc: DOC,
    },
    section: 30,
    rank: 70,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};

/// Checks R3 on the roles and on each buildd.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let (context, grants) = (inputs.context, inputs.grants());
    roles(grants, findings);
    operator_role(context, grants, findings);
    for instance in &context.facts.instances {
        buildd(grants, instance, findings);
    }
}

/// Leases granted only in the operator namespace; pods only there and in
/// the builds namespace.
fn roles(grants: &Grants<'_>, findings: &mut Findings<'_>) {
    let (leases, pods) = (adr::LEASES, adr::PODS);
    for (role, r, rule) in grants.role_rules() {
        let placed = [
            (
                rule.any_group(&[leases.group])
                    && names(rule, leases.resource)
                    && !role.in_class(&[Class::Operator], grants.known),
                leases.resource,
                "leader election takes its Lease only in the operator namespace",
            ),
            (
                rule.any_group(&[pods.group])
                    && names(rule, pods.resource)
                    && !role.in_class(&[Class::Operator, Class::Builds], grants.known),
                pods.resource,
                "only the operator and builds namespaces' Roles may grant pods",
            ),
        ];
        for (broken, resource, why) in placed {
            if broken {
                findings.report(
                    Invariant::PodsAndLeases,
                    role.index,
                    &rule_path(r, "resources"),
                    format!("{resource} granted in {}; {why}", role.place()),
                );
            }
        }
    }
}

/// ADR-2647: "the release-namespace Role keeps pods and leases only": a
/// Role in an operator namespace names nothing else, and neither does a
/// ClusterRole a RoleBinding binds there (reported at the binding).
fn operator_role(context: &Context<'_>, grants: &Grants<'_>, findings: &mut Findings<'_>) {
    let beyond = |rule: &kubernetes::rbac::resolve::PolicyRule| -> Vec<String> {
        let mut found = Vec::new();
        for group in &rule.groups {
            for resource in &rule.resources {
                // Events are R1's (granted only cluster-wide), secrets R6's
                // (granted only in the builds namespace): one finding each.
                let allowed = adr::OPERATOR_ROLE_RESOURCES
                    .iter()
                    .chain([&adr::EVENTS, &adr::SECRETS])
                    .any(|r| r.group == group && r.resource == resource);
                let name = kubernetes::rbac::resolve::resource_name(group, resource);
                if !allowed && !found.contains(&name) {
                    found.push(name);
                }
            }
        }
        found
    };
    let why = "the operator namespace's Role keeps pods and leases only (ADR-2647)";
    for (role, r, rule) in grants.role_rules() {
        if role.cluster || role.class != Some(Class::Operator) {
            continue;
        }
        let extra = beyond(rule);
        if !extra.is_empty() {
            findings.report(
                Invariant::PodsAndLeases,
                role.index,
                &rule_path(r, "resources"),
                format!("grants {} in {}; {why}", extra.join(", "), role.place()),
            );
        }
    }
    let rbac = &grants.rbac;
    // What each role names beyond pods and leases, with what it
    // aggregates: computed once per role, under one work budget for the
    // whole run (a role gathering many, bound many times, costs once).
    let mut work = GRANT_BUDGET;
    let mut per_role: HashMap<usize, Option<BTreeSet<String>>> = HashMap::new();
    for binding in &rbac.bindings {
        let kubernetes::rbac::resolve::Scope::Namespace(ns) = &binding.scope else {
            continue;
        };
        if !rbac.cluster_role[binding.role] || context.class_of(ns) != Some(Class::Operator) {
            continue;
        }
        let extra = per_role.entry(binding.role).or_insert_with(|| {
            let sources = rbac.sources(binding.role, &mut work)?;
            Some(
                sources
                    .into_iter()
                    .flat_map(|source| &rbac.own[source])
                    .flat_map(&beyond)
                    .collect(),
            )
        });
        let Some(extra) = extra else {
            findings.note(
                format!("RoleBinding {ns}"),
                format!("what the ClusterRoles bound in {ns} aggregate is past {GRANT_BUDGET} steps: R3 was not verified for all of them"),
            );
            continue;
        };
        if !extra.is_empty() {
            findings.report(
                Invariant::PodsAndLeases,
                binding.index,
                &KeyPath::dotted("roleRef"),
                format!(
                    "binds a ClusterRole that grants {} in {ns}; {why}",
                    extra
                        .iter()
                        .map(String::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
    }
}

/// buildd reads its pods and takes its Lease in its own namespace: the
/// verbs the Lease lock calls must reach the Lease its
/// `--leader-election-id` names (a rule for every lease does, a named one
/// only if it names it). A buildd run with `--leader-elect=false` takes no
/// Lease, and needs no grant on one.
fn buildd(grants: &Grants<'_>, instance: &Instance, findings: &mut Findings<'_>) {
    let held = grants.held.buildd(instance);
    let here = held.here;
    let lease = instance.lease.as_deref();
    let named = |verb: &str| {
        let Some(name) = lease else {
            return true;
        };
        let rbac = &grants.rbac;
        let mut work = usize::MAX;
        let roles = held.holdings.iter().flatten().flat_map(|h| &h.roles);
        let mut seen = HashSet::new();
        roles
            .filter_map(|&role| rbac.sources(role, &mut work))
            .flatten()
            .filter(|source| seen.insert(*source))
            .flat_map(|source| &rbac.own[source])
            .any(|rule| {
                rule.any_group(&[adr::LEASES.group])
                    && rule.any_resource(adr::LEASES.resource)
                    && rule.any_verb(&[verb])
                    && rule.names.iter().any(|n| n == name)
            })
    };
    let mut lost = Vec::new();
    if here & flag::PODS == 0 {
        lost.push(format!(
            "{} on {}",
            adr::POD_VERB.name(),
            adr::PODS.resource
        ));
    }
    if instance.leader_election {
        lease_verbs(here, lease, named, &mut lost);
    }
    if !lost.is_empty() {
        findings.report(
            Invariant::PodsAndLeases,
            instance.buildd,
            &service_account_path(),
            format!(
                "{} lacks {} in {}; the operator namespace's Role keeps pods and leases (ADR-2647)",
                buildd_subject(instance).describe(),
                lost.join(", "),
                instance.operator
            ),
        );
    }
}

/// What buildd lacks of the Lease lock's verbs: create on leases, and the
/// named verbs on every lease or on the one `lease` names (`named`: whether
/// a rule naming it grants the verb).
fn lease_verbs(
    here: u32,
    lease: Option<&str>,
    named: impl Fn(&str) -> bool,
    lost: &mut Vec<String>,
) {
    if here & flag::LEASE_CREATE == 0 {
        let create = adr::LEASE_CREATE.name();
        lost.push(format!("{create} on {}", adr::LEASES.resource));
    }
    let missing: Vec<&str> = adr::LEASE_NAMED_VERBS
        .iter()
        .enumerate()
        .map(|(i, verb)| (i, verb.name()))
        .filter(|&(i, verb)| {
            let all = here & flag::lease(i, false) != 0;
            !(all || (here & flag::lease(i, true) != 0 && named(verb)))
        })
        .map(|(_, verb)| verb)
        .collect();
    if !missing.is_empty() {
        lost.push(match lease {
            Some(name) => format!(
                "{} on lease {name} (its --leader-election-id)",
                missing.join(", ")
            ),
            None => format!("{} on {}", missing.join(", "), adr::LEASES.resource),
        });
    }
}
