//! Bakes the vendored Kubernetes and cert-manager schemas into static tables
//! (`$OUT_DIR/kube_schemas.rs`) for `src/kube/validator.rs`, and, for a
//! crate that validates documents of its own, one such document: no JSON parse and
//! no schema compile at run time.
//!
//! Only what validation reads is kept (descriptions and `x-kubernetes-*`
//! annotations go); each version's shared definitions become nodes once,
//! however many kinds reach them; identical nodes are stored once. The baked
//! validator implements exactly the keywords listed in `compile_keyword`,
//! under JSON Schema draft 2020-12: any other keyword, draft, `$ref` form or
//! keyword combination fails the build here, so a newly vendored schema can
//! never be half-checked in silence.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Map, Value};

/// The one draft the baked validator implements (`format` is an annotation).
const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";
/// Where the per-kind files `$ref` their shared definitions.
const DEFINITIONS_URI: &str = "https://kubernetes.io/api/_definitions.json";
/// Type bits, as `kube/validator.rs` reads them (jsonschema's order).
const TYPES: [(&str, u8); 7] = [
    ("null", 1),
    ("boolean", 2),
    ("integer", 4),
    ("number", 8),
    ("string", 16),
    ("array", 32),
    ("object", 64),
];
/// Largest limit compared exactly with a float instance.
const EXACT_LIMIT: i64 = 1 << 53;
/// Most bytes a `pattern`'s DFA may take, while built and when done: the
/// vendored patterns take 1 to 11 KB each.
const DFA_LIMIT: usize = 1 << 20;
/// `PATTERN_SIZE_LIMIT` of `src/kube/mod.rs`: what a pattern may compile
/// into with the `regex` crate.
pub const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// The folders of the custom kinds' schemas, vendored beside the built-in ones: the
/// same in every Kubernetes version.
pub const CUSTOM_KINDS: [&str; 3] = ["cert-manager", "cilium", "prometheus-operator"];

/// Reads `schema/kubernetes/v*/` and the [`CUSTOM_KINDS`] folders below
/// `schema_dir` and writes the tables to `target`.
pub fn bake(schema_dir: &Path, target: &Path) -> Result<(), String> {
    let mut baker = Baker {
        fills: true,
        ..Baker::default()
    };
    let mut shared = Vec::new();
    for dir in CUSTOM_KINDS {
        for (name, schema) in &read_dir_json(&schema_dir.join(dir))? {
            let where_ = format!("schema/{dir}/{name}");
            shared.push(baker.kind_root(schema, &where_)?);
        }
    }
    let mut versions = Vec::new();
    for (dir, files) in kubernetes_versions(&schema_dir.join("kubernetes"))? {
        let version = dir
            .strip_prefix('v')
            .and_then(|v| v.strip_suffix(".0"))
            .ok_or_else(|| format!("schema/kubernetes/{dir}: expected a folder named vX.Y.0"))?;
        baker.start_version(&files, &dir)?;
        let mut kinds = shared.clone();
        for (name, schema) in files.iter().filter(|(n, _)| n != "_definitions.json") {
            let where_ = format!("schema/kubernetes/{dir}/{name}");
            kinds.push(baker.kind_root(schema, &where_)?);
        }
        kinds.sort();
        if let Some(pair) = kinds
            .windows(2)
            .find(|p| (&p[0].0, &p[0].1) == (&p[1].0, &p[1].1))
        {
            return Err(format!(
                "{dir}: two schemas for {} {}",
                pair[0].0, pair[0].1
            ));
        }
        versions.push((version.to_owned(), kinds));
    }
    baker.write(target, &versions, None)
}

/// Bakes one schema document of draft 2020-12 whose `$ref`s point into its
/// own `$defs` (the chart's values schema, read by the chart's build
/// script) and writes its `NODES`, `PATTERNS` and `ROOT` to `target`;
/// `shown` names the file in errors.
pub fn bake_document(path: &Path, shown: &str, target: &Path) -> Result<(), String> {
    let mut baker = Baker::default();
    let root = baker.document_root(path, shown)?;
    baker.write(target, &[], Some(root))
}

type KindRoot = (String, String, u32);

