//! Effective RBAC: bindings resolved to what each subject may do, where,
//! and invariants R1-R6 checked on that view and on the roles themselves.
//!
//! A RoleBinding grants its role's rules in the binding's namespace only,
//! even when it binds a ClusterRole; a ClusterRoleBinding grants them
//! everywhere. This is the counterpart of ADR-2647's
//! `test_helm_service_accounts.py`, built into the tool.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value as Json;

use super::facts::Instance;
use super::{Class, Context, Invariant};
use crate::diagnostic::KeyPath;
use crate::plan::rbac::{CRD_GROUP, EVENT_VERBS, Verb};

/// Where a grant applies.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Every namespace (and cluster-scoped resources).
    Cluster,
    /// One namespace.
    Namespace(String),
}

impl Scope {
    fn describe(&self) -> String {
        match self {
            Scope::Cluster => "cluster-wide".to_owned(),
            Scope::Namespace(ns) => format!("in {ns}"),
        }
    }
}

/// Who a binding names.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Subject {
    /// `ServiceAccount`, `User` or `Group`.
    pub kind: String,
    /// Its namespace, for a ServiceAccount.
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
}

impl Subject {
    /// `namespace/name` for a ServiceAccount, `Kind name` otherwise.
    pub fn describe(&self) -> String {
        match (&self.namespace, self.kind.as_str()) {
            (Some(ns), "ServiceAccount") => format!("{ns}/{}", self.name),
            _ => format!("{} {}", self.kind, self.name),
        }
    }
}

fn strings(value: &Json) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .map(str::to_owned)
        .collect()
}

/// Most grants (one subject, one resource of one rule) that
/// [`effective_permissions`] merges: `chartgen rbac`'s table grows with
/// them (subjects × resources, not the input), so past this it stops with
/// an error naming the budget instead of taking gigabytes. A whole
/// cluster's RBAC (a few hundred roles and bindings) is some tens of
/// thousands. `check` never lists grants and has no such budget.
pub const GRANT_BUDGET: usize = 500_000;

/// One rule of a role, its lists read once.
#[derive(Debug, Default)]
struct Rule {
    groups: Vec<String>,
    resources: Vec<String>,
    names: Vec<String>,
    verbs: Vec<String>,
}

impl Rule {
    fn of(rule: &Json) -> Self {
        Rule {
            groups: strings(&rule["apiGroups"]),
            resources: strings(&rule["resources"]),
            names: strings(&rule["resourceNames"]),
            verbs: strings(&rule["verbs"]),
        }
    }

    /// How many (group, resource) grants the rule makes for one subject.
    fn width(&self) -> usize {
        self.groups.len().saturating_mul(self.resources.len())
    }

    fn any_verb(&self, verbs: &[&str]) -> bool {
        self.verbs
            .iter()
            .any(|v| v == "*" || verbs.contains(&v.as_str()))
    }

    fn any_group(&self, groups: &[&str]) -> bool {
        self.groups
            .iter()
            .any(|g| g == "*" || groups.contains(&g.as_str()))
    }

    fn any_resource(&self, resource: &str) -> bool {
        self.resources.iter().any(|r| r == "*" || r == resource)
    }
}

/// A binding whose role is in the input.
#[derive(Debug)]
struct Binding {
    /// Index of the binding object.
    index: usize,
    scope: Scope,
    /// The role, as an [`Rbac`] role id.
    role: usize,
    subjects: Vec<Subject>,
}

/// The RBAC objects of an input, read once: each role's rules parsed once,
/// aggregation as a graph, bindings pointing at roles. Grants (subjects ×
/// rules × resources) are never materialised for `check`: questions are
/// answered per role, once, and carried along the aggregation graph by
/// fixpoints whose values are bounded, so the cost is linear in the input
/// (and in the distinct label selectors' matches).
pub struct Rbac {
    /// Object index of each role, by role id.
    roles: Vec<usize>,
    /// Whether each role is a ClusterRole.
    cluster_role: Vec<bool>,
    /// Whether each role has an `aggregationRule`.
    aggregated: Vec<bool>,
    /// Each role's own `rules`.
    own: Vec<Vec<Rule>>,
    /// The aggregation graph. Nodes `0..roles.len()` are roles, the rest
    /// distinct label selectors: an aggregated role points at its
    /// selectors, a selector at the ClusterRoles it matches (through a
    /// label index, each distinct selector matched once).
    next: Vec<Vec<usize>>,
    /// The reverse of `next`.
    prev: Vec<Vec<usize>>,
    bindings: Vec<Binding>,
    /// Indexes of bindings whose role is not in the input.
    unbound: Vec<usize>,
}

