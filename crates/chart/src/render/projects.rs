//! The BuildProjects without the template engine: what the built-in
//! `templates/projects.yaml` writes, written directly, the objects kept
//! in the writer's own form ([`Kept`]) instead of read back from the text.
//!
//! A large chart is its BuildProjects (97 % of the objects at 1,000
//! projects), and through minijinja and the parse-back each cost some
//! 90,000 instructions of the main thread (BENCHMARKS.md); here the text
//! alone is written, split over two cores from 200 projects, and each
//! project keeps what it writes of its own (a `Record`, some 200
//! bytes, where its node is some 2.5 KB: the labels and annotations every
//! project carries are kept once). The same text, the same trace of
//! template lines and the same count against [`super::OUTPUT_BUDGET`] come
//! out directly; a project's node, with the origins a reading gives, is
//! made when something asks for it (a finding on the project, a caller
//! that changes it, a debug build's `collect_outputs`) by writing the
//! project again at its line, and its block and JSON copy are
//! written without one. Findings on a BuildProject still name
//! `templates/projects.yaml` and its line, and `render`'s output is byte
//! for byte the same. Only for the built-in
//! template (a `$CHARTGEN_TEMPLATES` folder and `explain` go through the
//! engine), and only within the limits: a render that would pass the output
//! budget or come near the parse-back's budgets ([`manifest::LIMITS`]) goes
//! through the engine, whose errors then say which.
//!
//! The layout below is the template's: the tests (and every debug build's
//! `manifest::collect_outputs`) hold the two to the same bytes, trace,
//! nodes, blocks, JSON and budget, so an edit of `templates/projects.yaml`
//! that this file does not follow fails them.

use std::ops::Range;
use std::sync::Arc;

use kubernetes::emit;
use kubernetes::location::{Origin, Source};
use kubernetes::manifest::{self, Built, Kept, ObjectId, Trace};
use kubernetes::yaml::{Key, Node, Value};
use serde_json::Value as Json;

use crate::model::{ResourceList, Resources};
use crate::plan::{Meta, Plan, ProjectPlan};

/// The template this writes, relative to `templates/`.
pub const TEMPLATE: &str = "projects.yaml";

/// The kind of every object it writes.
const KIND: &str = "BuildProject";

/// The lines of `templates/projects.yaml` that write each part (minijinja's
/// trace: a part written verbatim counts on from its line by the line
/// breaks before it).
mod line {
    /// `{%- for p in plan.projects %}`: the verbatim `---` and `apiVersion: `.
    pub const FOR: usize = 3;
    /// `apiVersion: {{ plan.crd.apiVersion }}`, and the verbatim `kind` line.
    pub const API_VERSION: usize = 5;
    /// `{{ h.metadata(...) }}`, and the verbatim `spec:` and `repository: `.
    pub const METADATA: usize = 7;
    /// `repository: {{ ... }}`, and the verbatim `trusted: `.
    pub const REPOSITORY: usize = 9;
    /// `trusted: {{ ... }}`.
    pub const TRUSTED: usize = 10;
    /// `{%- if p.runtimeClassName is not none %}`: the verbatim
    /// `runtimeClassName: `.
    pub const IF_RUNTIME_CLASS: usize = 11;
    /// `runtimeClassName: {{ ... }}`.
    pub const RUNTIME_CLASS: usize = 12;
    /// `{%- endif %}`: the verbatim `resources: `.
    pub const ENDIF: usize = 13;
    /// `resources: {{ p.resources }}`.
    pub const RESOURCES: usize = 14;
    /// `{%- endfor %}`: the last line break.
    pub const ENDFOR: usize = 15;
}

/// From how many BuildProjects the second half is written on a second
/// core: a thread costs about what a hundred projects do.
const SPLIT_FROM: usize = 200;

/// The BuildProjects of `plan` as `templates/projects.yaml` renders them,
/// counted against the output budget from `written`, the bytes the render
/// wrote before: the output and the new count, or `None` when the engine
/// should write them (the budget or a parse-back limit comes near).
pub fn build(plan: &Plan<'_>, written: usize) -> Option<(Built, usize)> {
    let halves = plan.projects.len() >= SPLIT_FROM && kubernetes::second_core();
    build_in(plan, written, halves)
}

