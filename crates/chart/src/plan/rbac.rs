//! RBAC grants whose shape the compiler checks (ADR-2647, invariants R1-R6).
//!
//! Resources are types. Which of them a role may name is a trait bound:
//! [`Role<C>::grant`] needs `NamespacedGrant<C>`, [`ClusterRole<P>::grant`]
//! needs `ClusterGrant<P>`. The impls follow the lists of [`adr`]
//! (`OPERATOR_ROLE_RESOURCES`, `BUILDS_ROLE_RESOURCES`, …), the facts the
//! checks read too: `grantable!` asserts at compile time that each impl
//! list is its `adr` list. Events implement neither: the only way to grant
//! them is [`EventsClusterRole`], whose one constructor writes create and
//! patch. [`Verb`] has no wildcard. So these do not compile:
//!
//! - events in a namespaced Role (`Role<Operator>::grant::<Events>`), R1;
//! - any verb on events but create/patch (no API takes verbs for events), R2;
//! - pods or leases in a ClusterRole (`ClusterRole<_>::grant::<Pods>`), R3;
//! - core resources in the custom-resource ClusterRole, R4;
//! - a wildcard (`Verb` has no `*`, resources are named types), R5;
//! - secrets anywhere but a `Role<Builds>`, R6;
//! - a rule restricted by `resourceNames` that grants `create` or
//!   `deletecollection` ([`Role::grant_named`] takes a [`NamedVerb`]): the
//!   API server never matches a name on those requests, so such a rule
//!   would grant nothing and hide that the create needs a rule of its own.

use serde::Serialize;

use super::adr::{self, EVENT_VERBS, GroupResource};
use super::trust::{Builds, Namespace, Operator, System, TrustClass};
use super::verbs::{NamedVerb, Verb};

/// Reading named objects: get, and list and watch of one object by its
/// name (a field selector on `metadata.name`).
pub const READ_NAMED: &[NamedVerb] = &[NamedVerb::Get, NamedVerb::List, NamedVerb::Watch];

/// The verbs controllers use on objects they own.
pub const MANAGE: &[Verb] = &[
    Verb::Get,
    Verb::List,
    Verb::Watch,
    Verb::Create,
    Verb::Update,
    Verb::Patch,
    Verb::Delete,
];

/// The label prefix that aggregates a ClusterRole into a built-in role
/// (`view`, `edit`, `admin`).
pub const AGGREGATE_TO: &str = "rbac.authorization.k8s.io/aggregate-to-";

/// The verbs that read.
pub const READ: &[Verb] = &[Verb::Get, Verb::List, Verb::Watch];

/// A Kubernetes resource (or subresource) that a rule can name.
pub trait ApiResource {
    /// Its API group (`""` for the core group).
    const GROUP: &'static str;
    /// Its plural name, with `/subresource` where it is one.
    const RESOURCE: &'static str;
}

/// `R` may be granted by a Role in a namespace of class `C`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be granted by a Role in a `{C}` namespace",
    label = "not grantable in this trust class",
    note = "ADR-2647: events only through EventsClusterRole, leases only in the operator namespace, daemon objects and secrets only in the builds namespace"
)]
pub trait NamespacedGrant<C: TrustClass>: ApiResource {}

/// What a ClusterRole is for; decides which resources it may name.
pub trait ClusterPurpose {}

/// `R` may be granted by a ClusterRole whose purpose is `P`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be granted by a `{P}` ClusterRole",
    label = "not grantable cluster-wide for this purpose",
    note = "ADR-2647: pods and leases are never cluster-wide; events only through EventsClusterRole; the custom-resource role holds only the chart's custom resources"
)]
pub trait ClusterGrant<P: ClusterPurpose>: ApiResource {}

