//! T3: a system-class volume cannot be mounted into an operator pod.
use chart::plan::security::{PodPlan, PodSecurity, Volume};
use chart::plan::trust::System;

fn main() {
    let _ = PodPlan::new(PodSecurity::hardened(65532))
        .with_volume(Volume::<System>::host_path("host", "/"));
}
