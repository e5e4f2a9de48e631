//! The overlay schema: what one values file may say, for editors.
//!
//! A values file is a layer over the built-in defaults (and over the files
//! before it), so no key of it is required: an overlay that sets only
//! `images.buildd.tag` is complete. The overlay schema is the strict schema
//! of the merged values ([`crate::schema::values_schema`]) with every
//! `required` dropped where layers merge (objects, maps), and kept where a
//! layer replaces the whole value (a list's items: a project written in a
//! file is the whole project). Types, patterns, enums, bounds and
//! `additionalProperties: false` stay, so a typo still shows in the editor.
//! Committed as `schema/values.overlay.schema.json`; the merged values are
//! still validated with the strict schema (`schema/values.schema.json`).

use std::collections::BTreeSet;

use serde_json::{Map, Value as Json};

/// Keywords whose value is one subschema.
const ONE: [&str; 10] = [
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
];
/// Keywords whose value is a list of subschemas.
const LIST: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const MAP: [&str; 3] = ["properties", "patternProperties", "dependentSchemas"];
/// Where a layer replaces the whole value: below these, `required` stays.
const WHOLE: [&str; 2] = ["items", "prefixItems"];

/// A tag as the image reference grammar has it (`names::image_reference`).
const TAG_PATTERN: &str = "^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$";

/// A tag that is also a label value (at most 63 characters, starting and
/// ending with a letter or digit): the tag of an image a workload always
/// runs, which becomes its `app.kubernetes.io/version` label.
const VERSION_TAG_PATTERN: &str = "^[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$";

/// Every image's tag follows the reference grammar; the images of buildd
/// and the gateway (`plan::versioned_images` always holds them; Kata's
/// only with Kata, a rule across keys) have a label value for a tag, as
/// `VersionedImage`.
fn images_of_one_key(strict: &mut Json) {
    let Some(Json::Object(image)) = strict["$defs"].get("Image").cloned() else {
        return;
    };
    let with_tag = |pattern: &str| {
        let mut image = image.clone();
        if let Some(Json::Object(tag)) = image.get_mut("properties").and_then(|p| p.get_mut("tag"))
        {
            tag.insert("pattern".to_owned(), Json::from(pattern));
        }
        Json::Object(image)
    };
    let (tagged, versioned) = (with_tag(TAG_PATTERN), with_tag(VERSION_TAG_PATTERN));
    if let Some(Json::Object(defs)) = strict.get_mut("$defs") {
        defs.insert("Image".to_owned(), tagged);
        defs.insert("VersionedImage".to_owned(), versioned);
    }
    for workload in ["buildd", "gateway"] {
        if let Some(Json::Object(image)) = strict["$defs"]["Images"]["properties"].get_mut(workload)
        {
            image.insert("$ref".to_owned(), Json::from("#/$defs/VersionedImage"));
        }
    }
}

/// A label or annotation key (`names::qualified_name`): an optional DNS
/// subdomain and `/`, then a name of at most 63 letters, digits, `-`, `_`
/// or `.` with alphanumeric ends. (The subdomain's 253 characters are
/// chartgen's alone.)
const QUALIFIED_NAME_PATTERN: &str = "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$";

/// A label value (`names::label_value`): empty, or at most 63 letters,
/// digits, `-`, `_` or `.` with alphanumeric ends.
const LABEL_VALUE_PATTERN: &str = "^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$";

/// The maps of labels (keys and values checked) and of annotations (keys),
/// by their key in the values: every such map chartgen checks.
const LABEL_MAPS: [&str; 6] = [
    "commonLabels",
    "podLabels",
    "namespaceLabels",
    "nodeSelector",
    "matchLabels",
    "labels",
];
const ANNOTATION_MAPS: [&str; 2] = ["commonAnnotations", "podAnnotations"];

/// Each label and annotation map's keys, and a label map's values, in
/// Kubernetes' syntax, as chartgen's rules check them.
fn label_maps(strict: &mut Json) {
    fn visit(schema: &mut Json) {
        let Some(Json::Object(properties)) = schema.get_mut("properties") else {
            return;
        };
        for (name, map) in properties.iter_mut() {
            let labels = LABEL_MAPS.contains(&name.as_str());
            if !labels && !ANNOTATION_MAPS.contains(&name.as_str()) {
                continue;
            }
            let Some(Json::Object(values)) = map.get_mut("additionalProperties") else {
                continue;
            };
            if values.get("type") != Some(&Json::from("string")) {
                continue;
            }
            if labels {
                values.insert("pattern".to_owned(), Json::from(LABEL_VALUE_PATTERN));
                values.insert("maxLength".to_owned(), Json::from(63));
            }
            if let Json::Object(map) = map {
                map.insert(
                    "propertyNames".to_owned(),
                    serde_json::json!({"pattern": QUALIFIED_NAME_PATTERN}),
                );
            }
        }
    }
    visit(strict);
    if let Some(Json::Object(defs)) = strict.get_mut("$defs") {
        defs.values_mut().for_each(visit);
    }
}