macro_rules! resources {
    ($($(#[$doc:meta])* $name:ident = $resource:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name;
        impl ApiResource for $name {
            const GROUP: &'static str = $resource.group;
            const RESOURCE: &'static str = $resource.resource;
        }
    )*};
}

/// A resource of no ADR's, named here.
const fn named(group: &'static str, resource: &'static str) -> GroupResource {
    GroupResource { group, resource }
}

resources! {
    /// Pods.
    Pods = adr::PODS;
    /// Pod logs.
    PodLogs = adr::POD_LOGS;
    /// Leader-election Leases.
    Leases = adr::LEASES;
    /// Events; grantable only through [`EventsClusterRole`].
    Events = adr::EVENTS;
    /// Services.
    Services = adr::SERVICES;
    /// ConfigMaps.
    ConfigMaps = adr::CONFIGMAPS;
    /// Secrets.
    Secrets = adr::SECRETS;
    /// PersistentVolumeClaims (build cache).
    PersistentVolumeClaims = adr::PERSISTENT_VOLUME_CLAIMS;
    /// StatefulSets.
    StatefulSets = adr::STATEFULSETS;
    /// Nodes.
    Nodes = named("", "nodes");
    /// The nodes/proxy subresource.
    NodesProxy = named("", "nodes/proxy");
    /// DaemonSets.
    DaemonSets = named("apps", "daemonsets");
    /// RuntimeClasses.
    RuntimeClasses = named("node.k8s.io", "runtimeclasses");
    /// The chart's BuildProjects.
    BuildProjects = adr::CUSTOM_RESOURCES;
    /// Their status subresource.
    BuildProjectsStatus = adr::CUSTOM_RESOURCE_STATUS;
    /// Their finalizers subresource.
    BuildProjectsFinalizers = adr::CUSTOM_RESOURCE_FINALIZERS;
}

/// Whether `a` and `b` name the same resources in the same order (in a
/// const context, where `==` on strings is not available).
const fn same_resources(a: &[GroupResource], b: &[GroupResource]) -> bool {
    const fn same(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if !same(a[i].group, b[i].group) || !same(a[i].resource, b[i].resource) {
            return false;
        }
        i += 1;
    }
    true
}

/// Which resource a role may grant where, written once, in `adr`: each
/// line implements the grant trait for the resource types listed and
/// fails the build unless they are the `adr` list, in its order. A
/// resource added to one and not the other does not compile.
macro_rules! grantable {
    ($($grant:ident<$target:ident> = $facts:path => [$($resource:ident),* $(,)?];)*) => {$(
        const _: () = assert!(
            same_resources(
                &[$(named(<$resource as ApiResource>::GROUP, <$resource as ApiResource>::RESOURCE)),*],
                &$facts,
            ),
            concat!(
                "the ", stringify!($grant), "<", stringify!($target), "> impls are not ",
                stringify!($facts), ", in its order"
            ),
        );
        $(impl $grant<$target> for $resource {})*
    )*};
}

/// The ClusterRole of the chart's custom resources (R4).
#[derive(Debug, Serialize)]
pub struct CustomResources;
/// The read-only tenant ClusterRole, aggregated to `view`.
#[derive(Debug, Serialize)]
pub struct TenantReader;
/// The kata-deploy installer's ClusterRole.
#[derive(Debug, Serialize)]
pub struct KataNodePlumbing;

impl ClusterPurpose for CustomResources {}
impl ClusterPurpose for TenantReader {}
impl ClusterPurpose for KataNodePlumbing {}

grantable! {
    // R3: buildd's own pods and its leader-election Lease, in its namespace.
    NamespacedGrant<Operator> = adr::OPERATOR_ROLE_RESOURCES => [Pods, Leases];
    // R6: what buildd needs to run daemons, only in the builds namespace.
    NamespacedGrant<Builds> = adr::BUILDS_ROLE_RESOURCES => [
        Pods,
        PodLogs,
        Services,
        ConfigMaps,
        Secrets,
        PersistentVolumeClaims,
        StatefulSets,
    ];
    // R4: only the chart's custom resources.
    ClusterGrant<CustomResources> = adr::CUSTOM_RESOURCE_ROLE_RESOURCES => [
        BuildProjects,
        BuildProjectsStatus,
        BuildProjectsFinalizers,
    ];
    ClusterGrant<TenantReader> = adr::TENANT_READER_RESOURCES => [BuildProjects];
}

// The kata-deploy installer's needs are no ADR fact: named once, here.
impl ClusterGrant<KataNodePlumbing> for Nodes {}
impl ClusterGrant<KataNodePlumbing> for NodesProxy {}
impl ClusterGrant<KataNodePlumbing> for DaemonSets {}
impl ClusterGrant<KataNodePlumbing> for RuntimeClasses {}

/// One rule of a role the plan writes, in the shape of a Kubernetes
/// PolicyRule (what `check` reads back is `kubernetes::rbac::resolve::PolicyRule`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedRule {
    api_groups: Vec<&'static str>,
    resources: Vec<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    resource_names: Vec<String>,
    verbs: Vec<Verb>,
}

