//! Effective RBAC, for any manifests: bindings resolved to what each
//! subject may do, where; aggregation as a graph. Knows nothing of the
//! chart: a chart's own policy asks its questions of it.
//!
//! A RoleBinding grants its role's rules in the binding's namespace only,
//! even when it binds a ClusterRole; a ClusterRoleBinding grants them
//! everywhere.

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Serialize;
use serde_json::Value as Json;

use super::defaults;
use crate::json::Field;
use crate::location::KeyPath;

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

/// The strings of a JSON array (an RBAC rule's list); anything else is
/// none. A `null` item is `""`, as Go decodes it into a `[]string`
/// (`apiGroups: [null]` is the core group).
pub fn strings(value: &Json) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| match item {
            Json::String(text) => Some(text.clone()),
            Json::Null => Some(String::new()),
            _ => None,
        })
        .collect()
}

/// Most steps of the aggregation walks [`effective_permissions`] takes,
/// one walk from each bound role (a chain of n aggregated ClusterRoles,
/// each bound, walks n²/2 steps for n grants): counted apart from the
/// grants, so a long chain that grants little is listed, and past this
/// it stops with an error that says so.
pub const WALK_BUDGET: usize = 50_000_000;

/// Why [`effective_permissions`] stopped.
enum Over {
    /// More than [`GRANT_BUDGET`] grants.
    Grants,
    /// More than [`ENTRY_BUDGET`] verbs and names across the grants.
    Entries,
    /// More than [`LINK_BUDGET`] links of aggregation ([`Rbac::over_links`]).
    Links,
    /// More than [`WALK_BUDGET`] steps of aggregation.
    Walk,
}

/// Most grants (one subject, one resource of one rule) that
/// [`effective_permissions`] merges: a table of them ([`super::table`]) grows with
/// them (subjects × resources, not the input), so past this it stops with
/// an error naming the budget instead of taking gigabytes. A whole
/// cluster's RBAC (a few hundred roles and bindings) is some tens of
/// thousands. `check` never lists grants and has no such budget.
pub const GRANT_BUDGET: usize = 500_000;

/// Most verbs and resource names across the grants [`effective_permissions`]
/// lists (each grant carries its rule's: one rule of 300 groups, 300
/// resources, 200 verbs and 200 names, 12 KB written, is 90,000 grants
/// but 36 million entries): past this it stops with an error naming the
/// budget. A whole cluster's are some hundreds of thousands.
pub const ENTRY_BUDGET: usize = 2_000_000;

/// Most links from aggregation selectors to the ClusterRoles they match
/// that [`Rbac`] makes: n distinct selectors each matching most of n
/// roles (a `NotIn` each) make n² (16,000 such roles, 4 MB, made 256
/// million, 4.3 GB), so past this it stops matching and says so
/// ([`Rbac::over_links`]). A whole cluster's are some thousands.
pub const LINK_BUDGET: usize = 4_000_000;

/// One rule of a role, its lists read once; [`PolicyRule::allows`] and
/// [`PolicyRule::allows_url`] match a request as the authorizer does.
#[derive(Debug, Default)]
pub struct PolicyRule {
    /// `apiGroups`.
    pub groups: Vec<String>,
    /// `resources`, subresources as `resource/sub`.
    pub resources: Vec<String>,
    /// `resourceNames`.
    pub names: Vec<String>,
    /// `verbs`.
    pub verbs: Vec<String>,
    /// `nonResourceURLs`.
    pub urls: Vec<String>,
}

impl PolicyRule {
    /// Reads one entry of a role's `rules`.
    pub fn of(rule: &Json) -> Self {
        PolicyRule {
            groups: strings(rule.field("apiGroups")),
            resources: strings(rule.field("resources")),
            names: strings(rule.field("resourceNames")),
            verbs: strings(rule.field("verbs")),
            urls: strings(rule.field("nonResourceURLs")),
        }
    }

    /// How many (group, resource) grants the rule makes for one subject.
    fn width(&self) -> usize {
        self.groups.len().saturating_mul(self.resources.len())
    }

    /// How many verbs and resource names those grants and the rule's URLs
    /// carry for one subject.
    fn entries(&self) -> usize {
        let each = self.verbs.len().saturating_add(self.names.len()).max(1);
        (self.width().saturating_mul(each))
            .saturating_add(self.urls.len().saturating_mul(self.verbs.len().max(1)))
    }

    /// Whether the rule grants one of `verbs` (or `*`).
    pub fn any_verb(&self, verbs: &[&str]) -> bool {
        self.verbs
            .iter()
            .any(|v| v == "*" || verbs.contains(&v.as_str()))
    }

    /// Whether the rule covers one of `groups` (or `*`).
    pub fn any_group(&self, groups: &[&str]) -> bool {
        self.groups
            .iter()
            .any(|g| g == "*" || groups.contains(&g.as_str()))
    }

    /// Whether the rule names `resource` (`pods`, or with a subresource
    /// `pods/log`) as the authorizer matches it (`ResourceMatches`): `*`
    /// is every resource and subresource, `*/scale` that subresource of
    /// every resource; anything else only itself, so `pods/*` (which the
    /// API reference calls every subresource of pods) matches no request.
    pub fn any_resource(&self, resource: &str) -> bool {
        self.resources.iter().any(|r| resource_matches(r, resource))
    }

    /// Whether the rule allows `verb` on `resource` (with its
    /// subresource, if any) in API group `group`, for an object named
    /// `name`: a rule with `resourceNames` allows only requests naming one
    /// of them (`ResourceNameMatches`). A request that names none
    /// (`create`, `list`, `watch`, `deletecollection`) has the name `""`,
    /// which only a `resourceNames` holding `""` allows.
    pub fn allows(&self, verb: &str, group: &str, resource: &str, name: Option<&str>) -> bool {
        self.any_verb(&[verb])
            && self.any_group(&[group])
            && self.any_resource(resource)
            && self.any_name(name.unwrap_or_default())
    }

    /// Whether the rule's `verb` (which it grants) reaches every object, not
    /// only some by name: without `resourceNames`, or, for a verb whose
    /// requests name no object (`create`, `list`, `watch`,
    /// `deletecollection`), with `""` among them.
    pub fn on_every_object(&self, verb: &str) -> bool {
        self.names.is_empty()
            || (matches!(verb, "create" | "list" | "watch" | "deletecollection")
                && self.any_name(""))
    }

    /// Whether the rule allows a request for the object named `name` (`""`
    /// for a request that names none): every name without
    /// `resourceNames`, else only those.
    pub fn any_name(&self, name: &str) -> bool {
        self.names.is_empty() || self.names.iter().any(|m| m == name)
    }

    /// Whether the rule allows `verb` on the non-resource URL `path`: a
    /// listed URL ending in `*` allows every path it starts, `*` all.
    pub fn allows_url(&self, verb: &str, path: &str) -> bool {
        self.any_verb(&[verb])
            && self.urls.iter().any(|url| match url.strip_suffix('*') {
                Some(prefix) => path.starts_with(prefix),
                None => url == path,
            })
    }
}

/// Whether a rule's resource entry `pattern` covers `resource`
/// (`resource/subresource` for a subresource), as `ResourceMatches` does:
/// `*`, the same text, or `*/` and the subresource.
fn resource_matches(pattern: &str, resource: &str) -> bool {
    pattern == "*"
        || pattern == resource
        || resource
            .split_once('/')
            .is_some_and(|(_, sub)| !sub.is_empty() && pattern.strip_prefix("*/") == Some(sub))
}

/// A binding whose role is in the input.
#[derive(Debug)]
pub struct Binding {
    /// Index of the binding object.
    pub index: usize,
    /// Where the binding grants: its namespace, or the whole cluster.
    pub scope: Scope,
    /// The role, as an [`Rbac`] role id.
    pub role: usize,
    /// Who the binding grants to.
    pub subjects: Vec<Subject>,
}

/// The RBAC objects of an input, read once: each role's rules parsed once,
/// aggregation as a graph, bindings pointing at roles. Grants (subjects ×
/// rules × resources) are never materialised for `check`: questions are
/// answered per role, once, and carried along the aggregation graph by
/// fixpoints whose values are bounded, so the cost is linear in the input
/// (and in the distinct label selectors' matches).
pub struct Rbac {
    /// Object index of each role of the input, by role id: ids
    /// `0..roles.len()`. The cluster's default roles the input needs
    /// follow, ids `roles.len()..` ([`Rbac::defaults`]).
    pub roles: Vec<usize>,
    /// The cluster's default roles read beside the input, in id order
    /// after the input's roles.
    pub defaults: Vec<&'static Json>,
    /// The cluster's default objects of the version read.
    known: &'static [Json],
    /// Whether each role is a ClusterRole.
    pub cluster_role: Vec<bool>,
    /// Whether each role has an `aggregationRule`.
    pub aggregated: Vec<bool>,
    /// Each role's own `rules`, as written.
    pub own: Vec<Vec<PolicyRule>>,
    /// Whether each role's own rules take effect (see `Rbac::counting`): a
    /// plain role's do; an aggregated role's are replaced by what its
    /// selectors gather, and stay only where they gather nothing.
    pub counted: Vec<bool>,
    /// Whether each role is a member of a cycle of aggregation.
    pub cyclic: Vec<bool>,
    /// Whether each role's own rules, though replaced once it is synced,
    /// may stay in a cycle that reaches it (`Rbac::find_stale`): an
    /// aggregated role's that do not count, where a cycle reaches it.
    /// All false without cycles.
    pub stale: Vec<bool>,
    /// The aggregation graph. Nodes `0..roles.len()` are roles, the rest
    /// distinct label selectors: an aggregated role points at its
    /// selectors, a selector at the ClusterRoles it matches (through a
    /// label index, each distinct selector matched once).
    pub next: Vec<Vec<usize>>,
    /// The reverse of `next`.
    pub prev: Vec<Vec<usize>>,
    /// The input's bindings whose role is known (in the input or a
    /// default role).
    pub bindings: Vec<Binding>,
    /// The cluster's default bindings, when asked for ([`Cluster`]);
    /// `index` is the position in [`defaults::objects`].
    pub default_bindings: Vec<Binding>,
    /// Indexes of bindings whose role is neither in the input nor one of
    /// the cluster's default roles.
    pub unbound: Vec<usize>,
    /// Whether matching the aggregation selectors stopped at
    /// [`LINK_BUDGET`]: the graph then holds only the links made before,
    /// and what aggregation gives is not known.
    pub over_links: bool,
}

/// What of the cluster's default RBAC objects [`Rbac`] reads beside the
/// input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cluster {
    /// The default roles the input's bindings and aggregation reach
    /// (`check`: a binding to `view` is known).
    Roles,
    /// Every default role and binding (`rbac`: what a ServiceAccount
    /// holds through `system:authenticated`, say).
    RolesAndBindings,
}

impl Rbac {
    /// Reads the roles and bindings of `objects`, with the cluster's
    /// default roles they reach (of [`defaults::TARGET`]).
    pub fn new(objects: &[&Json]) -> Self {
        Rbac::with(objects, Cluster::Roles, defaults::TARGET)
    }

