//! R5: there is no wildcard verb.
use chartgen::plan::rbac::Verb;

fn main() {
    let _ = Verb::All;
}