/// Every `*.json` in `dir`, parsed, by file name, sorted.
fn read_dir_json(dir: &Path) -> Result<Files, String> {
    let mut files = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{e}"))?.path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if !name.ends_with(".json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{name}: {e}"))?;
        let json = serde_json::from_str(&text).map_err(|e| format!("{name}: {e}"))?;
        files.push((name, json));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

/// Parsed files by name.
type Files = Vec<(String, Value)>;

/// Each `v*` folder of `dir` with its parsed files, sorted by name.
fn kubernetes_versions(dir: &Path) -> Result<Vec<(String, Files)>, String> {
    let mut versions = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{e}"))?.path();
        if path.is_dir() {
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            versions.push((name, read_dir_json(&path)?));
        }
    }
    versions.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(versions)
}

/// Which document a schema sits in, for resolving its `$ref`s.
#[derive(Clone, Copy)]
enum Doc<'a> {
    /// The current version's `_definitions.json`.
    Definitions,
    /// A per-kind file, with its `$id`.
    Kind(Option<&'a str>),
}

/// One node being baked, in the fields of `src/kubernetes/kube/validator.rs`'s `Node`.
#[derive(Default)]
struct Node {
    types: Option<(u8, bool)>,
    constant: Option<String>,
    enumeration: Vec<String>,
    minimum: Option<i64>,
    maximum: Option<i64>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    required: Vec<String>,
    pattern: Option<usize>,
    format: Option<String>,
    properties: BTreeMap<String, u32>,
    /// The `properties` marked `default: {}`: read as `{}` when absent.
    filled: Vec<String>,
    additional: Option<Additional>,
    items: Option<u32>,
    any_of: Vec<u32>,
    one_of: Vec<u32>,
}

/// What `schema` bakes into.
enum Built {
    /// A `$ref`: the definition's node.
    Alias(u32),
    Node(Box<Node>),
}

enum Additional {
    Forbid,
    Node(u32),
}

/// What the rendered nodes refer to by offset and length, so that a node
/// holds no pointer: `NODES` is then read-only data that the loader never
/// touches (in a position-independent binary every pointer in a static
/// is a relocation, and the page holding it is written at every start).
/// Equal strings and equal lists are stored once, so identical nodes
/// render alike and are still interned as one.
#[derive(Default)]
struct Pools {
    /// Every name, `enum` value, `const` and `format`, end to end.
    strings: String,
    string_at: HashMap<String, (u32, u32)>,
    /// The lists of strings (`enum`, `required`), as `(offset, length)`.
    strs: Vec<(u32, u32)>,
    /// The `properties` lists: each name and its node.
    members: Vec<((u32, u32), u32)>,
    /// The `anyOf` and `oneOf` lists.
    branches: Vec<u32>,
    /// Each list stored, by its kind and contents.
    lists: HashMap<String, (u32, u32)>,
}

impl Pools {
    fn string(&mut self, text: &str) -> (u32, u32) {
        if let Some(&at) = self.string_at.get(text) {
            return at;
        }
        let at = (offset(self.strings.len()), offset(text.len()));
        self.strings.push_str(text);
        self.string_at.insert(text.to_owned(), at);
        at
    }

    /// `items` stored once in the pool `push` appends to, whose length is
    /// `len`; `key` names the list's kind and contents.
    fn list(
        &mut self,
        key: String,
        len: usize,
        push: impl FnOnce(&mut Pools) -> usize,
    ) -> (u32, u32) {
        if let Some(&at) = self.lists.get(&key) {
            return at;
        }
        let added = push(self);
        let at = (offset(len), offset(added));
        self.lists.insert(key, at);
        at
    }

    fn strs(&mut self, items: &[String]) -> (u32, u32) {
        let key = format!("strs {items:?}");
        self.list(key, self.strs.len(), |pools| {
            for item in items {
                let at = pools.string(item);
                pools.strs.push(at);
            }
            items.len()
        })
    }

    fn members(&mut self, items: &BTreeMap<String, u32>) -> (u32, u32) {
        let key = format!("members {items:?}");
        self.list(key, self.members.len(), |pools| {
            for (name, node) in items {
                let at = pools.string(name);
                pools.members.push((at, *node));
            }
            items.len()
        })
    }