impl PlannedRule {
    fn new<R: ApiResource>(verbs: &[Verb], names: &[&str]) -> Self {
        let mut verbs = verbs.to_vec();
        verbs.sort();
        verbs.dedup();
        PlannedRule {
            api_groups: vec![R::GROUP],
            resources: vec![R::RESOURCE],
            resource_names: names.iter().map(|n| (*n).to_owned()).collect(),
            verbs,
        }
    }
}

/// A Role in a namespace of class `C`.
#[derive(Debug, Serialize)]
pub struct Role<C: TrustClass> {
    name: String,
    namespace: Namespace<C>,
    rules: Vec<PlannedRule>,
}

impl<C: TrustClass> Role<C> {
    /// An empty Role named `name` in `namespace`.
    pub fn new(name: impl Into<String>, namespace: &Namespace<C>) -> Self {
        Role {
            name: name.into(),
            namespace: namespace.clone(),
            rules: Vec::new(),
        }
    }

    /// Grants `verbs` on every `R` in the namespace.
    pub fn grant<R: NamespacedGrant<C>>(mut self, verbs: &[Verb]) -> Self {
        self.rules.push(PlannedRule::new::<R>(verbs, &[]));
        self
    }

    /// Grants `verbs` on the `R`s named `names` only. Only a
    /// [`NamedVerb`] can be restricted by name: `create` needs a rule of
    /// its own ([`Role::grant`]).
    pub fn grant_named<R: NamespacedGrant<C>>(
        mut self,
        names: &[&str],
        verbs: &[NamedVerb],
    ) -> Self {
        assert!(!names.is_empty(), "a rule restricted by name names one");
        let verbs: Vec<Verb> = verbs.iter().map(|v| v.verb()).collect();
        self.rules.push(PlannedRule::new::<R>(&verbs, names));
        self
    }

    /// The rules, in grant order.
    pub fn rules(&self) -> &[PlannedRule] {
        &self.rules
    }
}

/// A ClusterRole for purpose `P`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterRole<P: ClusterPurpose> {
    name: String,
    rules: Vec<PlannedRule>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    aggregate_to: Vec<&'static str>,
    #[serde(skip)]
    purpose: std::marker::PhantomData<P>,
}

impl<P: ClusterPurpose> ClusterRole<P> {
    /// An empty ClusterRole named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        ClusterRole {
            name: name.into(),
            rules: Vec::new(),
            aggregate_to: Vec::new(),
            purpose: std::marker::PhantomData,
        }
    }

    /// The built-in roles this role is aggregated into.
    pub fn aggregate_to(&self) -> &[&'static str] {
        &self.aggregate_to
    }

    /// Grants `verbs` on every `R` in the cluster.
    pub fn grant<R: ClusterGrant<P>>(mut self, verbs: &[Verb]) -> Self {
        self.rules.push(PlannedRule::new::<R>(verbs, &[]));
        self
    }
}

impl ClusterRole<TenantReader> {
    /// Aggregates this role into the built-in `view` role (and so `edit`, `admin`).
    pub fn aggregated_to_view(mut self) -> Self {
        self.aggregate_to = vec!["view"];
        self
    }
}

/// The write-only events ClusterRole of ADR-2647: create and patch on core
/// (`""`) events, nothing else, bound cluster-wide because client-go's
/// `tools/record` recorder writes where the object it describes lives.
#[derive(Debug, Serialize)]
pub struct EventsClusterRole {
    name: String,
    rules: Vec<PlannedRule>,
}

