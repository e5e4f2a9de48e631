//! What the API server refuses in a ResourceQuota (`ValidateResourceQuota`,
//! `ValidateResourceQuotaSpec` in `pkg/apis/core/validation`), judged after
//! its defaults round each amount of `spec.hard` up to a thousandth
//! (`pods: 1n` is judged as `1m`): resource names a quota tracks
//! (`ValidateResourceQuotaResourceName`), amounts that are not negative and,
//! for a resource counted in units, whole (`ValidateResourceQuantityValue`),
//! and scopes, listed (`validateResourceQuotaScopes`) or selected
//! (`validateScopedResourceSelectorRequirement`): known ones, no two that
//! contradict each other, each able to track every resource of the quota,
//! with the operators and values its scope takes. Its `status` is not
//! judged: the server clears it on create.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value as Json;

use super::{plain, resources};
use crate::json::{Field, Found, each};
use crate::location::KeyPath;
use crate::quantity::go_scaled_value_of;

/// The scopes a quota may have (`IsStandardResourceQuotaScope`).
const SCOPES: [&str; 7] = [
    "Terminating",
    "NotTerminating",
    "BestEffort",
    "NotBestEffort",
    "PriorityClass",
    "VolumeAttributesClass",
    "CrossNamespacePodAffinity",
];

/// Scopes no quota has both of: they select no object together.
const CONFLICTING: [(&str, &str); 2] = [
    ("BestEffort", "NotBestEffort"),
    ("Terminating", "NotTerminating"),
];

/// The scopes a selector matches with `Exists` alone: they have no value.
const VALUELESS: [&str; 5] = [
    "Terminating",
    "NotTerminating",
    "BestEffort",
    "NotBestEffort",
    "CrossNamespacePodAffinity",
];

/// The checks of a ResourceQuota whose spec is `spec`, at `at`.
pub fn check(spec: &Json, at: &KeyPath, found: &mut Found) {
    let hard: BTreeSet<&str> = (spec.field("hard").as_object().into_iter().flatten())
        .map(|(name, _)| name.as_str())
        .collect();
    for (name, value) in spec.field("hard").as_object().into_iter().flatten() {
        amount(
            name,
            value,
            &at.clone().key("hard").key(name.clone()),
            found,
        );
    }
    let mut memo = Untracked::new(&hard);
    scopes(
        spec.field("scopes"),
        &mut memo,
        &at.clone().key("scopes"),
        found,
    );
    if spec.field("scopeSelector").is_object() {
        selector(
            spec.field("scopeSelector"),
            &mut memo,
            &at.clone().key("scopeSelector").key("matchExpressions"),
            found,
        );
    }
}

/// One resource of `hard`: a name a quota tracks, and an amount not
/// negative and, for a resource counted in units, whole
/// (`ValidateResourceQuantityValue`: in thousandths as Go's int64 holds
/// them).
fn amount(name: &str, value: &Json, at: &KeyPath, found: &mut Found) {
    if let Err(why) = quota_resource_name(name) {
        found.push((at.clone(), why));
    }
    // An amount that is no quantity is the schema's to say (`K8S`).
    let Some(Ok(quantity)) = crate::quantity::of_value(value) else {
        return;
    };
    if quantity.is_negative() {
        found.push((
            at.clone(),
            format!(
                "{} is negative: a quota's amounts are at least 0",
                plain(value)
            ),
        ));
    }
    if counted(name) && go_scaled_value_of(value, -3).is_some_and(|m| m % 1000 != 0) {
        found.push((
            at.clone(),
            format!(
                "{} of {name} is not a whole number: {name} is counted in units",
                plain(value)
            ),
        ));
    }
}

/// A resource a quota tracks (`ValidateResourceQuotaResourceName`): a
/// resource name, and without a domain one the quota system knows
/// (`IsStandardQuotaResourceName`: not `storage`, which is a volume's).
fn quota_resource_name(name: &str) -> Result<(), String> {
    resources::resource_name(name)?;
    match name {
        "storage" => Err(
            "`storage` is not a resource a quota tracks: a quota tracks requests.storage"
                .to_owned(),
        ),
        _ => Ok(()),
    }
}

