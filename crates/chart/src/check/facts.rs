//! What the manifests show about the operator, whoever wrote them: where
//! buildd runs (the operator namespace), where it creates the daemons (its
//! `--namespace`: the builds namespace), where privileged node plumbing runs
//! (the system namespace). Labels are a hint at most: they fill a gap the
//! workloads leave, and never override them.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::Value as Json;

use kubernetes::json::Field;
use kubernetes::location::KeyPath;

use super::Class;
use crate::plan::COMPONENT_LABEL;
use crate::plan::adr::{self, COMPONENT_CLASSES, TRUST_CLASS_LABEL};
use kubernetes::manifest;

/// One operator instance the input shows: a buildd Deployment and the
/// namespaces it ties together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// Index of buildd's Deployment.
    pub buildd: usize,
    /// Index of buildd's container in the pod template.
    pub container: usize,
    /// Where buildd runs: the operator namespace.
    pub operator: String,
    /// Where buildd creates the daemons: its `--namespace`, when it names a
    /// namespace of its own; else where the daemons' objects are.
    pub builds: Option<String>,
    /// buildd's `--namespace`, as given (the last one wins).
    pub namespace_flag: Option<String>,
    /// buildd's ServiceAccount.
    pub account: String,
    /// buildd's `--daemon-pod-template`: the ConfigMap holding the pod
    /// template it starts every daemon from, when given.
    pub daemon_pod_template: Option<String>,
    /// buildd's `--leader-election-id`, when given.
    pub lease: Option<String>,
    /// Whether buildd elects a leader: false only when its last
    /// `--leader-elect` says false (`--leader-elect=false`), as Go's flag
    /// package reads a boolean; absent, it is taken as on, the stricter
    /// reading (R3 then asks for the Lease grants).
    pub leader_election: bool,
}

/// Everything the checks know about trust classes.
#[derive(Debug, Default)]
pub struct Facts {
    /// Every buildd in the input.
    pub instances: Vec<Instance>,
    /// The class of each namespace the input shows.
    pub classes: BTreeMap<String, Class>,
    /// Namespaces the input puts in two classes: (namespace, first, second).
    pub conflicts: Vec<(String, Class, Class)>,
    /// The instance of each buildd Deployment, by object index.
    by_object: HashMap<usize, usize>,
    /// The instances running in each operator namespace.
    by_operator: HashMap<String, Vec<usize>>,
    /// The objects the operator's objects name but that are not where
    /// their users need them, by object index (T2).
    misplaced: HashMap<usize, Requirement>,
    /// Whether each object, by index, is the operator's: the ADR rules
    /// judge those only ([`Facts::in_scope`]).
    scope: Vec<bool>,
    /// The daemons' pod templates, read once (`daemon_templates`).
    pub daemon_templates: Vec<DaemonTemplate>,
    /// The pod template ConfigMaps buildd names that the input lacks:
    /// (builds namespace, name).
    pub missing_templates: Vec<(String, String)>,
}

/// One value of the ConfigMap a buildd's `--daemon-pod-template` names,
/// read once for T2's references and T3.
#[derive(Debug)]
pub struct DaemonTemplate {
    /// Index of the ConfigMap.
    pub config_map: usize,
    /// The builds namespace whose daemons start from it.
    pub builds: String,
    /// The data key.
    pub key: String,
    /// The pod template it holds (`metadata`, `spec`), or why it could not
    /// be read.
    pub read: Result<Json, String>,
}

/// Where an object must be because the operator's objects name it: a
/// ConfigMap, Secret or ServiceAccount named by buildd's flags, mounted by
/// a workload, or run as by one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The namespace its user reads it in.
    pub namespace: String,
    /// That namespace's class.
    pub class: Class,
    /// Who names it, for messages: `buildd's --daemon-config`.
    pub by: String,
}

impl Facts {
    /// Reads the facts off `objects`, in a few passes over them.
    pub fn of(objects: &[&Json]) -> Self {
        let mut facts = Facts::default();
        // The first two namespaces holding BuildProjects, for a buildd that
        // does not name its builds namespace.
        let mut projects: Vec<&str> = Vec::with_capacity(2);
        for object in objects.iter().filter(|o| o.field("kind") == "BuildProject") {
            let namespace = namespace_of(object);
            if projects.len() < 2 && !projects.contains(&namespace) {
                projects.push(namespace);
            }
        }
        for (index, object) in objects.iter().enumerate() {
            if let Some(container) = buildd_container(object) {
                let instance = instance(object, index, container, &projects);
                facts.by_object.insert(index, facts.instances.len());
                facts
                    .by_operator
                    .entry(instance.operator.clone())
                    .or_default()
                    .push(facts.instances.len());
                facts.instances.push(instance);
            }
        }
        for i in 0..facts.instances.len() {
            let operator = facts.instances[i].operator.clone();
            facts.assign(&operator, Class::Operator);
            if let Some(builds) = facts.instances[i].builds.clone() {
                facts.assign(&builds, Class::Builds);
            }
        }
        // Node plumbing: the Kata installer's host access (not any
        // privileged DaemonSet: every cluster runs some of other
        // applications) outside the namespaces buildd shows, in one namespace: the one labelled as the system class, else the
        // one with the most such workloads (the first on a tie). Host access
        // elsewhere is then out of place (T2, T3), not a second system.
        let labelled: HashSet<&str> = objects
            .iter()
            .filter(|o| {
                o.field("kind") == "Namespace"
                    && o.field("metadata").field("labels").field(TRUST_CLASS_LABEL)
                        == Class::System.name()
            })
            .filter_map(|o| o.field("metadata").field("name").as_str())
            .collect();
        let mut candidates: HashMap<&str, (bool, usize, Reverse<usize>)> = HashMap::new();
        for (index, object) in objects.iter().enumerate() {
            let namespace = namespace_of(object);
            if has_host_access(object)
                && is_kata_plumbing(object, labelled.contains(namespace))
                && !facts.classes.contains_key(namespace)
            {
                candidates
                    .entry(namespace)
                    .or_insert((labelled.contains(namespace), 0, Reverse(index)))
                    .1 += 1;
            }
        }
        if let Some((system, _)) = candidates.into_iter().max_by_key(|(_, rank)| *rank) {
            facts.classes.insert(system.to_owned(), Class::System);
        }
        // Hints, for what no workload shows: a Namespace's trust-class label,
        // then the component labels of chartgen's objects; never a second
        // namespace for a class the input already shows.
        let mut shown: HashSet<Class> = facts.classes.values().copied().collect();
        for object in objects {
            let hint = if object.field("kind") == "Namespace" {
                object
                    .field("metadata")
                    .field("labels")
                    .field(TRUST_CLASS_LABEL)
                    .as_str()
                    .and_then(Class::parse)
                    .zip(object.field("metadata").field("name").as_str())
            } else {
                component_class(object).zip(object.field("metadata").field("namespace").as_str())
            };
            if let Some((class, namespace)) = hint
                && !facts.classes.contains_key(namespace)
                && shown.insert(class)
            {
                facts.classes.insert(namespace.to_owned(), class);
            }
        }
        (facts.daemon_templates, facts.missing_templates) =
            daemon_templates(objects, &facts.instances);
        let (required, referenced) = facts.references(objects);
        facts.misplaced = required;
        facts.scope = scope(objects, &facts, &referenced);
        facts
    }

