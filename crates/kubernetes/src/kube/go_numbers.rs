//! A custom resource's numbers judged as the API server judges them.
//!
//! The server validates a custom resource with kube-openapi's port of
//! go-openapi, on the value its JSON decoder made: an `int64` where the
//! text is a whole number that fits one (kubectl re-encodes `1.0` as `1`),
//! else a `float64`. Its rules differ from JSON Schema's where floats and
//! integers meet:
//!
//! - an `integer` takes a float that go-openapi's `IsFloat64AJSONInteger`
//!   calls one: within a relative 1e-9 of a whole number and within
//!   ±(2^53 − 1), on the positive side only, since its `uint64`
//!   conversion of a negative float is no whole number
//!   (`3.0000000001` passes, `-3.0000000001` and `1e21` do not);
//! - against an `int64` value, `multipleOf`, `maximum` and `minimum` are
//!   converted to `int64` first, as Go converts a float on amd64: towards
//!   zero, and to −2^63 past the range (`multipleOf: 2.5` is 2, one below
//!   1 is 0, which refuses every integer as no positive factor;
//!   `maximum: 1e20` is −2^63);
//! - against a float, `multipleOf` divides (by multiplying with the
//!   inverse of a factor below 1) and asks `IsFloat64AJSONInteger` of the
//!   quotient (`0.3` is a multiple of `0.1`);
//! - a `multipleOf` of 0 or less is no error of the CRD: every value of
//!   the field is refused instead;
//! - an `enum` member matches a value Go's `reflect` converts to it: a
//!   float truncated to an integer member (`1.5` is `1`), an integer read
//!   as a rune against a string member (`120` is `"x"`).
//!
//! [`rename`] moves those keywords of a schema node to chartgen's own
//! ([`TYPE`], [`MULTIPLE_OF`], [`MAXIMUM`], [`MINIMUM`], [`ENUM`]), which
//! [`keywords`] compiles.

use std::collections::HashMap;

use serde_json::{Map, Value as Json};

/// A `type` judged as go-openapi does where it differs from JSON Schema:
/// one that takes `integer` and not `number` (a float is an integer where
/// `IsFloat64AJSONInteger` says so), and one that is not numeric beside a
/// format the API server keeps (any array passes it, and any string the
/// format passes).
pub(super) const TYPE: &str = "x-strict-go-type";
/// `multipleOf`, judged as Go does.
pub(super) const MULTIPLE_OF: &str = "x-strict-go-multiple-of";
/// `maximum`, judged as Go does, exclusive where [`EXCLUSIVE_MAXIMUM`] is
/// true.
pub(super) const MAXIMUM: &str = "x-strict-go-maximum";
/// `minimum`, judged as Go does, exclusive where [`EXCLUSIVE_MINIMUM`] is
/// true.
pub(super) const MINIMUM: &str = "x-strict-go-minimum";
/// `enum`, judged as go-openapi judges it: a value equal to a member, or
/// equal once converted to the member's Go type (`reflect`'s
/// conversions: a float64 truncated to an int64, an int64 read as a
/// rune's string).
pub(super) const ENUM: &str = "x-strict-go-enum";
/// Beside a [`TYPE`]: a format loosens it (no keyword of its own).
const LOOSE: &str = "x-strict-go-loose";
/// `exclusiveMaximum` beside a [`MAXIMUM`] (no keyword of its own).
const EXCLUSIVE_MAXIMUM: &str = "x-strict-go-exclusive-maximum";
/// `exclusiveMinimum` beside a [`MINIMUM`] (no keyword of its own).
const EXCLUSIVE_MINIMUM: &str = "x-strict-go-exclusive-minimum";

