//! Kubernetes object schemas: the vendored, strict JSON schemas of every
//! built-in kind, per pinned Kubernetes version, plus cert-manager's
//! Certificate, baked into static tables at build time
//! (`build/kube_schemas.rs`) and checked by [`validator`], which reports what
//! jsonschema would: loading them costs nothing at run time.
//!
//! Strict means unknown fields are errors: a misspelt field in a template is
//! caught here, not silently dropped by the API server.

pub mod conformance;
mod decode;
pub mod defaults;
mod go_formats;
mod go_numbers;
pub mod validator;

use serde_json::Value as Json;

use crate::json::Field;
use crate::location::{KeyPath, Segment};

/// The Kubernetes versions whose schemas are vendored, oldest first.
pub const VERSIONS: &[&str] = &["1.33", "1.35"];

/// The version checked when none is asked for.
pub const DEFAULT_VERSION: &str = "1.35";

/// `(apiVersion, kind)`, the key of a schema.
pub type Kind = (&'static str, &'static str);

/// The baked schemas of every built-in kind (and cert-manager's
/// Certificate) for one Kubernetes version.
#[derive(Debug, Clone, Copy)]
pub struct KubeSchemas {
    /// `(apiVersion, kind, root node)`, sorted, of the versions the API
    /// server serves by default ([`off_by_default`]).
    kinds: &'static [validator::KindRoot],
    /// The version, `"1.35"`.
    version: &'static str,
}