    fn branches(&mut self, items: &[u32]) -> (u32, u32) {
        let key = format!("branches {items:?}");
        self.list(key, self.branches.len(), |pools| {
            pools.branches.extend_from_slice(items);
            items.len()
        })
    }
}

/// An offset or length in a pool, as the tables store it.
fn offset(n: usize) -> u32 {
    u32::try_from(n).expect("pools of fewer than 2^32 entries")
}

#[derive(Default)]
struct Baker {
    /// Rendered nodes; `None` while a definition is being baked.
    nodes: Vec<Option<String>>,
    /// What the nodes refer to.
    pools: Pools,
    /// Rendered node to its index, so identical nodes are stored once.
    interned: HashMap<String, u32>,
    patterns: Vec<String>,
    /// The current version's definitions, and their node indices.
    definitions: Map<String, Value>,
    definition_nodes: HashMap<String, u32>,
    /// The current version's folder, for messages.
    dir: String,
    /// Whether a `properties` member marked `default: {}` is recorded as
    /// filled: in the Kubernetes schemas only.
    fills: bool,
}

impl Baker {
    fn start_version(&mut self, files: &[(String, Value)], dir: &str) -> Result<(), String> {
        let (_, definitions) = files
            .iter()
            .find(|(name, _)| name == "_definitions.json")
            .ok_or_else(|| format!("schema/kubernetes/{dir}/_definitions.json is missing"))?;
        let where_ = format!("schema/kubernetes/{dir}/_definitions.json");
        let root = definitions
            .as_object()
            .ok_or(format!("{where_}: not an object"))?;
        for (keyword, value) in root {
            match keyword.as_str() {
                "$defs" => {}
                "$schema" if value == DRAFT => {}
                _ => {
                    return Err(format!(
                        "{where_}: unsupported top-level keyword `{keyword}`"
                    ));
                }
            }
        }
        self.definitions = match root.get("$defs") {
            Some(Value::Object(defs)) => defs.clone(),
            _ => return Err(format!("{where_}: no `$defs` object")),
        };
        self.definition_nodes.clear();
        self.dir = where_;
        Ok(())
    }

    /// Bakes one document (see [`bake_document`]): its local
    /// `#/$defs/NAME` refs resolve into its own `$defs`.
    fn document_root(&mut self, path: &Path, shown: &str) -> Result<u32, String> {
        println!("cargo:rerun-if-changed={}", path.display());
        let where_ = shown.to_owned();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{where_}: {e}"))?;
        let schema: Value = serde_json::from_str(&text).map_err(|e| format!("{where_}: {e}"))?;
        let draft = schema.get("$schema").and_then(Value::as_str);
        if draft != Some(DRAFT) || schema.get("$id").is_some() {
            return Err(format!(
                "{where_}: declares draft {draft:?} or an `$id`; the baked validator implements \
                 {DRAFT} with local refs only"
            ));
        }
        self.definitions = match schema.get("$defs") {
            Some(Value::Object(defs)) => defs.clone(),
            _ => return Err(format!("{where_}: no `$defs` object")),
        };
        self.definition_nodes.clear();
        self.dir = where_.clone();
        self.schema(&schema, Doc::Definitions, &where_, true)
    }

