//! T3: a hostPath volume exists only for the system class.
use chart::plan::security::Volume;
use chart::plan::trust::Operator;

fn main() {
    let _ = Volume::<Operator>::host_path("host", "/");
}