/// Whether a subschema is a layer (merged) or written whole (replaced).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Mode {
    Layer,
    Whole,
}

/// The overlay schema as JSON.
pub fn overlay_schema() -> Json {
    let mut strict = crate::schema::values_schema();
    rules_of_one_key(&mut strict);
    overlay_of(&strict)
}

/// A DNS-1035 label: a DNS-1123 label that starts with a letter.
const DNS1035_LABEL_PATTERN: &str = "^[a-z]([-a-z0-9]*[a-z0-9])?$";

/// The rules chartgen checks on one key alone, beyond the strict schema
/// (`crate::model::rules`, which words them better than a schema would),
/// written into the overlay so that the editor refuses what they refuse:
/// the release name begins Service names (a DNS-1035 label of at most
/// [`rules::MAX_RELEASE_NAME`] characters), and no namespace of the chart
/// is a reserved one. Rules across keys stay chartgen's alone.
fn rules_of_one_key(strict: &mut Json) {
    use crate::model::rules;
    let Some(properties) = strict.get_mut("properties") else {
        return;
    };
    if let Some(Json::Object(release)) = properties.get_mut("releaseName") {
        release.remove("$ref");
        release.insert("type".to_owned(), Json::from("string"));
        release.insert("minLength".to_owned(), Json::from(1));
        release.insert("maxLength".to_owned(), Json::from(rules::MAX_RELEASE_NAME));
        release.insert("pattern".to_owned(), Json::from(DNS1035_LABEL_PATTERN));
    }
    images_of_one_key(strict);
    label_maps(strict);
    let namespaces = strict["properties"]["namespaces"]["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .map(str::to_owned);
    let Some(name) = namespaces else {
        return;
    };
    // The label's definition written out in each class: draft-07 readers
    // (the editor) ignore a keyword beside a `$ref`.
    let mut label = strict["$defs"]["DnsLabel"].clone();
    if let Json::Object(label) = &mut label {
        label.remove("description");
        label.insert(
            "not".to_owned(),
            serde_json::json!({"enum": rules::RESERVED_NAMESPACES}),
        );
    }
    if let Some(Json::Object(classes)) = strict["$defs"][name.as_str()].get_mut("properties") {
        for class in classes.values_mut() {
            if let Json::Object(class) = class
                && class.remove("$ref").is_some()
                && let Json::Object(label) = &label
            {
                class.extend(label.clone());
            }
        }
    }
}

/// The overlay schema as the text committed in
/// `schema/values.overlay.schema.json`.
pub fn overlay_schema_text() -> String {
    let mut text =
        serde_json::to_string_pretty(&overlay_schema()).expect("a JSON value always serializes");
    text.push('\n');
    text
}

/// The overlay of a strict schema whose definitions are in `$defs`.
fn overlay_of(strict: &Json) -> Json {
    let empty = Map::new();
    let defs = strict["$defs"].as_object().unwrap_or(&empty);
    let mut used = BTreeSet::new();
    uses(strict, Mode::Layer, defs, &mut used);
    // A definition used both ways needs a whole form of its own when its
    // two forms differ (a required key, a null that deletes a key): found
    // to a fixed point, as a form names the forms it refers to.
    let mut names = Names {
        twice: BTreeSet::new(),
        defs,
    };
    loop {
        let differ: Vec<String> = (used.iter())
            .filter(|(n, m)| *m == Mode::Whole && used.contains(&(n.clone(), Mode::Layer)))
            .map(|(n, _)| n.clone())
            .filter(|n| !names.twice.contains(n))
            .filter(|n| {
                let def = &defs[n.as_str()];
                nullable(transform(def, Mode::Layer, false, &names))
                    != transform(def, Mode::Whole, false, &names)
            })
            .collect();
        if differ.is_empty() {
            break;
        }
        names.twice.extend(differ);
    }
    let mut root = transform(strict, Mode::Layer, false, &names);
    let mut out = Map::new();
    for (name, mode) in &used {
        if let Some(def) = defs.get(name) {
            let mut form = transform(def, *mode, false, &names);
            if *mode == Mode::Layer {
                form = nullable(form);
            }
            // Each place that refers to a definition carries its
            // description ([`transform`]): a definition's own would come
            // first on hover, before the key's (yaml-language-server shows
            // the first description it meets, and meets the referred
            // schema first).
            if let Some(form) = form.as_object_mut() {
                form.remove("description");
            }
            out.insert(names.of(name, *mode), form);
        }
    }
    if let Some(object) = root.as_object_mut() {
        // An empty (or comments-only) values file is a layer that changes
        // nothing: its document is null, and chartgen takes it.
        object.insert("type".to_owned(), serde_json::json!(["object", "null"]));
        object.insert("$defs".to_owned(), Json::Object(out));
        // No title: yaml-language-server heads every hover with the
        // nearest title above the key, which would be the root's.
        object.remove("title");
        object.insert("description".to_owned(), Json::from(DESCRIPTION));
    }
    root
}

/// The root description of the overlay schema.
const DESCRIPTION: &str = "One values file: a layer over the built-in defaults and the files before it, so every key is optional (a list item is written whole), a null deletes a key that is not required, and `KEY+` appends to the list KEY. For editors: `# yaml-language-server: $schema=schema/values.overlay.schema.json`. The merged values are validated with the strict schema, schema/values.schema.json (`chartgen schema merged`).";

/// The name each definition takes in the overlay: its own, but for the
/// whole form of one that differs in a layer and is used both ways
/// (`<name>Item`); and the strict definitions, for their descriptions.
struct Names<'a> {
    twice: BTreeSet<String>,
    defs: &'a Map<String, Json>,
}

