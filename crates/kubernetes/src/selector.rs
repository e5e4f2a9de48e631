//! Label selectors, evaluated as the API server evaluates them
//! (`metav1.LabelSelectorAsSelector`): the one evaluator every reader of a
//! selector uses (RBAC aggregation, a workload's selector against its
//! template, a Kyverno namespace selector, a NetworkPolicy's peers).
//!
//! A selector the API server could not turn into a selector (an unknown or
//! missing operator, `In`/`NotIn` without values, `Exists`/`DoesNotExist`
//! with values, a value that is not text) is [`Selected::Invalid`]: the
//! controllers that read one then select nothing, and the object's
//! validation (`scheduling::label_selector`) names what is wrong. `null`
//! selects nothing too (a nil `*LabelSelector`); `{}` selects everything.

use serde_json::Value as Json;

/// What a selector makes of one set of labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selected {
    /// The labels satisfy every `matchLabels` entry and every
    /// `matchExpressions` requirement.
    Yes,
    /// They do not.
    No,
    /// The selector is not one the API server can evaluate.
    Invalid,
}

impl Selected {
    /// Whether the labels are selected; an invalid selector selects
    /// nothing, as the controllers that read one do.
    pub fn selects(self) -> bool {
        self == Selected::Yes
    }
}

/// Evaluates `selector` on the labels `label` looks up (by key; `None` for
/// a label the object lacks).
pub fn evaluate<'a>(selector: &Json, label: impl Fn(&str) -> Option<&'a str>) -> Selected {
    let Some(fields) = selector.as_object() else {
        return Selected::Invalid;
    };
    let mut selected = true;
    match fields.get("matchLabels") {
        None | Some(Json::Null) => {}
        Some(Json::Object(wanted)) => {
            for (key, value) in wanted {
                let Some(value) = value.as_str() else {
                    return Selected::Invalid;
                };
                selected &= label(key) == Some(value);
            }
        }
        Some(_) => return Selected::Invalid,
    }
    match fields.get("matchExpressions") {
        None | Some(Json::Null) => {}
        Some(Json::Array(expressions)) => {
            for expression in expressions {
                match requirement(expression, &label) {
                    Some(holds) => selected &= holds,
                    None => return Selected::Invalid,
                }
            }
        }
        Some(_) => return Selected::Invalid,
    }
    if selected {
        Selected::Yes
    } else {
        Selected::No
    }
}

/// Whether the labels satisfy `selector`; an invalid selector or `null`
/// selects nothing.
pub fn selects<'a>(selector: &Json, label: impl Fn(&str) -> Option<&'a str>) -> bool {
    evaluate(selector, label).selects()
}

/// Whether the labels of a JSON object's `labels` map satisfy `selector`
/// (a label whose value is not text is absent).
pub fn selects_labels(selector: &Json, labels: &serde_json::Map<String, Json>) -> bool {
    selects(selector, |key| labels.get(key).and_then(Json::as_str))
}

/// One `matchExpressions` requirement; `None` when the API server would
/// refuse it.
fn requirement<'a>(expression: &Json, label: &impl Fn(&str) -> Option<&'a str>) -> Option<bool> {
    let key = expression["key"].as_str()?;
    let values = match &expression["values"] {
        Json::Null => Vec::new(),
        Json::Array(values) => values
            .iter()
            .map(Json::as_str)
            .collect::<Option<Vec<_>>>()?,
        _ => return None,
    };
    let value = label(key);
    match expression["operator"].as_str()? {
        "In" if !values.is_empty() => Some(value.is_some_and(|v| values.contains(&v))),
        "NotIn" if !values.is_empty() => Some(!value.is_some_and(|v| values.contains(&v))),
        "Exists" if values.is_empty() => Some(value.is_some()),
        "DoesNotExist" if values.is_empty() => Some(value.is_none()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn on(selector: Json, labels: Json) -> Selected {
        let labels = labels.as_object().unwrap().clone();
        evaluate(&selector, |k| labels.get(k).and_then(Json::as_str))
    }

    #[test]
    fn labels_and_expressions_must_all_hold() {
        let labels = json!({"app": "web", "tier": "front"});
        assert_eq!(on(json!({}), labels.clone()), Selected::Yes);
        assert_eq!(
            on(json!({"matchLabels": {"app": "web"}}), labels.clone()),
            Selected::Yes
        );
        assert_eq!(
            on(json!({"matchLabels": {"app": "db"}}), labels.clone()),
            Selected::No
        );
        let expressions = |e: Json| json!({"matchLabels": {"app": "web"}, "matchExpressions": [e]});
        for (expression, want) in [
            (
                json!({"key": "tier", "operator": "In", "values": ["front", "x"]}),
                Selected::Yes,
            ),
            (
                json!({"key": "tier", "operator": "In", "values": ["back"]}),
                Selected::No,
            ),
            (
                json!({"key": "zone", "operator": "In", "values": ["a"]}),
                Selected::No,
            ),
            (
                json!({"key": "tier", "operator": "NotIn", "values": ["back"]}),
                Selected::Yes,
            ),
            (
                json!({"key": "zone", "operator": "NotIn", "values": ["a"]}),
                Selected::Yes,
            ),
            (
                json!({"key": "tier", "operator": "NotIn", "values": ["front"]}),
                Selected::No,
            ),
            (json!({"key": "tier", "operator": "Exists"}), Selected::Yes),
            (json!({"key": "zone", "operator": "Exists"}), Selected::No),
            (
                json!({"key": "zone", "operator": "DoesNotExist", "values": []}),
                Selected::Yes,
            ),
            (
                json!({"key": "tier", "operator": "DoesNotExist"}),
                Selected::No,
            ),
        ] {
            assert_eq!(
                on(expressions(expression.clone()), labels.clone()),
                want,
                "{expression}"
            );
        }
    }

    /// What LabelSelectorAsSelector refuses selects nothing, whatever the
    /// labels: the two evaluators this one replaced disagreed here.
    #[test]
    fn what_the_api_server_refuses_selects_nothing() {
        let labels = json!({"app": "web"});
        for selector in [
            json!(null),
            json!([]),
            json!({"matchLabels": {"app": 1}}),
            json!({"matchLabels": ["app"]}),
            json!({"matchExpressions": {"key": "app"}}),
            json!({"matchExpressions": [{"key": "app", "operator": "Equals", "values": ["web"]}]}),
            json!({"matchExpressions": [{"key": "app", "operator": "NotIn"}]}),
            json!({"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": []}]}),
            json!({"matchExpressions": [{"key": "app", "operator": "Exists", "values": ["web"]}]}),
            json!({"matchExpressions": [{"key": "app", "values": ["web"]}]}),
            json!({"matchExpressions": [{"operator": "Exists"}]}),
            json!({"matchExpressions": [{"key": "app", "operator": "In", "values": [1]}]}),
        ] {
            assert_eq!(
                on(selector.clone(), labels.clone()),
                Selected::Invalid,
                "{selector}"
            );
            assert!(!selects(&selector, |_| Some("web")), "{selector}");
        }
    }
}