impl EventsClusterRole {
    /// The role named `name`; its rules are fixed.
    pub fn new(name: impl Into<String>) -> Self {
        let verbs = EVENT_VERBS.to_vec();
        EventsClusterRole {
            name: name.into(),
            rules: vec![PlannedRule {
                api_groups: vec![Events::GROUP],
                resources: vec![Events::RESOURCE],
                resource_names: Vec::new(),
                verbs,
            }],
        }
    }
}

/// The objects of the builds namespace whose names the chart decides, so
/// that buildd's reads of them are restricted to those names.
#[derive(Clone, Copy, Debug)]
pub struct DaemonReads<'a> {
    /// The daemons' TLS Secrets (one per trust level).
    pub secrets: &'a [&'a str],
    /// The ConfigMaps buildd hands the daemons (buildkitd.toml, and the
    /// pod template when rendered).
    pub config_maps: &'a [&'a str],
}

/// A ServiceAccount a binding names, in a namespace of any class.
#[derive(Clone, Debug, Serialize)]
pub struct Subject {
    kind: &'static str,
    name: String,
    namespace: String,
}

impl Subject {
    /// The ServiceAccount `name` in `namespace`.
    pub fn service_account<C: TrustClass>(
        name: impl Into<String>,
        namespace: &Namespace<C>,
    ) -> Self {
        Subject {
            kind: "ServiceAccount",
            name: name.into(),
            namespace: namespace.name().to_owned(),
        }
    }
}

/// Every RBAC object the chart renders.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RbacPlan {
    /// The custom resources, cluster-wide (ADR-1058).
    pub custom_resources: ClusterRole<CustomResources>,
    /// Write-only events, cluster-wide (ADR-2647).
    pub events: EventsClusterRole,
    /// Pods and leases in the operator namespace (ADR-2647).
    pub operator: Role<Operator>,
    /// Daemon objects in the builds namespace, for buildd.
    pub builds: Role<Builds>,
    /// Read-only BuildProjects for tenants, aggregated to `view`.
    pub tenant_reader: ClusterRole<TenantReader>,
    /// The kata-deploy installer's node access; rendered with the system bundle.
    pub kata_deploy: ClusterRole<KataNodePlumbing>,
    /// buildd's ServiceAccount, the subject of every operator binding.
    pub buildd_subject: Subject,
    /// The kata-deploy ServiceAccount in the system namespace.
    pub kata_deploy_subject: Subject,
}