/// [`build`], the second half of the projects written on the worker
/// when `halves`.
fn build_in(plan: &Plan<'_>, written: usize, halves: bool) -> Option<(Built, usize)> {
    let meta = plan.meta.get("projects")?;
    // An upper bound of what the parse-back would meet, checked before
    // anything is written: documents and nodes (the bytes as they grow).
    if plan.projects.len() > kubernetes::yaml::MAX_DOCUMENTS
        || nodes_at_most(plan.projects.len(), meta) > manifest::LIMITS.max_nodes
    {
        return None;
    }
    let shared = Shared::of(plan, meta);
    let parts = if halves {
        let (first, second) = plan.projects.split_at(plan.projects.len() / 2);
        let (first, second) = kubernetes::beside(
            // The first half's text takes the second's too.
            || Part::write(&shared, first, written, plan.projects.len()),
            || Part::write(&shared, second, 0, second.len()),
        );
        vec![first?, second?]
    } else {
        vec![Part::write(
            &shared,
            &plan.projects,
            written,
            plan.projects.len(),
        )?]
    };
    let Joined {
        mut text,
        written,
        records,
        pieces,
    } = Joined::of(parts);
    if written > super::OUTPUT_BUDGET || text.len() >= manifest::LIMITS.max_bytes {
        return None;
    }
    let start = text.len();
    text.push('\n');
    let end = (start..text.len(), line::ENDFOR, true);
    let source = Built::source(TEMPLATE, text);
    // The spans move into the trace piece by piece, each piece's spans
    // freed once moved; a part's spans were recorded from the start of its
    // own text: they move down by the bytes of the parts before it.
    let mut trace = Trace::default();
    let template = trace.template(TEMPLATE);
    trace.reserve(pieces.iter().map(|p| p.spans.len()).sum::<usize>() + 1);
    for Piece { bytes, spans } in pieces {
        for (range, line, verbatim) in spans {
            trace.push(
                range.start + bytes..range.end + bytes,
                template,
                line,
                verbatim,
            );
        }
    }
    let (range, line, verbatim) = end;
    trace.push(range, template, line, verbatim);
    let (api_version, namespace) = (&plan.crd.api_version, &plan.namespaces.builds.name);
    let ids = (records.iter())
        .map(|record| ObjectId::of(api_version, KIND, Some(namespace), name_of(record)))
        .collect();
    let built = Built {
        template: TEMPLATE.to_owned(),
        source: Arc::clone(&source),
        trace,
        ids,
        kept: Arc::new(Projects {
            shared,
            source,
            records,
        }),
    };
    Some((built, written))
}

/// Some of the projects written as if from the start of the text.
struct Part {
    out: Writer,
    records: Vec<Record>,
}

impl Part {
    /// `projects` written from the start of a text, counted against the
    /// budget from `written`, with room in the text and the records for
    /// `room` projects (the first half's take the second's); `None` once
    /// past a limit. Only the text and its spans are written: each
    /// project's node is made when it is asked for ([`Projects`]).
    fn write(
        shared: &Shared,
        projects: &[ProjectPlan<'_>],
        written: usize,
        room: usize,
    ) -> Option<Part> {
        let mut out = Writer {
            written,
            text_only: true,
            ..Writer::default()
        };
        let mut records = Vec::with_capacity(room);
        let mut resources: Option<(&Resources, Arc<Fragment>)> = None;
        for (i, project) in projects.iter().enumerate() {
            // Projects mostly share their resources (the daemons' defaults):
            // written once, copied while the next project's are the same.
            if resources
                .as_ref()
                .is_none_or(|(r, _)| **r != project.resources)
            {
                let list = resources_of(&project.resources);
                let fragment = Fragment::of(|w| w.flow(&list));
                resources = Some((&project.resources, Arc::new(fragment)));
            }
            let (_, fragment) = resources.as_ref()?;
            let record = Record {
                line: kubernetes::location::saturating_u32(out.line),
                start: kubernetes::location::saturating_u32(out.text.len()),
                name: leaf(
                    Value::String(project.project.name.as_str().to_owned()),
                    None,
                ),
                repository: leaf(Value::String(project.project.repository.clone()), None),
                trusted: project.project.trusted,
                runtime_class: project
                    .runtime_class_name
                    .map(|class| shared.runtime_class(class)),
                resources: Arc::clone(fragment),
            };
            out.project(shared, &record);
            records.push(record);
            if i == 0 {
                // The rest are about as long as the first (an eighth more:
                // a RuntimeClass line, longer names).
                // Never past the most the text may hold: a long first
                // project must not ask for gigabytes.
                let about = |first: usize, rest: usize| {
                    let all = first.saturating_mul(rest);
                    all.saturating_add(all / 8)
                };
                let text = about(out.text.len(), room.saturating_sub(1));
                out.text.reserve(text.min(manifest::LIMITS.max_bytes) + 64);
                let rest = projects.len() - 1;
                out.spans.reserve(about(out.spans.len(), rest));
            }
            if out.written > super::OUTPUT_BUDGET || out.text.len() >= manifest::LIMITS.max_bytes {
                return None;
            }
        }
        Some(Part { out, records })
    }
}

/// The parts one after the other: one text and one list of records (in
/// the first part's, which has the room), each record's line moved down
/// by the lines of the parts before it, and each part's spans kept as
/// written (they are moved into the trace).
struct Joined {
    text: String,
    written: usize,
    records: Vec<Record>,
    pieces: Vec<Piece>,
}

/// A part's spans and the bytes before it.
struct Piece {
    bytes: usize,
    spans: Vec<(Range<usize>, usize, bool)>,
}

impl Joined {
    /// `parts` in order, the first holding the text's room for all.
    fn of(parts: Vec<Part>) -> Joined {
        let mut joined = Joined {
            text: String::new(),
            written: 0,
            records: Vec::new(),
            pieces: Vec::with_capacity(parts.len()),
        };
        let mut lines = 0;
        for (i, Part { out, mut records }) in parts.into_iter().enumerate() {
            let bytes = joined.text.len();
            for record in &mut records {
                record.line = record.line.saturating_add(lines);
                record.start =
                    (record.start).saturating_add(kubernetes::location::saturating_u32(bytes));
            }
            if i == 0 {
                (joined.text, joined.records) = (out.text, records);
            } else {
                joined.text.push_str(&out.text);
                joined.records.extend(records);
            }
            joined.written = joined.written.saturating_add(out.written);
            joined.pieces.push(Piece {
                bytes,
                spans: out.spans,
            });
            lines = lines.saturating_add(kubernetes::location::saturating_u32(out.line));
        }
        joined
    }
}

/// Where a node or key starts, 1-based, and how many characters it covers:
/// `u32`s, as the text stops at [`manifest::LIMITS`]' 64 MiB (a large
/// render holds half a million of them).
#[derive(Clone, Copy)]
struct Place {
    line: u32,
    col: u32,
    width: u32,
}

impl Place {
    fn new(line: usize, col: usize, width: usize) -> Place {
        // Below 64 MiB of text each fits; `u32::MAX` is never reached.
        let small = kubernetes::location::saturating_u32;
        Place {
            line: small(line),
            col: small(col),
            width: small(width),
        }
    }
}

/// At most how many nodes `projects` BuildProjects hold as the reader
/// counts them (collections and values, not keys): 19 of their own and
/// one per label and annotation.
fn nodes_at_most(projects: usize, meta: &Meta) -> usize {
    let carried = meta.labels.len() + meta.annotations.len();
    projects.saturating_mul(20 + carried)
}

/// What every BuildProject of a render writes alike, written once.
struct Shared {
    api_version: Fragment,
    namespace: Fragment,
    labels: Fragment,
    annotations: Option<Fragment>,
    /// The RuntimeClass the first project with one names (they all name
    /// the chart's; another is written as it comes).
    runtime_class: Option<(String, Arc<Fragment>)>,
    /// `false` and `true` as the template writes them.
    booleans: [Node; 2],
    /// What every document's block shares.
    blocks: Blocks,
}

impl Shared {
    fn of(plan: &Plan<'_>, meta: &Meta) -> Self {
        let class = plan.projects.iter().find_map(|p| p.runtime_class_name);
        let boolean = |value: bool| Fragment::of(|w| w.boolean(value)).node;
        Shared {
            api_version: Fragment::of(|w| w.string(&plan.crd.api_version)),
            namespace: Fragment::of(|w| w.string(&plan.namespaces.builds.name)),
            labels: Fragment::of(|w| w.flow(&strings(&meta.labels))),
            annotations: (!meta.annotations.is_empty())
                .then(|| Fragment::of(|w| w.flow(&strings(&meta.annotations)))),
            runtime_class: class.map(|class| {
                let fragment = Fragment::of(|w| w.string(class));
                (class.to_owned(), Arc::new(fragment))
            }),
            booleans: [boolean(false), boolean(true)],
            blocks: Blocks::default(),
        }
        .with_blocks()
    }