impl Rbac {
    /// Reads the roles and bindings of `objects`.
    pub fn new(objects: &[Json]) -> Self {
        let mut rbac = Rbac {
            roles: Vec::new(),
            cluster_role: Vec::new(),
            aggregated: Vec::new(),
            own: Vec::new(),
            next: Vec::new(),
            prev: Vec::new(),
            bindings: Vec::new(),
            unbound: Vec::new(),
        };
        let mut by_key: HashMap<(&str, Option<&str>, &str), usize> = HashMap::new();
        for (index, object) in objects.iter().enumerate() {
            let name = object["metadata"]["name"].as_str().unwrap_or_default();
            let key = match object["kind"].as_str() {
                Some("ClusterRole") => ("ClusterRole", None, name),
                Some("Role") => {
                    let namespace = object["metadata"]["namespace"].as_str().or(Some("default"));
                    ("Role", namespace, name)
                }
                _ => continue,
            };
            by_key.insert(key, rbac.roles.len());
            rbac.roles.push(index);
            rbac.cluster_role.push(key.0 == "ClusterRole");
            rbac.aggregated.push(false);
            rbac.own.push(
                object["rules"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(Rule::of)
                    .collect(),
            );
        }
        rbac.aggregation(objects);
        for (index, object) in objects.iter().enumerate() {
            let namespace = object["metadata"]["namespace"].as_str();
            let scope = match object["kind"].as_str() {
                Some("ClusterRoleBinding") => Scope::Cluster,
                Some("RoleBinding") => Scope::Namespace(namespace.unwrap_or("default").to_owned()),
                _ => continue,
            };
            let role_ref = &object["roleRef"];
            let kind = role_ref["kind"].as_str().unwrap_or_default();
            let role_namespace = (kind == "Role")
                .then_some(namespace.or(Some("default")))
                .flatten();
            let key = (
                kind,
                role_namespace,
                role_ref["name"].as_str().unwrap_or_default(),
            );
            let Some(&role) = by_key.get(&key) else {
                rbac.unbound.push(index);
                continue;
            };
            let subjects = object["subjects"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|s| subject_of(s, namespace))
                .collect();
            rbac.bindings.push(Binding {
                index,
                scope,
                role,
                subjects,
            });
        }
        rbac
    }

    /// Builds the aggregation graph: each distinct selector (its labels
    /// sorted) is matched once, against the ClusterRoles holding its
    /// rarest label, not against every role.
    fn aggregation(&mut self, objects: &[Json]) {
        let count = self.roles.len();
        self.next = vec![Vec::new(); count];
        let label = |id: usize, key: &str| objects[self.roles[id]]["metadata"]["labels"].get(key);
        let mut by_label: HashMap<(&str, String), Vec<usize>> = HashMap::new();
        let mut every: Vec<usize> = Vec::new();
        for id in (0..count).filter(|&id| self.cluster_role[id]) {
            every.push(id);
            let labels = objects[self.roles[id]]["metadata"]["labels"].as_object();
            for (key, value) in labels.into_iter().flatten() {
                by_label
                    .entry((key.as_str(), value.to_string()))
                    .or_default()
                    .push(id);
            }
        }
        let mut selectors: HashMap<SelectorKey, usize> = HashMap::new();
        for id in 0..count {
            let object = &objects[self.roles[id]];
            let Some(list) = object["aggregationRule"]["clusterRoleSelectors"].as_array() else {
                continue;
            };
            self.aggregated[id] = true;
            for selector in list {
                // As the aggregation controller reads a LabelSelector:
                // matchLabels and matchExpressions together; an empty
                // selector matches every ClusterRole.
                let wanted = selector["matchLabels"].as_object();
                let expressions = selector["matchExpressions"]
                    .as_array()
                    .map_or(&[][..], Vec::as_slice);
                let mut key: SelectorKey = (
                    wanted
                        .into_iter()
                        .flatten()
                        .map(|(k, v)| (k.clone(), v.to_string()))
                        .collect(),
                    expressions.iter().map(Json::to_string).collect(),
                );
                key.0.sort();
                key.0.dedup();
                key.1.sort();
                key.1.dedup();
                let node = match selectors.get(&key) {
                    Some(&node) => node,
                    None => {
                        let rarest = key
                            .0
                            .iter()
                            .map(|(k, v)| {
                                by_label
                                    .get(&(k.as_str(), v.clone()))
                                    .map_or(&[][..], Vec::as_slice)
                            })
                            .min_by_key(|ids| ids.len())
                            .unwrap_or(&every);
                        let matched = rarest
                            .iter()
                            .copied()
                            .filter(|&c| {
                                wanted
                                    .into_iter()
                                    .flatten()
                                    .all(|(k, v)| label(c, k) == Some(v))
                                    && expressions
                                        .iter()
                                        .all(|e| matches_expression(e, |k| label(c, k)))
                            })
                            .collect();
                        self.next.push(matched);
                        selectors.insert(key, self.next.len() - 1);
                        self.next.len() - 1
                    }
                };
                self.next[id].push(node);
            }
            self.next[id].sort_unstable();
            self.next[id].dedup();
        }
        self.prev = vec![Vec::new(); self.next.len()];
        for (from, targets) in self.next.iter().enumerate() {
            for &to in targets {
                self.prev[to].push(from);
            }
        }
    }

    /// The roles whose own rules role `id` holds, in input order: itself;
    /// for an aggregated role, every role its selectors reach, through
    /// chains and cycles, each once (itself only when reached). Counts each
    /// step against `work`; `None` once it runs out.
    fn sources(&self, id: usize, work: &mut usize) -> Option<Vec<usize>> {
        if !self.aggregated[id] {
            return Some(vec![id]);
        }
        let mut seen: HashSet<usize> = self.next[id].iter().copied().collect();
        let mut stack: Vec<usize> = self.next[id].clone();
        let mut found = Vec::new();
        while let Some(node) = stack.pop() {
            *work = work.checked_sub(1 + self.next[node].len())?;
            if node < self.roles.len() {
                found.push(node);
            }
            for &to in &self.next[node] {
                if seen.insert(to) {
                    stack.push(to);
                }
            }
        }
        found.sort_unstable();
        Some(found)
    }

    /// What each role's rules grant, as flags that `flags` computes per
    /// rule: a role's own for a plain role; for an aggregated role, those of
    /// every role it reaches (as [`Rbac::sources`]). One fixpoint over the
    /// graph: a node's flags only grow, so it is revisited at most once per
    /// flag.
    fn effective_flags(&self, flags: impl Fn(&Rule) -> u32) -> Vec<u32> {
        let roles = self.roles.len();
        let mut full: Vec<u32> = (0..self.next.len())
            .map(|node| {
                self.own
                    .get(node)
                    .into_iter()
                    .flatten()
                    .fold(0, |f, rule| f | flags(rule))
            })
            .collect();
        let mut work: Vec<usize> = (0..full.len()).collect();
        while let Some(node) = work.pop() {
            for &from in &self.prev[node] {
                let merged = full[from] | full[node];
                if merged != full[from] {
                    full[from] = merged;
                    work.push(from);
                }
            }
        }
        (0..roles)
            .map(|id| {
                if self.aggregated[id] {
                    self.next[id].iter().fold(0, |f, &s| f | full[s])
                } else {
                    full[id]
                }
            })
            .collect()
    }

    /// Which bindings' subjects reach each role's own rules, as a bounded
    /// [`Sample`] per role: `seed` gives each binding's sample; the samples
    /// flow along the aggregation graph (each changes at most
    /// `SAMPLE + 1` times).
    fn holders(&self, seed: impl Fn(&Binding) -> Sample) -> Vec<Sample> {
        let roles = self.roles.len();
        // `through[node]`: the subjects that get what `node` reaches.
        let mut through = vec![Sample::default(); self.next.len()];
        let mut holders = vec![Sample::default(); roles];
        for binding in &self.bindings {
            let sample = seed(binding);
            if self.aggregated[binding.role] {
                through[binding.role].merge(&sample);
            } else {
                holders[binding.role].merge(&sample);
            }
        }
        let mut work: Vec<usize> = (0..self.next.len())
            .filter(|&n| !through[n].is_empty())
            .collect();
        while let Some(node) = work.pop() {
            let here = through[node].clone();
            for &to in &self.next[node] {
                if to < roles {
                    holders[to].merge(&here);
                }
                let passes = to >= roles || self.aggregated[to];
                if passes && through[to].merge(&here) {
                    work.push(to);
                }
            }
        }
        holders
    }

    /// Calls `visit` with every grant (binding, subject, role holding the
    /// rule, rule index, rule, group, resource), or returns `false` without
    /// calling it when there are more than `budget` (the aggregation walk
    /// counts against it too).
    fn each_grant(
        &self,
        budget: usize,
        mut visit: impl FnMut(&Binding, &Subject, usize, usize, &Rule, &str, &str),
    ) -> bool {
        let mut work = budget;
        let mut sources: HashMap<usize, (Vec<usize>, usize)> = HashMap::new();
        let mut total: usize = 0;
        for binding in &self.bindings {
            if let Entry::Vacant(entry) = sources.entry(binding.role) {
                let Some(found) = self.sources(binding.role, &mut work) else {
                    return false;
                };
                let width = found
                    .iter()
                    .flat_map(|&s| &self.own[s])
                    .fold(0usize, |w, rule| w.saturating_add(rule.width()));
                entry.insert((found, width));
            }
            total = total.saturating_add(
                binding
                    .subjects
                    .len()
                    .saturating_mul(sources[&binding.role].1),
            );
            if total > budget {
                return false;
            }
        }
        for binding in &self.bindings {
            for subject in &binding.subjects {
                for &source in &sources[&binding.role].0 {
                    for (r, rule) in self.own[source].iter().enumerate() {
                        for group in &rule.groups {
                            for resource in &rule.resources {
                                visit(
                                    binding,
                                    subject,
                                    self.roles[source],
                                    r,
                                    rule,
                                    group,
                                    resource,
                                );
                            }
                        }
                    }
                }
            }
        }
        true
    }
}

/// At most [`SAMPLE`] distinct names, and whether there were more: what a
/// finding says of who holds a grant, bounded whatever the input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Sample {
    items: Vec<String>,
    more: bool,
}

