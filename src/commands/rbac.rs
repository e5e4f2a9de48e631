//! `chartgen rbac`: effective permissions per subject, without a cluster.

use crate::args::{Format, InputArgs};
use crate::contract::{self, RbacOutput};
use kubernetes::api::admitted;
use kubernetes::exit::Exit;
use kubernetes::input;
use kubernetes::kube::KubeSchemas;
use kubernetes::rbac;
use kubernetes::rbac::resolve::{Permissions, Scope};
use kubernetes::text::printable;

/// Resolves every binding in the manifests and prints what each subject may do.
pub fn run(args: &InputArgs) -> anyhow::Result<Exit> {
    let set = input::read(&args.paths, &super::READ)?;
    let schemas = KubeSchemas::load(&args.kube_version).map_err(anyhow::Error::msg)?;
    let objects: Vec<serde_json::Value> = set.manifests.iter().map(|m| m.json()).collect();
    // A role or binding the API server refuses does not exist once
    // applied: it grants nothing, and a note says why.
    for (index, why) in admitted::refused(&objects, &schemas) {
        let object = &objects[index];
        let field = |a: &str, b: &str| object[a][b].as_str().map(str::to_owned);
        let namespace = field("metadata", "namespace").map(|n| format!("{n}/"));
        kubernetes::terminal::note(&printable(&format!(
            "{} {}{} grants nothing here: the API server refuses it ({why}; `chartgen check` lists every reason)",
            object["kind"].as_str().unwrap_or_default(),
            namespace.unwrap_or_default(),
            field("metadata", "name").unwrap_or_else(|| "(no name)".to_owned()),
        )));
    }
    let objects = admitted::without_refused(&objects, &schemas);
    let version = rbac::defaults::version(&args.kube_version);
    let cluster = kubernetes::rbac::resolve::Cluster::RolesAndBindings;
    let permissions = kubernetes::rbac::resolve::permissions_with(&objects, cluster, version)
        // Past the grant budget, no listing; the checks need none.
        .map_err(|why| anyhow::anyhow!("{why}. `chartgen check` still checks it"))?;
    // Where the answer is the safe side rather than the cluster's.
    for cycle in kubernetes::rbac::resolve::cycles_with_own_rules(&objects, cluster, version) {
        kubernetes::terminal::note(&printable(&format!(
            "the ClusterRoles {} aggregate each other: each is listed with the rules all of them write, and those written in the aggregated roles they reach, while on a cluster such rules last only if a member is synced before the aggregation controller replaces them: reviews against a real server saw some gone in most applies",
            named(&cycle)
        )));
    }
    let text = match args.output {
        Format::Text => kubernetes::rbac::table::render_text(&printable_names(permissions)),
        Format::Json => contract::versioned(&RbacOutput {
            subjects: permissions,
        })?,
    };
    super::print_stdout(&text)?;
    Ok(Exit::Success)
}

/// The ClusterRoles of a cycle as a note names them: five, then how many
/// more.
fn named(cycle: &[String]) -> String {
    const SHOWN: usize = 5;
    match cycle.len().checked_sub(SHOWN) {
        Some(more) if more > 0 => format!("{} and {more} more", cycle[..SHOWN].join(", ")),
        _ => cycle.join(", "),
    }
}

/// The permissions with every name from the input escaped ([`printable`]),
/// so that a subject, namespace or resource name can neither break the
/// table's lines nor reach the terminal as a control sequence.
fn printable_names(mut all: Vec<Permissions>) -> Vec<Permissions> {
    let escape = |text: &mut String| *text = printable(text).into_owned();
    for entry in &mut all {
        escape(&mut entry.subject.kind);
        escape(&mut entry.subject.name);
        entry.subject.namespace.iter_mut().for_each(escape);
        for permission in &mut entry.permissions {
            if let Scope::Namespace(namespace) = &mut permission.scope {
                escape(namespace);
            }
            escape(&mut permission.resource);
            permission.resource_names.iter_mut().for_each(escape);
            permission.verbs.iter_mut().for_each(escape);
            permission.via.iter_mut().for_each(escape);
        }
        for permission in &mut entry.non_resource {
            if let Scope::Namespace(namespace) = &mut permission.scope {
                escape(namespace);
            }
            escape(&mut permission.url);
            permission.verbs.iter_mut().for_each(escape);
            permission.via.iter_mut().for_each(escape);
        }
    }
    all
}