    /// Whether object `index` is the buildkit operator's, and so judged by
    /// the ADR rules (R1-R6, T1-T5, FACT): a buildd, a BuildProject, the
    /// operator's CRD, anything in a namespace whose class the input shows
    /// (and that Namespace), an object the operator's objects name (a
    /// ConfigMap or Secret named by buildd's flags or mounted by its
    /// workloads), an object carrying chartgen's component label, and the
    /// RBAC that reaches the accounts of those namespaces. Everything else
    /// is another application's: the generic rules only (schema, API,
    /// Pod Security by its namespace's labels, GRANT).
    pub fn in_scope(&self, index: usize) -> bool {
        self.scope.get(index).copied().unwrap_or(false)
    }

    /// The object `index` is, when the operator's objects need it in
    /// another namespace than the one it is in (T2).
    pub fn misplaced(&self, index: usize) -> Option<&Requirement> {
        self.misplaced.get(&index)
    }

    /// What the operator's objects name (buildd's flags naming the
    /// daemons' objects in the builds namespace; the ConfigMaps, Secrets
    /// and ServiceAccount each workload of a classed namespace uses there):
    /// the objects found elsewhere than every user needs them, and the
    /// indexes of every object named.
    fn references(&self, objects: &[&Json]) -> (HashMap<usize, Requirement>, HashSet<usize>) {
        // (kind, name) -> where it is needed.
        let mut needed: HashMap<(&str, String), Vec<Requirement>> = HashMap::new();
        for instance in &self.instances {
            let Some(builds) = &instance.builds else {
                continue;
            };
            let container = &objects[instance.buildd]
                .field("spec")
                .field("template")
                .field("spec")
                .field("containers")[instance.container];
            let words = command_line(container);
            let args = words.as_slice();
            for (flag, kind) in adr::DAEMON_REFERENCES {
                if let Some(name) = last_flag(args, flag) {
                    needed.entry((kind, name)).or_default().push(Requirement {
                        namespace: builds.clone(),
                        class: Class::Builds,
                        by: format!(
                            "buildd's {flag} (in {}) names it for the daemons",
                            instance.operator
                        ),
                    });
                }
            }
        }
        // What the daemons' pod template mounts, reads or pulls with.
        for template in &self.daemon_templates {
            let Ok(read) = &template.read else {
                continue;
            };
            let name = objects[template.config_map]
                .field("metadata")
                .field("name")
                .as_str()
                .unwrap_or_default();
            if !read.field("spec").is_object() {
                continue;
            }
            for (kind, referenced, how) in pod_references(read.field("spec")) {
                needed
                    .entry((kind, referenced))
                    .or_default()
                    .push(Requirement {
                        namespace: template.builds.clone(),
                        class: Class::Builds,
                        by: format!("the daemons' pod template (ConfigMap {name}) {how} it"),
                    });
            }
        }
        for object in objects {
            let namespace = namespace_of(object);
            let Some(&class) = self.classes.get(namespace) else {
                continue;
            };
            let Some((_, pod)) = pod_spec(object) else {
                continue;
            };
            let user = format!(
                "{} {namespace}/{}",
                object.field("kind").as_str().unwrap_or_default(),
                object
                    .field("metadata")
                    .field("name")
                    .as_str()
                    .unwrap_or_default()
            );
            for (kind, name, how) in pod_references(pod) {
                needed.entry((kind, name)).or_default().push(Requirement {
                    namespace: namespace.to_owned(),
                    class,
                    by: format!("{user} {how} it"),
                });
            }
        }
        let mut present: HashSet<(&str, &str, &str)> = HashSet::new();
        let provided: Vec<(usize, &str, &str)> = objects
            .iter()
            .enumerate()
            .filter_map(|(index, object)| {
                let (kind, name) = provides(object)?;
                present.insert((kind, name, namespace_of(object)));
                Some((index, kind, name))
            })
            .collect();
        let mut misplaced = HashMap::new();
        let mut referenced = HashSet::new();
        for (index, kind, name) in provided {
            let Some(users) = needed.get(&(kind, name.to_owned())) else {
                continue;
            };
            let here = namespace_of(objects[index]);
            if users.iter().any(|u| u.namespace == here) {
                referenced.insert(index);
                continue;
            }
            // Missing where a user needs it: this one is misplaced. Present
            // there, this is an object of the same name elsewhere, not the
            // one the operator uses (another application's, say).
            if let Some(user) = users
                .iter()
                .find(|u| !present.contains(&(kind, name, u.namespace.as_str())))
            {
                referenced.insert(index);
                misplaced.insert(index, user.clone());
            }
        }
        (misplaced, referenced)
    }

