//! What the RBAC rules (R1-R6, ROLE) share, read once per check run: the
//! resolved [`Rbac`], each role as the role-level rules see it, the
//! chart's custom-resource groups, what each role grants as flags, what
//! the bindings give each ServiceAccount, and where each operator instance
//! creates its daemons. Every fact of the ADRs comes from
//! [`crate::plan::adr`].

use std::collections::{BTreeSet, HashMap};

use serde_json::Value as Json;

use crate::check::facts::Instance;
use crate::check::{Class, Context};
use crate::plan::adr;
use crate::plan::rbac::AGGREGATE_TO;
use kubernetes::json::Field;
use kubernetes::location::KeyPath;
use kubernetes::rbac::resolve::{Cluster, GRANT_BUDGET, PolicyRule, Rbac, Reach};
use kubernetes::rbac::resolve::{Scope, Subject};

/// A role as the role-level rules see it, whoever it is bound to.
pub(in crate::check::rules) struct RoleView<'a> {
    /// The role's object index.
    pub index: usize,
    /// Whether it is a ClusterRole.
    pub cluster: bool,
    /// Its namespace, for a Role.
    pub namespace: Option<&'a str>,
    /// The class of that namespace, when the input shows it.
    pub class: Option<Class>,
    /// Whether one of its rules names a custom-resource group.
    pub grants_custom: bool,
    /// Whether it is the operator's ([`Context::in_scope`]): the ADR rules
    /// judge it; another application's role gets the generic rules only.
    pub in_scope: bool,
}

impl RoleView<'_> {
    /// Whether this is a Role in a namespace of one of `allowed`; a Role
    /// in a namespace whose class the input does not show is judged only
    /// when `known` (it shows every class; else FACT says so).
    pub fn in_class(&self, allowed: &[Class], known: bool) -> bool {
        !self.cluster
            && (self.class.is_some_and(|c| allowed.contains(&c))
                || (self.class.is_none() && !known))
    }

    /// Where its grants apply, for messages.
    pub fn place(&self) -> String {
        if self.cluster {
            "a ClusterRole (cluster-wide)".to_owned()
        } else {
            format!("namespace {}", self.namespace.unwrap_or("default"))
        }
    }
}

/// The RBAC of one check run, read once for every rule.
pub(in crate::check::rules) struct Grants<'a> {
    /// The roles and bindings, resolved.
    pub rbac: Rbac,
    /// Each role, by role id.
    pub roles: Vec<RoleView<'a>>,
    /// The operator's custom resources' groups: its CRDs' in the input
    /// and the chart's.
    pub custom: BTreeSet<String>,
    /// The groups of the operator's CRDs in the input only.
    pub crd_groups: BTreeSet<String>,
    /// The plurals of the operator's CRDs in the input.
    pub crd_plurals: BTreeSet<String>,
    /// What each role grants, with aggregation, as [`flag`]s.
    pub flags: Vec<u32>,
    /// What the bindings give each ServiceAccount.
    pub held: Held,
    /// The operator instances by where they create their daemons.
    pub daemons: Reached<'a>,
    /// Whether the input shows every class the release needs.
    pub known: bool,
}

impl<'a> Grants<'a> {
    /// Reads the RBAC of `context` once.
    pub fn of(context: &'a Context<'_>) -> Self {
        let rbac = Rbac::with(context.objects, Cluster::Roles, context.version);
        let crd_groups = crd_field(context, "/spec/group");
        let mut custom = crd_groups.clone();
        custom.insert(adr::CRD_GROUP.to_owned());
        let roles = (0..rbac.roles.len())
            .map(|id| role_view(context, &rbac, &custom, id))
            .collect();
        let flags = rbac.effective_flags(rule_flags);
        let held = Held::index(&rbac, &flags);
        Grants {
            roles,
            crd_groups,
            crd_plurals: crd_field(context, "/spec/names/plural"),
            custom,
            flags,
            held,
            daemons: Reached::of(&context.facts.instances),
            known: context.facts.release_known(),
            rbac,
        }
    }

    /// Every rule of every role of the operator's, in input order: (role,
    /// rule index, rule).
    pub fn role_rules(&self) -> impl Iterator<Item = (&RoleView<'a>, usize, &PolicyRule)> {
        self.all_role_rules().filter(|(role, _, _)| role.in_scope)
    }

