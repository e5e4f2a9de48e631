//! R3: pods are never granted cluster-wide.
use chart::plan::rbac::{ClusterRole, CustomResources, Pods, READ};

fn main() {
    let _ = ClusterRole::<CustomResources>::new("x").grant::<Pods>(READ);
}
