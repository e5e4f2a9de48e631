//! An output directory's owner names its lock file: a hidden name in the
//! directory, never a path out of it (a lock is removed when a render ends).
use kubernetes::output::Owner;

const OWNER: Owner = Owner::new("# Written by mytool.", "../.mytool.lock", ".mytool-");

fn main() {
    let _ = OWNER;
}
