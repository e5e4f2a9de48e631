//! Reading a field of a JSON object without hashing its key.
//!
//! serde_json with `preserve_order` keeps an object's members in an
//! `IndexMap`, and `value["kind"]`, `value.get("kind")` hash the key with
//! SipHash on every lookup: some 250 instructions, where the objects of a
//! manifest hold a handful of keys each. [`Field::field`] finds the key by
//! comparing it with each member's instead, and hashes only in a large
//! object; the answer is the same as indexing's.
//!
//! With them the two readings of a JSON value every rule module shares
//! (the API rules, the scheduling rules, the server's defaults): a list's
//! items with their indexes ([`each`]) and a whole number as the API
//! server reads it ([`whole`]); and what they write, the problems found by
//! path ([`Found`]). They sit here, below every module that reads them, so
//! that none of those modules asks another for them.

use serde_json::{Map, Value as Json};

use crate::location::KeyPath;

/// What a rule over a JSON value found: each problem's key path, and what
/// the API server would say of it. Every rule module (the API rules, the
/// scheduling rules, the schemas' validator) writes its problems so.
pub type Found = Vec<(KeyPath, String)>;

/// Up to how many members an object is scanned rather than hashed: a
/// comparison of a short key costs a few instructions, a hash some 250.
const SCANNED_UP_TO: usize = 16;

/// The absent member, as indexing gives it.
static NULL: Json = Json::Null;

/// The member `key` of `map`, as [`Map::get`] finds it: by comparing keys
/// in a small map, by hash in a large one.
pub fn get<'a>(map: &'a Map<String, Json>, key: &str) -> Option<&'a Json> {
    if map.len() > SCANNED_UP_TO {
        return map.get(key);
    }
    map.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
}

/// A JSON value's members, found without hashing ([`get`]).
pub trait Field {
    /// The member `key` of an object; `null` when it has none or is no
    /// object: what `value[key]` gives.
    fn field(&self, key: &str) -> &Json;

    /// The member `key` of an object, if it has one: what
    /// `value.get(key)` gives.
    fn get_field(&self, key: &str) -> Option<&Json>;
}

impl Field for Json {
    fn field(&self, key: &str) -> &Json {
        self.get_field(key).unwrap_or(&NULL)
    }

    fn get_field(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(map) => get(map, key),
            _ => None,
        }
    }
}

/// Whether two values are equal with their objects' members in the same
/// order, and written alike: `==` of each pair of members in turn, without
/// hashing a key (an object's `==` looks up each member of one in the
/// other), and a zero's sign (`0.0 == -0.0`, which print differently).
/// Two equal objects written in other orders are not the same here: a
/// caller reusing what it found for `a` (a cache of one entry) only finds
/// once more what it could have reused.
pub fn same_in_order(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Object(a), Json::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_in_order(va, vb))
        }
        (Json::Array(a), Json::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_in_order(a, b))
        }
        // `0.0 == -0.0`, but they are written differently: the same here
        // means the same text too.
        (Json::Number(x), Json::Number(y)) => {
            x == y && x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits)
        }
        _ => a == b,
    }
}

/// A list of JSON values asked many times whether it holds a value: what
/// `list.contains(value)` answers, by a hash and the `==` of the few values
/// that share it instead of a scan of the list, so that asking it of each
/// item of another list (an `enum` that lost values, rules gained) is
/// linear, not quadratic. The hash agrees with serde_json's `==`: a
/// number's variant and value (`0.0` and `-0.0` alike), an object's
/// members in any order; it is keyed afresh for each set.
pub struct Values<'a> {
    state: std::hash::RandomState,
    buckets: std::collections::HashMap<u64, Vec<&'a Json>>,
}

impl<'a> Values<'a> {
    /// The values `list`.
    pub fn of(list: impl IntoIterator<Item = &'a Json>) -> Self {
        let mut set = Values {
            state: std::hash::RandomState::new(),
            buckets: std::collections::HashMap::new(),
        };
        for value in list {
            let hash = set.hash(value);
            set.buckets.entry(hash).or_default().push(value);
        }
        set
    }

    /// Whether one of the values is `== value`.
    pub fn contains(&self, value: &Json) -> bool {
        self.buckets
            .get(&self.hash(value))
            .is_some_and(|values| values.contains(&value))
    }

    /// The `==` comparisons `contains(value)` makes: those of the values
    /// that share its hash.
    pub fn compared(&self, value: &Json) -> usize {
        self.buckets.get(&self.hash(value)).map_or(0, Vec::len)
    }

