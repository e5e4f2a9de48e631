//! R3: leases leave the operator namespace nowhere, not even for the builds Role.
use chart::plan::rbac::{Leases, Role};
use chart::plan::verbs::Verb;
use chart::plan::trust::{Builds, Namespace};

fn main() {
    let builds = Namespace::<Builds>::new("buildkit-builds");
    let _ = Role::new("x", &builds).grant::<Leases>(&[Verb::Create]);
}
