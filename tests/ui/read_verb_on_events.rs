//! R2: no role can read events; the only events grant is create+patch.
use chartgen::plan::rbac::{ClusterRole, CustomResources, Events};
use chartgen::plan::verbs::Verb;

fn main() {
    let _ = ClusterRole::<CustomResources>::new("x").grant::<Events>(&[Verb::Get, Verb::List]);
}
