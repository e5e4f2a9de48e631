//! What the API server refuses in a ValidatingWebhookConfiguration or a
//! MutatingWebhookConfiguration (`pkg/apis/admissionregistration/validation`,
//! on create, after the `v1` defaults): each webhook's name fully
//! qualified (a DNS subdomain of three dot-separated parts or more) and
//! given once; its rules' operations (`*` alone, or `CREATE`, `UPDATE`,
//! `DELETE`, `CONNECT`), API groups, versions and resources (`*` alone,
//! `*/*` alone, no `x/y` beside `x/*` or `*/y`) and scope; its failure,
//! match and reinvocation policies; `sideEffects` given, `None` or
//! `NoneOnDryRun`; `admissionReviewVersions` given, each a DNS-1035 label
//! once, one of them `v1` or `v1beta1`; a timeout of 1 to 30 seconds; its
//! namespace and object selectors; exactly one of a client URL (`https`,
//! with a host, no user, query or fragment) and a service (a name, a
//! namespace, a port in 1..65535, a path of DNS-subdomain segments); and
//! at most 64 match conditions, each named once with a qualified name and
//! an expression (whose CEL is not compiled here). And what it refuses in
//! a ValidatingAdmissionPolicy ([`policy`]) and its binding
//! ([`policy_binding`]), whose match rules are a webhook's.

use std::collections::HashSet;

use serde_json::Value as Json;

use super::one_of;
use crate::json::{Field, Found, each, whole};
use crate::location::KeyPath;
use crate::names;
use crate::scheduling::label_selector;

/// The AdmissionReview versions the API server speaks, one of which a
/// webhook must accept.
const REVIEW_VERSIONS: [&str; 2] = ["v1", "v1beta1"];

/// The checks of a webhook configuration of `kind` (mutating or not).
pub(super) fn check(kind: &str, object: &Json, found: &mut Found) {
    let mutating = kind == "MutatingWebhookConfiguration";
    let mut names = HashSet::new();
    for (i, hook) in each(object.field("webhooks")) {
        let at = KeyPath::root().key("webhooks").index(i);
        let name = hook.field("name").as_str().unwrap_or_default();
        webhook(hook, mutating, &at, found);
        if !name.is_empty() && !names.insert(name) {
            found.push((at.key("name"), format!("`{name}`: Duplicate value")));
        }
    }
}

/// One webhook at `at`.
fn webhook(hook: &Json, mutating: bool, at: &KeyPath, found: &mut Found) {
    let name = hook.field("name").as_str().unwrap_or_default();
    let why = match names::dns1123_subdomain(name) {
        _ if name.is_empty() => Some("Required value".to_owned()),
        Err(why) => Some(why),
        Ok(()) if name.split('.').count() < 3 => {
            Some("should be a domain with at least three segments separated by dots".to_owned())
        }
        Ok(()) => None,
    };
    if let Some(why) = why {
        found.push((at.key("name"), format!("`{name}`: {why}")));
    }
    for (i, rule) in each(hook.field("rules")) {
        rule_with_operations(rule, &at.key("rules").index(i), found);
    }
    one_of(
        hook.field("failurePolicy"),
        &["Ignore", "Fail"],
        at.key("failurePolicy"),
        found,
    );
    one_of(
        hook.field("matchPolicy"),
        &["Exact", "Equivalent"],
        at.key("matchPolicy"),
        found,
    );
    if mutating {
        let policies = ["Never", "IfNeeded"];
        one_of(
            hook.field("reinvocationPolicy"),
            &policies,
            at.key("reinvocationPolicy"),
            found,
        );
    }
    // (Left out, it is the schema's required property.)
    let effects = hook.field("sideEffects");
    one_of(
        effects,
        &["None", "NoneOnDryRun"],
        at.key("sideEffects"),
        found,
    );
    if let Some(seconds) = whole(hook.field("timeoutSeconds"))
        && !(1..=30).contains(&seconds)
    {
        let why = format!("{seconds}: the timeout value must be between 1 and 30 seconds");
        found.push((at.key("timeoutSeconds"), why));
    }
    for selector in ["namespaceSelector", "objectSelector"] {
        if hook.field(selector).is_object() {
            label_selector(hook.field(selector), &at.key(selector), found);
        }
    }
    review_versions(
        hook.field("admissionReviewVersions"),
        &at.key("admissionReviewVersions"),
        found,
    );
    client(hook.field("clientConfig"), &at.key("clientConfig"), found);
    match_conditions(
        hook.field("matchConditions"),
        &at.key("matchConditions"),
        found,
    );
}

