//! Rendered objects: parsed back from the templates' output, identified,
//! ordered for installation and written out canonically.
//!
//! Parsing the output back is what makes the render trustworthy: a template
//! that emits broken YAML, a document without kind or name, or two objects
//! with one identity is caught here, and the canonical writer ([`emit::block`])
//! decides the final formatting, not the template.

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::Value as Json;

use crate::emit;
use crate::error::Error;
use crate::location::{Source, saturating_u32};
use crate::yaml::{self, Limits, Node, Value};

/// Budgets for rendered output and manifests read from disk. `input::read`
/// applies the byte and node budgets to the whole input of one command (all
/// its files together), not to each file. The largest real input, a render
/// of 5,000 BuildProjects (3.7 MB), holds about 262,000 nodes (`check` of
/// the folder `render --output-dir` writes for it: about 0.13 s, 86 MB);
/// 1,200,000 is some 4.6 times that. An alias bomb just
/// under it costs `check` about 2.3 s and 480 MB, however many files it is
/// spread over (BENCHMARKS.md).
pub const LIMITS: Limits = Limits {
    max_bytes: 64 << 20,
    max_depth: 64,
    max_nodes: 1_200_000,
};

/// The YAML output of one object template.
#[derive(Debug)]
pub struct Rendered {
    /// The template's name, relative to `templates/`.
    pub template: String,
    /// What it rendered: zero or more YAML documents.
    pub text: String,
    /// Which template line wrote which part of `text`.
    pub trace: Trace,
}

/// Which template line wrote each part of a rendered text: its spans in
/// output order, each naming its template by index (a render's spans name
/// a few templates, each many times; a large render holds tens of
/// thousands of spans, 20 bytes each).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// The templates the spans name, each once.
    templates: Vec<Box<str>>,
    spans: Vec<Span>,
}

/// Output bytes `start..end`, written by line `line` of template
/// `template` (an index into [`Trace::templates`]), verbatim or not.
/// `u32`s ([`saturating_u32`]): a rendered text is read back only below
/// 64 MiB ([`LIMITS`]), and the writers stop there too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    start: u32,
    end: u32,
    line: u32,
    template: u32,
    verbatim: bool,
}

impl Trace {
    /// The index of `template` among the templates the spans name, added
    /// when new: what [`Trace::push`] takes.
    pub fn template(&mut self, template: &str) -> u32 {
        match self.templates.iter().position(|t| **t == *template) {
            Some(i) => saturating_u32(i),
            None => {
                self.templates.push(template.into());
                saturating_u32(self.templates.len() - 1)
            }
        }
    }

    /// Adds the span of output bytes `range`, written by line `line` of the
    /// template `template` ([`Trace::template`]), `verbatim` or
    /// interpolated.
    pub fn push(
        &mut self,
        range: std::ops::Range<usize>,
        template: u32,
        line: usize,
        verbatim: bool,
    ) {
        debug_assert!(
            (template as usize) < self.templates.len(),
            "a template of Trace::template"
        );
        self.spans.push(Span {
            start: saturating_u32(range.start),
            end: saturating_u32(range.end),
            line: saturating_u32(line),
            template,
            verbatim,
        });
    }

    /// Room for `more` spans.
    pub fn reserve(&mut self, more: usize) {
        self.spans.reserve(more);
    }

    /// The spans in output order: `(output byte range, template, template
    /// line, written verbatim)`.
    pub fn spans(
        &self,
    ) -> impl DoubleEndedIterator<Item = (std::ops::Range<usize>, &str, usize, bool)> {
        self.spans.iter().map(|span| {
            (
                span.start as usize..span.end as usize,
                &*self.templates[span.template as usize],
                span.line as usize,
                span.verbatim,
            )
        })
    }

    /// The template and line that wrote byte `offset` of the output.
    pub fn source_of(&self, text: &str, offset: usize) -> Option<(&str, usize)> {
        let (range, template, line, raw) = self
            .spans()
            .rev()
            .find(|(range, ..)| range.start <= offset && offset < range.end.max(range.start + 1))?;
        let line = if raw {
            line + text.get(range.start..offset)?.matches('\n').count()
        } else {
            line
        };
        Some((template, line))
    }
}

/// What identifies an object in a cluster.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectId {
    /// API group; empty for the core group.
    pub group: String,
    /// API version, such as `v1`.
    pub version: String,
    /// Kind, such as `Deployment`.
    pub kind: String,
    /// Namespace; `None` for cluster-scoped objects.
    pub namespace: Option<String>,
    /// Name.
    pub name: String,
}

impl ObjectId {
    /// The identity of an object as [`identify`] reads it from its
    /// `apiVersion`, `kind`, `metadata.namespace` (none when empty) and
    /// `metadata.name`: the group and version split at the last `/`, and
    /// no namespace for a cluster-scoped kind (the API server ignores it
    /// there, so two such objects differing only in it are one object,
    /// applied twice).
    pub fn of(api_version: &str, kind: &str, namespace: Option<&str>, name: &str) -> ObjectId {
        // The group as [`api_group`] reads it.
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        ObjectId {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
            namespace: namespace
                .filter(|namespace| !namespace.is_empty() && !is_cluster_scoped(kind))
                .map(str::to_owned),
            name: name.to_owned(),
        }
    }

    /// Whether it is a CustomResourceDefinition: of the group
    /// `apiextensions.k8s.io`, not a custom kind of that name.
    pub fn is_crd(&self) -> bool {
        self.group == CRD.0 && self.kind == CRD.1
    }
}

/// The API group of `api_version` (`apps/v1` → `apps`; `v1` → `""`, the
/// core group): the text before its last `/`, as an object's identity
/// reads it ([`identify`]). The one reading of it: an apiVersion
/// with more than one `/` is none the API server takes (the schema
/// check's finding), and every rule still reads the same group of it.
pub fn api_group(api_version: &str) -> &str {
    // A plain search of the bytes from the end (`/` is ASCII, so the cut
    // is at a character boundary): the checks ask it of every object
    // several times, a version is short, and `rsplit_once`'s searcher
    // costs more to set up than that.
    (api_version.as_bytes().iter())
        .rposition(|&b| b == b'/')
        .map_or("", |slash| &api_version[..slash])
}