    /// The instance whose buildd Deployment is object `index`.
    pub fn instance_at(&self, index: usize) -> Option<&Instance> {
        self.by_object.get(&index).map(|i| &self.instances[*i])
    }

    /// The instances whose buildd runs in `namespace`.
    pub fn instances_in(&self, namespace: &str) -> impl Iterator<Item = &Instance> {
        self.by_operator
            .get(namespace)
            .into_iter()
            .flatten()
            .map(|i| &self.instances[*i])
    }

    fn assign(&mut self, namespace: &str, class: Class) {
        match self.classes.get(namespace) {
            Some(first) if *first != class => {
                self.conflicts.push((namespace.to_owned(), *first, class));
            }
            Some(_) => {}
            None => {
                self.classes.insert(namespace.to_owned(), class);
            }
        }
    }

    /// Whether every class the release needs is known: a buildd, and each
    /// buildd's builds namespace.
    pub fn release_known(&self) -> bool {
        !self.instances.is_empty() && self.instances.iter().all(|i| i.builds.is_some())
    }

    /// The namespaces of `class`, joined with " or " for messages.
    pub fn names_of(&self, class: Class) -> Option<String> {
        let names: Vec<&str> = self
            .classes
            .iter()
            .filter(|(_, c)| **c == class)
            .map(|(n, _)| n.as_str())
            .collect();
        (!names.is_empty()).then(|| names.join(" or "))
    }
}

/// The instance of buildd's Deployment `object`; `projects` are the first
/// namespaces holding BuildProjects.
fn instance(object: &Json, index: usize, container: usize, projects: &[&str]) -> Instance {
    let operator = namespace_of(object).to_owned();
    let args = &command_line(
        &object
            .field("spec")
            .field("template")
            .field("spec")
            .field("containers")[container],
    );
    let namespace_flag = last_flag(args, "--namespace");
    // A --namespace naming buildd's own namespace (or none) shows no builds
    // namespace: the BuildProjects outside it do (T5 reports the flag).
    let builds = match &namespace_flag {
        Some(ns) if *ns != operator => Some(ns.clone()),
        _ => projects
            .iter()
            .find(|ns| **ns != operator)
            .map(|ns| (*ns).to_owned()),
    };
    Instance {
        buildd: index,
        container,
        operator,
        builds,
        namespace_flag,
        account: kubernetes::tree::runs_as(object.field("spec").field("template").field("spec"))
            .to_owned(),
        lease: last_flag(args, "--leader-election-id"),
        leader_election: leader_election(args),
        daemon_pod_template: last_flag(args, "--daemon-pod-template"),
    }
}

/// Whether the arguments leave leader election on: the last
/// `--leader-elect` (or `-leader-elect`) decides; a bare one, or a value Go's
/// `strconv.ParseBool` does not read as false, means on.
fn leader_election(args: &[Json]) -> bool {
    let mut on = true;
    for arg in args.iter().filter_map(Json::as_str) {
        let Some(rest) = after_flag(arg, "--leader-elect") else {
            continue;
        };
        match rest.strip_prefix('=') {
            Some(value) => on = !matches!(value, "0" | "f" | "F" | "false" | "FALSE" | "False"),
            None if rest.is_empty() => on = true,
            None => {}
        }
    }
    on
}

/// The namespace an object lives in; `default` when it names none.
pub fn namespace_of(object: &Json) -> &str {
    object
        .field("metadata")
        .field("namespace")
        .as_str()
        .unwrap_or("default")
}

/// The class chartgen's component label gives an object.
pub fn component_class(object: &Json) -> Option<Class> {
    let component = object
        .field("metadata")
        .field("labels")
        .field(COMPONENT_LABEL)
        .as_str()?;
    COMPONENT_CLASSES
        .iter()
        .find(|(c, _)| *c == component)
        .and_then(|(_, class)| Class::parse(class))
}

/// buildd's container, when `object` is buildd's Deployment: one named
/// `buildd` or running a `…/buildd` image, or any container of a Deployment
/// labelled with the buildd component.
pub fn buildd_container(object: &Json) -> Option<usize> {
    if object.field("kind") != "Deployment" {
        return None;
    }
    let containers = object
        .field("spec")
        .field("template")
        .field("spec")
        .field("containers")
        .as_array()?;
    containers
        .iter()
        .position(|c| {
            c.field("name") == "buildd" || c.field("image").as_str().is_some_and(is_buildd_image)
        })
        .or_else(|| {
            (object
                .field("metadata")
                .field("labels")
                .field(COMPONENT_LABEL)
                == "buildd"
                && !containers.is_empty())
            .then_some(0)
        })
}

/// Whether `image` is a buildd image: its last path segment, without tag
/// or digest, is `buildd`.
fn is_buildd_image(image: &str) -> bool {
    let image = image.split('@').next().unwrap_or_default();
    let name = image.rsplit('/').next().unwrap_or_default();
    name.split(':').next() == Some("buildd")
}

/// The pod spec of a workload, and the path to it in the object: every
/// kind that carries a pod, found as Pod Security finds it
/// ([`kubernetes::pod_security::carried_pod`]: Pod, PodTemplate,
/// ReplicationController, the apps workloads, Job, CronJob, by group).
pub fn pod_spec(object: &Json) -> Option<(KeyPath, &Json)> {
    let carried = kubernetes::pod_security::carried_pod(object)?;
    Some((carried.at.key("spec"), carried.pod.spec))
}