impl KubeSchemas {
    /// The schemas of Kubernetes `version` (one of [`VERSIONS`]).
    pub fn load(version: &str) -> Result<Self, String> {
        // Each version's kinds at the versions served by default, kept
        // once for the process: a lookup then needs no other test.
        static SERVED: std::sync::OnceLock<Vec<&'static [validator::KindRoot]>> =
            std::sync::OnceLock::new();
        let served = SERVED.get_or_init(|| {
            (validator::VERSIONS.iter())
                .map(|(_, kinds)| -> &'static [validator::KindRoot] {
                    let kept = kinds
                        .iter()
                        .filter(|(api_version, _, _)| !off_by_default(api_version));
                    Vec::leak(kept.copied().collect())
                })
                .collect()
        });
        let baked = validator::VERSIONS
            .iter()
            .position(|(v, _)| VERSIONS.contains(&version) && *v == version);
        match baked {
            Some(at) => Ok(KubeSchemas {
                kinds: served[at],
                version: validator::VERSIONS[at].0,
            }),
            None => Err(format!(
                "no schemas for Kubernetes {version}; vendored: {}",
                VERSIONS.join(", ")
            )),
        }
    }

    /// The Kubernetes version of these schemas, `"1.35"`: `check` reads
    /// the same version's default RBAC roles.
    pub fn version(&self) -> &'static str {
        self.version
    }

    /// The kinds these schemas cover, at the versions the API server
    /// serves by default ([`off_by_default`]).
    pub fn kinds(&self) -> impl Iterator<Item = Kind> + '_ {
        self.kinds
            .iter()
            .map(|&(api_version, kind, _)| (api_version, kind))
    }

    /// The root node of `(api_version, kind)`'s schema; `None` at a version
    /// the API server does not serve by default ([`off_by_default`]).
    pub fn root(&self, api_version: &str, kind: &str) -> Option<u32> {
        self.kinds
            .binary_search_by(|&(a, k, _)| (a, k).cmp(&(api_version, kind)))
            .ok()
            .map(|i| self.kinds[i].2)
    }

    /// The root node of `object`'s kind.
    fn root_of(&self, object: &Json) -> Option<u32> {
        let api_version = object.get_field("apiVersion")?.as_str()?;
        let kind = object.get_field("kind")?.as_str()?;
        self.root(api_version, kind)
    }

    /// Every violation of `object`, structured; `None` when its kind has no
    /// schema here. What the API server validates: a `required` below
    /// `status` is not one (it resets a built-in kind's status on create;
    /// only its decoder reads it, for types and unknown fields), nor one of
    /// an owner reference but in the object's own metadata.
    pub fn errors<'i>(&self, object: &'i Json) -> Option<Vec<validator::SchemaError<'i>>> {
        let mut errors = validator::validate(self.root_of(object)?, object);
        errors.retain(|e| {
            let status = matches!(e.path.0.first(), Some(Segment::Key(key)) if key == "status");
            // An owner reference's fields are required by the validation
            // of the object's own metadata only: a template's metadata is
            // held to its labels and annotations (measured: a Deployment
            // whose template's owner reference has no uid is created).
            let nested_owner = (e.path.0.iter().enumerate()).any(
                |(at, segment)| matches!(segment, Segment::Key(key) if key == "ownerReferences" && at > 1),
            );
            !((status || nested_owner) && matches!(e.kind, validator::ErrorKind::Required { .. }))
        });
        Some(errors)
    }

    /// `object` as the API server's decoder leaves it for validation: a
    /// null member unset, a null array item or map value the zero value of
    /// its type, and a Go struct field, absent or null, an empty object
    /// where that breaks a `required`. `None` when that is `object` as it
    /// is (most objects), or its kind has no schema here.
    ///
    /// ```
    /// use kubernetes::kube::{DEFAULT_VERSION, KubeSchemas};
    ///
    /// let schemas = KubeSchemas::load(DEFAULT_VERSION).unwrap();
    /// let job = serde_json::json!({
    ///     "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
    ///     "spec": {"template": {"spec": {"containers": [null], "restartPolicy": null}}},
    /// });
    /// let read = schemas.decoded(&job).unwrap();
    /// assert_eq!(read["spec"]["template"]["spec"], serde_json::json!({"containers": [{}]}));
    /// let empty = serde_json::json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}});
    /// assert_eq!(schemas.decoded(&empty).unwrap()["spec"], serde_json::json!({"template": {"spec": {}}}));
    /// ```
    pub fn decoded(&self, object: &Json) -> Option<Json> {
        decode::decoded(&validator::KUBERNETES, self.root_of(object)?, object)
    }

    /// Validates `object`; `None` when its kind has no schema here, else
    /// every violation with the path of the offending node, its message,
    /// and for an unknown field the field's name (its key in the object at
    /// the path: where a reader looks). An object with several unknown
    /// fields has one violation for each, each worded as jsonschema words
    /// one, with a did-you-mean when a declared field is close (a key's
    /// name, never a value).
    pub fn validate(&self, object: &Json) -> Option<Vec<Violation>> {
        let errors = self.errors(object)?;
        let mut out = Vec::new();
        for e in errors {
            if let validator::ErrorKind::AdditionalProperties { unexpected, known } = &e.kind {
                let path = validator::as_pointer_reads(e.path.clone());
                for name in unexpected {
                    out.push((
                        path.clone(),
                        unknown_field(name, known.iter().copied()),
                        Some(name.clone()),
                    ));
                }
                continue;
            }
            let message = decoder_words(&e).unwrap_or_else(|| e.to_string());
            out.push((validator::as_pointer_reads(e.path), message, None));
        }
        Some(out)
    }
}

/// One violation of a schema: the path of the offending node, the
/// message, and for an unknown field its name (a key of the node at the
/// path).
pub type Violation = (KeyPath, String, Option<String>);

/// jsonschema's message for the one unknown field `name`, and which
/// declared field of `known` it may be a slip for.
pub fn unknown_field<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let message = format!("Additional properties are not allowed ('{name}' was unexpected)");
    match crate::diagnostic::closest(name, known) {
        Some(close) => format!("{message}; did you mean `{close}`?"),
        None => message,
    }
}

