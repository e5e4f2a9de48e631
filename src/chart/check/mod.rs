//! Re-verifying any rendered output, independently of how it was produced.
//!
//! The plan's types keep a values file or a template edit from breaking the
//! invariants; these checks read the objects themselves (a hand-edited
//! template, a patch in the GitOps repository, an older render) and report
//! every break: the Kubernetes schema ([`schema`]), what the API server
//! refuses ([`api`]), and the chart's rules ([`rules`]: R1-R6 on effective
//! RBAC resolved by [`rbac`], T1-T5 on topology and pod security). Checks
//! read a [`Context`] and report into [`Findings`]; every finding is
//! collected before any is reported.

pub mod api;
pub mod facts;
// Effective RBAC is generic (`kubernetes::rbac`); its old path stays.
pub use crate::kubernetes::rbac;
// Merging exemptions artifacts is generic (`input`); its old path stays.
pub use crate::input::merged_exemptions;
pub mod rules;
pub mod schema;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value as Json;

use crate::diagnostic::{KeyPath, MESSAGE, Segment, clip, printable};
use crate::kube::KubeSchemas;
use crate::manifest::{Manifest, line_of};
use crate::plan::adr;
use crate::secret::{self, Hidden};
use crate::yaml::{Node, Origin};
use facts::Facts;

/// The invariant a finding breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Invariant {
    /// The object does not match its Kubernetes schema.
    Schema,
    /// The object's kind has no schema to check it against.
    UnknownKind,
    /// A binding names a role that is not in the input.
    UnknownRole,
    /// Events only through a cluster-wide, write-only ClusterRole.
    R1,
    /// No read, update or delete on events.
    R2,
    /// Pods and leases in the operator namespace's Role.
    R3,
    /// The custom-resource ClusterRole holds only custom resources.
    R4,
    /// No wildcards.
    R5,
    /// Daemon objects and secrets only in the builds namespace.
    R6,
    /// Three distinct namespaces, none reserved.
    T1,
    /// Every object in its trust class's namespace.
    T2,
    /// Pod security by trust class.
    T3,
    /// Policy exemptions by trust class.
    T4,
    /// The control plane wired to its namespaces: POD_NAMESPACE, --namespace,
    /// the gateway's daemon namespace.
    T5,
    /// The input does not show a fact a check needs.
    MissingFact,
    /// Refused by the API server although the schema allows it: names,
    /// labels, image references, a second claim of a custom kind.
    Api,
}

impl Serialize for Invariant {
    /// As its id, the way findings print it.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

impl Invariant {
    /// The short id: `R1`, `T3`, `K8S`.
    pub fn id(self) -> &'static str {
        match self {
            Invariant::Schema => "K8S",
            Invariant::UnknownKind => "KIND",
            Invariant::UnknownRole => "ROLE",
            Invariant::R1 => "R1",
            Invariant::R2 => "R2",
            Invariant::R3 => "R3",
            Invariant::R4 => "R4",
            Invariant::R5 => "R5",
            Invariant::R6 => "R6",
            Invariant::T1 => "T1",
            Invariant::T2 => "T2",
            Invariant::T3 => "T3",
            Invariant::T4 => "T4",
            Invariant::T5 => "T5",
            Invariant::MissingFact => "FACT",
            Invariant::Api => "API",
        }
    }

    /// Where the rule is explained: its section of `docs/checks.md`.
    pub fn doc(self) -> String {
        format!("docs/checks.md#{}", self.id().to_lowercase())
    }
}

/// One broken invariant in one object.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// The invariant's id.
    pub invariant: Invariant,
    /// The object, as `Kind namespace/name`.
    pub object: String,
    /// The path within the object, such as `rules[0].verbs`; written as
    /// text (empty at the object's root), as `KeyPath` prints.
    #[serde(serialize_with = "as_text")]
    pub path: KeyPath,
    /// What is wrong, in one line.
    pub message: String,
    /// Where the object (or the offending field) was read: `file:line`.
    pub location: Option<String>,
    /// The template that rendered the object, when known.
    pub template: Option<String>,
    /// Where the rule is explained (`docs/checks.md#r1`).
    pub doc: String,
}

/// `path` as its text: the JSON of a finding is a user contract.
fn as_text<S: serde::Serializer>(path: &KeyPath, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(path)
}

/// Something `check` could not verify because the input does not show it;
/// not a finding (the exit code stays 0), but never silent.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Info {
    /// What it is about, such as `Namespace buildkit-builds`.
    pub subject: String,
    /// What was not verified, and why.
    pub message: String,
}

/// Everything a check run found.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    /// The broken invariants, in object install order.
    pub findings: Vec<Finding>,
    /// What could not be verified.
    pub info: Vec<Info>,
}

