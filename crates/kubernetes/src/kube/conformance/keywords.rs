//! This crate's own keywords of a CRD's strict schema, which judge as the
//! API server does where the engine would not: `pattern` as Go's regexp
//! (`x-strict-go-pattern`, with the large patterns of Unicode classes
//! compiled once a run), `required` of many names (`x-strict-required`,
//! a few missing names each an error, the rest counted), and the options
//! that register them with go-openapi's numbers and formats.

use std::collections::HashMap;

use serde_json::Value as Json;

/// How a CRD's `openAPIV3Schema` is compiled: as JSON Schema draft 4,
/// the dialect of Kubernetes' `JSONSchemaProps` (OpenAPI 3.0's schema
/// object), where `exclusiveMinimum` and `exclusiveMaximum` are booleans
/// beside `minimum` and `maximum`. A later draft's meta-schema wants
/// numbers there and would call a schema the API server accepts one that
/// does not compile. The engine's `format` is not checked (draft 4 would
/// check it by JSON Schema's definitions of the formats): a format the
/// server keeps is judged by this crate's keyword, as go-openapi judges it
/// (`go_formats`); patterns compile as the API server's do.
pub(super) fn crd_schema_options() -> jsonschema::ValidationOptions<'static> {
    let options = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .should_validate_formats(false)
        .with_pattern_options(crate::kube::pattern_engine())
        .with_keyword(GO_PATTERN, go_pattern)
        .with_keyword(REQUIRED, |_, value, _| {
            let names = (value.as_array().into_iter().flatten())
                .filter_map(|name| Some(name.as_str()?.to_owned()))
                .collect();
            Ok(Box::new(Required(names)))
        });
    crate::kube::go_formats::keyword(crate::kube::go_numbers::keywords(options))
}

/// The keyword a CRD schema's `required` is judged by ([`tighten`] puts
/// it there): the engine's, but for an object that misses many names,
/// whose first [`MISSING_NAMED`] are each an error and the rest one more.
/// The engine collects every error before the first is read, so a list of
/// thousands of names over a list of many items made millions of them.
pub(super) const REQUIRED: &str = "x-strict-required";

/// How many missing names of one object are each an error of their own.
pub(super) const MISSING_NAMED: usize = 8;

/// A compiled [`REQUIRED`]: its names.
pub(super) struct Required(Vec<String>);

impl Required {
    fn missing<'n>(
        &'n self,
        object: &'n serde_json::Map<String, Json>,
    ) -> impl Iterator<Item = &'n String> {
        self.0.iter().filter(|name| !object.contains_key(*name))
    }
}

/// The engine's words for a missing name, the name clipped: a CRD's long
/// name is not copied whole into each item's error.
fn missing_error<'i>(name: &str) -> jsonschema::ValidationError<'i> {
    let name = Json::String(crate::text::clip(name, 80).into_owned());
    jsonschema::ValidationError::custom(format!("{name} is a required property"))
}

impl<'i> jsonschema::Keyword<'i> for Required {
    fn validate(&self, instance: &'i Json) -> Result<(), jsonschema::ValidationError<'i>> {
        let first = instance.as_object().and_then(|o| self.missing(o).next());
        first.map_or(Ok(()), |name| Err(missing_error(name)))
    }

    fn iter_errors(
        &self,
        instance: &'i Json,
    ) -> Box<dyn Iterator<Item = jsonschema::ValidationError<'i>> + 'i> {
        let Some(object) = instance.as_object() else {
            return Box::new(std::iter::empty());
        };
        let mut missing = self.missing(object);
        let mut errors: Vec<_> = (missing.by_ref().take(MISSING_NAMED))
            .map(|name| missing_error(name))
            .collect();
        // Most objects miss nothing: nothing is boxed for them.
        if errors.is_empty() {
            return Box::new(std::iter::empty());
        }
        let more = missing.count();
        if more > 0 {
            errors.push(jsonschema::ValidationError::custom(format!(
                "and {more} more required properties are missing"
            )));
        }
        Box::new(errors.into_iter())
    }

    fn is_valid(&self, instance: &'i Json) -> bool {
        instance
            .as_object()
            .is_none_or(|object| self.missing(object).next().is_none())
    }
}

/// The keyword a CRD schema's `pattern` is judged by ([`strict`] renames
/// it): the engine reads `pattern` as ECMA-262 (no `(?i)`, Unicode `\s`,
/// a `.` that stops at `\r`), where the API server reads it as Go's
/// `regexp`.
pub(super) const GO_PATTERN: &str = "x-strict-go-pattern";

/// Compiles a [`GO_PATTERN`]: Go's syntax read in the regex crate's
/// ([`crate::regexp::read`]: Go's ASCII classes and word boundary, its
/// octal escapes, group names and flags), within the engine's size
/// limits. One Go refuses does not compile, and the schema with it.
pub(super) fn go_pattern<'a>(
    _: &'a serde_json::Map<String, Json>,
    value: &'a Json,
    _: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> jsonschema::Keyword<'i>>, jsonschema::ValidationError<'a>> {
    let pattern = value.as_str().unwrap_or_default();
    let refused = |why: String| {
        jsonschema::ValidationError::custom(format!(
            "the pattern {value} does not compile as Go's regexp compiles it: {why}"
        ))
    };
    let read = crate::regexp::read(pattern).map_err(refused)?;
    let matcher = match compile_go_pattern(&read, crate::kube::PATTERN_SIZE_LIMIT) {
        Err(regex::Error::CompiledTooBig(_)) => Matcher::Large(read, std::sync::OnceLock::new()),
        compiled => Matcher::Compiled(compiled.map_err(|e| refused(e.to_string()))?),
    };
    Ok(Box::new(GoPattern {
        matcher,
        pattern: pattern.to_owned(),
    }))
}

/// `read` compiled by the regex crate, its program at most `limit` bytes.
pub(super) fn compile_go_pattern(read: &str, limit: usize) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(read)
        .size_limit(limit)
        .dfa_size_limit(crate::kube::PATTERN_SIZE_LIMIT)
        .build()
}