/// Renames a schema node's numeric keywords and its `enum` to chartgen's
/// (see the module). An `exclusiveMaximum` or `exclusiveMinimum` goes too, with or
/// without its bound: the API server takes one alone (and ignores it),
/// where draft 4's meta-schema wants the bound beside it.
///
/// `minor`: the server's Kubernetes minor version (the formats it keeps).
/// `any_format`: whether a format the server strips loosens the type too,
/// as where it judges a schema's `default` (the validator it builds for
/// one keeps every format; only the registry's judge strings).
pub(super) fn rename(object: &mut Map<String, Json>, any_format: bool, minor: u32) {
    for (keyword, ours) in [
        ("multipleOf", MULTIPLE_OF),
        ("maximum", MAXIMUM),
        ("minimum", MINIMUM),
        ("enum", ENUM),
    ] {
        if let Some(value) = object.remove(keyword) {
            object.insert(ours.into(), value);
        }
    }
    for (exclusive, ours) in [
        ("exclusiveMaximum", EXCLUSIVE_MAXIMUM),
        ("exclusiveMinimum", EXCLUSIVE_MINIMUM),
    ] {
        if let Some(value) = object.remove(exclusive) {
            object.insert(ours.into(), value);
        }
    }
    let integer_only = |kinds: &[Json]| {
        kinds.contains(&Json::from("integer")) && !kinds.contains(&Json::from("number"))
    };
    let numeric = |kinds: &[Json]| {
        kinds.contains(&Json::from("integer")) || kinds.contains(&Json::from("number"))
    };
    let kinds = match object.get("type") {
        Some(Json::String(kind)) => vec![Json::from(kind.as_str())],
        Some(Json::Array(kinds)) => kinds.clone(),
        _ => Vec::new(),
    };
    let format = object.get("format").and_then(Json::as_str);
    let loosening =
        known_format(object, minor) || (any_format && format.is_some_and(|f| !f.is_empty()));
    let loose = !numeric(&kinds) && loosening;
    if loose {
        object.insert(LOOSE.into(), Json::Bool(true));
    }
    if integer_only(&kinds) || loose {
        // No `type` beside a kept format is no type at all: go-openapi's
        // check then takes strings, arrays and null, and nothing else.
        let kind = object
            .remove("type")
            .unwrap_or_else(|| Json::Array(Vec::new()));
        object.insert(TYPE.into(), kind);
    }
}

/// Whether a schema node's `format` is one the API server keeps (it
/// strips the others from a CRD's schema): go-openapi's type check then
/// takes any string and any array where the type is not numeric.
fn known_format(object: &Map<String, Json>, minor: u32) -> bool {
    super::go_formats::kept(object, minor).is_some()
}

/// Registers chartgen's numeric keywords with a validator's options.
pub(super) fn keywords(
    options: jsonschema::ValidationOptions<'static>,
) -> jsonschema::ValidationOptions<'static> {
    options
        .with_keyword(TYPE, |parent, value, _| go_type(parent, value))
        .with_keyword(MULTIPLE_OF, |_, value, _| {
            Ok(Box::new(Numeric(MultipleOf(factor(value)?))))
        })
        .with_keyword(MAXIMUM, |parent, value, _| {
            bound(parent, value, EXCLUSIVE_MAXIMUM, Side::Maximum)
        })
        .with_keyword(MINIMUM, |parent, value, _| {
            bound(parent, value, EXCLUSIVE_MINIMUM, Side::Minimum)
        })
        .with_keyword(ENUM, |_, value, _| match value {
            Json::Array(members) => Ok(Box::new(GoEnum::new(members))),
            _ => Err(jsonschema::ValidationError::custom(format!(
                "{value} is not of type \"array\""
            ))),
        })
}

type Compiled<'a> =
    Result<Box<dyn for<'i> jsonschema::Keyword<'i>>, jsonschema::ValidationError<'a>>;

/// A keyword's number, as the CRD's `float64` holds it.
fn factor(value: &Json) -> Result<f64, jsonschema::ValidationError<'static>> {
    value.as_f64().ok_or_else(|| {
        jsonschema::ValidationError::custom(format!("{value} is not of type \"number\""))
    })
}

fn bound<'a>(
    parent: &'a Map<String, Json>,
    value: &'a Json,
    exclusive: &str,
    side: Side,
) -> Compiled<'a> {
    let exclusive = match parent.get(exclusive) {
        None => false,
        Some(Json::Bool(b)) => *b,
        Some(other) => {
            return Err(jsonschema::ValidationError::custom(format!(
                "{other} is not of type \"boolean\""
            )));
        }
    };
    Ok(Box::new(Numeric(Bound {
        bound: factor(value)?,
        exclusive,
        side,
    })))
}