    /// A hash of `value` that equal values share.
    fn hash(&self, value: &Json) -> u64 {
        use std::hash::{BuildHasher, Hash, Hasher};
        let mut hasher = self.state.build_hasher();
        match value {
            Json::Null => 0u8.hash(&mut hasher),
            Json::Bool(b) => (1u8, b).hash(&mut hasher),
            Json::Number(n) => (2u8, n).hash(&mut hasher),
            Json::String(s) => (3u8, s).hash(&mut hasher),
            Json::Array(items) => {
                (4u8, items.len()).hash(&mut hasher);
                for item in items {
                    self.hash(item).hash(&mut hasher);
                }
            }
            Json::Object(members) => {
                // `==` on objects ignores the members' order.
                let sum = (members.iter()).fold(0u64, |sum, (key, value)| {
                    sum.wrapping_add(self.state.hash_one((key, self.hash(value))))
                });
                (5u8, members.len(), sum).hash(&mut hasher);
            }
        }
        hasher.finish()
    }
}

/// The items of a JSON array with their indexes; none if it is no array.
pub fn each(list: &Json) -> impl Iterator<Item = (usize, &Json)> {
    list.as_array().into_iter().flatten().enumerate()
}

/// A whole number as the server reads it once kubectl has sent it: `512.0`
/// is `512` (a float with no fraction is written as an integer); `None`
/// for anything else, or past `i64`.
pub fn go_whole(float: f64) -> Option<i64> {
    // Rust writes a float's shortest digits, padded with zeros, as Go's
    // `strconv.FormatFloat(f, 'f', -1, 64)` does: past 2^53 that text
    // may not be the float's exact value (`1152921504606847232.0` is sent
    // as `1152921504606847200`).
    const RANGE: std::ops::Range<f64> = -9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0;
    let fits = float.fract() == 0.0 && RANGE.contains(&float);
    fits.then(|| format!("{float}").parse().ok()).flatten()
}

/// The whole number of a JSON value as the API server reads it: an
/// integer, or a whole float as kubectl sends it ([`go_whole`]).
pub fn whole(value: &Json) -> Option<i64> {
    value.as_i64().or_else(|| value.as_f64().and_then(go_whole))
}