    /// Bakes a per-kind file and names its kind.
    fn kind_root(&mut self, schema: &Value, where_: &str) -> Result<KindRoot, String> {
        let draft = schema.get("$schema").and_then(Value::as_str);
        if draft != Some(DRAFT) {
            return Err(format!(
                "{where_}: declares draft {draft:?}; the baked validator implements {DRAFT} only"
            ));
        }
        let id = schema.get("$id").and_then(Value::as_str);
        let first = |field: &str| {
            schema
                .pointer(&format!("/properties/{field}/enum/0"))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| format!("{where_}: names no {field}"))
        };
        let (api_version, kind) = (first("apiVersion")?, first("kind")?);
        let root = self.schema(schema, Doc::Kind(id), where_, true)?;
        Ok((api_version, kind, root))
    }

    /// Bakes `schema`, returning its node index.
    fn schema(
        &mut self,
        schema: &Value,
        doc: Doc,
        where_: &str,
        root: bool,
    ) -> Result<u32, String> {
        match self.build(schema, doc, where_, root)? {
            Built::Alias(index) => Ok(index),
            Built::Node(node) => Ok(self.intern(&node)),
        }
    }

    /// `schema` as a new node, or the definition it is a `$ref` to.
    fn build(
        &mut self,
        schema: &Value,
        doc: Doc,
        where_: &str,
        root: bool,
    ) -> Result<Built, String> {
        let object = match schema {
            Value::Bool(true) => return Ok(Built::Node(Box::default())),
            Value::Object(object) => object,
            _ => return Err(format!("{where_}: a schema must be an object or `true`")),
        };
        if let Some(reference) = object.get("$ref") {
            if let Some(other) = object.keys().find(|k| *k != "$ref" && !is_annotation(k)) {
                return Err(format!(
                    "{where_}: `$ref` next to `{other}` is not supported"
                ));
            }
            let name = resolve(reference, doc, where_)?;
            return Ok(Built::Alias(self.definition(&name, where_)?));
        }
        let mut node = Box::<Node>::default();
        for (keyword, value) in object {
            if root && matches!(keyword.as_str(), "$schema" | "$id" | "$defs") {
                continue;
            }
            self.compile_keyword(
                &mut node,
                keyword,
                value,
                doc,
                &format!("{where_}/{keyword}"),
            )?;
        }
        check_combination(&node, where_)?;
        Ok(Built::Node(node))
    }

    /// The node of definition `name` of the current version, baked once.
    fn definition(&mut self, name: &str, where_: &str) -> Result<u32, String> {
        let mut chain = vec![name.to_owned()];
        loop {
            let current = chain.last().expect("never empty").clone();
            if let Some(&index) = self.definition_nodes.get(&current) {
                return Ok(self.remember(&chain, index));
            }
            let schema = self
                .definitions
                .get(&current)
                .cloned()
                .ok_or_else(|| format!("{where_}: `$ref` to missing definition {current}"))?;
            let def_where = format!("{}#/$defs/{current}", self.dir);
            // A definition that is only a `$ref` is its target.
            let only_ref = schema
                .as_object()
                .is_some_and(|o| o.keys().all(|k| k == "$ref" || is_annotation(k)));
            if let (Some(reference), true) = (schema.get("$ref"), only_ref) {
                let next = resolve(reference, Doc::Definitions, &def_where)?;
                if chain.contains(&next) {
                    return Err(format!("{def_where}: a `$ref` cycle through no keyword"));
                }
                chain.push(next);
                continue;
            }
            let index = u32::try_from(self.nodes.len()).expect("fewer than 2^32 nodes");
            self.nodes.push(None);
            self.remember(&chain, index);
            // Referred to before it is done (recursion): its index is
            // reserved, so it is not interned.
            let text = match self.build(&schema, Doc::Definitions, &def_where, false)? {
                Built::Node(node) => render_node(&node, &mut self.pools),
                Built::Alias(_) => unreachable!("a `$ref` definition is followed above"),
            };
            self.interned.entry(text.clone()).or_insert(index);
            self.nodes[index as usize] = Some(text);
            return Ok(index);
        }
    }

    fn remember(&mut self, chain: &[String], index: u32) -> u32 {
        for name in chain {
            self.definition_nodes.insert(name.clone(), index);
        }
        index
    }

    fn compile_keyword(
        &mut self,
        node: &mut Node,
        keyword: &str,
        value: &Value,
        doc: Doc,
        at: &str,
    ) -> Result<(), String> {
        match keyword {
            "type" => node.types = Some(types(value, at)?),
            "const" => {
                let text = value.as_str().ok_or(format!(
                    "{at}: the baked validator supports `const` of strings only"
                ))?;
                node.constant = Some(text.to_owned());
            }
            "enum" => node.enumeration = strings(value, at, "enum")?,
            "minimum" => node.minimum = Some(limit(value, at)?),
            "maximum" => node.maximum = Some(limit(value, at)?),
            "minLength" => node.min_length = Some(length(value, at)?),
            "maxLength" => node.max_length = Some(length(value, at)?),
            "required" => node.required = strings(value, at, "required")?,
            "format" => {
                node.format = Some(value.as_str().ok_or(format!("{at}: not a string"))?.into())
            }
            "pattern" => node.pattern = Some(self.pattern(value, at)?),
            "properties" => {
                let properties = value.as_object().ok_or(format!("{at}: not an object"))?;
                for (name, schema) in properties {
                    let index = self.schema(schema, doc, &format!("{at}/{name}"), false)?;
                    node.properties.insert(name.clone(), index);
                    // Kubernetes' mark of a Go struct field (not a pointer),
                    // kept where `{}` breaks a `required`
                    // (scripts/vendor-kubernetes-schemas); any other
                    // `default` is an annotation.
                    let struct_field = schema.get("$ref").is_some()
                        && schema.get("default") == Some(&Value::Object(Map::new()));
                    if self.fills && struct_field {
                        node.filled.push(name.clone());
                    }
                }
            }
            "additionalProperties" => {
                node.additional = match value {
                    Value::Bool(false) => Some(Additional::Forbid),
                    Value::Bool(true) => None,
                    schema => Some(Additional::Node(self.schema(schema, doc, at, false)?)),
                }
            }
            "items" => node.items = Some(self.schema(value, doc, at, false)?),
            "anyOf" => node.any_of = self.branches(value, doc, at)?,
            "oneOf" => node.one_of = self.branches(value, doc, at)?,
            _ if is_annotation(keyword) => {}
            _ => {
                return Err(format!(
                    "{at}: keyword `{keyword}` is not supported by the baked validator \
                     (src/kubernetes/kube/validator.rs); implement it there and in build/kube_schemas.rs, \
                     or the schema would be half-checked"
                ));
            }
        }
        Ok(())
    }

    /// The branches of an `anyOf` or `oneOf` (jsonschema words a single
    /// branch apart: refused).
    fn branches(&mut self, value: &Value, doc: Doc, at: &str) -> Result<Vec<u32>, String> {
        let branches = value.as_array().filter(|b| b.len() >= 2);
        let branches = branches.ok_or(format!("{at}: expected two branches or more"))?;
        let mut nodes = Vec::new();
        for (i, branch) in branches.iter().enumerate() {
            nodes.push(self.schema(branch, doc, &format!("{at}/{i}"), false)?);
        }
        Ok(nodes)
    }

    /// A `pattern`, refused unless ECMA-262 (the schema's dialect, which
    /// jsonschema translates) and the `regex` crate read it alike.
    fn pattern(&mut self, value: &Value, at: &str) -> Result<usize, String> {
        let pattern = value.as_str().ok_or(format!("{at}: not a string"))?;
        if let Some(c) = unportable(pattern) {
            return Err(format!(
                "{at}: pattern {pattern:?} uses `{c}`, which ECMA-262 and the regex crate may \
                 read differently; the baked validator takes literals, groups, `|`, \
                 quantifiers, anchors, simple classes and escaped punctuation only"
            ));
        }
        // With the limits the validator compiles it with, should its DFA
        // not read at run time (`PATTERN_SIZE_LIMIT` of `src/kube/mod.rs`,
        // which a build script cannot import).
        regex::RegexBuilder::new(pattern)
            .size_limit(PATTERN_SIZE_LIMIT)
            .dfa_size_limit(PATTERN_SIZE_LIMIT)
            .build()
            .map_err(|e| format!("{at}: {e}"))?;
        if let Some(i) = self.patterns.iter().position(|p| p == pattern) {
            return Ok(i);
        }
        self.patterns.push(pattern.to_owned());
        Ok(self.patterns.len() - 1)
    }

    fn intern(&mut self, node: &Node) -> u32 {
        let text = render_node(node, &mut self.pools);
        if let Some(&index) = self.interned.get(&text) {
            return index;
        }
        let index = u32::try_from(self.nodes.len()).expect("fewer than 2^32 nodes");
        self.nodes.push(Some(text.clone()));
        self.interned.insert(text, index);
        index
    }

    /// Writes the tables to `target` ([`Baker::render`]) and each
    /// pattern's DFA ([`pattern_dfa`]) beside it, where `PATTERN_DFAS`
    /// includes them from.
    fn write(
        &self,
        target: &Path,
        versions: &[(String, Vec<KindRoot>)],
        document: Option<u32>,
    ) -> Result<(), String> {
        let mut names = Vec::new();
        for (i, pattern) in self.patterns.iter().enumerate() {
            let path = target.with_extension(format!("pattern{i}.dfa"));
            let dfa = pattern_dfa(pattern).map_err(|e| format!("pattern {pattern:?}: {e}"))?;
            std::fs::write(&path, dfa).map_err(|e| format!("{}: {e}", path.display()))?;
            let name = path.file_name().and_then(|n| n.to_str());
            names.push(name.ok_or("a DFA's file name is not UTF-8")?.to_owned());
        }
        let code = self.render(versions, document, &names);
        std::fs::write(target, code).map_err(|e| format!("{}: {e}", target.display()))
    }

    /// The tables as Rust: `NODES` and the pools they refer to,
    /// `PATTERNS` and `PATTERN_DFAS` (each pattern's DFA, included from
    /// the file of that name in `OUT_DIR`), all of them as `TABLES`; then
    /// the Kubernetes versions' kinds, or the one document's `ROOT`.
    fn render(
        &self,
        versions: &[(String, Vec<KindRoot>)],
        document: Option<u32>,
        dfa_files: &[String],
    ) -> String {
        let mut code =
            String::from("// Generated by build/kube_schemas.rs from schema/; do not edit.\n\n");
        let _ = writeln!(
            code,
            "/// Every baked schema node.\npub static NODES: &[Node] = &["
        );
        for node in &self.nodes {
            let _ = writeln!(
                code,
                "    {},",
                node.as_deref().expect("every definition is baked")
            );
        }
        let pools = &self.pools;
        let _ = writeln!(
            code,
            "];\n\n/// The strings nodes refer to.\npub static STRINGS: &str = {:?};",
            pools.strings
        );
        code += "\n/// The lists of strings nodes refer to.\npub static STRS: &[Str] = &[\n";
        for (at, len) in &pools.strs {
            let _ = writeln!(code, "    Str({at}, {len}),");
        }
        code += "];\n\n/// The `properties` lists nodes refer to.\n\
                 pub static MEMBERS: &[(Str, u32)] = &[\n";
        for ((at, len), node) in &pools.members {
            let _ = writeln!(code, "    (Str({at}, {len}), {node}),");
        }
        code += "];\n\n/// The `anyOf` and `oneOf` lists nodes refer to.\n\
                 pub static BRANCHES: &[u32] = &[\n";
        for branch in &pools.branches {
            let _ = writeln!(code, "    {branch},");
        }
        code += "];\n\n/// The `pattern`s nodes refer to by index.\npub static PATTERNS: &[&str] = &[\n";
        for pattern in &self.patterns {
            let _ = writeln!(code, "    {pattern:?},");
        }
        code += "];\n\n/// Each pattern's DFA, built by the build script: regex-automata's \
                 dense form,\n/// in the target's byte order, aligned for its `u32`s.\n\
                 pub static PATTERN_DFAS: &[&AlignAs<[u8], u32>] = &[\n";
        for file in dfa_files {
            let _ = writeln!(
                code,
                "    &AlignAs {{ _align: [], bytes: *include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{file}\")) }},"
            );
        }
        code += "];\n\n/// The tables, for `Table::new`.\n\
                 pub const TABLES: Tables = Tables {\n    nodes: NODES,\n    strings: STRINGS,\n    \
                 strs: STRS,\n    members: MEMBERS,\n    branches: BRANCHES,\n    \
                 patterns: PATTERNS,\n    dfas: PATTERN_DFAS,\n};\n";
        if let Some(root) = document {
            code += "\n/// The document's root node.\n";
            let _ = writeln!(code, "pub static ROOT: u32 = {root};");
            return code;
        }
        code += "\n/// Per Kubernetes version, `(apiVersion, kind, root node)` sorted.\n";
        code += "pub static VERSIONS: &[(&str, &[KindRoot])] = &[\n";
        for (version, kinds) in versions {
            let _ = writeln!(code, "    ({version:?}, &[");
            for (api_version, kind, root) in kinds {
                let _ = writeln!(code, "        ({api_version:?}, {kind:?}, {root}),");
            }
            code += "    ]),\n";
        }
        code += "];\n";
        code
    }
}