/// A number as the API server's decoder leaves it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Go {
    Int(i64),
    Float(f64),
}

impl Go {
    /// The number as a float64, as Go converts an int64.
    fn float(self) -> f64 {
        match self {
            Go::Int(i) => i as f64,
            Go::Float(f) => f,
        }
    }

    fn of(value: &Json) -> Option<Go> {
        let n = value.as_number()?;
        Some(match n.as_i64() {
            Some(i) => Go::Int(i),
            None => Go::Float(n.as_f64()?),
        })
    }
}

/// Go's `int64(f)` on amd64 (`CVTTSD2SQ`): towards zero, and −2^63 for a
/// NaN or a value past the range.
fn go_int64(f: f64) -> i64 {
    const RANGE: std::ops::Range<f64> = -9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0;
    if RANGE.contains(&f) {
        f as i64
    } else {
        i64::MIN
    }
}

/// go-openapi's `swag.IsFloat64AJSONInteger`.
fn is_json_integer(f: f64) -> bool {
    const MAX: f64 = 9_007_199_254_740_991.0;
    if !f.is_finite() || !(-MAX..=MAX).contains(&f) {
        return false;
    }
    // `float64(uint64(f))`: on amd64, within ±2^63, the int64 conversion's
    // bits read unsigned (a negative float's is near 2^64).
    let i = go_int64(f);
    let g = i as u64 as f64;
    if f == g || f == i as f64 {
        return true;
    }
    // `diff < epsilon * SmallestNonzeroFloat64`: that product is 0.
    if g == 0.0 {
        return false;
    }
    (f - g).abs() / (f.abs() + g.abs()).min(f64::MAX) < 1e-9
}

/// Compiles a [`TYPE`]: a type's name, or a list of them; beside a
/// format the API server keeps, a type that is not numeric takes any
/// string or array too.
fn go_type<'a>(parent: &'a Map<String, Json>, value: &'a Json) -> Compiled<'a> {
    let names: Option<Vec<String>> = match value {
        Json::String(name) => Some(vec![name.clone()]),
        Json::Array(names) => names
            .iter()
            .map(|n| n.as_str().map(str::to_owned))
            .collect(),
        _ => None,
    };
    match names {
        Some(names) => {
            let numeric = names.iter().any(|n| n == "integer" || n == "number");
            // A string must then pass the format, judged beside the type
            // (`go_formats`).
            let loose = !numeric && parent.get(LOOSE) == Some(&Json::Bool(true));
            let format = parent.get("format").and_then(Json::as_str);
            Ok(Box::new(GoType {
                names,
                arrays: loose,
                strings: loose,
                format: format.unwrap_or_default().to_owned(),
            }))
        }
        None => Err(jsonschema::ValidationError::custom(format!(
            "{value} is no type name nor a list of them"
        ))),
    }
}

/// [`TYPE`]: the type names a value may have, a float an `integer` where
/// go-openapi calls it one; besides, any array (`arrays`) or any string
/// (`strings`), as beside a format the API server keeps. No names at all
/// (no `type` beside a kept `format`) take null too.
struct GoType {
    names: Vec<String>,
    arrays: bool,
    strings: bool,
    /// The node's `format`, for the message where there are no names.
    format: String,
}