/// Words for what the API server's decoder refuses, where the vendored
/// schemas spell it as a pattern (`scripts/vendor-kubernetes-schemas`:
/// a quantity string, within the `oneOf` of a string and a number, a
/// base64 string, and a time); `None` for any other error, which reads as jsonschema
/// words it.
fn decoder_words(error: &validator::SchemaError<'_>) -> Option<String> {
    use validator::ErrorKind;
    let of_pattern = |error: &validator::SchemaError<'_>| {
        match error.kind {
        ErrorKind::Pattern { pattern } if pattern.contains("[KMGTPE]i") => Some(format!(
            "{} is not a quantity (such as 250m, 1.5, 512Mi or 1e3): the API server refuses it before it validates",
            error.instance
        )),
        ErrorKind::Pattern { pattern } if pattern.contains("-02-29") => Some(format!(
            "{} is not a time as the API server decodes it ({}): it refuses it before it validates",
            error.instance,
            if pattern.contains("{6}") {
                "RFC 3339 with six digits of fraction, such as 2024-01-31T12:00:00.000000Z"
            } else {
                "RFC 3339, such as 2024-01-31T12:00:00Z or 2024-01-31T13:00:00+01:00"
            }
        )),
        ErrorKind::Pattern { pattern } if pattern.contains("[A-Za-z0-9+/]") => Some(
            "(hidden) is not base64: the API server decodes this field as base64 (padded, line breaks aside) and refuses it before it validates"
                .to_owned(),
        ),
        _ => None,
    }
    };
    match &error.kind {
        ErrorKind::OneOfNotValid { context } => context.iter().flatten().find_map(of_pattern),
        ErrorKind::Type { expected, .. }
            if expected.names().any(|t| t == "integer")
                && error.instance.as_f64().is_some_and(|f| f.fract() == 0.0) =>
        {
            Some(format!(
                "{} is past what an integer field holds (64 bits, -9223372036854775808 to 9223372036854775807): the API server refuses it before it validates",
                error.instance
            ))
        }
        _ => of_pattern(error),
    }
}

/// `object` as the API server validates it: as its decoder leaves it
/// ([`KubeSchemas::decoded`]), then its defaults ([`defaults::defaulted`]); `None`
/// when that is `object` itself. The schema
/// check ([`conformance`]) and the API rules (`crate::api`) read this.
pub fn as_validated(object: &Json, schemas: &KubeSchemas) -> Option<Json> {
    let decoded = schemas.decoded(object);
    defaults::defaulted(decoded.as_ref().unwrap_or(object)).or(decoded)
}

/// Whether `api_version` is an alpha or beta version of a group Kubernetes
/// itself serves (`resource.k8s.io/v1beta1`): its API server serves none
/// of them unless its `--runtime-config` turns them on. Since Kubernetes
/// 1.24 a new beta API is off by default, and the older betas are gone;
/// 1.33's and 1.35's `betaAPIGroupVersionsDisabledByDefault` and
/// `alphaAPIGroupVersionsDisabledByDefault` (`pkg/controlplane`) list every
/// alpha and beta version their schemas hold (measured on a v1.35.4
/// server: `kubectl api-versions` lists none).
pub fn off_by_default(api_version: &str) -> bool {
    // A scan of the few bytes of the version (`v1`, `v1beta1`), not a
    // search for a pattern; `KubeSchemas::load` asks it once per kind.
    let bytes = api_version.as_bytes();
    let version = match bytes.iter().rposition(|&b| b == b'/') {
        Some(slash) => &bytes[slash + 1..],
        None => bytes,
    };
    let after = version.strip_prefix(b"v").unwrap_or(version);
    let level = &after[after.iter().take_while(|b| b.is_ascii_digit()).count()..];
    (level.starts_with(b"alpha") || level.starts_with(b"beta"))
        && is_kubernetes_group(crate::manifest::api_group(api_version))
}

/// Whether `group` is one Kubernetes itself serves: the core group (`""`),
/// a group without a dot (`apps`, `batch`) or one under `k8s.io`. Any
/// other group's kinds are custom resources, whatever they are called.
pub fn is_kubernetes_group(group: &str) -> bool {
    !group.contains('.') || group.ends_with(".k8s.io")
}

/// Whether `(group, kind)` is built into Kubernetes: a kind of an API
/// group Kubernetes itself serves (the core group, an unqualified group
/// such as `apps`, or one under `k8s.io`) that the vendored schemas of some
/// version in [`VERSIONS`] define. Anything else (cert-manager's
/// Certificate among the vendored schemas included) is a custom resource,
/// whether or not its CRD is at hand.
pub fn is_built_in(group: &str, kind: &str) -> bool {
    use std::collections::HashSet;
    use std::sync::OnceLock;
    static BUILT_IN: OnceLock<HashSet<(&'static str, &'static str)>> = OnceLock::new();
    if !is_kubernetes_group(group) {
        return false;
    }
    BUILT_IN
        .get_or_init(|| {
            validator::VERSIONS
                .iter()
                .filter(|(version, _)| VERSIONS.contains(version))
                .flat_map(|(_, kinds)| kinds.iter())
                .map(|&(api_version, kind, _)| (crate::manifest::api_group(api_version), kind))
                .filter(|(group, _)| is_kubernetes_group(group))
                .collect()
        })
        .contains(&(group, kind))
}