    /// The fragment of RuntimeClass `class`: the shared one when it is the
    /// shared class.
    fn runtime_class(&self, class: &str) -> Arc<Fragment> {
        match &self.runtime_class {
            Some((shared, fragment)) if shared == class => Arc::clone(fragment),
            _ => Arc::new(Fragment::of(|w| w.string(class))),
        }
    }

    /// With the blocks' shared text, written from the shared nodes, and
    /// the shared nodes' JSON.
    fn with_blocks(mut self) -> Self {
        self.blocks.json = SharedJson {
            api_version: self.api_version.node.to_json(),
            namespace: self.namespace.node.to_json(),
            labels: self.labels.node.to_json(),
            annotations: (self.annotations.as_ref()).map(|fragment| fragment.node.to_json()),
        };
        let Blocks {
            head,
            tail,
            metadata_entries,
            ..
        } = &mut self.blocks;
        *metadata_entries = 3 + usize::from(self.annotations.is_some());
        emit::push_entry("apiVersion", &self.api_version.node, 0, head);
        emit::push_entry("kind", &leaf(Value::String(KIND.to_owned()), None), 0, head);
        head.push_str("metadata:\n  ");
        let mut entry = |key: &str, fragment: &Fragment| {
            tail.push_str("  ");
            emit::push_entry(key, &fragment.node, 2, tail);
        };
        entry("namespace", &self.namespace);
        entry("labels", &self.labels);
        if let Some(annotations) = &self.annotations {
            entry("annotations", annotations);
        }
        tail.push_str("spec:\n  ");
        self
    }
}

/// What one BuildProject writes of its own: where it starts, and what
/// [`Writer::project`] writes of it (each string as a node, to write and
/// convert without making one each time). Some 200 bytes, where its node
/// would be some 2.5 KB: the labels and annotations every project
/// carries are kept once, in [`Shared`].
struct Record {
    /// The line before its first: where its `---` line breaks.
    line: u32,
    /// The byte of the text where it starts.
    start: u32,
    /// `metadata.name`.
    name: Node,
    /// `spec.repository`.
    repository: Node,
    /// `spec.trusted`.
    trusted: bool,
    /// `spec.runtimeClassName`, when it runs with one.
    runtime_class: Option<Arc<Fragment>>,
    /// `spec.resources`, shared with the projects around it that have the
    /// same.
    resources: Arc<Fragment>,
}

/// The name of `record`'s project.
fn name_of(record: &Record) -> &str {
    text_of(&record.name)
}

/// The BuildProjects as the writer keeps them ([`Kept`]): what they share,
/// once, and what each writes of its own. A project's node is made by
/// writing it again, its text aside, at its line of the text; it is
/// written as `emit::block` writes that node, and converted as
/// `Node::to_json` does, from what it shares and its own parts. The tests,
/// and every debug build's `collect_outputs`, hold each node to a reading
/// of the text, and each block and JSON copy to the node's.
struct Projects {
    shared: Shared,
    source: Arc<Source>,
    records: Vec<Record>,
}

/// Short: a `Manifest`'s debug print shows its writer.
impl std::fmt::Debug for Projects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} BuildProjects kept by their writer",
            self.records.len()
        )
    }
}

