//! R5: there is no wildcard verb.
use chart::plan::verbs::Verb;

fn main() {
    let _ = Verb::All;
}
