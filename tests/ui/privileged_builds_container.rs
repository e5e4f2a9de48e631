//! T3: privileged containers exist only in the system class.
use chart::plan::security::PodSecurity;
use chart::plan::trust::Builds;

fn main() {
    let _ = PodSecurity::<Builds>::privileged();
}