/// Whether a workload is the Kata node plumbing ADR-0006 puts in the
/// system namespace: in a Namespace labelled as the system class
/// (`in_labelled`), labelled by chartgen as a system component, or running
/// a Kata image (a repository path naming kata: kata-deploy,
/// kata-clh-vcpu-tune). Another application's privileged DaemonSet (a CNI,
/// a CSI driver, a node exporter) is none.
pub fn is_kata_plumbing(object: &Json, in_labelled: bool) -> bool {
    if in_labelled || component_class(object) == Some(Class::System) {
        return true;
    }
    let Some((_, pod)) = pod_spec(object) else {
        return false;
    };
    ["initContainers", "containers"].iter().any(|list| {
        pod[*list].as_array().is_some_and(|c| {
            c.iter().any(|c| {
                let image = c.field("image").as_str().unwrap_or_default();
                let repository = image.split('@').next().unwrap_or_default();
                let repository = match repository.rsplit_once(':') {
                    Some((path, tag)) if !tag.contains('/') => path,
                    _ => repository,
                };
                repository
                    .split('/')
                    .skip(usize::from(repository.contains('/')))
                    .any(|segment| segment.contains("kata"))
            })
        })
    })
}

/// Whether a workload reaches into its node: a hostPath volume, a
/// privileged container, or the host's PID, network or IPC namespace.
pub fn has_host_access(object: &Json) -> bool {
    let Some((_, pod)) = pod_spec(object) else {
        return false;
    };
    let host = ["hostPID", "hostNetwork", "hostIPC"]
        .iter()
        .any(|k| pod[*k] == true);
    let host_path = pod
        .field("volumes")
        .as_array()
        .is_some_and(|v| v.iter().any(|v| v.get("hostPath").is_some()));
    let privileged = ["initContainers", "containers"].iter().any(|list| {
        pod[*list].as_array().is_some_and(|c| {
            c.iter()
                .any(|c| c.field("securityContext").field("privileged") == true)
        })
    });
    host || host_path || privileged
}

/// What object an object is, as the operator's objects name it: a
/// ConfigMap, Secret or ServiceAccount by its name, and the Secret a
/// cert-manager Certificate writes (its `spec.secretName`).
fn provides(object: &Json) -> Option<(&'static str, &str)> {
    let kind = match object.field("kind").as_str()? {
        "ConfigMap" => "ConfigMap",
        "Secret" => "Secret",
        "ServiceAccount" => "ServiceAccount",
        "Certificate"
            if object
                .field("apiVersion")
                .as_str()?
                .starts_with("cert-manager.io/") =>
        {
            return Some(("Secret", object.field("spec").field("secretName").as_str()?));
        }
        _ => return None,
    };
    Some((kind, object.field("metadata").field("name").as_str()?))
}

/// The ConfigMaps, Secrets and ServiceAccount a pod uses, each with how
/// ([`kubernetes::tree::pod_references`]): (kind, name, how). An optional
/// reference is still a use; the objects of other kinds it names
/// (claims, classes) are none of the placement rules' business.
pub fn pod_references(pod: &Json) -> impl Iterator<Item = (&'static str, String, &'static str)> {
    kubernetes::tree::pod_references(pod)
        .into_iter()
        .filter(|r| matches!(r.kind, "ConfigMap" | "Secret" | "ServiceAccount"))
        .map(|r| (r.kind, r.name.to_owned(), r.how.words()))
}

/// The daemons' pod templates, each read once: for every (builds
/// namespace, name) some buildd's `--daemon-pod-template` gives, the
/// ConfigMap of that name in the builds namespace (else the first
/// elsewhere, which T2 then places), each data value read as Kubernetes
/// reads YAML, all of them under one manifest's node budget together; and
/// the named ConfigMaps the input lacks.
fn daemon_templates(
    objects: &[&Json],
    instances: &[Instance],
) -> (Vec<DaemonTemplate>, Vec<(String, String)>) {
    let named: BTreeSet<(&str, &str)> = instances
        .iter()
        .filter_map(|i| Some((i.builds.as_deref()?, i.daemon_pod_template.as_deref()?)))
        .collect();
    let (mut read, mut missing) = (Vec::new(), Vec::new());
    if named.is_empty() {
        return (read, missing);
    }
    let mut spent = 0;
    for (builds, name) in named {
        let candidates: Vec<usize> = (0..objects.len())
            .filter(|&i| {
                objects[i].field("kind") == "ConfigMap"
                    && objects[i].field("apiVersion") == "v1"
                    && objects[i].field("metadata").field("name") == name
            })
            .collect();
        let chosen = candidates
            .iter()
            .find(|&&i| namespace_of(objects[i]) == builds)
            .or(candidates.first());
        let Some(&config_map) = chosen else {
            missing.push((builds.to_owned(), name.to_owned()));
            continue;
        };
        for (key, text) in objects[config_map]
            .field("data")
            .as_object()
            .into_iter()
            .flatten()
        {
            read.push(DaemonTemplate {
                config_map,
                builds: builds.to_owned(),
                key: key.clone(),
                read: read_pod_template(text.as_str().unwrap_or_default(), &mut spent),
            });
        }
    }
    (read, missing)
}

/// One value of the daemons' pod template ConfigMap, read as Kubernetes
/// reads YAML, counting its nodes into `spent` (one manifest's budget for
/// all of them): the pod template it holds (`metadata` and `spec`; a
/// PodTemplate's `template`), or why it is none.
fn read_pod_template(text: &str, spent: &mut usize) -> Result<Json, String> {
    let source = kubernetes::location::Source::file("pod template", text);
    let documents =
        kubernetes::yaml::parse_manifests_sharing(&source, kubernetes::manifest::LIMITS, spent)
            .map_err(|e| e.to_string())?;
    let mut json = documents.first().map(|d| d.to_json()).unwrap_or_default();
    if json.field("template").field("spec").is_object() {
        json = json["template"].take();
    }
    if json.is_object() {
        Ok(json)
    } else {
        Err("it does not read as one YAML mapping".to_owned())
    }
}

