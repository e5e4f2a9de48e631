//! T3: the control plane is hardened; it has no privileged profile.
use chart::plan::security::PodSecurity;
use chart::plan::trust::Operator;

fn main() {
    let _ = PodSecurity::<Operator>::privileged();
}