    /// The rules of the cluster's default roles (with what they gather by
    /// aggregation) that the operator's bindings grant, each with its
    /// binding: those rules are not in the input, so a finding about one
    /// points at the binding's `roleRef`.
    pub fn default_role_rules(
        &self,
        context: &Context<'_>,
    ) -> Vec<(&kubernetes::rbac::resolve::Binding, &PolicyRule)> {
        let rbac = &self.rbac;
        let mut found = Vec::new();
        // Each default role's sources once, under one budget for the run.
        let mut work = GRANT_BUDGET;
        let mut sources: HashMap<usize, Vec<usize>> = HashMap::new();
        for binding in &rbac.bindings {
            if binding.role < rbac.roles.len() || !context.in_scope(binding.index) {
                continue;
            }
            let role_sources = sources
                .entry(binding.role)
                .or_insert_with(|| rbac.sources(binding.role, &mut work).unwrap_or_default());
            for &source in role_sources.iter() {
                found.extend(rbac.own[source].iter().map(|rule| (binding, rule)));
            }
        }
        found
    }

    /// Every rule of every role, the operator's or not, in input order.
    pub fn all_role_rules(&self) -> impl Iterator<Item = (&RoleView<'a>, usize, &PolicyRule)> {
        self.roles.iter().enumerate().flat_map(|(id, role)| {
            self.rbac.own[id]
                .iter()
                .enumerate()
                .map(move |(r, rule)| (role, r, rule))
        })
    }
}

fn role_view<'a>(
    context: &'a Context<'_>,
    rbac: &Rbac,
    custom: &BTreeSet<String>,
    id: usize,
) -> RoleView<'a> {
    let index = rbac.roles[id];
    let namespace = context.objects[index]
        .field("metadata")
        .field("namespace")
        .as_str();
    RoleView {
        index,
        cluster: rbac.cluster_role[id],
        namespace,
        class: context.class_of(namespace.unwrap_or("default")),
        // ADR-2647 rejected events in the custom-resource ClusterRole.
        grants_custom: rbac.own[id]
            .iter()
            .any(|rule| rule.groups.iter().any(|g| custom.contains(g))),
        in_scope: context.in_scope(index),
    }
}

/// The fields of `rule` that hold a wildcard (`*` in any entry), in the
/// order a rule is written: R5 reports them in the operator's roles, GRANT
/// in every other role.
pub(in crate::check::rules) fn wildcard_fields(
    rule: &PolicyRule,
) -> impl Iterator<Item = &'static str> + '_ {
    [
        ("apiGroups", &rule.groups),
        ("resources", &rule.resources),
        ("verbs", &rule.verbs),
        ("nonResourceURLs", &rule.urls),
    ]
    .into_iter()
    .filter(|(_, values)| values.iter().any(|v| v.contains('*')))
    .map(|(field, _)| field)
}

/// The built-in roles (`view`, `edit`, `admin`) a ClusterRole `object`
/// aggregates into by its `rbac.authorization.k8s.io/aggregate-to-*`
/// labels set to `"true"`.
pub(in crate::check::rules) fn aggregated_into(object: &Json) -> Vec<&str> {
    object
        .field("metadata")
        .field("labels")
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, v)| k.starts_with(AGGREGATE_TO) && *v == "true")
        .map(|(k, _)| k.rsplit('-').next().unwrap_or_default())
        .collect()
}

/// `rules[r].<field>`.
pub(in crate::check::rules) fn rule_path(r: usize, field: &str) -> KeyPath {
    KeyPath::root().key("rules").index(r).key(field)
}

/// Whether `rule` names `wanted` (or a subresource of it), or every resource.
pub(in crate::check::rules) fn names(rule: &PolicyRule, wanted: &str) -> bool {
    rule.resources.iter().any(|r| {
        let base = r.split('/').next().unwrap_or_default();
        base == wanted || base == "*"
    })
}

/// Whether `group` serves events: the core group, `events.k8s.io`, or `*`.
pub(in crate::check::rules) fn is_events_group(group: &str) -> bool {
    group == adr::EVENTS.group || group == adr::EVENTS_API_GROUP || group == "*"
}

/// Whether `rule` names events in a group that serves them.
pub(in crate::check::rules) fn names_events(rule: &PolicyRule) -> bool {
    rule.groups.iter().any(|g| is_events_group(g)) && names(rule, adr::EVENTS.resource)
}

/// One field (a JSON pointer) of every CustomResourceDefinition of the
/// operator's in the input (another application's CRDs are no custom
/// resource of the operator's: granting them is R4's business).
fn crd_field(context: &Context<'_>, pointer: &str) -> BTreeSet<String> {
    context
        .objects
        .iter()
        .enumerate()
        .filter(|(i, o)| kubernetes::manifest::is_crd(o) && context.in_scope(*i))
        .map(|(_, o)| o)
        .filter_map(|o| o.pointer(pointer).and_then(Json::as_str).map(str::to_owned))
        .collect()
}