/// `validateRuleWithOperations` and `validateRule` with subresources.
fn rule_with_operations(rule: &Json, at: &KeyPath, found: &mut Found) {
    let texts = |field: &str| -> Vec<&str> {
        (each(rule.field(field)).map(|(_, v)| v.as_str().unwrap_or_default())).collect()
    };
    let operations = texts("operations");
    if operations.is_empty() {
        found.push((at.key("operations"), "Required value".to_owned()));
    }
    if operations.len() > 1 && operations.contains(&"*") {
        let why = "if '*' is present, must not specify other operations".to_owned();
        found.push((at.key("operations"), why));
    }
    for (i, operation) in each(rule.field("operations")) {
        let supported = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
        one_of(operation, &supported, at.key("operations").index(i), found);
    }
    for (field, what) in [("apiGroups", "API groups"), ("apiVersions", "API versions")] {
        let listed = texts(field);
        if listed.is_empty() {
            found.push((at.key(field), "Required value".to_owned()));
        }
        if listed.len() > 1 && listed.contains(&"*") {
            let why = format!("if '*' is present, must not specify other {what}");
            found.push((at.key(field), why));
        }
    }
    for (i, version) in texts("apiVersions").into_iter().enumerate() {
        if version.is_empty() {
            found.push((at.key("apiVersions").index(i), "Required value".to_owned()));
        }
    }
    resources(&texts("resources"), &at.key("resources"), found);
    let scopes = ["*", "Cluster", "Namespaced"];
    one_of(rule.field("scope"), &scopes, at.key("scope"), found);
}

/// `validateResources`: given; none empty; `x/y` not beside `x/*` or
/// `*/y` written before it; `*/*` alone; `*` beside subresources only.
fn resources(resources: &[&str], at: &KeyPath, found: &mut Found) {
    if resources.is_empty() {
        found.push((at.clone(), "Required value".to_owned()));
    }
    // Sets: a rule of many resources costs each a lookup.
    let (mut any_sub, mut any_resource) = (HashSet::new(), HashSet::new());
    let (mut double, mut single, mut plain) = (false, false, false);
    for (i, written) in resources.iter().enumerate() {
        if written.is_empty() {
            found.push((at.index(i), "Required value".to_owned()));
            continue;
        }
        double |= *written == "*/*";
        single |= *written == "*";
        let Some((resource, sub)) = written.split_once('/') else {
            plain = *written != "*";
            continue;
        };
        if any_sub.contains(resource) {
            let why =
                format!("`{written}`: if '{resource}/*' is present, must not specify {written}");
            found.push((at.index(i), why));
        }
        if any_resource.contains(sub) {
            let why = format!("`{written}`: if '*/{sub}' is present, must not specify {written}");
            found.push((at.index(i), why));
        }
        if sub == "*" {
            any_sub.insert(resource);
        }
        if resource == "*" {
            any_resource.insert(sub);
        }
    }
    if resources.len() > 1 && double {
        let why = "if '*/*' is present, must not specify other resources".to_owned();
        found.push((at.clone(), why));
    }
    if single && plain {
        let why = "if '*' is present, must not specify other resources without subresources";
        found.push((at.clone(), why.to_owned()));
    }
}

