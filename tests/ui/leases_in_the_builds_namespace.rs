//! R3: leases leave the operator namespace nowhere, not even for the builds Role.
use chartgen::plan::rbac::{Leases, Role};
use chartgen::plan::verbs::Verb;
use chartgen::plan::trust::{Builds, Namespace};

fn main() {
    let builds = Namespace::<Builds>::new("buildkit-builds");
    let _ = Role::new("x", &builds).grant::<Leases>(&[Verb::Create]);
}