/// How many subjects a finding names before "and others".
const SAMPLE: usize = 3;

impl Sample {
    fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    fn add(&mut self, item: String) -> bool {
        if self.items.contains(&item) {
            false
        } else if self.items.len() < SAMPLE {
            self.items.push(item);
            true
        } else {
            !std::mem::replace(&mut self.more, true)
        }
    }

    fn merge(&mut self, other: &Sample) -> bool {
        let mut changed = false;
        for item in &other.items {
            changed |= self.add(item.clone());
        }
        if other.more && !self.more {
            self.more = true;
            changed = true;
        }
        changed
    }

    /// `a`, `a, b`, `a, b, c and others`.
    fn describe(&self) -> String {
        let list = self.items.join(", ");
        if self.more {
            format!("{list} and others")
        } else {
            list
        }
    }

    /// Whether it names exactly one.
    fn single(&self) -> Option<&str> {
        match (self.items.as_slice(), self.more) {
            ([one], false) => Some(one),
            _ => None,
        }
    }
}

/// The effective permissions of `objects` per subject, merged as they are
/// found (no list of grants), or an error naming [`GRANT_BUDGET`] when
/// there are more grants than that.
pub fn effective_permissions(objects: &[Json]) -> Result<Vec<Permissions>, String> {
    let mut merged = Merged::default();
    let within = Rbac::new(objects).each_grant(
        GRANT_BUDGET,
        |binding, subject, _, _, rule, group, resource| {
            merged.add(
                subject,
                &binding.scope,
                group,
                resource,
                &rule.names,
                &rule.verbs,
            );
        },
    );
    if !within {
        return Err(format!(
            "the effective permissions of this input are more than {GRANT_BUDGET} grants (the grant budget: one grant is one subject and one resource of one rule its binding gives it); listing them would take memory out of proportion to the input. `chartgen check` still checks it"
        ));
    }
    Ok(merged.finish())
}