/// The API group of `object`'s `apiVersion` ([`api_group`]); `""` when it
/// has none.
pub fn group_of(object: &serde_json::Value) -> &str {
    use crate::json::Field;
    api_group(object.field("apiVersion").as_str().unwrap_or_default())
}

/// The group and kind of a CustomResourceDefinition.
pub const CRD: (&str, &str) = ("apiextensions.k8s.io", "CustomResourceDefinition");

/// Whether `object` (a JSON copy) is a CustomResourceDefinition, by its
/// `apiVersion`'s group and its kind (a custom kind of that name is not).
pub fn is_crd(object: &serde_json::Value) -> bool {
    use crate::json::Field;
    // The kind first: most objects are no CRD.
    object.field("kind") == CRD.1 && group_of(object) == CRD.0
}

impl fmt::Display for ObjectId {
    /// `Kind namespace/name`, or `Kind name` for cluster-scoped objects.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(namespace) => write!(f, "{} {namespace}/{}", self.kind, self.name),
            None => write!(f, "{} {}", self.kind, self.name),
        }
    }
}

/// One object and the template that rendered it.
#[derive(Clone, Debug)]
pub struct Manifest {
    /// Its identity.
    pub id: ObjectId,
    /// The template that rendered it, relative to `templates/`, when known.
    pub template: Option<String>,
    /// The file it was read from, when it was read rather than rendered.
    pub file: Option<String>,
    /// For a rendered object: the template lines that wrote it.
    pub trace: Option<Arc<Rendering>>,
    /// The object: read through [`Manifest::node`], changed through
    /// [`Manifest::node_mut`], which forgets `kept`. Empty while the
    /// object is kept by its writer and no one has asked for its node.
    node: OnceLock<Node>,
    /// The writer that keeps the object in its own form, and the object's
    /// index there ([`Built::kept`]): what makes the node when it is first
    /// asked for, and what [`Manifest::push_block`] and [`Manifest::json`]
    /// call instead of walking it. Never out of date: only
    /// [`Manifest::node_mut`] can change the node, and it forgets this.
    kept: Option<(Arc<dyn Kept>, usize)>,
}

/// Objects a writer built as it wrote their text ([`Built`]), kept in its
/// own form, smaller than their nodes (a chart's BuildProjects share their
/// labels, annotations, namespace and apiVersion, kept once): each node is
/// made only when it is asked for, and each object is written and
/// converted without one. It answers for all three agreeing with a
/// reading of the text: [`Kept::node`] is what [`yaml::parse_manifests`]
/// gives for the object, [`Kept::push_block`] what [`emit::push_block`]
/// writes of that node, [`Kept::to_json`] what [`Node::to_json`] gives; a
/// debug build's [`collect_outputs`] checks every object.
pub trait Kept: fmt::Debug + Send + Sync {
    /// How many objects it keeps.
    fn len(&self) -> usize;

    /// Whether it keeps none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Object `index`, with the origins a reading of the text gives.
    fn node(&self, index: usize) -> Node;

    /// Appends object `index` to `out` as [`emit::push_block`] writes it.
    fn push_block(&self, index: usize, out: &mut String);

    /// Object `index` as JSON, as [`Node::to_json`] converts it.
    fn to_json(&self, index: usize) -> Json;
}

impl Manifest {
    /// The object `node` of identity `id`, neither rendered nor read from a
    /// file (set `template`, `file` and `trace` as they apply).
    pub fn new(id: ObjectId, node: Node) -> Manifest {
        Manifest {
            id,
            template: None,
            file: None,
            trace: None,
            node: OnceLock::from(node),
            kept: None,
        }
    }

    /// The object: made by its writer when it is kept ([`Kept::node`]) and
    /// this is the first time it is asked for.
    pub fn node(&self) -> &Node {
        self.node.get_or_init(|| match &self.kept {
            Some((kept, index)) => kept.node(*index),
            None => unreachable!("an object not kept by a writer has its node"),
        })
    }

    /// The object, to change: its writer is forgotten, and
    /// [`Manifest::push_block`] and [`Manifest::json`] walk the node as it
    /// is then.
    pub fn node_mut(&mut self) -> &mut Node {
        self.node();
        self.kept = None;
        self.node.get_mut().expect("made above")
    }

    /// The object, taken.
    pub fn into_node(self) -> Node {
        self.node();
        self.node.into_inner().expect("made above")
    }

    /// Appends the object to `out` as [`emit::push_block`] writes it:
    /// by its writer, when it is kept.
    pub fn push_block(&self, out: &mut String) {
        match &self.kept {
            Some((kept, index)) => kept.push_block(*index, out),
            None => emit::push_block(self.node(), out),
        }
    }

    /// The object as JSON, as [`Node::to_json`] converts it: by its
    /// writer, when it is kept.
    pub fn json(&self) -> Json {
        match &self.kept {
            Some((kept, index)) => kept.to_json(*index),
            None => self.node().to_json(),
        }
    }
}

/// A template's rendered text and the trace of which line wrote what.
#[derive(Debug)]
pub struct Rendering {
    source: Arc<Source>,
    trace: Trace,
}

impl Rendering {
    /// The template and line that wrote the node at `line`:`col` of the
    /// rendered text.
    pub fn source_of(&self, line: usize, col: usize) -> Option<(&str, usize)> {
        let text = &self.source.text;
        let start = text
            .split_inclusive('\n')
            .take(line.saturating_sub(1))
            .map(str::len)
            .sum::<usize>();
        let offset = start
            + text[start..]
                .chars()
                .take(col.saturating_sub(1))
                .map(char::len_utf8)
                .sum::<usize>();
        self.trace.source_of(text, offset)
    }

    /// Where in the template: the line that wrote the output at `origin`,
    /// for a message about the output.
    fn place(&self, origin: &crate::location::Origin) -> String {
        match origin {
            crate::location::Origin::At { line, col, .. } => match self
                .source_of(*line as usize, *col as usize)
            {
                Some((template, at)) => format!("templates/{template}:{at} (output line {line})"),
                None => format!("output line {line}"),
            },
            crate::location::Origin::Default => "the end of the output".to_owned(),
        }
    }
}

