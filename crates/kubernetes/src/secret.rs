//! Keeping Secret values out of every output.
//!
//! Anything that could be a Secret is treated as one: a manifest (the
//! object itself, an item of a `List`) whose `kind` mentions "secret" in
//! any case or spelling (`Secret`, `SECRET`, `SecretList`, `Se-cret`,
//! fullwidth `ＳＥＣＲＥＴ`) or is not a string, an item without a kind in a
//! `List`, and, deeper in an object, a mapping that reads as an embedded
//! manifest of such a kind: a string `kind` that mentions "secret" beside
//! an `apiVersion`, `metadata`, `data`, `stringData`, `type` or `items`.
//! A mapping that merely has a key `kind` (a CRD schema's property named
//! `kind`, a reference `{kind: Secret, name: x}`) is not one: its values
//! stay readable, so that a schema change shows field by field.
//! Of such an object only `apiVersion`, `kind`, `metadata.name`,
//! `metadata.namespace`, `metadata.generateName` and string labels stay
//! readable; every other value is replaced by a token, `<secret #…>`, whose
//! hash is keyed with a key drawn from the operating system for this run
//! only. In one run equal values show equal tokens and a changed value a
//! different one; across runs nothing matches, so a token cannot be
//! brute-forced offline or compared with another run's output. The keys
//! of `data`, `stringData` and `metadata.annotations` stay readable (as
//! `kubectl describe` shows them); what lies below them is one value.
//! A `kubectl.kubernetes.io/last-applied-configuration` annotation that
//! could hold a Secret is masked on any object.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use hmac::{KeyInit as _, Mac as _};
use serde_json::Value as Json;

/// The annotation `kubectl apply` writes: the whole object, Secret values
/// included.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The prefix of every token that stands for a hidden value.
pub const TOKEN_PREFIX: &str = "<secret #";

