//! Re-verifying any rendered output, independently of how it was produced.
//!
//! The plan's types keep a values file or a template edit from breaking the
//! invariants; these checks read the objects themselves (a hand-edited
//! template, a patch in the GitOps repository, an older render) and report
//! every break, one rule per file of [`rules`]: the Kubernetes schema
//! (K8S), what the API server refuses (API), and the chart's rules (R1-R6
//! on effective RBAC resolved by [`kubernetes::rbac`], T1-T5 on topology
//! and pod security, judged on the operator's objects only,
//! [`Context::in_scope`]; GRANT on every role). Checks
//! read a [`Context`] and report into [`Findings`]; every finding is
//! collected before any is reported.

pub mod facts;
pub mod rules;

use kubernetes::pod_security::TARGET_MINORS;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value as Json;

use crate::plan::adr;
use facts::Facts;
use kubernetes::diagnostic::{About, Diagnostic};
use kubernetes::kube::KubeSchemas;
use kubernetes::location::Origin;
use kubernetes::location::{KeyPath, Location, Segment};
use kubernetes::manifest::Manifest;
use kubernetes::secret::{self, Hidden};
use kubernetes::text::{FINDING, clip};
use kubernetes::yaml::Node;

use rules::Invariant;

/// Everything a check run found; as JSON, `findings` and `info`, each as
/// [`Diagnostic::to_json`] writes it.
#[derive(Debug, Default, Serialize, schemars::JsonSchema)]
pub struct CheckReport {
    // Each finding is a `Diagnostic` with the invariant's `Rule` and its
    // subject, an `About` (the object, its template, the template line
    // for a render of this run); each info line one of severity `Note` about a subject
    // (`Namespace buildkit-builds`): not a finding (the exit code stays 0),
    // but never silent. (Plain comments: the field docs are the JSON
    // schema's descriptions.)
    /// The broken invariants, in object install order, then invariant.
    pub findings: Vec<Diagnostic>,
    /// What could not be verified, by subject, then message.
    pub info: Vec<Diagnostic>,
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
    /// The Kubernetes version whose default RBAC roles a binding may
    /// name (`--kube-version`).
    pub version: kubernetes::rbac::defaults::Version,
    /// The CustomResourceDefinitions given besides the input (`--crd`),
    /// as JSON: what the cluster holds already.
    pub extra_crds: Vec<Json>,
    /// The server versions (minors) Pod Security is judged at: the chosen
    /// `--kube-version`'s, or every one chartgen targets.
    pub servers: Vec<u32>,
}

impl<'a> Context<'a> {
    fn new(
        manifests: &'a [&'a Manifest],
        objects: &'a [&'a Json],
        version: kubernetes::rbac::defaults::Version,
        extra_crds: &[Manifest],
        servers: Vec<u32>,
    ) -> Self {
        Context {
            manifests,
            facts: Facts::of(objects),
            objects,
            version,
            extra_crds: extra_crds.iter().map(|m| m.json()).collect(),
            servers,
        }
    }

    /// The class of namespace `name`, if the input shows it.
    pub fn class_of(&self, name: &str) -> Option<Class> {
        self.facts.classes.get(name).copied()
    }

    /// Whether object `index` is the buildkit operator's, so that the ADR
    /// rules judge it; another application's objects get the generic rules
    /// only. The one place that decides it: [`Facts::in_scope`].
    pub fn in_scope(&self, index: usize) -> bool {
        self.facts.in_scope(index)
    }
}

/// Where the checks report: findings about the objects of one
/// [`Context`], and what could not be verified.
pub struct Findings<'c> {
    context: &'c Context<'c>,
    /// Each finding with its invariant, which orders them.
    found: Vec<(Invariant, Diagnostic)>,
    /// What was reported, (invariant, object, path, message): a finding
    /// two rules of one role give alike (a default role's rules, reported
    /// at the binding's `roleRef`) is said once.
    reported: HashSet<(Invariant, usize, String, String)>,
    /// What was not verified: subject, message; sorted, once each.
    info: BTreeSet<(String, String)>,
    /// Per object that holds something that could be a Secret: the object
    /// redacted, and what that hid (filled when a finding is reported).
    secrets: BTreeMap<usize, Option<(Json, Hidden)>>,
    /// Where findings are located in the objects' nodes: a large mapping
    /// (a finding per unknown field, per item) indexed once.
    located: kubernetes::yaml::Lookup<'c>,
}

