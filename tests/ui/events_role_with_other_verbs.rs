//! R2: the events ClusterRole's rules are fixed; no verb can be added.
use chart::plan::rbac::EventsClusterRole;
use chart::plan::verbs::Verb;

fn main() {
    let _ = EventsClusterRole::new("x-operator-events").grant(&[Verb::Get]);
}