/// `pattern` as a DFA that finds a match anywhere in a text, as
/// `regex::Regex::is_match` does (the same syntax and Unicode defaults),
/// serialized in the target's byte order for `DFA::from_bytes`: the
/// validator reads it where it would otherwise compile the pattern on
/// every run.
fn pattern_dfa(pattern: &str) -> Result<Vec<u8>, String> {
    use regex_automata::dfa::{StartKind, dense};
    let config = dense::Config::new()
        .start_kind(StartKind::Unanchored)
        .minimize(true)
        .determinize_size_limit(Some(DFA_LIMIT))
        .dfa_size_limit(Some(DFA_LIMIT));
    let dfa = dense::Builder::new()
        .configure(config)
        .build(pattern)
        .map_err(|e| e.to_string())?;
    let big_endian = std::env::var("CARGO_CFG_TARGET_ENDIAN").is_ok_and(|e| e == "big");
    let (bytes, padding) = if big_endian {
        dfa.to_bytes_big_endian()
    } else {
        dfa.to_bytes_little_endian()
    };
    Ok(bytes[padding..].to_vec())
}

/// The first construct of `pattern` whose meaning may differ between
/// ECMA-262 and the `regex` crate: escapes of letters (`\\d`, `\\w`, ...),
/// `.`, nested classes and class set operations.
fn unportable(pattern: &str) -> Option<String> {
    let mut in_class = false;
    let mut previous = '\0';
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e) if e.is_ascii_punctuation() => {}
                other => return Some(format!("\\{}", other.unwrap_or_default())),
            },
            '[' if in_class => return Some("[".into()),
            '[' => in_class = true,
            ']' if in_class => in_class = false,
            '.' if !in_class => return Some(".".into()),
            '&' | '-' | '~' if in_class && previous == c => return Some(format!("{c}{c}")),
            _ => {}
        }
        previous = c;
    }
    None
}