fn subject_of(subject: &Json, binding_namespace: Option<&str>) -> Subject {
    let kind = subject["kind"].as_str().unwrap_or_default();
    let name = subject["name"].as_str().unwrap_or_default();
    if kind == "User"
        && let Some(rest) = name.strip_prefix("system:serviceaccount:")
        && let Some((namespace, account)) = rest.split_once(':')
    {
        return Subject {
            kind: "ServiceAccount".to_owned(),
            namespace: Some(namespace.to_owned()),
            name: account.to_owned(),
        };
    }
    Subject {
        namespace: (kind == "ServiceAccount").then(|| {
            // An empty namespace is the binding's own, as the API server reads it.
            subject["namespace"]
                .as_str()
                .filter(|ns| !ns.is_empty())
                .or(binding_namespace)
                .unwrap_or("default")
                .to_owned()
        }),
        name: name.to_owned(),
        kind: kind.to_owned(),
    }
}

/// Whose ServiceAccounts a subject includes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reach<'a> {
    /// Those of one namespace (one account, or the namespace's group).
    Namespace(&'a str),
    /// Those of every namespace (`system:serviceaccounts`, `system:authenticated`).
    Everywhere,
    /// None (a user or another group).
    Nobody,
}

impl Subject {
    fn reach(&self) -> Reach<'_> {
        match self.kind.as_str() {
            "ServiceAccount" => self
                .namespace
                .as_deref()
                .map_or(Reach::Nobody, Reach::Namespace),
            "Group" => match self.name.as_str() {
                "system:serviceaccounts" | "system:authenticated" => Reach::Everywhere,
                name => name
                    .strip_prefix("system:serviceaccounts:")
                    .map_or(Reach::Nobody, Reach::Namespace),
            },
            _ => Reach::Nobody,
        }
    }

    /// Whether this subject includes every ServiceAccount of `namespace`:
    /// the account itself, its namespace's group, or all accounts.
    pub fn covers_accounts_of(&self, namespace: &str) -> bool {
        match self.reach() {
            Reach::Namespace(ns) => ns == namespace,
            Reach::Everywhere => true,
            Reach::Nobody => false,
        }
    }

    /// Whether this subject includes the ServiceAccount `namespace/name`.
    pub fn covers(&self, namespace: &str, name: &str) -> bool {
        match self.kind.as_str() {
            "ServiceAccount" => self.namespace.as_deref() == Some(namespace) && self.name == name,
            _ => self.covers_accounts_of(namespace),
        }
    }
}

/// The verbs the event recorder uses, as the plan grants them.
fn event_writes() -> [&'static str; 2] {
    EVENT_VERBS.map(Verb::name)
}

fn is_events(group: &str, resource: &str) -> bool {
    resource == "events" && (group.is_empty() || group == "events.k8s.io" || group == "*")
}

/// Checks R1-R6.
pub fn check(context: &mut Context<'_>) {
    check_roles(context);
    check_aggregated(context);
    check_grants(context);
}

/// The API groups of the chart's custom resources: those of the CRDs in the
/// input, and the chart's own.
fn custom_groups(context: &Context<'_>) -> BTreeSet<String> {
    let mut groups = crd_field(context, "/spec/group");
    groups.insert(CRD_GROUP.to_owned());
    groups
}

/// What a role's rules say, whoever it is bound to.
fn check_roles(context: &mut Context<'_>) {
    let custom = custom_groups(context);
    let known = context.facts.release_known();
    for index in 0..context.objects.len() {
        let object = context.objects[index].clone();
        let kind = object["kind"].as_str().unwrap_or_default();
        if kind != "Role" && kind != "ClusterRole" {
            continue;
        }
        let namespace = object["metadata"]["namespace"].as_str();
        let class = context.class_of(namespace.unwrap_or("default"));
        let rules = object["rules"].as_array().map_or(&[][..], Vec::as_slice);
        // ADR-2647 rejected events in the custom-resource ClusterRole.
        let grants_custom = rules.iter().any(|rule| {
            strings(&rule["apiGroups"])
                .iter()
                .any(|g| custom.contains(g))
        });
        for (r, rule) in rules.iter().enumerate() {
            let at = |field: &str| KeyPath::root().key("rules").index(r).key(field);
            for field in ["apiGroups", "resources", "verbs", "nonResourceURLs"] {
                if strings(&rule[field]).iter().any(|v| v.contains('*')) {
                    context.report(
                        Invariant::R5,
                        index,
                        &at(field),
                        format!("a wildcard in {field}; name what is granted"),
                    );
                }
            }
            let groups = strings(&rule["apiGroups"]);
            let resources = strings(&rule["resources"]);
            let names = |wanted: &str| {
                resources.iter().any(|r| {
                    let base = r.split('/').next().unwrap_or_default();
                    base == wanted || base == "*"
                })
            };
            if groups.iter().any(|g| is_events(g, "events")) && names("events") {
                events_rule(context, index, r, rule, kind, grants_custom);
            }
            let coordination = groups
                .iter()
                .any(|g| g == "coordination.k8s.io" || g == "*");
            let core = groups.iter().any(|g| g.is_empty() || g == "*");
            // A Role in a namespace whose class the input does not show is
            // judged only when it shows every class (else FACT says so).
            let in_class = |allowed: &[Class]| {
                kind == "Role"
                    && (class.is_some_and(|c| allowed.contains(&c)) || (class.is_none() && !known))
            };
            let place = match kind {
                "ClusterRole" => "a ClusterRole (cluster-wide)".to_owned(),
                _ => format!("namespace {}", namespace.unwrap_or("default")),
            };
            let rules = [
                (
                    coordination && names("leases") && !in_class(&[Class::Operator]),
                    Invariant::R3,
                    "leases",
                    "leader election takes its Lease only in the operator namespace",
                ),
                (
                    core && names("pods") && !in_class(&[Class::Operator, Class::Builds]),
                    Invariant::R3,
                    "pods",
                    "only the operator and builds namespaces' Roles may grant pods",
                ),
                (
                    core && names("secrets") && !in_class(&[Class::Builds]),
                    Invariant::R6,
                    "secrets",
                    "secrets are granted only in the builds namespace",
                ),
            ];
            for (broken, invariant, resource, why) in rules {
                if broken {
                    context.report(
                        invariant,
                        index,
                        &at("resources"),
                        format!("{resource} granted in {place}; {why}"),
                    );
                }
            }
        }
    }
}