/// `validateAdmissionReviewVersions`: given, each a DNS-1035 label once,
/// one of them a version the API server speaks.
fn review_versions(versions: &Json, at: &KeyPath, found: &mut Found) {
    let listed: Vec<(usize, &str)> =
        (each(versions).map(|(i, v)| (i, v.as_str().unwrap_or_default()))).collect();
    // (Left out, it is the schema's required property.)
    if listed.is_empty() && versions.is_array() {
        let why = format!(
            "Required value: must specify one of {}",
            REVIEW_VERSIONS.join(", ")
        );
        found.push((at.clone(), why));
        return;
    }
    let mut seen = HashSet::new();
    for &(i, version) in &listed {
        if !seen.insert(version) {
            found.push((at.index(i), format!("`{version}`: duplicate version")));
        } else if let Err(why) = names::dns1035_label(version) {
            found.push((at.index(i), format!("`{version}`: {why}")));
        }
    }
    if !listed.iter().any(|(_, v)| REVIEW_VERSIONS.contains(v)) {
        let why = format!(
            "must include at least one of {}",
            REVIEW_VERSIONS.join(", ")
        );
        found.push((at.clone(), why));
    }
}

/// A client config: exactly one of `url` (`ValidateWebhookURL`, https
/// only) and `service` (`ValidateWebhookService`, its port 443 unset).
fn client(config: &Json, at: &KeyPath, found: &mut Found) {
    let (url, service) = (config.field("url"), config.field("service"));
    if url.is_null() == service.is_null() {
        let why = "Required value: exactly one of url or service is required".to_owned();
        found.push((at.clone(), why));
        return;
    }
    if let Some(url) = url.as_str() {
        for why in url_problems(url) {
            found.push((at.key("url"), why));
        }
        return;
    }
    let at = at.key("service");
    for field in ["name", "namespace"] {
        if service.field(field).as_str().is_none_or(str::is_empty) {
            found.push((at.key(field), "Required value".to_owned()));
        }
    }
    if let Some(port) = whole(service.field("port"))
        && !(1..=65535).contains(&port)
    {
        let why = format!("{port}: port is not valid: must be between 1 and 65535, inclusive");
        found.push((at.key("port"), why));
    }
    if let Some(path) = service.field("path").as_str() {
        for why in path_problems(path) {
            found.push((at.key("path"), format!("`{path}`: {why}")));
        }
    }
}

/// What `ValidateWebhookURL` says of `url`, read as Go's `url.Parse`
/// splits one: a scheme other than `https`, no host, a user, a fragment,
/// a query.
fn url_problems(url: &str) -> Vec<String> {
    const FORM: &str = "; desired format: https://host[/path]";
    if let Err(why) = go_url_parse(url) {
        return vec![format!("url must be a valid URL: parse {url:?}: {why}")];
    }
    let (rest, fragment) = url.split_once('#').unwrap_or((url, ""));
    let scheme = rest
        .split_once(':')
        .map(|(scheme, _)| scheme)
        .filter(|scheme| {
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        });
    let after = scheme.map_or(rest, |scheme| &rest[scheme.len() + 1..]);
    let (after, query) = after.split_once('?').unwrap_or((after, ""));
    let authority = after
        .strip_prefix("//")
        .map(|authority| authority.split('/').next().unwrap_or_default());
    let (user, host) = match authority.map(|a| a.rsplit_once('@')) {
        Some(Some((user, host))) => (Some(user), host),
        Some(None) => (None, authority.unwrap_or_default()),
        None => (None, ""),
    };
    let mut problems = Vec::new();
    if !scheme.is_some_and(|s| s.eq_ignore_ascii_case("https")) {
        let written = scheme.unwrap_or_default();
        problems.push(format!(
            "`{written}`: 'https' is the only allowed URL scheme{FORM}"
        ));
    }
    if host.is_empty() {
        problems.push(format!("host must be specified{FORM}"));
    }
    if user.is_some() {
        problems.push("user information is not permitted in the URL".to_owned());
    }
    if !fragment.is_empty() {
        problems.push("fragments are not permitted in the URL".to_owned());
    }
    if !query.is_empty() {
        problems.push("query parameters are not permitted in the URL".to_owned());
    }
    problems
}