/// Helm's install order (pkg/releaseutil/kind_sorter.go); unknown kinds go
/// last, alphabetically.
const INSTALL_ORDER: &[&str] = &[
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
];

/// The position of `kind` in the install order; `usize::MAX` for a kind
/// Helm does not know (those sort last, by kind name).
pub fn install_rank(kind: &str) -> usize {
    INSTALL_ORDER
        .iter()
        .position(|k| *k == kind)
        .unwrap_or(usize::MAX)
}

/// Parses every template's output into objects, in install order: by kind,
/// then kind name (for unknown kinds), namespace and name.
pub fn collect(rendered: Vec<Rendered>) -> Result<Vec<Manifest>, Error> {
    collect_outputs(rendered.into_iter().map(Output::Text).collect())
}

/// A template's output as [`collect_outputs`] takes it.
#[derive(Debug)]
pub enum Output {
    /// Text to read back.
    Text(Rendered),
    /// Objects built as they were written.
    Built(Built),
}

/// A template's output that its writer built as objects while it wrote the
/// text: what reading [`Rendered`] back would give, without the reading,
/// each object kept in the writer's own form ([`Kept`]) until its node is
/// asked for. The writer answers for that: every node's origin is its
/// place in `source`, as [`yaml::parse_manifests`] would give it, and the
/// objects keep within [`LIMITS`] (a writer near a limit hands over text
/// instead, whose reading then says which).
#[derive(Debug)]
pub struct Built {
    /// The template's name, relative to `templates/`.
    pub template: String,
    /// The text, named as [`Built::source`] names it.
    pub source: Arc<Source>,
    /// Which template line wrote each part of the text.
    pub trace: Trace,
    /// Each object's identity, in the order written (no null documents):
    /// what [`identify`] gives for its node.
    pub ids: Vec<ObjectId>,
    /// The objects, index for index with `ids`.
    pub kept: Arc<dyn Kept>,
}

impl Built {
    /// The source of a template's output text, named as [`collect`] names
    /// the text it reads: `templates/<template>`.
    pub fn source(template: &str, text: String) -> Arc<Source> {
        Source::file(format!("templates/{template}"), text)
    }
}

/// [`collect`] of outputs some of which are already objects ([`Built`]):
/// each read back and identified, or taken as its writer keeps and
/// identifies it, in the order given; then checked for two of one
/// identity, and sorted alike. From
/// [`READ_APART_FROM`] bytes of text the reading is shared with the
/// worker ([`crate::beside`]); the result is the same.
pub fn collect_outputs(outputs: Vec<Output>) -> Result<Vec<Manifest>, Error> {
    // All read first, for the room they take, up to the first that cannot
    // be read: its error comes after those of the outputs before it, in
    // order, as it would reading one output after the other.
    let read = read_all(outputs);
    let objects = (read.iter().flatten())
        .map(|(_, _, objects)| match objects {
            Objects::Read(nodes) => nodes.len(),
            Objects::Kept(ids, _) => ids.len(),
        })
        .sum();
    let mut manifests = Vec::with_capacity(objects);
    for output in read {
        let (template, rendering, objects) = output?;
        let manifest = |id, node, kept| Manifest {
            id,
            template: Some(template.clone()),
            file: None,
            trace: Some(Arc::clone(&rendering)),
            node,
            kept,
        };
        match objects {
            Objects::Read(documents) => {
                for node in documents {
                    if matches!(node.value, Value::Null) {
                        continue;
                    }
                    let id = identify(&node).map_err(|why| Error::Rendered {
                        template: template.clone(),
                        problem: format!("an object {why} at {}", rendering.place(&node.origin)),
                    })?;
                    manifests.push(manifest(id, OnceLock::from(node), None));
                }
            }
            Objects::Kept(ids, kept) => {
                for (index, id) in ids.into_iter().enumerate() {
                    #[cfg(debug_assertions)]
                    answers_for(kept.as_ref(), index, &id);
                    manifests.push(manifest(
                        id,
                        OnceLock::new(),
                        Some((Arc::clone(&kept), index)),
                    ));
                }
            }
        }
    }
    sort(&mut manifests);
    if let Some(pair) = manifests.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(Error::Rendered {
            template: pair[1].template.clone().unwrap_or_default(),
            problem: format!(
                "{} twice (also from templates/{})",
                pair[1].id,
                pair[0].template.as_deref().unwrap_or_default()
            ),
        });
    }
    Ok(manifests)
}

/// What a debug build's [`collect_outputs`] asks of a writer for each
/// object it keeps ([`Kept`]): its node identified as the writer says, a
/// mapping whose origins are places in the text, written and converted by
/// the writer as its node is.
#[cfg(debug_assertions)]
fn answers_for(kept: &dyn Kept, index: usize, id: &ObjectId) {
    let node = kept.node(index);
    assert_eq!(
        identify(&node).as_ref(),
        Ok(id),
        "a kept object is its identity"
    );
    let mut written = String::new();
    kept.push_block(index, &mut written);
    assert_eq!(
        written,
        emit::block(&node),
        "a writer's block is what emit::block writes"
    );
    // As text: serde_json's ordered maps compare equal whatever their
    // keys' order, which the checks' walks and messages see.
    let text = |json: Json| serde_json::to_string(&json).ok();
    assert_eq!(
        text(kept.to_json(index)),
        text(node.to_json()),
        "a writer's JSON is what Node::to_json gives"
    );
}

/// A template's output as [`collect_outputs`] takes it in: its name, its
/// text and trace, and its objects.
type Collected = (String, Arc<Rendering>, Objects);

/// A template's objects: read back, or kept by their writer.
enum Objects {
    /// The documents read, nulls included.
    Read(Vec<Node>),
    /// Each object's identity, and the writer that keeps them
    /// ([`Built::kept`]).
    Kept(Vec<ObjectId>, Arc<dyn Kept>),
}