/// What every BuildProject's block and JSON copy share: the layout of
/// [`emit::push_entry`], with the entries that are the same in every
/// document written once.
#[derive(Default)]
struct Blocks {
    /// `apiVersion`, `kind` and the `metadata` key, to the name's key.
    head: String,
    /// `metadata`'s entries after the name, and the `spec` key, to the
    /// repository's key.
    tail: String,
    /// How many entries `metadata` has: the name and the tail's.
    metadata_entries: usize,
    /// What every document's JSON copy shares.
    json: SharedJson,
}

/// The JSON of what every BuildProject shares, cloned into each one's copy
/// ([`Projects::to_json`]): a clone copies an object's table of keys,
/// where a conversion hashes each key again.
#[derive(Default)]
struct SharedJson {
    api_version: Json,
    namespace: Json,
    labels: Json,
    annotations: Option<Json>,
}

impl Projects {
    /// `spec`'s entries of `record`, in the template's order.
    fn spec<'r>(&'r self, record: &'r Record) -> impl Iterator<Item = (&'static str, &'r Node)> {
        [
            Some(("repository", &record.repository)),
            Some((
                "trusted",
                &self.shared.booleans[usize::from(record.trusted)],
            )),
            (record.runtime_class.as_ref()).map(|class| ("runtimeClassName", &class.node)),
            Some(("resources", &record.resources.node)),
        ]
        .into_iter()
        .flatten()
    }
}

impl Kept for Projects {
    fn len(&self) -> usize {
        self.records.len()
    }

    /// Project `index` written again at its line, its text set aside, and
    /// each node given its place there.
    fn node(&self, index: usize) -> Node {
        let record = &self.records[index];
        let mut out = Writer {
            line: record.line as usize,
            ..Writer::default()
        };
        let mut node = out.project(&self.shared, record);
        let start = record.start as usize;
        debug_assert_eq!(
            self.source.text.get(start..start + out.text.len()),
            Some(out.text.as_str()),
            "a project is written again as it was"
        );
        let mut places = Places {
            places: out.places.iter(),
            source: &self.source,
        };
        places.locate(&mut node);
        node
    }

    /// The shared text copied, the name and `spec`'s entries written.
    fn push_block(&self, index: usize, out: &mut String) {
        let record = &self.records[index];
        let blocks = &self.shared.blocks;
        out.push_str(&blocks.head);
        emit::push_entry("name", &record.name, 2, out);
        out.push_str(&blocks.tail);
        for (i, (key, value)) in self.spec(record).enumerate() {
            if i > 0 {
                out.push_str("  ");
            }
            emit::push_entry(key, value, 2, out);
        }
    }

    /// The shared parts cloned, the name and `spec` converted.
    fn to_json(&self, index: usize) -> Json {
        let record = &self.records[index];
        let blocks = &self.shared.blocks;
        let shared = &blocks.json;
        let mut metadata = serde_json::Map::with_capacity(blocks.metadata_entries);
        metadata.insert("name".to_owned(), record.name.to_json());
        metadata.insert("namespace".to_owned(), shared.namespace.clone());
        metadata.insert("labels".to_owned(), shared.labels.clone());
        if let Some(annotations) = &shared.annotations {
            metadata.insert("annotations".to_owned(), annotations.clone());
        }
        let spec = (self.spec(record))
            .map(|(key, value)| (key.to_owned(), value.to_json()))
            .collect();
        let mut object = serde_json::Map::with_capacity(4);
        object.insert("apiVersion".to_owned(), shared.api_version.clone());
        object.insert("kind".to_owned(), Json::String(KIND.to_owned()));
        object.insert("metadata".to_owned(), Json::Object(metadata));
        object.insert("spec".to_owned(), Json::Object(spec));
        Json::Object(object)
    }
}

/// A one-line interpolation written once: its text, its characters, its
/// nodes' places as (column from its start, width), and its node.
struct Fragment {
    text: String,
    chars: usize,
    places: Vec<(usize, usize)>,
    node: Node,
}

impl Fragment {
    fn of(write: impl FnOnce(&mut Writer) -> Node) -> Self {
        let mut w = Writer::default();
        let node = write(&mut w);
        debug_assert_eq!(w.line, 0, "an interpolation is one line");
        Fragment {
            text: w.text,
            chars: w.col,
            places: (w.places.into_iter())
                .map(|p| (p.col as usize - 1, p.width as usize))
                .collect(),
            node,
        }
    }
}

/// The text as it is written, with what the trace and the nodes need.
#[derive(Default)]
struct Writer {
    text: String,
    /// The line being written, counted from 0.
    line: usize,
    /// Characters written on it so far.
    col: usize,
    /// `(output bytes, template line, written verbatim)`.
    spans: Vec<(Range<usize>, usize, bool)>,
    /// Each node's and key's `(line, column, width)`, 1-based, in the order
    /// [`Places::locate`] hands them out.
    places: Vec<Place>,
    /// The count against the output budget.
    written: usize,
    /// Whether only the text, its spans and the count are written: no
    /// node, no place (a render's pass; the nodes are made when asked).
    text_only: bool,
}

/// A flow value the template interpolates: a string or a mapping of them.
enum Flow<'a> {
    Str(&'a str),
    Map(Vec<(&'a str, Flow<'a>)>),
}

