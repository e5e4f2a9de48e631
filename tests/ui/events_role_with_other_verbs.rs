//! R2: the events ClusterRole's rules are fixed; no verb can be added.
use chartgen::plan::rbac::EventsClusterRole;
use chartgen::plan::verbs::Verb;

fn main() {
    let _ = EventsClusterRole::new("x-operator-events").grant(&[Verb::Get]);
}
