//! Small value types that carry a rule of their own: a DNS-1123 label, a
//! Kubernetes quantity, an image digest. Each is checked by the generated JSON
//! Schema (so editors flag it too) and again when deserialized, so a value of
//! the type is valid by construction.

use std::borrow::Cow;
use std::fmt;

use kubernetes::names::is_dns1123_label;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};

/// The JSON Schema pattern of a DNS-1123 label.
pub const DNS_LABEL_PATTERN: &str = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

/// The JSON Schema pattern of a Kubernetes resource quantity.
pub const QUANTITY_PATTERN: &str =
    r"^[+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][-+]?[0-9]+)?$";

/// The JSON Schema pattern of an image digest.
pub const DIGEST_PATTERN: &str = "^sha256:[a-f0-9]{64}$";

/// A DNS-1123 label: the name of a namespace, a project, a runtime class.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct DnsLabel(String);

impl DnsLabel {
    /// A label from a string known to be valid; panics otherwise. For defaults.
    pub fn from_static(name: &'static str) -> Self {
        assert!(is_dns1123_label(name), "`{name}` is not a DNS-1123 label");
        DnsLabel(name.to_owned())
    }

    /// The label as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DnsLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for DnsLabel {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        if is_dns1123_label(&name) {
            Ok(DnsLabel(name))
        } else {
            Err(serde::de::Error::custom(format!(
                "`{name}` is not a DNS-1123 label"
            )))
        }
    }
}

impl JsonSchema for DnsLabel {
    fn schema_name() -> Cow<'static, str> {
        "DnsLabel".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit.",
            "type": "string",
            "minLength": 1,
            "maxLength": 63,
            "pattern": DNS_LABEL_PATTERN,
        })
    }
}

/// A Kubernetes resource quantity such as `250m`, `1.5`, `512Mi`, as the
/// user wrote it: rendered as written (a string), compared by its exact
/// [`value`](WrittenQuantity::value), the one quantity type
/// ([`kubernetes::quantity::Quantity`]). Written as a string or a number in
/// YAML.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct WrittenQuantity(String);

impl WrittenQuantity {
    /// A quantity from a string known to be valid. For defaults.
    pub fn from_static(text: &'static str) -> Self {
        assert!(is_quantity(text), "`{text}` is not a quantity");
        WrittenQuantity(text.to_owned())
    }
}

/// Whether `text` is a quantity a resource may hold: Kubernetes' grammar
/// ([`kubernetes::quantity`]), not negative, and (as [`QUANTITY_PATTERN`]
/// asks) with a digit before its suffix: Kubernetes reads `m`, `.` or `+`
/// as 0, which no values file means.
fn is_quantity(text: &str) -> bool {
    let unsigned = text.strip_prefix('+').unwrap_or(text);
    let number = &unsigned[..unsigned
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(unsigned.len())];
    !text.starts_with('-')
        && number.bytes().any(|b| b.is_ascii_digit())
        && kubernetes::quantity::Quantity::parse(text).is_ok()
}

impl WrittenQuantity {
    /// The amount as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The exact amount, as the API server stores and compares it.
    pub fn value(&self) -> kubernetes::quantity::Quantity {
        kubernetes::quantity::Quantity::parse(&self.0)
            .unwrap_or(kubernetes::quantity::Quantity::ZERO)
    }
}

impl fmt::Display for WrittenQuantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for WrittenQuantity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            Int(u64),
            Float(f64),
        }
        let text = match Raw::deserialize(deserializer)? {
            Raw::Text(text) => text,
            Raw::Int(n) => n.to_string(),
            Raw::Float(f) => f.to_string(),
        };
        if is_quantity(&text) {
            Ok(WrittenQuantity(text))
        } else {
            Err(serde::de::Error::custom(format!(
                "`{text}` is not a Kubernetes quantity"
            )))
        }
    }
}

impl JsonSchema for WrittenQuantity {
    fn schema_name() -> Cow<'static, str> {
        "Quantity".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A Kubernetes quantity, such as 250m, 2, 512Mi or 1Gi.",
            "type": ["string", "number"],
            "minimum": 0,
            "pattern": QUANTITY_PATTERN,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_labels() {
        for ok in ["a", "buildkit-builds", "x1", &"a".repeat(63)] {
            assert!(is_dns1123_label(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "A", "a_b", "a.b", &"a".repeat(64)] {
            assert!(!is_dns1123_label(bad), "{bad}");
        }
    }

    #[test]
    fn quantities_compare_by_value() {
        let q = |t: &'static str| WrittenQuantity::from_static(t).value();
        assert_eq!(q("250m"), q("0.25"));
        assert_eq!(q("700m"), q("0.7"));
        assert_eq!(q("1Gi"), q("1073741824"));
        assert_eq!(q("1e3"), q("1k"));
        assert!(q("1Gi") > q("1G"));
        assert!(q("2") > q("1500m"));
    }

    #[test]
    fn quantities_agree_with_the_schema_pattern() {
        for ok in ["1", "250m", "1.5", ".5", "512Mi", "1e3", "+2", "2Gi"] {
            assert!(is_quantity(ok), "{ok}");
        }
        for bad in [
            "",
            "m",
            "1.2.3",
            "-1",
            "-0",
            "1mi",
            "1 Gi",
            "1e",
            ".",
            "+",
            "Ki",
            "e3",
            "1e2147483648",
        ] {
            assert!(!is_quantity(bad), "{bad}");
        }
    }
}