/// Keywords that only annotate: validation never reads them.
fn is_annotation(keyword: &str) -> bool {
    matches!(
        keyword,
        "description" | "$comment" | "title" | "default" | "examples"
    ) || keyword.starts_with("x-kubernetes-")
}

/// The definition a `$ref` names: `#/$defs/NAME` inside the definitions, or
/// the definitions' URI (absolute, or a path against the file's `$id`).
fn resolve(reference: &Value, doc: Doc, at: &str) -> Result<String, String> {
    let reference = reference
        .as_str()
        .ok_or(format!("{at}: `$ref` is not a string"))?;
    let (uri, fragment) = reference.split_once('#').unwrap_or((reference, ""));
    let document = match (uri, doc) {
        ("", Doc::Definitions) => DEFINITIONS_URI.to_owned(),
        (path, Doc::Kind(Some(id))) if path.starts_with('/') => {
            let host_end = id
                .find("://")
                .and_then(|s| id[s + 3..].find('/').map(|e| s + 3 + e));
            format!("{}{path}", &id[..host_end.unwrap_or(id.len())])
        }
        (absolute, _) => absolute.to_owned(),
    };
    let name = fragment
        .strip_prefix("/$defs/")
        .filter(|n| !n.contains(['/', '~', '%']));
    match name {
        Some(name) if document == DEFINITIONS_URI => Ok(name.to_owned()),
        _ => Err(format!(
            "{at}: `$ref` {reference:?} is not a definition of {DEFINITIONS_URI} (#/$defs/NAME)"
        )),
    }
}

