//! K8S: every object matches its Kubernetes schema, strictly. The check
//! words the verdicts of [`kubernetes::kube::conformance`] as the chart's
//! findings, naming `chartgen`'s flags in hints; it runs when the schemas
//! are given (`check`, not `relations`). Its one pass over the objects
//! (the CRDs' schemas compiled once) reports KIND too, for a kind it has
//! no schema for ([`super::unknown_kind`]), and API for a CRD whose claim
//! another CRD took ([`super::api`]).

use super::{DOC, Definition, Inputs};
use crate::check::Findings;
use crate::check::rules::Invariant;
use kubernetes::diagnostic::Rule;
use kubernetes::kube::conformance::{self, Unknown, Verdict};
use kubernetes::location::KeyPath;

/// K8S: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "K8S",
        title: "Every object matches its Kubernetes schema, strictly",
        help: "Built-in kinds against the vendored strict schemas of `--kube-version`, three custom kinds against the strict schemas chartgen holds for them (`schema/`: cert-manager's `cert-manager.io/v1` Certificate, Cilium's `cilium.io/v2` CiliumNetworkPolicy, the Prometheus Operator's `monitoring.coreos.com/v1` ServiceMonitor), other custom resources against the CRDs in the input or given with `--crd` (a CRD's `openAPIV3Schema` read as the API server reads it: JSON Schema draft 4, the dialect of Kubernetes' `JSONSchemaProps`, where `exclusiveMinimum: true` makes `minimum` exclusive; a whole number such as `1.0` an integer; an int-or-string an integer or a string; numbers judged as the server's go-openapi judges them: an `integer` takes a float within a relative 1e-9 of a whole number up to 2^53 on the positive side (`3.0000000001`, not `-3.0000000001`, nor `1e21` or a whole number past 2^63, which the server decodes as a float), an integer value meets `multipleOf`, `minimum` and `maximum` converted to integers as Go converts them on amd64 (towards zero, and to -2^63 past the range: `multipleOf: 2.5` is 2, one below 1 is 0 and refuses every integer, `maximum: 1e20` refuses every integer), a float meets `multipleOf` by a quotient go-openapi calls whole (`0.3` is a multiple of `0.1`), and a `multipleOf` of 0 or less refuses the values of its field, not the CRD; an `enum` takes a value equal to a member or equal once Go converts it to the member's type, as go-openapi compares them: a float truncated towards zero against an integer member (`1.5` is `1`, `1e20` is -2^63), an integer read as the string of that rune against a string member (`120` is `\"x\"`, one no rune holds U+FFFD). A string is judged against its field's `format` as the server's go-openapi registry judges it, where the server keeps the format (`bsonobjectid`, `uri`, `email`, `hostname`, `ipv4`, `ipv6`, `cidr`, `mac`, `uuid`, `uuid3`, `uuid4`, `uuid5`, `isbn`, `isbn10`, `isbn13`, `creditcard`, `ssn`, `hexcolor`, `rgbcolor`, `byte`, `password`, `date`, `duration`, `date-time`, and from Kubernetes 1.34 `k8s-short-name` and `k8s-long-name`; a `-` in the name ignored), whatever the field's type, by the Go function the server runs (Go's `net/mail` address parser for `email`, `url.ParseRequestURI` for `uri`, Go 1.16's lenient IP parser for `ipv4` and `cidr` and today's strict one for `ipv6`, `time.Parse` for `date`, go-openapi's own pattern for `date-time`, `time.ParseDuration` or else a number beside a unit word for `duration`, the checksums of `isbn` and `creditcard`); a format the server strips (`int32`, `dateTime`, any other) judges nothing; beside a kept format, a type that is not numeric takes any array and any string the format takes, and no type at all takes strings, arrays and null alone, as go-openapi's type check does; a CRD version that is not served has no custom resources). Unknown fields are errors, even null ones: the API server would drop them silently, or in a built-in kind its strict decoder refuses them; each is its own finding, at the line of its key, with a did-you-mean where a field the schema (built in, or a CRD's) declares is close to its name (names only: no value is quoted). What the API server's decoder refuses before it validates is refused in a built-in kind: a number past -2147483648..2147483647 in an `int32` field (an int-or-string's integer too), a whole number past 64 bits in any integer field (`9223372036854775808`, `1e30`), a quantity it cannot parse (any quantity field: a ResourceQuota's, a PersistentVolume's capacity, a pod's overhead; as it reads one, the spaces around it trimmed, and an empty number 0, so that `+`, `.` and `Ki` are quantities, unless its exponent is below -9), a `format: byte` string (a Secret's `data`, a ConfigMap's `binaryData`, a CA bundle) that is no padded base64 (line breaks aside), a time Go's RFC 3339 reading refuses (a `creationTimestamp`, a condition's `lastTransitionTime`, in any object's `metadata` too: `2024-02-30T00:00:00Z`, a lowercase `t`, an hour past 23, an offset past ±24:00, text after it; the hour may have one digit and the fraction any length after `.` or `,`), and a MicroTime (a Lease's `renewTime`, an events.k8s.io Event's `eventTime`) without exactly six digits of fraction. A built-in kind's required fields are those the API server requires: where the OpenAPI schema calls a field required and a real server takes an object without it (a RoleBinding's `roleRef.apiGroup`, an iSCSI volume's `lun`, a PriorityClass's `value`, a field of a feature that is off by default, which the server drops), the vendored schema does not require it (the list, each with why: `scripts/vendor-kubernetes-schemas`, `NOT_REQUIRED`). A built-in kind is judged as the API server's decoder leaves it (Go reads into typed structs): an explicit null is the field unset; a null array item or map value is the zero value of its type (`ports: [null]` is a port without `containerPort`, `rules: [null]` a rule without verbs); and a field whose Go type is a struct, not a pointer, left out or null, is validated as `{}` where that breaks a required field (Kubernetes' OpenAPI marks these fields `default: {}`): a Deployment without `spec` lacks its `selector` and `template.spec.containers`, a CronJob without `jobTemplate` its containers, a binding without `roleRef` its kind and name. A built-in kind's `status` is read for its types and fields only: the API server resets it on create, so nothing in it is required. A custom resource's patterns match as Go's regexp matches (`\\d`, `\\s`, `\\w` and `\\b` ASCII, `\\p{L}` and the other Unicode classes of Unicode 15.0, the version of Go's tables, `(?i)` and Go's other syntax read as Go reads it; Go counts a class as one instruction where the regex crate compiles its UTF-8 automaton, so a pattern such as `^[\\p{L}\\p{N}]{0,63}$` is compiled up to 64 MiB, once a run, and one past that, or past the run's eighth such pattern, judges nothing rather than refuse what Go takes), and its keyed lists hold no item twice (`x-kubernetes-list-type: set` by value, `map` by its `x-kubernetes-list-map-keys`, a key left out being its default). An embedded resource (`x-kubernetes-embedded-resource`) has an `apiVersion` that is a group version and a `kind` that is a DNS-1035 label in any case, and its `metadata`, where written, is read as ObjectMeta (strictly: a member of the wrong type, one ObjectMeta does not know, a time it cannot read are refused; a managed fields entry's `fieldsV1` is any JSON), held to what the CRD declares of it and to ObjectMeta's rules: a name and a `generateName` that are path segments (no `/` or `%`; a name not `.` or `..`), a namespace that is a DNS-1123 label, label and annotation keys and values, finalizers, owner references as written (two equal ones are two), managed fields (an operation `Apply` or `Update`, a `fieldsType` `FieldsV1`, a printable manager of at most 128 bytes, a subresource of at most 256), a `generation` not below 0. A custom resource keeps only what its CRD declares, as the API server prunes the rest and its strict decoding refuses it: an object whose schema has no `properties` (`type: object` alone, a map's object values, `status`) keeps no member, and under `additionalProperties: true` (even beside `x-kubernetes-preserve-unknown-fields`) no object, however deep, keeps a member, nor an object in an array no `items` describes (beside a format that lets an array through, an int-or-string). In a custom resource an explicit null is dropped where the field is not `nullable` and kept where it is (a nullable field's `enum` still refuses it), a null array item takes the items' default, and a field left out, or null where it is not `nullable`, takes its `default` before the resource is judged (the API server defaults before it validates: a `maxProperties`, `not` or `oneOf` counts it, an embedded resource's `apiVersion` and `kind` may come from one), up to a million values a resource. Where the CRD's version has the status subresource, a custom resource's `status` is judged only for unknown fields, which the API server's strict decoder refuses before it drops the status from what is created or applied. A custom resource's `metadata` is decoded as a built-in kind's, into ObjectMeta, strictly: a label or annotation that is no string, an unknown member, a time it cannot read are refused. A custom resource reports its first 100 findings, and one more saying that more were left out.",
        example: "K8S Deployment buildkit-operator/buildkit-buildd spec: Additional properties are not allowed ('revisionHistoryLimt' was unexpected); did you mean `revisionHistoryLimit`?",
        doc: DOC,
    },
    section: 160,
    rank: 10,
    check: Some(check),
    appendix: None,
    per_object: true,
    generic: Some("the schema"),
};

