//! The program that manages a release in a cluster is written into a
//! label, a label selector and the dry runs' query: its name is a label
//! value, checked as the constant compiles.
use kubernetes::cluster::Manager;

const MANAGER: Manager = Manager::new("my tool,app=other");

fn main() {
    let _ = MANAGER;
}