/// Why the API server keeps no object of `object`'s built-in kind, for
/// the kinds its schemas define that no resource stores: the bodies of
/// subresources (an Eviction, a Scale, a TokenRequest), create-only
/// requests it answers and forgets (a Binding, the reviews) and a
/// read-only list (ComponentStatus). Each is refused by a server-side
/// apply (measured on a v1.35.4 server: `no matches for kind`,
/// `MethodNotAllowed` or `NotFound`), so a manifest of one never lands.
/// `None` for every other object.
pub fn not_stored(object: &Json) -> Option<String> {
    let kind = object.field("kind").as_str()?;
    let why = match kind {
        "Eviction" | "Scale" | "TokenRequest" => {
            let (group, parent) = match kind {
                "Eviction" => ("policy", "a Pod's `eviction`"),
                "Scale" => ("autoscaling", "a workload's `scale`"),
                _ => ("authentication.k8s.io", "a ServiceAccount's `token`"),
            };
            (group, format!("it is the body of {parent} subresource, and no resource holds one: kubectl finds no such kind to apply"))
        }
        "Binding" => ("", "it is posted to bind a Pod to a node and not kept: a server-side apply of one is refused".to_owned()),
        "ComponentStatus" => ("", "the component statuses are read-only: creating one is refused (MethodNotAllowed)".to_owned()),
        "TokenReview" | "SelfSubjectReview" => ("authentication.k8s.io", REVIEW.to_owned()),
        "SubjectAccessReview" | "SelfSubjectAccessReview" | "LocalSubjectAccessReview"
        | "SelfSubjectRulesReview" => ("authorization.k8s.io", REVIEW.to_owned()),
        _ => return None,
    };
    let api_version = object.field("apiVersion").as_str()?;
    (crate::manifest::api_group(api_version) == why.0)
        .then(|| format!("the API server keeps no {api_version} {kind}: {}", why.1))
}

/// Why a review is no manifest ([`not_stored`]).
const REVIEW: &str = "a review asks the API server a question and is never kept: a server-side apply of one is refused, and a create stores nothing";

/// The regular expression engine of every Kubernetes and CRD schema: the
/// linear-time `regex` crate, as the API server's Go RE2 is, so a pattern
/// with backreferences or look-around does not compile (the API server
/// refuses it too) and no pattern can backtrack for seconds per value. The
/// size limit keeps a pattern such as `(a{1000}){1000}` from compiling into
/// megabytes. The baked validator compiles its patterns with the same limits.
pub fn pattern_engine() -> jsonschema::PatternOptions<jsonschema::Regex> {
    jsonschema::PatternOptions::regex()
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_SIZE_LIMIT)
}

/// The most bytes a schema pattern may compile into, and its lazy DFA may
/// grow to ([`pattern_engine`]; the baked validator's fallback; the
/// baker, `build/kube_schemas.rs`, checks the vendored patterns with it).
pub const PATTERN_SIZE_LIMIT: usize = 1 << 20;

#[cfg(test)]
mod tests {
    /// Written for the regex crate ([`crate::regexp::read`]), a pattern
    /// matches what Go's matches (a custom resource's schema compiles its
    /// patterns with the regex crate: `conformance::GO_PATTERN`).
    #[test]
    fn go_only_syntax_is_written_for_the_regex_crate() {
        let reads = |pattern: &str, text: &str| {
            let written = crate::regexp::read(pattern).unwrap();
            regex::Regex::new(&written).unwrap().is_match(text)
        };
        assert!(reads(r"^\Qa.b\E$", "a.b") && !reads(r"^\Qa.b\E$", "axb"));
        assert!(reads("^a{$", "a{") && reads("^a{,5}$", "a{,5}"));
        assert!(reads("^[[:a]+$", "[:a") && reads("^[]a]+$", "]a"));
        assert!(reads("^[[:alpha:]]+$", "Ab") && !reads("^[[:alpha:]]+$", "A1"));
        assert!(reads("^[[:^alpha:]x]+$", "1x-") && !reads("^[[:^alpha:]]+$", "a"));
        assert!(reads("^[[:punct:]]+$", "[]^-\\") && !reads("^[[:punct:]]+$", "a"));
        assert!(reads(r"^\<a\>$", "<a>"));
        assert!(reads("^[a&&b]+$", "a&b") && reads("^[a~~]+$", "~"));
        let upper = r"^\p{uppercase-letter}+$";
        assert!(reads(upper, "AB") && !reads(upper, "ab"));
    }