/// `type` as bits, and whether jsonschema reports it as one type.
fn types(value: &Value, at: &str) -> Result<(u8, bool), String> {
    let names: Vec<&Value> = match value {
        Value::String(_) => vec![value],
        Value::Array(items) if !items.is_empty() => items.iter().collect(),
        _ => return Err(format!("{at}: expected a type name or a list of them")),
    };
    let mut bits = 0;
    for name in &names {
        let name = name.as_str().unwrap_or_default();
        let bit = TYPES.iter().find(|(n, _)| *n == name).map(|(_, b)| *b);
        bits |= bit.ok_or(format!("{at}: unknown type {name:?}"))?;
    }
    Ok((bits, names.len() == 1))
}

/// A non-empty list of distinct strings (`enum`, `required`).
fn strings(value: &Value, at: &str, keyword: &str) -> Result<Vec<String>, String> {
    let items = value.as_array().filter(|i| !i.is_empty());
    let items = items.ok_or(format!("{at}: expected a non-empty list"))?;
    let mut out: Vec<String> = Vec::new();
    for item in items {
        let item = item.as_str().ok_or(format!(
            "{at}: the baked validator supports `{keyword}` of strings only"
        ))?;
        if out.iter().any(|o| o == item) {
            return Err(format!("{at}: {item:?} is listed twice"));
        }
        out.push(item.to_owned());
    }
    Ok(out)
}