/// R1, R2 and R4 on one rule that names events.
fn events_rule(
    context: &mut Context<'_>,
    index: usize,
    r: usize,
    rule: &Json,
    kind: &str,
    in_custom_resource_role: bool,
) {
    let at = |field: &str| KeyPath::root().key("rules").index(r).key(field);
    if kind == "Role" {
        context.report(
            Invariant::R1,
            index,
            &at("resources"),
            "events in a namespaced Role; the recorder writes events where the object lives, so they are granted by the write-only events ClusterRole (ADR-2647)",
        );
    }
    if !strings(&rule["resourceNames"]).is_empty() {
        context.report(
            Invariant::R1,
            index,
            &at("resourceNames"),
            "events restricted by resourceNames; create cannot be restricted by name and the recorder names each event anew, so its writes would be refused (ADR-2647)",
        );
    }
    let writes = event_writes();
    let extra: Vec<String> = strings(&rule["verbs"])
        .into_iter()
        .filter(|v| !writes.contains(&v.as_str()))
        .collect();
    if !extra.is_empty() {
        context.report(
            Invariant::R2,
            index,
            &at("verbs"),
            format!(
                "grants {} on events; events are write-only: create and patch (ADR-2647)",
                extra.join(", ")
            ),
        );
    }
    if kind == "ClusterRole" && in_custom_resource_role {
        context.report(
            Invariant::R4,
            index,
            &at("resources"),
            "events in the custom-resource ClusterRole; ADR-2647 keeps them in a separate write-only ClusterRole, reviewable on its own",
        );
    }
}

/// One field (a JSON pointer) of every CustomResourceDefinition in the input.
fn crd_field(context: &Context<'_>, pointer: &str) -> BTreeSet<String> {
    context
        .objects
        .iter()
        .filter(|o| o["kind"] == "CustomResourceDefinition")
        .filter_map(|o| o.pointer(pointer).and_then(Json::as_str).map(str::to_owned))
        .collect()
}

/// A ClusterRole labelled `aggregate-to-view|edit|admin` extends the
/// built-in roles every tenant has: it may only read the chart's custom
/// resources (ADR-1592's tenant reader).
fn check_aggregated(context: &mut Context<'_>) {
    let crd_groups = crd_field(context, "/spec/group");
    for index in 0..context.objects.len() {
        let object = context.objects[index].clone();
        let aggregated: Vec<&str> = object["metadata"]["labels"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, v)| {
                k.starts_with("rbac.authorization.k8s.io/aggregate-to-") && *v == "true"
            })
            .map(|(k, _)| k.rsplit('-').next().unwrap_or_default())
            .collect();
        if object["kind"] != "ClusterRole" || aggregated.is_empty() {
            continue;
        }
        if object
            .get("aggregationRule")
            .is_some_and(|rule| !rule.is_null())
        {
            // Its rules are whatever its own selectors gather, in the input
            // or in the cluster: no review can bound what tenants get.
            context.report(
                Invariant::R4,
                index,
                &KeyPath::dotted("aggregationRule"),
                format!(
                    "aggregated into {}, it aggregates other ClusterRoles itself: every tenant gets whatever its selectors match in the cluster; a tenant role lists its read rules itself",
                    aggregated.join(", ")
                ),
            );
        }
        for (r, rule) in object["rules"].as_array().into_iter().flatten().enumerate() {
            let custom = strings(&rule["apiGroups"])
                .iter()
                .all(|g| crd_groups.contains(g));
            let writes: Vec<String> = strings(&rule["verbs"])
                .into_iter()
                .filter(|v| !matches!(v.as_str(), "get" | "list" | "watch"))
                .collect();
            if !custom || !writes.is_empty() {
                let what = if custom {
                    format!("{} on the custom resources", writes.join(", "))
                } else {
                    format!(
                        "{} beyond the custom resources",
                        strings(&rule["resources"]).join(", ")
                    )
                };
                context.report(
                    Invariant::R4,
                    index,
                    &KeyPath::root().key("rules").index(r),
                    format!(
                        "aggregated into {}, it gives every tenant {what}; a tenant role only reads the chart's custom resources",
                        aggregated.join(", ")
                    ),
                );
            }
        }
    }
}

/// What a rule grants that the checks of grants ask about, as flags.
mod flag {
    /// Events in any group that records them (R1 through a RoleBinding).
    pub const EVENTS: u32 = 1;
    /// create on core events, unrestricted by name.
    pub const EVENTS_CREATE: u32 = 1 << 1;
    /// patch on core events, unrestricted by name.
    pub const EVENTS_PATCH: u32 = 1 << 2;
    /// get on pods.
    pub const PODS_GET: u32 = 1 << 3;
    /// create on leases, unrestricted by name.
    pub const LEASE_CREATE: u32 = 1 << 4;
    /// get on every lease.
    pub const LEASE_GET: u32 = 1 << 5;
    /// update on every lease.
    pub const LEASE_UPDATE: u32 = 1 << 6;
    /// get on some leases, by name.
    pub const LEASE_GET_NAMED: u32 = 1 << 7;
    /// update on some leases, by name.
    pub const LEASE_UPDATE_NAMED: u32 = 1 << 8;
}