    #[test]
    fn the_kinds_no_resource_stores_are_named_in_their_own_group_only() {
        let object = |api_version: &str, kind: &str| serde_json::json!({"apiVersion": api_version, "kind": kind});
        for (api_version, kind) in [
            ("policy/v1", "Eviction"),
            ("autoscaling/v1", "Scale"),
            ("authentication.k8s.io/v1", "TokenRequest"),
            ("authentication.k8s.io/v1", "TokenReview"),
            ("authentication.k8s.io/v1", "SelfSubjectReview"),
            ("authorization.k8s.io/v1", "SubjectAccessReview"),
            ("authorization.k8s.io/v1", "SelfSubjectAccessReview"),
            ("authorization.k8s.io/v1", "LocalSubjectAccessReview"),
            ("authorization.k8s.io/v1", "SelfSubjectRulesReview"),
            ("v1", "Binding"),
            ("v1", "ComponentStatus"),
        ] {
            let why = not_stored(&object(api_version, kind));
            let why = why.unwrap_or_else(|| panic!("{api_version} {kind}"));
            assert!(why.starts_with(&format!("the API server keeps no {api_version} {kind}: ")));
        }
        // The same names elsewhere: a custom resource, an RBAC binding, a
        // kind the server stores.
        assert_eq!(not_stored(&object("example.com/v1", "Eviction")), None);
        assert_eq!(
            not_stored(&object("rbac.authorization.k8s.io/v1", "Binding")),
            None
        );
        assert_eq!(not_stored(&object("v1", "ConfigMap")), None);
        assert_eq!(not_stored(&object("apps/v1", "Scale")), None);
    }
    use super::*;

    /// Built-in kinds by group, whatever their version; custom resources
    /// (cert-manager's Certificate, vendored here, among them) are not.
    #[test]
    fn built_in_kinds_are_those_kubernetes_serves() {
        for (group, kind) in [
            ("", "ConfigMap"),
            ("apps", "StatefulSet"),
            ("rbac.authorization.k8s.io", "ClusterRole"),
            ("apiextensions.k8s.io", "CustomResourceDefinition"),
            ("networking.k8s.io", "NetworkPolicy"),
            ("batch", "CronJob"),
        ] {
            assert!(is_built_in(group, kind), "{group} {kind}");
        }
        for (group, kind) in [
            ("cert-manager.io", "Certificate"),
            ("buildkit.example.com", "BuildProject"),
            ("kyverno.io", "ClusterPolicy"),
            ("", "BuildProject"),
            ("apps", "ConfigMap"),
            ("example.k8s.io", "Widget"),
        ] {
            assert!(!is_built_in(group, kind), "{group} {kind}");
        }
    }

