//! T3: a system-class volume cannot be mounted into an operator pod.
use chartgen::plan::security::{PodPlan, PodSecurity, Volume};
use chartgen::plan::trust::System;

fn main() {
    let _ = PodPlan::new(PodSecurity::hardened(65532))
        .with_volume(Volume::<System>::host_path("host", "/"));
}