impl Names<'_> {
    fn of(&self, name: &str, mode: Mode) -> String {
        if mode == Mode::Whole && self.twice.contains(name) {
            format!("{name}Item")
        } else {
            name.to_owned()
        }
    }
}

/// The definition a `$ref` names, when it is one of `$defs`.
fn def_name(reference: &Json) -> Option<&str> {
    reference.as_str()?.strip_prefix("#/$defs/")
}

/// Every (definition, mode) reached from `schema` in `mode`.
fn uses(schema: &Json, mode: Mode, defs: &Map<String, Json>, used: &mut BTreeSet<(String, Mode)>) {
    let Some(object) = schema.as_object() else {
        return;
    };
    if let Some(name) = object.get("$ref").and_then(def_name)
        && used.insert((name.to_owned(), mode))
        && let Some(def) = defs.get(name)
    {
        uses(def, mode, defs, used);
    }
    for (key, value) in object {
        let mode = if WHOLE.contains(&key.as_str()) {
            Mode::Whole
        } else {
            mode
        };
        for child in subschemas(key, value) {
            uses(child, mode, defs, used);
        }
    }
}

/// The subschemas a keyword holds (none for a keyword that holds data).
fn subschemas<'a>(key: &str, value: &'a Json) -> Vec<&'a Json> {
    if ONE.contains(&key) {
        vec![value]
    } else if LIST.contains(&key) {
        value
            .as_array()
            .map(|a| a.iter().collect())
            .unwrap_or_default()
    } else if MAP.contains(&key) {
        value
            .as_object()
            .map(|m| m.values().collect())
            .unwrap_or_default()
    } else {
        Vec::new()
    }
}