/// The trust class of a namespace, as the checks see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// The hardened control plane.
    Operator,
    /// The build daemons.
    Builds,
    /// The Kata node plumbing.
    System,
}

impl Class {
    const ALL: [Class; 3] = [Class::Operator, Class::Builds, Class::System];

    /// What ADR-0006 says of the class: name, Pod Security level,
    /// exemptions. The checks read the facts the plan's types are built
    /// from (`plan::adr`), never a copy.
    fn facts(self) -> adr::ClassFacts {
        match self {
            Class::Operator => adr::OPERATOR,
            Class::Builds => adr::BUILDS,
            Class::System => adr::SYSTEM,
        }
    }

    /// The class's name: `operator`, `builds`, `system`.
    pub fn name(self) -> &'static str {
        self.facts().name
    }

    /// The Pod Security Admission level its namespace enforces.
    pub fn pod_security(self) -> &'static str {
        self.facts().pod_security
    }

    /// The keys of the policy exemptions its namespace needs.
    pub fn exemptions(self) -> impl Iterator<Item = &'static str> {
        self.facts().exemptions.iter().map(|e| e.key())
    }

    fn parse(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// What the checks read: the objects and what they show. Read-only: the
/// checks borrow it while they report into [`Findings`].
pub struct Context<'a> {
    /// The objects.
    pub manifests: &'a [&'a Manifest],
    /// The objects as JSON, index for index (converted once per object,
    /// however many runs read it: see [`run_borrowed`]).
    pub objects: &'a [&'a Json],
    /// The operator instances and the class of each namespace.
    pub facts: Facts,
}

impl<'a> Context<'a> {
    fn new(manifests: &'a [&'a Manifest], objects: &'a [&'a Json]) -> Self {
        Context {
            manifests,
            facts: Facts::of(objects),
            objects,
        }
    }

    /// The class of namespace `name`, if the input shows it.
    pub fn class_of(&self, name: &str) -> Option<Class> {
        self.facts.classes.get(name).copied()
    }
}

/// Where the checks report: findings about the objects of one
/// [`Context`], and what could not be verified.
pub struct Findings<'c> {
    context: &'c Context<'c>,
    found: Vec<Finding>,
    info: BTreeSet<Info>,
    /// Per object that holds something that could be a Secret: the object
    /// redacted, and what that hid (filled when a finding is reported).
    secrets: BTreeMap<usize, Option<(Json, Hidden)>>,
}

impl<'c> Findings<'c> {
    /// An empty sink for findings about `context`'s objects.
    pub fn new(context: &'c Context<'c>) -> Self {
        Findings {
            context,
            found: Vec::new(),
            info: BTreeSet::new(),
            secrets: BTreeMap::new(),
        }
    }

    /// Records what could not be verified about `subject`.
    pub fn note(&mut self, subject: impl Into<String>, message: impl Into<String>) {
        self.info.insert(Info {
            subject: subject.into(),
            message: message.into(),
        });
    }

    /// Records a finding about object `index` at `path`. When the object
    /// holds something that could be a Secret, the path stops at the masked
    /// value (as `diff` shows it) and a message that quotes a hidden value
    /// (a schema error quotes the instance) is replaced; a long message is
    /// clipped.
    pub fn report(
        &mut self,
        invariant: Invariant,
        index: usize,
        path: &KeyPath,
        message: impl Into<String>,
    ) {
        let mut message = message.into();
        let object = &self.context.objects[index];
        let secrets = self.secrets.entry(index).or_insert_with(|| {
            let (masked, hidden) = secret::redact(object);
            (!hidden.is_empty()).then_some((masked, hidden))
        });
        let path = &match secrets {
            Some((masked, hidden)) => {
                if hidden.revealed_by(&message) {
                    message = hidden.masked(&message).unwrap_or_else(|| {
                        "(the message is not shown: it would quote a value that could be \
                            a Secret's)"
                            .to_owned()
                    });
                }
                visible(masked, path)
            }
            None => path.clone(),
        };
        let message = clip(&message, MESSAGE).into_owned();
        let manifest = &self.context.manifests[index];
        self.found.push(Finding {
            invariant,
            object: manifest.id.to_string(),
            path: path.clone(),
            message,
            location: location(manifest, path),
            template: manifest.template.clone(),
            doc: invariant.doc(),
        });
    }
}

/// Where the node at `path` of `manifest` was written: the template line
/// that rendered it, else the file and line it was read from.
fn location(manifest: &Manifest, path: &KeyPath) -> Option<String> {
    let origin = &manifest.node.nearest(path).origin;
    match (origin, &manifest.trace) {
        (Origin::At { line, col, .. }, Some(trace)) => trace
            .source_of(*line, *col)
            .map(|(template, line)| format!("templates/{template}:{line}")),
        (Origin::At { source, .. }, None) => Some(format!("{}:{}", source.name, line_of(origin))),
        (Origin::Default, _) => None,
    }
}

