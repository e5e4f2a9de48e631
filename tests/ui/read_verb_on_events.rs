//! R2: no role can read events; the only events grant is create+patch.
use chart::plan::rbac::{ClusterRole, CustomResources, Events};
use chart::plan::verbs::Verb;

fn main() {
    let _ = ClusterRole::<CustomResources>::new("x").grant::<Events>(&[Verb::Get, Verb::List]);
}