/// The outputs read back or taken as built, in order, up to the first
/// that cannot be read, whose error ends the list.
///
/// Outputs whose texts come to [`READ_APART_FROM`] bytes, none of them of
/// [`yaml::SPLIT_FROM`] (such a text is read in two parts itself), are
/// read in two runs ([`split_point`]), the second on the worker
/// ([`crate::beside`]); the second run's results are kept only when the
/// first read whole. Otherwise they are read one after the other, a text
/// of [`READ_APART_FROM`] bytes in two parts itself. A chart's templates
/// render many small texts, and by the time a render reads them back the
/// worker has mostly done its own jobs (the templates, the CRD schema's
/// preparation; a run queued behind them waits): 0.5 ms of a 4.8 ms
/// render at prod (BENCHMARKS.md).
fn read_all(outputs: Vec<Output>) -> Vec<Result<Collected, Error>> {
    let middle = split_point(&outputs).filter(|_| crate::second_core());
    let Some(middle) = middle else {
        // One after the other, each text of READ_APART_FROM split itself.
        return read_run(outputs, READ_APART_FROM);
    };
    let mut first = outputs;
    let second = first.split_off(middle);
    // Neither run splits a text: the worker is the other run's.
    let whole = usize::MAX;
    let (mut read, second) = crate::beside(|| read_run(first, whole), || read_run(second, whole));
    if read.iter().all(Result::is_ok) {
        read.extend(second);
    }
    read
}

/// Where [`read_all`] splits `outputs` into two runs: at the boundary
/// nearest half their text's bytes, when they come to [`READ_APART_FROM`]
/// bytes, none is of [`yaml::SPLIT_FROM`], and each run has text to read
/// (an output built as objects weighs nothing). `None`: read them one
/// after the other.
fn split_point(outputs: &[Output]) -> Option<usize> {
    let bytes = |output: &Output| match output {
        Output::Text(rendered) => rendered.text.len(),
        Output::Built(_) => 0,
    };
    let total: usize = outputs.iter().map(bytes).sum();
    if total < READ_APART_FROM || outputs.iter().any(|o| bytes(o) >= yaml::SPLIT_FROM) {
        return None;
    }
    // The bytes before each boundary; the one nearest half of them all.
    let before = outputs.iter().scan(0, |sum, output| {
        *sum += bytes(output);
        Some(*sum)
    });
    let (middle, first) = (1..outputs.len())
        .zip(before)
        .min_by_key(|(_, first)| (2 * first).abs_diff(total))?;
    (first > 0 && first < total).then_some(middle)
}

/// From how many bytes of text a render's outputs are read in two runs,
/// or one output's text in two parts ([`collect_outputs`]): a prod
/// render's 38 objects are some 40 KB, the Kata bundle's one text 12 KB.
pub const READ_APART_FROM: usize = 8 << 10;

/// `outputs` read back or taken as built, in order, up to the first that
/// cannot be read; a text of `split_from` bytes read in two parts
/// ([`yaml::parse_manifests_split_from`]).
fn read_run(outputs: Vec<Output>, split_from: usize) -> Vec<Result<Collected, Error>> {
    let mut read = Vec::with_capacity(outputs.len());
    for output in outputs {
        let output = match output {
            Output::Text(output) => read_back(output, split_from),
            Output::Built(built) => {
                // Index for index: a writer that says otherwise is a bug,
                // found here rather than when a node is first asked for.
                assert_eq!(
                    built.ids.len(),
                    built.kept.len(),
                    "an identity per kept object"
                );
                Ok((
                    built.template,
                    Arc::new(Rendering {
                        source: built.source,
                        trace: built.trace,
                    }),
                    Objects::Kept(built.ids, built.kept),
                ))
            }
        };
        let unreadable = output.is_err();
        read.push(output);
        if unreadable {
            break;
        }
    }
    read
}

/// A template's output read back: its name, its text and trace, and its
/// documents.
fn read_back(output: Rendered, split_from: usize) -> Result<Collected, Error> {
    let rendering = Rendering {
        source: Built::source(&output.template, output.text),
        trace: output.trace,
    };
    let documents = yaml::parse_manifests_split_from(&rendering.source, LIMITS, split_from)
        .map_err(|e| {
            let message = e
                .message
                .strip_prefix("invalid YAML: ")
                .unwrap_or(&e.message);
            Error::Rendered {
                template: output.template.clone(),
                problem: format!("invalid YAML at {}: {message}", rendering.place(&e.origin)),
            }
        })?;
    Ok((
        output.template,
        Arc::new(rendering),
        Objects::Read(documents),
    ))
}

/// Sorts objects into install order: by kind rank, kind, namespace, name.
pub fn sort(manifests: &mut Vec<Manifest>) {
    sort_in_install_order(manifests, |m| m);
}

/// Sorts `items` (stably) as [`install_order`] orders the object each
/// holds (`manifest`), each item's rank found once rather than at every
/// comparison of two kinds (a search of the list, all of it for a kind
/// Helm does not know, such as a custom resource: thousands of
/// BuildProjects merged with the chart's other objects).
pub fn sort_in_install_order<T>(items: &mut Vec<T>, manifest: impl Fn(&T) -> &Manifest) {
    let mut ranked: Vec<(usize, T)> = (items.drain(..))
        .map(|item| (install_rank(&manifest(&item).id.kind), item))
        .collect();
    ranked.sort_by(|(a_rank, a), (b_rank, b)| {
        let (a, b) = (&manifest(a).id, &manifest(b).id);
        (a_rank, &a.kind, &a.namespace, &a.name).cmp(&(b_rank, &b.kind, &b.namespace, &b.name))
    });
    items.extend(ranked.into_iter().map(|(_, item)| item));
}

/// How [`sort`] orders two objects: install rank, kind, namespace, name.
pub fn install_order(a: &Manifest, b: &Manifest) -> std::cmp::Ordering {
    // Objects of one kind share a rank: the ranks, a search of the list
    // (all of it for a kind Helm does not know), only for two kinds.
    if a.id.kind != b.id.kind {
        return (install_rank(&a.id.kind), &a.id.kind).cmp(&(install_rank(&b.id.kind), &b.id.kind));
    }
    (&a.id.namespace, &a.id.name).cmp(&(&b.id.namespace, &b.id.name))
}

/// The 1-based line an origin points at (0 for a default).
pub fn line_of(origin: &crate::location::Origin) -> usize {
    origin.line()
}

