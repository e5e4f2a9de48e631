//! T3: privileged containers exist only in the system class.
use chartgen::plan::security::PodSecurity;
use chartgen::plan::trust::Builds;

fn main() {
    let _ = PodSecurity::<Builds>::privileged();
}