/// Checks every object against its schema, when the run has the schemas:
/// K8S, KIND and API (a CRD's claim taken) from one pass.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let Some(options) = inputs.schema else {
        return;
    };
    let context = inputs.context;
    let verdicts = conformance::check(context.objects, options.schemas, &context.extra_crds);
    for (index, verdict) in verdicts {
        match verdict {
            Verdict::Invalid(path, message, field) => {
                let key = field.as_deref();
                findings.report_at_key(Invariant::Schema, index, &path, key, message);
            }
            Verdict::Unknown(unknown) => {
                let message = format!("{unknown}; {}", hint(&unknown));
                findings.report(Invariant::UnknownKind, index, &KeyPath::root(), message);
            }
            Verdict::Uncompiled(why) | Verdict::NotStored(why) => {
                findings.report(Invariant::UnknownKind, index, &KeyPath::root(), why);
            }
            Verdict::ClaimTaken(why) => {
                let at = KeyPath::dotted(Verdict::CLAIM);
                findings.report(Invariant::Api, index, &at, why);
            }
        }
    }
}

/// What to do about a kind without a schema: a built-in one is not served
/// at the version checked; any other needs its CRD.
fn hint(unknown: &Unknown) -> String {
    match unknown.served.as_deref() {
        None => "give its CRD with --crd".to_owned(),
        Some([]) => {
            "no built-in kind of this Kubernetes version (--kube-version) has that name".to_owned()
        }
        Some(served) => format!(
            "the Kubernetes version checked (--kube-version) serves {} at {} only",
            unknown.kind,
            served.join(", ")
        ),
    }
}