impl RbacPlan {
    /// The grants of ADR-2647 for a release named `fullname`; the Lease
    /// grants only with a `lease_name` (leader election on); buildd's
    /// reads of Secrets and ConfigMaps only on the names `reads` gives.
    pub fn new(
        fullname: &str,
        operator: &Namespace<Operator>,
        builds: &Namespace<Builds>,
        system: &Namespace<System>,
        lease_name: Option<&str>,
        reads: &DaemonReads<'_>,
    ) -> Self {
        use Verb::*;
        let mut operator_role =
            Role::new(format!("{fullname}-operator"), operator).grant::<Pods>(READ);
        // The Lease lock calls get, create and update; resourceNames
        // cannot restrict create, so it gets a rule of its own. Without
        // leader election buildd takes no Lease, and holds no grant on one.
        if let Some(lease_name) = lease_name {
            operator_role = operator_role
                .grant_named::<Leases>(&[lease_name], &adr::LEASE_NAMED_VERBS)
                .grant::<Leases>(&[adr::LEASE_CREATE]);
        }
        RbacPlan {
            custom_resources: ClusterRole::new(format!("{fullname}-operator"))
                .grant::<BuildProjects>(MANAGE)
                .grant::<BuildProjectsStatus>(&[Get, Update, Patch])
                .grant::<BuildProjectsFinalizers>(&[Update]),
            events: EventsClusterRole::new(format!("{fullname}-operator-events")),
            operator: operator_role,
            // The chart renders every Certificate (one per trust level),
            // so buildd issues none: no grant on Certificates. The names
            // of its Secrets and ConfigMaps are known here; those of the
            // daemons' StatefulSets, Services, claims and pods come from
            // BuildProjects and forks at run time (docs/security.md).
            builds: Role::new(format!("{fullname}-daemons"), builds)
                .grant::<StatefulSets>(MANAGE)
                .grant::<Services>(MANAGE)
                .grant_named::<ConfigMaps>(reads.config_maps, READ_NAMED)
                .grant_named::<Secrets>(reads.secrets, READ_NAMED)
                .grant::<PersistentVolumeClaims>(&[Get, List, Watch, Delete])
                .grant::<Pods>(&[Get, List, Watch, Delete])
                .grant::<PodLogs>(&[Get]),
            tenant_reader: ClusterRole::new(format!("{fullname}-buildprojects-reader"))
                .grant::<BuildProjects>(READ)
                .aggregated_to_view(),
            kata_deploy: ClusterRole::new(format!("{fullname}-kata-deploy"))
                .grant::<Nodes>(&[Get, Patch])
                .grant::<NodesProxy>(&[Get])
                .grant::<DaemonSets>(READ)
                .grant::<RuntimeClasses>(&[Get, List, Patch]),
            buildd_subject: Subject::service_account(format!("{fullname}-buildd"), operator),
            kata_deploy_subject: Subject::service_account(
                format!("{fullname}-kata-deploy"),
                system,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_events_role_writes_and_never_reads() {
        let role = serde_json::to_value(EventsClusterRole::new("x-operator-events")).unwrap();
        assert_eq!(
            role["rules"],
            serde_json::json!([{
                "apiGroups": [""],
                "resources": ["events"],
                "verbs": ["create", "patch"],
            }])
        );
    }

    /// The resources of the operator's Role, rule by rule, for a lease
    /// name (leader election) or none.
    fn operator_resources(lease: Option<&str>) -> Vec<&'static str> {
        let ns = Namespace::<Operator>::new("op");
        let reads = DaemonReads {
            secrets: &["t", "u"],
            config_maps: &["c"],
        };
        let plan = RbacPlan::new(
            "x",
            &ns,
            &Namespace::new("b"),
            &Namespace::new("s"),
            lease,
            &reads,
        );
        plan.operator
            .rules()
            .iter()
            .flat_map(|r| r.resources.iter().copied())
            .collect()
    }

    #[test]
    fn the_operator_role_keeps_pods_and_leases() {
        assert_eq!(
            operator_resources(Some("x-buildd-leader")),
            ["pods", "leases", "leases"]
        );
    }

    #[test]
    fn buildd_reads_only_the_secrets_and_config_maps_it_is_given() {
        let reads = DaemonReads {
            secrets: &["x-daemon-tls-trusted", "x-daemon-tls-untrusted"],
            config_maps: &["x-buildkitd-config"],
        };
        let plan = RbacPlan::new(
            "x",
            &Namespace::new("op"),
            &Namespace::new("b"),
            &Namespace::new("s"),
            None,
            &reads,
        );
        let rules = serde_json::to_value(plan.builds.rules()).unwrap();
        let rules = rules.as_array().unwrap();
        for (resource, names) in [
            ("secrets", serde_json::json!(reads.secrets)),
            ("configmaps", serde_json::json!(reads.config_maps)),
        ] {
            let of: Vec<_> = rules
                .iter()
                .filter(|r| r["resources"][0] == resource)
                .collect();
            assert_eq!(of.len(), 1, "{resource}: {of:?}");
            assert_eq!(of[0]["resourceNames"], names, "{resource}");
            assert_eq!(of[0]["verbs"], serde_json::json!(["get", "list", "watch"]));
        }
        assert!(
            rules.iter().all(|r| r["apiGroups"][0] != "cert-manager.io"),
            "buildd issues no certificate: {rules:?}"
        );
    }

    #[test]
    fn without_leader_election_the_operator_role_grants_no_lease() {
        assert_eq!(operator_resources(None), ["pods"]);
    }
}