impl<'i> jsonschema::Keyword<'i> for GoType {
    fn validate(&self, instance: &'i Json) -> Result<(), jsonschema::ValidationError<'i>> {
        if self.is_valid(instance) {
            return Ok(());
        }
        // In the engine's own words for a `type`.
        let names: Vec<String> = self.names.iter().map(|n| format!("\"{n}\"")).collect();
        Err(jsonschema::ValidationError::custom(match names.len() {
            // No type beside a format: go-openapi names the format.
            0 => format!("{instance} is not of type \"{}\"", self.format),
            1 => format!("{instance} is not of type {}", names[0]),
            _ => format!("{instance} is not of types {}", names.join(", ")),
        }))
    }

    fn is_valid(&self, instance: &'i Json) -> bool {
        let is = |name: &str| self.names.iter().any(|n| n == name);
        match instance {
            Json::Null => self.names.is_empty() || is("null"),
            Json::Bool(_) => is("boolean"),
            Json::String(_) => self.strings || is("string"),
            Json::Array(_) => self.arrays || is("array"),
            Json::Object(_) => is("object"),
            Json::Number(_) => match Go::of(instance) {
                Some(Go::Int(_)) => is("integer") || is("number"),
                Some(Go::Float(f)) => is("number") || (is("integer") && is_json_integer(f)),
                None => false,
            },
        }
    }
}

/// A compiled [`ENUM`]: its members, and their indexes by [`canonical`]
/// form, so that a value is compared with the members it may equal, not
/// with every member (a list of thousands of items against an `enum` of
/// thousands of members stays linear).
struct GoEnum {
    members: Vec<Json>,
    by_form: HashMap<String, Vec<usize>>,
    /// The members as a refusal lists them, made once.
    listed: String,
}

impl GoEnum {
    fn new(members: &[Json]) -> GoEnum {
        let mut by_form: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, member) in members.iter().enumerate() {
            by_form.entry(canonical(member)).or_default().push(i);
        }
        GoEnum {
            members: members.to_vec(),
            by_form,
            listed: listed(members),
        }
    }

    /// Whether a member of the form of `like` passes `test`.
    fn any_like(&self, like: &Json, test: impl Fn(&Json) -> bool) -> bool {
        (self.by_form.get(&canonical(like)))
            .is_some_and(|found| found.iter().any(|&i| test(&self.members[i])))
    }
}