/// Why Go's `url.Parse` refuses `url`, where it does: a control
/// character; in the host, an IPv6 literal without its `]`, a port that is
/// not digits, a character a host name does not hold, a `%` escape of an
/// ASCII byte; a `%` that escapes no two hex digits in the host, path or
/// fragment.
fn go_url_parse(url: &str) -> Result<(), String> {
    if url.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".to_owned());
    }
    let (rest, fragment) = url.split_once('#').unwrap_or((url, ""));
    unescape(fragment, false)?;
    let scheme_end = rest.find(':').filter(|&at| {
        rest[..at].starts_with(|c: char| c.is_ascii_alphabetic())
            && rest[..at]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    let rest = scheme_end.map_or(rest, |at| &rest[at + 1..]);
    let rest = rest.split_once('?').map_or(rest, |(before, _)| before);
    let path = match rest.strip_prefix("//") {
        Some(authority) => {
            let (authority, path) = match authority.find('/') {
                Some(at) => (&authority[..at], &authority[at..]),
                None => (authority, ""),
            };
            let host = authority
                .rsplit_once('@')
                .map_or(authority, |(_, host)| host);
            go_host(host)?;
            path
        }
        None => rest,
    };
    unescape(path, false)
}

/// Go's `parseHost` and its unescaping of a host.
fn go_host(host: &str) -> Result<(), String> {
    let port_ok = |port: &str| {
        port.is_empty()
            || port
                .strip_prefix(':')
                .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()))
    };
    let name = if host.starts_with('[') {
        let close = host.rfind(']').ok_or("missing ']' in host")?;
        let port = &host[close + 1..];
        if !port_ok(port) {
            return Err(format!("invalid port {port:?} after host"));
        }
        &host[..=close]
    } else if let Some(colon) = host.rfind(':') {
        let port = &host[colon..];
        if !port_ok(port) {
            return Err(format!("invalid port {port:?} after host"));
        }
        &host[..colon]
    } else {
        host
    };
    unescape(name, true)
}

/// Go's `unescape`: each `%` followed by two hex digits (in a host, not
/// of an ASCII byte but `%25`), and in a host only the characters a host
/// name holds unescaped.
fn unescape(text: &str, host: bool) -> Result<(), String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let escape = text.get(i..(i + 3).min(text.len())).unwrap_or("%");
                let hex = |b: Option<&u8>| b.is_some_and(u8::is_ascii_hexdigit);
                if !hex(bytes.get(i + 1)) || !hex(bytes.get(i + 2)) {
                    return Err(format!("invalid URL escape {escape:?}"));
                }
                if host && bytes[i + 1] < b'8' && escape != "%25" {
                    return Err(format!("invalid URL escape {escape:?}"));
                }
                i += 3;
            }
            b if host && b < 0x80 && !host_byte(b) => {
                return Err(format!("invalid character {:?} in host name", b as char));
            }
            _ => i += 1,
        }
    }
    Ok(())
}

/// The ASCII a host name holds unescaped, to Go's `shouldEscape`.
fn host_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-_.~!$&'()*+,;=:[]<>\"".contains(&b)
}

/// What `ValidateWebhookService` says of a service's `path`: `/` or
/// empty, or `/` and segments that are DNS subdomains, a trailing `/`
/// taken.
fn path_problems(path: &str) -> Vec<String> {
    if path.is_empty() || path == "/" {
        return Vec::new();
    }
    if path == "//" {
        return vec!["segment[0] may not be empty".to_owned()];
    }
    let mut problems = Vec::new();
    if !path.starts_with('/') {
        problems.push("must start with a '/'".to_owned());
    }
    let inner = path.get(1..).unwrap_or_default();
    let inner = inner.strip_suffix('/').unwrap_or(inner);
    for (i, segment) in inner.split('/').enumerate() {
        if segment.is_empty() {
            problems.push(format!("segment[{i}] may not be empty"));
        } else if let Err(why) = names::dns1123_subdomain(segment) {
            problems.push(format!("segment[{i}]: {why}"));
        }
    }
    problems
}