/// `schema` for `mode` (`branch`: it is a branch of an `anyOf`/`oneOf`):
///
/// - `required` dropped in a layer, references renamed;
/// - in a layer, a null accepted where it deletes a key the merged values
///   do not require ([`nullable`]; chartgen's `drop_nulls`);
/// - a number accepted where chartgen reads it as the text as written
///   ([`numbers_as_written`]; chartgen's `strings_as_written`);
/// - an enum of documented constants written as `enum` with
///   `markdownEnumDescriptions`, and descriptions kept off branches and
///   moved from definitions to the places that refer to them, so that
///   hovering a key shows the key's description, not a value's;
/// - every other keyword as it was. `$defs` are built by the caller.
fn transform(schema: &Json, mode: Mode, branch: bool, names: &Names<'_>) -> Json {
    let schema = enum_of_constants(schema);
    let Some(object) = schema.as_object() else {
        return schema.into_owned();
    };
    let required: BTreeSet<&str> = (object.get("required").and_then(Json::as_array))
        .map(|r| r.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    for (key, value) in object {
        let child = if WHOLE.contains(&key.as_str()) {
            Mode::Whole
        } else {
            mode
        };
        let value = match key.as_str() {
            "required" if mode == Mode::Layer => continue,
            "$defs" => continue,
            "description" | "title" | "markdownDescription" if branch => continue,
            "$ref" => match def_name(value) {
                Some(name) => Json::from(format!("#/$defs/{}", names.of(name, mode))),
                None => value.clone(),
            },
            "additionalProperties" if mode == Mode::Layer && value.is_object() => {
                nullable(transform(value, child, false, names))
            }
            k if ONE.contains(&k) => transform(value, child, false, names),
            k if LIST.contains(&k) => match value.as_array() {
                Some(items) => {
                    let branch = matches!(k, "anyOf" | "oneOf");
                    (items.iter())
                        .map(|s| transform(s, child, branch, names))
                        .collect()
                }
                None => value.clone(),
            },
            "properties" if mode == Mode::Layer => match value.as_object() {
                Some(map) => Json::Object(
                    map.iter()
                        .map(|(n, s)| {
                            let s = transform(s, child, false, names);
                            // A null deletes the key: fine unless the
                            // merged values require it.
                            let s = if required.contains(n.as_str()) {
                                not_null(s)
                            } else {
                                nullable(s)
                            };
                            (n.clone(), s)
                        })
                        .collect(),
                ),
                None => value.clone(),
            },
            k if MAP.contains(&k) => match value.as_object() {
                Some(map) => Json::Object(
                    map.iter()
                        .map(|(n, s)| (n.clone(), transform(s, child, false, names)))
                        .collect(),
                ),
                None => value.clone(),
            },
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    if mode == Mode::Layer {
        appends(&mut out);
    }
    // No key of a map may end with `+` (`crate::values::APPEND`): chartgen
    // reads it as an append, and a map's value is no list.
    if out.get("additionalProperties").is_some_and(Json::is_object)
        && !out.contains_key("propertyNames")
    {
        out.insert(
            "propertyNames".to_owned(),
            serde_json::json!({"pattern": NO_APPEND_PATTERN}),
        );
    }
    if !branch
        && !out.contains_key("description")
        && let Some(description) = described(&schema, names)
    {
        out.insert("description".to_owned(), Json::from(description));
    }
    numbers_as_written(&mut out);
    finite(&mut out);
    Json::Object(out)
}

/// A key that does not end with [`crate::values::APPEND`].
const NO_APPEND_PATTERN: &str = "^(.*[^+])?$";

/// In a layer, `KEY+` for each list `KEY` of an object: its items are
/// appended to those of `KEY` below (`crate::values::merge`), so it takes
/// a list of the same items, and not beside `KEY` itself.
fn appends(out: &mut Map<String, Json>) {
    let append = crate::values::APPEND;
    let Some(Json::Object(properties)) = out.get_mut("properties") else {
        return;
    };
    let lists: Vec<(String, Json)> = (properties.iter())
        .filter_map(|(name, schema)| {
            let list = match schema.get("type") {
                Some(Json::String(t)) => t == "array",
                Some(Json::Array(ts)) => ts.contains(&Json::from("array")),
                _ => false,
            };
            list.then(|| {
                (
                    name.clone(),
                    schema.get("items").cloned().unwrap_or(Json::Bool(true)),
                )
            })
        })
        .collect();
    if lists.is_empty() {
        return;
    }
    let mut both = Vec::new();
    for (name, items) in lists {
        let description = format!(
            "Items appended to `{name}` after those the layers below give (a default or an earlier file must set `{name}`); not beside `{name}` itself."
        );
        properties.insert(
            format!("{name}{append}"),
            serde_json::json!({"type": "array", "items": items, "description": description}),
        );
        // `type`: a null (which deletes the object) holds neither.
        both.push(serde_json::json!({"type": "object",
            "required": [name.clone(), format!("{name}{append}")]}));
    }
    if !out.contains_key("not") {
        out.insert("not".to_owned(), serde_json::json!({"anyOf": both}));
    }
}

/// The description a place that refers to a definition shows when it has
/// none of its own: the definition's, or its first branch's.
fn described(schema: &Json, names: &Names<'_>) -> Option<String> {
    let object = schema.as_object()?;
    if let Some(text) = object.get("description").and_then(Json::as_str) {
        return Some(text.to_owned());
    }
    if let Some(def) = (object.get("$ref").and_then(def_name)).and_then(|n| names.defs.get(n)) {
        return described(def, names);
    }
    ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| object.get(*k).and_then(Json::as_array))
        .flatten()
        .find_map(|branch| described(branch, names))
}

/// A `oneOf` of string constants, each documented (how schemars writes a
/// documented enum), as one `enum` with `markdownEnumDescriptions`: the
/// same values, and yaml-language-server lists each value's description
/// under the key's instead of showing a value's as the key's.
fn enum_of_constants(schema: &Json) -> std::borrow::Cow<'_, Json> {
    let Some(branches) = schema.get("oneOf").and_then(Json::as_array) else {
        return std::borrow::Cow::Borrowed(schema);
    };
    let constants: Option<Vec<(&str, &str)>> = (branches.iter())
        .map(|branch| {
            let object = branch.as_object()?;
            let text = object.get("const")?.as_str()?;
            let known = |k: &String| matches!(k.as_str(), "type" | "const" | "description");
            (object.keys().all(known) && object.get("type") == Some(&Json::from("string"))).then(
                || {
                    (
                        text,
                        object
                            .get("description")
                            .and_then(Json::as_str)
                            .unwrap_or(""),
                    )
                },
            )
        })
        .collect();
    let Some(constants) = constants.filter(|c| !c.is_empty()) else {
        return std::borrow::Cow::Borrowed(schema);
    };
    let mut out = schema.as_object().cloned().unwrap_or_default();
    out.remove("oneOf");
    out.insert("type".to_owned(), Json::from("string"));
    out.insert(
        "enum".to_owned(),
        constants
            .iter()
            .map(|(value, _)| Json::from(*value))
            .collect(),
    );
    if constants.iter().any(|(_, text)| !text.is_empty()) {
        out.insert(
            "markdownEnumDescriptions".to_owned(),
            constants
                .iter()
                .map(|(_, text)| Json::from(*text))
                .collect(),
        );
    }
    std::borrow::Cow::Owned(Json::Object(out))
}

/// Whether `schema` takes a null as it is, without following a `$ref`.
fn accepts_null(schema: &Json) -> bool {
    let Some(object) = schema.as_object() else {
        return schema == &Json::Bool(true);
    };
    let typed = |t: &Json| {
        t == "null"
            || t.as_array()
                .is_some_and(|ts| ts.contains(&Json::from("null")))
    };
    if object.get("type").is_some_and(typed) {
        return true;
    }
    let constrained = [
        "type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf", "not",
    ];
    if !constrained.iter().any(|k| object.contains_key(*k)) {
        return true;
    }
    ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| object.get(*k).and_then(Json::as_array))
        .flatten()
        .any(accepts_null)
}