impl<'c> Findings<'c> {
    /// An empty sink for findings about `context`'s objects.
    pub fn new(context: &'c Context<'c>) -> Self {
        Findings {
            context,
            found: Vec::new(),
            reported: HashSet::new(),
            info: BTreeSet::new(),
            secrets: BTreeMap::new(),
            located: kubernetes::yaml::Lookup::new(),
        }
    }

    /// Records what could not be verified about `subject`.
    pub fn note(&mut self, subject: impl Into<String>, message: impl Into<String>) {
        self.info.insert((subject.into(), message.into()));
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
        self.report_at_key(invariant, index, path, None, message);
    }

    /// [`Findings::report`], located at the line of `key`, a key of the
    /// mapping at `path` (an unknown field: the line a reader must change,
    /// not the mapping's first line), where it is written there and the
    /// path is shown whole.
    pub fn report_at_key(
        &mut self,
        invariant: Invariant,
        index: usize,
        path: &KeyPath,
        key: Option<&str>,
        message: impl Into<String>,
    ) {
        let whole = path;
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
        let message = clip(&message, FINDING).into_owned();
        if !self
            .reported
            .insert((invariant, index, path.to_string(), message.clone()))
        {
            return;
        }
        let manifest: &'c Manifest = self.context.manifests[index];
        let key = key.filter(|_| path == whole);
        let (origin, rendered_at) = place(manifest, path, key, &mut self.located);
        let subject = About {
            object: manifest.id.to_string(),
            template: manifest.template.clone(),
            rendered_at,
        };
        let finding = Diagnostic::finding(invariant.rule(), subject, origin, path.clone(), message);
        self.found.push((invariant, finding));
    }
}

/// Where the node at `path` of `manifest` was written: for an object this
/// run rendered, the template line that wrote it (the rendered text is no
/// file of the user's: the origin is then [`Origin::Default`]); for one
/// read from a file, its origin there.
/// With `key`, where that key of the mapping at `path` was written, if it
/// is there. Nodes are found through `located`, so that a finding per
/// entry of a large mapping costs a hash each, not a scan of the mapping.
fn place<'c>(
    manifest: &'c Manifest,
    path: &KeyPath,
    key: Option<&str>,
    located: &mut kubernetes::yaml::Lookup<'c>,
) -> (Origin, Option<Location>) {
    let node = located.nearest(manifest.node(), path);
    let written = key.and_then(|key| located.entry(node, key));
    let origin = written.map_or(&node.origin, |(k, _)| &k.origin);
    match (origin, &manifest.trace) {
        (Origin::At { line, col, .. }, Some(trace)) => (
            Origin::Default,
            trace
                .source_of(*line as usize, *col as usize)
                .map(|(template, line)| Location::line(format!("templates/{template}"), line)),
        ),
        (_, Some(_)) => (Origin::Default, None),
        (_, None) => (origin.clone(), None),
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
    /// Whether the version of [`schemas`](Self::schemas) was chosen
    /// (`--kube-version` given): Pod Security is then judged as that
    /// server judges it alone (`latest` its rules); otherwise as each
    /// server version chartgen targets judges it, since the cluster's own
    /// is not in the manifests.
    pub only_version: bool,
}

/// Runs every check on `manifests` (and the Kyverno exemptions artifacts,
/// when there are any); returns all findings, ordered by object install
/// order, then invariant, and what could not be verified.
pub fn run(manifests: &[Manifest], exemptions: &[Node], options: &Options<'_>) -> CheckReport {
    run_leaving(manifests, exemptions, options).0
}

/// The JSON copy of the objects that the checks read, handed back by
/// [`run_leaving`] and `pipeline::check_leaving` instead of freed: a
/// command that exits next leaves it to the exit rather than free it node
/// by node (5 % of a render's main thread at 1,000 projects,
/// BENCHMARKS.md).
pub struct Copies {
    _objects: Vec<Json>,
}

impl Copies {
    /// The copies `objects`, kept.
    pub fn of(objects: Vec<Json>) -> Self {
        Copies { _objects: objects }
    }
}

/// [`run`], handing back the objects' JSON copy ([`Copies`]).
pub fn run_leaving(
    manifests: &[Manifest],
    exemptions: &[Node],
    options: &Options<'_>,
) -> (CheckReport, Copies) {
    let json: Vec<Json> = manifests.iter().map(Manifest::json).collect();
    let (manifests, objects) = (
        manifests.iter().collect::<Vec<_>>(),
        json.iter().collect::<Vec<_>>(),
    );
    let report = run_borrowed(&manifests, &objects, exemptions, Some(options));
    (report, Copies::of(json))
}

/// The checks that relate objects to each other (RBAC, topology), without
/// the schema check: for a subset of objects whose schemas were checked
/// with the whole set (each object's schema does not depend on the others
/// but for custom resources, whose CRD the whole set holds too).
pub fn relations(manifests: &[Manifest], exemptions: &[Node]) -> CheckReport {
    let json: Vec<Json> = manifests.iter().map(Manifest::json).collect();
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
) -> CheckReport {
    let version = schema.map_or(kubernetes::rbac::defaults::TARGET, |options| {
        kubernetes::rbac::defaults::version(options.schemas.version())
    });
    let extra_crds = schema.map_or(&[][..], |options| options.extra_crds);
    // A chosen version's server alone, or each one chartgen targets.
    let chosen = schema
        .filter(|options| options.only_version)
        .and_then(|options| options.schemas.version().strip_prefix("1.")?.parse().ok());
    let servers = chosen.map_or_else(|| TARGET_MINORS.to_vec(), |minor| vec![minor]);
    let context = Context::new(manifests, objects, version, extra_crds, servers);
    let mut findings = Findings::new(&context);
    let exemptions = crate::artifacts::merged_exemptions(exemptions);
    // From a few hundred objects, on two cores (`rules::check`); at any
    // size once a stage before has started the worker (a render has).
    let split =
        schema.is_some() && (kubernetes::parallel(manifests.len()) || kubernetes::worker_running());
    rules::check(&context, &mut findings, exemptions.as_ref(), schema, split);
    let Findings { found, info, .. } = findings;
    let info = info
        .into_iter()
        .map(|(subject, message)| Diagnostic::note(subject, message))
        .collect();
    let mut found = found;
    // One finding or none is in order already: the objects' names, one
    // string each, are written only to order several.
    if found.len() > 1 {
        let order: BTreeMap<String, usize> = manifests
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id.to_string(), i))
            .collect();
        found.sort_by_key(|(invariant, f)| {
            let object = f.object().unwrap_or_default();
            (order.get(object).copied().unwrap_or(usize::MAX), *invariant)
        });
        found.dedup();
    }
    let findings = found.into_iter().map(|(_, finding)| finding).collect();
    CheckReport { findings, info }
}