impl Writer {
    /// One BuildProject's document, as one iteration of the template's loop
    /// writes it: its node, or a null one when `text_only`.
    fn project(&mut self, shared: &Shared, project: &Record) -> Node {
        let start = self.text.len();
        self.line_break();
        self.push("---");
        self.line_break();
        self.place(1);
        let api_version_key = self.key("apiVersion");
        self.push(": ");
        self.span(start, line::FOR, true);
        let api_version = self.interpolate(line::API_VERSION, &shared.api_version);
        let start = self.text.len();
        self.line_break();
        let kind_key = self.key("kind");
        self.push(": ");
        let kind = self.plain_string(KIND);
        self.line_break();
        self.span(start, line::API_VERSION, true);
        let (metadata_key, metadata) = self.metadata(shared, project);
        let start = self.text.len();
        self.line_break();
        let spec_key = self.key("spec");
        self.push(":");
        self.line_break();
        self.push("  ");
        self.place(1);
        let repository_key = self.key("repository");
        self.push(": ");
        self.span(start, line::METADATA, true);
        let start = self.text.len();
        let repository = self.string(text_of(&project.repository));
        self.written += self.text.len() - start;
        self.span(start, line::REPOSITORY, false);
        let trusted_key = self.verbatim_key("trusted", line::REPOSITORY);
        let start = self.text.len();
        let trusted = self.boolean(project.trusted);
        self.written += self.text.len() - start;
        self.span(start, line::TRUSTED, false);
        let mut entries = self.entries(4);
        self.entry(&mut entries, repository_key, repository);
        self.entry(&mut entries, trusted_key, trusted);
        if let Some(class) = &project.runtime_class {
            let key = self.verbatim_key("runtimeClassName", line::IF_RUNTIME_CLASS);
            let value = self.interpolate(line::RUNTIME_CLASS, class);
            self.entry(&mut entries, key, value);
        }
        let resources_key = self.verbatim_key("resources", line::ENDIF);
        let resources = self.interpolate(line::RESOURCES, &project.resources);
        self.entry(&mut entries, resources_key, resources);
        if self.text_only {
            return NULL;
        }
        mapping(vec![
            (api_version_key, api_version),
            (kind_key, kind),
            (metadata_key, metadata),
            (spec_key, mapping(entries)),
        ])
    }

    /// The `metadata` key and block, as the `metadata` macro of
    /// `_helpers.yaml` writes it: one interpolation of the template, whose
    /// own interpolations count against the budget too.
    fn metadata(&mut self, shared: &Shared, project: &Record) -> (Key, Node) {
        let start = self.text.len();
        let key = self.key("metadata");
        self.push(":");
        self.line_break();
        self.push("  ");
        self.place(1);
        let mut entries = self.entries(4);
        let name_key = self.key("name");
        self.push(": ");
        let name_start = self.text.len();
        let name = self.string(name_of(project));
        self.written += self.text.len() - name_start;
        self.entry(&mut entries, name_key, name);
        let mut entry = |w: &mut Self, name: &str, value: &Fragment| {
            w.line_break();
            w.push("  ");
            let key = w.key(name);
            w.push(": ");
            w.written += value.text.len();
            let node = w.fragment(value);
            w.entry(&mut entries, key, node);
        };
        entry(self, "namespace", &shared.namespace);
        entry(self, "labels", &shared.labels);
        if let Some(annotations) = &shared.annotations {
            entry(self, "annotations", annotations);
        }
        // The macro's output is written as one interpolation, counted again.
        self.written += self.text.len() - start;
        self.span(start, line::METADATA, false);
        let node = match self.text_only {
            true => NULL,
            false => mapping(entries),
        };
        (key, node)
    }

    /// Room for a mapping's `n` entries; none when `text_only`.
    fn entries(&self, n: usize) -> Vec<(Key, Node)> {
        match self.text_only {
            true => Vec::new(),
            false => Vec::with_capacity(n),
        }
    }

    /// An entry of a mapping; left out when `text_only`.
    fn entry(&self, entries: &mut Vec<(Key, Node)>, key: Key, value: Node) {
        if !self.text_only {
            entries.push((key, value));
        }
    }

    /// A key written verbatim after a line break, at the indentation of
    /// `spec`'s entries: `\n  <name>: `, traced to `line`.
    fn verbatim_key(&mut self, name: &str, line: usize) -> Key {
        let start = self.text.len();
        self.line_break();
        self.push("  ");
        let key = self.key(name);
        self.push(": ");
        self.span(start, line, true);
        key
    }

    /// An interpolation at template `line` of a fragment, traced and
    /// counted.
    fn interpolate(&mut self, line: usize, value: &Fragment) -> Node {
        let start = self.text.len();
        let node = self.fragment(value);
        self.written += value.text.len();
        self.span(start, line, false);
        node
    }

    /// Appends a fragment: its text, its places from here, its node.
    fn fragment(&mut self, fragment: &Fragment) -> Node {
        self.text.push_str(&fragment.text);
        if self.text_only {
            self.col += fragment.chars;
            return NULL;
        }
        let (line, col) = (self.line + 1, self.col + 1);
        (self.places).extend(
            (fragment.places.iter()).map(|(from, width)| Place::new(line, col + from, *width)),
        );
        self.col += fragment.chars;
        fragment.node.clone()
    }

    fn span(&mut self, start: usize, line: usize, verbatim: bool) {
        self.spans.push((start..self.text.len(), line, verbatim));
    }