/// A resource the quota system knows (`IsStandardQuotaResourceName`): one
/// of Kubernetes' own without a domain.
fn standard_quota(name: &str) -> bool {
    !name.contains('/') && quota_resource_name(name).is_ok()
}

/// A resource counted in whole units (`IsIntegerResourceName`): objects,
/// and extended resources (which `count/pods` is, to the API server).
fn counted(name: &str) -> bool {
    resources::OBJECT_COUNTS.contains(&name) || resources::extended(name)
}

/// Whether a quota of `scope` can track `resource`
/// (`IsResourceQuotaScopeValidForResource`, asked only of the resources
/// the quota system knows): pod scopes track pods and their CPU and
/// memory, `BestEffort` pods alone, `VolumeAttributesClass` claims and
/// their storage.
fn tracks(scope: &str, resource: &str) -> bool {
    let pods = resource == "pods";
    let compute = matches!(
        resource,
        "cpu" | "memory" | "limits.cpu" | "limits.memory" | "requests.cpu" | "requests.memory"
    );
    match scope {
        "Terminating"
        | "NotTerminating"
        | "NotBestEffort"
        | "PriorityClass"
        | "CrossNamespacePodAffinity" => pods || compute,
        "BestEffort" => pods,
        "VolumeAttributesClass" => {
            matches!(resource, "persistentvolumeclaims" | "requests.storage")
        }
        _ => true,
    }
}

/// Why a quota of a scope cannot track its resources
/// (`IsResourceQuotaScopeValidForResource` over its standard resources),
/// worked out once a scope: a quota may list a scope many times, and its
/// resources be many.
struct Untracked<'a> {
    hard: &'a BTreeSet<&'a str>,
    by_scope: BTreeMap<String, Option<String>>,
}

impl<'a> Untracked<'a> {
    fn new(hard: &'a BTreeSet<&'a str>) -> Self {
        Untracked {
            hard,
            by_scope: BTreeMap::new(),
        }
    }