fn limit(value: &Value, at: &str) -> Result<i64, String> {
    value
        .as_i64()
        .filter(|l| l.abs() <= EXACT_LIMIT)
        .ok_or(format!(
            "{at}: the baked validator supports integer limits up to 2^53 only"
        ))
}

fn length(value: &Value, at: &str) -> Result<u64, String> {
    value
        .as_u64()
        .ok_or(format!("{at}: expected a non-negative integer"))
}

/// Refuses what jsonschema 0.61 checks in a way the baked validator does not
/// reproduce (see its fused `additionalProperties` validators).
fn check_combination(node: &Node, where_: &str) -> Result<(), String> {
    let closed = matches!(node.additional, Some(Additional::Forbid));
    if !node.properties.is_empty() && !closed {
        return Err(format!(
            "{where_}: `properties` without `additionalProperties: false` is not supported"
        ));
    }
    if closed && node.properties.is_empty() {
        return Err(format!(
            "{where_}: `additionalProperties: false` without `properties` is not supported"
        ));
    }
    if let Some(name) = node
        .required
        .iter()
        .find(|r| closed && !node.properties.contains_key(*r))
    {
        return Err(format!(
            "{where_}: `required` names {name:?}, which `properties` lacks"
        ));
    }
    Ok(())
}

/// The node as a Rust expression over `Node::ANY`, its strings and lists
/// stored in `pools` (once each: the text is also the node's identity).
fn render_node(node: &Node, pools: &mut Pools) -> String {
    let mut fields = String::new();
    let mut field = |name: &str, value: String| {
        let _ = write!(fields, "{name}: {value}, ");
    };
    if let Some((bits, single)) = node.types {
        field("types", bits.to_string());
        field("single_type", single.to_string());
    }
    if let Some(constant) = &node.constant {
        let (at, len) = pools.string(constant);
        field("constant", format!("Some(Str({at}, {len}))"));
    }
    let list = |(at, len): (u32, u32)| format!("List({at}, {len})");
    if !node.enumeration.is_empty() {
        field("enumeration", list(pools.strs(&node.enumeration)));
    }
    let some = |v: Option<String>| v.map(|v| format!("Some({v})"));
    let numbers = [
        ("minimum", some(node.minimum.map(|v| v.to_string()))),
        ("maximum", some(node.maximum.map(|v| v.to_string()))),
        ("min_length", some(node.min_length.map(|v| v.to_string()))),
        ("max_length", some(node.max_length.map(|v| v.to_string()))),
        ("pattern", some(node.pattern.map(|v| v.to_string()))),
        (
            "format",
            some(node.format.as_ref().map(|v| {
                let (at, len) = pools.string(v);
                format!("Str({at}, {len})")
            })),
        ),
        ("items", some(node.items.map(|v| v.to_string()))),
    ];
    for (name, value) in numbers {
        if let Some(value) = value {
            field(name, value);
        }
    }
    if !node.required.is_empty() {
        field("required", list(pools.strs(&node.required)));
        // jsonschema fuses a single `required` into the closed-object walk,
        // which reports it after that walk.
        let late = node.required.len() == 1 && !node.properties.is_empty();
        field("required_late", late.to_string());
    }
    if !node.properties.is_empty() {
        field("properties", list(pools.members(&node.properties)));
    }
    if !node.filled.is_empty() {
        field("filled", list(pools.strs(&node.filled)));
    }
    match node.additional {
        Some(Additional::Forbid) => field("additional", "Additional::Forbid".into()),
        Some(Additional::Node(i)) => field("additional", format!("Additional::Node({i})")),
        None => {}
    }
    for (name, branches) in [("any_of", &node.any_of), ("one_of", &node.one_of)] {
        if !branches.is_empty() {
            field(name, list(pools.branches(branches)));
        }
    }
    format!("Node {{ {fields}..Node::ANY }}")
}