/// `validateMatchConditions`: at most 64, each named once with a
/// qualified name, each with an expression.
fn match_conditions(conditions: &Json, at: &KeyPath, found: &mut Found) {
    let listed: Vec<(usize, &Json)> = each(conditions).collect();
    if listed.len() > 64 {
        let why = super::too_many(listed.len(), 64);
        found.push((at.clone(), why));
    }
    let mut names = HashSet::new();
    for (i, condition) in listed {
        let at = at.index(i);
        // Left out, each is the schema's required property.
        let expression = condition.field("expression").as_str();
        if expression.is_some_and(|e| e.trim().is_empty()) {
            found.push((at.key("expression"), "Required value".to_owned()));
        }
        match condition.field("name").as_str() {
            None => {}
            Some("") => found.push((at.key("name"), "Required value".to_owned())),
            Some(name) => {
                if let Err(why) = names::qualified_name(name) {
                    found.push((at.key("name"), format!("`{name}`: {why}")));
                } else if !names.insert(name) {
                    found.push((at.key("name"), format!("`{name}`: Duplicate value")));
                }
            }
        }
    }
}

/// `validateValidatingAdmissionPolicySpec`, after the `v1` defaults
/// (`failurePolicy` `Fail`; a match's policy `Equivalent`, its selectors
/// `{}`): the failure policy's word; a `paramKind`'s API version (a group
/// that is a DNS subdomain, a version that is a DNS-1035 label) and kind
/// (one in lowercase); match constraints given, with resource rules;
/// match conditions; variables named by CEL identifiers, with
/// expressions; validations or audit annotations, at least one: each
/// validation with an expression, a message of one line, a reason of the
/// words, each annotation a key that makes a qualified name after the
/// policy's name, once, at most 20, with a value expression of at most
/// 5 KiB. (Its CEL is not compiled here.)
pub(super) fn policy(object: &Json, found: &mut Found) {
    let spec = object.field("spec");
    let at = KeyPath::root().key("spec");
    one_of(
        spec.field("failurePolicy"),
        &["Fail", "Ignore"],
        at.key("failurePolicy"),
        found,
    );
    if spec.field("paramKind").is_object() {
        param_kind(spec.field("paramKind"), &at.key("paramKind"), found);
    }
    let constraints = spec.field("matchConstraints");
    if constraints.is_null() {
        found.push((at.key("matchConstraints"), "Required value".to_owned()));
    } else {
        let at = at.key("matchConstraints");
        match_resources(constraints, &at, found);
        if each(constraints.field("resourceRules")).next().is_none() {
            found.push((at.key("resourceRules"), "Required value".to_owned()));
        }
    }
    match_conditions(
        spec.field("matchConditions"),
        &at.key("matchConditions"),
        found,
    );
    // A variable's name and expression, a validation's expression and an
    // audit annotation's key and value expression left out are the
    // schema's required properties: only written ones are read here.
    for (i, variable) in each(spec.field("variables")) {
        let at = at.key("variables").index(i);
        match variable.field("name").as_str() {
            Some(name) if name.trim().is_empty() => found.push((
                at.key("name"),
                "Required value: name is not specified".to_owned(),
            )),
            Some(name) if !cel_identifier(name) => found.push((
                at.key("name"),
                format!("`{name}`: must be a valid CEL identifier"),
            )),
            _ => {}
        }
        let expression = variable.field("expression").as_str();
        if expression.is_some_and(|e| e.trim().is_empty()) {
            let why = "Required value: expression is not specified".to_owned();
            found.push((at.key("expression"), why));
        }
    }
    let validations: Vec<(usize, &Json)> = each(spec.field("validations")).collect();
    let annotations: Vec<(usize, &Json)> = each(spec.field("auditAnnotations")).collect();
    if validations.is_empty() && annotations.is_empty() {
        for key in ["validations", "auditAnnotations"] {
            let why =
                "Required value: validations or auditAnnotations must contain at least one item";
            found.push((at.key(key), why.to_owned()));
        }
        return;
    }
    for (i, validation) in validations {
        self::validation(validation, &at.key("validations").index(i), found);
    }
    if annotations.len() > 20 {
        let why = format!(
            "{} annotations: must not have more than 20",
            annotations.len()
        );
        found.push((at.key("auditAnnotations"), why));
    }
    let name = object
        .field("metadata")
        .field("name")
        .as_str()
        .unwrap_or_default();
    let mut keys = HashSet::new();
    for (i, annotation) in annotations {
        let at = at.key("auditAnnotations").index(i);
        if let Some(key) = annotation.field("key").as_str() {
            if name.is_empty() {
                let why = "requires metadata.name be non-empty".to_owned();
                found.push((at.key("key"), why));
            } else if let Err(why) = names::qualified_name(&format!("{name}/{key}")) {
                found.push((at.key("key"), format!("`{name}/{key}`: {why}")));
            }
            if !keys.insert(key) {
                found.push((at.key("key"), format!("`{key}`: Duplicate value")));
            }
        }
        let Some(value) = annotation.field("valueExpression").as_str() else {
            continue;
        };
        let value = value.trim();
        if value.is_empty() {
            let why = "Required value: valueExpression is not specified".to_owned();
            found.push((at.key("valueExpression"), why));
        } else if value.len() > 5 * 1024 {
            let why = format!(
                "{} bytes: must not exceed 5120 bytes in length",
                value.len()
            );
            found.push((at.key("valueExpression"), why));
        }
    }
}