    #[test]
    fn every_vendored_version_loads_every_built_in_kind() {
        // Every built-in kind kubernetes-validate ships (no `*List`, no
        // `meta/v1`), plus cert-manager's Certificate, Cilium's
        // CiliumNetworkPolicy and the Prometheus Operator's ServiceMonitor;
        // of them, 27 and 24 at alpha or beta versions, off by default.
        for (version, count) in VERSIONS.iter().zip([94 - 27, 96 - 24]) {
            let schemas = KubeSchemas::load(version).unwrap();
            assert_eq!(schemas.kinds().count(), count, "{version}");
            assert!(
                schemas
                    .root("resource.k8s.io/v1beta1", "DeviceClass")
                    .is_none()
            );
            assert!(
                schemas
                    .root("networking.k8s.io/v1", "ServiceCIDR")
                    .is_some()
            );
            assert!(
                schemas
                    .root("networking.k8s.io/v1beta1", "ServiceCIDR")
                    .is_none()
            );
            for (api_version, kind) in [
                ("apps/v1", "StatefulSet"),
                ("apps/v1", "ReplicaSet"),
                ("batch/v1", "Job"),
                ("batch/v1", "CronJob"),
                ("v1", "Pod"),
                ("v1", "ReplicationController"),
                ("v1", "PodTemplate"),
                ("v1", "PersistentVolume"),
                ("v1", "Secret"),
                (
                    "admissionregistration.k8s.io/v1",
                    "ValidatingWebhookConfiguration",
                ),
                (
                    "admissionregistration.k8s.io/v1",
                    "MutatingWebhookConfiguration",
                ),
                ("networking.k8s.io/v1", "Ingress"),
                ("storage.k8s.io/v1", "StorageClass"),
                ("scheduling.k8s.io/v1", "PriorityClass"),
                ("autoscaling/v2", "HorizontalPodAutoscaler"),
            ] {
                assert!(
                    schemas.root(api_version, kind).is_some(),
                    "{version}: {api_version} {kind}"
                );
            }
            // Dynamic resource allocation is beta in 1.33, off by default.
            assert!(
                schemas
                    .root("resource.k8s.io/v1beta1", "ResourceClaim")
                    .is_none()
            );
            assert!(off_by_default("v2alpha1") && !off_by_default("example.com/v1beta1"));
            assert!(schemas.root("v1", "PodList").is_none(), "{version}");
            assert!(schemas.root("v1", "Status").is_none(), "{version}");
        }
        assert_eq!(validator::VERSIONS.len(), VERSIONS.len(), "baked versions");
        assert!(KubeSchemas::load("1.20").is_err());
    }