/// `path` cut where `masked` holds a token: below it, keys are the hidden
/// value's.
fn visible(masked: &Json, path: &KeyPath) -> KeyPath {
    let mut node = masked;
    let mut shown = KeyPath::root();
    for segment in &path.0 {
        if node
            .as_str()
            .is_some_and(|s| s.starts_with(secret::TOKEN_PREFIX))
        {
            break;
        }
        node = match segment {
            Segment::Key(key) => &node[key.as_str()],
            Segment::Index(index) => &node[*index],
        };
        shown.0.push(segment.clone());
    }
    shown
}

/// Options of a check run.
pub struct Options<'a> {
    /// The Kubernetes schemas to check against.
    pub schemas: &'a KubeSchemas,
    /// CustomResourceDefinitions given besides the input (`--crd`).
    pub extra_crds: &'a [Manifest],
}

/// Runs every check on `manifests` (and the Kyverno exemptions artifacts,
/// when there are any); returns all findings, ordered by object install
/// order, then invariant, and what could not be verified.
pub fn run(manifests: &[Manifest], exemptions: &[Node], options: &Options<'_>) -> Report {
    let json: Vec<Json> = manifests.iter().map(|m| m.node.to_json()).collect();
    let (manifests, objects) = (
        manifests.iter().collect::<Vec<_>>(),
        json.iter().collect::<Vec<_>>(),
    );
    run_borrowed(&manifests, &objects, exemptions, Some(options))
}

/// The checks that relate objects to each other (RBAC, topology), without
/// the schema check: for a subset of objects whose schemas were checked
/// with the whole set (each object's schema does not depend on the others
/// but for custom resources, whose CRD the whole set holds too).
pub fn relations(manifests: &[Manifest], exemptions: &[Node]) -> Report {
    let json: Vec<Json> = manifests.iter().map(|m| m.node.to_json()).collect();
    let (manifests, objects) = (
        manifests.iter().collect::<Vec<_>>(),
        json.iter().collect::<Vec<_>>(),
    );
    run_borrowed(&manifests, &objects, exemptions, None)
}

/// [`run`] (with `schema`) or [`relations`] (without) on borrowed
/// objects and their JSON, index for index: a caller that checks several
/// subsets of one set converts each object once and copies none.
pub fn run_borrowed(
    manifests: &[&Manifest],
    objects: &[&Json],
    exemptions: &[Node],
    schema: Option<&Options<'_>>,
) -> Report {
    let context = Context::new(manifests, objects);
    let mut findings = Findings::new(&context);
    if let Some(options) = schema {
        schema::check(&context, &mut findings, options);
        api::check(&context, &mut findings);
    }
    rules::rbac(&context, &mut findings);
    rules::topology(
        &context,
        &mut findings,
        merged_exemptions(exemptions).as_ref(),
    );
    let Findings { found, info, .. } = findings;
    let info = info.into_iter().collect();
    let order: BTreeMap<String, usize> = manifests
        .iter()
        .enumerate()
        .map(|(i, m)| (m.id.to_string(), i))
        .collect();
    let mut findings = found;
    findings.sort_by_key(|f| {
        (
            order.get(&f.object).copied().unwrap_or(usize::MAX),
            f.invariant,
        )
    });
    findings.dedup();
    Report { findings, info }
}

/// Findings, then what was not verified, as text for a person. Every line
/// goes through [`printable`]: names, flags and paths come from the input.
pub fn render_text(findings: &[Finding], info: &[Info], objects: usize) -> String {
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&printable(&text));
        out.push('\n');
    };
    for f in findings {
        let path = if f.path.is_root() {
            String::new()
        } else {
            format!(" {}", f.path)
        };
        line(format!(
            "{} {}{path}: {}",
            f.invariant.id(),
            f.object,
            f.message
        ));
        match (&f.location, &f.template) {
            (Some(location), Some(template)) if !location.starts_with("templates/") => {
                line(format!(
                    "  at {location} (rendered by templates/{template})"
                ));
            }
            (Some(location), _) => line(format!("  at {location}")),
            (None, _) => {}
        }
    }
    for i in info {
        line(format!("info: {}: {}", i.subject, i.message));
    }
    let objects = match objects {
        1 => "1 object".to_owned(),
        n => format!("{n} objects"),
    };
    let _ = match findings.len() {
        0 => writeln!(out, "ok: {objects}, no findings"),
        1 => writeln!(out, "1 finding in {objects}"),
        n => writeln!(out, "{n} findings in {objects}"),
    };
    out
}
