//! Where the ADR rules place each object: the one place that decides
//! where an object belongs (T2, `placement.rs`) and which of the
//! operator's objects live where the input shows no class (T2, and FACT,
//! `missing_fact.rs`, which says which fact is missing).

use std::collections::HashMap;

use serde_json::Value as Json;

use crate::check::facts::{component_class, namespace_of};
use crate::check::{Class, Context};
use kubernetes::json::Field;
use kubernetes::manifest;

/// What placement finds of an object the ADR rules place.
pub(in crate::check::rules) enum Placed<'a> {
    /// It belongs elsewhere: why, and where.
    Misplaced(String),
    /// The operator's, in this namespace, whose class the input does not
    /// show: a namespace of no trust class when the input shows every
    /// class (T2), else one whose class cannot be told (FACT).
    Unclassed(&'a str),
}

/// What placement finds of each namespaced object, in input order: the
/// one place that decides where an object belongs (T2) and which objects
/// live where the input shows no class (T2, FACT).
pub(in crate::check::rules) fn placements<'a>(
    context: &'a Context<'_>,
) -> Vec<(usize, Placed<'a>)> {
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