    /// Appends text of one line.
    fn push(&mut self, text: &str) {
        debug_assert!(!text.contains('\n'));
        self.text.push_str(text);
        self.col += chars(text);
    }

    /// Starts a new line.
    fn line_break(&mut self) {
        self.text.push('\n');
        self.line += 1;
        self.col = 0;
    }

    /// Records the place of a node starting here, `width` characters wide
    /// (unless `text_only`).
    fn place(&mut self, width: usize) {
        if !self.text_only {
            (self.places).push(Place::new(self.line + 1, self.col + 1, width));
        }
    }

    /// `make`'s node; a null one when `text_only`.
    fn node(&self, make: impl FnOnce() -> Node) -> Node {
        match self.text_only {
            true => NULL,
            false => make(),
        }
    }

    /// A plain block key.
    fn key(&mut self, name: &str) -> Key {
        self.place(chars(name));
        self.push(name);
        Key {
            name: match self.text_only {
                true => String::new(),
                false => name.to_owned(),
            },
            origin: Origin::Default,
        }
    }

    /// A string as an interpolation writes it (double-quoted).
    fn string(&mut self, text: &str) -> Node {
        let start = self.text.len();
        emit::push_flow_string(text, &mut self.text);
        let width = chars(&self.text[start..]);
        self.place(width);
        self.col += width;
        self.node(|| leaf(Value::String(text.to_owned()), None))
    }

    /// A plain string written verbatim (one that reads back as a string).
    fn plain_string(&mut self, text: &str) -> Node {
        self.place(chars(text));
        self.push(text);
        self.node(|| leaf(Value::String(text.to_owned()), None))
    }

    /// A boolean as an interpolation writes it.
    fn boolean(&mut self, value: bool) -> Node {
        let text = if value { "true" } else { "false" };
        self.place(text.len());
        self.push(text);
        self.node(|| leaf(Value::Bool(value), Some(text)))
    }

    /// A flow value as an interpolation writes it ([`emit::flow`]).
    fn flow(&mut self, value: &Flow<'_>) -> Node {
        match value {
            Flow::Str(text) => self.string(text),
            Flow::Map(entries) => {
                self.place(1);
                self.push("{");
                let mut built = Vec::with_capacity(entries.len());
                for (i, (name, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.push(", ");
                    }
                    // The key's place is the string's.
                    self.string(name);
                    let key = Key {
                        name: (*name).to_owned(),
                        origin: Origin::Default,
                    };
                    self.push(": ");
                    built.push((key, self.flow(value)));
                }
                self.push("}");
                mapping(built)
            }
        }
    }
}

/// A null node: what a `text_only` writer gives for every node.
const NULL: Node = Node {
    value: Value::Null,
    origin: Origin::Default,
    plain: None,
};

/// The text of a string node.
fn text_of(node: &Node) -> &str {
    match &node.value {
        Value::String(text) => text,
        _ => unreachable!("a string node"),
    }
}

/// A node without its place yet ([`Places::locate`] gives it).
fn leaf(value: Value, plain: Option<&str>) -> Node {
    Node {
        value,
        origin: Origin::Default,
        plain: plain.map(|text| Box::new(text.to_owned())),
    }
}

/// A mapping node, whose place was recorded before its entries'.
fn mapping(entries: Vec<(Key, Node)>) -> Node {
    leaf(Value::Mapping(entries), None)
}

/// A project's places as [`Places::locate`] hands them out, each with the
/// one source.
struct Places<'p> {
    places: std::slice::Iter<'p, Place>,
    source: &'p Arc<Source>,
}

impl Places<'_> {
    /// Gives `node` and everything under it its place, in the order the
    /// writer recorded them: a node, then each key and the value under it.
    fn locate(&mut self, node: &mut Node) {
        node.origin = self.next();
        if let Value::Mapping(entries) = &mut node.value {
            for (key, value) in entries {
                key.origin = self.next();
                self.locate(value);
            }
        }
    }

    fn next(&mut self) -> Origin {
        let place = self.places.next().expect("a place for every node");
        Origin::At {
            source: Arc::clone(self.source),
            line: place.line,
            col: place.col,
            width: place.width,
        }
    }
}

/// A map of strings as a flow mapping.
fn strings(map: &std::collections::BTreeMap<String, String>) -> Flow<'_> {
    Flow::Map(
        map.iter()
            .map(|(k, v)| (k.as_str(), Flow::Str(v.as_str())))
            .collect(),
    )
}

/// A project's resources as the template value holds them: `requests`, then
/// `limits`, each left out when empty, each amount when set.
fn resources_of(resources: &Resources) -> Flow<'_> {
    Flow::Map(
        [
            ("requests", &resources.requests),
            ("limits", &resources.limits),
        ]
        .into_iter()
        .filter(|(_, list)| !list.is_empty())
        .map(|(name, list)| (name, Flow::Map(amounts(list))))
        .collect(),
    )
}

/// The amounts set in `list`: `cpu`, then `memory`.
fn amounts(list: &ResourceList) -> Vec<(&'static str, Flow<'_>)> {
    [("cpu", &list.cpu), ("memory", &list.memory)]
        .into_iter()
        .filter_map(|(name, amount)| Some((name, Flow::Str(amount.as_ref()?.as_str()))))
        .collect()
}

/// Characters in `text` (its bytes when ASCII).
fn chars(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    }
}

#[cfg(test)]
mod tests {

    use kubernetes::manifest::{Manifest, Output, Rendered};
    use proptest::prelude::*;

