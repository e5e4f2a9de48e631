//! The network values: which flows the NetworkPolicies admit (docs/network.md).
//!
//! Every namespace the release targets (operator, builds) denies all
//! ingress and egress by default; these values name the flows on top: the
//! API server's address, cluster DNS, the gateway's clients, who scrapes
//! buildd's metrics, and where builds may connect.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::DnsLabel;

/// The port the build daemons serve the gateway on (buildkitd's TCP listener).
pub const DAEMON_PORT: u16 = 1234;

/// buildd's metrics port (its container port `metrics`).
pub const METRICS_PORT: u16 = 8080;

/// NetworkPolicies of the operator and builds namespaces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Network {
    /// The cluster's network plugin, for what a Kubernetes NetworkPolicy
    /// cannot say. `standard`: NetworkPolicies only (any CNI that enforces
    /// them: Calico, Cilium, Antrea, ...). `cilium`: also
    /// `CiliumNetworkPolicy` objects (cilium.io/v2; the cluster must have
    /// Cilium's CRDs): buildd reaches the API server as the
    /// `kube-apiserver` entity, and `buildEgress.fqdns` lets builds reach
    /// named hosts.
    pub cni: Cni,
    /// Where buildd reaches the Kubernetes API server: a NetworkPolicy
    /// cannot name it portably, so address ranges and ports.
    pub api_server: ApiServer,
    /// Cluster DNS, which every pod of both namespaces may query on UDP and
    /// TCP 53.
    pub dns: Dns,
    /// Who may connect to the gateway's port. Each peer is a namespace (by
    /// name or labels), optionally narrowed to pods by labels; the default
    /// admits namespaces labelled `buildkit-operator.dev/gateway-client:
    /// "true"`. A peer that would admit every namespace is refused.
    pub gateway_clients: Vec<Peer>,
    /// Who may scrape buildd's metrics port (8080); the default is the
    /// `monitoring` namespace. Empty: nobody.
    pub metrics_from: Vec<Peer>,
    /// Where the build daemons may connect, besides cluster DNS.
    pub build_egress: BuildEgress,
}

impl Default for Network {
    fn default() -> Self {
        Network {
            cni: Cni::Standard,
            api_server: ApiServer::default(),
            dns: Dns::default(),
            gateway_clients: vec![Peer {
                namespace: None,
                namespace_labels: BTreeMap::from([(
                    "buildkit-operator.dev/gateway-client".to_owned(),
                    "true".to_owned(),
                )]),
                pod_labels: BTreeMap::new(),
            }],
            metrics_from: vec![Peer {
                namespace: Some(DnsLabel::from_static("monitoring")),
                namespace_labels: BTreeMap::new(),
                pod_labels: BTreeMap::new(),
            }],
            build_egress: BuildEgress::default(),
        }
    }
}

/// The cluster's network plugin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Cni {
    /// Kubernetes NetworkPolicies only.
    #[default]
    Standard,
    /// Cilium: NetworkPolicies and CiliumNetworkPolicies (cilium.io/v2).
    Cilium,
}

/// The API server, as an address range and ports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct ApiServer {
    /// Address ranges of the API server's endpoints (CIDRs). The default
    /// admits every address: narrow it to your API server's endpoints
    /// (`kubectl get endpointslices -n default -l
    /// kubernetes.io/service-name=kubernetes`). With `cni: cilium`, buildd
    /// also reaches the `kube-apiserver` entity, and this may be `[]`.
    pub cidrs: Vec<String>,
    /// TCP ports; at least one. The default is 443, the `kubernetes`
    /// Service's port, and 6443, the API server's usual endpoint port: most
    /// plugins judge egress after the Service address is translated to the
    /// endpoint.
    pub ports: Vec<Port>,
}

impl Default for ApiServer {
    fn default() -> Self {
        ApiServer {
            cidrs: vec!["0.0.0.0/0".to_owned(), "::/0".to_owned()],
            ports: vec![Port(443), Port(6443)],
        }
    }
}