fn rule_flags(rule: &Rule) -> u32 {
    let mut flags = 0;
    let unnamed = rule.names.is_empty();
    if rule.resources.iter().any(|r| r == "events")
        && rule.groups.iter().any(|g| is_events(g, "events"))
    {
        flags |= flag::EVENTS;
    }
    if unnamed && rule.any_group(&[""]) && rule.any_resource("events") {
        if rule.any_verb(&["create"]) {
            flags |= flag::EVENTS_CREATE;
        }
        if rule.any_verb(&["patch"]) {
            flags |= flag::EVENTS_PATCH;
        }
    }
    // resourceNames cannot restrict create, so a named rule grants no create.
    if rule.any_group(&[""]) && rule.any_resource("pods") && rule.any_verb(&["get"]) {
        flags |= flag::PODS_GET;
    }
    if rule.any_group(&["coordination.k8s.io"]) && rule.any_resource("leases") {
        if unnamed && rule.any_verb(&["create"]) {
            flags |= flag::LEASE_CREATE;
        }
        if rule.any_verb(&["get"]) {
            flags |= if unnamed {
                flag::LEASE_GET
            } else {
                flag::LEASE_GET_NAMED
            };
        }
        if rule.any_verb(&["update"]) {
            flags |= if unnamed {
                flag::LEASE_UPDATE
            } else {
                flag::LEASE_UPDATE_NAMED
            };
        }
    }
    flags
}

/// What the resolved bindings say about each buildd's ServiceAccount.
fn check_grants(context: &mut Context<'_>) {
    let rbac = Rbac::new(&context.objects);
    for &binding in &rbac.unbound {
        let role_ref = &context.objects[binding]["roleRef"];
        let message = format!(
            "binds {} {}, which is not in the input; its permissions cannot be checked",
            role_ref["kind"].as_str().unwrap_or("(no kind)"),
            role_ref["name"].as_str().unwrap_or("(no name)")
        );
        context.report(
            Invariant::UnknownRole,
            binding,
            &KeyPath::dotted("roleRef"),
            message,
        );
    }
    // The aggregation controller fills an aggregated ClusterRole from every
    // ClusterRole of the cluster its selectors match, the built-in ones
    // included (each carries kubernetes.io/bootstrapping: rbac-defaults):
    // what a binding to it grants cannot be read from the input.
    for binding in &rbac.bindings {
        let role = &context.objects[rbac.roles[binding.role]];
        let selectors = role["aggregationRule"]["clusterRoleSelectors"].as_array();
        if !rbac.aggregated[binding.role] || selectors.is_none_or(Vec::is_empty) {
            continue;
        }
        let message = format!(
            "binds ClusterRole {}, which aggregates every ClusterRole of the cluster its selectors match, not only those in the input (the built-in roles, cluster-admin's rules among them, carry labels a selector can match); its permissions cannot be checked",
            role["metadata"]["name"].as_str().unwrap_or("(no name)")
        );
        context.report(
            Invariant::UnknownRole,
            binding.index,
            &KeyPath::dotted("roleRef"),
            message,
        );
    }
    let flags = rbac.effective_flags(rule_flags);
    // A RoleBinding to an events ClusterRole grants events in one namespace
    // only (a Role naming events is reported with the role itself).
    for binding in &rbac.bindings {
        let Scope::Namespace(ns) = &binding.scope else {
            continue;
        };
        if !rbac.cluster_role[binding.role] || flags[binding.role] & flag::EVENTS == 0 {
            continue;
        }
        let mut seen = HashSet::new();
        for subject in binding.subjects.iter().filter(|s| seen.insert(*s)) {
            context.report(
                Invariant::R1,
                binding.index,
                &KeyPath::dotted("roleRef"),
                format!(
                    "events granted to {} only in {ns}; events of objects in other namespaces are lost (ADR-2647)",
                    subject.describe()
                ),
            );
        }
    }
    operator_grants(context, &rbac);
    let held = Held::index(&rbac, &flags);
    for instance in context.facts.instances.clone() {
        buildd_needs(context, &rbac, &held, &instance);
    }
}

/// The operator instances, counted by where they create their daemons.
#[derive(Default)]
struct Daemons<'a> {
    instances: usize,
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
    fn outside_builds(&self, scope: &Scope) -> bool {
        match scope {
            Scope::Cluster => self.instances > 0,
            Scope::Namespace(ns) => {
                self.with_builds > self.builds.get(ns.as_str()).copied().unwrap_or(0)
            }
        }
    }
}