    use super::*;
    use crate::model::{Project, Values};
    use crate::render::{WRITTEN, plan_value, render_traced, templates};

    fn label(text: &str) -> crate::model::types::DnsLabel {
        serde_json::from_value(serde_json::json!(text)).unwrap()
    }

    fn quantity(text: &str) -> crate::model::types::WrittenQuantity {
        serde_json::from_value(serde_json::json!(text)).unwrap()
    }

    /// The BuildProjects through the engine and directly: the text, the
    /// trace, the objects (their nodes and every origin), and the count
    /// against the budget, from `written` bytes before.
    fn both_ways(values: &Values, written: usize) {
        let plan = Plan::new(values);
        let templates = templates().unwrap();
        WRITTEN.set(written);
        let engine = render_traced(&templates.env, TEMPLATE, &plan_value(&plan));
        let engine_written = WRITTEN.get();
        let direct = build_in(&plan, written, false);
        let halves = build_in(&plan, written, true);
        match (&direct, &halves) {
            (Some((one, one_written)), Some((two, two_written))) => {
                assert_eq!(one.source, two.source);
                assert_eq!(one.trace, two.trace);
                assert_eq!(one.ids, two.ids);
                assert_eq!(nodes(one), nodes(two));
                assert_eq!(one_written, two_written);
            }
            (one, two) => assert_eq!(one.is_some(), two.is_some(), "one thread or two"),
        }
        let Ok((text, trace)) = engine else {
            assert!(
                direct.is_none(),
                "the engine failed where the writer did not"
            );
            return;
        };
        let (built, direct_written) = direct.expect("the writer writes what the engine wrote");
        assert_eq!(built.source.text, text);
        assert!(built.trace.spans().eq(trace.spans()), "the same spans");
        assert_eq!(direct_written, engine_written);
        // Each project is identified, written and converted by the writer
        // as its node is, the node made again of the project's own parts.
        for (index, document) in nodes(&built).iter().enumerate() {
            assert_eq!(manifest::identify(document).as_ref(), Ok(&built.ids[index]));
            let mut written = String::new();
            built.kept.push_block(index, &mut written);
            assert_eq!(written, emit::block(document));
            // Keys in order (compared as text: ordered maps compare equal
            // in any order).
            let text = |json: Json| json.to_string();
            assert_eq!(text(built.kept.to_json(index)), text(document.to_json()));
        }
        let read = manifest::collect(vec![Rendered {
            template: TEMPLATE.to_owned(),
            text,
            trace,
        }]);
        let built = manifest::collect_outputs(vec![Output::Built(built)]);
        if let (Ok(read), Ok(built)) = (&read, &built) {
            assert_eq!(manifest::to_stream(built), manifest::to_stream(read));
            let json =
                |ms: &[Manifest]| ms.iter().map(|m| m.json().to_string()).collect::<Vec<_>>();
            assert_eq!(json(built), json(read));
        }
        let shown = |m: Result<Vec<Manifest>, kubernetes::error::Error>| match m {
            Ok(manifests) => Ok(manifests
                .into_iter()
                .map(|m| (m.id.clone(), m.template.clone(), m.into_node()))
                .collect::<Vec<_>>()),
            Err(e) => Err(e.to_string()),
        };
        assert_eq!(shown(built), shown(read));
    }

    /// Every project's node, made by the writer.
    fn nodes(built: &Built) -> Vec<Node> {
        (0..built.ids.len()).map(|i| built.kept.node(i)).collect()
    }

    fn project(name: &str, repository: &str, trusted: bool) -> Project {
        Project {
            name: label(name),
            repository: repository.to_owned(),
            trusted,
            resources: Default::default(),
        }
    }

    #[test]
    fn the_writer_writes_what_the_template_writes() {
        // No project, one, and the defaults' shapes.
        let mut values = Values::default();
        both_ways(&values, 0);
        values.projects = vec![project("app", "https://git.example.com/app.git", true)];
        both_ways(&values, 0);
        // Kata: untrusted projects get the RuntimeClass; annotations; no
        // common annotation at all.
        values.kata.enabled = true;
        values
            .projects
            .push(project("fork", "https://git.example.com/fork.git", false));
        values.common_annotations.insert("a/b".into(), "x y".into());
        both_ways(&values, 17);
        values.common_annotations.clear();
        both_ways(&values, 0);
        // A project's own resources, and none at all.
        values.projects[0].resources.requests.cpu = Some(quantity("250m"));
        values.projects[1].resources.limits.memory = Some(quantity("8Gi"));
        values.builds.daemon_resources = Default::default();
        both_ways(&values, 0);
        values.projects[0].resources = Default::default();
        both_ways(&values, 0);
    }