/// Whether a binding's `subject` (as written; `namespace` is the binding's,
/// for a RoleBinding) includes a ServiceAccount of a namespace `classed`
/// says is one of the operator's: the account itself, its user name, its
/// namespace's group, `system:serviceaccounts`, `system:authenticated`.
pub fn covers_classed_account(
    subject: &Json,
    namespace: Option<&str>,
    classed: impl Fn(&str) -> bool,
) -> bool {
    let name = subject.field("name").as_str().unwrap_or_default();
    match subject.field("kind").as_str() {
        Some("ServiceAccount") => subject
            .field("namespace")
            .as_str()
            .filter(|ns| !ns.is_empty())
            .or(namespace)
            .is_some_and(&classed),
        Some("Group") => match name {
            "system:serviceaccounts" | "system:authenticated" => true,
            _ => name
                .strip_prefix("system:serviceaccounts:")
                .is_some_and(&classed),
        },
        Some("User") => name
            .strip_prefix("system:serviceaccount:")
            .and_then(|rest| rest.split_once(':'))
            .is_some_and(|(ns, _)| classed(ns)),
        _ => false,
    }
}

/// Which objects are the operator's ([`Facts::in_scope`]).
fn scope(objects: &[&Json], facts: &Facts, referenced: &HashSet<usize>) -> Vec<bool> {
    let classed = |ns: &str| facts.classes.contains_key(ns);
    let none = facts.classes.is_empty();
    // Roles bound to the operator's accounts: (kind, namespace, name).
    let mut bound: HashSet<(&str, &str, &str)> = HashSet::new();
    let mut bindings = Vec::new();
    for (index, object) in objects.iter().enumerate() {
        let kind = object.field("kind").as_str().unwrap_or_default();
        if !matches!(kind, "RoleBinding" | "ClusterRoleBinding") {
            continue;
        }
        let namespace = (kind == "RoleBinding").then(|| namespace_of(object));
        let role_kind = object
            .field("roleRef")
            .field("kind")
            .as_str()
            .unwrap_or_default();
        let role = (
            role_kind,
            if role_kind == "Role" {
                namespace.unwrap_or_default()
            } else {
                ""
            },
            object
                .field("roleRef")
                .field("name")
                .as_str()
                .unwrap_or_default(),
        );
        let reaches = !none
            && object
                .field("subjects")
                .as_array()
                .into_iter()
                .flatten()
                .any(|s| covers_classed_account(s, namespace, classed));
        if reaches {
            bound.insert(role);
        }
        bindings.push((index, reaches, role));
    }
    let mut scope: Vec<bool> = objects
        .iter()
        .enumerate()
        .map(|(index, object)| {
            let kind = object.field("kind").as_str().unwrap_or_default();
            let name = object
                .field("metadata")
                .field("name")
                .as_str()
                .unwrap_or_default();
            let hinted = component_class(object).is_some();
            match kind {
                "Namespace" => classed(name) || hinted,
                "BuildProject" => true,
                "CustomResourceDefinition" => {
                    object.field("spec").field("group") == adr::CRD_GROUP
                        || object.field("spec").field("names").field("kind") == "BuildProject"
                }
                "ClusterRole" => {
                    hinted
                        || bound.contains(&("ClusterRole", "", name))
                        || object
                            .field("rules")
                            .as_array()
                            .into_iter()
                            .flatten()
                            .any(|r| {
                                r.field("apiGroups")
                                    .as_array()
                                    .is_some_and(|g| g.iter().any(|g| g == adr::CRD_GROUP))
                            })
                }
                "Role" => {
                    let namespace = namespace_of(object);
                    hinted || classed(namespace) || bound.contains(&("Role", namespace, name))
                }
                // Bindings are decided below, by their subjects and role.
                "RoleBinding" | "ClusterRoleBinding" => false,
                _ if manifest::is_cluster_scoped(kind) => hinted,
                _ => {
                    hinted
                        || classed(namespace_of(object))
                        || facts.by_object.contains_key(&index)
                        || referenced.contains(&index)
                }
            }
        })
        .collect();
    aggregated_into_scope(objects, &mut scope);
    let roles: HashSet<(&str, &str, &str)> = objects
        .iter()
        .enumerate()
        .filter(|(index, o)| {
            scope[*index] && matches!(o.field("kind").as_str(), Some("Role" | "ClusterRole"))
        })
        .map(|(_, o)| {
            let kind = o.field("kind").as_str().unwrap_or_default();
            let namespace = if kind == "Role" { namespace_of(o) } else { "" };
            (
                kind,
                namespace,
                o.field("metadata")
                    .field("name")
                    .as_str()
                    .unwrap_or_default(),
            )
        })
        .collect();
    for (index, reaches, role) in bindings {
        let object = objects[index];
        let placed = object.field("kind") == "RoleBinding" && classed(namespace_of(object));
        scope[index] =
            reaches || placed || roles.contains(&role) || component_class(object).is_some();
    }
    scope
}

