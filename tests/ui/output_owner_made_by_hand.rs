//! An output directory's owner is made only by `Owner::new`, which checks
//! its names: its fields are private.
use kubernetes::output::Owner;

fn main() {
    let _ = Owner {
        marker: "# Written by mytool.",
        lock: "/etc/passwd",
        temp_prefix: "",
    };
}