/// `validateValidation`: an expression; a message or message expression,
/// where written, not only spaces, a message on one line; a reason of
/// the words.
fn validation(validation: &Json, at: &KeyPath, found: &mut Found) {
    let text = |key: &str| validation.field(key).as_str().unwrap_or_default();
    let expression = validation.field("expression").as_str();
    if expression.is_some_and(|e| e.trim().is_empty()) {
        let why = "Required value: expression is not specified".to_owned();
        found.push((at.key("expression"), why));
    }
    for key in ["messageExpression", "message"] {
        if !text(key).is_empty() && text(key).trim().is_empty() {
            let why = "must be non-empty if specified".to_owned();
            found.push((at.key(key), why));
        }
    }
    if text("message").trim().contains(['\n', '\r']) {
        found.push((at.key("message"), "must not contain line breaks".to_owned()));
    }
    let reasons = ["Forbidden", "Invalid", "RequestEntityTooLarge"];
    one_of(
        validation.field("reason"),
        &reasons,
        at.key("reason"),
        found,
    );
}

/// `validateParamKind`: an API version (`group/version`, or a version
/// alone) whose group is a DNS subdomain and version a DNS-1035 label,
/// and a kind that is one in lowercase.
fn param_kind(kind: &Json, at: &KeyPath, found: &mut Found) {
    let api_version = kind.field("apiVersion").as_str().unwrap_or_default();
    let at_version = at.key("apiVersion");
    if api_version.is_empty() {
        found.push((at_version, "Required value".to_owned()));
    } else if api_version.matches('/').count() > 1 {
        let why = format!("`{api_version}`: unexpected GroupVersion string");
        found.push((at_version, why));
    } else if api_version != "/" {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        if !group.is_empty()
            && let Err(why) = names::dns1123_subdomain(group)
        {
            found.push((at_version.clone(), format!("`{group}`: {why}")));
        }
        if version.is_empty() {
            let why = format!("`{api_version}`: version must be specified");
            found.push((at_version, why));
        } else if let Err(why) = names::dns1035_label(version) {
            found.push((at_version, format!("`{version}`: {why}")));
        }
    } else {
        let why = format!("`{api_version}`: version must be specified");
        found.push((at_version, why));
    }
    let name = kind.field("kind").as_str().unwrap_or_default();
    if name.is_empty() {
        found.push((at.key("kind"), "Required value".to_owned()));
    } else if let Err(why) = names::kind(name) {
        found.push((at.key("kind"), format!("`{name}`: {why}")));
    }
}

/// `validateMatchResources`, after the defaults: the match policy's
/// word, the selectors, and each rule's resource names (path segments,
/// each once) and rule.
fn match_resources(resources: &Json, at: &KeyPath, found: &mut Found) {
    one_of(
        resources.field("matchPolicy"),
        &["Exact", "Equivalent"],
        at.key("matchPolicy"),
        found,
    );
    for selector in ["namespaceSelector", "objectSelector"] {
        if resources.field(selector).is_object() {
            label_selector(resources.field(selector), &at.key(selector), found);
        }
    }
    for list in ["resourceRules", "excludeResourceRules"] {
        for (i, rule) in each(resources.field(list)) {
            let at = at.key(list).index(i);
            let mut seen = HashSet::new();
            for (j, name) in each(rule.field("resourceNames")) {
                let name = name.as_str().unwrap_or_default();
                let at = at.key("resourceNames").index(j);
                // An empty name is no path segment, and Go's rule takes it.
                if !name.is_empty()
                    && let Err(why) = names::path_segment(name)
                {
                    found.push((at.clone(), format!("`{name}`: {why}")));
                }
                if !seen.insert(name) {
                    found.push((at, format!("`{name}`: Duplicate value")));
                }
            }
            rule_with_operations(rule, &at, found);
        }
    }
}

