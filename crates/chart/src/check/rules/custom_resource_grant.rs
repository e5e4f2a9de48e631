//! R4: the custom-resource ClusterRole holds only the chart's custom
//! resources (ADR-1058, ADR-2647), and a ClusterRole aggregated into the
//! tenants' built-in roles only reads them (ADR-1592).

use super::shared::grants::{
    Grants, aggregated_into, buildd_subject, flag, is_events_group, names_events, rule_path,
    service_account_path,
};
use super::{DOC, Definition, Inputs};
use kubernetes::diagnostic::Rule;

/// R4: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "R4",
        title: "The custom-resource grant exists, is cluster-wide and holds only the chart's custom resources",
        help: "ADR-1058 and ADR-2647: cluster-wide, the operator gets its custom resources (and their status and finalizers) and the separate events grant, nothing else: no other resource and no `nonResourceURLs`. The grant must exist: each buildd's ServiceAccount gets get, list and watch on `buildprojects.buildkit-operator.dev` through a ClusterRoleBinding (the operator reconciles them in every namespace); none, or one only through RoleBindings (one namespace each), is a finding. Another application's CRDs in the input are no custom resources of the operator's. Events in the custom-resource ClusterRole (the alternative ADR-2647 rejected) are a finding even when the separate events role exists. A ClusterRole aggregated into `view`, `edit` or `admin` reaches every tenant: it may only read the custom resources, and it may not aggregate other ClusterRoles itself (what its selectors gather in the cluster would reach every tenant unreviewed).",
        example: "R4 ClusterRole buildkit-operator rules[3].resources: events in the custom-resource ClusterRole; ADR-2647 keeps them in a separate write-only ClusterRole, reviewable on its own",
        doc: DOC,
    },
    section: 40,
    rank: 80,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};
use crate::check::facts::Instance;
use crate::check::rules::Invariant;
use crate::check::{Context, Findings};
use crate::plan::adr;
use crate::plan::rbac::READ;
use kubernetes::location::KeyPath;
use kubernetes::rbac::resolve::Sample;
use kubernetes::rbac::resolve::{Scope, resource_name};

/// Checks R4 on the roles, the tenant roles and the operator's grants.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let (context, grants) = (inputs.context, inputs.grants());
    events_in_custom_resource_role(grants, findings);
    tenant_roles(context, grants, findings);
    operator_grants(grants, findings);
    for instance in &context.facts.instances {
        custom_resource_grant(context, grants, instance, findings);
    }
}

/// ADR-1058: the custom-resource grant is cluster-wide: buildd's cache
/// lists and watches BuildProjects in every namespace. Missing, or given
/// only by RoleBindings (one namespace each), it is a finding.
fn custom_resource_grant(
    context: &Context<'_>,
    grants: &Grants<'_>,
    instance: &Instance,
    findings: &mut Findings<'_>,
) {
    let cluster = grants.held.buildd(instance).cluster;
    let missing: Vec<(usize, &str)> = adr::CUSTOM_RESOURCE_VERBS
        .iter()
        .enumerate()
        .filter(|(i, _)| cluster & flag::custom(*i) == 0)
        .map(|(i, verb)| (i, verb.name()))
        .collect();
    if missing.is_empty() {
        return;
    }
    let wanted = missing.iter().fold(0, |f, (i, _)| f | flag::custom(*i));
    let rbac = &grants.rbac;
    // Where it is given instead: RoleBindings, one namespace each.
    let mut through: Vec<String> = rbac
        .bindings
        .iter()
        .filter(|b| matches!(b.scope, Scope::Namespace(_)) && grants.flags[b.role] & wanted != 0)
        .filter(|b| {
            b.subjects
                .iter()
                .any(|s| s.covers(&instance.operator, &instance.account))
        })
        .map(|b| context.manifests[b.index].id.to_string())
        .collect();
    through.sort();
    through.dedup();
    let verbs: Vec<&str> = missing.iter().map(|(_, v)| *v).collect();
    let resource = resource_name(adr::CUSTOM_RESOURCES.group, adr::CUSTOM_RESOURCES.resource);
    let how = if through.is_empty() {
        String::new()
    } else {
        format!(" (only through {}, one namespace each)", through.join(", "))
    };
    findings.report(
        Invariant::CustomResourceGrant,
        instance.buildd,
        &service_account_path(),
        format!(
            "{} cannot {} {resource} cluster-wide{how}; the operator reconciles them in every namespace, through the custom-resource ClusterRole bound cluster-wide (ADR-1058)",
            buildd_subject(instance).describe(),
            verbs.join(", "),
        ),
    );
}