/// `text` with case folded and everything but letters and digits dropped:
/// `Se-CRET`, `ſecret` and `secret` read the same.
pub(crate) fn folded(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        // Fullwidth forms: `ＳＥＣＲＥＴ`.
        .map(|c| match c {
            '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
            c => c,
        })
        .flat_map(char::to_uppercase)
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether an object with this `kind` could be a Secret: a kind that
/// mentions "secret" however written, or one that is not a string.
pub fn could_be_secret_kind(kind: Option<&Json>) -> bool {
    match kind {
        None => false,
        Some(Json::String(kind)) => folded(kind).contains("secret"),
        Some(_) => true,
    }
}

/// Whether an object with this `kind` holds objects in `items`.
fn is_list_kind(kind: Option<&Json>) -> bool {
    match kind {
        None => false,
        Some(Json::String(kind)) => folded(kind).ends_with("list"),
        Some(_) => true,
    }
}

/// Whether `text` (a file, a stream) could hold a Secret: it mentions
/// "secret" however written, or it uses an escape (`\x53ecret` in a
/// double-quoted scalar). For input that failed to parse, where the
/// objects are not known.
pub fn text_could_hold_secret(text: &str) -> bool {
    text.contains('\\') || folded(text).contains("secret")
}

/// `value` with every value that could be a Secret's replaced by a token.
pub fn redacted(value: &Json) -> Json {
    let mut value = value.clone();
    walk(&mut value, &mut None, true);
    value
}

/// What [`redact`] hid, to keep it out of messages: searched in one pass
/// over a message however many values were hidden.
#[derive(Clone, Debug, Default)]
pub struct Hidden {
    /// Each hidden scalar and key, as written and as JSON.
    texts: Vec<String>,
    /// Finds every text, overlapping matches included.
    every: Option<AhoCorasick>,
    /// Finds the JSON forms and the long texts, longest first: what
    /// [`Hidden::masked`] replaces.
    replace: Option<AhoCorasick>,
    /// Whether the texts were too many to search.
    unsearchable: bool,
}

impl Hidden {
    /// Whether nothing was hidden.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Whether `message` quotes a hidden value, raw or as JSON. A text
    /// shorter than four characters counts only where it stands alone (not
    /// inside a word or number), so that a value `a` does not hide every
    /// message.
    pub fn revealed_by(&self, message: &str) -> bool {
        let Some(every) = &self.every else {
            return self.unsearchable;
        };
        let alone = |c: Option<char>| !c.is_some_and(char::is_alphanumeric);
        every.find_overlapping_iter(message).any(|found| {
            let text = &self.texts[found.pattern().as_usize()];
            text.chars().count() >= SHORT
                || (alone(message[..found.start()].chars().next_back())
                    && alone(message[found.end()..].chars().next()))
        })
    }

    /// `message` with every hidden value it quotes as JSON (as jsonschema
    /// quotes an instance) replaced by `(hidden)`; `None` when it would
    /// still quote one.
    pub fn masked(&self, message: &str) -> Option<String> {
        let masked = match &self.replace {
            Some(replace) => {
                let mut masked = String::with_capacity(message.len());
                replace.replace_all_with(message, &mut masked, |_, _, out| {
                    out.push_str("(hidden)");
                    true
                });
                masked
            }
            None => message.to_owned(),
        };
        (!self.revealed_by(&masked)).then_some(masked)
    }

    fn add(&mut self, value: &Json) {
        match value {
            Json::String(text) => self.add_text(text),
            Json::Array(items) => items.iter().for_each(|i| self.add(i)),
            Json::Object(entries) => {
                for (key, value) in entries {
                    self.add_text(key);
                    self.add(value);
                }
            }
            scalar => self.texts.push(scalar.to_string()),
        }
    }

    fn add_text(&mut self, text: &str) {
        if !text.is_empty() {
            self.texts.push(text.to_owned());
        }
        self.texts.push(Json::from(text).to_string());
    }

    /// Builds the searches once every hidden text is known.
    fn seal(mut self) -> Self {
        self.texts.sort_unstable();
        self.texts.dedup();
        if self.texts.is_empty() {
            return self;
        }
        // An automaton whose build is linear in the texts: the default
        // picks a DFA for few texts, whose build grows with a long text
        // times the alphabet (minutes for one Secret value of 200 KB).
        let linear = |kind| {
            let mut builder = AhoCorasick::builder();
            builder
                .kind(Some(AhoCorasickKind::ContiguousNFA))
                .match_kind(kind);
            builder
        };
        self.every = linear(MatchKind::Standard).build(&self.texts).ok();
        let replaced = self
            .texts
            .iter()
            .filter(|t| t.starts_with('"') || t.chars().count() >= SHORT);
        self.replace = linear(MatchKind::LeftmostLongest).build(replaced).ok();
        if self.every.is_none() || self.replace.is_none() {
            // Too large to search: every message counts as revealing.
            (self.every, self.replace, self.unsearchable) = (None, None, true);
        }
        self
    }
}

/// Texts shorter than this count as quoted only where they stand alone.
const SHORT: usize = 4;

/// `value` redacted as [`redacted`] does, and what was hidden.
pub fn redact(value: &Json) -> (Json, Hidden) {
    let mut value = value.clone();
    let mut hidden = Some(Hidden::default());
    walk(&mut value, &mut hidden, true);
    (value, hidden.unwrap_or_default().seal())
}

/// Keys beside `kind` that make a nested mapping read as an embedded
/// manifest rather than a field or a schema property named `kind`.
const MANIFEST_KEYS: [&str; 6] = [
    "apiVersion",
    "metadata",
    "data",
    "stringData",
    "type",
    "items",
];

/// Whether a mapping could be a Secret: at a manifest's place (`manifest`:
/// the object itself or a `List`'s item) by its kind alone; deeper only
/// when it reads as an embedded manifest (see the module's doc).
fn could_be_secret(map: &serde_json::Map<String, Json>, manifest: bool) -> bool {
    if manifest {
        return could_be_secret_kind(map.get("kind"));
    }
    matches!(map.get("kind"), Some(Json::String(_)))
        && could_be_secret_kind(map.get("kind"))
        && MANIFEST_KEYS.iter().any(|k| map.contains_key(*k))
}

fn walk(value: &mut Json, hidden: &mut Option<Hidden>, manifest: bool) {
    match value {
        Json::Object(map) => {
            if could_be_secret(map, manifest) {
                mask_secret(map, hidden);
                return;
            }
            let list = is_list_kind(map.get("kind"));
            for (key, child) in map.iter_mut() {
                match (key.as_str(), child) {
                    ("items", Json::Array(items)) if list => {
                        for item in items {
                            match item {
                                // A list item without a kind: the list's
                                // kind would say, and it could be a Secret.
                                Json::Object(item) if !item.contains_key("kind") => {
                                    mask_secret(item, hidden);
                                }
                                item => walk(item, hidden, true),
                            }
                        }
                    }
                    ("metadata", Json::Object(metadata)) => {
                        if let Some(annotation) = metadata
                            .get_mut("annotations")
                            .and_then(|a| a.get_mut(LAST_APPLIED))
                            && last_applied_could_hold_secret(annotation)
                        {
                            mask(annotation, hidden);
                        }
                        metadata.values_mut().for_each(|v| walk(v, hidden, false));
                    }
                    (_, child) => walk(child, hidden, false),
                }
            }
        }
        Json::Array(items) => items.iter_mut().for_each(|i| walk(i, hidden, manifest)),
        _ => {}
    }
}

/// Whether a last-applied annotation of an object that is not a Secret
/// could still hold one: its JSON holds something that could be one, or it
/// is not JSON and mentions secrets.
fn last_applied_could_hold_secret(annotation: &Json) -> bool {
    match annotation {
        Json::String(text) => match serde_json::from_str::<Json>(text) {
            Ok(applied) => redacted(&applied) != applied,
            Err(_) => text_could_hold_secret(text),
        },
        Json::Null => false,
        _ => true,
    }
}

/// Masks a Secret: everything but its identity and labels.
fn mask_secret(map: &mut serde_json::Map<String, Json>, hidden: &mut Option<Hidden>) {
    for (key, value) in map.iter_mut() {
        match (key.as_str(), value) {
            ("apiVersion" | "kind", Json::String(_)) => {}
            ("metadata", Json::Object(metadata)) => {
                for (key, value) in metadata.iter_mut() {
                    match (key.as_str(), value) {
                        ("name" | "namespace" | "generateName", Json::String(_)) => {}
                        ("labels", Json::Object(labels)) => {
                            for label in labels.values_mut().filter(|l| !l.is_string()) {
                                mask(label, hidden);
                            }
                        }
                        ("annotations", Json::Object(entries)) => {
                            entries.values_mut().for_each(|v| mask(v, hidden));
                        }
                        (_, value) => mask(value, hidden),
                    }
                }
            }
            ("data" | "stringData", Json::Object(entries)) => {
                entries.values_mut().for_each(|v| mask(v, hidden));
            }
            // A SecretList: its items are Secrets, named as usual.
            ("items", Json::Array(items)) => {
                for item in items {
                    match item {
                        Json::Object(item) => mask_secret(item, hidden),
                        item => mask(item, hidden),
                    }
                }
            }
            (_, value) => mask(value, hidden),
        }
    }
}

/// Replaces `value`, whatever its shape, by one token; `null`, `{}` and
/// `[]` stay, as they hide nothing and say what an absent field says
/// (`finalizers: []` is no change to a Secret).
fn mask(value: &mut Json, hidden: &mut Option<Hidden>) {
    let empty = match value {
        Json::Null => true,
        Json::Object(map) => map.is_empty(),
        Json::Array(items) => items.is_empty(),
        _ => false,
    };
    if empty {
        return;
    }
    if let Some(hidden) = hidden {
        hidden.add(value);
    }
    *value = Json::String(token(value));
}

/// `<secret #0123456789abcdef>`: an HMAC-SHA256 of the value's JSON, its
/// mappings' keys sorted (equal values, whatever their key order, show one
/// token), under this run's key, cut to 64 bits.
pub fn token(value: &Json) -> String {
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(run_key())
        .expect("HMAC takes a key of any length");
    let mut canonical = String::new();
    write_canonical(value, &mut canonical);
    mac.update(canonical.as_bytes());
    let digest = mac.finalize().into_bytes();
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("{TOKEN_PREFIX}{hex}>")
}

/// `value` as JSON with every mapping's keys in sorted order.
fn write_canonical(value: &Json, out: &mut String) {
    match value {
        Json::Object(map) => {
            let mut entries: Vec<(&String, &Json)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                *out += &Json::String(key.clone()).to_string();
                out.push(':');
                write_canonical(value, out);
            }
            out.push('}');
        }
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => *out += &scalar.to_string(),
    }
}

