//! The BuildProjects without the template engine: what the built-in
//! `templates/projects.yaml` writes, written directly, with the objects
//! built as they are written instead of read back from the text.
//!
//! A large chart is its BuildProjects (97 % of the objects at 1,000
//! projects), and through minijinja and the parse-back each cost some
//! 90,000 instructions of the main thread (BENCHMARKS.md); here about
//! 15,000, split over two cores from 200 projects. The same text, the same trace
//! of template lines, the same nodes with the same origins and the same
//! count against [`super::OUTPUT_BUDGET`] come out directly: findings on a
//! BuildProject still name `templates/projects.yaml` and its line, and
//! `render`'s output is byte for byte the same. Only for the built-in
//! template (a `$CHARTGEN_TEMPLATES` folder and `explain` go through the
//! engine), and only within the limits: a render that would pass the output
//! budget or come near the parse-back's budgets ([`manifest::LIMITS`]) goes
//! through the engine, whose errors then say which.
//!
//! The layout below is the template's: the tests hold the two to the same
//! bytes, trace, nodes and budget, so an edit of `templates/projects.yaml`
//! that this file does not follow fails them.

use std::ops::Range;
use std::sync::Arc;

use kubernetes::emit;
use kubernetes::location::{Origin, Source};
use kubernetes::manifest::{self, Built, Trace};
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
        mut documents,
        pieces,
    } = Joined::of(parts);
    if written > super::OUTPUT_BUDGET || text.len() >= manifest::LIMITS.max_bytes {
        return None;
    }
    let start = text.len();
    text.push('\n');
    let end = (start..text.len(), line::ENDFOR, true);
    let source = Built::source(TEMPLATE, text);
    // Each part's places and spans were recorded from the start of its own
    // text: they move down by the lines and bytes of the parts before it.
    let mut rest = &mut documents[..];
    for piece in &pieces {
        let (own, after) = std::mem::take(&mut rest).split_at_mut(piece.documents);
        let mut places = Places {
            places: piece.places.iter(),
            lines: kubernetes::location::saturating_u32(piece.lines),
            source: &source,
        };
        for document in own {
            places.locate(document);
        }
        rest = after;
    }
    // The spans move into the trace piece by piece, each piece's places
    // and spans freed once moved.
    let mut trace = Trace::default();
    let template = trace.template(TEMPLATE);
    trace.reserve(pieces.iter().map(|p| p.spans.len()).sum::<usize>() + 1);
    for Piece {
        bytes, spans: own, ..
    } in pieces
    {
        for (range, line, verbatim) in own {
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
    let built = Built {
        template: TEMPLATE.to_owned(),
        source,
        trace,
        documents,
        block: Some(Arc::new(shared.blocks)),
    };
    Some((built, written))
}

/// Some of the projects written as if from the start of the text.
struct Part {
    out: Writer,
    documents: Vec<Node>,
}

impl Part {
    /// `projects` written from the start of a text, counted against the
    /// budget from `written`, with room in the text and the documents for
    /// `room` projects (the first half's take the second's); `None` once
    /// past a limit.
    fn write(
        shared: &Shared,
        projects: &[ProjectPlan<'_>],
        written: usize,
        room: usize,
    ) -> Option<Part> {
        let mut out = Writer {
            written,
            ..Writer::default()
        };
        let mut documents = Vec::with_capacity(room);
        let mut resources: Option<(&Resources, Fragment)> = None;
        for (i, project) in projects.iter().enumerate() {
            // Projects mostly share their resources (the daemons' defaults):
            // written once, copied while the next project's are the same.
            if resources
                .as_ref()
                .is_none_or(|(r, _)| **r != project.resources)
            {
                let list = resources_of(&project.resources);
                resources = Some((&project.resources, Fragment::of(|w| w.flow(&list))));
            }
            let (_, fragment) = resources.as_ref()?;
            documents.push(out.project(shared, project, fragment));
            if i == 0 {
                // The rest are about as long as the first (an eighth more:
                // a RuntimeClass line, longer names, more places).
                // Never past the most the text may hold: a long first
                // project must not ask for gigabytes.
                let about = |first: usize, rest: usize| {
                    let all = first.saturating_mul(rest);
                    all.saturating_add(all / 8)
                };
                let text = about(out.text.len(), room.saturating_sub(1));
                out.text.reserve(text.min(manifest::LIMITS.max_bytes) + 64);
                let rest = projects.len() - 1;
                out.places.reserve(about(out.places.len(), rest));
                out.spans.reserve(about(out.spans.len(), rest));
            }
            if out.written > super::OUTPUT_BUDGET || out.text.len() >= manifest::LIMITS.max_bytes {
                return None;
            }
        }
        Some(Part { out, documents })
    }
}

/// The parts one after the other: one text and one list of documents (in
/// the first part's, which has the room), each part's places and spans
/// kept as written: the places are read where they are, moved down as
/// they are read; the spans are moved into the trace.
struct Joined {
    text: String,
    written: usize,
    documents: Vec<Node>,
    pieces: Vec<Piece>,
}

/// A part's places and spans, the lines and bytes before it, and how
/// many documents it wrote.
struct Piece {
    lines: usize,
    bytes: usize,
    documents: usize,
    places: Vec<Place>,
    spans: Vec<(Range<usize>, usize, bool)>,
}

impl Joined {
    /// `parts` in order, the first holding the text's room for all.
    fn of(parts: Vec<Part>) -> Joined {
        let mut joined = Joined {
            text: String::new(),
            written: 0,
            documents: Vec::new(),
            pieces: Vec::with_capacity(parts.len()),
        };
        let mut lines = 0;
        for (i, Part { out, documents }) in parts.into_iter().enumerate() {
            let (bytes, count) = (joined.text.len(), documents.len());
            if i == 0 {
                (joined.text, joined.documents) = (out.text, documents);
            } else {
                joined.text.push_str(&out.text);
                joined.documents.extend(documents);
            }
            joined.written = joined.written.saturating_add(out.written);
            joined.pieces.push(Piece {
                lines,
                bytes,
                documents: count,
                places: out.places,
                spans: out.spans,
            });
            lines += out.line;
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
    runtime_class: Option<(String, Fragment)>,
    /// What every document's block shares.
    blocks: Blocks,
}

impl Shared {
    fn of(plan: &Plan<'_>, meta: &Meta) -> Self {
        let class = plan.projects.iter().find_map(|p| p.runtime_class_name);
        Shared {
            api_version: Fragment::of(|w| w.string(&plan.crd.api_version)),
            namespace: Fragment::of(|w| w.string(&plan.namespaces.builds.name)),
            labels: Fragment::of(|w| w.flow(&strings(&meta.labels))),
            annotations: (!meta.annotations.is_empty())
                .then(|| Fragment::of(|w| w.flow(&strings(&meta.annotations)))),
            runtime_class: class.map(|class| (class.to_owned(), Fragment::of(|w| w.string(class)))),
            blocks: Blocks::default(),
        }
        .with_blocks()
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

/// The BuildProjects as `emit::block` writes them, as the stream and the
/// output folder show them ([`Built::block`]), from the text every
/// document shares: the layout of [`emit::push_entry`], with the entries
/// that are the same in every document written once, when the stream is
/// written (on its own thread: nothing is kept per document). The tests,
/// and every debug build's `collect_outputs`, hold each block to
/// `emit::block` of its document.
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
/// ([`Blocks::to_json`]): a clone copies an object's table of keys, where
/// a conversion hashes each key again.
#[derive(Default)]
struct SharedJson {
    api_version: Json,
    namespace: Json,
    labels: Json,
    annotations: Option<Json>,
}

/// Short: a `Manifest`'s debug print shows its writer.
impl std::fmt::Debug for Blocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BuildProject blocks")
    }
}

/// A mapping's entries.
type Entries = [(Key, Node)];

impl Blocks {
    /// The parts of `document` written per project, when it has the shape
    /// [`Writer::project`] writes (the keys in its order, `metadata` with
    /// the name first and as many entries as the shared tail writes): the
    /// name's entry and `spec`'s entries. `None` for any other node.
    fn own<'d>(&self, document: &'d Node) -> Option<(&'d (Key, Node), &'d Entries)> {
        fn entries(node: &Node) -> &Entries {
            match &node.value {
                Value::Mapping(entries) => entries,
                _ => &[],
            }
        }
        let [api, kind, (m, metadata), (s, spec)] = entries(document) else {
            return None;
        };
        let keys = [&api.0, &kind.0, m, s].map(|key| key.name.as_str());
        let (metadata, spec) = (entries(metadata), entries(spec));
        let name = metadata.first().filter(|(key, _)| key.name == "name")?;
        (keys == ["apiVersion", "kind", "metadata", "spec"]
            && metadata.len() == self.metadata_entries
            && !spec.is_empty())
        .then_some((name, spec))
    }
}

impl manifest::BlockWriter for Blocks {
    /// One project's document as [`Writer::project`] writes it: the shared
    /// text copied, the name and `spec`'s entries written. A node of
    /// another shape is walked as `emit` walks it; one of this shape is
    /// taken for one of the writer's documents, which only they are
    /// (`Manifest::node_mut` forgets the writer).
    fn push_block(&self, document: &Node, out: &mut String) {
        let Some(((key, name), spec)) = self.own(document) else {
            return emit::push_block(document, out);
        };
        out.push_str(&self.head);
        emit::push_entry(&key.name, name, 2, out);
        out.push_str(&self.tail);
        for (i, (key, value)) in spec.iter().enumerate() {
            if i > 0 {
                out.push_str("  ");
            }
            emit::push_entry(&key.name, value, 2, out);
        }
    }

    /// One project's document as `Node::to_json` converts it: the shared
    /// parts cloned, the name and `spec` converted. A node of another
    /// shape is converted whole.
    fn to_json(&self, document: &Node) -> Json {
        let Some(((key, name), spec)) = self.own(document) else {
            return document.to_json();
        };
        let shared = &self.json;
        let mut metadata = serde_json::Map::with_capacity(self.metadata_entries);
        metadata.insert(key.name.clone(), name.to_json());
        metadata.insert("namespace".to_owned(), shared.namespace.clone());
        metadata.insert("labels".to_owned(), shared.labels.clone());
        if let Some(annotations) = &shared.annotations {
            metadata.insert("annotations".to_owned(), annotations.clone());
        }
        let spec = (spec.iter())
            .map(|(key, value)| (key.name.clone(), value.to_json()))
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
}

/// A flow value the template interpolates: a string or a mapping of them.
enum Flow<'a> {
    Str(&'a str),
    Map(Vec<(&'a str, Flow<'a>)>),
}

impl Writer {
    /// One BuildProject's document, as one iteration of the template's loop
    /// writes it.
    fn project(
        &mut self,
        shared: &Shared,
        project: &ProjectPlan<'_>,
        resources: &Fragment,
    ) -> Node {
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
        let repository = self.string(&project.project.repository);
        self.written += self.text.len() - start;
        self.span(start, line::REPOSITORY, false);
        let trusted_key = self.verbatim_key("trusted", line::REPOSITORY);
        let start = self.text.len();
        let trusted = self.boolean(project.project.trusted);
        self.written += self.text.len() - start;
        self.span(start, line::TRUSTED, false);
        let mut entries = Vec::with_capacity(4);
        entries.push((repository_key, repository));
        entries.push((trusted_key, trusted));
        if let Some(class) = project.runtime_class_name {
            let key = self.verbatim_key("runtimeClassName", line::IF_RUNTIME_CLASS);
            let value = match &shared.runtime_class {
                Some((shared, fragment)) if shared == class => {
                    self.interpolate(line::RUNTIME_CLASS, fragment)
                }
                _ => self.interpolate(line::RUNTIME_CLASS, &Fragment::of(|w| w.string(class))),
            };
            entries.push((key, value));
        }
        let resources_key = self.verbatim_key("resources", line::ENDIF);
        entries.push((resources_key, self.interpolate(line::RESOURCES, resources)));
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
    fn metadata(&mut self, shared: &Shared, project: &ProjectPlan<'_>) -> (Key, Node) {
        let start = self.text.len();
        let key = self.key("metadata");
        self.push(":");
        self.line_break();
        self.push("  ");
        self.place(1);
        let mut entries = Vec::with_capacity(4);
        let name_key = self.key("name");
        self.push(": ");
        let name_start = self.text.len();
        let name = self.string(project.project.name.as_str());
        self.written += self.text.len() - name_start;
        entries.push((name_key, name));
        let mut entry = |w: &mut Self, name: &str, value: &Fragment| {
            w.line_break();
            w.push("  ");
            let key = w.key(name);
            w.push(": ");
            w.written += value.text.len();
            entries.push((key, w.fragment(value)));
        };
        entry(self, "namespace", &shared.namespace);
        entry(self, "labels", &shared.labels);
        if let Some(annotations) = &shared.annotations {
            entry(self, "annotations", annotations);
        }
        // The macro's output is written as one interpolation, counted again.
        self.written += self.text.len() - start;
        self.span(start, line::METADATA, false);
        (key, mapping(entries))
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
        let (line, col) = (self.line + 1, self.col + 1);
        (self.places).extend(
            (fragment.places.iter()).map(|(from, width)| Place::new(line, col + from, *width)),
        );
        self.text.push_str(&fragment.text);
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

    /// Records the place of a node starting here, `width` characters wide.
    fn place(&mut self, width: usize) {
        self.places
            .push(Place::new(self.line + 1, self.col + 1, width));
    }

    /// A plain block key.
    fn key(&mut self, name: &str) -> Key {
        self.place(chars(name));
        self.push(name);
        Key {
            name: name.to_owned(),
            origin: Origin::Default,
        }
    }

    /// A string as an interpolation writes it (double-quoted).
    fn string(&mut self, text: &str) -> Node {
        let start = self.text.len();
        emit::push_flow_string(text, &mut self.text);
        let width = chars(&self.text[start..]);
        self.places
            .push(Place::new(self.line + 1, self.col + 1, width));
        self.col += width;
        leaf(Value::String(text.to_owned()), None)
    }

    /// A plain string written verbatim (one that reads back as a string).
    fn plain_string(&mut self, text: &str) -> Node {
        self.place(chars(text));
        self.push(text);
        leaf(Value::String(text.to_owned()), None)
    }

    /// A boolean as an interpolation writes it.
    fn boolean(&mut self, value: bool) -> Node {
        let text = if value { "true" } else { "false" };
        self.place(text.len());
        self.push(text);
        leaf(Value::Bool(value), Some(text))
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

/// A part's places as [`Places::locate`] hands them out: moved down by
/// the lines before the part, each with the one source.
struct Places<'p> {
    places: std::slice::Iter<'p, Place>,
    lines: u32,
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
            line: place.line.saturating_add(self.lines),
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
                assert_eq!(one.documents, two.documents);
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
        // Each document is written as the stream would write it, from the
        // shared text (not by the fallback).
        let block = built.block.as_ref().expect("the writer's blocks");
        let shared = Shared::of(&plan, &plan.meta["projects"]);
        for document in &built.documents {
            let mut written = String::new();
            block.push_block(document, &mut written);
            assert_eq!(written, emit::block(document));
            assert!(shared.blocks.own(document).is_some(), "{written}");
            // And converted as `Node::to_json` converts it, keys in order
            // (compared as text: ordered maps compare equal in any order).
            let text = |json: Json| json.to_string();
            assert_eq!(text(block.to_json(document)), text(document.to_json()));
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
    fn the_stream_of_written_projects_fits_the_room_reserved_for_it() {
        // Past the split, with labels every project carries: the stream
        // writes them as blocks where the text has them in flow.
        let mut values = Values::default();
        values.kata.enabled = true;
        values.projects = (0..SPLIT_FROM + 50)
            .map(|i| {
                project(
                    &format!("p{i}"),
                    "https://git.example.com/p.git",
                    i % 4 != 0,
                )
            })
            .collect();
        values
            .common_labels
            .insert("team.example.com/owner".into(), "platform-builds".into());
        values
            .common_annotations
            .insert("example.com/runbook".into(), "https://r.example.com".into());
        let output = crate::pipeline::render(&values).unwrap();
        let all = output.in_order(&crate::pipeline::Bundle::ALL);
        let stream = manifest::to_stream(all.iter().copied());
        let room = manifest::stream_room(&all);
        assert!(stream.len() <= room, "{} > {room}", stream.len());
        // One project shown (`--show-only`): its share, not the whole text.
        let one: Vec<&Manifest> = (all.iter().copied())
            .filter(|m| m.id.kind == "BuildProject")
            .take(1)
            .collect();
        let (written, room) = (
            manifest::to_stream(one.iter().copied()).len(),
            manifest::stream_room(&one),
        );
        assert!(written <= room && room < 2 * written, "{written} {room}");
    }

    /// A node of another shape than a BuildProject's is written as `emit`
    /// writes it, never with the shared text.
    #[test]
    fn the_blocks_write_other_shapes_as_emit_does() {
        let values = Values::default();
        let plan = Plan::new(&values);
        let shared = Shared::of(&plan, &plan.meta["projects"]);
        let node = |text: &str| {
            let source = Source::file("t.yaml", text.to_owned());
            kubernetes::yaml::parse_manifests(&source, manifest::LIMITS)
                .unwrap()
                .remove(0)
        };
        for text in [
            "null",
            "{}",
            "kind: A",
            "apiVersion: v1\nkind: A\nmetadata: {}\nspec: {a: 1}",
            "apiVersion: v1\nkind: A\nmetadata: {name: x}\nspec: {}",
            "apiVersion: v1\nkind: A\nmetadata: {name: x}\nstatus: {a: 1}",
            "apiVersion: v1\nkind: A\nmetadata: {labels: {}, name: x, namespace: ns}\nspec: {a: 1}",
            "apiVersion: v1\nkind: A\nmetadata: {name: x, namespace: ns}\nspec: {a: 1}",
        ]
        .map(str::to_owned)
        .into_iter()
        // As many metadata entries as the writer's: only the keys tell
        // these from a BuildProject.
        .chain({
            let others = ["b", "c", "d"][..shared.blocks.metadata_entries - 1].join(": 1, ");
            let metadata = format!("metadata: {{name: x, {others}: 1}}");
            [
                format!("kind: A\napiVersion: v1\n{metadata}\nspec: {{a: 1}}"),
                format!("apiVersion: v1\nkind: A\n{metadata}\nstatus: {{a: 1}}"),
            ]
        }) {
            let text = text.as_str();
            let document = node(text);
            assert!(shared.blocks.own(&document).is_none(), "{text}");
            let mut written = String::new();
            manifest::BlockWriter::push_block(&shared.blocks, &document, &mut written);
            assert_eq!(written, emit::block(&document), "{text}");
        }
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
        let counted: usize = built.documents.iter().map(count).sum();
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
