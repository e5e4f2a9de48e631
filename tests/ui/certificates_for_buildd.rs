//! buildd issues no certificate: the chart renders one per trust level, so
//! no Role grants cert-manager Certificates (issue 23, least privilege).
use chart::plan::rbac::{Certificates, Role};
use chart::plan::verbs::Verb;
use chart::plan::trust::{Builds, Namespace};

fn main() {
    let builds = Namespace::<Builds>::new("buildkit-builds");
    let _ = Role::new("x", &builds).grant::<Certificates>(&[Verb::Create]);
}