    /// Reads the roles and bindings of `objects`, with `cluster`'s default
    /// objects of Kubernetes `version`. A role of the input takes the
    /// place of a default role of the same name.
    pub fn with(objects: &[&Json], cluster: Cluster, version: defaults::Version) -> Self {
        let mut rbac = Rbac {
            roles: Vec::new(),
            defaults: Vec::new(),
            known: &[],
            cluster_role: Vec::new(),
            aggregated: Vec::new(),
            own: Vec::new(),
            counted: Vec::new(),
            cyclic: Vec::new(),
            stale: Vec::new(),
            next: Vec::new(),
            prev: Vec::new(),
            bindings: Vec::new(),
            default_bindings: Vec::new(),
            unbound: Vec::new(),
            over_links: false,
        };
        // Each role's object, by role id.
        let mut role_objects: Vec<&Json> = Vec::new();
        let mut by_key: HashMap<RoleKey<'_>, usize> = HashMap::new();
        // The RBAC objects that may be named as a default one: one reading
        // of each object's kind finds them with the roles.
        let mut named = Vec::new();
        for (index, object) in objects.iter().enumerate() {
            let Some(key) = rbac_key(object) else {
                continue;
            };
            if defaults::is_default_name(key.2) {
                named.push(index);
            }
            if key.0.ends_with("Binding") {
                continue;
            }
            by_key.insert(key, role_objects.len());
            rbac.roles.push(index);
            role_objects.push(object);
        }
        // The table is read only when the input could need it: a binding
        // to a role it does not hold, an aggregated ClusterRole, an object
        // that may be one of the table's.
        let needs = cluster == Cluster::RolesAndBindings
            || !named.is_empty()
            || objects.iter().any(|o| match o.field("kind").as_str() {
                Some("RoleBinding" | "ClusterRoleBinding") => {
                    !by_key.contains_key(&role_ref_key(o))
                }
                Some("ClusterRole") => o.get("aggregationRule").is_some_and(Json::is_object),
                _ => false,
            });
        let known: &'static [Json] = if needs {
            defaults::objects(version)
        } else {
            &[]
        };
        rbac.known = known;
        // An input object named as one of the cluster's default objects is
        // applied over it, which it then is.
        let applied = over_defaults(objects, &named, known);
        let views: std::borrow::Cow<'_, [&Json]> = match applied.is_empty() {
            true => std::borrow::Cow::Borrowed(objects),
            false => {
                let mut views = objects.to_vec();
                for (index, applied) in &applied {
                    if let Applied::Merged(merged) = applied {
                        views[*index] = merged;
                    }
                }
                std::borrow::Cow::Owned(views)
            }
        };
        let refused = |index: usize| {
            (applied.binary_search_by_key(&index, |(i, _)| *i))
                .is_ok_and(|at| matches!(applied[at].1, Applied::Refused))
        };
        for (id, &index) in rbac.roles.iter().enumerate() {
            role_objects[id] = views[index];
        }
        let wanted = match cluster {
            Cluster::Roles => needed(&views, &by_key, known),
            Cluster::RolesAndBindings => known.iter().map(|o| role_key(o).is_some()).collect(),
        };
        for (object, _) in known.iter().zip(wanted).filter(|(_, w)| *w) {
            if let Some(key) = role_key(object)
                && let Entry::Vacant(entry) = by_key.entry(key)
            {
                entry.insert(role_objects.len());
                rbac.defaults.push(object);
                role_objects.push(object);
            }
        }
        for object in &role_objects {
            rbac.cluster_role
                .push(object.field("kind") == "ClusterRole");
            rbac.aggregated.push(false);
            rbac.own.push(
                object
                    .field("rules")
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(PolicyRule::of)
                    .collect(),
            );
        }
        rbac.aggregation(&role_objects);
        // The cycles once: what counts and what a cycle keeps both ask.
        rbac.cyclic = vec![false; rbac.count()];
        for role in rbac.cycles().into_iter().flatten() {
            rbac.cyclic[role] = true;
        }
        rbac.counted = rbac.counting();
        rbac.stale = rbac.find_stale();
        for (index, object) in views.iter().enumerate() {
            if refused(index) {
                continue;
            }
            match binding_of(object, index, &by_key) {
                Some(Ok(binding)) => rbac.bindings.push(binding),
                Some(Err(())) => rbac.unbound.push(index),
                None => {}
            }
        }
        if cluster == Cluster::RolesAndBindings {
            // A default binding the input applied over is the input's.
            let taken: HashSet<BindingKey<'_>> = (applied.iter())
                .filter(|(_, applied)| matches!(applied, Applied::Merged(_)))
                .filter_map(|(index, _)| binding_key(objects[*index]))
                .collect();
            for (index, object) in known.iter().enumerate() {
                if binding_key(object).is_some_and(|key| taken.contains(&key)) {
                    continue;
                }
                if let Some(Ok(binding)) = binding_of(object, index, &by_key) {
                    rbac.default_bindings.push(binding);
                }
            }
        }
        rbac
    }

    /// How many roles: the input's and the defaults read beside them.
    pub fn count(&self) -> usize {
        self.roles.len() + self.defaults.len()
    }

    /// Where a finding about rule `path` of role `id` points: the role
    /// itself when it is in the input; for a default role, the roleRef of
    /// the first of the input's bindings whose role reaches it (directly
    /// or by aggregation).
    pub fn site(&self, id: usize, path: KeyPath) -> (usize, KeyPath) {
        if let Some(&index) = self.roles.get(id) {
            return (index, path);
        }
        let mut work = usize::MAX;
        let binding = self.bindings.iter().find(|b| b.role == id).or_else(|| {
            self.bindings.iter().find(|b| {
                self.aggregated[b.role]
                    && self
                        .sources(b.role, &mut work)
                        .is_some_and(|found| found.contains(&id))
            })
        });
        let index = binding.map_or(0, |b| b.index);
        (index, KeyPath::dotted("roleRef"))
    }

    /// Builds the aggregation graph: each distinct selector (its labels
    /// sorted) is matched once, against the fewest ClusterRoles the label
    /// index offers for one of its `matchLabels` or its `In` or `Exists`
    /// expressions, not against every role (only a selector with none of
    /// these is tried on every role). `objects` are the roles', by role id.
    fn aggregation(&mut self, objects: &[&Json]) {
        let count = self.count();
        self.next = vec![Vec::new(); count];
        let index = LabelIndex::of(self, objects);
        let mut selectors: HashMap<SelectorKey, usize> = HashMap::new();
        let mut links: usize = 0;
        for id in 0..count {
            let object = objects[id];
            let Some(list) = object
                .field("aggregationRule")
                .field("clusterRoleSelectors")
                .as_array()
            else {
                continue;
            };
            self.aggregated[id] = true;
            for selector in list.iter().map(decoded) {
                let key = selector_key(selector);
                let node = match selectors.get(&key) {
                    Some(&node) => node,
                    None => {
                        let matched = match self.over_links {
                            true => Vec::new(),
                            false => index.matching(objects, &key, selector),
                        };
                        links = links.saturating_add(matched.len());
                        self.over_links |= links > LINK_BUDGET;
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

    /// Which roles' own rules take effect, as the ClusterRole aggregation
    /// controller leaves them: it replaces an aggregated role's `rules`
    /// (an atomic list, force-applied) by the rules of every other
    /// ClusterRole its selectors match, never its own, and leaves them as
    /// written when those gather none (it then applies no rules, and
    /// removes none it does not own). So a plain role's count; an
    /// aggregated role's when nothing else it reaches holds a rule; and
    /// the own rules of the aggregated roles on a cycle (each gathers the
    /// others', so whichever the controller syncs first takes the others'
    /// written rules, and they circulate for good): all of them count, a
    /// superset of any order's outcome. A fixpoint over the graph (each
    /// node changing at most twice) and one pass of Tarjan's algorithm.
    fn counting(&self) -> Vec<bool> {
        let roles = self.count();
        let holds = |node: usize| node < roles && !self.own[node].is_empty();
        // Up to two roles holding rules that each node reaches.
        let add = |into: &mut Vec<usize>, role: usize| {
            let added = into.len() < 2 && !into.contains(&role);
            if added {
                into.push(role);
            }
            added
        };
        let mut reached: Vec<Vec<usize>> = (self.next.iter())
            .map(|targets| {
                let mut found = Vec::new();
                for &to in targets.iter().filter(|&&to| holds(to)) {
                    add(&mut found, to);
                }
                found
            })
            .collect();
        let mut work: Vec<usize> = (0..self.next.len()).collect();
        while let Some(node) = work.pop() {
            // Taken out while read, not copied per edge: an edge joins a
            // role and a selector, so `from` is never `node`.
            let here = std::mem::take(&mut reached[node]);
            for &from in &self.prev[node] {
                let mut grew = false;
                for &role in &here {
                    grew |= add(&mut reached[from], role);
                }
                if grew {
                    work.push(from);
                }
            }
            reached[node] = here;
        }
        let hollow = |id: usize| self.aggregated[id] && reached[id].iter().all(|&r| r == id);
        (0..roles)
            .map(|id| !self.aggregated[id] || hollow(id) || self.cyclic[id])
            .collect()
    }

    /// Which roles are on a cycle, and which roles' own rules a cycle may
    /// hold though they do not count ([`Rbac::stale`]): the aggregation
    /// controller copies into a member what each role the member reaches
    /// holds when the member is synced, which for an aggregated role not
    /// yet synced is its own rules; the cycle's members then copy them
    /// from each other for good (seen on a real server). So an aggregated
    /// role that a cycle reaches may leave its own rules in the cycle, and
    /// in every role that reaches the cycle, though not in itself, nor in
    /// a role that reaches it another way. Linear in the graph.
    fn find_stale(&self) -> Vec<bool> {
        let roles = self.count();
        let mut stale = vec![false; roles];
        let mut seen = vec![false; self.next.len()];
        let mut stack: Vec<usize> = (0..roles).filter(|&r| self.cyclic[r]).collect();
        while let Some(node) = stack.pop() {
            for &to in &self.next[node] {
                if !seen[to] {
                    seen[to] = true;
                    stack.push(to);
                }
            }
            if node < roles && seen[node] {
                stale[node] =
                    self.aggregated[node] && !self.counted[node] && !self.own[node].is_empty();
            }
        }
        stale
    }

    /// The cycles of aggregation: the roles of each strongly connected
    /// component of the graph holding two roles or more (a role that
    /// selects only itself is none: the controller skips itself), each in
    /// id order. Tarjan's algorithm without recursion: linear in the graph.
    pub fn cycles(&self) -> Vec<Vec<usize>> {
        let (nodes, roles) = (self.next.len(), self.count());
        let mut index = vec![usize::MAX; nodes];
        let mut low = vec![0; nodes];
        let mut on_stack = vec![false; nodes];
        let mut stack = Vec::new();
        let mut cycles = Vec::new();
        let mut counter = 0;
        for start in 0..nodes {
            if index[start] != usize::MAX {
                continue;
            }
            // (node, position of the next edge to follow)
            let mut path = vec![(start, 0)];
            (index[start], low[start], on_stack[start]) = (counter, counter, true);
            counter += 1;
            stack.push(start);
            while let Some(&mut (node, ref mut edge)) = path.last_mut() {
                if let Some(&to) = self.next[node].get(*edge) {
                    *edge += 1;
                    if index[to] == usize::MAX {
                        (index[to], low[to], on_stack[to]) = (counter, counter, true);
                        counter += 1;
                        stack.push(to);
                        path.push((to, 0));
                    } else if on_stack[to] {
                        low[node] = low[node].min(index[to]);
                    }
                    continue;
                }
                path.pop();
                if let Some(&(parent, _)) = path.last() {
                    low[parent] = low[parent].min(low[node]);
                }
                if low[node] == index[node] {
                    let mut members = Vec::new();
                    while let Some(member) = stack.pop() {
                        on_stack[member] = false;
                        members.push(member);
                        if member == node {
                            break;
                        }
                    }
                    let mut in_roles: Vec<usize> =
                        members.into_iter().filter(|&m| m < roles).collect();
                    if in_roles.len() > 1 {
                        in_roles.sort_unstable();
                        cycles.push(in_roles);
                    }
                }
            }
        }
        cycles
    }

    /// The name of role `id` (`metadata.name`), from `objects` (the
    /// input's) or the cluster's defaults.
    fn role_name<'a>(&'a self, id: usize, objects: &'a [&Json]) -> &'a str {
        let object = match self.roles.get(id) {
            Some(&index) => objects[index],
            None => self.defaults[id - self.roles.len()],
        };
        object
            .field("metadata")
            .field("name")
            .as_str()
            .unwrap_or_default()
    }

    /// The roles whose own rules role `id` holds, in input order: itself,
    /// when its own count ([`Rbac::counted`]); for an aggregated role,
    /// every role its selectors reach, through chains and cycles, each
    /// once, whose own count and are not empty (a role of no rules adds
    /// nothing, and a long chain of them would make each walk's list as
    /// long as the chain). Counts each step against `work`; `None` once
    /// it runs out.
    pub fn sources(&self, id: usize, work: &mut usize) -> Option<Vec<usize>> {
        if !self.aggregated[id] {
            return Some(vec![id]);
        }
        let roles = self.count();
        // A node is walked once as reached without a cycle on the way, and
        // once as reached through one, where the stale rules count too.
        let through = |node: usize, passed: bool| passed || (node < roles && self.cyclic[node]);
        let start = through(id, false);
        let mut seen: HashSet<(usize, bool)> = HashSet::new();
        let mut stack = Vec::new();
        for &to in &self.next[id] {
            if seen.insert((to, through(to, start))) {
                stack.push((to, through(to, start)));
            }
        }
        let mut found = Vec::new();
        let grants = |node: usize, passed: bool| {
            node < roles
                && !self.own[node].is_empty()
                && (self.counted[node] || (passed && self.stale[node]))
        };
        if grants(id, start) && !seen.contains(&(id, start)) {
            found.push(id);
        }
        while let Some((node, passed)) = stack.pop() {
            *work = work.checked_sub(1 + self.next[node].len())?;
            if grants(node, passed) {
                found.push(node);
            }
            for &to in &self.next[node] {
                let state = (to, through(to, passed));
                if seen.insert(state) {
                    stack.push(state);
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        Some(found)
    }

    /// What each role's rules grant, as flags that `flags` computes per
    /// rule: a role's own for a plain role; for an aggregated role, those of
    /// every role it reaches (as [`Rbac::sources`]). One fixpoint over the
    /// graph: a node's flags only grow, so it is revisited at most once per
    /// flag.
    pub fn effective_flags(&self, flags: impl Fn(&PolicyRule) -> u32) -> Vec<u32> {
        let roles = self.count();
        let own = |node: usize, counts: bool| {
            (self.own.get(node).into_iter().flatten())
                .filter(|_| counts)
                .fold(0, |f, rule| f | flags(rule))
        };
        // Through a cycle, the stale rules count too: what each node gives
        // a role that reaches it through one (only where there are any).
        let through: Option<Vec<u32>> = self.stale.contains(&true).then(|| {
            let seeds = (0..self.next.len())
                .map(|node| {
                    own(
                        node,
                        node < roles && (self.counted[node] || self.stale[node]),
                    )
                })
                .collect();
            self.upstream(seeds)
        });
        let seeds = (0..self.next.len())
            .map(|node| match &through {
                Some(through) if node < roles && self.cyclic[node] => through[node],
                _ => own(node, node < roles && self.counted[node]),
            })
            .collect();
        let full = self.upstream(seeds);
        (0..roles)
            .map(|id| {
                if self.counted[id] {
                    full[id]
                } else {
                    self.next[id].iter().fold(0, |f, &s| f | full[s])
                }
            })
            .collect()
    }

    /// `flags` of each node, each node's joined into every node that
    /// reaches it: a fixpoint over the graph, a node's flags only growing.
    fn upstream(&self, mut full: Vec<u32>) -> Vec<u32> {
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
        full
    }

    /// Which bindings' subjects reach each role's own rules, as a bounded
    /// [`Sample`] per role: `seed` gives each binding's sample; the samples
    /// flow along the aggregation graph (each changes at most
    /// `SAMPLE + 1` times).
    pub fn holders(&self, seed: impl Fn(&Binding) -> Sample) -> Vec<Sample> {
        let roles = self.count();
        let cyclic = |node: usize| node < roles && self.cyclic[node];
        // `through[passed][node]`: the subjects that get what `node`
        // reaches, having passed a cycle on the way or not (a stale role's
        // own rules reach only the first).
        let mut through = [
            vec![Sample::default(); self.next.len()],
            vec![Sample::default(); self.next.len()],
        ];
        let mut holders = vec![Sample::default(); roles];
        for binding in &self.bindings {
            let sample = seed(binding);
            if self.counted[binding.role] {
                holders[binding.role].merge(&sample);
            }
            if self.aggregated[binding.role] {
                through[usize::from(cyclic(binding.role))][binding.role].merge(&sample);
            }
        }
        let mut work: Vec<(usize, usize)> = (0..2)
            .flat_map(|passed| (0..self.next.len()).map(move |n| (passed, n)))
            .filter(|&(passed, n)| !through[passed][n].is_empty())
            .collect();
        while let Some((passed, node)) = work.pop() {
            let here = through[passed][node].clone();
            for &to in &self.next[node] {
                let passed = usize::from(passed == 1 || cyclic(to));
                if to < roles && (self.counted[to] || (passed == 1 && self.stale[to])) {
                    holders[to].merge(&here);
                }
                let passes = to >= roles || self.aggregated[to];
                if passes && through[passed][to].merge(&here) {
                    work.push((passed, to));
                }
            }
        }
        holders
    }

    /// Calls `visit` with every grant the bindings (the input's, then the
    /// defaults') give the subjects of `listed`, or says why not without
    /// calling it: more than `budget` grants, or more than `walk` steps
    /// of aggregation. A binding that reaches no listed subject walks
    /// nothing.
    fn each_grant(
        &self,
        listed: &Listed,
        (budget, walk): (usize, usize),
        mut visit: impl FnMut(Grant<'_>),
    ) -> Result<(), Over> {
        if self.over_links {
            return Err(Over::Links);
        }
        let mut work = walk;
        let mut sources: HashMap<usize, (Vec<usize>, usize, usize)> = HashMap::new();
        let (mut total, mut entries): (usize, usize) = (0, 0);
        let all = || {
            let input = self.bindings.iter().map(|b| (b, false));
            input.chain(self.default_bindings.iter().map(|b| (b, true)))
        };
        for (binding, _) in all() {
            let reached = binding
                .subjects
                .iter()
                .fold(0usize, |n, s| n.saturating_add(listed.count(s)));
            if reached == 0 {
                continue;
            }
            if let Entry::Vacant(entry) = sources.entry(binding.role) {
                let Some(found) = self.sources(binding.role, &mut work) else {
                    return Err(Over::Walk);
                };
                let rules = || found.iter().flat_map(|&s| &self.own[s]);
                let width = rules().fold(0usize, |w, rule| {
                    w.saturating_add(rule.width())
                        .saturating_add(rule.urls.len())
                });
                let carried = rules().fold(0usize, |n, rule| n.saturating_add(rule.entries()));
                entry.insert((found, width, carried));
            }
            let (_, width, carried) = &sources[&binding.role];
            total = total.saturating_add(reached.saturating_mul(*width));
            entries = entries.saturating_add(reached.saturating_mul(*carried));
            if total > budget {
                return Err(Over::Grants);
            }
            if entries > ENTRY_BUDGET {
                return Err(Over::Entries);
            }
        }
        for (binding, default) in all() {
            for subject in &binding.subjects {
                for (holder, group) in listed.covered(subject) {
                    for &source in &sources[&binding.role].0 {
                        for rule in &self.own[source] {
                            visit(Grant {
                                binding,
                                default,
                                holder,
                                group,
                                rule,
                            });
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// How a grant reached its holder, for `rbac`'s VIA: the binding and
    /// its role, which of them are the cluster's defaults, and the group
    /// it came through.
    fn via(&self, objects: &[&Json], grant: &Grant<'_>) -> String {
        let (binding, default_binding) = (grant.binding, grant.default);
        let object = if default_binding {
            &self.known[binding.index]
        } else {
            objects[binding.index]
        };
        // A namespace written on a ClusterRole or ClusterRoleBinding is
        // none: the server stores them without one.
        let name = |o: &Json| {
            let name = o
                .field("metadata")
                .field("name")
                .as_str()
                .unwrap_or_default();
            let namespaced = matches!(o.field("kind").as_str(), Some("Role" | "RoleBinding"));
            match o.field("metadata").field("namespace").as_str() {
                Some(ns) if namespaced => format!("{ns}/{name}"),
                _ => name.to_owned(),
            }
        };
        let kind = |o: &Json| o.field("kind").as_str().unwrap_or_default().to_owned();
        let role = match self.roles.get(binding.role) {
            Some(&index) => objects[index],
            None => self.defaults[binding.role - self.roles.len()],
        };
        let mut text = format!("{} {}", kind(object), name(object));
        if default_binding {
            text.push_str(" (cluster default)");
        }
        text.push_str(&format!(" → {} {}", kind(role), name(role)));
        if !default_binding && binding.role >= self.roles.len() {
            text.push_str(" (cluster default)");
        }
        if let Some(group) = grant.group {
            text.push_str(&format!(", as Group {group}"));
        }
        text
    }
}

/// One grant: a rule of a role a binding gives `holder` (through
/// `group`, when the binding names a group it belongs to).
struct Grant<'a> {
    binding: &'a Binding,
    /// Whether the binding is one of the cluster's defaults.
    default: bool,
    holder: &'a Subject,
    group: Option<&'a str>,
    rule: &'a PolicyRule,
}

/// The subjects `rbac` lists: every subject the input's bindings name,
/// and every ServiceAccount the input declares or a workload runs as;
/// with who among them a binding's subject covers.
#[derive(Default)]
struct Listed {
    subjects: BTreeSet<Subject>,
    /// The listed ServiceAccounts, by namespace.
    accounts: BTreeMap<String, Vec<Subject>>,
    /// How many ServiceAccounts and Users are listed.
    account_count: usize,
    users: Vec<Subject>,
    /// How many of `users` are [`ANONYMOUS`].
    anonymous: usize,
}

/// The user a request without credentials is (the anonymous
/// authenticator's): in the group `system:unauthenticated` alone, where
/// every other user is in `system:authenticated` (so too when kubectl's
/// `--as` impersonates them).
const ANONYMOUS: &str = "system:anonymous";

impl Listed {
    fn of(objects: &[&Json], rbac: &Rbac) -> Self {
        let mut subjects: BTreeSet<Subject> = rbac
            .bindings
            .iter()
            .flat_map(|b| b.subjects.iter().cloned())
            .collect();
        // A binding whose role is not there grants nothing, but names its
        // subjects all the same: an account it names still has what its
        // groups are given (the authorizer skips the missing role).
        for &index in &rbac.unbound {
            if let Some(scope) = binding_scope(objects[index]) {
                subjects.extend(binding_subjects(objects[index], &scope));
            }
        }
        let account = |namespace: &Json, name: &str| Subject {
            kind: "ServiceAccount".to_owned(),
            namespace: Some(namespace.as_str().unwrap_or("default").to_owned()),
            name: name.to_owned(),
        };
        for object in objects {
            let kind = object.field("kind").as_str().unwrap_or_default();
            let group =
                crate::manifest::api_group(object.field("apiVersion").as_str().unwrap_or_default());
            let namespace = object.field("metadata").field("namespace");
            if (group, kind) == ("", "ServiceAccount") {
                let name = object
                    .field("metadata")
                    .field("name")
                    .as_str()
                    .unwrap_or_default();
                subjects.insert(account(namespace, name));
            } else if let Some(place) = crate::tree::pod_place(group, kind)
                && let Some(spec) = object.pointer(place.spec_pointer)
            {
                subjects.insert(account(namespace, crate::tree::runs_as(spec)));
            }
        }
        let mut listed = Listed::default();
        for subject in &subjects {
            match (subject.kind.as_str(), &subject.namespace) {
                ("ServiceAccount", Some(ns)) => {
                    listed
                        .accounts
                        .entry(ns.clone())
                        .or_default()
                        .push(subject.clone());
                    listed.account_count += 1;
                }
                ("User", _) => {
                    listed.anonymous += usize::from(subject.name == ANONYMOUS);
                    listed.users.push(subject.clone());
                }
                _ => {}
            }
        }
        listed.subjects = subjects;
        listed
    }

    /// Who among the listed subjects holds what a binding gives
    /// `subject`: itself, and for a group the accounts and users it
    /// includes, with the group (`system:authenticated` every user but
    /// [`ANONYMOUS`], `system:unauthenticated` that one alone).
    fn covered<'a>(&'a self, subject: &'a Subject) -> Vec<(&'a Subject, Option<&'a str>)> {
        let mut found: Vec<(&Subject, Option<&str>)> = Vec::new();
        if subject.reach() == Reach::Nobody && subject.kind == "ServiceAccount" {
            // No namespace in a ClusterRoleBinding: the authorizer matches nobody.
            return found;
        }
        if let Some(own) = self.subjects.get(subject) {
            found.push((own, None));
        }
        if subject.kind != "Group" {
            return found;
        }
        let group = Some(subject.name.as_str());
        match subject.reach() {
            Reach::Namespace(ns) => {
                found.extend(
                    self.accounts
                        .get(ns)
                        .into_iter()
                        .flatten()
                        .map(|a| (a, group)),
                );
            }
            Reach::Everywhere => {
                found.extend(self.accounts.values().flatten().map(|a| (a, group)));
            }
            Reach::Nobody => {}
        }
        let users = self
            .users
            .iter()
            .filter(|user| match subject.name.as_str() {
                "system:authenticated" => user.name != ANONYMOUS,
                "system:unauthenticated" => user.name == ANONYMOUS,
                _ => false,
            });
        found.extend(users.map(|u| (u, group)));
        found
    }

    /// How many [`Listed::covered`] gives, without listing them.
    fn count(&self, subject: &Subject) -> usize {
        if subject.reach() == Reach::Nobody && subject.kind == "ServiceAccount" {
            return 0;
        }
        let own = usize::from(self.subjects.contains(subject));
        if subject.kind != "Group" {
            return own;
        }
        let users = match subject.name.as_str() {
            "system:authenticated" => self.users.len() - self.anonymous,
            "system:unauthenticated" => self.anonymous,
            _ => 0,
        };
        own + users
            + match subject.reach() {
                Reach::Namespace(ns) => self.accounts.get(ns).map_or(0, Vec::len),
                Reach::Everywhere => self.account_count,
                Reach::Nobody => 0,
            }
    }
}

/// At most `SAMPLE` distinct names, and whether there were more: what a
/// finding says of who holds a grant, bounded whatever the input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    items: Vec<String>,
    more: bool,
}

/// How many subjects a finding names before "and others".
const SAMPLE: usize = 3;

impl Sample {
    /// Whether no name was added.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Adds `item` unless present; whether the sample changed.
    pub fn add(&mut self, item: String) -> bool {
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
    pub fn describe(&self) -> String {
        let list = self.items.join(", ");
        if self.more {
            format!("{list} and others")
        } else {
            list
        }
    }

    /// Whether it names exactly one.
    pub fn single(&self) -> Option<&str> {
        match (self.items.as_slice(), self.more) {
            ([one], false) => Some(one),
            _ => None,
        }
    }
}

/// The effective permissions of `objects` per subject, as the API
/// server's authorizer decides them on a cluster holding `objects` and
/// its default roles and bindings (of [`defaults::TARGET`]): every
/// subject the bindings name and every ServiceAccount the input declares
/// or runs a workload as, with what the groups it belongs to are given.
/// Merged as they are found (no list of grants), or an error naming
/// [`GRANT_BUDGET`] when there are more grants than that.
pub fn effective_permissions(objects: &[Json]) -> Result<Vec<Permissions>, String> {
    permissions_with(objects, Cluster::RolesAndBindings, defaults::TARGET)
}

/// The ClusterRoles of each cycle of aggregation where a member writes
/// rules of its own, or which reaches an aggregated role that does
/// ([`Rbac::stale`]), by name, each cycle sorted: what [`permissions_with`]
/// counts as the union of those rules, held by every member, and a real
/// cluster may hold less of (the aggregation controller keeps a role's
/// own rules only while a member syncs before they are replaced).
/// `rbac` says so in a note.
pub fn cycles_with_own_rules(
    objects: &[Json],
    cluster: Cluster,
    version: defaults::Version,
) -> Vec<Vec<String>> {
    let objects: Vec<&Json> = objects.iter().collect();
    let rbac = Rbac::with(&objects, cluster, version);
    // The nodes that reach a role whose own rules a cycle may keep: one
    // walk back from all of them, so a cycle is asked once, whatever the
    // number of cycles.
    let mut reaches_stale = vec![false; rbac.next.len()];
    let mut stack: Vec<usize> = (0..rbac.count()).filter(|&r| rbac.stale[r]).collect();
    while let Some(node) = stack.pop() {
        for &from in &rbac.prev[node] {
            if !std::mem::replace(&mut reaches_stale[from], true) {
                stack.push(from);
            }
        }
    }
    let mut cycles: Vec<Vec<String>> = (rbac.cycles().into_iter())
        .filter(|cycle| (cycle.iter()).any(|&id| !rbac.own[id].is_empty() || reaches_stale[id]))
        .map(|cycle| {
            let mut names: Vec<String> = (cycle.into_iter())
                .map(|id| rbac.role_name(id, &objects).to_owned())
                .collect();
            names.sort_unstable();
            names
        })
        .collect();
    cycles.sort_unstable();
    cycles
}

/// [`effective_permissions`] with `cluster`'s default objects of
/// `version`: `diff` reads the default roles but not the default
/// bindings, so that an account a new binding names does not seem to gain
/// what every account has.
pub fn permissions_with(
    objects: &[Json],
    cluster: Cluster,
    version: defaults::Version,
) -> Result<Vec<Permissions>, String> {
    let objects: Vec<&Json> = objects.iter().collect();
    let rbac = Rbac::with(&objects, cluster, version);
    let listed = Listed::of(&objects, &rbac);
    let mut merged = Merged::default();
    // Keyed by the binding and the group's text (its address: the same
    // subject of the same binding), so a via is written once.
    let mut vias: HashMap<(usize, bool, usize), String> = HashMap::new();
    let within = rbac.each_grant(&listed, (GRANT_BUDGET, WALK_BUDGET), |grant| {
        let group = grant.group.map_or(0, |g| g.as_ptr() as usize);
        let key = (grant.binding.index, grant.default, group);
        let via = match vias.get(&key) {
            Some(via) => via.clone(),
            None => {
                let via = rbac.via(&objects, &grant);
                vias.insert(key, via.clone());
                via
            }
        };
        merged.add(&grant, &via);
    });
    match within {
        Ok(()) => {}
        Err(Over::Grants) => {
            return Err(format!(
                "the effective permissions of this input are more than {GRANT_BUDGET} grants (the grant budget: one grant is one subject and one resource of one rule its binding gives it); listing them would take memory out of proportion to the input"
            ));
        }
        Err(Over::Links) => {
            return Err(format!(
                "the aggregation selectors of this input's ClusterRoles match more than {LINK_BUDGET} roles together (the link budget); following them would take memory out of proportion to the input"
            ));
        }
        Err(Over::Entries) => {
            return Err(format!(
                "the effective permissions of this input carry more than {ENTRY_BUDGET} verbs and resource names (the entry budget: each grant of a rule carries the rule's verbs and names); listing them would take memory out of proportion to the input"
            ));
        }
        Err(Over::Walk) => {
            return Err(format!(
                "the aggregation of this input's ClusterRoles takes more than {WALK_BUDGET} steps to follow from the roles its bindings bind (the walk budget); following it would take time out of proportion to the input"
            ));
        }
    }
    for subject in listed.subjects {
        merged.by_subject.entry(subject).or_default();
    }
    Ok(merged.finish())
}

/// A role's identity: kind, namespace (for a Role), name.
type RoleKey<'a> = (&'a str, Option<&'a str>, &'a str);

/// The identity of a Role or ClusterRole; a Role without a namespace is
/// in `default`.
fn role_key(object: &Json) -> Option<RoleKey<'_>> {
    rbac_key(object).filter(|(kind, _, _)| !kind.ends_with("Binding"))
}

/// The identity of an RBAC object (a role or a binding): its kind, its
/// namespace for a Role or RoleBinding (`default` when it names none), its
/// name. The kind is read first: most objects are of no RBAC kind.
fn rbac_key(object: &Json) -> Option<RoleKey<'_>> {
    let kind = match object.field("kind").as_str()? {
        kind @ ("Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding") => kind,
        _ => return None,
    };
    let metadata = object.field("metadata");
    let name = metadata.field("name").as_str().unwrap_or_default();
    let namespace = matches!(kind, "Role" | "RoleBinding")
        .then(|| metadata.field("namespace").as_str().unwrap_or("default"));
    Some((kind, namespace, name))
}

/// An input object, as it stands once applied where the cluster holds a
/// default object of its kind and name.
enum Applied {
    /// Applied over the default one (server-side apply, as `kubectl
    /// apply` over an object it did not create): what the input writes
    /// replaces, what it leaves out stays the default's. Labels and
    /// annotations key by key; `rules`, a binding's `subjects` and an
    /// `aggregationRule` whole (atomic lists); the aggregation controller
    /// then fills an aggregated role's rules as always.
    Merged(Json),
    /// A binding whose `roleRef` differs from the default one's: the
    /// update is refused (`roleRef` is immutable), the default stands.
    Refused,
}

/// The identity of a RoleBinding or ClusterRoleBinding ([`rbac_key`]).
type BindingKey<'a> = RoleKey<'a>;

fn binding_key(object: &Json) -> Option<BindingKey<'_>> {
    rbac_key(object).filter(|(kind, _, _)| kind.ends_with("Binding"))
}

/// The input objects at `named` (ascending indexes of `objects`) that the
/// cluster holds a default object of ([`Applied`]), by index: as applied
/// over it. The API server puts back the default rules, labels, selectors
/// and subjects only when it next starts (where the object keeps
/// `rbac.authorization.kubernetes.io/autoupdate: "true"`): not modelled,
/// the cluster is read as the apply leaves it.
fn over_defaults(objects: &[&Json], named: &[usize], known: &[Json]) -> Vec<(usize, Applied)> {
    if named.is_empty() || known.is_empty() {
        return Vec::new();
    }
    let mut roles: HashMap<RoleKey<'_>, &Json> = HashMap::new();
    let mut bindings: HashMap<BindingKey<'_>, &Json> = HashMap::new();
    for object in known {
        if let Some(key) = role_key(object) {
            roles.insert(key, object);
        } else if let Some(key) = binding_key(object) {
            bindings.insert(key, object);
        }
    }
    let merged = |default: &Json, input: &Json, whole: &[&str]| {
        let mut merged = default.clone();
        for field in ["labels", "annotations"] {
            let written = input.field("metadata").field(field).as_object();
            for (key, value) in written.into_iter().flatten() {
                merged["metadata"][field][key] = value.clone();
            }
        }
        for field in whole {
            if let Some(value) = input.get(*field).filter(|v| !v.is_null()) {
                merged[*field] = value.clone();
            }
        }
        Applied::Merged(merged)
    };
    (named.iter())
        .filter_map(|&index| {
            let object = objects[index];
            if let Some(default) = role_key(object).and_then(|key| roles.get(&key)) {
                return Some((
                    index,
                    merged(default, object, &["rules", "aggregationRule"]),
                ));
            }
            let default = binding_key(object).and_then(|key| bindings.get(&key))?;
            Some(match role_ref_key(default) == role_ref_key(object) {
                true => (index, merged(default, object, &["subjects"])),
                false => (index, Applied::Refused),
            })
        })
        .collect()
}

/// A binding of `object` (at `index`) to a role of `by_key`, `Err` when
/// its role is not there, `None` when it is no binding.
fn binding_of(
    object: &Json,
    index: usize,
    by_key: &HashMap<RoleKey<'_>, usize>,
) -> Option<Result<Binding, ()>> {
    let scope = binding_scope(object)?;
    let Some(&role) = by_key.get(&role_ref_key(object)) else {
        return Some(Err(()));
    };
    Some(Ok(Binding {
        index,
        role,
        subjects: binding_subjects(object, &scope),
        scope,
    }))
}

/// Where a binding grants: a RoleBinding in its namespace (`default`
/// when it names none), a ClusterRoleBinding everywhere; `None` for no
/// binding.
fn binding_scope(object: &Json) -> Option<Scope> {
    let namespace = object.field("metadata").field("namespace").as_str();
    match object.field("kind").as_str() {
        Some("ClusterRoleBinding") => Some(Scope::Cluster),
        Some("RoleBinding") => Some(Scope::Namespace(namespace.unwrap_or("default").to_owned())),
        _ => None,
    }
}

/// The subjects of a binding of `scope`. A ServiceAccount subject without
/// a namespace is the binding's own namespace's (the authorizer reads it
/// so); a ClusterRoleBinding has none, so such a subject is nobody (the
/// API server refuses it).
fn binding_subjects(object: &Json, scope: &Scope) -> Vec<Subject> {
    let own = match scope {
        Scope::Namespace(ns) => Some(ns.as_str()),
        Scope::Cluster => None,
    };
    object
        .field("subjects")
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| subject_of(s, own))
        .collect()
}

/// The identity of the role a binding's roleRef names: a Role in the
/// binding's namespace, or a ClusterRole.
fn role_ref_key(object: &Json) -> RoleKey<'_> {
    let role_ref = object.field("roleRef");
    let kind = role_ref.field("kind").as_str().unwrap_or_default();
    let namespace = (kind == "Role")
        .then(|| {
            object
                .field("metadata")
                .field("namespace")
                .as_str()
                .or(Some("default"))
        })
        .flatten();
    (
        kind,
        namespace,
        role_ref.field("name").as_str().unwrap_or_default(),
    )
}

/// Which of the default objects `known` the input needs (`check`): the
/// roles its bindings name that it does not hold, the default
/// ClusterRoles its aggregated ClusterRoles select, and, followed through,
/// what those select in turn. Aggregation into a default role from the
/// input's ClusterRoles follows from the input's labels once the role is
/// read.
fn needed(objects: &[&Json], input: &HashMap<RoleKey<'_>, usize>, known: &[Json]) -> Vec<bool> {
    let mut wanted = vec![false; known.len()];
    let position: HashMap<RoleKey<'_>, usize> = known
        .iter()
        .enumerate()
        .filter_map(|(i, o)| Some((role_key(o)?, i)))
        .collect();
    let mut selectors: Vec<&Json> = Vec::new();
    for object in objects {
        match object.field("kind").as_str() {
            Some("RoleBinding" | "ClusterRoleBinding") => {
                let key = role_ref_key(object);
                if !input.contains_key(&key)
                    && let Some(&i) = position.get(&key)
                {
                    wanted[i] = true;
                }
            }
            Some("ClusterRole") => selectors.extend(
                object
                    .field("aggregationRule")
                    .field("clusterRoleSelectors")
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(decoded),
            ),
            _ => {}
        }
    }
    // The input's selectors, each tried once on each default ClusterRole.
    for (i, object) in known.iter().enumerate() {
        let labels = object.field("metadata").field("labels");
        if object.field("kind") == "ClusterRole" && selectors.iter().any(|s| selects(s, labels)) {
            wanted[i] = true;
        }
    }
    // Then what the wanted default aggregated roles select, to a fixpoint
    // (a few dozen roles, a few selectors).
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..known.len() {
            if !wanted[i] {
                continue;
            }
            let list = known[i]
                .field("aggregationRule")
                .field("clusterRoleSelectors")
                .as_array();
            for selector in list.into_iter().flatten() {
                for (j, other) in known.iter().enumerate() {
                    let labels = other.field("metadata").field("labels");
                    if !wanted[j]
                        && other.field("kind") == "ClusterRole"
                        && selects(selector, labels)
                    {
                        wanted[j] = true;
                        changed = true;
                    }
                }
            }
        }
    }
    wanted
}

/// An aggregation rule's selector as the API server decodes it: a null
/// item is the empty selector, which matches every ClusterRole (a real
/// v1.35 server takes `clusterRoleSelectors: [null]`).
fn decoded(selector: &Json) -> &Json {
    static EMPTY: std::sync::LazyLock<Json> =
        std::sync::LazyLock::new(|| Json::Object(serde_json::Map::new()));
    if selector.is_null() { &EMPTY } else { selector }
}

/// Whether `selector` matches a ClusterRole labelled `labels`, as the
/// aggregation controller reads a label selector.
fn selects(selector: &Json, labels: &Json) -> bool {
    crate::selector::selects(selector, |k| labels.get(k).and_then(Json::as_str))
}

/// A binding's subject as the authorizer matches it. A User named
/// `system:serviceaccount:<namespace>:<name>` is that ServiceAccount, and a
/// ServiceAccount subject is one, only where both names are ones a
/// ServiceAccount can have (the authenticator's `SplitUsername`): else the
/// subject is the User of that name, which no account's token carries and
/// which is in no ServiceAccount group.
fn subject_of(subject: &Json, binding_namespace: Option<&str>) -> Subject {
    let kind = subject.field("kind").as_str().unwrap_or_default();
    let name = subject.field("name").as_str().unwrap_or_default();
    let account = |namespace: &str, name: &str| Subject {
        kind: "ServiceAccount".to_owned(),
        namespace: Some(namespace.to_owned()),
        name: name.to_owned(),
    };
    let user = |name: String| Subject {
        kind: "User".to_owned(),
        namespace: None,
        name,
    };
    match kind {
        "User" => match split_account_username(name) {
            Some((namespace, name)) => account(namespace, name),
            None => user(name.to_owned()),
        },
        "ServiceAccount" => {
            // An empty namespace is the binding's own, as the authorizer reads it.
            let namespace = (subject.field("namespace").as_str())
                .filter(|ns| !ns.is_empty())
                .or(binding_namespace);
            match namespace {
                Some(namespace) if is_account(namespace, name) => account(namespace, name),
                Some(namespace) => user(format!("system:serviceaccount:{namespace}:{name}")),
                None => Subject {
                    kind: kind.to_owned(),
                    namespace: None,
                    name: name.to_owned(),
                },
            }
        }
        _ => Subject {
            kind: kind.to_owned(),
            namespace: None,
            name: name.to_owned(),
        },
    }
}

/// The namespace and name of a ServiceAccount's user name, as the
/// authenticator's `SplitUsername` reads it: `system:serviceaccount:`,
/// then exactly two parts split at `:`, a valid namespace and a valid
/// account name.
fn split_account_username(username: &str) -> Option<(&str, &str)> {
    let (namespace, name) = username
        .strip_prefix("system:serviceaccount:")?
        .split_once(':')?;
    is_account(namespace, name).then_some((namespace, name))
}

/// Whether a ServiceAccount can be `namespace/name`: a namespace name (a
/// DNS-1123 label) and an account name (a DNS subdomain, so no `:`).
fn is_account(namespace: &str, name: &str) -> bool {
    crate::names::dns1123_label(namespace).is_ok() && crate::names::dns1123_subdomain(name).is_ok()
}

/// Whose ServiceAccounts a subject includes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach<'a> {
    /// Those of one namespace (one account, or the namespace's group).
    Namespace(&'a str),
    /// Those of every namespace (`system:serviceaccounts`, `system:authenticated`).
    Everywhere,
    /// None (a user or another group).
    Nobody,
}

impl Subject {
    /// Which service accounts the subject stands for.
    pub fn reach(&self) -> Reach<'_> {
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

/// A permission's resource as people read it: its `resource.group`
/// ([`resource_name`]), and where a core-group resource holds a dot (which
/// would read as a group), that it is the core group's.
pub fn shown_resource(resource: &str, group: &str) -> String {
    if group.is_empty() && resource.contains('.') {
        format!("{resource} (in the core group)")
    } else {
        resource.to_owned()
    }
}

/// A permission's `resourceNames` as people read them, joined by `sep`:
/// the name `""` (which allows the requests that name none) written so.
pub fn shown_names(names: &[String], sep: &str) -> String {
    let shown: Vec<&str> = (names.iter())
        .map(|n| if n.is_empty() { "\"\"" } else { n.as_str() })
        .collect();
    shown.join(sep)
}

/// Effective permissions per subject, merged: for each scope and resource,
/// the union of verbs.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Permissions {
    /// The subject.
    pub subject: Subject,
    /// What it may do to resources.
    pub permissions: Vec<Permission>,
    /// What it may do to non-resource URLs (`/healthz`, `/metrics`;
    /// a trailing `*` matches every path it starts), cluster-wide.
    pub non_resource: Vec<NonResourcePermission>,
}

/// What one subject may do to one resource in one scope.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Permission {
    /// Where.
    pub scope: Scope,
    /// `resource.group`; `*` for every resource (`*/scale`: that
    /// subresource of every resource; any other entry, `pods/*` too, only
    /// itself).
    pub resource: String,
    /// The API group alone (`""`: the core group): `resource` cannot tell
    /// a rule's `deployments.apps` in the core group, which the API takes
    /// and the authorizer matches to nothing, from `deployments` in `apps`.
    pub group: String,
    /// Only these names, when not empty.
    pub resource_names: Vec<String>,
    /// The verbs, sorted.
    pub verbs: Vec<String>,
    /// Through which bindings and roles (and groups): `RoleBinding
    /// ns/name → ClusterRole view (cluster default)`, `…, as Group
    /// system:authenticated`.
    pub via: Vec<String>,
}

/// What one subject may do to one non-resource URL.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct NonResourcePermission {
    /// `cluster` through a ClusterRoleBinding. A RoleBinding to a
    /// ClusterRole with non-resource URLs gives its namespace: `kubectl
    /// auth can-i --list -n <namespace>` lists them, but the authorizer
    /// never allows them (a non-resource request has no namespace).
    pub scope: Scope,
    /// The URL path; a trailing `*` matches every path it starts.
    pub url: String,
    /// The verbs, sorted.
    pub verbs: Vec<String>,
    /// Through which bindings and roles, as [`Permission::via`].
    pub via: Vec<String>,
}

/// Verbs and the ways they came, being merged.
#[derive(Default)]
struct Reasons {
    verbs: BTreeSet<String>,
    via: BTreeSet<String>,
}

impl Reasons {
    fn add(&mut self, verbs: &[String], via: &str) {
        for verb in verbs {
            if !self.verbs.contains(verb) {
                self.verbs.insert(verb.clone());
            }
        }
        if !self.via.contains(via) {
            self.via.insert(via.to_owned());
        }
    }
}

/// What one subject holds, being merged.
#[derive(Default)]
struct Held {
    resources: BTreeMap<PermissionKey, Reasons>,
    urls: BTreeMap<(Scope, String), Reasons>,
}

/// Permissions being merged: per subject, per (scope, resource, names),
/// the union of verbs.
#[derive(Default)]
struct Merged {
    by_subject: BTreeMap<Subject, Held>,
}

/// Where, which resource (`resource.group`, then the group alone: the
/// first does not tell every pair apart), which names.
type PermissionKey = (Scope, String, String, Vec<String>);

impl Merged {
    fn add(&mut self, grant: &Grant<'_>, via: &str) {
        let held = match self.by_subject.get_mut(grant.holder) {
            Some(held) => held,
            None => self.by_subject.entry(grant.holder.clone()).or_default(),
        };
        let rule = grant.rule;
        for group in &rule.groups {
            for resource in &rule.resources {
                held.resources
                    .entry((
                        grant.binding.scope.clone(),
                        resource_name(group, resource),
                        group.clone(),
                        rule.names.clone(),
                    ))
                    .or_default()
                    .add(&rule.verbs, via);
            }
        }
        // Non-resource URLs are allowed through ClusterRoleBindings only;
        // through a RoleBinding they are listed for its namespace.
        for url in &rule.urls {
            held.urls
                .entry((grant.binding.scope.clone(), url.clone()))
                .or_default()
                .add(&rule.verbs, via);
        }
    }

    fn finish(self) -> Vec<Permissions> {
        self.by_subject
            .into_iter()
            .map(|(subject, held)| Permissions {
                subject,
                permissions: held
                    .resources
                    .into_iter()
                    .map(
                        |((scope, resource, group, resource_names), reasons)| Permission {
                            scope,
                            resource,
                            group,
                            resource_names,
                            verbs: reasons.verbs.into_iter().collect(),
                            via: reasons.via.into_iter().collect(),
                        },
                    )
                    .collect(),
                non_resource: held
                    .urls
                    .into_iter()
                    .map(|((scope, url), reasons)| NonResourcePermission {
                        scope,
                        url,
                        verbs: reasons.verbs.into_iter().collect(),
                        via: reasons.via.into_iter().collect(),
                    })
                    .collect(),
            })
            .collect()
    }
}

/// The ClusterRoles by each of their labels (key, JSON value), by each
/// label key they hold with a string, and all of them: where a selector's
/// candidates are looked up.
struct LabelIndex<'a> {
    by_label: HashMap<(&'a str, String), Vec<usize>>,
    by_key: HashMap<&'a str, Vec<usize>>,
    every: Vec<usize>,
}

impl<'a> LabelIndex<'a> {
    fn of(rbac: &Rbac, objects: &[&'a Json]) -> Self {
        Self::over(
            (0..rbac.count()).filter(|&id| rbac.cluster_role[id]),
            objects,
        )
    }

    /// The index of the ClusterRoles `ids` (ascending) of `objects`.
    fn over(ids: impl Iterator<Item = usize>, objects: &[&'a Json]) -> Self {
        let mut index = LabelIndex {
            by_label: HashMap::new(),
            by_key: HashMap::new(),
            every: Vec::new(),
        };
        for id in ids {
            index.every.push(id);
            let labels = objects[id].field("metadata").field("labels").as_object();
            for (key, value) in labels.into_iter().flatten() {
                index
                    .by_label
                    .entry((key.as_str(), value.to_string()))
                    .or_default()
                    .push(id);
                // A label that is no string is none to the evaluator.
                if value.is_string() {
                    index.by_key.entry(key.as_str()).or_default().push(id);
                }
            }
        }
        index
    }

    /// The ClusterRoles with the label `key: value` (`value` as JSON
    /// text), ascending.
    fn labelled<'s>(&'s self, key: &'s str, value: &str) -> &'s [usize] {
        self.by_label
            .get(&(key, value.to_owned()))
            .map_or(&[][..], Vec::as_slice)
    }

    /// The ClusterRoles `selector` (whose key is `key`) could match, a
    /// superset of those it matches, ascending and distinct: the fewest of
    /// those holding one of its `matchLabels`, those holding one of the
    /// values of one of its `In` expressions, and those holding the key
    /// of one of its `Exists` expressions; every ClusterRole when it has
    /// none of these (an empty selector, `NotIn` and `DoesNotExist` alone,
    /// which match roles lacking the key). A selector the API server
    /// refuses matches nothing whatever its candidates.
    fn candidates<'s>(&'s self, key: &'s SelectorKey, selector: &'s Json) -> Cow<'s, [usize]> {
        let mut offers: Vec<Vec<&[usize]>> = Vec::new();
        for (k, v) in &key.0 {
            offers.push(vec![self.labelled(k, v)]);
        }
        let expressions = selector.field("matchExpressions").as_array();
        for expression in expressions.into_iter().flatten() {
            let Some(label) = expression.field("key").as_str() else {
                continue;
            };
            match expression.field("operator").as_str() {
                Some("In") => offers.push(
                    (expression.field("values").as_array().into_iter().flatten())
                        .filter_map(Json::as_str)
                        .map(|value| self.labelled(label, &Json::from(value).to_string()))
                        .collect(),
                ),
                Some("Exists") => {
                    offers.push(vec![self.by_key.get(label).map_or(&[][..], Vec::as_slice)])
                }
                _ => {}
            }
        }
        let best = offers
            .into_iter()
            .min_by_key(|lists| lists.iter().map(|l| l.len()).sum::<usize>());
        match best {
            None => Cow::Borrowed(&self.every),
            Some(lists) if lists.len() == 1 => Cow::Borrowed(lists[0]),
            Some(lists) => {
                let mut ids = lists.concat();
                ids.sort_unstable();
                ids.dedup();
                Cow::Owned(ids)
            }
        }
    }

    /// The ClusterRoles a selector of only `NotIn` and `DoesNotExist`
    /// expressions (a valid one) rules out, ascending and distinct: those
    /// holding one of the values of a `NotIn`, and those holding the key
    /// of a `DoesNotExist`; it matches every other. `None` for any other
    /// selector. (Such selectors offer no candidates: matched role by
    /// role, n of them over n roles cost n² reads of their values.)
    fn excluded(&self, selector: &Json) -> Option<Vec<usize>> {
        if (selector.field("matchLabels").as_object()).is_some_and(|labels| !labels.is_empty()) {
            return None;
        }
        let mut ids: Vec<usize> = Vec::new();
        let expressions = selector.field("matchExpressions").as_array();
        for expression in expressions.into_iter().flatten() {
            let label = expression.field("key").as_str()?;
            match expression.field("operator").as_str()? {
                "NotIn" => {
                    for value in expression.field("values").as_array()? {
                        ids.extend(self.labelled(label, &Json::from(value.as_str()?).to_string()));
                    }
                }
                "DoesNotExist" => {
                    ids.extend(self.by_key.get(label).map_or(&[][..], Vec::as_slice));
                }
                _ => return None,
            }
        }
        ids.sort_unstable();
        ids.dedup();
        Some(ids)
    }

    /// The ClusterRoles `selector` (whose key is `key`) matches, as the
    /// aggregation controller reads a LabelSelector: matchLabels and
    /// matchExpressions together; an empty selector matches every
    /// ClusterRole. Only its [`candidates`](Self::candidates) are tried,
    /// each with the one selector evaluator.
    fn matching(&self, objects: &[&Json], key: &SelectorKey, selector: &Json) -> Vec<usize> {
        // A selector the API server refuses matches nothing.
        if key.2 {
            return Vec::new();
        }
        if let Some(excluded) = self.excluded(selector) {
            // Every ClusterRole but those the selector rules out, found in
            // the index: no selector read again for each role.
            let mut out = Vec::with_capacity(self.every.len().saturating_sub(excluded.len()));
            let mut excluded = excluded.into_iter().peekable();
            for &id in &self.every {
                while excluded.next_if(|&e| e < id).is_some() {}
                if excluded.next_if_eq(&id).is_none() {
                    out.push(id);
                }
            }
            return out;
        }
        let label = |id: usize, key: &str| {
            objects[id]
                .field("metadata")
                .field("labels")
                .field(key)
                .as_str()
        };
        self.candidates(key, selector)
            .iter()
            .copied()
            .filter(|&c| crate::selector::selects(selector, |k| label(c, k)))
            .collect()
    }
}

/// A selector's key for sharing: its labels and expressions, sorted, and
/// whether the API server would refuse it (then it matches nothing: a
/// `matchLabels` that is no map must not share the key of `{}`).
fn selector_key(selector: &Json) -> SelectorKey {
    let invalid =
        crate::selector::evaluate(selector, |_| None) == crate::selector::Selected::Invalid;
    let mut key: SelectorKey = (
        selector
            .field("matchLabels")
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.to_string()))
            .collect(),
        selector
            .field("matchExpressions")
            .as_array()
            .into_iter()
            .flatten()
            .map(Json::to_string)
            .collect(),
        invalid,
    );
    key.0.sort();
    key.0.dedup();
    key.1.sort();
    key.1.dedup();
    key
}

/// A label selector as compared for sharing: its `matchLabels` (key, JSON
/// value) sorted, its `matchExpressions` as JSON text, sorted, and whether
/// it is invalid.
type SelectorKey = (Vec<(String, String)>, Vec<String>, bool);

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rule(value: Json) -> PolicyRule {
        PolicyRule::of(&value)
    }

    #[test]
    fn null_items_are_empty_strings_as_go_decodes_them() {
        // A document applied alone reaches the server with its nulls, and
        // Go's decoder makes each an empty string (kubectl refuses them
        // only inside a List, which it validates whole).
        let nulls = rule(
            json!({"apiGroups": [null], "resources": ["configmaps", null], "verbs": ["get", null]}),
        );
        assert!(nulls.allows("get", "", "configmaps", None));
        assert!(nulls.allows("", "", "", None));
        assert!(!nulls.allows("get", "apps", "configmaps", None));
        assert_eq!(strings(&json!(["a", null, 1])), ["a", ""]);
    }

    #[test]
    fn rules_match_as_the_authorizer_matches() {
        let r = rule(
            json!({"apiGroups": ["apps"], "resources": ["deployments/scale", "pods/*", "*/status"], "verbs": ["get"]}),
        );
        assert!(r.allows("get", "apps", "deployments/scale", None));
        assert!(!r.allows("get", "apps", "deployments", None));
        // `pods/*` is no wildcard to the authorizer (measured: `kubectl
        // auth can-i get pods/log` says no).
        assert!(!r.allows("get", "apps", "pods/log", None));
        assert!(!r.allows("get", "apps", "pods", None));
        assert!(r.allows("get", "apps", "pods/*", None));
        assert!(r.allows("get", "apps", "statefulsets/status", None));
        assert!(!r.allows("get", "", "statefulsets/status", None));
        assert!(!r.allows("list", "apps", "statefulsets/status", None));
        let all = rule(json!({"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}));
        assert!(all.allows(
            "escalate",
            "rbac.authorization.k8s.io",
            "clusterroles",
            None
        ));
        assert!(all.allows("get", "", "pods/exec", None));
        // resourceNames: only requests that name one of them.
        let named = rule(
            json!({"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["a"], "verbs": ["get", "create"]}),
        );
        assert!(named.allows("get", "", "configmaps", Some("a")));
        assert!(!named.allows("get", "", "configmaps", Some("b")));
        assert!(!named.allows("create", "", "configmaps", None));
        // A name `""` is a request that names none's (measured: create and
        // list allowed).
        let unnamed = rule(
            json!({"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [""], "verbs": ["create", "get"]}),
        );
        assert!(unnamed.allows("create", "", "configmaps", None));
        assert!(!unnamed.allows("get", "", "configmaps", Some("a")));
        // Non-resource URLs: exact, or a prefix before a trailing `*`.
        let urls = rule(json!({"nonResourceURLs": ["/metrics", "/logs/*"], "verbs": ["get"]}));
        assert!(urls.allows_url("get", "/metrics"));
        assert!(!urls.allows_url("get", "/metrics/slis"));
        assert!(urls.allows_url("get", "/logs/kubelet.log"));
        assert!(!urls.allows_url("get", "/logs"));
        assert!(!urls.allows_url("post", "/metrics"));
        assert!(rule(json!({"nonResourceURLs": ["*"], "verbs": ["*"]})).allows_url("put", "/x"));
    }

    fn rbac(objects: &[Json]) -> Rbac {
        let refs: Vec<&Json> = objects.iter().collect();
        Rbac::new(&refs)
    }

    fn binding(kind: &str, namespace: Option<&str>, role: (&str, &str), subjects: Json) -> Json {
        let mut object = json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
            "metadata": {"name": "b"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role.0, "name": role.1},
            "subjects": subjects,
        });
        if let Some(ns) = namespace {
            object["metadata"]["namespace"] = json!(ns);
        }
        object
    }

    #[test]
    fn default_roles_are_known_and_unknown_roles_are_not_read_as_empty() {
        let objects = [
            binding(
                "ClusterRoleBinding",
                None,
                ("ClusterRole", "view"),
                json!([]),
            ),
            binding(
                "ClusterRoleBinding",
                None,
                ("ClusterRole", "nowhere"),
                json!([]),
            ),
            binding(
                "RoleBinding",
                Some("kube-system"),
                ("Role", "extension-apiserver-authentication-reader"),
                json!([]),
            ),
            binding(
                "RoleBinding",
                Some("apps"),
                ("Role", "extension-apiserver-authentication-reader"),
                json!([]),
            ),
        ];
        let rbac = rbac(&objects);
        // view, and a Role of kube-system by its namespace; not in apps.
        assert_eq!(rbac.bindings.len(), 2);
        assert_eq!(rbac.unbound, [1, 3]);
        // view gathers what its aggregation selects.
        let mut work = usize::MAX;
        let view = rbac.bindings[0].role;
        let sources = rbac.sources(view, &mut work).unwrap();
        assert!(
            sources
                .iter()
                .any(|&s| rbac.defaults[s - rbac.roles.len()]["metadata"]["name"]
                    == "system:aggregate-to-view")
        );
    }

    #[test]
    fn an_input_role_aggregated_into_edit_reaches_its_holders() {
        let objects = [
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "gizmo-editor", "labels": {"rbac.authorization.k8s.io/aggregate-to-edit": "true"}},
                "rules": [{"apiGroups": ["example.com"], "resources": ["gizmos"], "verbs": ["update"]}]}),
            binding(
                "RoleBinding",
                Some("apps"),
                ("ClusterRole", "admin"),
                json!([{"kind": "ServiceAccount", "name": "ops", "namespace": "apps"}]),
            ),
        ];
        let all = effective_permissions(&objects).unwrap();
        let ops = all.iter().find(|p| p.subject.name == "ops").unwrap();
        let gizmos = ops
            .permissions
            .iter()
            .find(|p| p.resource == "gizmos.example.com")
            .unwrap();
        assert_eq!(gizmos.scope, Scope::Namespace("apps".to_owned()));
        assert_eq!(gizmos.verbs, ["update"]);
        assert_eq!(
            gizmos.via,
            ["RoleBinding apps/b → ClusterRole admin (cluster default)"]
        );
        // And what admin holds of its own (roles, from system:aggregate-to-admin).
        assert!(
            ops.permissions
                .iter()
                .any(|p| p.resource == "roles.rbac.authorization.k8s.io")
        );
    }

    /// The anonymous user is in `system:unauthenticated` alone: it holds
    /// what that group is given (the default public-info URLs too) and
    /// nothing of `system:authenticated` (no discovery, no self-reviews);
    /// another user the other way round (measured on v1.35.4 with
    /// `kubectl auth can-i --list --as=system:anonymous`).
    #[test]
    fn the_anonymous_user_is_unauthenticated() {
        let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "r"}, "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]});
        let pods = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "p"}, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]});
        let objects = [
            role,
            pods,
            binding(
                "RoleBinding",
                Some("apps"),
                ("ClusterRole", "r"),
                json!([{"kind": "Group", "name": "system:unauthenticated"}]),
            ),
            binding(
                "ClusterRoleBinding",
                None,
                ("ClusterRole", "p"),
                json!([{"kind": "User", "name": "system:anonymous"}, {"kind": "User", "name": "alice"}]),
            ),
        ];
        let all = effective_permissions(&objects).unwrap();
        let held = |name: &str| all.iter().find(|p| p.subject.name == name).unwrap();
        let (anonymous, alice) = (held("system:anonymous"), held("alice"));
        let urls = |p: &Permissions| -> BTreeSet<String> {
            p.non_resource.iter().map(|u| u.url.clone()).collect()
        };
        assert!(urls(anonymous).contains("/healthz") && urls(anonymous).contains("/version"));
        assert!(!urls(anonymous).contains("/apis"), "{:?}", urls(anonymous));
        assert!(urls(alice).contains("/apis"));
        let resources = |p: &Permissions| -> Vec<(String, Scope)> {
            (p.permissions.iter())
                .map(|g| (g.resource.clone(), g.scope.clone()))
                .collect()
        };
        assert!(
            resources(anonymous)
                .contains(&("configmaps".to_owned(), Scope::Namespace("apps".to_owned())))
        );
        // Only the group gives configmaps: alice, authenticated, has none.
        assert!(!resources(alice).iter().any(|(r, _)| r == "configmaps"));
        assert!(
            !resources(anonymous)
                .iter()
                .any(|(r, _)| r.starts_with("selfsubject"))
        );
        assert!(
            resources(alice)
                .iter()
                .any(|(r, _)| r.starts_with("selfsubject"))
        );
    }

    #[test]
    fn subjects_are_read_as_the_authorizer_reads_them() {
        let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "r"}, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]},
                {"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]});
        let objects = [
            role,
            // No namespace: the RoleBinding's own; in a ClusterRoleBinding, nobody.
            binding(
                "RoleBinding",
                Some("apps"),
                ("ClusterRole", "r"),
                json!([{"kind": "ServiceAccount", "name": "a"}]),
            ),
            binding(
                "ClusterRoleBinding",
                None,
                ("ClusterRole", "r"),
                json!([{"kind": "ServiceAccount", "name": "lost"}]),
            ),
            // A User spelled as an account is that account.
            binding(
                "ClusterRoleBinding",
                None,
                ("ClusterRole", "r"),
                json!([{"kind": "User", "name": "system:serviceaccount:apps:b"}]),
            ),
            // A group of one namespace's accounts reaches the accounts listed there.
            binding(
                "RoleBinding",
                Some("ci"),
                ("ClusterRole", "r"),
                json!([{"kind": "Group", "name": "system:serviceaccounts:apps"}]),
            ),
            binding(
                "ClusterRoleBinding",
                None,
                ("ClusterRole", "r"),
                json!([{"kind": "User", "name": "alice"}]),
            ),
            // Names no ServiceAccount can have (the authenticator's
            // SplitUsername): users, in no account's group.
            binding(
                "RoleBinding",
                Some("odd"),
                ("ClusterRole", "r"),
                json!([{"kind": "User", "name": "system:serviceaccount:apps:Robot"},
                    {"kind": "User", "name": "system:serviceaccount:apps:a:b"},
                    {"kind": "ServiceAccount", "name": "c", "namespace": "APPS"}]),
            ),
        ];
        let all = effective_permissions(&objects).unwrap();
        let held = |kind: &str, ns: Option<&str>, name: &str| {
            all.iter()
                .find(|p| {
                    p.subject.kind == kind
                        && p.subject.namespace.as_deref() == ns
                        && p.subject.name == name
                })
                .unwrap_or_else(|| panic!("{kind} {name} not listed"))
        };
        let pods = |p: &Permissions| -> Vec<(Scope, Vec<String>)> {
            p.permissions
                .iter()
                .filter(|g| g.resource == "pods")
                .map(|g| (g.scope.clone(), g.via.clone()))
                .collect()
        };
        let a = held("ServiceAccount", Some("apps"), "a");
        assert_eq!(
            pods(a),
            [
                (
                    Scope::Namespace("apps".to_owned()),
                    vec!["RoleBinding apps/b → ClusterRole r".to_owned()]
                ),
                (
                    Scope::Namespace("ci".to_owned()),
                    vec![
                        "RoleBinding ci/b → ClusterRole r, as Group system:serviceaccounts:apps"
                            .to_owned()
                    ]
                )
            ]
        );
        // Through a RoleBinding, a non-resource URL is listed for the namespace only.
        let metrics: Vec<&Scope> = a
            .non_resource
            .iter()
            .filter(|u| u.url == "/metrics")
            .map(|u| &u.scope)
            .collect();
        assert_eq!(
            metrics,
            [
                &Scope::Namespace("apps".to_owned()),
                &Scope::Namespace("ci".to_owned())
            ]
        );
        let b = held("ServiceAccount", Some("apps"), "b");
        assert_eq!(pods(b)[0].0, Scope::Cluster);
        assert!(
            b.non_resource
                .iter()
                .any(|u| u.url == "/metrics" && u.scope == Scope::Cluster)
        );
        let lost = held("ServiceAccount", None, "lost");
        assert!(lost.permissions.is_empty() && lost.non_resource.is_empty());
        // A user holds what system:authenticated is given, as kubectl's --as.
        let alice = held("User", None, "alice");
        assert_eq!(alice.subject.describe(), "User alice");
        assert!(
            alice
                .permissions
                .iter()
                .any(|p| p.resource == "selfsubjectaccessreviews.authorization.k8s.io")
        );
        for user in [
            "system:serviceaccount:apps:Robot",
            "system:serviceaccount:apps:a:b",
            "system:serviceaccount:APPS:c",
        ] {
            let odd = held("User", None, user);
            assert_eq!(
                pods(odd),
                [(
                    Scope::Namespace("odd".to_owned()),
                    vec!["RoleBinding odd/b → ClusterRole r".to_owned()]
                )],
                "{user}"
            );
            // Not in system:serviceaccounts:apps, nor reached as an account.
            assert!(!odd.subject.covers_accounts_of("apps"), "{user}");
        }
        assert!(
            !all.iter()
                .any(|p| p.subject.kind == "ServiceAccount" && p.subject.name == "Robot")
        );
        // Every subject once.
        let mut seen = BTreeSet::new();
        assert!(all.iter().all(|p| seen.insert(&p.subject)));
    }

    /// What each ServiceAccount holds, as `resource verb` lines.
    fn held(objects: &[Json]) -> BTreeMap<String, Vec<String>> {
        let all = permissions_with(objects, Cluster::Roles, defaults::TARGET).unwrap();
        (all.iter())
            .map(|p| {
                let lines = (p.permissions.iter())
                    .flat_map(|g| g.verbs.iter().map(move |v| format!("{} {v}", g.resource)))
                    .collect();
                (p.subject.name.clone(), lines)
            })
            .collect()
    }

    fn cluster_role(name: &str, labels: Json, selects: Option<Json>, resource: &str) -> Json {
        let mut role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": name, "labels": labels},
            "rules": [{"apiGroups": [""], "resources": [resource], "verbs": ["get"]}]});
        if let Some(selector) = selects {
            role["aggregationRule"] = json!({"clusterRoleSelectors": [selector]});
        }
        role
    }

    /// The aggregation walks are counted apart from the grants: a chain
    /// that grants little stops on the walk budget, with its own reason.
    #[test]
    fn the_walks_and_the_grants_have_budgets_of_their_own() {
        let mut objects: Vec<Json> = (0..4)
            .map(|i| {
                let mut role = cluster_role(
                    &format!("r{i}"),
                    json!({format!("l{i}"): "x"}),
                    Some(json!({"matchLabels": {format!("l{}", i + 1): "x"}})),
                    "pods",
                );
                role["rules"] = json!([]);
                role
            })
            .collect();
        objects.push(cluster_role("r4", json!({"l4": "x"}), None, "pods"));
        objects.push(bound("r0", "a"));
        let objects: Vec<&Json> = objects.iter().collect();
        let rbac = Rbac::with(&objects, Cluster::Roles, defaults::TARGET);
        let listed = Listed::of(&objects, &rbac);
        let grants = |budgets| {
            let mut n = 0;
            let done = rbac.each_grant(&listed, budgets, |_| n += 1);
            done.map(|()| n)
        };
        // The one grant: r4's rule, through the four empty roles.
        assert!(matches!(grants((1, 100)), Ok(1)));
        assert!(matches!(grants((0, 100)), Err(Over::Grants)));
        assert!(matches!(grants((1, 3)), Err(Over::Walk)));
        // Only r4 is a source: the empty roles are walked, not carried.
        let mut work = 100;
        assert_eq!(rbac.sources(0, &mut work), Some(vec![4]));
    }

    /// The accounts listed are those declared, bound and run as by a pod
    /// of a built-in kind: a custom kind named like one (an
    /// `example.com` Deployment, a ServiceAccount of another group) runs
    /// no pod and declares no account.
    #[test]
    fn only_built_in_kinds_declare_or_run_as_accounts() {
        let pod = |api_version: &str, kind: &str, account: &str| {
            json!({"apiVersion": api_version, "kind": kind,
                "metadata": {"name": "w", "namespace": "apps"},
                "spec": {"template": {"spec": {"serviceAccountName": account}}}})
        };
        let objects = [
            pod("apps/v1", "Deployment", "runner"),
            pod("example.com/v1", "Deployment", "custom"),
            json!({"apiVersion": "example.com/v1", "kind": "ServiceAccount",
                "metadata": {"name": "fake", "namespace": "apps"}}),
            json!({"apiVersion": "v1", "kind": "ServiceAccount",
                "metadata": {"name": "real", "namespace": "apps"}}),
        ];
        let objects: Vec<&Json> = objects.iter().collect();
        let rbac = Rbac::with(&objects, Cluster::Roles, defaults::TARGET);
        let listed = Listed::of(&objects, &rbac);
        let names: Vec<&str> = (listed.accounts.values().flatten())
            .map(|account| account.name.as_str())
            .collect();
        assert_eq!(names, ["real", "runner"]);
    }

    fn bound(role: &str, account: &str) -> Json {
        binding(
            "ClusterRoleBinding",
            None,
            ("ClusterRole", role),
            json!([{"kind": "ServiceAccount", "name": account, "namespace": "apps"}]),
        )
    }

    /// The aggregation controller replaces an aggregated role's rules by
    /// what it gathers from the other roles its selectors match (as a real
    /// v1.35 server did: `generated/g10-*`): its own rules are gone,
    /// through a chain too, and its own match of itself is skipped; they
    /// stay when it gathers nothing. In a cycle that gathers only its
    /// members' own rules (the outcome depends on the controller's order)
    /// each member holds all of them.
    #[test]
    fn an_aggregated_role_holds_what_it_gathers_and_its_own_rules_only_when_that_is_nothing() {
        let objects = [
            cluster_role(
                "a",
                json!({}),
                Some(json!({"matchLabels": {"to": "a"}})),
                "secrets",
            ),
            cluster_role(
                "b",
                json!({"to": "a"}),
                Some(json!({"matchLabels": {"to": "b"}})),
                "pods",
            ),
            cluster_role("c", json!({"to": "b"}), None, "configmaps"),
            cluster_role(
                "self",
                json!({"s": "x"}),
                Some(json!({"matchLabels": {"s": "x"}})),
                "nodes",
            ),
            cluster_role("source", json!({"s": "x"}), None, "services"),
            cluster_role(
                "only",
                json!({"o": "x"}),
                Some(json!({"matchLabels": {"o": "x"}})),
                "endpoints",
            ),
            cluster_role(
                "hollow",
                json!({"h": "x"}),
                Some(json!({"matchLabels": {"none": "x"}})),
                "events",
            ),
            cluster_role(
                "outer",
                json!({}),
                Some(json!({"matchLabels": {"h": "x"}})),
                "leases",
            ),
            cluster_role(
                "e",
                json!({"ring": "e"}),
                Some(json!({"matchLabels": {"ring": "f"}})),
                "jobs",
            ),
            cluster_role(
                "f",
                json!({"ring": "f"}),
                Some(json!({"matchLabels": {"ring": "e"}})),
                "cronjobs",
            ),
            bound("a", "a"),
            bound("b", "b"),
            bound("self", "self"),
            bound("only", "only"),
            bound("outer", "outer"),
            bound("e", "e"),
        ];
        let held = held(&objects);
        let of = |account: &str| held[account].iter().map(String::as_str).collect::<Vec<_>>();
        assert_eq!(of("a"), ["configmaps get"]);
        assert_eq!(of("b"), ["configmaps get"]);
        assert_eq!(of("self"), ["services get"]);
        assert_eq!(of("only"), ["endpoints get"]);
        assert_eq!(of("outer"), ["events get"]);
        assert_eq!(of("e"), ["cronjobs get", "jobs get"]);
        // A cycle fed by a plain role too: the members' own rules still
        // circulate. A role above a cycle holds the cycle's, not its own.
        let cycle = [
            cluster_role(
                "x",
                json!({"ring": "x"}),
                Some(json!({"matchLabels": {"ring": "y"}})),
                "secrets",
            ),
            cluster_role(
                "y",
                json!({"ring": "y"}),
                Some(json!({"matchLabels": {"ring": "x"}})),
                "nodes",
            ),
            cluster_role("p", json!({"ring": "y"}), None, "pods"),
            cluster_role(
                "top",
                json!({}),
                Some(json!({"matchLabels": {"ring": "x"}})),
                "leases",
            ),
            bound("x", "x"),
            bound("top", "top"),
        ];
        let through = self::held(&cycle);
        assert_eq!(through["x"], ["nodes get", "pods get", "secrets get"]);
        assert_eq!(through["top"], ["nodes get", "pods get", "secrets get"]);
        // check's reading of the same graph agrees: flags per role.
        let rbac = rbac(&objects);
        let flags = rbac.effective_flags(|rule| {
            u32::from(rule.any_resource("secrets"))
                | u32::from(rule.any_resource("configmaps")) << 1
        });
        assert_eq!(flags[..3], [2, 2, 2]);
    }

    /// A selector the API server refuses (a `matchLabels` that is no map)
    /// matches nothing, and shares nothing with `{}`, which matches every
    /// ClusterRole, whichever comes first.
    #[test]
    fn an_invalid_selector_is_not_the_empty_one() {
        for order in [false, true] {
            let mut roles = vec![
                cluster_role(
                    "broken",
                    json!({}),
                    Some(json!({"matchLabels": ["x"]})),
                    "pods",
                ),
                cluster_role("all", json!({}), Some(json!({})), "pods"),
            ];
            if order {
                roles.reverse();
            }
            let objects: Vec<Json> = roles
                .into_iter()
                .chain([
                    cluster_role("plain", json!({}), None, "secrets"),
                    bound("all", "all"),
                    bound("broken", "broken"),
                ])
                .collect();
            let held = held(&objects);
            assert!(held["all"].contains(&"secrets get".to_owned()), "{held:?}");
            // A null selector is the empty one.
            let mut nulled = objects.clone();
            for role in &mut nulled {
                if role["metadata"]["name"] == "all" {
                    role["aggregationRule"]["clusterRoleSelectors"] = json!([null]);
                }
            }
            assert_eq!(self::held(&nulled)["all"], held["all"]);
            assert!(
                !held["broken"].contains(&"secrets get".to_owned()),
                "{held:?}"
            );
        }
    }

    /// An input role named as a default one is applied over it (measured
    /// on a v1.35.4 server, `tests/it/cluster_rbac.rs`'s g13): its rules
    /// replace a plain role's, but `view` keeps its aggregation rule, so
    /// the controller fills its rules from what it selects again.
    #[test]
    fn an_input_role_is_applied_over_the_default_of_its_name() {
        let objects = [
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "view"}, "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}]}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "system:public-info-viewer"},
                "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}),
            binding(
                "ClusterRoleBinding",
                None,
                ("ClusterRole", "view"),
                json!([{"kind": "ServiceAccount", "name": "v", "namespace": "apps"}]),
            ),
            binding(
                "ClusterRoleBinding",
                None,
                ("ClusterRole", "system:public-info-viewer"),
                json!([{"kind": "ServiceAccount", "name": "p", "namespace": "apps"}]),
            ),
        ];
        let all = permissions_with(&objects, Cluster::Roles, defaults::TARGET).unwrap();
        let resources = |name: &str| -> Vec<&str> {
            let held = all.iter().find(|p| p.subject.name == name).unwrap();
            held.permissions
                .iter()
                .map(|p| p.resource.as_str())
                .collect()
        };
        assert!(resources("v").contains(&"deployments.apps"));
        assert!(!resources("v").contains(&"secrets"));
        assert_eq!(resources("p"), ["pods"]);
    }

    /// A selector's candidates come from the index: one role for an `In`
    /// of one value or an `Exists` of a key one role holds, the roles of
    /// each value for an `In` of several, the rarest list when a selector
    /// has several; every role only when nothing narrows it (`NotIn`,
    /// `DoesNotExist`, `{}`). The candidates are what the evaluator is run
    /// on, so their count is the comparisons a selector costs.
    #[test]
    fn selectors_take_their_candidates_from_the_index() {
        let roles: Vec<Json> = (0..100)
            .map(|i| {
                cluster_role(
                    &format!("r{i}"),
                    json!({"l": format!("v{i}"), format!("k{i}"): "x"}),
                    None,
                    "pods",
                )
            })
            .collect();
        let objects: Vec<&Json> = roles.iter().collect();
        let index = LabelIndex::over(0..objects.len(), &objects);
        let tried = |selector: Json| {
            let key = selector_key(&selector);
            let candidates = index.candidates(&key, &selector).into_owned();
            let matched = index.matching(&objects, &key, &selector);
            (candidates, matched)
        };
        let expression = |e: Json| json!({"matchExpressions": [e]});
        assert_eq!(
            tried(expression(
                json!({"key": "l", "operator": "In", "values": ["v7"]})
            )),
            (vec![7], vec![7])
        );
        assert_eq!(
            tried(expression(json!({"key": "k9", "operator": "Exists"}))),
            (vec![9], vec![9])
        );
        assert_eq!(
            tried(expression(
                json!({"key": "l", "operator": "In", "values": ["v3", "v1", "v3", "none"]})
            )),
            (vec![1, 3], vec![1, 3])
        );
        assert_eq!(
            tried(json!({"matchLabels": {"l": "v5"}, "matchExpressions": [
                {"key": "l", "operator": "Exists"},
                {"key": "k5", "operator": "NotIn", "values": ["y"]}]})),
            (vec![5], vec![5])
        );
        assert_eq!(
            tried(json!({"matchExpressions": [
                {"key": "l", "operator": "Exists"},
                {"key": "k4", "operator": "Exists"}]})),
            (vec![4], vec![4])
        );
        // Refused selectors match nothing, whatever their candidates.
        assert_eq!(
            tried(expression(
                json!({"key": "l", "operator": "In", "values": ["v2", 2]})
            ))
            .1,
            Vec::<usize>::new()
        );
        assert_eq!(
            tried(expression(
                json!({"key": "k2", "operator": "Exists", "values": ["x"]})
            ))
            .1,
            Vec::<usize>::new()
        );
        let every: Vec<usize> = (0..100).collect();
        let (candidates, matched) = tried(expression(
            json!({"key": "k1", "operator": "NotIn", "values": ["x"]}),
        ));
        assert_eq!(candidates, every);
        assert_eq!(matched, (0..100).filter(|&i| i != 1).collect::<Vec<_>>());
        let (candidates, matched) =
            tried(expression(json!({"key": "k1", "operator": "DoesNotExist"})));
        assert_eq!((candidates.len(), matched.len()), (100, 99));
        assert_eq!(tried(json!({})), (every.clone(), every));
    }

    mod indexed {
        use proptest::prelude::*;
        use serde_json::{Value as Json, json};

        use super::super::{LabelIndex, selector_key};

        fn word() -> impl Strategy<Value = Json> {
            prop_oneof![
                4 => prop::sample::select(vec!["x", "y", "z"]).prop_map(Json::from),
                1 => Just(json!(1)),
            ]
        }

        fn key() -> impl Strategy<Value = &'static str> {
            prop::sample::select(vec!["a", "b", "c", "d"])
        }

        fn labels() -> impl Strategy<Value = Json> {
            prop::collection::btree_map(key(), word(), 0..4).prop_map(|labels| json!(labels))
        }

        fn expression() -> impl Strategy<Value = Json> {
            let operator = prop_oneof![
                Just(Some("In")),
                Just(Some("NotIn")),
                Just(Some("Exists")),
                Just(Some("DoesNotExist")),
                Just(Some("Equals")),
                Just(None),
            ];
            let values = prop_oneof![
                Just(None),
                prop::collection::vec(word(), 0..4).prop_map(Some),
            ];
            (key(), operator, values).prop_map(|(key, operator, values)| {
                let mut expression = json!({"key": key});
                if let Some(operator) = operator {
                    expression["operator"] = json!(operator);
                }
                if let Some(values) = values {
                    expression["values"] = json!(values);
                }
                expression
            })
        }

        fn selector() -> impl Strategy<Value = Json> {
            (
                prop::option::of(prop::collection::btree_map(key(), word(), 0..3)),
                prop::option::of(prop::collection::vec(expression(), 0..3)),
            )
                .prop_map(|(labels, expressions)| {
                    let mut selector = json!({});
                    if let Some(labels) = labels {
                        selector["matchLabels"] = json!(labels);
                    }
                    if let Some(expressions) = expressions {
                        selector["matchExpressions"] = json!(expressions);
                    }
                    selector
                })
        }

        proptest! {
            /// The index selects exactly what the evaluator selects tried
            /// on every ClusterRole, refused selectors and roles lacking a
            /// key included.
            #[test]
            fn the_index_matches_as_every_role_tried(
                labels in prop::collection::vec(labels(), 0..12),
                selector in selector(),
            ) {
                let roles: Vec<Json> = labels
                    .into_iter()
                    .map(|labels| json!({"kind": "ClusterRole", "metadata": {"labels": labels}}))
                    .collect();
                let objects: Vec<&Json> = roles.iter().collect();
                let index = LabelIndex::over(0..objects.len(), &objects);
                let naive: Vec<usize> = (0..objects.len())
                    .filter(|&id| crate::selector::selects_labels(
                        &selector,
                        objects[id]["metadata"]["labels"].as_object().unwrap(),
                    ))
                    .collect();
                let key = selector_key(&selector);
                prop_assert_eq!(index.matching(&objects, &key, &selector), naive);
            }
        }
    }
}