/// What a rule grants that the rules on grants ask about, as flags.
pub(in crate::check::rules) mod flag {
    /// Events in any group that records them (R1 through a RoleBinding).
    pub const EVENTS: u32 = 1;
    /// Verb `i` of `adr::EVENT_VERBS` on core events, unrestricted by name.
    pub const fn event_write(i: usize) -> u32 {
        1 << (1 + i)
    }
    /// `adr::POD_VERB` on pods.
    pub const PODS: u32 = 1 << 3;
    /// `adr::LEASE_CREATE` on leases, unrestricted by name.
    pub const LEASE_CREATE: u32 = 1 << 4;
    /// Verb `i` of `adr::LEASE_NAMED_VERBS` on every lease (`named`:
    /// false) or on some, by name.
    pub const fn lease(i: usize, named: bool) -> u32 {
        1 << (5 + i + if named { 2 } else { 0 })
    }
    /// Verb `i` of `adr::CUSTOM_RESOURCE_VERBS` on every custom resource.
    pub const fn custom(i: usize) -> u32 {
        1 << (9 + i)
    }
}

fn rule_flags(rule: &PolicyRule) -> u32 {
    let mut flags = 0;
    let unnamed = rule.names.is_empty();
    let events = adr::EVENTS.resource;
    if rule.resources.iter().any(|r| r == events) && rule.groups.iter().any(|g| is_events_group(g))
    {
        flags |= flag::EVENTS;
    }
    if rule.any_group(&[adr::EVENTS.group]) && rule.any_resource(events) {
        for (i, verb) in adr::EVENT_VERBS.iter().enumerate() {
            if rule.any_verb(&[verb.name()]) && rule.on_every_object(verb.name()) {
                flags |= flag::event_write(i);
            }
        }
    }
    let pods = adr::PODS;
    if rule.any_group(&[pods.group])
        && rule.any_resource(pods.resource)
        && rule.any_verb(&[adr::POD_VERB.name()])
    {
        flags |= flag::PODS;
    }
    let custom = adr::CUSTOM_RESOURCES;
    if rule.any_group(&[custom.group]) && rule.any_resource(custom.resource) {
        for (i, verb) in adr::CUSTOM_RESOURCE_VERBS.iter().enumerate() {
            if rule.any_verb(&[verb.name()]) && rule.on_every_object(verb.name()) {
                flags |= flag::custom(i);
            }
        }
    }
    let leases = adr::LEASES;
    if rule.any_group(&[leases.group]) && rule.any_resource(leases.resource) {
        // A create names no lease: a named rule grants none, but with the
        // name `""`.
        let create = adr::LEASE_CREATE.name();
        if rule.any_verb(&[create]) && rule.on_every_object(create) {
            flags |= flag::LEASE_CREATE;
        }
        for (i, verb) in adr::LEASE_NAMED_VERBS.iter().enumerate() {
            if rule.any_verb(&[verb.name()]) {
                flags |= flag::lease(i, !unnamed);
            }
        }
    }
    flags
}

/// What the bindings give each ServiceAccount, folded per account, per
/// namespace group and for every account, so each buildd looks up its own
/// in constant time however many bindings and instances there are.
#[derive(Default)]
pub(in crate::check::rules) struct Held {
    /// By (namespace, account): flags bound cluster-wide, flags bound in
    /// the account's namespace, and the roles bound there.
    accounts: HashMap<(String, String), Holding>,
    /// By namespace, for its group (`system:serviceaccounts:<ns>`).
    groups: HashMap<String, Holding>,
    /// For every account: flags bound cluster-wide.
    everywhere_cluster: u32,
    /// For every account: by the binding's namespace.
    everywhere_in: HashMap<String, Holding>,
}

/// What some ServiceAccounts are given.
#[derive(Default)]
pub(in crate::check::rules) struct Holding {
    cluster: u32,
    here: u32,
    /// The roles bound in the accounts' namespace.
    pub roles: Vec<usize>,
}