    #[test]
    fn hostile_text_is_written_and_read_alike() {
        let mut values = Values::default();
        values.kata.enabled = true;
        let odd = [
            "",
            "quote \" backslash \\ tab \t line\n break \r",
            "U+0085 \u{85} U+2028 \u{2028} U+2029 \u{2029} bidi \u{202e} zero-width \u{200b}",
            "non-BMP \u{1fffe} 🦀 é ü 中文",
            "--- \n...\n# comment: {a: [b]} &anchor *alias !tag %YAML",
            "\u{feff}BOM and NUL \u{0} and DEL \u{7f}",
            // Written as literal blocks, indented by where they stand.
            "two\nlines",
            "lines\nending in a break\n",
        ];
        for (i, text) in odd.iter().enumerate() {
            values
                .common_labels
                .insert(format!("k{i}{text}"), (*text).to_owned());
            values
                .common_annotations
                .insert((*text).to_owned(), format!("{text}{i}"));
            values
                .projects
                .push(project(&format!("p{i}"), text, i % 2 == 0));
        }
        both_ways(&values, 0);
        // The bound the writer checks against the parse-back's node budget.
        let plan = Plan::new(&values);
        let (built, _) = build(&plan, 0).unwrap();
        // Collections and values, as the reader counts them.
        fn count(node: &Node) -> usize {
            1 + match &node.value {
                Value::Mapping(entries) => entries.iter().map(|(_, v)| count(v)).sum(),
                _ => 0,
            }
        }
        let counted: usize = nodes(&built).iter().map(count).sum();
        let bound = nodes_at_most(values.projects.len(), &plan.meta["projects"]);
        assert!(counted <= bound && bound < counted * 2, "{counted} {bound}");
    }

    #[test]
    fn near_the_output_budget_the_engine_writes_and_says_so() {
        let mut values = Values {
            projects: vec![project("app", "https://git.example.com/app.git", true)],
            ..Values::default()
        };
        let plan = Plan::new(&values);
        let (_, written) = build(&plan, 0).unwrap();
        // Exactly at the budget: written; a byte more: the engine's turn.
        assert!(build(&plan, crate::render::OUTPUT_BUDGET - written).is_some());
        assert!(build(&plan, crate::render::OUTPUT_BUDGET - written + 1).is_none());
        both_ways(&values, crate::render::OUTPUT_BUDGET - written + 1);
        // Through `render_bundle`, the engine's error, which `render` words
        // as the budget's.
        let templates = templates().unwrap();
        let names = [TEMPLATE.to_owned()];
        WRITTEN.set(0);
        let many: Vec<Project> = (0..2000)
            .map(|i| project(&format!("p{i}"), &"r".repeat(40_000), true))
            .collect();
        values.projects = many;
        let plan = Plan::new(&values);
        let error =
            super::super::render_bundle(&templates, &names, &plan, &plan_value(&plan)).unwrap_err();
        assert!(super::super::output_budget_spent(), "{error}");
        WRITTEN.set(0);
    }

    #[test]
    fn a_long_first_project_reserves_no_more_than_the_text_may_hold() {
        // A first project of a megabyte, then many small ones: the room
        // guessed from the first stays within the byte budget.
        let mut projects = vec![project("first", &"r".repeat(1 << 20), true)];
        projects.extend((0..2000).map(|i| project(&format!("p{i}"), "x", true)));
        let values = Values {
            projects,
            ..Values::default()
        };
        let plan = Plan::new(&values);
        let meta = &plan.meta["projects"];
        let part = Part::write(&Shared::of(&plan, meta), &plan.projects, 0, 2001).unwrap();
        assert!(
            part.out.text.capacity() <= manifest::LIMITS.max_bytes + (2 << 20),
            "{}",
            part.out.text.capacity()
        );
        both_ways(&values, 0);
    }

    #[test]
    fn a_folder_of_templates_is_rendered_by_the_engine() {
        let values = Values {
            projects: vec![project("app", "https://git.example.com/app.git", true)],
            ..Values::default()
        };
        let plan = Plan::new(&values);
        let mut templates = templates().unwrap();
        let names = [TEMPLATE.to_owned()];
        let bundle = |t: &crate::render::Templates| {
            super::super::render_bundle(t, &names, &plan, &plan_value(&plan)).unwrap()
        };
        assert!(matches!(bundle(&templates)[..], [Output::Built(_)]));
        templates.builtin = false;
        assert!(matches!(bundle(&templates)[..], [Output::Text(_)]));
    }

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z0-9./-]{0,12}",
            "\\PC{0,8}",
            "\\PC{100,300}",
            proptest::collection::vec(any::<char>(), 0..6).prop_map(String::from_iter),
        ]
    }

    fn amount() -> impl Strategy<Value = Option<crate::model::types::WrittenQuantity>> {
        proptest::option::of(
            prop_oneof![
                Just("1"),
                Just("250m"),
                Just("1.5"),
                Just("4Gi"),
                Just("1e3")
            ]
            .prop_map(quantity),
        )
    }

    fn list() -> impl Strategy<Value = ResourceList> {
        (amount(), amount()).prop_map(|(cpu, memory)| ResourceList { cpu, memory })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn any_values_are_written_as_the_template_writes_them(
            labels in proptest::collection::btree_map(text(), text(), 0..4),
            annotations in proptest::collection::btree_map(text(), text(), 0..3),
            projects in proptest::collection::vec(
                (text(), any::<bool>(), list(), list()), 0..8),
            defaults in (list(), list()),
            kata in any::<bool>(),
            release in "[a-z]{1,8}",
        ) {
            let mut values = Values {
                release_name: label(&release),
                common_labels: labels,
                common_annotations: annotations,
                ..Values::default()
            };
            values.kata.enabled = kata;
            values.builds.daemon_resources = Resources { requests: defaults.0, limits: defaults.1 };
            values.projects = projects
                .into_iter()
                .enumerate()
                .map(|(i, (repository, trusted, requests, limits))| Project {
                    name: label(&format!("p{i}")),
                    repository,
                    trusted,
                    resources: Resources { requests, limits },
                })
                .collect();
            both_ways(&values, 0);
        }
    }
}