/// Cluster DNS: its namespace and pod labels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Dns {
    /// The namespace the DNS pods run in, selected by its
    /// `kubernetes.io/metadata.name` label.
    pub namespace: DnsLabel,
    /// The DNS pods' labels; at least one.
    pub pod_labels: BTreeMap<String, String>,
}

impl Default for Dns {
    fn default() -> Self {
        Dns {
            namespace: DnsLabel::from_static("kube-system"),
            pod_labels: BTreeMap::from([("k8s-app".to_owned(), "kube-dns".to_owned())]),
        }
    }
}

/// Pods of some namespaces: the namespaces by name or labels (at least
/// one), and, when `podLabels` is set, only their pods with those labels.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Peer {
    /// A namespace by name (its `kubernetes.io/metadata.name` label).
    pub namespace: Option<DnsLabel>,
    /// Namespaces by labels; all must match.
    pub namespace_labels: BTreeMap<String, String>,
    /// Only the pods with these labels; empty: every pod of the namespaces.
    pub pod_labels: BTreeMap<String, String>,
}

/// Where the build daemons may connect.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct BuildEgress {
    /// Allow every destination (`cidrs` and `fqdns` must then be empty).
    /// The builds stay isolated from ingress; this opens only their egress,
    /// including to the cluster's pods, nodes and cloud metadata services.
    pub allow_all: bool,
    /// Address ranges, each with its exceptions and ports. The default is
    /// the public internet (every address but private, shared, loopback
    /// and link-local ones, which hold the cluster's pods and nodes and the
    /// cloud metadata service) on ports 80 and 443: registries, git hosts
    /// and package mirrors over HTTP(S).
    pub cidrs: Vec<CidrRule>,
    /// Named hosts, only with `cni: cilium` (CiliumNetworkPolicy
    /// `toFQDNs`): an exact name (`github.com`) or a pattern with `*`
    /// (`*.githubusercontent.com`). Cilium learns their addresses from the
    /// DNS answers the daemons get.
    pub fqdns: Vec<FqdnRule>,
}

impl Default for BuildEgress {
    fn default() -> Self {
        BuildEgress {
            allow_all: false,
            cidrs: public_internet(),
            fqdns: Vec::new(),
        }
    }
}

/// The public internet on 80 and 443: every IPv4 and IPv6 address but
/// private (RFC 1918, fc00::/7), shared (RFC 6598), loopback and link-local
/// (cloud metadata at 169.254.169.254) ones.
pub fn public_internet() -> Vec<CidrRule> {
    let ports = vec![Port(80), Port(443)];
    let owned = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect();
    vec![
        CidrRule {
            cidr: "0.0.0.0/0".to_owned(),
            except: owned(&[
                "10.0.0.0/8",
                "100.64.0.0/10",
                "127.0.0.0/8",
                "169.254.0.0/16",
                "172.16.0.0/12",
                "192.168.0.0/16",
            ]),
            ports: ports.clone(),
        },
        CidrRule {
            cidr: "::/0".to_owned(),
            except: owned(&["::1/128", "fc00::/7", "fe80::/10"]),
            ports,
        },
    ]
}

/// One address range builds may reach.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CidrRule {
    /// The range, such as `10.20.0.0/16`.
    pub cidr: String,
    /// Ranges inside `cidr` that stay closed.
    #[serde(default)]
    pub except: Vec<String>,
    /// TCP ports; empty: every port and protocol.
    #[serde(default)]
    pub ports: Vec<Port>,
}

/// One named destination (Cilium `toFQDNs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FqdnRule {
    /// A host name, or a pattern where `*` stands for any run of name
    /// characters (`*.github.com`).
    #[schemars(length(min = 1, max = 255), pattern(r"^[-a-zA-Z0-9_.*]+$"))]
    pub name: String,
    /// TCP ports; at least one.
    pub ports: Vec<Port>,
}

/// A TCP port number.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(transparent)]
pub struct Port(#[schemars(range(min = 1, max = 65535))] pub u16);