    /// Why `scope` cannot track the quota's resources, if it cannot (an
    /// unknown scope, refused for itself, tracks anything).
    fn why(&mut self, scope: &str) -> Option<String> {
        if let Some(why) = self.by_scope.get(scope) {
            return why.clone();
        }
        let untracked: Vec<&str> = (self.hard.iter().copied())
            .filter(|r| standard_quota(r) && !tracks(scope, r))
            .collect();
        let why = (!untracked.is_empty()).then(|| {
            let shown = untracked.len().min(6);
            let more = match untracked.len() - shown {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            format!(
                "a quota of scope {scope} cannot track {}{more}: it tracks {}",
                untracked[..shown].join(", "),
                match scope {
                    "BestEffort" => "pods alone",
                    "VolumeAttributesClass" => "persistentvolumeclaims and requests.storage alone",
                    _ => "pods, cpu, memory and their requests. and limits. alone",
                }
            )
        });
        self.by_scope.insert(scope.to_owned(), why.clone());
        why
    }
}

/// A finding at `at` where a quota of `scope` cannot track its resources.
fn untracked(scope: &str, memo: &mut Untracked<'_>, at: &KeyPath, found: &mut Found) {
    if let Some(why) = memo.why(scope) {
        found.push((at.clone(), why));
    }
}

/// Two scopes of `scopes` that contradict each other, as a finding at `at`.
fn conflicting(scopes: &BTreeSet<&str>, at: &KeyPath, found: &mut Found) {
    for (one, other) in CONFLICTING {
        if scopes.contains(one) && scopes.contains(other) {
            found.push((
                at.clone(),
                format!("scopes {one} and {other} conflict: no object is in both"),
            ));
        }
    }
}

/// The listed `scopes` (`validateResourceQuotaScopes`): known ones, each
/// able to track the quota's resources, none conflicting.
fn scopes(list: &Json, memo: &mut Untracked<'_>, at: &KeyPath, found: &mut Found) {
    let mut seen = BTreeSet::new();
    for (i, scope) in each(list) {
        let scope = scope.as_str().unwrap_or_default();
        if !SCOPES.contains(&scope) {
            found.push((at.clone().index(i), unknown(scope)));
        }
        untracked(scope, memo, &at.clone().index(i), found);
        seen.insert(scope);
    }
    conflicting(&seen, at, found);
}

/// Why `scope` is refused: no scope a quota has.
fn unknown(scope: &str) -> String {
    format!("`{scope}` is not a quota scope ({})", SCOPES.join(", "))
}

/// A scope selector's `matchExpressions`, at `at`
/// (`validateScopedResourceSelectorRequirement`): known scopes, each able
/// to track the quota's resources; `Exists` for a scope without values;
/// `In` or `NotIn` with values, `Exists` or `DoesNotExist` without, no
/// other operator; no conflicting scopes.
fn selector(selector: &Json, memo: &mut Untracked<'_>, at: &KeyPath, found: &mut Found) {
    let mut seen = BTreeSet::new();
    for (i, expression) in each(selector.field("matchExpressions")) {
        let at = at.clone().index(i);
        let scope = expression.field("scopeName").as_str().unwrap_or_default();
        if !SCOPES.contains(&scope) {
            found.push((at.clone().key("scopeName"), unknown(scope)));
        }
        untracked(scope, memo, &at.clone().key("scopeName"), found);
        let operator = expression.field("operator").as_str().unwrap_or_default();
        if VALUELESS.contains(&scope) && operator != "Exists" {
            found.push((
                at.clone().key("operator"),
                format!(
                    "`{operator}` is not Exists: scope {scope} has no values to match, only Exists"
                ),
            ));
        }
        let values = expression.field("values").as_array().map_or(0, Vec::len);
        match operator {
            "In" | "NotIn" if values == 0 => found.push((
                at.clone().key("values"),
                format!("operator {operator} needs at least one value"),
            )),
            "Exists" | "DoesNotExist" if values > 0 => found.push((
                at.clone().key("values"),
                format!("operator {operator} takes no values"),
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            _ => found.push((
                at.clone().key("operator"),
                format!(
                    "`{operator}` is not a scope selector operator (In, NotIn, Exists, DoesNotExist)"
                ),
            )),
        }
        seen.insert(scope);
    }
    conflicting(&seen, at, found);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn found(spec: Json) -> Vec<String> {
        let mut found = Vec::new();
        check(&spec, &KeyPath::root().key("spec"), &mut found);
        found
            .into_iter()
            .map(|(path, why)| format!("{path}: {why}"))
            .collect()
    }

    /// A scope listed many times beside many resources is worked out
    /// once, and says a few of them: the cost and the message stay in
    /// proportion to the input.
    #[test]
    fn many_scopes_and_resources_cost_no_square() {
        let hard: serde_json::Map<String, Json> = (0..5_000)
            .map(|i| (format!("hugepages-{i}Ki"), json!("1")))
            .collect();
        let scopes = vec![json!("BestEffort"); 5_000];
        let said = found(json!({"hard": hard, "scopes": scopes}));
        assert_eq!(said.len(), 5_000);
        assert!(said[0].contains("and 4994 more"), "{}", said[0]);
        assert!(said[0].len() < 300, "{}", said[0]);
    }

    #[test]
    fn resource_names_a_quota_tracks() {
        for (name, tracked) in [
            ("pods", true),
            ("requests.cpu", true),
            ("limits.ephemeral-storage", true),
            ("hugepages-2Mi", true),
            ("requests.hugepages-2Mi", true),
            ("services.loadbalancers", true),
            ("count/deployments.apps", true),
            ("requests.example.com/gpu", true),
            ("example.com/gpu", true),
            ("gpu", false),
            ("storage", false),
            ("limits.storage", false),
            ("count/", false),
        ] {
            let said = found(json!({"hard": {name: "1"}}));
            assert_eq!(said.is_empty(), tracked, "{name}: {said:?}");
        }
    }

    #[test]
    fn amounts_are_not_negative_and_objects_whole() {
        assert_eq!(
            found(json!({"hard": {"cpu": "-1", "pods": "1500m", "memory": "1500m"}})),
            [
                "spec.hard.cpu: -1 is negative: a quota's amounts are at least 0",
                "spec.hard.pods: 1500m of pods is not a whole number: pods is counted in units",
            ]
        );
        // Rounded to thousandths before: `1n` is `1m`, no whole pod.
        assert_eq!(found(json!({"hard": {"pods": "1m"}})).len(), 1);
        // An extended resource is counted in units; a quota's request of one is not.
        assert_eq!(found(json!({"hard": {"example.com/gpu": "0.5"}})).len(), 1);
        assert_eq!(found(json!({"hard": {"count/pods": "0.5"}})).len(), 1);
        assert!(found(json!({"hard": {"requests.example.com/gpu": "0.5"}})).is_empty());
        assert!(found(json!({"hard": {"pods": "2k", "configmaps": 3}})).is_empty());
    }

    #[test]
    fn scopes_known_trackable_and_not_conflicting() {
        assert_eq!(
            found(json!({"hard": {"pods": "1"}, "scopes": ["Terminating", "NotTerminating"]})),
            ["spec.scopes: scopes Terminating and NotTerminating conflict: no object is in both"]
        );
        assert_eq!(
            found(json!({"scopes": ["Nope"]})),
            [
                "spec.scopes[0]: `Nope` is not a quota scope (Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass, VolumeAttributesClass, CrossNamespacePodAffinity)"
            ]
        );
        assert_eq!(
            found(
                json!({"hard": {"cpu": "1", "ephemeral-storage": "1"}, "scopes": ["BestEffort"]})
            ),
            [
                "spec.scopes[0]: a quota of scope BestEffort cannot track cpu, ephemeral-storage: it tracks pods alone"
            ]
        );
        // Resources the quota system does not know are not asked.
        assert!(
            found(json!({"hard": {"count/pods": "1", "pods": "1"}, "scopes": ["BestEffort"]}))
                .is_empty()
        );
        assert!(
            found(
                json!({"hard": {"requests.storage": "1Gi"}, "scopes": ["VolumeAttributesClass"]})
            )
            .is_empty()
        );
    }

    #[test]
    fn scope_selectors() {
        let selector = |expressions: Json| {
            found(
                json!({"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": expressions}}),
            )
        };
        assert!(
            selector(json!([
                {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]},
                {"scopeName": "BestEffort", "operator": "Exists"},
            ]))
            .is_empty()
        );
        assert_eq!(
            selector(json!([{"scopeName": "PriorityClass", "operator": "In"}])),
            ["spec.scopeSelector.matchExpressions[0].values: operator In needs at least one value"]
        );
        assert_eq!(
            selector(json!([{"scopeName": "Terminating", "operator": "DoesNotExist"}])),
            [
                "spec.scopeSelector.matchExpressions[0].operator: `DoesNotExist` is not Exists: scope Terminating has no values to match, only Exists"
            ]
        );
        assert_eq!(
            selector(json!([{"scopeName": "PriorityClass", "operator": "Gt", "values": ["1"]}])),
            [
                "spec.scopeSelector.matchExpressions[0].operator: `Gt` is not a scope selector operator (In, NotIn, Exists, DoesNotExist)"
            ]
        );
        assert_eq!(
            selector(json!([
                {"scopeName": "BestEffort", "operator": "Exists"},
                {"scopeName": "NotBestEffort", "operator": "Exists"},
            ])),
            [
                "spec.scopeSelector.matchExpressions: scopes BestEffort and NotBestEffort conflict: no object is in both"
            ]
        );
    }
}
