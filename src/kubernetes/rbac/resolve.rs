//! Effective RBAC, for any manifests: bindings resolved to what each
//! subject may do, where; aggregation as a graph. Knows nothing of the
//! chart: the chart's policy (R1-R6) asks its questions in
//! [`crate::check::rules`].
//!
//! A RoleBinding grants its role's rules in the binding's namespace only,
//! even when it binds a ClusterRole; a ClusterRoleBinding grants them
//! everywhere.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Serialize;
use serde_json::Value as Json;

/// Where a grant applies.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Every namespace (and cluster-scoped resources).
    Cluster,
    /// One namespace.
    Namespace(String),
}

impl Scope {
    /// `cluster-wide`, or `in <namespace>`.
    pub fn describe(&self) -> String {
        match self {
            Scope::Cluster => "cluster-wide".to_owned(),
            Scope::Namespace(ns) => format!("in {ns}"),
        }
    }
}

/// Who a binding names.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema)]
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

pub(crate) fn strings(value: &Json) -> Vec<String> {
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
pub(crate) struct Rule {
    pub(crate) groups: Vec<String>,
    pub(crate) resources: Vec<String>,
    /// `resourceNames`.
    pub(crate) names: Vec<String>,
    pub(crate) verbs: Vec<String>,
    /// `nonResourceURLs`.
    pub(crate) urls: Vec<String>,
}

impl Rule {
    fn of(rule: &Json) -> Self {
        Rule {
            groups: strings(&rule["apiGroups"]),
            resources: strings(&rule["resources"]),
            names: strings(&rule["resourceNames"]),
            verbs: strings(&rule["verbs"]),
            urls: strings(&rule["nonResourceURLs"]),
        }
    }

    /// How many (group, resource) grants the rule makes for one subject.
    fn width(&self) -> usize {
        self.groups.len().saturating_mul(self.resources.len())
    }

    pub(crate) fn any_verb(&self, verbs: &[&str]) -> bool {
        self.verbs
            .iter()
            .any(|v| v == "*" || verbs.contains(&v.as_str()))
    }

    pub(crate) fn any_group(&self, groups: &[&str]) -> bool {
        self.groups
            .iter()
            .any(|g| g == "*" || groups.contains(&g.as_str()))
    }

    pub(crate) fn any_resource(&self, resource: &str) -> bool {
        self.resources.iter().any(|r| r == "*" || r == resource)
    }
}

/// A binding whose role is in the input.
#[derive(Debug)]
pub(crate) struct Binding {
    /// Index of the binding object.
    pub(crate) index: usize,
    pub(crate) scope: Scope,
    /// The role, as an [`Rbac`] role id.
    pub(crate) role: usize,
    pub(crate) subjects: Vec<Subject>,
}

/// The RBAC objects of an input, read once: each role's rules parsed once,
/// aggregation as a graph, bindings pointing at roles. Grants (subjects ×
/// rules × resources) are never materialised for `check`: questions are
/// answered per role, once, and carried along the aggregation graph by
/// fixpoints whose values are bounded, so the cost is linear in the input
/// (and in the distinct label selectors' matches).
pub struct Rbac {
    /// Object index of each role, by role id.
    pub(crate) roles: Vec<usize>,
    /// Whether each role is a ClusterRole.
    pub(crate) cluster_role: Vec<bool>,
    /// Whether each role has an `aggregationRule`.
    pub(crate) aggregated: Vec<bool>,
    /// Each role's own `rules`.
    pub(crate) own: Vec<Vec<Rule>>,
    /// The aggregation graph. Nodes `0..roles.len()` are roles, the rest
    /// distinct label selectors: an aggregated role points at its
    /// selectors, a selector at the ClusterRoles it matches (through a
    /// label index, each distinct selector matched once).
    pub(crate) next: Vec<Vec<usize>>,
    /// The reverse of `next`.
    pub(crate) prev: Vec<Vec<usize>>,
    pub(crate) bindings: Vec<Binding>,
    /// Indexes of bindings whose role is not in the input.
    pub(crate) unbound: Vec<usize>,
}

impl Rbac {
    /// Reads the roles and bindings of `objects`.
    pub fn new(objects: &[&Json]) -> Self {
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
    fn aggregation(&mut self, objects: &[&Json]) {
        let count = self.roles.len();
        self.next = vec![Vec::new(); count];
        let index = LabelIndex::of(self, objects);
        let mut selectors: HashMap<SelectorKey, usize> = HashMap::new();
        for id in 0..count {
            let object = &objects[self.roles[id]];
            let Some(list) = object["aggregationRule"]["clusterRoleSelectors"].as_array() else {
                continue;
            };
            self.aggregated[id] = true;
            for selector in list {
                let key = selector_key(selector);
                let node = match selectors.get(&key) {
                    Some(&node) => node,
                    None => {
                        self.next
                            .push(index.matching(self, objects, &key, selector));
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
    pub(crate) fn sources(&self, id: usize, work: &mut usize) -> Option<Vec<usize>> {
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
    pub(crate) fn effective_flags(&self, flags: impl Fn(&Rule) -> u32) -> Vec<u32> {
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
    pub(crate) fn holders(&self, seed: impl Fn(&Binding) -> Sample) -> Vec<Sample> {
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
pub(crate) struct Sample {
    items: Vec<String>,
    more: bool,
}

/// How many subjects a finding names before "and others".
const SAMPLE: usize = 3;

impl Sample {
    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub(crate) fn add(&mut self, item: String) -> bool {
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
    pub(crate) fn describe(&self) -> String {
        let list = self.items.join(", ");
        if self.more {
            format!("{list} and others")
        } else {
            list
        }
    }

    /// Whether it names exactly one.
    pub(crate) fn single(&self) -> Option<&str> {
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
    let objects: Vec<&Json> = objects.iter().collect();
    let within = Rbac::new(&objects).each_grant(
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
pub(crate) enum Reach<'a> {
    /// Those of one namespace (one account, or the namespace's group).
    Namespace(&'a str),
    /// Those of every namespace (`system:serviceaccounts`, `system:authenticated`).
    Everywhere,
    /// None (a user or another group).
    Nobody,
}

impl Subject {
    pub(crate) fn reach(&self) -> Reach<'_> {
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
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Permissions {
    /// The subject.
    pub subject: Subject,
    /// What it may do.
    pub permissions: Vec<Permission>,
}

/// What one subject may do to one resource in one scope.
#[derive(Debug, Serialize, schemars::JsonSchema)]
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

/// The ClusterRoles by each of their labels (key, JSON value), and all of
/// them: where a selector's candidates are looked up.
struct LabelIndex<'a> {
    by_label: HashMap<(&'a str, String), Vec<usize>>,
    every: Vec<usize>,
}

impl<'a> LabelIndex<'a> {
    fn of(rbac: &Rbac, objects: &[&'a Json]) -> Self {
        let mut index = LabelIndex {
            by_label: HashMap::new(),
            every: Vec::new(),
        };
        for id in (0..rbac.roles.len()).filter(|&id| rbac.cluster_role[id]) {
            index.every.push(id);
            let labels = objects[rbac.roles[id]]["metadata"]["labels"].as_object();
            for (key, value) in labels.into_iter().flatten() {
                index
                    .by_label
                    .entry((key.as_str(), value.to_string()))
                    .or_default()
                    .push(id);
            }
        }
        index
    }

    /// The ClusterRoles `selector` (whose key is `key`) matches, as the
    /// aggregation controller reads a LabelSelector: matchLabels and
    /// matchExpressions together; an empty selector matches every
    /// ClusterRole. Only those holding its rarest label are tried.
    fn matching(
        &self,
        rbac: &Rbac,
        objects: &[&Json],
        key: &SelectorKey,
        selector: &Json,
    ) -> Vec<usize> {
        let label = |id: usize, key: &str| objects[rbac.roles[id]]["metadata"]["labels"].get(key);
        let wanted = selector["matchLabels"].as_object();
        let expressions = selector["matchExpressions"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        let rarest = key
            .0
            .iter()
            .map(|(k, v)| {
                self.by_label
                    .get(&(k.as_str(), v.clone()))
                    .map_or(&[][..], Vec::as_slice)
            })
            .min_by_key(|ids| ids.len())
            .unwrap_or(&self.every);
        rarest
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
            .collect()
    }
}

/// A selector's key for sharing: its labels and expressions, sorted.
fn selector_key(selector: &Json) -> SelectorKey {
    let mut key: SelectorKey = (
        selector["matchLabels"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.to_string()))
            .collect(),
        selector["matchExpressions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(Json::to_string)
            .collect(),
    );
    key.0.sort();
    key.0.dedup();
    key.1.sort();
    key.1.dedup();
    key
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
