//! Trust classes: a workload's pod settings cannot set a security context
//! or a host namespace; only the trust class decides those.
use chart::model::pod::PodSettings;

fn main() {
    let _ = PodSettings {
        security_context: None,
        host_network: true,
        ..PodSettings::default()
    };
}
