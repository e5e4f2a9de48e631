//! R6: daemon objects and secrets only in the builds namespace (ADR-0006).

use std::collections::HashSet;

use super::shared::grants::{Grants, names, rule_path};
use super::{DOC, Definition, Inputs};
use crate::check::rules::Invariant;
use crate::check::{Class, Context, Findings};
use crate::plan::adr;
use kubernetes::diagnostic::Rule;
use kubernetes::location::KeyPath;
use kubernetes::rbac::resolve::{Sample, Scope};

/// R6: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "R6",
        title: "Daemon objects and secrets only in the builds namespace",
        help: "ADR-0006: the build daemons' StatefulSets, Services, ConfigMaps, claims and certificates, and secrets above all, are granted to buildd only by a Role in the builds namespace, the untrusted blast radius. Secrets are granted nowhere else, through a cluster default role (`edit`, `admin`, `cluster-admin`) that the operator's binding grants neither (reported at the binding's `roleRef`).",
        example: "R6 Role buildkit-operator/buildkit-operator rules[0].resources: secrets granted in namespace buildkit-operator; secrets are granted only in the builds namespace",
        doc: DOC,
    },
    section: 60,
    rank: 100,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};

/// Checks R6 on the roles and on what the operator's accounts hold.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let (context, grants) = (inputs.context, inputs.grants());
    secrets(grants, findings);
    default_role_secrets(context, grants, findings);
    operator_grants(grants, findings);
}

/// A default role the operator's binding grants secrets through, anywhere
/// but by a RoleBinding in a builds namespace.
fn default_role_secrets(context: &Context<'_>, grants: &Grants<'_>, findings: &mut Findings<'_>) {
    let secrets = adr::SECRETS;
    for (binding, rule) in grants.default_role_rules(context) {
        let in_builds = match &binding.scope {
            Scope::Namespace(namespace) => context.class_of(namespace) == Some(Class::Builds),
            Scope::Cluster => false,
        };
        if !in_builds && rule.any_group(&[secrets.group]) && names(rule, secrets.resource) {
            findings.report(
                Invariant::DaemonObjects,
                binding.index,
                &KeyPath::root().key("roleRef"),
                format!(
                    "binds a default role that grants {} {}; secrets are granted only in the builds namespace",
                    secrets.resource,
                    binding.scope.describe()
                ),
            );
        }
    }
}

/// Secrets are granted only by a Role in the builds namespace.
fn secrets(grants: &Grants<'_>, findings: &mut Findings<'_>) {
    let secrets = adr::SECRETS;
    for (role, r, rule) in grants.role_rules() {
        if rule.any_group(&[secrets.group])
            && names(rule, secrets.resource)
            && !role.in_class(&[Class::Builds], grants.known)
        {
            findings.report(
                Invariant::DaemonObjects,
                role.index,
                &rule_path(r, "resources"),
                format!(
                    "{} granted in {}; secrets are granted only in the builds namespace",
                    secrets.resource,
                    role.place()
                ),
            );
        }
    }
}

/// What a ServiceAccount of an operator namespace holds on daemon objects
/// outside its instance's builds namespace; per role rule and resource,
/// naming a bounded sample of who holds it.
fn operator_grants(grants: &Grants<'_>, findings: &mut Findings<'_>) {
    let rbac = &grants.rbac;
    let outside_builds = rbac.holders(|binding| {
        let mut sample = Sample::default();
        for subject in &binding.subjects {
            let reached = grants.daemons.by(subject);
            if reached.is_some_and(|d| d.outside_builds(&binding.scope)) {
                sample.add(format!(
                    "{} ({})",
                    subject.describe(),
                    binding.scope.describe()
                ));
            }
        }
        sample
    });
    for (id, holders) in outside_builds.iter().enumerate() {
        if holders.is_empty() {
            continue;
        }
        for (r, rule) in rbac.own[id].iter().enumerate() {
            let mut seen = HashSet::new();
            // Once per resource of the rule, whatever its groups.
            for resource in rule.groups.iter().flat_map(|_| &rule.resources) {
                let daemon = adr::DAEMON_OBJECTS
                    .iter()
                    .any(|d| d.resource == resource.as_str());
                if daemon && seen.insert(resource) {
                    let (object, path) = rbac.site(id, rule_path(r, "resources"));
                    findings.report(
                        Invariant::DaemonObjects,
                        object,
                        &path,
                        format!(
                            "{}; daemon objects are granted only in the builds namespace",
                            who_may_use(holders, resource)
                        ),
                    );
                }
            }
        }
    }
}

/// "a may use x in y"; the same role rule's subjects read "a (in y)" only
/// when several.
fn who_may_use(holders: &Sample, resource: &str) -> String {
    let one = holders.single().and_then(|one| {
        let (subject, scope) = one.rsplit_once(" (")?;
        Some(format!(
            "{subject} may use {resource} {}",
            scope.strip_suffix(')')?
        ))
    });
    one.unwrap_or_else(|| format!("{} may use {resource}", holders.describe()))
}
