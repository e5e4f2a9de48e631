//! R6: secrets are granted only in the builds namespace.
use chart::plan::rbac::{READ, Role, Secrets};
use chart::plan::trust::{Namespace, Operator};

fn main() {
    let operator = Namespace::<Operator>::new("buildkit-operator");
    let _ = Role::new("x", &operator).grant::<Secrets>(READ);
}