/// `validateValidatingAdmissionPolicyBindingSpec`: a policy name that is
/// a DNS subdomain; a `paramRef` of a name (a path segment) or a
/// selector, not both, and an action when none is found (`Deny` or
/// `Allow`); its match resources; validation actions of the words, each
/// once, at least one, not both `Deny` and `Warn`.
pub(super) fn policy_binding(object: &Json, found: &mut Found) {
    let spec = object.field("spec");
    let at = KeyPath::root().key("spec");
    let policy = spec.field("policyName").as_str().unwrap_or_default();
    if policy.is_empty() {
        found.push((at.key("policyName"), "Required value".to_owned()));
    } else if let Err(why) = names::dns1123_subdomain(policy) {
        found.push((at.key("policyName"), format!("`{policy}`: {why}")));
    }
    let reference = spec.field("paramRef");
    if reference.is_object() {
        let at = at.key("paramRef");
        let name = reference.field("name").as_str().unwrap_or_default();
        let selector = reference.field("selector");
        if !name.is_empty()
            && let Err(why) = names::path_segment(name)
        {
            found.push((at.key("name"), format!("`{name}`: {why}")));
        }
        if selector.is_object() {
            label_selector(selector, &at.key("selector"), found);
        }
        if !name.is_empty() && selector.is_object() {
            for key in ["name", "selector"] {
                let why = "Forbidden: name and selector are mutually exclusive".to_owned();
                found.push((at.key(key), why));
            }
        }
        if name.is_empty() && !selector.is_object() {
            let why = "Required value: one of name or selector must be specified".to_owned();
            found.push((at.clone(), why));
        }
        let action = reference.field("parameterNotFoundAction");
        if action.as_str().is_none_or(str::is_empty) {
            found.push((
                at.key("parameterNotFoundAction"),
                "Required value".to_owned(),
            ));
        } else {
            one_of(
                action,
                &["Deny", "Allow"],
                at.key("parameterNotFoundAction"),
                found,
            );
        }
    }
    if spec.field("matchResources").is_object() {
        match_resources(
            spec.field("matchResources"),
            &at.key("matchResources"),
            found,
        );
    }
    let at = at.key("validationActions");
    let mut actions = HashSet::new();
    for (i, action) in each(spec.field("validationActions")) {
        one_of(action, &["Deny", "Warn", "Audit"], at.index(i), found);
        let word = action.as_str().unwrap_or_default();
        if !actions.insert(word) {
            found.push((at.index(i), format!("`{word}`: Duplicate value")));
        }
    }
    if actions.contains("Deny") && actions.contains("Warn") {
        let why = "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)";
        found.push((at.clone(), why.to_owned()));
    }
    if actions.is_empty() {
        let why = "Required value: at least one validation action is required".to_owned();
        found.push((at, why));
    }
}