/// `schema` in a layer, where a null deletes the key: `null` added to its
/// `type` (and `enum`), so that a wrong type is still worded with the
/// key's own type; a `$ref` is left as it is, every definition in a layer
/// taking a null itself; anything else the first branch of an `anyOf` with
/// `{"type": "null"}`, the key's description and default on the whole.
fn nullable(schema: Json) -> Json {
    if accepts_null(&schema) {
        return schema;
    }
    let Json::Object(mut object) = schema else {
        return schema;
    };
    if object.contains_key("$ref") {
        return Json::Object(object);
    }
    let others = ["anyOf", "oneOf", "allOf"];
    // A `not` that refuses no null lets it through.
    let not_null = object.get("not").is_some_and(accepts_null);
    if object.contains_key("type") && !others.iter().any(|k| object.contains_key(*k)) && !not_null {
        match object.get_mut("type") {
            Some(Json::Array(types)) => types.push(Json::from("null")),
            Some(one) => *one = serde_json::json!([one.take(), "null"]),
            None => {}
        }
        if let Some(constant) = object.remove("const") {
            object.insert("enum".to_owned(), serde_json::json!([constant]));
        }
        if let Some(Json::Array(values)) = object.get_mut("enum") {
            values.push(Json::Null);
        }
        if let Some(Json::Array(texts)) = object.get_mut("markdownEnumDescriptions") {
            texts.push(Json::from("Deletes the key, as in Helm."));
        }
        return Json::Object(object);
    }
    let mut outer = texts(&mut object);
    outer.insert(
        "anyOf".to_owned(),
        serde_json::json!([Json::Object(object), {"type": "null"}]),
    );
    Json::Object(outer)
}

/// The texts and default of a schema, taken out for the schema that wraps
/// it (an editor shows the outermost description).
fn texts(object: &mut Map<String, Json>) -> Map<String, Json> {
    let mut outer = Map::new();
    for key in ["description", "title", "markdownDescription", "default"] {
        if let Some(value) = object.remove(key) {
            outer.insert(key.to_owned(), value);
        }
    }
    outer
}

