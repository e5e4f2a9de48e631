//! T2: every object in its trust class's namespace (ADR-0006). Where the
//! input does not show a namespace's class, FACT ([`super::missing_fact`])
//! says which fact is missing, from the same [`placements`].

use std::collections::HashMap;

use serde_json::Value as Json;

use crate::check::facts::{component_class, namespace_of};
use crate::check::{Class, Context, Findings};
use crate::check::rules::Invariant;
use kubernetes::json::Field;
use kubernetes::location::KeyPath;
use kubernetes::manifest;
use super::{DOC, Definition, Inputs};
use kubernetes::diagnostic::Rule;

/// T2: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "T2",
        title: "Every object in its trust class's namespace",
        help: "ADR-0006: the control plane (buildd, gateway) in the operator namespace; the build daemons' objects and the BuildProjects in the builds namespace; the Kata node plumbing in the system namespace; nothing of the operator's namespaced outside them. An object is placed by what references it, whatever its labels: the ConfigMap, Secret (or the cert-manager Certificate whose `secretName` writes it) and ServiceAccount that buildd's `--daemon-config`, `--daemon-pod-template`, `--daemon-tls-secret` and `--daemon-service-account` name belong in the builds namespace, and what a workload mounts, reads or runs as belongs in that workload's namespace; a copy where its user needs it is no finding. chartgen's component labels only place what nothing references. Another application's objects, in namespaces of no trust class, are not placed.",
        example: "T2 BuildProject buildkit-operator/web-frontend metadata.namespace: belongs to the builds class, in buildkit-builds, not buildkit-operator",
        doc: DOC,
    },
    section: 80,
    rank: 120,
    check: Some(check),
    appendix: None,
    per_object: false,
};

/// What placement finds of an object the ADR rules place.
pub(super) enum Placed<'a> {
    /// It belongs elsewhere: why, and where.
    Misplaced(String),
    /// The operator's, in this namespace, whose class the input does not
    /// show: a namespace of no trust class when the input shows every
    /// class (T2), else one whose class cannot be told (FACT).
    Unclassed(&'a str),
}

/// T2: an object of a class lives in that class's namespace, and no
/// namespaced object of the operator's lives outside the namespaces the
/// input shows.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let context = inputs.context;
    let known = context.facts.release_known();
    let path = KeyPath::dotted("metadata.namespace");
    for (index, placed) in placements(context) {
        match placed {
            Placed::Misplaced(message) => {
                findings.report(Invariant::Placement, index, &path, message);
            }
            Placed::Unclassed(namespace) if known => findings.report(
                Invariant::Placement,
                index,
                &path,
                format!("namespace {namespace} is none of the operator, builds and system namespaces"),
            ),
            Placed::Unclassed(_) => {}
        }
    }
}

/// What placement finds of each namespaced object, in input order: the
/// one place that decides where an object belongs (T2) and which objects
/// live where the input shows no class (T2, FACT).
pub(super) fn placements<'a>(context: &'a Context<'_>) -> Vec<(usize, Placed<'a>)> {
    // Decided once: what the input shows does not change per object.
    let homes: HashMap<Class, String> = Class::ALL
        .into_iter()
        .filter_map(|c| context.facts.names_of(c).map(|names| (c, names)))
        .collect();
    let mut found = Vec::new();
    for (index, object) in context.objects.iter().enumerate() {
        // The API server ignores a namespace on a cluster-scoped object.
        if manifest::is_cluster_scoped(object.field("kind").as_str().unwrap_or_default()) {
            continue;
        }
        // An object without a namespace lands in the one kubectl applies it to: say default.
        let namespace = namespace_of(object);
        let class = context.class_of(namespace);
        if let Some(required) = context.facts.misplaced(index) {
            let message = format!(
                "{}, in {} (the {} class), not {namespace}",
                required.by,
                required.namespace,
                required.class.name()
            );
            found.push((index, Placed::Misplaced(message)));
            continue;
        }
        if let Some(expected) = expected_class(context, index, object)
            && class != Some(expected)
            && let Some(want) = homes.get(&expected)
        {
            let message = format!(
                "belongs to the {} class, in {want}, not {namespace}",
                expected.name()
            );
            found.push((index, Placed::Misplaced(message)));
            continue;
        }
        // Another application's object, or a grant to the operator in
        // another application's namespace (the R rules judge what it
        // grants): no placement to verify.
        if class.is_some() || !context.in_scope(index) || is_rbac(object) {
            continue;
        }
        found.push((index, Placed::Unclassed(namespace)));
    }
    found
}

/// Whether `object` is a Role or RoleBinding.
fn is_rbac(object: &Json) -> bool {
    matches!(object.field("kind").as_str(), Some("Role" | "RoleBinding"))
}

/// The class an object belongs to by what it is: BuildProjects to the
/// builds class, buildd and node plumbing by the facts; chartgen's component
/// label as a hint.
fn expected_class(context: &Context<'_>, index: usize, object: &Json) -> Option<Class> {
    if object.field("kind") == "BuildProject" {
        Some(Class::Builds)
    } else if context.facts.instance_at(index).is_some() {
        Some(Class::Operator)
    } else {
        component_class(object)
    }
}