/// The most bytes a pattern Go takes may compile into when
/// [`crate::kube::PATTERN_SIZE_LIMIT`] is too few: Go counts a class as one
/// instruction, the regex crate as the UTF-8 automaton of its ranges
/// (`^[\p{L}\p{N}]{0,63}$` is about 20,000 states). Go bounds a
/// repeat's count, nested repeats' product included, at 1,000
/// ([`crate::regexp::read`]), and `[\p{L}\p{N}]{1000}` compiles within
/// this.
pub(super) const LARGE_PATTERN_SIZE_LIMIT: usize = 64 << 20;

/// How many patterns a run compiles past [`crate::kube::PATTERN_SIZE_LIMIT`]
/// (each about a tenth of a second and up to
/// [`LARGE_PATTERN_SIZE_LIMIT`]), the first a value is matched against:
/// a hostile CRD's patterns cannot cost more than these.
pub(super) const LARGE_PATTERNS: usize = 8;

/// A pattern Go takes whose program passes [`crate::kube::PATTERN_SIZE_LIMIT`]
/// in the regex crate, compiled once a run ([`LargePatterns`]), when a
/// value is first matched against it. A schema compiles its patterns each
/// time it is built (a CRD's defaults build parts of it again), hence
/// the cache.
pub(super) fn large_go_pattern(read: &str) -> Option<regex::Regex> {
    use std::sync::{Mutex, PoisonError};
    static COMPILED: Mutex<Option<LargePatterns>> = Mutex::new(None);
    let mut compiled = COMPILED.lock().unwrap_or_else(PoisonError::into_inner);
    let compiled = compiled.get_or_insert_with(|| LargePatterns {
        compiled: HashMap::new(),
        limit: LARGE_PATTERN_SIZE_LIMIT,
        budget: LARGE_PATTERNS,
    });
    compiled.get(read)
}

/// The large patterns of a run, each compiled within `limit` bytes while
/// `budget` patterns last; `None` (the pattern judges nothing) past
/// either, as this crate cannot match it and Go would not refuse it.
pub(super) struct LargePatterns {
    pub(super) compiled: HashMap<String, Option<regex::Regex>>,
    pub(super) limit: usize,
    pub(super) budget: usize,
}

impl LargePatterns {
    pub(super) fn get(&mut self, read: &str) -> Option<regex::Regex> {
        if let Some(regex) = self.compiled.get(read) {
            return regex.clone();
        }
        let regex = (self.compiled.len() < self.budget)
            .then(|| compile_go_pattern(read, self.limit).ok())
            .flatten();
        self.compiled.insert(read.to_owned(), regex.clone());
        regex
    }
}

/// A compiled [`GO_PATTERN`]: a string that does not match is refused in
/// the words the engine's `pattern` uses; any other value passes, and
/// every value where the pattern is too large to judge
/// ([`LargePatterns`]), which [`judge`] reports ([`Verdict::Unjudged`]).
pub(super) struct GoPattern {
    matcher: Matcher,
    pattern: String,
}

/// A pattern's regex: compiled within the usual limit, or a large one
/// (its text as the regex crate reads it) compiled on its first match.
pub(super) enum Matcher {
    Compiled(regex::Regex),
    Large(String, std::sync::OnceLock<Option<regex::Regex>>),
}

std::thread_local! {
    /// Whether this thread matched a value against a pattern too large to
    /// judge since [`super::judge_custom`] last asked.
    pub(super) static UNJUDGED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl<'i> jsonschema::Keyword<'i> for GoPattern {
    fn validate(&self, instance: &'i Json) -> Result<(), jsonschema::ValidationError<'i>> {
        match self.is_valid(instance) {
            true => Ok(()),
            false => Err(jsonschema::ValidationError::custom(format!(
                r#"{instance} does not match "{}""#,
                crate::text::clip(&self.pattern, 200)
            ))),
        }
    }

    fn is_valid(&self, instance: &'i Json) -> bool {
        let Some(text) = instance.as_str() else {
            return true;
        };
        let regex = match &self.matcher {
            Matcher::Compiled(regex) => Some(regex),
            Matcher::Large(read, compiled) => {
                compiled.get_or_init(|| large_go_pattern(read)).as_ref()
            }
        };
        match regex {
            Some(regex) => regex.is_match(text),
            None => {
                UNJUDGED.set(true);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A pattern too large to match passes every string and says so:
    /// [`super::judge_custom`] turns that into a note ([`super::Verdict::Unjudged`]), no
    /// refusal; a value that is no string has nothing to match.
    #[test]
    fn a_pattern_too_large_to_match_is_said_not_judged() {
        use jsonschema::Keyword as _;
        let pattern = GoPattern {
            matcher: Matcher::Large("x".to_owned(), std::sync::OnceLock::from(None)),
            pattern: "x".to_owned(),
        };
        UNJUDGED.set(false);
        assert!(pattern.is_valid(&json!(5)) && !UNJUDGED.take());
        assert!(pattern.is_valid(&json!("anything")) && UNJUDGED.take());
        assert!(pattern.validate(&json!("y")).is_ok() && UNJUDGED.take());
    }
}
