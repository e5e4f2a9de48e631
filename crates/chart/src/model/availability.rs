//! The control plane's availability and operations settings: how its
//! replicas spread over nodes and zones, and how its metrics are reached
//! (a Service, and a Prometheus Operator `ServiceMonitor` on request).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The node label that names a node: one topology domain per node.
pub const NODE_TOPOLOGY_KEY: &str = "kubernetes.io/hostname";

/// The node label that names a node's zone.
pub const ZONE_TOPOLOGY_KEY: &str = "topology.kubernetes.io/zone";

/// What the scheduler does with a pod it cannot place within the skew.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum WhenUnsatisfiable {
    /// Leave the pod pending until a placement within the skew exists.
    DoNotSchedule,
    /// Place it anyway, preferring the placements that reduce the skew.
    ScheduleAnyway,
}

/// How a control-plane Deployment's replicas spread: rendered as two
/// `topologySpreadConstraints` (over nodes, then zones, each with a
/// `maxSkew` of 1 and the Deployment's own pods, per revision) when
/// `enabled`, the workload runs more than one replica and its own
/// `topologySpreadConstraints` are empty (set those to replace these).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Spread {
    /// Whether to spread the replicas; on by default, so no two replicas
    /// share a node where another node can take one.
    pub enabled: bool,
    /// Over nodes (`kubernetes.io/hostname`). `DoNotSchedule` by default: a
    /// node's loss takes at most one replica more than any other node's.
    pub nodes: WhenUnsatisfiable,
    /// Over zones (`topology.kubernetes.io/zone`). `ScheduleAnyway` by
    /// default: a cluster of one zone, or nodes without the zone label,
    /// still schedule every replica.
    pub zones: WhenUnsatisfiable,
}

impl Default for Spread {
    fn default() -> Self {
        Spread {
            enabled: true,
            nodes: WhenUnsatisfiable::DoNotSchedule,
            zones: WhenUnsatisfiable::ScheduleAnyway,
        }
    }
}

/// buildd's metrics endpoint (`metrics`, port 8080 of its container).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Metrics {
    /// Whether to render the Service `<releaseName>-buildd-metrics` in the
    /// operator namespace, port `metrics` (8080) to buildd's metrics port:
    /// the stable name a scraper (or the ServiceMonitor) finds buildd by.
    pub service: bool,
    /// A Prometheus Operator `ServiceMonitor` for that Service.
    pub service_monitor: ServiceMonitor,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            service: true,
            service_monitor: ServiceMonitor::default(),
        }
    }
}

/// A Prometheus Operator `ServiceMonitor` (`monitoring.coreos.com/v1`)
/// scraping buildd's metrics Service. Off by default: the kind exists only
/// where the Prometheus Operator's CRDs are installed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct ServiceMonitor {
    /// Whether to render it; needs `buildd.metrics.service`.
    pub enabled: bool,
    /// How often Prometheus scrapes, as a Prometheus duration (`30s`, `1m`).
    #[schemars(pattern(r"^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$"))]
    pub interval: String,
    /// Labels of the ServiceMonitor, besides the chart's: what the
    /// Prometheus resource's `serviceMonitorSelector` selects (such as
    /// `release: prometheus`).
    pub labels: BTreeMap<String, String>,
}

impl Default for ServiceMonitor {
    fn default() -> Self {
        ServiceMonitor {
            enabled: false,
            interval: "30s".to_owned(),
            labels: BTreeMap::new(),
        }
    }
}