/// A number written as a float (`1.0`, `1e+07`) whose value is a whole
/// number an int64 holds: as an integer. The API server's `integer` takes
/// it (kubectl and Helm send it as one); draft 4's `integer` would not.
pub fn whole_number(n: &serde_json::Number) -> Option<serde_json::Number> {
    let f = n.as_f64().filter(|_| n.is_f64())?;
    go_whole(f).map(serde_json::Number::from)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The integer kubectl sends for a whole float: its shortest digits,
    /// which past 2^53 need not be its exact value.
    #[test]
    fn a_whole_float_is_the_integer_kubectl_sends() {
        assert_eq!(go_whole(512.0), Some(512));
        assert_eq!(go_whole(-0.0), Some(0));
        assert_eq!(go_whole(1.5), None);
        assert_eq!(
            go_whole(9_007_199_254_740_992.0),
            Some(9_007_199_254_740_992)
        );
        assert_eq!(
            go_whole(1_152_921_504_606_847_232.0),
            Some(1_152_921_504_606_847_200)
        );
        // -2^63 is sent as -9223372036854776000: past int64, a float.
        assert_eq!(go_whole(-9_223_372_036_854_775_808.0), None);
        assert_eq!(go_whole(9_223_372_036_854_775_808.0), None);
        assert_eq!(go_whole(1e19), None);
    }

    /// [`Values`] answers as `contains` on the list, for numbers of each
    /// kind, zeros of both signs and objects in any order, and compares
    /// only values that share a hash: asking it of each of a thousand
    /// items costs about a thousand comparisons, not a million.
    #[test]
    fn values_answer_as_contains_with_few_comparisons() {
        use serde_json::json;
        let list = vec![
            json!(null),
            json!(true),
            json!(1),
            json!(-1),
            json!(1.5),
            json!(0.0),
            json!("a"),
            json!([1, "a"]),
            json!({"a": 1, "b": [2]}),
        ];
        let asked = [
            json!(null),
            json!(false),
            json!(true),
            json!(1),
            json!(1.0),
            json!(-1),
            json!(2),
            json!(1.5),
            json!(-0.0),
            json!(0),
            json!("a"),
            json!("b"),
            json!([1, "a"]),
            json!(["a", 1]),
            json!({"b": [2], "a": 1}),
            json!({"a": 1}),
            json!({"a": 1, "b": [3]}),
            json!([]),
            json!({}),
        ];
        let values = Values::of(&list);
        for value in &asked {
            assert_eq!(values.contains(value), list.contains(value), "{value}");
        }
        let many: Vec<Json> = (0..1000).map(|i| json!(format!("e{i}"))).collect();
        let values = Values::of(&many);
        let compared: usize = (many.iter().rev()).map(|v| values.compared(v)).sum();
        assert!(compared < 1100, "{compared}");
        assert!(many.iter().all(|v| values.contains(v)));
        assert!(!values.contains(&json!("e1000")));
    }

    /// Same in order means equal; equal written in another order is not
    /// the same; nested objects and arrays are compared member by member.
    #[test]
    fn same_in_order_is_equality_in_order() {
        let values = [
            json!({"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"memory": "6Gi"}}),
            json!({"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"memory": "6Gi"}}),
            json!({"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"memory": "8Gi"}}),
            json!({"requests": {"cpu": 1, "memory": "2Gi"}, "limits": {"memory": "6Gi"}}),
            json!({"requests": {"cpu": "1", "memory": "2Gi"}}),
            json!([1, {"a": [true, null]}]),
            json!([1, {"a": [true, null]}]),
            json!([1, {"a": [true]}]),
            json!("1"),
            json!(1),
            json!(null),
        ];
        for a in &values {
            for b in &values {
                assert_eq!(same_in_order(a, b), a == b, "{a} {b}");
            }
        }
        // Equal, printed differently: not the same.
        let (zero, negative) = (json!({"cpu": 0.0}), json!({"cpu": -0.0}));
        assert_eq!(zero, negative);
        assert_eq!(
            (zero.to_string(), negative.to_string()),
            (r#"{"cpu":0.0}"#.to_owned(), r#"{"cpu":-0.0}"#.to_owned())
        );
        assert!(!same_in_order(&zero, &negative));
        assert!(same_in_order(&negative, &json!({"cpu": -0.0})));
        let (a, b) = (json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1}));
        assert!(a == b && !same_in_order(&a, &b));
    }

    /// Objects of a few members and of more than [`SCANNED_UP_TO`], and
    /// values that are no object.
    fn values() -> Vec<Json> {
        let mut large = Map::new();
        for i in 0..40 {
            large.insert(format!("key-{i}"), json!(i));
        }
        vec![
            json!({}),
            json!({"kind": "Deployment", "metadata": {"name": "a"}, "spec": null}),
            json!({"b": 1, "a": 2, "": 3, "ä": 4, "kind ": 5}),
            Json::Object(large),
            json!(null),
            json!("kind"),
            json!(["kind", "metadata"]),
            json!(3),
        ]
    }

    /// Keys found, keys missing (a prefix, a longer key, another case, the
    /// empty key) and keys of a large object agree with `Map::get`,
    /// `Value::get` and indexing.
    #[test]
    fn agrees_with_hashing() {
        let keys = [
            "kind", "metadata", "spec", "a", "b", "", "ä", "kind ", "Kind", "kin", "missing",
            "key-0", "key-17", "key-39", "key-40",
        ];
        for value in values() {
            for key in keys {
                assert_eq!(value.get_field(key), value.get(key), "{value} {key:?}");
                assert_eq!(value.field(key), &value[key], "{value} {key:?}");
                if let Some(map) = value.as_object() {
                    assert_eq!(get(map, key), map.get(key), "{value} {key:?}");
                }
            }
        }
    }

    /// A member whose value is `null` is found, and is not the absent one
    /// for [`Field::get_field`].
    #[test]
    fn a_null_member_is_a_member() {
        let value = json!({"spec": null});
        assert_eq!(value.get_field("spec"), Some(&Json::Null));
        assert_eq!(value.get_field("status"), None);
        assert!(value.field("status").is_null());
    }

    /// Every key of an object, each of them unique (a `Map` holds no key
    /// twice), finds its own value, whatever its position.
    #[test]
    fn every_member_finds_its_own_value() {
        for value in values() {
            let Some(map) = value.as_object() else {
                continue;
            };
            for (key, member) in map {
                assert!(std::ptr::eq(get(map, key).unwrap(), member), "{key:?}");
            }
        }
    }
}
