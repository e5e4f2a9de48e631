//! What the API server refuses in an Ingress (`ValidateIngressCreate`)
//! and an IngressClass (`ValidateIngressClass`), from
//! `pkg/apis/networking/validation`: rules' hosts (DNS names, a wildcard
//! only as the first label, no IP address), their paths (a `pathType`
//! of Kubernetes' three; `Exact` and `Prefix` paths absolute and without
//! `//`, `/./`, `/../`, `%2f`, nor a trailing `/.` or `/..`), backends
//! (one Service, named as Services are, on a port given by name or by
//! number, or one resource), a default backend where there are no rules,
//! TLS hosts and secret names, the class name (and the older
//! `kubernetes.io/ingress.class` annotation agreeing with it); an
//! IngressClass's controller and parameters. The options of a create
//! (`ValidateIngressCreate`): no invalid secret name or wildcard rule
//! kept from an older object, Service names DNS-1035 labels (the
//! `RelaxedServiceNameValidation` gate is alpha, off). A field the
//! OpenAPI schema requires left out (or `null`) is the schema's to say.

use serde_json::Value as Json;

use super::objects::domain_prefixed_path;
use super::one_of;
use crate::json::{Field, Found, each, whole};
use crate::location::KeyPath;
use crate::names;

/// The annotation that named an Ingress's class before `ingressClassName`.
const CLASS_ANNOTATION: &str = "kubernetes.io/ingress.class";

/// The path types of an Ingress path (`supportedPathTypes`).
const PATH_TYPES: [&str; 3] = ["Exact", "Prefix", "ImplementationSpecific"];

/// What an `Exact` or `Prefix` path may not hold (`invalidPathSequences`).
const PATH_SEQUENCES: [&str; 5] = ["//", "/./", "/../", "%2f", "%2F"];

/// What an `Exact` or `Prefix` path may not end with
/// (`invalidPathSuffixes`).
const PATH_SUFFIXES: [&str; 2] = ["/..", "/."];

/// The longest IngressClass controller (`maxLenIngressClassController`).
const MAX_CONTROLLER: usize = 250;

/// The checks of an Ingress (`ValidateIngressCreate`): its spec, and the
/// class annotation against `ingressClassName`.
pub fn ingress(object: &Json, found: &mut Found) {
    let spec = object.field("spec");
    self::spec(spec, &KeyPath::root().key("spec"), found);
    class_annotation(object, found);
}

/// The `kubernetes.io/ingress.class` annotation, where an Ingress has both
/// it and `ingressClassName`, names the same class (`ValidateIngressCreate`).
fn class_annotation(object: &Json, found: &mut Found) {
    let annotation = (object.field("metadata").field("annotations"))
        .field(CLASS_ANNOTATION)
        .as_str();
    let class = object.field("spec").field("ingressClassName").as_str();
    if let (Some(annotation), Some(class)) = (annotation, class)
        && annotation != class
    {
        found.push((
            KeyPath::root()
                .key("metadata")
                .key("annotations")
                .key(CLASS_ANNOTATION),
            format!("the annotation says `{annotation}` and spec.ingressClassName `{class}`: where both are given they name the same class"),
        ));
    }
}

/// An Ingress's spec (`ValidateIngressSpec`): rules or a default backend,
/// each valid; TLS entries; a class name that is a DNS subdomain.
fn spec(spec: &Json, at: &KeyPath, found: &mut Found) {
    let default = spec.field("defaultBackend");
    if each(spec.field("rules")).next().is_none() && default.is_null() {
        found.push((
            at.clone(),
            "an Ingress with no rules needs a defaultBackend".to_owned(),
        ));
    }
    backend(default, &at.key("defaultBackend"), found);
    for (i, rule) in each(spec.field("rules")) {
        self::rule(rule, &at.key("rules").index(i), found);
    }
    for (i, tls) in each(spec.field("tls")) {
        self::tls(tls, &at.key("tls").index(i), found);
    }
    if let Some(class) = spec.field("ingressClassName").as_str()
        && let Err(why) = names::dns1123_subdomain(class)
    {
        found.push((
            at.key("ingressClassName"),
            format!("`{class}` is not an IngressClass name: {why}"),
        ));
    }
}

