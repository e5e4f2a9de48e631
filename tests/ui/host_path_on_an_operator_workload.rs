//! T3: a hostPath volume exists only for the system class.
use chartgen::plan::security::Volume;
use chartgen::plan::trust::Operator;

fn main() {
    let _ = Volume::<Operator>::host_path("host", "/");
}
