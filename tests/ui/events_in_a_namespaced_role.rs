//! R1: events are granted only by the write-only events ClusterRole.
use chart::plan::rbac::{Events, Role};
use chart::plan::verbs::Verb;
use chart::plan::trust::{Namespace, Operator};

fn main() {
    let operator = Namespace::<Operator>::new("buildkit-operator");
    let _ = Role::new("x", &operator).grant::<Events>(&[Verb::Create, Verb::Patch]);
}