/// A CEL identifier (`[_a-zA-Z][_a-zA-Z0-9]*`) that is no reserved word.
fn cel_identifier(name: &str) -> bool {
    const RESERVED: [&str; 21] = [
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ];
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b == b'_' || b.is_ascii_alphabetic())
        && bytes.all(|b| b == b'_' || b.is_ascii_alphanumeric())
        && !RESERVED.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A required property left out is the schema's finding alone (one
    /// problem, one finding); written empty, it is this rule's.
    #[test]
    fn left_out_required_properties_are_the_schemas() {
        let spec = |entry: serde_json::Value| {
            serde_json::json!({"metadata": {"name": "p"}, "spec": {
                "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                    "operations": ["CREATE"], "resources": ["pods"]}]},
                "validations": [entry["validation"]], "variables": [entry["variable"]],
                "auditAnnotations": [entry["annotation"]], "matchConditions": [entry["condition"]],
            }})
        };
        let found = |policy: serde_json::Value| {
            let mut found = Vec::new();
            super::policy(&policy, &mut found);
            found
                .into_iter()
                .map(|(at, _)| at.to_string())
                .collect::<Vec<_>>()
        };
        let left_out = serde_json::json!({"validation": {"message": "m"}, "variable": {},
            "annotation": {}, "condition": {}});
        assert_eq!(found(spec(left_out)), Vec::<String>::new());
        let empty = serde_json::json!({"validation": {"expression": " "},
            "variable": {"name": "", "expression": ""},
            "annotation": {"key": "k", "valueExpression": ""},
            "condition": {"name": "", "expression": ""}});
        assert_eq!(found(spec(empty)).len(), 6);
    }

    /// A param kind is a DNS-1035 label once lowercased as Go lowercases
    /// it: `İ` is `i` there (a review saw the server take it), not `i`
    /// and a combining dot.
    #[test]
    fn a_param_kind_is_lowercased_as_go_does() {
        let found = |kind: &str| {
            let mut found = Vec::new();
            let at = KeyPath::root().key("paramKind");
            param_kind(
                &serde_json::json!({"apiVersion": "v1", "kind": kind}),
                &at,
                &mut found,
            );
            found
        };
        assert!(found("İ").is_empty());
        assert!(found("ConfigMap").is_empty());
        assert_eq!(found("Config_Map").len(), 1);
        assert_eq!(found("İ_").len(), 1);
    }

    /// A URL read as Go's `url.Parse` splits it.
    #[test]
    fn a_client_url_is_https_with_a_host_only() {
        assert!(url_problems("https://hooks.example.com:8443/validate").is_empty());
        assert!(url_problems("HTTPS://h/x").is_empty());
        let first = |url: &str| url_problems(url).into_iter().next().unwrap_or_default();
        assert!(first("http://h/x").starts_with("`http`: 'https' is the only allowed URL scheme"));
        assert!(first("h.example.com/x").starts_with("``: 'https' is the only allowed URL scheme"));
        assert_eq!(
            url_problems("https:///x"),
            ["host must be specified; desired format: https://host[/path]"]
        );
        assert_eq!(
            url_problems("https://u:p@h/x"),
            ["user information is not permitted in the URL"]
        );
        assert_eq!(
            url_problems("https://h/x#f"),
            ["fragments are not permitted in the URL"]
        );
        assert_eq!(
            url_problems("https://h/x?a=b"),
            ["query parameters are not permitted in the URL"]
        );
        // What Go's url.Parse refuses, as a v1.35 server answered a review.
        for (url, why) in [
            (
                "https://hooks.example.com:webhook/validate",
                "invalid port \":webhook\" after host",
            ),
            ("https://[::1", "missing ']' in host"),
            ("https://host/%zz", "invalid URL escape \"%zz\""),
            ("https://ho st", "invalid character ' ' in host name"),
            (
                "https://host\t",
                "net/url: invalid control character in URL",
            ),
        ] {
            assert_eq!(
                url_problems(url),
                [format!("url must be a valid URL: parse {url:?}: {why}")],
                "{url}"
            );
        }
        for url in [
            "https://[::1]:8443/x",
            "https://h:/x",
            "https://h/%41",
            "https://h%C3%A9/x",
        ] {
            assert!(
                url_problems(url).is_empty(),
                "{url}: {:?}",
                url_problems(url)
            );
        }
    }

    #[test]
    fn a_service_path_is_of_dns_subdomain_segments() {
        assert!(path_problems("/validate/pods/").is_empty());
        assert!(path_problems("").is_empty() && path_problems("/").is_empty());
        assert_eq!(path_problems("//"), ["segment[0] may not be empty"]);
        assert_eq!(
            path_problems("a"),
            ["must start with a '/'", "segment[0] may not be empty"]
        );
        assert_eq!(path_problems("/a//b"), ["segment[1] may not be empty"]);
        assert!(path_problems("/A_B")[0].starts_with("segment[0]: "));
    }
}