/// Reads the identity of an object; the error says what is missing.
pub fn identify(node: &Node) -> Result<ObjectId, String> {
    fn text(node: Option<&Node>) -> Option<&str> {
        match node.map(|n| &n.value) {
            Some(Value::String(s)) if !s.is_empty() => Some(s),
            _ => None,
        }
    }
    if !matches!(node.value, Value::Mapping(_)) {
        return Err(format!("that is {}, not a mapping", node.value.type_name()));
    }
    let api_version = text(node.get("apiVersion")).ok_or("without apiVersion")?;
    let kind = text(node.get("kind")).ok_or("without kind")?;
    let metadata = node.get("metadata");
    let Some(name) = text(metadata.and_then(|m| m.get("name"))) else {
        // `kubectl create` would take a `generateName` alone (the server
        // makes the name), but `kubectl apply` and every GitOps tool need
        // the name to find the object again.
        return Err(match text(metadata.and_then(|m| m.get("generateName"))) {
            Some(_) => "with metadata.generateName and no metadata.name: `kubectl apply` refuses it (\"cannot use generate name with apply\"), as it finds an object by its name; `kubectl create` would have the server generate one, a new object each run".to_owned(),
            None => "without metadata.name".to_owned(),
        });
    };
    let namespace = text(metadata.and_then(|m| m.get("namespace")));
    Ok(ObjectId::of(api_version, kind, namespace, name))
}

/// The namespace a namespaced object without `metadata.namespace` lands
/// in: `kubectl apply` (with no `-n` and no namespace in the context) and
/// the API server put it in `default`.
pub const DEFAULT_NAMESPACE: &str = "default";

/// Kinds that live outside namespaces: every built-in cluster-scoped kind
/// of the Kubernetes versions this crate targets (`kubectl api-resources
/// --namespaced=false`), cert-manager's `ClusterIssuer` and Kyverno's
/// cluster-wide policies. A
/// custom resource's scope is otherwise its CRD's, when the input holds
/// it or a command is given it (`--crd`: [`place_in_namespaces`],
/// [`ObjectScope`]); without one it is taken as namespaced.
pub fn is_cluster_scoped(kind: &str) -> bool {
    matches!(
        kind,
        "Namespace"
            | "Node"
            | "PersistentVolume"
            | "ComponentStatus"
            | "ClusterRole"
            | "ClusterRoleBinding"
            | "CustomResourceDefinition"
            | "APIService"
            | "MutatingWebhookConfiguration"
            | "ValidatingWebhookConfiguration"
            | "ValidatingAdmissionPolicy"
            | "ValidatingAdmissionPolicyBinding"
            | "MutatingAdmissionPolicy"
            | "MutatingAdmissionPolicyBinding"
            | "CertificateSigningRequest"
            | "ClusterTrustBundle"
            | "FlowSchema"
            | "PriorityLevelConfiguration"
            | "IngressClass"
            | "IPAddress"
            | "ServiceCIDR"
            | "RuntimeClass"
            | "PriorityClass"
            | "StorageClass"
            | "CSIDriver"
            | "CSINode"
            | "VolumeAttachment"
            | "VolumeAttributesClass"
            | "StorageVersion"
            | "StorageVersionMigration"
            | "DeviceClass"
            | "ResourceSlice"
            | "TokenReview"
            | "SelfSubjectReview"
            | "SelfSubjectAccessReview"
            | "SelfSubjectRulesReview"
            | "SubjectAccessReview"
            | "PodSecurityPolicy"
            | "ClusterIssuer"
            | "ClusterPolicy"
            | "ClusterCleanupPolicy"
            | "ClusterPolicyReport"
    )
}

/// Whether an object lives in a namespace, as the API server serves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectScope {
    /// In a namespace: its `metadata.namespace` is read.
    Namespaced,
    /// Outside namespaces: the API server clears its `metadata.namespace`.
    Cluster,
}

impl ObjectScope {
    /// A built-in kind's scope ([`is_cluster_scoped`]); a custom kind is
    /// taken as namespaced (its CRD decides: [`ObjectScope::of`]).
    pub fn of_kind(kind: &str) -> ObjectScope {
        match is_cluster_scoped(kind) {
            true => ObjectScope::Cluster,
            false => ObjectScope::Namespaced,
        }
    }

    /// The scope of an object placed by [`place_in_namespaces`], which
    /// leaves a namespace in the identity of a namespaced object only.
    pub fn of(id: &ObjectId) -> ObjectScope {
        match id.namespace {
            Some(_) => ObjectScope::Namespaced,
            None => ObjectScope::Cluster,
        }
    }
}

/// The custom kinds, as (group, kind), that the CustomResourceDefinitions
/// among `crds` declare `scope: Cluster`. Other objects are passed over.
pub fn cluster_scoped_custom_kinds<'m>(
    crds: impl Iterator<Item = &'m Manifest>,
) -> std::collections::HashSet<(String, String)> {
    let text = |node: Option<&Node>| match node.map(|n| &n.value) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    crds.filter(|m| m.id.is_crd())
        .filter_map(|m| {
            let spec = m.node().get("spec")?;
            (text(spec.get("scope")).as_deref() == Some("Cluster")).then_some(())?;
            let group = text(spec.get("group"))?;
            let kind = text(spec.get("names").and_then(|names| names.get("kind")))?;
            Some((group, kind))
        })
        .collect()
}