/// `schema` at a key the merged values require, in a layer: a null would
/// delete it. Only a `$ref` needs saying so (a definition in a layer
/// takes a null); `allOf`, as a draft-07 reader ignores a keyword beside
/// a `$ref`.
fn not_null(schema: Json) -> Json {
    let Json::Object(mut object) = schema else {
        return schema;
    };
    if !object.contains_key("$ref") {
        return Json::Object(object);
    }
    let mut outer = texts(&mut object);
    outer.insert(
        "allOf".to_owned(),
        serde_json::json!([Json::Object(object)]),
    );
    outer.insert("not".to_owned(), serde_json::json!({"type": "null"}));
    Json::Object(outer)
}

/// chartgen refuses `.inf`, `-.inf` and a number too large for a float
/// wherever they stand; an editor reads them as infinities, which only a
/// bound refuses (`.nan` no bound can).
fn finite(out: &mut Map<String, Json>) {
    let number = match out.get("type") {
        Some(Json::String(t)) => t == "number",
        Some(Json::Array(ts)) => ts.contains(&Json::from("number")),
        _ => false,
    };
    if number {
        out.entry("maximum").or_insert(Json::from(f64::MAX));
        out.entry("minimum").or_insert(Json::from(f64::MIN));
    }
}

/// Where the strict schema wants only a string (`type: string`, or with
/// `null`), chartgen reads a plain number as the text as written
/// (`crate::schema::strings_as_written`: `tag: 1.10` is the tag `1.10`).
/// An editor sees the number, not its text, so the overlay takes the
/// numbers whose ordinary writing (`0`, `7`, `123`, `-7`, `1.5`, `-1.5`)
/// the string's `pattern`, lengths and `enum` take, by class: integers or
/// all numbers, from 0 up where no negative writing fits, only 0 where
/// only `0` does; a string no number's text fits is left as it is.
fn numbers_as_written(out: &mut Map<String, Json>) {
    let string_only = match out.get("type") {
        Some(Json::String(t)) => t == "string",
        Some(Json::Array(ts)) => {
            ts.contains(&Json::from("string")) && ts.iter().all(|t| t == "string" || t == "null")
        }
        _ => false,
    };
    if !string_only {
        return;
    }
    let pattern = (out.get("pattern").and_then(Json::as_str))
        .map(|p| regex::Regex::new(p).expect("the values schema's patterns compile"));
    let length = |key: &str| out.get(key).and_then(Json::as_u64);
    let (min_length, max_length) = (length("minLength"), length("maxLength"));
    let allowed: Option<Vec<&str>> = (out.get("enum").and_then(Json::as_array))
        .map(|values| values.iter().filter_map(Json::as_str).collect());
    let constant = out.get("const").and_then(Json::as_str);
    let fits = |text: &str| {
        let chars = text.chars().count() as u64;
        pattern.as_ref().is_none_or(|p| p.is_match(text))
            && min_length.is_none_or(|m| chars >= m)
            && max_length.is_none_or(|m| chars <= m)
            && allowed.as_ref().is_none_or(|a| a.contains(&text))
            && constant.is_none_or(|c| c == text)
    };
    let all = |texts: &[&str]| texts.iter().all(|t| fits(t));
    let zero = fits("0");
    let positive = all(&["7", "10", "123"]);
    let negative = all(&["-7", "-10", "-123"]);
    let fractions = all(&["1.5", "0.25"]) && (!negative || all(&["-1.5", "-0.25"]));
    if !(zero || positive || negative) {
        return;
    }
    let kind = if fractions { "number" } else { "integer" };
    if let Some(Json::Array(types)) = out.get_mut("type") {
        types.insert(1, Json::from(kind));
    } else {
        out.insert("type".to_owned(), serde_json::json!(["string", kind]));
    }
    if !negative {
        out.insert(
            "minimum".to_owned(),
            Json::from(if positive || zero { 0 } else { 1 }),
        );
    }
    if !positive {
        out.insert(
            "maximum".to_owned(),
            Json::from(if negative || zero { 0 } else { -1 }),
        );
    }
    // An integer's digits count against the string's length.
    if let Some(max) = max_length.filter(|m| (1..19).contains(m) && !fractions) {
        let widest = 10_i64.pow(max as u32) - 1;
        if positive {
            out.insert("maximum".to_owned(), Json::from(widest));
        }
        if negative {
            out.insert("minimum".to_owned(), Json::from(-(widest / 10)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn required_goes_in_layers_and_stays_in_list_items() {
        let strict = json!({
            "type": "object",
            "properties": {
                "image": {"$ref": "#/$defs/Image"},
                "list": {"type": "array", "items": {"$ref": "#/$defs/Image"}},
                "required": {"type": "object", "required": ["x"]},
            },
            "$defs": {"Image": {"type": "object", "required": ["tag"],
                "additionalProperties": false, "properties": {"tag": {"type": "string"}}}},
        });
        let overlay = overlay_of(&strict);
        assert_eq!(overlay["properties"]["image"]["$ref"], "#/$defs/Image");
        assert_eq!(
            overlay["properties"]["list"]["items"]["$ref"],
            "#/$defs/ImageItem"
        );
        assert!(overlay["$defs"]["Image"].get("required").is_none());
        assert_eq!(overlay["$defs"]["Image"]["additionalProperties"], false);
        assert_eq!(overlay["$defs"]["ImageItem"]["required"], json!(["tag"]));
        // A property named `required` is a property, not the keyword.
        assert!(overlay["properties"]["required"].is_object());
        assert!(overlay["properties"]["required"].get("required").is_none());
    }

    #[test]
    fn a_definition_the_same_both_ways_is_written_once() {
        let strict = json!({
            "type": "object",
            "properties": {
                "one": {"$ref": "#/$defs/Label"},
                "many": {"type": "array", "items": {"$ref": "#/$defs/Label"}},
            },
            "$defs": {"Label": {"anyOf": [{"type": "boolean"}, {"type": "null"}]}},
        });
        let overlay = overlay_of(&strict);
        assert_eq!(
            overlay["properties"]["many"]["items"]["$ref"],
            "#/$defs/Label"
        );
        assert_eq!(overlay["$defs"], strict["$defs"]);
    }

    #[test]
    fn a_null_is_taken_in_a_layer_where_it_deletes_a_key_not_required() {
        let strict = json!({
            "type": "object",
            "properties": {
                "image": {"$ref": "#/$defs/Image"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "list": {"type": "array", "items": {"$ref": "#/$defs/Image"}},
            },
            "$defs": {"Image": {"type": "object", "required": ["tag", "pull"],
                "properties": {"tag": {"type": "boolean"}, "digest": {"type": "boolean"},
                    "pull": {"$ref": "#/$defs/Pull"}, "policy": {"$ref": "#/$defs/Pull"}}},
                "Pull": {"type": "string", "enum": ["Always", "Never"]}},
        });
        let overlay = overlay_of(&strict);
        let image = &overlay["$defs"]["Image"];
        assert_eq!(image["type"], json!(["object", "null"]));
        assert_eq!(image["properties"]["tag"]["type"], "boolean");
        assert_eq!(
            image["properties"]["digest"]["type"],
            json!(["boolean", "null"])
        );
        // A definition in a layer takes a null; where it is required, the
        // key says no.
        assert_eq!(
            image["properties"]["policy"],
            json!({"$ref": "#/$defs/Pull"})
        );
        assert_eq!(
            image["properties"]["pull"],
            json!({"allOf": [{"$ref": "#/$defs/Pull"}], "not": {"type": "null"}})
        );
        assert_eq!(
            overlay["$defs"]["Pull"]["enum"],
            json!(["Always", "Never", null])
        );
        let labels = &overlay["properties"]["labels"];
        assert_eq!(
            labels["additionalProperties"]["type"],
            json!(["string", "number", "null"])
        );
        // In a list item, written whole, a null is a value: the strict schema's.
        let item = &overlay["$defs"]["ImageItem"];
        assert_eq!(item["type"], "object");
        assert_eq!(item["properties"]["digest"]["type"], "boolean");
        assert_eq!(
            item["properties"]["pull"],
            json!({"$ref": "#/$defs/PullItem"})
        );
        assert_eq!(
            overlay["$defs"]["PullItem"]["enum"],
            json!(["Always", "Never"])
        );
    }

    /// The number classes a string's constraints let through, as the
    /// overlay writes them (`type` beside `string`, `minimum`, `maximum`).
    fn numbers(string: Json) -> Json {
        let Json::Object(mut out) = string else {
            unreachable!()
        };
        numbers_as_written(&mut out);
        let keep = ["type", "minimum", "maximum"];
        Json::Object(
            out.into_iter()
                .filter(|(k, _)| keep.contains(&k.as_str()))
                .collect(),
        )
    }

    #[test]
    fn a_number_is_taken_where_its_text_fits_the_string() {
        assert_eq!(
            numbers(json!({"type": "string", "minLength": 1, "maxLength": 128})),
            json!({"type": ["string", "number"]})
        );
        assert_eq!(
            numbers(json!({"type": ["string", "null"]})),
            json!({"type": ["string", "number", "null"]})
        );
        // A DNS label: digits, never a sign or a dot; as many as it holds.
        assert_eq!(
            numbers(json!({"type": "string", "maxLength": 6,
                "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"})),
            json!({"type": ["string", "integer"], "minimum": 0, "maximum": 999_999})
        );
        // Only `0` is a duration without a unit.
        assert_eq!(
            numbers(json!({"type": "string", "pattern": "^(0|([0-9]+s)?)$"})),
            json!({"type": ["string", "integer"], "minimum": 0, "maximum": 0})
        );
        // No number's text fits: the string stays a string.
        for string in [
            json!({"type": "string", "pattern": "^sha256:[a-f0-9]{64}$"}),
            json!({"type": "string", "enum": ["debug", "info"]}),
            json!({"type": "string", "pattern": "^[a-z]([-a-z0-9]*[a-z0-9])?$"}),
        ] {
            assert_eq!(numbers(string.clone())["type"], "string", "{string}");
        }
        // Where a number may stand already, nothing changes.
        assert_eq!(
            numbers(json!({"type": ["string", "number"], "minimum": 0})),
            json!({"type": ["string", "number"], "minimum": 0})
        );
    }

    #[test]
    fn hover_texts_are_the_keys_and_an_enum_lists_its_values() {
        let strict = json!({
            "type": "object",
            "properties": {
                "level": {"$ref": "#/$defs/Level", "description": "Log verbosity."},
                "other": {"$ref": "#/$defs/Level"},
            },
            "$defs": {"Level": {"description": "A level.", "oneOf": [
                {"type": "string", "const": "debug", "description": "Everything."},
                {"type": "string", "const": "info", "description": "Normal operation."},
            ]}},
        });
        let overlay = overlay_of(&strict);
        let level = &overlay["$defs"]["Level"];
        assert_eq!(level["enum"], json!(["debug", "info", null]));
        assert_eq!(level["markdownEnumDescriptions"][1], "Normal operation.");
        assert!(level.get("oneOf").is_none() && level.get("description").is_none());
        assert_eq!(
            overlay["properties"]["level"]["description"],
            "Log verbosity."
        );
        // A key without a description of its own takes its type's.
        assert_eq!(overlay["properties"]["other"]["description"], "A level.");
    }

    #[test]
    fn the_overlay_takes_an_append_to_a_list_but_not_beside_it() {
        let overlay = jsonschema::validator_for(&overlay_schema()).unwrap();
        let project = json!({"name": "web", "repository": "https://e.com/web.git"});
        let valid = [
            json!({"projects+": [project]}),
            json!({"network": {"apiServer": {"ports+": [8443]}}}),
            json!({"buildd": {"tolerations+": [{"key": "a", "operator": "Exists"}]}}),
            json!({"buildd": null, "projects": null}),
            Json::Null,
        ];
        for values in valid {
            assert!(overlay.is_valid(&values), "{values}");
        }
        let invalid = [
            json!({"projects+": [{"name": "web"}]}),
            json!({"projects": [], "projects+": [project]}),
            json!({"releaseName+": ["a"]}),
            json!({"projects+": null}),
            json!({"commonLabels": {"team+": "a"}}),
            json!({"projects+": [{"name": "web", "repository": "https://e.com/web.git", "resources+": []}]}),
        ];
        for values in invalid {
            assert!(!overlay.is_valid(&values), "{values}");
        }
    }

    #[test]
    fn the_label_patterns_are_kubernetes_rules() {
        use kubernetes::names::{label_value, qualified_name};
        let key = regex::Regex::new(QUALIFIED_NAME_PATTERN).unwrap();
        let value = regex::Regex::new(LABEL_VALUE_PATTERN).unwrap();
        let long = "a".repeat(63);
        let longer = "a".repeat(64);
        let samples = [
            "",
            "a",
            "A",
            "0",
            "a-b",
            "a_b.c",
            "-a",
            "a-",
            "_a",
            "a.",
            "a b",
            "bad key!",
            "team",
            "example.com/team",
            "Example.com/team",
            "a..b/c",
            "a/b/c",
            "/a",
            "a/",
            "x.y-z/A_b.9",
            "app.kubernetes.io/name",
            "1.5",
            "-1",
            "1e3",
            &long,
            &longer,
        ];
        for sample in samples {
            assert_eq!(
                key.is_match(sample),
                qualified_name(sample).is_ok(),
                "key {sample:?}"
            );
            assert_eq!(
                value.is_match(sample),
                label_value(sample).is_ok(),
                "value {sample:?}"
            );
        }
    }
}