    /// What the API server's decoder refuses before it validates: a
    /// number past an `int32`, a quantity it cannot parse (its white
    /// space and empty numbers as it reads them), base64 it cannot decode;
    /// in words, at the field.
    #[test]
    fn what_the_decoder_refuses_is_an_error_in_words() {
        let schemas = KubeSchemas::load(DEFAULT_VERSION).unwrap();
        let quota = |hard: Json| {
            schemas
                .validate(&serde_json::json!({
                    "apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"},
                    "spec": {"hard": hard},
                }))
                .unwrap()
        };
        assert_eq!(
            quota(serde_json::json!({"a": " 1Gi\u{a0}", "b": "Ki", "c": ".", "d": 2, "e": "+1e3"})),
            []
        );
        for bad in ["abc", "1 Gi", "\t1", "", "1ki", "1e", "1.2.3"] {
            let errors = quota(serde_json::json!({"a": bad}));
            assert_eq!(errors.len(), 1, "{bad:?}: {errors:?}");
            assert!(errors[0].1.contains("is not a quantity"), "{errors:?}");
        }
        let secret = |data: &str| {
            schemas
                .validate(&serde_json::json!({
                    "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
                    "data": {"k": data},
                }))
                .unwrap()
        };
        for good in ["", "aGVsbG8=", "aGVs\nbG8=", "aGk=\r\n", "YQ=\n="] {
            assert_eq!(secret(good), [], "{good:?}");
        }
        for bad in ["aGVsbG8", "a-_b", "YQ==YQ==", "YQ", "YQ=", "aGVsbG8= x"] {
            let errors = secret(bad);
            assert!(
                errors[0].1.starts_with("(hidden) is not base64"),
                "{bad:?}: {errors:?}"
            );
        }
        let replicas = |n: i64| {
            schemas
                .validate(&serde_json::json!({
                    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                    "spec": {"replicas": n, "selector": {}, "template": {}},
                }))
                .unwrap()
        };
        let times = |time: &str, micro: &str| {
            schemas
                .validate(&serde_json::json!({
                    "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                    "metadata": {"name": "l", "creationTimestamp": time},
                    "spec": {"renewTime": micro},
                }))
                .unwrap()
        };
        for (time, micro) in [
            ("2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000000Z"),
            (
                "2000-02-29T1:00:00,5+24:00",
                "2024-01-01T23:59:59,123456-23:60",
            ),
            (
                "2024-01-01T00:00:00.1234567890123Z",
                "2024-01-01T00:00:00.+12345Z",
            ),
        ] {
            assert_eq!(times(time, micro), [], "{time:?} {micro:?}");
        }
        for (time, micro) in [
            ("2023-02-29T00:00:00Z", "2023-02-29T00:00:00.000000Z"),
            ("1900-02-29T00:00:00Z", "2024-01-01T00:00:00Z"),
            ("2024-01-01T24:00:00Z", "2024-01-01T00:00:00.12345Z"),
            ("2024-01-01T00:00:00+25:00", "2024-01-01T00:00:00.-12345Z"),
            ("2024-01-01T00:00:00Z\n", "2024-01-01T00:00:00.1234567Z"),
            ("yesterday", "2024-04-31T00:00:00.000000Z"),
        ] {
            let errors = times(time, micro);
            assert_eq!(errors.len(), 2, "{time:?} {micro:?}: {errors:?}");
            assert_eq!(errors[0].0.to_string(), "metadata.creationTimestamp");
            assert!(
                errors[0]
                    .1
                    .contains("is not a time as the API server decodes it (RFC 3339,"),
                "{errors:?}"
            );
            assert_eq!(errors[1].0.to_string(), "spec.renewTime");
            assert!(errors[1].1.contains("six digits of fraction"), "{errors:?}");
        }
        assert_eq!(replicas(2_147_483_647), []);
        assert_eq!(replicas(2_147_483_648)[0].0.to_string(), "spec.replicas");
    }

    #[test]
    fn unknown_fields_are_errors() {
        let schemas = KubeSchemas::load(DEFAULT_VERSION).unwrap();
        let object = serde_json::json!({
            "apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "x", "labelz": {}},
        });
        let errors = schemas.validate(&object).unwrap();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].0.to_string(), "metadata", "{errors:?}");
        assert_eq!(
            errors[0].1,
            "Additional properties are not allowed ('labelz' was unexpected); did you mean `labels`?"
        );
        assert_eq!(errors[0].2.as_deref(), Some("labelz"));
        // Each unknown field on its own, a did-you-mean only where a
        // declared field is close.
        let object = serde_json::json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "x"},
            "spec": {"replica": 2, "zzzzzz": 1, "selector": {}, "template": {}},
        });
        let errors = schemas.validate(&object).unwrap();
        let unknown: Vec<_> = (errors.iter())
            .filter(|(_, _, field)| field.is_some())
            .map(|(path, message, field)| (path.to_string(), message.as_str(), field.as_deref()))
            .collect();
        assert_eq!(
            unknown,
            [
                (
                    "spec".to_owned(),
                    "Additional properties are not allowed ('replica' was unexpected); did you mean `replicas`?",
                    Some("replica")
                ),
                (
                    "spec".to_owned(),
                    "Additional properties are not allowed ('zzzzzz' was unexpected)",
                    Some("zzzzzz")
                ),
            ]
        );
        assert!(
            schemas
                .validate(&serde_json::json!({"apiVersion": "x/v1", "kind": "Y"}))
                .is_none()
        );
    }

    #[test]
    fn errors_are_structured_and_worded_as_jsonschema_words_them() {
        let schemas = KubeSchemas::load(DEFAULT_VERSION).unwrap();
        let object = serde_json::json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": 5},
            "spec": {"ports": [{"port": "x"}], "type": "Nope"},
        });
        let errors = schemas.errors(&object).unwrap();
        let rendered: Vec<(String, String)> = errors
            .iter()
            .map(|e| (e.path.to_string(), e.to_string()))
            .collect();
        assert!(
            rendered.contains(&(
                "metadata.name".into(),
                r#"5 is not of types "null", "string""#.into()
            )),
            "{rendered:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| matches!(e.kind, validator::ErrorKind::Type { single: false, .. })),
            "{errors:?}"
        );
        assert!(
            rendered
                .iter()
                .any(|(path, message)| path == "spec.ports[0].port"
                    && message == r#""x" is not of type "integer""#),
            "{rendered:?}"
        );
    }
}