/// R4, R6: what any ServiceAccount of an operator namespace is granted
/// beyond its place. Findings are per role rule and resource, naming a
/// bounded sample of who holds it, so their number and size are linear in
/// the roles whatever the number of subjects, bindings and instances.
fn operator_grants(context: &mut Context<'_>, rbac: &Rbac) {
    let custom = custom_groups(context);
    let crd_plurals = crd_field(context, "/spec/names/plural");
    let daemon_objects = [
        "statefulsets",
        "services",
        "configmaps",
        "persistentvolumeclaims",
    ];
    let instances = &context.facts.instances;
    let mut all = Daemons::default();
    let mut by_operator: HashMap<&str, Daemons<'_>> = HashMap::new();
    for instance in instances {
        all.add(instance);
        by_operator
            .entry(instance.operator.as_str())
            .or_default()
            .add(instance);
    }
    let reached = |subject: &Subject| match subject.reach() {
        Reach::Namespace(ns) => by_operator.get(ns),
        Reach::Everywhere => Some(&all),
        Reach::Nobody => None,
    };
    let cluster_wide = rbac.holders(|binding| {
        let mut sample = Sample::default();
        if binding.scope == Scope::Cluster {
            for subject in &binding.subjects {
                if reached(subject).is_some_and(|d| d.instances > 0) {
                    sample.add(subject.describe());
                }
            }
        }
        sample
    });
    let outside_builds = rbac.holders(|binding| {
        let mut sample = Sample::default();
        for subject in &binding.subjects {
            if reached(subject).is_some_and(|d| d.outside_builds(&binding.scope)) {
                sample.add(format!(
                    "{} ({})",
                    subject.describe(),
                    binding.scope.describe()
                ));
            }
        }
        sample
    });
    // The same role rule's subjects read "a (in x)" only when several.
    let single_r6 = |sample: &Sample, resource: &str| {
        let bindings_scope = sample.single().and_then(|one| {
            let (subject, scope) = one.rsplit_once(" (")?;
            Some(format!(
                "{subject} may use {resource} {}",
                scope.strip_suffix(')')?
            ))
        });
        bindings_scope.unwrap_or_else(|| format!("{} may use {resource}", sample.describe()))
    };
    let mut found = Vec::new();
    for id in 0..rbac.roles.len() {
        let (r4, r6) = (&cluster_wide[id], &outside_builds[id]);
        if r4.is_empty() && r6.is_empty() {
            continue;
        }
        for (r, rule) in rbac.own[id].iter().enumerate() {
            let rule_path = KeyPath::root().key("rules").index(r).key("resources");
            let mut seen = HashSet::new();
            for group in &rule.groups {
                for resource in &rule.resources {
                    if !r6.is_empty()
                        && daemon_objects.contains(&resource.as_str())
                        && seen.insert(resource)
                    {
                        found.push((
                            Invariant::R6,
                            id,
                            rule_path.clone(),
                            format!(
                                "{}; daemon objects are granted only in the builds namespace",
                                single_r6(r6, resource)
                            ),
                        ));
                    }
                    // R4: cluster-wide, the operator has its custom resources and event writes, nothing else.
                    let plural = resource.split('/').next().unwrap_or_default();
                    let allowed = is_events(group, resource)
                        || (custom.contains(group) && crd_plurals.contains(plural));
                    if !r4.is_empty() && !allowed {
                        let verb = if r4.single().is_some() { "gets" } else { "get" };
                        found.push((
                            Invariant::R4,
                            id,
                            rule_path.clone(),
                            format!(
                                "{} {verb} {} cluster-wide; the operator's ClusterRoles hold only the chart's custom resources and event writes",
                                r4.describe(),
                                resource_name(group, resource)
                            ),
                        ));
                    }
                }
            }
        }
    }
    for (invariant, id, path, message) in found {
        context.report(invariant, rbac.roles[id], &path, message);
    }
}