/// ADR-2647 rejected events in the custom-resource ClusterRole.
fn events_in_custom_resource_role(grants: &Grants<'_>, findings: &mut Findings<'_>) {
    for (role, r, rule) in grants.role_rules() {
        if role.cluster && role.grants_custom && names_events(rule) {
            findings.report(
                Invariant::CustomResourceGrant,
                role.index,
                &rule_path(r, "resources"),
                "events in the custom-resource ClusterRole; ADR-2647 keeps them in a separate write-only ClusterRole, reviewable on its own",
            );
        }
    }
}

/// A ClusterRole labelled `aggregate-to-view|edit|admin` extends the
/// built-in roles every tenant has: it may only read the chart's custom
/// resources (ADR-1592's tenant reader).
fn tenant_roles(context: &Context<'_>, grants: &Grants<'_>, findings: &mut Findings<'_>) {
    for (id, role) in grants.roles.iter().enumerate() {
        let object = &context.objects[role.index];
        let aggregated = aggregated_into(object);
        if !role.cluster || !role.in_scope || aggregated.is_empty() {
            continue;
        }
        let into = aggregated.join(", ");
        if object
            .get("aggregationRule")
            .is_some_and(|rule| !rule.is_null())
        {
            // Its rules are whatever its own selectors gather, in the input
            // or in the cluster: no review can bound what tenants get.
            findings.report(
                Invariant::CustomResourceGrant,
                role.index,
                &KeyPath::dotted("aggregationRule"),
                format!(
                    "aggregated into {into}, it aggregates other ClusterRoles itself: every tenant gets whatever its selectors match in the cluster; a tenant role lists its read rules itself"
                ),
            );
        }
        for (r, rule) in grants.rbac.own[id].iter().enumerate() {
            let custom = rule.groups.iter().all(|g| grants.crd_groups.contains(g));
            let writes: Vec<&str> = rule
                .verbs
                .iter()
                .map(String::as_str)
                .filter(|v| !READ.iter().any(|read| read.name() == *v))
                .collect();
            if custom && writes.is_empty() {
                continue;
            }
            let what = if custom {
                format!("{} on the custom resources", writes.join(", "))
            } else {
                format!("{} beyond the custom resources", rule.resources.join(", "))
            };
            findings.report(
                Invariant::CustomResourceGrant,
                role.index,
                &KeyPath::root().key("rules").index(r),
                format!(
                    "aggregated into {into}, it gives every tenant {what}; a tenant role only reads the chart's custom resources"
                ),
            );
        }
    }
}

/// Cluster-wide, any ServiceAccount of an operator namespace has the
/// custom resources and event writes, nothing else. Findings are per role
/// rule and resource, naming a bounded sample of who holds it, so their
/// number and size are linear in the roles whatever the number of
/// subjects, bindings and instances.
fn operator_grants(grants: &Grants<'_>, findings: &mut Findings<'_>) {
    let rbac = &grants.rbac;
    let cluster_wide = rbac.holders(|binding| {
        let mut sample = Sample::default();
        if binding.scope == Scope::Cluster {
            for subject in &binding.subjects {
                if grants.daemons.by(subject).is_some_and(|d| d.instances > 0) {
                    sample.add(subject.describe());
                }
            }
        }
        sample
    });
    for (id, holders) in cluster_wide.iter().enumerate() {
        if holders.is_empty() {
            continue;
        }
        let verb = if holders.single().is_some() {
            "gets"
        } else {
            "get"
        };
        for (r, rule) in rbac.own[id].iter().enumerate() {
            for group in &rule.groups {
                for resource in &rule.resources {
                    let plural = resource.split('/').next().unwrap_or_default();
                    let allowed = (resource == adr::EVENTS.resource && is_events_group(group))
                        || (grants.custom.contains(group) && grants.crd_plurals.contains(plural));
                    if !allowed {
                        let (object, path) = rbac.site(id, rule_path(r, "resources"));
                        findings.report(
                            Invariant::CustomResourceGrant,
                            object,
                            &path,
                            format!(
                                "{} {verb} {} cluster-wide; the operator's ClusterRoles hold only the chart's custom resources and event writes",
                                holders.describe(),
                                resource_name(group, resource)
                            ),
                        );
                    }
                }
            }
            if !rule.urls.is_empty() {
                let (object, path) = rbac.site(id, rule_path(r, "nonResourceURLs"));
                findings.report(
                    Invariant::CustomResourceGrant,
                    object,
                    &path,
                    format!(
                        "{} {verb} the non-resource URLs {} cluster-wide; the operator's ClusterRoles hold only the chart's custom resources and event writes, no non-resource grant",
                        holders.describe(),
                        rule.urls.join(", ")
                    ),
                );
            }
        }
    }
}