/// A key drawn once per run from the operating system; should that fail,
/// from the standard library's per-process random hash keys.
fn run_key() -> &'static [u8; 32] {
    static KEY: OnceLock<[u8; 32]> = OnceLock::new();
    KEY.get_or_init(|| {
        let mut key = [0; 32];
        if getrandom::fill(&mut key).is_err() {
            use std::hash::BuildHasher as _;
            let state = std::hash::RandomState::new();
            for (i, chunk) in key.chunks_mut(8).enumerate() {
                chunk.copy_from_slice(&state.hash_one(i).to_le_bytes());
            }
        }
        key
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const MARK: &str = "TOPSECRET";

    fn leaks(value: &Json) -> bool {
        value.to_string().contains(MARK)
    }

    #[test]
    fn empty_values_stay_as_they_say_what_absence_says() {
        let secret = json!({"kind": "Secret", "metadata": {"name": "n", "finalizers": [],
            "creationTimestamp": null, "annotations": {}}, "data": {"a": "", "b": {}}, "type": null});
        let masked = redacted(&secret);
        assert_eq!(masked["metadata"]["finalizers"], json!([]));
        assert_eq!(masked["metadata"]["creationTimestamp"], Json::Null);
        assert_eq!(masked["metadata"]["annotations"], json!({}));
        assert_eq!(masked["type"], Json::Null);
        assert_eq!(masked["data"]["b"], json!({}));
        // An empty text is a value, and masked.
        assert!(
            masked["data"]["a"]
                .as_str()
                .unwrap()
                .starts_with(TOKEN_PREFIX)
        );
    }

    #[test]
    fn anything_that_could_be_a_secret_is_masked() {
        let shapes = [
            json!({"apiVersion": "v1", "kind": "Secret", "data": {"a": "TOPSECRET"}}),
            json!({"apiVersion": "v2", "kind": "secret", "data": ["TOPSECRET"]}),
            json!({"apiVersion": "foo/v1", "kind": "SECRET", "data": "TOPSECRET"}),
            json!({"kind": "Se-cret", "stringData": {"a": {"b_key": ["TOPSECRET"]}}}),
            json!({"kind": "ſecret", "type": "TOPSECRET", "immutable": "TOPSECRET"}),
            json!({"kind": "ＳＥＣＲＥＴ", "data": {"a": "TOPSECRET"}}),
            json!({"kind": ["Secret"], "data": {"a": "TOPSECRET"}}),
            json!({"kind": "Secret", "metadata": {"name": "n", "annotations": {"x": "TOPSECRET"}, "labels": {"a": ["TOPSECRET"]}}}),
            json!({"kind": "SecretList", "items": [{"metadata": {"name": "x"}, "data": {"a": "TOPSECRET"}}]}),
            json!({"kind": "List", "items": [{"metadata": {"name": "x"}, "data": {"a": "TOPSECRET"}}]}),
            json!({"kind": "List", "items": [{"kind": "List", "items": [{"kind": "Secret", "data": {"a": "TOPSECRET"}}]}]}),
            json!({"kind": "Template", "objects": [{"kind": "Secret", "stringData": {"a": "TOPSECRET"}}]}),
            json!({"kind": "ConfigMap", "metadata": {"annotations": {LAST_APPLIED: "{\"kind\":\"\\u0053ecret\",\"data\":{\"a\":\"TOPSECRET\"}}"}}}),
            json!({"kind": "ConfigMap", "metadata": {"annotations": {LAST_APPLIED: "not json: secret TOPSECRET"}}}),
        ];
        for shape in shapes {
            let (masked, hidden) = redact(&shape);
            assert!(!leaks(&masked), "{masked}");
            assert!(hidden.revealed_by(&shape.to_string()), "{shape}");
            assert!(!hidden.revealed_by(&masked.to_string()), "{masked}");
        }
    }

    #[test]
    fn messages_lose_what_they_quote() {
        let secret =
            json!({"kind": "Secret", "data": {"a": "TOPSECRET", "b": {"c": 7}, "d": ["x"]}});
        let (_, hidden) = redact(&secret);
        assert_eq!(
            hidden
                .masked(r#""TOPSECRET" does not match "^[a-z]+$""#)
                .as_deref(),
            Some(r#"(hidden) does not match "^[a-z]+$""#)
        );
        assert_eq!(
            hidden.masked(r#"["x"] is not of type "string""#).as_deref(),
            Some(r#"[(hidden)] is not of type "string""#)
        );
        // Short values count where they stand alone, not inside words.
        assert!(!hidden.revealed_by("no schema for v1 Secret; a cat"));
        assert!(hidden.revealed_by("{c: 7} is not of type"));
        assert_eq!(hidden.masked("7 is not of type \"string\""), None);
        assert!(hidden.revealed_by("xTOPSECRETx"));
    }

    #[test]
    fn a_secret_keeps_its_identity_and_the_names_of_its_keys() {
        let secret = json!({
            "apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": {"name": "n", "namespace": "ns", "labels": {"app": "x"}},
            "data": {"password": "cGFzcw=="}
        });
        let masked = redacted(&secret);
        assert_eq!(masked["metadata"], secret["metadata"]);
        assert_eq!(masked["kind"], "Secret");
        let token = masked["data"]["password"].as_str().unwrap();
        assert!(
            token.starts_with(TOKEN_PREFIX) && token.ends_with('>'),
            "{token}"
        );
        assert_ne!(masked["type"], "Opaque");
    }

    #[test]
    fn other_objects_are_untouched() {
        let objects = [
            json!({"kind": "ConfigMap", "data": {"a": "b"}}),
            json!({"kind": "Deployment", "spec": {"volumes": [{"secret": {"secretName": "s"}}]}}),
            json!({"kind": "ConfigMap", "metadata": {"annotations": {LAST_APPLIED: "{\"kind\":\"ConfigMap\"}"}}}),
            // A CRD schema with a property named `kind`, and references.
            json!({"kind": "CustomResourceDefinition", "spec": {"versions": [{"schema": {"openAPIV3Schema": {"properties": {"kind": {"type": "string"}, "data": {"type": "object"}}}}}]}}),
            json!({"kind": "HelmRelease", "spec": {"valuesFrom": [{"kind": "Secret", "name": "s"}]}}),
        ];
        for object in objects {
            assert_eq!(redacted(&object), object);
        }
    }

    #[test]
    fn tokens_tell_equal_from_changed_within_a_run() {
        let (a, b) = (json!("one"), json!("two"));
        assert_eq!(token(&a), token(&a.clone()));
        assert_ne!(token(&a), token(&b));
        // A bare SHA-256 of the value would be the same in every run.
        let unkeyed = {
            use sha2::Digest as _;
            let digest = sha2::Sha256::digest(a.to_string().as_bytes());
            digest
                .iter()
                .take(8)
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        };
        assert!(!token(&a).contains(&unkeyed));
        // Key order is no difference.
        assert_eq!(
            token(&json!({"a": 1, "b": {"c": 2, "d": 3}})),
            token(&json!({"b": {"d": 3, "c": 2}, "a": 1}))
        );
    }
}