/// A rule (`validateIngressRules`): a host, where given, and its HTTP
/// paths. A create reads the paths of a wildcard host's rule too.
fn rule(rule: &Json, at: &KeyPath, found: &mut Found) {
    if let Some(name) = rule.field("host").as_str().filter(|h| !h.is_empty()) {
        host(name, at.key("host"), found);
    }
    let http = rule.field("http");
    if http.is_null() {
        return;
    }
    let at = at.key("http");
    // No `paths` at all is the schema's to say.
    if http.field("paths").as_array().is_some_and(Vec::is_empty) {
        found.push((
            at.key("paths"),
            "an http rule needs at least one path".to_owned(),
        ));
    }
    for (i, path) in each(http.field("paths")) {
        self::path(path, &at.key("paths").index(i), found);
    }
}

/// A rule's host (`validateIngressRules`): no IP address (as
/// `ParseIPSloppy` reads one, `010.1.1.1` too); with a `*`, a wildcard
/// DNS subdomain, else a DNS subdomain.
fn host(host: &str, at: KeyPath, found: &mut Found) {
    if crate::cidr::legacy_ip(host).is_some() {
        found.push((
            at.clone(),
            format!("`{host}` is an IP address; a host is a DNS name"),
        ));
    }
    if let Err(why) = dns_name(host) {
        found.push((at, format!("`{host}` is not a host name: {why}")));
    }
}

/// A host of a rule or a TLS entry: with a `*`, a wildcard DNS subdomain
/// (`IsWildcardDNS1123Subdomain`), else a DNS subdomain.
fn dns_name(host: &str) -> Result<(), String> {
    match host.contains('*') {
        true => names::wildcard_dns1123_subdomain(host),
        false => names::dns1123_subdomain(host),
    }
}

/// An HTTP path (`validateHTTPIngressPath`): a path type of
/// [`PATH_TYPES`]; an `Exact` or `Prefix` path absolute, none of
/// [`PATH_SEQUENCES`] in it nor [`PATH_SUFFIXES`] at its end; an
/// `ImplementationSpecific` one empty or absolute; its backend. With no
/// path type (the schema's to say) the server reads no further.
fn path(path: &Json, at: &KeyPath, found: &mut Found) {
    let Some(kind) = path.field("pathType").as_str() else {
        return;
    };
    let text = path.field("path").as_str().unwrap_or_default();
    let refuse = |found: &mut Found, why: String| {
        found.push((at.key("path"), format!("`{text}` {why}")));
    };
    match kind {
        "Exact" | "Prefix" => {
            if !text.starts_with('/') {
                refuse(
                    found,
                    format!("is not an absolute path: a path of type {kind} starts with `/`"),
                );
            }
            for sequence in PATH_SEQUENCES.iter().filter(|s| text.contains(**s)) {
                refuse(
                    found,
                    format!(
                        "holds `{sequence}`: a path of type {kind} holds none of {}",
                        quoted(&PATH_SEQUENCES)
                    ),
                );
            }
            for suffix in PATH_SUFFIXES.iter().filter(|s| text.ends_with(**s)) {
                refuse(
                    found,
                    format!(
                        "ends with `{suffix}`: a path of type {kind} ends with neither of {}",
                        quoted(&PATH_SUFFIXES)
                    ),
                );
            }
        }
        "ImplementationSpecific" => {
            if !text.is_empty() && !text.starts_with('/') {
                refuse(found, "is not an absolute path: a path of type ImplementationSpecific is empty or starts with `/`".to_owned());
            }
        }
        _ => one_of(&path["pathType"], &PATH_TYPES, at.key("pathType"), found),
    }
    backend(path.field("backend"), &at.key("backend"), found);
}

/// `words`, each quoted, for a message.
fn quoted(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
    quoted.join(", ")
}