/// Findings, then what was not verified, as text for a person, each
/// through the one text renderer ([`Diagnostic::render`], which escapes
/// what comes from the input), then the count.
pub fn render_text(findings: &[Diagnostic], info: &[Diagnostic], objects: usize) -> String {
    render_text_coloured(findings, info, objects, false)
}

/// [`render_text`], with colour where a reader looks when `colour`: each
/// finding's rule id in bold red, `info:` in bold green, the count in bold
/// red (findings) or green (`ok:`). The words are the same either way; the
/// colour codes come from [`kubernetes::terminal`]'s styles and frame only
/// chartgen's own text (a rule id, a label), never the input's.
pub fn render_text_coloured(
    findings: &[Diagnostic],
    info: &[Diagnostic],
    objects: usize,
    colour: bool,
) -> String {
    use kubernetes::terminal::{ERROR, NOTE, when};
    let (error, note) = (when(colour, ERROR), when(colour, NOTE));
    let mut out = String::new();
    for diagnostic in findings.iter().chain(info) {
        let text = diagnostic.render();
        let label = match diagnostic.severity {
            kubernetes::diagnostic::Severity::Note => Some(("info:", note)),
            kubernetes::diagnostic::Severity::Error => diagnostic.id().map(|id| (id, error)),
        };
        match label.and_then(|(label, style)| Some((label, style, text.strip_prefix(label)?))) {
            Some((label, style, rest)) => {
                let _ = write!(out, "{style}{label}{style:#}{rest}");
            }
            None => out.push_str(&text),
        }
        out.push('\n');
    }
    let objects = match objects {
        1 => "1 object".to_owned(),
        n => format!("{n} objects"),
    };
    let _ = match findings.len() {
        0 => writeln!(out, "{note}ok:{note:#} {objects}, no findings"),
        1 => writeln!(out, "{error}1 finding{error:#} in {objects}"),
        n => writeln!(out, "{error}{n} findings{error:#} in {objects}"),
    };
    out
}