/// The one rule of where an object lives, applied to a whole input: a
/// cluster-scoped object (a built-in kind of [`is_cluster_scoped`], or a
/// custom resource whose CRD, in the input or among `crds` that the
/// cluster holds already, says `scope: Cluster`) has no namespace in its
/// identity, and its `metadata.namespace` is left as written (the API
/// server clears it); a namespaced object without `metadata.namespace` is
/// in `namespace` (the caller's: [`DEFAULT_NAMESPACE`], or the one a
/// kustomization sets), written into its node so that every reader
/// (`check`, `rbac`, `diff`'s fields) sees where it lands, and into its
/// identity. A `metadata.namespace` that is no string (nor null) is not
/// replaced: the schema refuses it, as kubectl's decoder does.
pub fn place_in_namespaces(manifests: &mut [Manifest], namespace: &str, crds: &[Manifest]) {
    let cluster_crds = cluster_scoped_custom_kinds(manifests.iter().chain(crds));
    for manifest in manifests {
        let id = &mut manifest.id;
        if is_cluster_scoped(&id.kind)
            || (!cluster_crds.is_empty()
                && cluster_crds.contains(&(id.group.clone(), id.kind.clone())))
        {
            id.namespace = None;
            continue;
        }
        if id.namespace.is_some() {
            continue;
        }
        id.namespace = Some(namespace.to_owned());
        if let Value::Mapping(entries) = &mut manifest.node_mut().value
            && let Some((_, metadata)) = entries.iter_mut().find(|(key, _)| key.name == "metadata")
            && let Value::Mapping(fields) = &mut metadata.value
        {
            // A namespace of another type stays, for the schema to refuse
            // (kubectl's decoder refuses the file): it is no namespace to
            // fill in.
            let written = fields.iter().find(|(key, _)| key.name == "namespace");
            if written
                .is_some_and(|(_, value)| !matches!(&value.value, Value::Null | Value::String(_)))
            {
                continue;
            }
            let origin = metadata.origin.clone();
            let key = yaml::Key {
                name: "namespace".to_owned(),
                origin: origin.clone(),
            };
            let value = Node::new(Value::String(namespace.to_owned()), origin);
            // An explicit empty or null namespace is replaced, not repeated.
            fields.retain(|(key, _)| key.name != "namespace");
            fields.push((key, value));
        }
    }
}

/// The objects as one multi-document YAML stream, each preceded by the
/// template that rendered it. `render` writes it in pieces instead
/// ([`write_stream`]).
pub fn to_stream<'m>(manifests: impl IntoIterator<Item = &'m Manifest>) -> String {
    let mut out = String::new();
    for manifest in manifests {
        push_object(manifest, &mut out);
    }
    out
}

/// [`to_stream`] written to `out` in pieces of 64 KiB or an object more,
/// each a whole number of objects: a stream of megabytes is never held
/// whole (BENCHMARKS.md).
pub fn write_stream<'m>(
    manifests: impl IntoIterator<Item = &'m Manifest>,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    const PIECE: usize = 64 << 10;
    // Room for a piece and about one object more, grown for a larger one.
    let mut buffer = String::with_capacity(PIECE + (PIECE >> 1));
    for manifest in manifests {
        push_object(manifest, &mut buffer);
        if buffer.len() >= PIECE {
            out.write_all(buffer.as_bytes())?;
            buffer.clear();
        }
    }
    out.write_all(buffer.as_bytes())
}