/// A backend (`validateIngressBackend`): one Service or one resource. A
/// backend left out (`null`) is not read: a default backend is optional,
/// a path's is the schema's to require.
fn backend(backend: &Json, at: &KeyPath, found: &mut Found) {
    if backend.is_null() {
        return;
    }
    let (service, resource) = (backend.field("service"), backend.field("resource"));
    match (service.is_null(), resource.is_null()) {
        (false, false) => found.push((
            at.clone(),
            "a backend is a service or a resource, not both".to_owned(),
        )),
        (true, true) => found.push((
            at.clone(),
            "a backend needs a service or a resource".to_owned(),
        )),
        (false, true) => service_backend(service, at, found),
        (true, false) => reference(resource, &at.key("resource"), found),
    }
}

/// A Service backend: a name that is a Service's, a DNS-1035 label
/// (`ValidateServiceName`); a port with either a name (an IANA service
/// name) or a number in 1..65535, not both (0 and `""` are unset). The
/// finding of a port goes to the backend, as the server's does.
fn service_backend(service: &Json, at: &KeyPath, found: &mut Found) {
    let path = at.key("service");
    match service.field("name").as_str() {
        Some("") => found.push((
            path.key("name"),
            "a service backend names its Service".to_owned(),
        )),
        Some(name) => {
            if let Err(why) = names::dns1035_label(name) {
                found.push((
                    path.key("name"),
                    format!("`{name}` is not a Service name: {why}"),
                ));
            }
        }
        None => {}
    }
    let port = service.field("port");
    let name = port.field("name").as_str().filter(|n| !n.is_empty());
    let number = whole(port.field("number")).filter(|n| *n != 0);
    match (name, number) {
        (Some(_), Some(_)) => found.push((
            at.clone(),
            "a service backend's port has a name or a number, not both".to_owned(),
        )),
        (Some(name), None) => {
            if let Err(why) = names::iana_service_name(name) {
                found.push((
                    path.key("port").key("name"),
                    format!("`{name}` is not a port name: {why}"),
                ));
            }
        }
        (None, Some(_)) => super::port_number(
            port.field("number"),
            path.key("port").key("number"),
            false,
            found,
        ),
        (None, None) => found.push((
            at.clone(),
            "a service backend needs a port: its name or its number".to_owned(),
        )),
    }
}

/// A resource backend or an IngressClass's parameters
/// (`validateIngressTypedLocalObjectReference`): an `apiGroup`, where
/// given (`""` too), that is a DNS subdomain; a `kind` and a `name`, not
/// empty, that can be path segments.
fn reference(reference: &Json, at: &KeyPath, found: &mut Found) {
    if let Some(group) = reference.field("apiGroup").as_str()
        && let Err(why) = names::dns1123_subdomain(group)
    {
        found.push((
            at.key("apiGroup"),
            format!("`{group}` is not an API group: {why} (leave apiGroup out for the core group)"),
        ));
    }
    for field in ["kind", "name"] {
        // Left out, it is the schema's to say.
        let Some(text) = reference.field(field).as_str() else {
            continue;
        };
        if let Err(why) = names::path_segment(text) {
            found.push((
                at.key(field),
                format!("`{text}` is not a valid {field}: {why}"),
            ));
        }
    }
}

/// A TLS entry (`validateIngressTLS`): hosts as a rule's, wildcards
/// allowed, an empty one refused; a secret name, where not empty, that is
/// a Secret's (a DNS subdomain).
fn tls(tls: &Json, at: &KeyPath, found: &mut Found) {
    for (i, host) in each(tls.field("hosts")) {
        if let Some(host) = host.as_str()
            && let Err(why) = dns_name(host)
        {
            found.push((
                at.key("hosts").index(i),
                format!("`{host}` is not a host name: {why}"),
            ));
        }
    }
    if let Some(secret) = tls.field("secretName").as_str().filter(|s| !s.is_empty())
        && let Err(why) = names::dns1123_subdomain(secret)
    {
        found.push((
            at.key("secretName"),
            format!("`{secret}` is not a Secret name: {why}"),
        ));
    }
}

