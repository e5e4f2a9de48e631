//! T3: the control plane is hardened; it has no privileged profile.
use chartgen::plan::security::PodSecurity;
use chartgen::plan::trust::Operator;

fn main() {
    let _ = PodSecurity::<Operator>::privileged();
}
