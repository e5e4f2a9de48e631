//! `resourceNames` cannot restrict create (the object has no name yet):
//! a rule restricted by name takes only a `NamedVerb`, which has no create.
use chart::plan::rbac::{Leases, Role};
use chart::plan::verbs::NamedVerb;
use chart::plan::trust::{Namespace, Operator};

fn main() {
    let operator = Namespace::<Operator>::new("buildkit-operator");
    let _ = Role::new("x", &operator).grant_named::<Leases>(&["lock"], &[NamedVerb::Create]);
}
