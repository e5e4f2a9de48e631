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

/// Whether a subschema is a layer (merged) or written whole (replaced).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Mode {
    Layer,
    Whole,
}

/// The overlay schema as JSON.
pub fn overlay_schema() -> Json {
    overlay_of(&crate::schema::values_schema())
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
    // A definition used both ways needs a whole form of its own only when
    // it (or one it refers to) requires a key.
    let twice: BTreeSet<&str> = used
        .iter()
        .filter(|(n, m)| *m == Mode::Whole && used.contains(&(n.clone(), Mode::Layer)))
        .map(|(n, _)| n.as_str())
        .filter(|n| requires(&defs[*n], defs, &mut BTreeSet::new()))
        .collect();
    let names = Names { twice };
    let mut root = transform(strict, Mode::Layer, &names);
    let mut out = Map::new();
    for (name, mode) in &used {
        if let Some(def) = defs.get(name) {
            out.insert(names.of(name, *mode), transform(def, *mode, &names));
        }
    }
    if let Some(object) = root.as_object_mut() {
        // An empty (or comments-only) values file is a layer that changes
        // nothing: its document is null, and chartgen takes it.
        object.insert("type".to_owned(), serde_json::json!(["object", "null"]));
        object.insert("$defs".to_owned(), Json::Object(out));
        object.insert(
            "title".to_owned(),
            Json::from("chartgen values file (overlay)"),
        );
        object.insert("description".to_owned(), Json::from(DESCRIPTION));
    }
    root
}

/// The root description of the overlay schema.
const DESCRIPTION: &str = "One values file: a layer over the built-in defaults and the files before it, so every key is optional (a list item is written whole). For editors: `# yaml-language-server: $schema=schema/values.overlay.schema.json`. The merged values are validated with the strict schema, schema/values.schema.json (`chartgen schema merged`).";

/// The name each definition takes in the overlay: its own, but for the
/// whole form of one that differs in a layer and is used both ways
/// (`<name>Item`).
struct Names<'a> {
    twice: BTreeSet<&'a str>,
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

/// Whether `schema`, or a definition it refers to, requires a key where a
/// layer would not (`seen`: the definitions already followed).
fn requires<'a>(
    schema: &'a Json,
    defs: &'a Map<String, Json>,
    seen: &mut BTreeSet<&'a str>,
) -> bool {
    let Some(object) = schema.as_object() else {
        return false;
    };
    if object.contains_key("required") {
        return true;
    }
    if let Some(name) = object.get("$ref").and_then(def_name)
        && seen.insert(name)
        && defs.get(name).is_some_and(|def| requires(def, defs, seen))
    {
        return true;
    }
    object
        .iter()
        .filter(|(key, _)| !WHOLE.contains(&key.as_str()))
        .flat_map(|(key, value)| subschemas(key, value))
        .any(|child| requires(child, defs, seen))
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

/// `schema` for `mode`: `required` dropped in a layer, references renamed,
/// every other keyword as it was. `$defs` are built by the caller.
fn transform(schema: &Json, mode: Mode, names: &Names<'_>) -> Json {
    let Some(object) = schema.as_object() else {
        return schema.clone();
    };
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
            "$ref" => match def_name(value) {
                Some(name) => Json::from(format!("#/$defs/{}", names.of(name, mode))),
                None => value.clone(),
            },
            k if ONE.contains(&k) => transform(value, child, names),
            k if LIST.contains(&k) => match value.as_array() {
                Some(items) => items.iter().map(|s| transform(s, child, names)).collect(),
                None => value.clone(),
            },
            k if MAP.contains(&k) => match value.as_object() {
                Some(map) => Json::Object(
                    map.iter()
                        .map(|(n, s)| (n.clone(), transform(s, child, names)))
                        .collect(),
                ),
                None => value.clone(),
            },
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    Json::Object(out)
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
            "$defs": {"Label": {"type": "string", "pattern": "^[a-z]+$"}},
        });
        let overlay = overlay_of(&strict);
        assert_eq!(
            overlay["properties"]["many"]["items"]["$ref"],
            "#/$defs/Label"
        );
        assert_eq!(overlay["$defs"], strict["$defs"]);
    }
}