/// An IngressClass's spec (`validateIngressClassSpec`): a controller that
/// is a domain-prefixed path of at most [`MAX_CONTROLLER`] characters
/// (required), and its parameters.
pub fn class(spec: &Json, at: &KeyPath, found: &mut Found) {
    let controller = spec.field("controller").as_str().unwrap_or_default();
    if controller.is_empty() {
        found.push((
            at.key("controller"),
            "an IngressClass names its controller, a domain-prefixed path such as example.com/ingress-controller".to_owned(),
        ));
    } else if let Err(why) = domain_prefixed_path(controller, MAX_CONTROLLER) {
        found.push((
            at.key("controller"),
            format!("`{controller}` is not a controller name: {why}"),
        ));
    }
    let parameters = spec.field("parameters");
    if !parameters.is_null() {
        self::parameters(parameters, &at.key("parameters"), found);
    }
}

/// An IngressClass's parameters (`validateIngressClassParametersReference`):
/// a reference ([`reference`]) and its scope, `Cluster` (where left out:
/// `SetDefaults_IngressClass`) with no namespace, or `Namespace` with one
/// that is a DNS-1123 label.
fn parameters(parameters: &Json, at: &KeyPath, found: &mut Found) {
    reference(parameters, at, found);
    let namespace = parameters.field("namespace");
    match parameters.field("scope").as_str() {
        None | Some("Cluster") => {
            if !namespace.is_null() {
                found.push((
                    at.key("namespace"),
                    "parameters of scope Cluster have no namespace".to_owned(),
                ));
            }
        }
        Some("Namespace") => match namespace.as_str() {
            None => found.push((
                at.key("namespace"),
                "parameters of scope Namespace need a namespace".to_owned(),
            )),
            Some(name) => {
                if let Err(why) = names::dns1123_label(name) {
                    found.push((
                        at.key("namespace"),
                        format!("`{name}` is not a namespace: {why}"),
                    ));
                }
            }
        },
        Some(_) => one_of(
            parameters.field("scope"),
            &["Cluster", "Namespace"],
            at.key("scope"),
            found,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The paths of what the API rules find in an Ingress of `spec`,
    /// annotated with `annotations`.
    fn ingress_findings(spec: Json, annotations: Json) -> Vec<String> {
        let object = json!({
            "apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
            "metadata": {"name": "i", "namespace": "default", "annotations": annotations},
            "spec": spec,
        });
        (super::super::problems(&object).into_iter())
            .map(|(path, _)| path.to_string())
            .collect()
    }

    /// The paths found in an Ingress of `spec`.
    fn paths(spec: Json) -> Vec<String> {
        ingress_findings(spec, json!({}))
    }

    /// A rule with one path of `kind` and `path` to a good backend.
    fn one_path(kind: &str, path: &str) -> Json {
        json!({"rules": [{"http": {"paths": [{
            "path": path, "pathType": kind,
            "backend": {"service": {"name": "web", "port": {"number": 80}}},
        }]}}]})
    }

    /// A spec of a default backend `backend`.
    fn default_backend(backend: Json) -> Json {
        json!({"defaultBackend": backend})
    }

    #[test]
    fn a_valid_ingress_has_no_finding() {
        let spec = json!({
            "ingressClassName": "nginx",
            "tls": [{"hosts": ["*.example.com", "a.example.com"], "secretName": "tls.cert"}],
            "rules": [
                {"host": "*.example.com", "http": {"paths": [
                    {"path": "/a/b.c", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"name": "http"}}}},
                    {"pathType": "ImplementationSpecific", "backend": {"resource": {"apiGroup": "k8s.example.com", "kind": "Bucket", "name": "b"}}},
                ]}},
                {"host": "a.example.com"},
                {},
            ],
        });
        assert_eq!(
            ingress_findings(spec, json!({CLASS_ANNOTATION: "nginx"})),
            Vec::<String>::new()
        );
    }

    #[test]
    fn hosts_are_lowercase_dns_names_not_ip_addresses() {
        for host in [
            "A.example.com",
            "10.0.0.1",
            "010.1.1.1",
            "a..b",
            "*",
            "a.*.com",
            "*.*.com",
        ] {
            let spec = json!({"rules": [{"host": host}]});
            assert_eq!(paths(spec), ["spec.rules[0].host"], "{host}");
        }
        let long = format!("*.{}", vec!["a".repeat(62); 4].join("."));
        assert_eq!(long.len(), 253);
        assert!(paths(json!({"rules": [{"host": long}]})).is_empty());
        let longer = format!("*.a{}", &long[2..]);
        assert_eq!(
            paths(json!({"rules": [{"host": longer}]})),
            ["spec.rules[0].host"]
        );
    }

    #[test]
    fn exact_and_prefix_paths_are_absolute_and_plain() {
        for path in [
            "x", "", "//", "/a//b", "/a/./b", "/a/../b", "/a%2fb", "/a%2Fb", "/a/.", "/a/..",
        ] {
            for kind in ["Exact", "Prefix"] {
                assert_eq!(
                    paths(one_path(kind, path)),
                    ["spec.rules[0].http.paths[0].path"],
                    "{kind} {path}"
                );
            }
            let relative = !path.is_empty() && !path.starts_with('/');
            assert_eq!(
                paths(one_path("ImplementationSpecific", path)).len(),
                usize::from(relative),
                "{path}"
            );
        }
        for path in ["/", "/a.", "/a/.b", "/a..", "/a(b)*", "/%2e"] {
            assert!(paths(one_path("Prefix", path)).is_empty(), "{path}");
        }
        assert_eq!(
            paths(one_path("Regex", "/")),
            ["spec.rules[0].http.paths[0].pathType"]
        );
    }

    #[test]
    fn an_http_rule_has_paths() {
        assert_eq!(
            paths(json!({"rules": [{"http": {"paths": []}}]})),
            ["spec.rules[0].http.paths"]
        );
    }

    #[test]
    fn a_spec_without_rules_needs_a_default_backend() {
        assert_eq!(paths(json!({"rules": []})), ["spec"]);
        assert_eq!(paths(json!({})), ["spec"]);
        let backend = json!({"service": {"name": "web", "port": {"number": 80}}});
        assert!(paths(default_backend(backend)).is_empty());
    }

    #[test]
    fn a_backend_is_one_service_with_one_port_or_one_resource() {
        let at = "spec.defaultBackend";
        for (backend, path) in [
            (json!({}), at.to_owned()),
            (
                json!({"service": {"name": "web", "port": {"number": 80}}, "resource": {"kind": "K", "name": "n"}}),
                at.to_owned(),
            ),
            (
                json!({"service": {"name": "web", "port": {}}}),
                at.to_owned(),
            ),
            (json!({"service": {"name": "web"}}), at.to_owned()),
            (
                json!({"service": {"name": "web", "port": {"name": "", "number": 0}}}),
                at.to_owned(),
            ),
            (
                json!({"service": {"name": "web", "port": {"name": "http", "number": 80}}}),
                at.to_owned(),
            ),
            (
                json!({"service": {"name": "web", "port": {"number": 65536}}}),
                format!("{at}.service.port.number"),
            ),
            (
                json!({"service": {"name": "web", "port": {"number": -1}}}),
                format!("{at}.service.port.number"),
            ),
            (
                json!({"service": {"name": "web", "port": {"name": "HTTP"}}}),
                format!("{at}.service.port.name"),
            ),
            (
                json!({"service": {"name": "1web", "port": {"number": 80}}}),
                format!("{at}.service.name"),
            ),
            (
                json!({"service": {"name": "", "port": {"number": 80}}}),
                format!("{at}.service.name"),
            ),
            (
                json!({"resource": {"apiGroup": "", "kind": "K", "name": "n"}}),
                format!("{at}.resource.apiGroup"),
            ),
            (
                json!({"resource": {"kind": "a/b", "name": "n"}}),
                format!("{at}.resource.kind"),
            ),
            (
                json!({"resource": {"kind": "K", "name": ".."}}),
                format!("{at}.resource.name"),
            ),
        ] {
            assert_eq!(paths(default_backend(backend.clone())), [path], "{backend}");
        }
        let fine = json!({"service": {"name": "web", "port": {"number": 65535}}});
        assert!(paths(default_backend(fine)).is_empty());
    }

    #[test]
    fn tls_hosts_and_secret_names() {
        let backend = json!({"service": {"name": "web", "port": {"number": 80}}});
        let spec = json!({"defaultBackend": backend, "tls": [
            {"hosts": ["", "A.example.com", "*.example.com"], "secretName": "Bad_Name"},
            {"secretName": ""},
        ]});
        assert_eq!(
            paths(spec),
            [
                "spec.tls[0].hosts[0]",
                "spec.tls[0].hosts[1]",
                "spec.tls[0].secretName"
            ]
        );
    }

    #[test]
    fn the_class_annotation_agrees_with_the_class_name() {
        let backend = json!({"service": {"name": "web", "port": {"number": 80}}});
        let spec = json!({"defaultBackend": backend, "ingressClassName": "nginx"});
        let annotation = KeyPath::root()
            .key("metadata")
            .key("annotations")
            .key(CLASS_ANNOTATION);
        assert_eq!(
            ingress_findings(spec.clone(), json!({CLASS_ANNOTATION: "traefik"})),
            [annotation.to_string()]
        );
        assert!(ingress_findings(spec, json!({CLASS_ANNOTATION: "nginx"})).is_empty());
        let unnamed = json!({"defaultBackend": backend});
        assert!(ingress_findings(unnamed, json!({CLASS_ANNOTATION: "Any Thing"})).is_empty());
        let empty = json!({"defaultBackend": backend, "ingressClassName": ""});
        assert_eq!(paths(empty), ["spec.ingressClassName"]);
    }

    /// The paths found in an IngressClass of `spec`.
    fn class_paths(spec: Json) -> Vec<String> {
        let object = json!({
            "apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
            "metadata": {"name": "c"}, "spec": spec,
        });
        (super::super::problems(&object).into_iter())
            .map(|(path, _)| path.to_string())
            .collect()
    }

    #[test]
    fn an_ingress_class_names_a_controller() {
        assert!(class_paths(json!({"controller": "example.com/ingress"})).is_empty());
        let longest = format!("example.com/{}", "a".repeat(238));
        assert!(class_paths(json!({"controller": longest})).is_empty());
        for controller in [
            json!(null),
            json!(""),
            json!("ingress"),
            json!("Example.com/ingress"),
            json!("example.com/"),
            json!("example.com/a b"),
            json!(format!("example.com/{}", "a".repeat(239))),
        ] {
            assert_eq!(
                class_paths(json!({"controller": controller})),
                ["spec.controller"],
                "{controller}"
            );
        }
    }

    #[test]
    fn an_ingress_class_parameters_are_scoped() {
        let with = |parameters: Json| {
            class_paths(json!({"controller": "example.com/ingress", "parameters": parameters}))
        };
        assert!(with(json!({"kind": "K", "name": "n"})).is_empty());
        assert!(
            with(json!({"kind": "K", "name": "n", "scope": "Namespace", "namespace": "ns"}))
                .is_empty()
        );
        let at = "spec.parameters";
        for (parameters, path) in [
            (
                json!({"kind": "K", "name": "n", "namespace": "ns"}),
                "namespace",
            ),
            (
                json!({"kind": "K", "name": "n", "scope": "Cluster", "namespace": ""}),
                "namespace",
            ),
            (
                json!({"kind": "K", "name": "n", "scope": "Namespace"}),
                "namespace",
            ),
            (
                json!({"kind": "K", "name": "n", "scope": "Namespace", "namespace": "a.b"}),
                "namespace",
            ),
            (json!({"kind": "K", "name": "n", "scope": ""}), "scope"),
            (
                json!({"kind": "K", "name": "n", "scope": "Global"}),
                "scope",
            ),
            (json!({"kind": "", "name": "n"}), "kind"),
            (json!({"kind": "K", "name": "a%b"}), "name"),
            (
                json!({"apiGroup": "Example.com", "kind": "K", "name": "n"}),
                "apiGroup",
            ),
        ] {
            assert_eq!(
                with(parameters.clone()),
                [format!("{at}.{path}")],
                "{parameters}"
            );
        }
    }
}
