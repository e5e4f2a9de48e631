//! Trust classes: the escape hatches (volumes, sidecars) live in
//! `chart::model::extras::Extras` beside a workload's pod settings, never inside them:
//! what `PodSettings` holds stays free of volumes and security contexts.
use chart::model::pod::PodSettings;

fn main() {
    let _ = PodSettings {
        extra_volumes: Vec::new(),
        sidecars: Vec::new(),
        ..PodSettings::default()
    };
}