/// What the bindings give each ServiceAccount, folded per account, per
/// namespace group and for every account, so each buildd looks up its own
/// in constant time however many bindings and instances there are.
#[derive(Default)]
struct Held {
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

#[derive(Default)]
struct Holding {
    cluster: u32,
    here: u32,
    roles: Vec<usize>,
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
                        match &binding.scope {
                            Scope::Cluster => held.everywhere_cluster |= flags[role],
                            Scope::Namespace(ns) => {
                                let holding = held.everywhere_in.entry(ns.clone()).or_default();
                                holding.here |= flags[role];
                                holding.roles.push(role);
                            }
                        }
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
}

/// R1, R3: buildd can write core events everywhere, and read pods and take
/// its Lease in its own namespace.
fn buildd_needs(context: &mut Context<'_>, rbac: &Rbac, held: &Held, instance: &Instance) {
    let operator = &instance.operator;
    let subject = Subject {
        kind: "ServiceAccount".to_owned(),
        namespace: Some(operator.clone()),
        name: instance.account.clone(),
    };
    let holdings = [
        held.accounts
            .get(&(operator.clone(), instance.account.clone())),
        held.groups.get(operator),
        held.everywhere_in.get(operator),
    ];
    let cluster = holdings
        .iter()
        .flatten()
        .fold(held.everywhere_cluster, |f, h| f | h.cluster);
    let here = holdings.iter().flatten().fold(0, |f, h| f | h.here);
    let sa_path = KeyPath::dotted("spec.template.spec.serviceAccountName");
    // Core events, as client-go's tools/record recorder writes them; a rule
    // restricted by name does not count (create cannot be restricted).
    let missing: Vec<&str> = [
        (flag::EVENTS_CREATE, event_writes()[0]),
        (flag::EVENTS_PATCH, event_writes()[1]),
    ]
    .into_iter()
    .filter(|(f, _)| cluster & f == 0)
    .map(|(_, verb)| verb)
    .collect();
    if !missing.is_empty() {
        context.report(
            Invariant::R1,
            instance.buildd,
            &sa_path,
            format!(
                "{} cannot {} events (core group) cluster-wide; the event recorder writes where each object lives (ADR-2647)",
                subject.describe(),
                missing.join(", ")
            ),
        );
    }
    // get and update must reach the Lease buildd's --leader-election-id
    // names: a rule for every lease does, a named one only if it names it.
    let lease = instance.lease.as_deref();
    let named = |verb: &str| {
        let Some(name) = lease else {
            return true;
        };
        let mut work = usize::MAX;
        let roles = holdings.iter().flatten().flat_map(|h| &h.roles);
        let mut seen = HashSet::new();
        roles
            .filter_map(|&role| rbac.sources(role, &mut work))
            .flatten()
            .filter(|source| seen.insert(*source))
            .flat_map(|source| &rbac.own[source])
            .any(|rule| {
                rule.any_group(&["coordination.k8s.io"])
                    && rule.any_resource("leases")
                    && rule.any_verb(&[verb])
                    && rule.names.iter().any(|n| n == name)
            })
    };
    let may =
        |all: u32, some: u32, verb: &str| here & all != 0 || (here & some != 0 && named(verb));
    let mut lost = Vec::new();
    if here & flag::PODS_GET == 0 {
        lost.push("get on pods".to_owned());
    }
    if here & flag::LEASE_CREATE == 0 {
        lost.push("create on leases".to_owned());
    }
    let missing: Vec<&str> = [
        ("get", may(flag::LEASE_GET, flag::LEASE_GET_NAMED, "get")),
        (
            "update",
            may(flag::LEASE_UPDATE, flag::LEASE_UPDATE_NAMED, "update"),
        ),
    ]
    .into_iter()
    .filter(|(_, ok)| !ok)
    .map(|(verb, _)| verb)
    .collect();
    if !missing.is_empty() {
        lost.push(match lease {
            Some(name) => format!(
                "{} on lease {name} (its --leader-election-id)",
                missing.join(", ")
            ),
            None => format!("{} on leases", missing.join(", ")),
        });
    }
    if !lost.is_empty() {
        context.report(
            Invariant::R3,
            instance.buildd,
            &sa_path,
            format!(
                "{} lacks {} in {operator}; the operator namespace's Role keeps pods and leases (ADR-2647)",
                subject.describe(),
                lost.join(", ")
            ),
        );
    }
}

/// `resource.group`, as kubectl writes it; the core group adds nothing.
pub fn resource_name(group: &str, resource: &str) -> String {
    if group.is_empty() {
        resource.to_owned()
    } else {
        format!("{resource}.{group}")
    }
}

/// Effective permissions per subject, merged: for each scope and resource,
/// the union of verbs. The JSON shape of `chartgen rbac --output json`.
#[derive(Debug, Serialize)]
pub struct Permissions {
    /// The subject.
    pub subject: Subject,
    /// What it may do.
    pub permissions: Vec<Permission>,
}

/// What one subject may do to one resource in one scope.
#[derive(Debug, Serialize)]
pub struct Permission {
    /// Where.
    pub scope: Scope,
    /// `resource.group`.
    pub resource: String,
    /// Only these names, when not empty.
    pub resource_names: Vec<String>,
    /// The verbs, sorted.
    pub verbs: Vec<String>,
}

/// Permissions being merged: per subject, per (scope, resource, names),
/// the union of verbs.
#[derive(Default)]
struct Merged {
    by_subject: BTreeMap<Subject, BTreeMap<PermissionKey, BTreeSet<String>>>,
}

/// Where, which resource (`resource.group`), which names.
type PermissionKey = (Scope, String, Vec<String>);

impl Merged {
    fn add(
        &mut self,
        subject: &Subject,
        scope: &Scope,
        group: &str,
        resource: &str,
        names: &[String],
        verbs: &[String],
    ) {
        let entries = match self.by_subject.get_mut(subject) {
            Some(entries) => entries,
            None => self.by_subject.entry(subject.clone()).or_default(),
        };
        entries
            .entry((
                scope.clone(),
                resource_name(group, resource),
                names.to_vec(),
            ))
            .or_default()
            .extend(verbs.iter().cloned());
    }

    fn finish(self) -> Vec<Permissions> {
        self.by_subject
            .into_iter()
            .map(|(subject, entries)| Permissions {
                subject,
                permissions: entries
                    .into_iter()
                    .map(|((scope, resource, resource_names), verbs)| Permission {
                        scope,
                        resource,
                        resource_names,
                        verbs: verbs.into_iter().collect(),
                    })
                    .collect(),
            })
            .collect()
    }
}

/// Permissions as aligned text: a block per subject, a row per resource.
pub fn render_text(all: &[Permissions]) -> String {
    let mut out = String::new();
    for (i, entry) in all.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{} {}", entry.subject.kind, entry.subject.describe());
        let rows: Vec<[String; 4]> = entry
            .permissions
            .iter()
            .map(|p| {
                [
                    match &p.scope {
                        Scope::Cluster => "cluster-wide".to_owned(),
                        Scope::Namespace(ns) => ns.clone(),
                    },
                    p.resource.clone(),
                    p.resource_names.join(","),
                    p.verbs.join(", "),
                ]
            })
            .collect();
        let header = ["SCOPE", "RESOURCE", "NAMES", "VERBS"].map(str::to_owned);
        let widths: Vec<usize> = (0..3)
            .map(|c| {
                rows.iter()
                    .chain([&header])
                    .map(|r| r[c].len())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for row in std::iter::once(&header).chain(&rows) {
            let line = format!(
                "  {:w0$}  {:w1$}  {:w2$}  {}",
                row[0],
                row[1],
                row[2],
                row[3],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2]
            );
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    out
}

/// A label selector as compared for sharing: its `matchLabels` (key, JSON
/// value) sorted, and its `matchExpressions` as JSON text, sorted.
type SelectorKey = (Vec<(String, String)>, Vec<String>);

/// Whether a role's labels (looked up by `label`) satisfy one
/// `matchExpressions` requirement: `In`, `NotIn`, `Exists`,
/// `DoesNotExist`. An operator the API server would refuse matches nothing.
fn matches_expression<'a>(expression: &Json, label: impl Fn(&str) -> Option<&'a Json>) -> bool {
    let Some(key) = expression["key"].as_str() else {
        return false;
    };
    let value = label(key);
    let listed = |v: &Json| {
        expression["values"]
            .as_array()
            .is_some_and(|values| values.contains(v))
    };
    match expression["operator"].as_str() {
        Some("In") => value.is_some_and(listed),
        Some("NotIn") => !value.is_some_and(listed),
        Some("Exists") => value.is_some(),
        Some("DoesNotExist") => value.is_none(),
        _ => false,
    }
}