impl Held {
    fn index(rbac: &Rbac, flags: &[u32]) -> Self {
        let mut held = Held::default();
        for binding in &rbac.bindings {
            let role = binding.role;
            for subject in &binding.subjects {
                let (holding, home) = match (subject.reach(), subject.kind.as_str()) {
                    (Reach::Namespace(ns), "ServiceAccount") => (
                        held.accounts
                            .entry((ns.to_owned(), subject.name.clone()))
                            .or_default(),
                        ns,
                    ),
                    (Reach::Namespace(ns), _) => {
                        (held.groups.entry(ns.to_owned()).or_default(), ns)
                    }
                    (Reach::Everywhere, _) => {
                        held.everywhere(&binding.scope, flags[role], role);
                        continue;
                    }
                    (Reach::Nobody, _) => continue,
                };
                match &binding.scope {
                    Scope::Cluster => holding.cluster |= flags[role],
                    Scope::Namespace(ns) if ns == home => {
                        holding.here |= flags[role];
                        holding.roles.push(role);
                    }
                    Scope::Namespace(_) => {}
                }
            }
        }
        for holding in held
            .accounts
            .values_mut()
            .chain(held.groups.values_mut())
            .chain(held.everywhere_in.values_mut())
        {
            holding.roles.sort_unstable();
            holding.roles.dedup();
        }
        held
    }

    /// Records `role` (granting `flags`) bound for every account in `scope`.
    fn everywhere(&mut self, scope: &Scope, flags: u32, role: usize) {
        match scope {
            Scope::Cluster => self.everywhere_cluster |= flags,
            Scope::Namespace(ns) => {
                let holding = self.everywhere_in.entry(ns.clone()).or_default();
                holding.here |= flags;
                holding.roles.push(role);
            }
        }
    }

    /// What buildd's ServiceAccount of `instance` holds.
    pub fn buildd(&self, instance: &Instance) -> BuilddGrants<'_> {
        let operator = &instance.operator;
        let holdings = [
            self.accounts
                .get(&(operator.clone(), instance.account.clone())),
            self.groups.get(operator),
            self.everywhere_in.get(operator),
        ];
        BuilddGrants {
            cluster: holdings
                .iter()
                .flatten()
                .fold(self.everywhere_cluster, |f, h| f | h.cluster),
            here: holdings.iter().flatten().fold(0, |f, h| f | h.here),
            holdings,
        }
    }
}

/// What one buildd's ServiceAccount holds (R1 and R3 each ask it; a few
/// lookups, so each rule asks rather than sharing a table).
pub(in crate::check::rules) struct BuilddGrants<'h> {
    /// Flags bound cluster-wide.
    pub cluster: u32,
    /// Flags bound in its own namespace.
    pub here: u32,
    /// The holdings it gets them from: its own, its namespace's group's,
    /// every account's.
    pub holdings: [Option<&'h Holding>; 3],
}

/// buildd's ServiceAccount of `instance`, as a subject.
pub(in crate::check::rules) fn buildd_subject(instance: &Instance) -> Subject {
    Subject {
        kind: "ServiceAccount".to_owned(),
        namespace: Some(instance.operator.clone()),
        name: instance.account.clone(),
    }
}

/// The path of buildd's ServiceAccount in its Deployment.
pub(in crate::check::rules) fn service_account_path() -> KeyPath {
    KeyPath::dotted("spec.template.spec.serviceAccountName")
}

/// The operator instances, counted by where they create their daemons.
#[derive(Default)]
pub(in crate::check::rules) struct Daemons<'a> {
    /// How many.
    pub instances: usize,
    with_builds: usize,
    builds: HashMap<&'a str, usize>,
}

impl<'a> Daemons<'a> {
    fn add(&mut self, instance: &'a Instance) {
        self.instances += 1;
        if let Some(builds) = &instance.builds {
            self.with_builds += 1;
            *self.builds.entry(builds).or_default() += 1;
        }
    }

    /// Whether a grant in `scope` is outside some instance's builds
    /// namespace (R6): cluster-wide, or elsewhere than where it has one.
    pub fn outside_builds(&self, scope: &Scope) -> bool {
        match scope {
            Scope::Cluster => self.instances > 0,
            Scope::Namespace(ns) => {
                self.with_builds > self.builds.get(ns.as_str()).copied().unwrap_or(0)
            }
        }
    }
}

/// The instances a subject's grants reach: all of them, per operator
/// namespace.
#[derive(Default)]
pub(in crate::check::rules) struct Reached<'a> {
    all: Daemons<'a>,
    by_operator: HashMap<&'a str, Daemons<'a>>,
}

impl<'a> Reached<'a> {
    fn of(instances: &'a [Instance]) -> Self {
        let mut reached = Reached::default();
        for instance in instances {
            reached.all.add(instance);
            reached
                .by_operator
                .entry(instance.operator.as_str())
                .or_default()
                .add(instance);
        }
        reached
    }

    /// The instances whose operator namespace's accounts `subject` includes.
    pub fn by(&self, subject: &Subject) -> Option<&Daemons<'a>> {
        match subject.reach() {
            Reach::Namespace(ns) => self.by_operator.get(ns),
            Reach::Everywhere => Some(&self.all),
            Reach::Nobody => None,
        }
    }
}
