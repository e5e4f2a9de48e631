//! The NetworkPolicies' peers and rules, from the network values: each
//! peer as the `networking.k8s.io/v1` API writes it, so that
//! `templates/network-policies.yaml` only lays them out (docs/network.md).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Value as Json, json};

use crate::model::Values;
use crate::model::network::{Cni, DAEMON_PORT, METRICS_PORT, Peer, Port};

/// The label every Namespace carries with its own name (set by the API
/// server since Kubernetes 1.21): how a peer names a namespace.
pub const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// What `templates/network-policies.yaml` renders.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkPlan {
    /// Whether to render the CiliumNetworkPolicies too.
    pub cilium: bool,
    /// The port the daemons serve the gateway on.
    pub daemon_port: u16,
    /// buildd's metrics port.
    pub metrics_port: u16,
    /// The cluster DNS pods, as one peer.
    pub dns: Json,
    /// The cluster DNS pods' namespace and labels, for Cilium's selector.
    pub dns_cilium: Json,
    /// The API server's address ranges, as `ipBlock` peers.
    pub api_server: Vec<Json>,
    /// The API server's ports.
    pub api_server_ports: Vec<Json>,
    /// The gateway's clients, as peers.
    pub gateway_clients: Vec<Json>,
    /// Who may scrape buildd's metrics, as peers.
    pub metrics_from: Vec<Json>,
    /// Whether the daemons may connect anywhere.
    pub build_egress_all: bool,
    /// The daemons' egress rules by address range (`to`, `ports`).
    pub build_egress: Vec<Json>,
    /// The daemons' egress rules by name (Cilium: `toFQDNs`, `toPorts`).
    pub build_fqdns: Vec<Json>,
}

impl NetworkPlan {
    /// Plans the policies for `values`.
    pub fn new(values: &Values) -> Self {
        let network = &values.network;
        let dns_namespace = network.dns.namespace.as_str();
        let egress = &network.build_egress;
        NetworkPlan {
            cilium: network.cni == Cni::Cilium,
            daemon_port: DAEMON_PORT,
            metrics_port: METRICS_PORT,
            dns: json!({
                "namespaceSelector": {"matchLabels": {NAMESPACE_NAME_LABEL: dns_namespace}},
                "podSelector": {"matchLabels": network.dns.pod_labels},
            }),
            dns_cilium: json!({
                "matchLabels": cilium_labels(dns_namespace, &network.dns.pod_labels),
            }),
            api_server: network
                .api_server
                .cidrs
                .iter()
                .map(|cidr| json!({"ipBlock": {"cidr": cidr}}))
                .collect(),
            api_server_ports: tcp(&network.api_server.ports),
            gateway_clients: network.gateway_clients.iter().map(peer).collect(),
            metrics_from: network.metrics_from.iter().map(peer).collect(),
            build_egress_all: egress.allow_all,
            build_egress: egress
                .cidrs
                .iter()
                .map(|rule| {
                    let mut block = json!({"cidr": rule.cidr});
                    if !rule.except.is_empty() {
                        block["except"] = json!(rule.except);
                    }
                    let mut out = json!({"to": [{"ipBlock": block}]});
                    if !rule.ports.is_empty() {
                        out["ports"] = json!(tcp(&rule.ports));
                    }
                    out
                })
                .collect(),
            build_fqdns: egress
                .fqdns
                .iter()
                .map(|rule| {
                    let matcher = if rule.name.contains('*') {
                        "matchPattern"
                    } else {
                        "matchName"
                    };
                    let ports: Vec<Json> = rule
                        .ports
                        .iter()
                        .map(|p| json!({"port": p.0.to_string(), "protocol": "TCP"}))
                        .collect();
                    json!({
                        "toFQDNs": [{matcher: rule.name}],
                        "toPorts": [{"ports": ports}],
                    })
                })
                .collect(),
        }
    }
}

/// A peer: its namespaces by name and labels, its pods by labels when given.
fn peer(peer: &Peer) -> Json {
    let mut namespaces: BTreeMap<&str, &str> = peer
        .namespace_labels
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    if let Some(name) = &peer.namespace {
        namespaces.insert(NAMESPACE_NAME_LABEL, name.as_str());
    }
    let mut out = json!({"namespaceSelector": {"matchLabels": namespaces}});
    if !peer.pod_labels.is_empty() {
        out["podSelector"] = json!({"matchLabels": peer.pod_labels});
    }
    out
}

/// TCP ports as a NetworkPolicy writes them.
fn tcp(ports: &[Port]) -> Vec<Json> {
    ports
        .iter()
        .map(|p| json!({"port": p.0, "protocol": "TCP"}))
        .collect()
}

/// Pod labels in a namespace, as a Cilium endpoint selector writes them:
/// the namespace as Cilium's `k8s:io.kubernetes.pod.namespace` label.
fn cilium_labels(namespace: &str, pods: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut labels: BTreeMap<String, String> = pods
        .iter()
        .map(|(k, v)| (format!("k8s:{k}"), v.clone()))
        .collect();
    labels.insert(
        "k8s:io.kubernetes.pod.namespace".to_owned(),
        namespace.to_owned(),
    );
    labels
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::DnsLabel;

    #[test]
    fn a_peer_names_its_namespace_by_the_name_label_and_narrows_to_pods_only_when_asked() {
        let by_name = Peer {
            namespace: Some(DnsLabel::from_static("ci")),
            ..Peer::default()
        };
        assert_eq!(
            peer(&by_name),
            json!({"namespaceSelector": {"matchLabels": {NAMESPACE_NAME_LABEL: "ci"}}})
        );
        let narrowed = Peer {
            namespace_labels: BTreeMap::from([("team".into(), "ci".into())]),
            pod_labels: BTreeMap::from([("app".into(), "runner".into())]),
            ..Peer::default()
        };
        assert_eq!(
            peer(&narrowed),
            json!({
                "namespaceSelector": {"matchLabels": {"team": "ci"}},
                "podSelector": {"matchLabels": {"app": "runner"}},
            })
        );
    }

    #[test]
    fn build_egress_keeps_exceptions_and_leaves_ports_out_when_none_are_given() {
        let mut values = Values::default();
        values.network.build_egress.cidrs[0].ports.clear();
        let plan = NetworkPlan::new(&values);
        assert_eq!(
            plan.build_egress[0]["to"][0]["ipBlock"]["cidr"],
            "0.0.0.0/0"
        );
        assert!(plan.build_egress[0]["to"][0]["ipBlock"]["except"].is_array());
        assert!(plan.build_egress[0]["ports"].is_null());
        assert_eq!(plan.build_egress[1]["ports"][1]["port"], 443);
    }
}