/// One object of a stream: its `---` line, the line naming its template
/// when it was rendered, and its block.
fn push_object(manifest: &Manifest, out: &mut String) {
    out.push_str("---\n");
    if let Some(template) = &manifest.template {
        out.push_str("# Source: templates/");
        out.push_str(template);
        out.push('\n');
    }
    manifest.push_block(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// One reading of an apiVersion's group, the one an object's identity
    /// makes, whatever the apiVersion: the rules that ask a group (a CRD,
    /// a built-in kind, a pod-bearing kind) agree with the identity.
    #[test]
    fn an_api_group_is_read_as_the_identity_reads_it() {
        for (api_version, group) in [
            ("apps/v1", "apps"),
            ("v1", ""),
            ("", ""),
            ("apiextensions.k8s.io/v1/x", "apiextensions.k8s.io/v1"),
            ("/v1", ""),
        ] {
            assert_eq!(api_group(api_version), group, "{api_version}");
            let object = serde_json::json!({"apiVersion": api_version, "kind": "K",
                "metadata": {"name": "n"}});
            assert_eq!(group_of(&object), group, "{api_version}");
            let node = Node::from_json(&object, &crate::location::Origin::Default);
            if let Ok(id) = identify(&node) {
                assert_eq!(id.group, group, "{api_version}");
            }
        }
        assert_eq!(group_of(&serde_json::json!({"kind": "K"})), "");
    }

    fn manifest((kind, namespace, name): (&str, Option<&str>, &str)) -> Manifest {
        let id = ObjectId {
            group: String::new(),
            version: "v1".to_owned(),
            kind: kind.to_owned(),
            namespace: namespace.map(str::to_owned),
            name: name.to_owned(),
        };
        Manifest::new(id, Node::new(Value::Null, crate::location::Origin::Default))
    }

    /// A trace names each template once and holds each span in 20 bytes;
    /// its spans read back as they were pushed.
    #[test]
    fn a_trace_holds_its_spans_small_and_reads_them_back() {
        let mut trace = Trace::default();
        let (a, b) = (trace.template("a.yaml"), trace.template("b.yaml"));
        assert_eq!(trace.template("a.yaml"), a);
        trace.push(0..4, a, 3, true);
        trace.push(4..9, b, 7, false);
        let spans: Vec<_> = trace.spans().collect();
        assert_eq!(
            spans,
            [(0..4, "a.yaml", 3, true), (4..9, "b.yaml", 7, false)]
        );
        assert_eq!(trace.source_of("ab\ncdefgh", 3), Some(("a.yaml", 4)));
        assert_eq!(trace.source_of("ab\ncdefgh", 5), Some(("b.yaml", 7)));
        assert_eq!(std::mem::size_of::<Span>(), 20);
    }

    /// Objects kept as they are given: what a writer keeps, in the
    /// simplest form.
    #[derive(Debug)]
    struct Nodes(Vec<Node>);

    impl Kept for Nodes {
        fn len(&self) -> usize {
            self.0.len()
        }

        fn node(&self, index: usize) -> Node {
            self.0[index].clone()
        }

        fn push_block(&self, index: usize, out: &mut String) {
            emit::push_block(&self.0[index], out);
        }

        fn to_json(&self, index: usize) -> Json {
            self.0[index].to_json()
        }
    }

    /// `kept`'s objects as [`collect_outputs`] takes them, from a text of
    /// their own.
    fn built_of(kept: impl Kept + 'static, nodes: &[Node]) -> Output {
        Output::Built(Built {
            template: "built.yaml".to_owned(),
            source: Built::source("built.yaml", String::new()),
            trace: Trace::default(),
            ids: nodes.iter().map(|node| identify(node).unwrap()).collect(),
            kept: Arc::new(kept),
        })
    }

    /// One document of `text`, read.
    fn read_one(text: &str) -> Node {
        yaml::parse_document(&Source::file("b.yaml", text.to_owned()), LIMITS)
            .unwrap()
            .unwrap()
    }

    /// An object its writer keeps is made, written and converted by it,
    /// until the object changes: then the stream writes the object as it
    /// is, and its JSON is the node's.
    #[test]
    fn a_changed_object_is_written_as_it_is_not_as_its_writer_wrote_it() {
        /// Makes, writes and converts every object alike, and counts the
        /// nodes it makes.
        #[derive(Debug, Default)]
        struct Fixed(std::sync::atomic::AtomicUsize);
        impl Kept for Fixed {
            fn len(&self) -> usize {
                2
            }

            fn node(&self, _: usize) -> Node {
                self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                read_one("as: made\n")
            }

            fn push_block(&self, _: usize, out: &mut String) {
                out.push_str("as: written\n");
            }

            fn to_json(&self, _: usize) -> Json {
                Json::from("as converted")
            }
        }
        let fixed = Arc::new(Fixed::default());
        let mut object = manifest(("ConfigMap", Some("a"), "x"));
        object.node = OnceLock::new();
        object.kept = Some((Arc::clone(&fixed) as Arc<dyn Kept>, 0));
        let stream = |object: &Manifest| {
            let mut out = String::new();
            object.push_block(&mut out);
            out
        };
        assert_eq!(stream(&object), "as: written\n");
        assert_eq!(to_stream([&object]), "---\nas: written\n");
        assert_eq!(object.json(), "as converted");
        // Written and converted without a node; one made when asked, once.
        let made = || fixed.0.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(made(), 0);
        assert_eq!(emit::block(object.node()), "as: made\n");
        assert_eq!(emit::block(object.node()), "as: made\n");
        assert_eq!(made(), 1);
        // A clone keeps its writer, with the node made.
        assert_eq!(stream(&object.clone()), "as: written\n");
        assert_eq!(object.clone().json(), "as converted");
        assert_eq!(emit::block(&object.clone().into_node()), "as: made\n");
        assert_eq!(made(), 1);
        let node = object.node_mut();
        *node = Node::new(Value::String("changed".into()), node.origin.clone());
        assert_eq!(stream(&object), "changed\n");
        assert_eq!(to_stream([&object]), "---\nchanged\n");
        assert_eq!(object.json(), "changed");
        // Taken before anyone asked: made then.
        let mut object = manifest(("ConfigMap", Some("a"), "y"));
        object.node = OnceLock::new();
        object.kept = Some((fixed.clone() as Arc<dyn Kept>, 1));
        assert_eq!(emit::block(&object.into_node()), "as: made\n");
        assert_eq!(made(), 2);
    }

    /// A writer that keeps another number of objects than it names is
    /// refused as it is collected, in any build.
    #[test]
    #[should_panic(expected = "an identity per kept object")]
    fn a_writer_keeping_more_objects_than_it_names_is_refused() {
        let node = read_one("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
        let output = built_of(Nodes(vec![node.clone(), node.clone()]), &[node]);
        let _ = collect_outputs(vec![output]);
    }

    /// A debug build refuses a writer whose object is not what its node
    /// says: another identity, another block, another JSON copy.
    #[cfg(debug_assertions)]
    #[test]
    fn a_writer_that_does_not_answer_for_its_objects_is_refused_in_a_debug_build() {
        /// `Nodes`, one answer changed.
        #[derive(Debug)]
        struct Wrong(Nodes, &'static str);
        impl Kept for Wrong {
            fn len(&self) -> usize {
                self.0.len()
            }

            fn node(&self, index: usize) -> Node {
                self.0.node(index)
            }

            fn push_block(&self, index: usize, out: &mut String) {
                match self.1 {
                    "block" => out.push_str("kind: Other\n"),
                    _ => self.0.push_block(index, out),
                }
            }

            fn to_json(&self, index: usize) -> Json {
                match self.1 {
                    "json" => serde_json::json!({"kind": "Other"}),
                    _ => self.0.to_json(index),
                }
            }
        }
        let node = read_one("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
        let other = read_one("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\n");
        let refusal = |wrong: &'static str, ids: &[Node]| {
            let output = built_of(Wrong(Nodes(vec![node.clone()]), wrong), ids);
            let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                collect_outputs(vec![output])
            }))
            .unwrap_err();
            panic.downcast_ref::<String>().cloned().unwrap_or_default()
        };
        let said = refusal("block", std::slice::from_ref(&node));
        assert!(
            said.contains("a writer's block is what emit::block writes"),
            "{said}"
        );
        let said = refusal("json", std::slice::from_ref(&node));
        assert!(
            said.contains("a writer's JSON is what Node::to_json gives"),
            "{said}"
        );
        let said = refusal("", std::slice::from_ref(&other));
        assert!(said.contains("a kept object is its identity"), "{said}");
        // And one that does answer for them passes.
        let output = built_of(Nodes(vec![node.clone()]), std::slice::from_ref(&node));
        assert_eq!(collect_outputs(vec![output]).unwrap()[0].node(), &node);
    }

    /// `count` outputs of some kilobytes each, alike in size, as a chart's
    /// templates render them: each output in `broken` ends in text that is
    /// not YAML, and the last repeats the first's first object.
    fn outputs(count: usize, broken: &[usize]) -> Vec<Output> {
        (0..count)
            .map(|i| {
                let mut text: String = (0..60)
                    .map(|j| {
                        format!("---\nkind: ConfigMap\napiVersion: v1\nmetadata: {{name: c{i:02}-{j:02}, namespace: ns}}\ndata: {{key: value}}\n")
                    })
                    .collect();
                if broken.contains(&i) {
                    text.push_str("---\nkind: [unclosed\n");
                }
                if i + 1 == count {
                    text.push_str("---\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: c00-00, namespace: ns}\n");
                }
                Output::Text(Rendered {
                    template: format!("t{i}.yaml"),
                    text,
                    trace: Trace::default(),
                })
            })
            .collect()
    }

    /// An output built as objects (no text to read): one ConfigMap.
    fn built(name: &str) -> Output {
        let node = read_one(&format!(
            "kind: ConfigMap\napiVersion: v1\nmetadata: {{name: {name}, namespace: ns}}\n"
        ));
        built_of(Nodes(vec![node.clone()]), &[node])
    }

    #[test]
    fn outputs_read_in_two_runs_read_as_one_after_the_other() {
        let shown = |read: Vec<Result<Collected, Error>>| -> Vec<String> {
            (read.into_iter())
                .map(|r| match r {
                    Ok((template, _, objects)) => {
                        let text = match objects {
                            Objects::Read(documents) => {
                                documents.iter().map(emit::block).collect::<String>()
                            }
                            Objects::Kept(ids, kept) => {
                                (0..ids.len()).map(|i| emit::block(&kept.node(i))).collect()
                            }
                        };
                        format!("{template} {text}")
                    }
                    Err(e) => format!("error: {e}"),
                })
                .collect()
        };
        let text = |r: Result<Vec<Manifest>, Error>| match r {
            Ok(manifests) => to_stream(&manifests),
            Err(e) => e.to_string(),
        };
        for count in [2, 3, 7] {
            // Each unreadable output alone, none, and one in each run.
            let cases = (0..count)
                .map(|b| vec![b])
                .chain([vec![], vec![0, count - 1]]);
            for broken in cases {
                let middle = split_point(&outputs(count, &broken));
                assert!(
                    middle.is_some_and(|m| 0 < m && m < count),
                    "{count} {broken:?}: two runs"
                );
                let one = shown(read_run(outputs(count, &broken), usize::MAX));
                assert_eq!(
                    shown(read_all(outputs(count, &broken))),
                    one,
                    "{count} {broken:?}"
                );
                // Up to the first unreadable output, whose error ends the list.
                assert_eq!(one.len(), broken.first().map_or(count, |b| b + 1));
                // And so the same objects, or the same first error.
                let all = text(collect_outputs(outputs(count, &broken)));
                match broken.first() {
                    Some(b) => assert!(all.contains(&format!("t{b}.yaml")), "{count} {b}"),
                    // The last output repeats the first's first object.
                    None => assert!(all.contains("twice"), "{count}"),
                }
            }
        }
        // An output built as objects weighs nothing: the runs are split by
        // text, and not at all when one of them would have none.
        let mixed = || {
            let mut mixed = outputs(2, &[]);
            mixed.insert(1, built("b"));
            mixed
        };
        assert_eq!(split_point(&mixed()), Some(1));
        assert_eq!(
            shown(read_all(mixed())),
            shown(read_run(mixed(), usize::MAX))
        );
        let mut lone = outputs(1, &[]);
        lone.push(built("b"));
        assert_eq!(split_point(&lone), None);
    }

    #[test]
    fn a_stream_written_in_pieces_is_the_stream_in_whole_objects() {
        // Some 200 KB: four pieces or so, the last one short.
        let text: String = (0..3000)
            .map(|i| {
                format!("---\nkind: ConfigMap\napiVersion: v1\nmetadata: {{name: c{i:05}, namespace: ns}}\n")
            })
            .collect();
        let rendered = Rendered {
            template: "configmaps.yaml".to_owned(),
            text,
            trace: Trace::default(),
        };
        let manifests = collect_outputs(vec![Output::Text(rendered)]).unwrap();
        /// Every `write_all` it is given, apart.
        #[derive(Default)]
        struct Pieces(Vec<Vec<u8>>);
        impl std::io::Write for Pieces {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.push(bytes.to_vec());
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut pieces = Pieces::default();
        write_stream(&manifests, &mut pieces).unwrap();
        let Pieces(pieces) = pieces;
        assert_eq!(pieces.concat(), to_stream(&manifests).into_bytes());
        assert!(pieces.len() > 2, "{} pieces", pieces.len());
        let (last, full) = pieces.split_last().unwrap();
        assert!(last.len() < 64 << 10);
        for piece in full {
            // At least 64 KiB, and no object cut: each piece ends a document.
            assert!(piece.len() >= 64 << 10 && piece.len() < (64 << 10) + 200);
            let end = String::from_utf8_lossy(&piece[piece.len() - 40..]);
            assert!(piece.ends_with(b"  namespace: ns\n"), "{end:?}");
        }
        for piece in &pieces {
            assert!(piece.starts_with(b"---\n# Source: templates/configmaps.yaml\n"));
        }
    }

    proptest! {
        #[test]
        fn install_order_is_rank_then_kind_namespace_name(
            a in (
                prop::sample::select(vec!["Namespace", "Deployment", "BuildProject", "Widget", "Role", "ConfigMap"]),
                prop::option::of(prop::sample::select(vec!["a", "b"])),
                prop::sample::select(vec!["x", "y", "z"]),
            ),
            b in (
                prop::sample::select(vec!["Namespace", "Deployment", "BuildProject", "Widget", "Role", "ConfigMap"]),
                prop::option::of(prop::sample::select(vec!["a", "b"])),
                prop::sample::select(vec!["x", "y", "z"]),
            ),
        ) {
            let key = |(kind, namespace, name): (&str, Option<&str>, &str)| {
                (install_rank(kind), kind.to_owned(), namespace.map(str::to_owned), name.to_owned())
            };
            prop_assert_eq!(install_order(&manifest(a), &manifest(b)), key(a).cmp(&key(b)));
        }

        /// The sort with each rank found once orders as the comparison
        /// does, and keeps objects that compare equal in the order given
        /// (told apart by their nodes).
        #[test]
        fn the_sort_orders_as_install_order_does(
            objects in prop::collection::vec((
                prop::sample::select(vec!["Namespace", "Deployment", "BuildProject", "Widget", "Role", "ConfigMap"]),
                prop::option::of(prop::sample::select(vec!["a", "b"])),
                prop::sample::select(vec!["x", "y"]),
            ), 0..40),
        ) {
            let numbered = || (objects.iter().enumerate()).map(|(i, o)| {
                let mut m = manifest(*o);
                *m.node_mut() = Node::new(Value::Int(i as i64), crate::location::Origin::Default);
                m
            }).collect::<Vec<_>>();
            let mut sorted = numbered();
            sort(&mut sorted);
            let mut expected = numbered();
            expected.sort_by(install_order);
            let order = |ms: &[Manifest]| ms.iter().map(|m| m.node().value.clone()).collect::<Vec<_>>();
            prop_assert_eq!(order(&sorted), order(&expected));
        }
    }
}
