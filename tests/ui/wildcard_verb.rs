//! R5: there is no wildcard verb.
use chartgen::plan::verbs::Verb;

fn main() {
    let _ = Verb::All;
}
