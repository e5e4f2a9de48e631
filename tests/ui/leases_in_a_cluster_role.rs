//! R3: leases are granted only in the operator namespace's Role.
use chart::plan::rbac::{ClusterRole, KataNodePlumbing, Leases};
use chart::plan::verbs::Verb;

fn main() {
    let _ = ClusterRole::<KataNodePlumbing>::new("x").grant::<Leases>(&[Verb::Get]);
}
