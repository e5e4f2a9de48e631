//! T5: the control plane wired to its namespaces (ADR-0006): buildd's
//! POD_NAMESPACE from the downward API, its `--namespace` a builds
//! namespace of its own, its Lease in its own namespace; the gateway's
//! `--daemon-namespace` the builds namespace; no operator namespace
//! without a buildd.

use super::shared::namespaces::namespace_objects;
use super::{DOC, Definition, Inputs};
use crate::check::facts::{Instance, command_line, flag_field, last_flag, namespace_of, pod_spec};
use crate::check::rules::Invariant;
use crate::check::{Class, Context, Findings};
use kubernetes::diagnostic::Rule;
use kubernetes::json::Field;
use kubernetes::location::KeyPath;

/// T5: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "T5",
        title: "The control plane wired to its namespaces",
        help: "ADR-0006: buildd reads POD_NAMESPACE from the downward API (its Lease lives where it runs) and, when told one, takes it in its own namespace (`--leader-election-namespace`); it is told the builds namespace with `--namespace` (either `--namespace=X` or `--namespace X`), never its own; the gateway's `--daemon-namespace` names the same builds namespace; an operator namespace holds a buildd.",
        example: "T5 Deployment buildkit-operator/buildkit-gateway spec.template.spec.containers[0].args: told --daemon-namespace=buildkit-operator; the daemons run in the builds namespace, buildkit-builds",
        doc: DOC,
    },
    section: 120,
    rank: 160,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};

/// Checks T5 on each buildd, the workloads naming the daemons' namespace,
/// and the operator Namespaces.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let context = inputs.context;
    for instance in &context.facts.instances {
        buildd(context, instance, findings);
    }
    gateway(context, findings);
    operator_without_buildd(context, findings);
}

/// buildd reads POD_NAMESPACE from the downward API and creates daemons
/// in a builds namespace of their own.
fn buildd(context: &Context<'_>, instance: &Instance, findings: &mut Findings<'_>) {
    let index = instance.buildd;
    let object = &context.objects[index];
    let at = KeyPath::dotted("spec.template.spec.containers").index(instance.container);
    let container = &object
        .field("spec")
        .field("template")
        .field("spec")
        .field("containers")[instance.container];
    // The last entry of a name wins, as in the kubelet.
    let pod_namespace = container
        .field("env")
        .as_array()
        .into_iter()
        .flatten()
        .rfind(|e| e.field("name") == "POD_NAMESPACE");
    let downward = pod_namespace.is_some_and(|e| {
        e.field("valueFrom").field("fieldRef").field("fieldPath") == "metadata.namespace"
    });
    if !downward {
        findings.report(
            Invariant::Wiring,
            index,
            &at.key("env"),
            "POD_NAMESPACE does not come from the downward API (fieldRef metadata.namespace); buildd's Lease lives in its own namespace",
        );
    }
    let wrong = match instance.namespace_flag.as_deref() {
        None => Some(
            "buildd is given no --namespace; it creates the daemons in the builds namespace"
                .to_owned(),
        ),
        Some(ns) if ns == instance.operator => Some(format!(
            "buildd is told --namespace={ns}, its own namespace; it creates the daemons in the builds namespace, never the operator's (ADR-0006)"
        )),
        Some(_) => None,
    };
    if let Some(message) = wrong {
        let field = flag_field(container, "--namespace");
        findings.report(Invariant::Wiring, index, &at.key(field), message);
    }
    // controller-runtime takes the Lease where --leader-election-namespace
    // says, if it says: that must be buildd's own namespace.
    let args = &command_line(container);
    if let Some(elsewhere) = last_flag(args, "--leader-election-namespace")
        && elsewhere != instance.operator
    {
        findings.report(
            Invariant::Wiring,
            index,
            &at.key(flag_field(container, "--leader-election-namespace")),
            format!(
                "buildd is told --leader-election-namespace={elsewhere}; it takes its Lease in its own namespace, {} (ADR-0006)",
                instance.operator
            ),
        );
    }
}

/// A control-plane workload that names the daemons' namespace
/// (`--daemon-namespace`, the gateway) names its buildd's builds namespace.
fn gateway(context: &Context<'_>, findings: &mut Findings<'_>) {
    for (index, object) in context.objects.iter().enumerate() {
        let Some((pod_path, pod)) = pod_spec(object) else {
            continue;
        };
        let namespace = namespace_of(object);
        let Some(builds) = context
            .facts
            .instances_in(namespace)
            .find_map(|i| i.builds.as_deref())
        else {
            continue;
        };
        for (c, container) in pod
            .field("containers")
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let args = &command_line(container);
            if let Some(told) = last_flag(args, "--daemon-namespace")
                && told != builds
            {
                let at = pod_path
                    .clone()
                    .key("containers")
                    .index(c)
                    .key(flag_field(container, "--daemon-namespace"));
                findings.report(
                    Invariant::Wiring,
                    index,
                    &at,
                    format!(
                        "told --daemon-namespace={told}; the daemons run in the builds namespace, {builds}"
                    ),
                );
            }
        }
    }
}

/// A Namespace the input marks as the operator's with no buildd in it.
fn operator_without_buildd(context: &Context<'_>, findings: &mut Findings<'_>) {
    let operators: Vec<&str> = context
        .facts
        .classes
        .iter()
        .filter(|(_, c)| **c == Class::Operator)
        .map(|(n, _)| n.as_str())
        .filter(|n| context.facts.instances_in(n).next().is_none())
        .collect();
    if operators.is_empty() {
        return;
    }
    let objects = namespace_objects(context);
    for namespace in operators {
        let index = objects
            .get(namespace)
            .filter(|i| context.objects[**i].field("kind") == "Namespace");
        if let Some(&index) = index {
            findings.report(
                Invariant::Wiring,
                index,
                &KeyPath::root(),
                "the operator namespace has no buildd Deployment (a container named buildd or running a buildd image)",
            );
        }
    }
}
