//! Trust classes: a workload's pod settings (nodeSelector, tolerations, ...)
//! cannot add a volume, so no hostPath reaches a pod through them.
use chart::model::pod::PodSettings;

fn main() {
    let _ = PodSettings {
        volumes: Vec::new(),
        ..PodSettings::default()
    };
}