/// A ClusterRole that an operator's aggregated ClusterRole gathers (its
/// labels match one of that role's `clusterRoleSelectors`) is the
/// operator's too: its rules are what the operator is granted. A worklist:
/// each selector is tried once against the roles not yet in scope.
fn aggregated_into_scope(objects: &[&Json], scope: &mut [bool]) {
    let cluster_roles: Vec<usize> = (0..objects.len())
        .filter(|i| objects[*i].field("kind") == "ClusterRole")
        .collect();
    let mut work: Vec<usize> = cluster_roles
        .iter()
        .copied()
        .filter(|i| scope[*i])
        .collect();
    let empty = serde_json::Map::new();
    while let Some(role) = work.pop() {
        let selectors = objects[role]
            .field("aggregationRule")
            .field("clusterRoleSelectors")
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        // An empty selector selects nothing for aggregation.
        let selectors: Vec<&Json> = selectors
            .iter()
            .filter(|s| s.as_object().is_some_and(|m| !m.is_empty()))
            .collect();
        if selectors.is_empty() {
            continue;
        }
        for &i in &cluster_roles {
            if scope[i] {
                continue;
            }
            let labels = objects[i]
                .field("metadata")
                .field("labels")
                .as_object()
                .unwrap_or(&empty);
            if selectors
                .iter()
                .any(|s| kubernetes::selector::selects_labels(s, labels))
            {
                scope[i] = true;
                work.push(i);
            }
        }
    }
}

/// What the kubelet runs of a container, where flags can be: its `command`
/// followed by its `args` (an image's entrypoint holds none the manifests
/// show). buildd's flags are read from here, wherever the container gives
/// them.
pub fn command_line(container: &Json) -> Vec<Json> {
    ["command", "args"]
        .iter()
        .filter_map(|field| container[*field].as_array())
        .flatten()
        .cloned()
        .collect()
}

/// The field of `container` that holds the last `flag` (`--flag=value` or
/// `--flag`): `command` or `args`, where a finding about it points.
pub fn flag_field(container: &Json, flag: &str) -> &'static str {
    let in_command = container
        .field("command")
        .as_array()
        .is_some_and(|command| {
            let last_in_args = container
                .field("args")
                .as_array()
                .is_some_and(|args| args.iter().any(|a| is_flag(a, flag)));
            !last_in_args && command.iter().any(|a| is_flag(a, flag))
        });
    if in_command { "command" } else { "args" }
}

fn is_flag(arg: &Json, flag: &str) -> bool {
    arg.as_str()
        .and_then(|a| after_flag(a, flag))
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
}

/// What follows `flag` (written `--name`) in `arg`, given as `--name` or,
/// as Go's flag package also reads it, `-name`.
fn after_flag<'a>(arg: &'a str, flag: &str) -> Option<&'a str> {
    arg.strip_prefix(flag).or_else(|| {
        flag.strip_prefix('-')
            .and_then(|single| arg.strip_prefix(single))
    })
}