impl<'i> jsonschema::Keyword<'i> for GoEnum {
    fn validate(&self, instance: &'i Json) -> Result<(), jsonschema::ValidationError<'i>> {
        if self.is_valid(instance) {
            return Ok(());
        }
        Err(jsonschema::ValidationError::custom(format!(
            "{instance} is not one of {}",
            self.listed
        )))
    }

    /// [`go_enum_equal`] against the members it can hold: those of the
    /// value's own form, and of the form Go converts it to.
    fn is_valid(&self, instance: &'i Json) -> bool {
        if self.any_like(instance, |member| same(instance, member)) {
            return true;
        }
        match Go::of(instance) {
            Some(Go::Float(f)) => {
                let int = go_int64(f);
                self.any_like(&Json::from(int), |m| Go::of(m) == Some(Go::Int(int)))
            }
            Some(Go::Int(i)) => {
                let rune = Json::String(go_rune_string(i));
                self.any_like(&rune, |member| *member == rune)
            }
            None => false,
        }
    }
}

/// `members` as a refusal lists them, in the engine's own words for an
/// `enum` (`"x", "y" or "z"`): each clipped, up to about what a message
/// shows, the rest counted.
fn listed(members: &[Json]) -> String {
    const SHOWN: usize = 400;
    let mut listed = String::new();
    let mut rest = members.iter();
    for (i, member) in rest.by_ref().enumerate() {
        match (i, i + 1 == members.len()) {
            (0, _) => {}
            (_, true) => listed.push_str(" or "),
            (_, false) => listed.push_str(", "),
        }
        listed.push_str(&crate::text::clip(&member.to_string(), 80));
        if listed.len() > SHOWN {
            break;
        }
    }
    let more = rest.len();
    if more > 0 {
        listed.push_str(&format!(" or {more} more"));
    }
    listed
}

/// A form two values [`same`] share: numbers as float64 bits (`-0` as
/// `0`), strings quoted, objects' members in key order. Values of one
/// form may still differ (two int64s past 2^53 that round alike); values
/// of two forms never are the same.
fn canonical(value: &Json) -> String {
    fn write(value: &Json, out: &mut String) {
        match value {
            Json::Number(_) => {
                let float = Go::of(value).map_or(f64::NAN, Go::float);
                let float = if float == 0.0 { 0.0 } else { float };
                out.push_str(&format!("#{:x}", float.to_bits()));
            }
            Json::String(_) => out.push_str(&value.to_string()),
            Json::Array(items) => {
                out.push('[');
                for item in items {
                    write(item, out);
                    out.push(',');
                }
                out.push(']');
            }
            Json::Object(map) => {
                let mut members: Vec<_> = map.iter().collect();
                members.sort_unstable_by_key(|(key, _)| *key);
                out.push('{');
                for (key, member) in members {
                    out.push_str(&Json::String(key.clone()).to_string());
                    out.push(':');
                    write(member, out);
                    out.push(',');
                }
                out.push('}');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(value, &mut out);
    out
}

/// Go's `string(rune(i))` of an int64: the rune's UTF-8, or U+FFFD for
/// one no rune holds.
fn go_rune_string(i: i64) -> String {
    let rune = i32::try_from(i).ok().and_then(|r| char::from_u32(r as u32));
    rune.unwrap_or('\u{fffd}').to_string()
}

/// go-openapi's `enum` test of one member (`validate.enumValidator`),
/// member by member: what [`GoEnum`] finds through its index, and the
/// oracle its tests hold it to:
/// `reflect.DeepEqual`, else the value converted to the member's type
/// where Go converts it, then compared: a float64 to an int64 member
/// truncated as amd64 truncates (`1.5` is `1`, `1e20` is -2^63), an
/// int64 to a string member as the string of that rune (`120` is `"x"`,
/// one no rune holds is U+FFFD). Numbers compare by value, as the
/// decoder's int64 and float64 compare once converted.
#[cfg(test)]
fn go_enum_equal(value: &Json, member: &Json) -> bool {
    if same(value, member) {
        return true;
    }
    match (Go::of(value), member) {
        (Some(Go::Float(f)), Json::Number(_)) => Go::of(member) == Some(Go::Int(go_int64(f))),
        (Some(Go::Int(i)), Json::String(text)) => go_rune_string(i) == *text,
        _ => false,
    }
}

/// JSON values equal, numbers by value (an int64 and a float64 as Go
/// compares them once converted to float64).
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(_), Json::Number(_)) => match (Go::of(a), Go::of(b)) {
            (Some(Go::Int(x)), Some(Go::Int(y))) => x == y,
            (Some(x), Some(y)) => x.float() == y.float(),
            _ => false,
        },
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// A numeric keyword: why it refuses a number, if it does.
trait Judge {
    fn refusal(&self, value: Go) -> Option<String>;
}

/// A [`Judge`] as the engine's keyword: anything but a number passes.
struct Numeric<J>(J);

impl<'i, J: Judge + Send + Sync> jsonschema::Keyword<'i> for Numeric<J> {
    fn validate(&self, instance: &'i Json) -> Result<(), jsonschema::ValidationError<'i>> {
        match Go::of(instance).and_then(|value| self.0.refusal(value)) {
            None => Ok(()),
            Some(why) => Err(jsonschema::ValidationError::custom(why)),
        }
    }

    fn is_valid(&self, instance: &'i Json) -> bool {
        Go::of(instance)
            .and_then(|value| self.0.refusal(value))
            .is_none()
    }
}

/// [`MULTIPLE_OF`]: its factor.
struct MultipleOf(f64);

impl Judge for MultipleOf {
    fn refusal(&self, value: Go) -> Option<String> {
        let factor = self.0;
        match value {
            Go::Int(i) => {
                let truncated = go_int64(factor);
                let how = || match truncated as f64 == factor {
                    true => String::new(),
                    false => format!(
                        " (the API server truncates multipleOf {factor} to the integer {truncated} for an integer value)"
                    ),
                };
                if truncated <= 0 {
                    Some(format!(
                        "{i} is refused: the multipleOf of an integer must be positive, and is {truncated}{}",
                        how()
                    ))
                } else {
                    (i % truncated != 0)
                        .then(|| format!("{i} is not a multiple of {truncated}{}", how()))
                }
            }
            Go::Float(f) => {
                if factor <= 0.0 {
                    return Some(format!(
                        "{f} is refused: the multipleOf must be positive, and is {factor}"
                    ));
                }
                let quotient = match factor < 1.0 {
                    true => 1.0 / factor * f,
                    false => f / factor,
                };
                (!is_json_integer(quotient)).then(|| format!("{f} is not a multiple of {factor}"))
            }
        }
    }
}

impl Bound {
    fn name(&self) -> &'static str {
        match self.side {
            Side::Maximum => "maximum",
            Side::Minimum => "minimum",
        }
    }
}

#[derive(Clone, Copy)]
enum Side {
    Maximum,
    Minimum,
}

/// [`MAXIMUM`] or [`MINIMUM`].
struct Bound {
    bound: f64,
    exclusive: bool,
    side: Side,
}

impl Judge for Bound {
    fn refusal(&self, value: Go) -> Option<String> {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let (order, shown, how) = match value {
            Go::Int(i) => {
                let truncated = go_int64(self.bound);
                let how = match truncated as f64 == self.bound {
                    true => String::new(),
                    false => format!(
                        " (the API server truncates {} {} to the integer {truncated} for an integer value)",
                        self.name(),
                        self.bound
                    ),
                };
                (i.cmp(&truncated), i.to_string(), how)
            }
            Go::Float(f) => (f.partial_cmp(&self.bound)?, f.to_string(), String::new()),
        };
        let (beyond, word) = match self.side {
            Side::Maximum => (Greater, "greater than"),
            Side::Minimum => (Less, "less than"),
        };
        let refused = order == beyond || (self.exclusive && order == Equal);
        let or_equal = if self.exclusive { " or equal to" } else { "" };
        refused.then(|| {
            format!(
                "{shown} is {word}{or_equal} the {} of {}{how}",
                self.name(),
                self.bound
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// What go-openapi calls an integer, as a v1.35.4 API server answered
    /// for a CRD field of `type: integer` (recorded in
    /// `tests/fixtures/k8s-truth/written/custom-resource-numbers.json`).
    #[test]
    fn a_float_is_an_integer_as_go_openapi_says() {
        for (f, integer) in [
            (1.0, true),
            (3.000_000_000_1, true),
            (1_000_000_000.5, true),
            (-3.000_000_000_1, false),
            (1.5, false),
            (0.5, false),
            (-0.5, false),
            (1e16, false),
            (9_007_199_254_740_991.0, true),
            (-9_007_199_254_740_991.0, true),
            (1e21, false),
            (f64::NAN, false),
        ] {
            assert_eq!(is_json_integer(f), integer, "{f}");
        }
    }

    #[test]
    fn go_converts_a_float_to_int64_as_amd64_does() {
        assert_eq!(go_int64(2.5), 2);
        assert_eq!(go_int64(-2.5), -2);
        assert_eq!(go_int64(1e20), i64::MIN);
        assert_eq!(go_int64(-1e20), i64::MIN);
        assert_eq!(go_int64(f64::NAN), i64::MIN);
        assert_eq!(go_int64(-9_223_372_036_854_775_808.0), i64::MIN);
    }

    fn judged(schema: Json, value: Json) -> Vec<String> {
        let mut schema = schema;
        super::super::go_formats::mark(schema.as_object_mut().unwrap(), 35);
        rename(schema.as_object_mut().unwrap(), false, 35);
        let options = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft4)
            .should_validate_formats(false);
        let options = super::super::go_formats::keyword(keywords(options));
        let validator = options.build(&schema).unwrap();
        validator
            .iter_errors(&value)
            .map(|e| e.to_string())
            .collect()
    }

    /// The server's verdicts on a v1.35.4 API server (the recorded cases),
    /// each against JSON Schema's own, which would answer the other way.
    #[test]
    fn bounds_and_factors_are_converted_for_an_integer_value() {
        let refused = |schema: Json, value: Json| !judged(schema, value).is_empty();
        // multipleOf 2.5 is 2 for an integer: 5 refused, 4 taken.
        assert!(refused(
            json!({"type": "integer", "multipleOf": 2.5}),
            json!(5)
        ));
        assert!(!refused(
            json!({"type": "integer", "multipleOf": 2.5}),
            json!(4)
        ));
        // 0.5 is 0: every integer refused; a float judged by division.
        assert!(refused(json!({"multipleOf": 0.5}), json!(4)));
        assert!(!refused(json!({"multipleOf": 0.5}), json!(1.5)));
        assert!(!refused(
            json!({"type": "number", "multipleOf": 0.1}),
            json!(0.3)
        ));
        // A factor of 0 or less refuses a value, not the CRD.
        assert!(refused(json!({"multipleOf": 0}), json!(4)));
        assert!(refused(json!({"multipleOf": -2}), json!(1.5)));
        // Bounds truncated towards zero, and to -2^63 past the range.
        assert!(!refused(
            json!({"type": "integer", "minimum": 2.5}),
            json!(2)
        ));
        assert!(!refused(
            json!({"type": "integer", "maximum": -2.5}),
            json!(-2)
        ));
        assert!(refused(
            json!({"type": "integer", "maximum": 1e20}),
            json!(5)
        ));
        assert!(refused(json!({"minimum": 2.5}), json!(2.4)));
        assert!(refused(
            json!({"maximum": 3, "exclusiveMaximum": true}),
            json!(3)
        ));
        assert!(!refused(
            json!({"maximum": 3, "exclusiveMaximum": false}),
            json!(3)
        ));
        assert!(!refused(json!({"exclusiveMaximum": true}), json!(3)));
        // An integer type: floats as go-openapi calls them.
        assert!(!refused(json!({"type": "integer"}), json!(3.000_000_000_1)));
        assert!(refused(json!({"type": "integer"}), json!(-3.000_000_000_1)));
        assert!(refused(json!({"type": "integer"}), json!(1e21)));
        assert!(refused(json!({"type": ["integer", "string"]}), json!(1.5)));
        assert!(!refused(json!({"type": ["integer", "string"]}), json!("x")));
        assert!(refused(json!({"type": ["integer", "null"]}), json!("x")));
    }

    /// Beside a format the API server keeps, go-openapi's type check takes
    /// any array, and where the type is not numeric any string the format
    /// passes (`password`: any); a format it strips (`foo`, `int32` on a
    /// string) changes nothing (a v1.35.4 server answered each).
    #[test]
    fn a_kept_format_loosens_the_type_as_go_openapi_does() {
        let refused = |schema: Json, value: Json| !judged(schema, value).is_empty();
        assert!(!refused(
            json!({"type": "string", "format": "date-time"}),
            json!(["x", 1])
        ));
        assert!(!refused(
            json!({"type": "object", "format": "password"}),
            json!("text")
        ));
        assert!(!refused(
            json!({"type": "boolean", "format": "password"}),
            json!(["x"])
        ));
        assert!(refused(
            json!({"type": "string", "format": "foo"}),
            json!(["x"])
        ));
        assert!(refused(
            json!({"type": "integer", "format": "date-time"}),
            json!(["x"])
        ));
        assert!(refused(
            json!({"type": "boolean", "format": "password"}),
            json!(5)
        ));
        // Any string the format takes, whatever the type; the format
        // refuses the others.
        assert!(!refused(
            json!({"type": "boolean", "format": "date-time"}),
            json!("2024-01-31T10:00:00Z")
        ));
        assert_eq!(
            judged(
                json!({"type": "object", "format": "date-time"}),
                json!("soon")
            ),
            [r#""soon" is not a "date-time""#]
        );
        assert!(refused(
            json!({"type": "integer", "format": "date-time"}),
            json!("2024-01-31T10:00:00Z")
        ));
        // No type beside a kept format: strings the format takes, arrays
        // and null, nothing else.
        let untyped = || json!({"format": "email"});
        assert!(!refused(untyped(), json!("a@b")));
        assert!(!refused(untyped(), json!(["x"])));
        assert!(!refused(untyped(), Json::Null));
        assert_eq!(judged(untyped(), json!(5)), [r#"5 is not of type "email""#]);
        assert!(refused(untyped(), json!(true)));
        assert!(refused(untyped(), json!({})));
        assert!(!refused(json!({"format": "int32"}), json!(5)));
    }

    /// go-openapi's `enum` converts a value to a member's Go type before it
    /// compares (a v1.35.4 server took each of these).
    #[test]
    fn an_enum_takes_what_go_converts_to_a_member() {
        let taken = |schema: Json, value: Json| judged(schema, value).is_empty();
        assert!(taken(json!({"type": "number", "enum": [1]}), json!(1.5)));
        assert!(taken(json!({"type": "number", "enum": [-1]}), json!(-1.9)));
        assert!(taken(
            json!({"type": "number", "enum": [i64::MIN]}),
            json!(1e20)
        ));
        assert!(taken(json!({"type": "integer", "enum": ["x"]}), json!(120)));
        assert!(taken(
            json!({"type": "integer", "enum": ["\u{fffd}"]}),
            json!(-1)
        ));
        assert!(taken(
            json!({"type": "integer", "enum": ["\u{fffd}"]}),
            json!(55296)
        ));
        assert!(taken(json!({"type": "number", "enum": [1.0]}), json!(1)));
        // No conversion from a string, nor of a float to a string.
        assert!(!taken(json!({"enum": [120]}), json!("x")));
        assert!(!taken(json!({"enum": ["x"]}), json!(120.5)));
        assert!(!taken(json!({"type": "number", "enum": [1.5]}), json!(1)));
        assert_eq!(
            judged(json!({"enum": ["x", "y", "z"]}), json!("w")),
            [r#""w" is not one of "x", "y" or "z""#]
        );
    }

    /// The index finds what comparing with every member finds, over
    /// values and members of every kind Go compares: whole and fractional
    /// numbers (past 2^53 too), runes as strings, nested arrays and
    /// objects.
    #[test]
    fn an_enum_finds_by_its_index_what_each_member_finds() {
        let values = [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-0.0),
            json!(1),
            json!(1.0),
            json!(1.5),
            json!(-1.9),
            json!(-1),
            json!(120),
            json!(120.7),
            json!("x"),
            json!("1"),
            json!("\u{fffd}"),
            json!(55296),
            json!(-1),
            json!(1e20),
            json!(i64::MIN),
            json!(9_007_199_254_740_993_i64),
            json!(9_007_199_254_740_992.0),
            json!([]),
            json!([1]),
            json!([1.0]),
            json!([1, "x"]),
            json!({}),
            json!({"a": 1}),
            json!({"a": 1.0}),
            json!({"a": 1, "b": [2]}),
            json!({"b": [2.0], "a": 1}),
        ];
        for (n, member) in values.iter().enumerate() {
            // Each value against single members and against windows.
            for members in [&values[n..=n], &values[n..(n + 5).min(values.len())]] {
                let index = GoEnum::new(members);
                for value in &values {
                    let each = members.iter().any(|m| go_enum_equal(value, m));
                    assert_eq!(
                        jsonschema::Keyword::is_valid(&index, value),
                        each,
                        "{value} in {members:?} ({member})"
                    );
                }
            }
        }
    }

    /// A refused value's message lists the members up to about what a
    /// message shows, and counts the rest: a long list against a large
    /// `enum` does not copy the `enum` into each item's message.
    #[test]
    fn an_enum_of_many_members_is_named_in_a_short_message() {
        let members: Vec<Json> = (0..5000).map(|i| json!(format!("member-{i}"))).collect();
        let [message] = &judged(json!({"enum": members}), json!("nope"))[..] else {
            panic!("one message");
        };
        assert!(message.len() < 500, "{message}");
        assert!(message.starts_with(r#""nope" is not one of "member-0", "member-1""#));
        assert!(message.ends_with(" more"), "{message}");
    }

    #[test]
    fn the_messages_say_what_the_server_compared() {
        assert_eq!(
            judged(json!({"type": "integer", "maximum": 1e20}), json!(5)),
            [
                "5 is greater than the maximum of 100000000000000000000 (the API server truncates maximum 100000000000000000000 to the integer -9223372036854775808 for an integer value)"
            ]
        );
        assert_eq!(
            judged(json!({"multipleOf": 2.5}), json!(5)),
            [
                "5 is not a multiple of 2 (the API server truncates multipleOf 2.5 to the integer 2 for an integer value)"
            ]
        );
        assert_eq!(
            judged(json!({"type": "integer"}), json!(1.5)),
            ["1.5 is not of type \"integer\""]
        );
        assert_eq!(
            judged(json!({"type": "integer"}), json!("big")),
            ["\"big\" is not of type \"integer\""]
        );
        assert_eq!(
            judged(json!({"type": ["integer", "string"]}), json!(1.5)),
            ["1.5 is not of types \"integer\", \"string\""]
        );
    }
}