/// The value of the last `--flag=value` or `--flag value` (or `-flag…`,
/// as Go's flag package reads it) in `args` (a
/// container's [`command_line`]).
pub fn last_flag(args: &[Json], flag: &str) -> Option<String> {
    let args: Vec<&str> = args.iter().filter_map(Json::as_str).collect();
    let mut value = None;
    for (i, arg) in args.iter().enumerate() {
        if let Some(rest) = after_flag(arg, flag) {
            if let Some(v) = rest.strip_prefix('=') {
                value = Some(v.to_owned());
            } else if rest.is_empty() {
                value = args.get(i + 1).map(|v| (*v).to_owned());
            }
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The daemons' pod template reads alike for T2's references and T3:
    /// a pod template or a PodTemplate's `template`, as Kubernetes reads
    /// YAML (a plain `yes` is refused), nothing from a non-mapping; and all
    /// values share one node budget.
    #[test]
    fn a_pod_template_is_read_in_either_shape() {
        let spec = json!({"hostPID": true});
        let mut spent = 0;
        for text in [
            "metadata: {labels: {a: b}}\nspec: {hostPID: true}\n",
            "apiVersion: v1\nkind: PodTemplate\ntemplate:\n  spec: {hostPID: true}\n",
        ] {
            let template = read_pod_template(text, &mut spent).unwrap();
            assert_eq!(template["spec"], spec, "{text}");
        }
        assert!(spent > 0);
        assert!(read_pod_template("- a\n", &mut spent).is_err());
        assert!(read_pod_template("spec: {hostPID: yes}\n", &mut spent).is_err());
        let mut spent = kubernetes::manifest::LIMITS.max_nodes;
        let error = read_pod_template("spec: {}\n", &mut spent).unwrap_err();
        assert!(error.contains("YAML nodes"), "{error}");
    }

    /// Go's flag package reads `-name` as `--name`; a longer flag sharing
    /// the prefix is another flag.
    #[test]
    fn a_flag_is_read_with_one_dash_or_two() {
        for (args, value) in [
            (json!(["-namespace=b"]), Some("b")),
            (json!(["-namespace", "b"]), Some("b")),
            (json!(["--namespace=a", "-namespace=b"]), Some("b")),
            (json!(["--namespace-prefix=x"]), None),
            (json!(["-namespace-prefix=x"]), None),
            (json!(["---namespace=x"]), None),
        ] {
            let args = args.as_array().unwrap();
            assert_eq!(last_flag(args, "--namespace").as_deref(), value, "{args:?}");
        }
    }

    #[test]
    fn leader_election_is_off_only_when_the_last_flag_says_false() {
        for (args, on) in [
            (json!([]), true),
            (json!(["--leader-elect=false"]), false),
            (json!(["-leader-elect=0"]), false),
            (json!(["--leader-elect=false", "--leader-elect"]), true),
            (json!(["--leader-elect=true", "--leader-elect=F"]), false),
            // A Go bool flag takes no separate value: `false` is an argument.
            (json!(["--leader-elect", "false"]), true),
            (json!(["--leader-election-id=false"]), true),
        ] {
            let args = args.as_array().unwrap().clone();
            assert_eq!(leader_election(&args), on, "{args:?}");
        }
    }

    #[test]
    fn buildd_images_are_told_by_their_last_segment() {
        for (image, is) in [
            ("ghcr.io/buildkit-operator/buildd:0.4.0", true),
            ("registry.example.com:5000/x/buildd@sha256:00", true),
            ("buildd", true),
            ("ghcr.io/buildkit-operator/buildd-gateway:0.4.0", false),
            ("ghcr.io/buildd/gateway:0.4.0", false),
        ] {
            assert_eq!(is_buildd_image(image), is, "{image}");
        }
    }

    #[test]
    fn both_flag_forms_are_read_and_the_last_wins() {
        let args = [json!("--namespace=a"), json!("--namespace"), json!("b")];
        assert_eq!(last_flag(&args, "--namespace").as_deref(), Some("b"));
        assert_eq!(last_flag(&args[..1], "--namespace").as_deref(), Some("a"));
        assert_eq!(last_flag(&[json!("--namespaces=x")], "--namespace"), None);
    }

    #[test]
    fn flags_are_read_from_command_and_args() {
        let container =
            json!({"command": ["/buildd", "--namespace"], "args": ["b", "--leader-elect=false"]});
        let line = command_line(&container);
        assert_eq!(last_flag(&line, "--namespace").as_deref(), Some("b"));
        assert!(!leader_election(&line));
        assert_eq!(flag_field(&container, "--namespace"), "command");
        assert_eq!(flag_field(&container, "--leader-elect"), "args");
        let container = json!({"command": ["/buildd", "--namespace=a"]});
        assert_eq!(
            last_flag(&command_line(&container), "--namespace").as_deref(),
            Some("a")
        );
        assert_eq!(flag_field(&container, "--namespace"), "command");
        assert_eq!(flag_field(&json!({}), "--namespace"), "args");
    }

    #[test]
    fn classes_come_from_the_workloads_not_the_labels() {
        let objects = [
            json!({"kind": "Namespace", "metadata": {"name": "x", "labels": {TRUST_CLASS_LABEL: "system"}}}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "c", "namespace": "x"},
                   "spec": {"template": {"spec": {"containers": [
                       {"name": "manager", "image": "r/buildd:1", "args": ["--namespace", "y"]}]}}}}),
            json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "k", "namespace": "z"},
                   "spec": {"template": {"spec": {"hostPID": true, "containers": [
                       {"name": "k", "image": "quay.io/kata-containers/kata-deploy:3"}]}}}}),
            // Another application's privileged DaemonSet is no node plumbing.
            json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "e", "namespace": "monitoring"},
                   "spec": {"template": {"spec": {"hostPID": true, "containers": [
                       {"name": "e", "image": "quay.io/prometheus/node-exporter:v1"},
                       {"name": "f", "image": "kata.example.com/proxy:1"}]}}}}),
            json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "m", "namespace": "monitoring"},
                   "spec": {"template": {"spec": {"hostPID": true, "containers": [
                       {"name": "e", "image": "quay.io/prometheus/node-exporter:v1"}]}}}}),
        ];
        let facts = Facts::of(&objects.iter().collect::<Vec<_>>());
        assert_eq!(
            facts.classes.into_iter().collect::<Vec<_>>(),
            [
                ("x".to_owned(), Class::Operator),
                ("y".to_owned(), Class::Builds),
                ("z".to_owned(), Class::System)
            ]
        );
    }

    #[test]
    fn scope_is_the_operators_objects_and_what_reaches_them() {
        let objects = [
            // 0: buildd, in op, creating daemons in b.
            json!({"kind": "Deployment", "metadata": {"name": "d", "namespace": "op"},
                   "spec": {"template": {"spec": {"serviceAccountName": "d", "containers": [
                       {"name": "buildd", "args": ["--namespace=b", "--daemon-config", "cfg"]}]}}}}),
            // 1: the daemons' config, moved into op (no labels).
            json!({"kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "op"}}),
            // 2: another application's Deployment and 3: its ClusterRole,
            // 4: bound to its own account.
            json!({"kind": "Deployment", "metadata": {"name": "x", "namespace": "shop"},
                   "spec": {"template": {"spec": {"containers": [{"name": "x"}]}}}}),
            json!({"kind": "ClusterRole", "metadata": {"name": "x"}, "rules": []}),
            json!({"kind": "ClusterRoleBinding", "metadata": {"name": "x"},
                   "roleRef": {"kind": "ClusterRole", "name": "x"},
                   "subjects": [{"kind": "ServiceAccount", "name": "x", "namespace": "shop"}]}),
            // 5: a ClusterRole given to every account, 6: so to buildd's too.
            json!({"kind": "ClusterRole", "metadata": {"name": "all"}, "rules": []}),
            json!({"kind": "ClusterRoleBinding", "metadata": {"name": "all"},
                   "roleRef": {"kind": "ClusterRole", "name": "all"},
                   "subjects": [{"kind": "Group", "name": "system:serviceaccounts"}]}),
            // 7: another application's binding of the operator's role 5.
            json!({"kind": "RoleBinding", "metadata": {"name": "y", "namespace": "shop"},
                   "roleRef": {"kind": "ClusterRole", "name": "all"},
                   "subjects": [{"kind": "ServiceAccount", "name": "x"}]}),
            // 8: another application's CRD, 9: the operator's.
            json!({"kind": "CustomResourceDefinition", "metadata": {"name": "c"},
                   "spec": {"group": "cert-manager.io", "names": {"kind": "Certificate"}}}),
            json!({"kind": "CustomResourceDefinition", "metadata": {"name": "p"},
                   "spec": {"group": adr::CRD_GROUP, "names": {"kind": "BuildProject"}}}),
            // 10: the Namespace of another application.
            json!({"kind": "Namespace", "metadata": {"name": "shop"}}),
        ];
        let facts = Facts::of(&objects.iter().collect::<Vec<_>>());
        let scoped: Vec<usize> = (0..objects.len()).filter(|i| facts.in_scope(*i)).collect();
        assert_eq!(scoped, [0, 1, 5, 6, 7, 9]);
        let misplaced = facts.misplaced(1).unwrap();
        assert_eq!(
            (misplaced.namespace.as_str(), misplaced.class),
            ("b", Class::Builds)
        );
        assert!(misplaced.by.contains("--daemon-config"), "{}", misplaced.by);
        assert_eq!(facts.misplaced(0), None);
    }

    #[test]
    fn what_an_operator_role_aggregates_is_the_operators() {
        let objects = [
            json!({"kind": "Deployment", "metadata": {"name": "d", "namespace": "op"},
                   "spec": {"template": {"spec": {"serviceAccountName": "d", "containers": [
                       {"name": "buildd", "args": ["--namespace=b"]}]}}}}),
            json!({"kind": "ClusterRole", "metadata": {"name": "agg"},
                   "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"to": "op"}}]}}),
            json!({"kind": "ClusterRoleBinding", "metadata": {"name": "agg"},
                   "roleRef": {"kind": "ClusterRole", "name": "agg"},
                   "subjects": [{"kind": "ServiceAccount", "name": "d", "namespace": "op"}]}),
            json!({"kind": "ClusterRole", "metadata": {"name": "in", "labels": {"to": "op"}}}),
            json!({"kind": "ClusterRole", "metadata": {"name": "out", "labels": {"to": "x"}}}),
        ];
        let facts = Facts::of(&objects.iter().collect::<Vec<_>>());
        assert!(facts.in_scope(1) && facts.in_scope(3));
        assert!(!facts.in_scope(4));
    }

    #[test]
    fn a_copy_where_its_user_needs_it_is_not_misplaced() {
        let objects = [
            json!({"kind": "Deployment", "metadata": {"name": "d", "namespace": "op"},
                   "spec": {"template": {"spec": {"containers": [
                       {"name": "buildd", "args": ["--namespace=b", "--daemon-tls-secret=t"]}]}}}}),
            json!({"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
                   "metadata": {"name": "other-name", "namespace": "b"}, "spec": {"secretName": "t"}}),
            json!({"kind": "Secret", "metadata": {"name": "t", "namespace": "op"}}),
        ];
        let facts = Facts::of(&objects.iter().collect::<Vec<_>>());
        assert_eq!(facts.misplaced(2), None);
        assert_eq!(facts.misplaced(1), None);
        assert!(facts.in_scope(2) && facts.in_scope(1));
    }

    #[test]
    fn subjects_that_include_an_operator_account() {
        let classed = |ns: &str| ns == "op";
        for (subject, namespace, covers) in [
            (
                json!({"kind": "ServiceAccount", "name": "a", "namespace": "op"}),
                None,
                true,
            ),
            (
                json!({"kind": "ServiceAccount", "name": "a"}),
                Some("op"),
                true,
            ),
            (
                json!({"kind": "ServiceAccount", "name": "a", "namespace": "x"}),
                Some("op"),
                false,
            ),
            (
                json!({"kind": "Group", "name": "system:serviceaccounts"}),
                None,
                true,
            ),
            (
                json!({"kind": "Group", "name": "system:authenticated"}),
                None,
                true,
            ),
            (
                json!({"kind": "Group", "name": "system:serviceaccounts:op"}),
                None,
                true,
            ),
            (
                json!({"kind": "Group", "name": "system:serviceaccounts:x"}),
                None,
                false,
            ),
            (
                json!({"kind": "User", "name": "system:serviceaccount:op:a"}),
                None,
                true,
            ),
            (json!({"kind": "User", "name": "alice"}), None, false),
        ] {
            assert_eq!(
                covers_classed_account(&subject, namespace, classed),
                covers,
                "{subject}"
            );
        }
    }

    #[test]
    fn a_pod_uses_what_it_mounts_reads_pulls_with_and_runs_as() {
        // The claim and the classes are named, and none of placement's.
        let pod = json!({
            "serviceAccountName": "sa",
            "priorityClassName": "high",
            "runtimeClassName": "kata",
            "imagePullSecrets": [{"name": "pull"}],
            "volumes": [
                {"secret": {"secretName": "s"}},
                {"configMap": {"name": "c"}},
                {"projected": {"sources": [{"secret": {"name": "ps"}}, {"configMap": {"name": "pc"}}]}},
                {"csi": {"driver": "d", "nodePublishSecretRef": {"name": "csi"}}},
                {"rbd": {"image": "i", "monitors": ["m"], "secretRef": {"name": "rbd"}}},
                {"azureFile": {"secretName": "azure", "shareName": "s"}},
                {"persistentVolumeClaim": {"claimName": "data"}},
            ],
            "initContainers": [{"envFrom": [{"secretRef": {"name": "es"}}]}],
            "containers": [{"env": [{"valueFrom": {"configMapKeyRef": {"name": "ec"}}}]}],
        });
        let mut found: Vec<(&str, String)> = pod_references(&pod)
            .map(|(kind, name, _)| (kind, name))
            .collect();
        found.sort();
        let expected: Vec<(&str, String)> = [
            ("ConfigMap", "c"),
            ("ConfigMap", "ec"),
            ("ConfigMap", "pc"),
            ("Secret", "azure"),
            ("Secret", "csi"),
            ("Secret", "es"),
            ("Secret", "ps"),
            ("Secret", "pull"),
            ("Secret", "rbd"),
            ("Secret", "s"),
            ("ServiceAccount", "sa"),
        ]
        .into_iter()
        .map(|(k, n)| (k, n.to_owned()))
        .collect();
        assert_eq!(found, expected);
        // The deprecated name, read when the current one is unset.
        let old = json!({"serviceAccount": "old"});
        assert_eq!(
            pod_references(&old).collect::<Vec<_>>(),
            vec![("ServiceAccount", "old".to_owned(), "runs as")]
        );
    }
}
