//! The name rules the API server (and the kubelet) apply beyond the OpenAPI
//! schemas: DNS-1123 labels and subdomains, DNS-1035 labels, qualified
//! names and label values, IANA service names, path segments, and image
//! references. One home, used by a values file's rules and by the API rules.
//!
//! Each function returns `Err(reason)` in words a user can act on; the
//! caller names the field.

/// `text` lowercased as Go's `strings.ToLower` does, which the API server
/// uses: each character by its simple mapping, so `İ` (U+0130) is `i`
/// (Rust's full mapping gives `i` and a combining dot) and `Σ` is `σ`
/// wherever it stands (Rust's `str::to_lowercase` ends a word with `ς`).
///
/// ```
/// assert_eq!(kubernetes::names::go_lowercase("İ.Example.ΟΔΟΣ"), "i.example.οδοσ");
/// ```
pub fn go_lowercase(text: &str) -> String {
    text.chars()
        .flat_map(|c| if c == '\u{130}' { 'i' } else { c }.to_lowercase())
        .collect()
}

/// A kind where the API server reads only its spelling (an embedded
/// resource's `kind`, an admission policy's param kind): any case, but a
/// DNS-1035 label once lowercased as Go lowercases it.
pub fn kind(text: &str) -> Result<(), String> {
    dns1035_label(&go_lowercase(text))
        .map_err(|why| format!("may have mixed case, but should otherwise match: {why}"))
}

/// At most 63 lowercase letters, digits and `-`, starting and ending with a
/// letter or digit: namespaces, container, volume and Service port names.
pub fn dns1123_label(name: &str) -> Result<(), String> {
    label(name, "DNS-1123 label", true, |b| b.is_ascii_digit())
}

/// Whether `name` is a DNS-1123 label.
pub fn is_dns1123_label(name: &str) -> bool {
    dns1123_label(name).is_ok()
}

/// A DNS-1123 label that starts with a letter: Service names (the name
/// becomes a DNS record and an environment variable prefix).
pub fn dns1035_label(name: &str) -> Result<(), String> {
    label(name, "DNS-1035 label", true, |_| false)
}

/// The rule both labels share; `first_digit` says whether the first
/// character may be a digit, `bounded` whether at most 63 characters (a
/// part of a subdomain has no bound of its own).
fn label(
    name: &str,
    rule: &str,
    bounded: bool,
    first_digit: impl Fn(&u8) -> bool,
) -> Result<(), String> {
    let bytes = name.as_bytes();
    let inner = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if bytes.is_empty() {
        return Err(format!(
            "the name is empty; a {rule} has 1 to 63 characters"
        ));
    }
    if bounded && bytes.len() > 63 {
        return Err(format!(
            "{} characters; a {rule} has at most 63",
            bytes.len()
        ));
    }
    if !bytes.iter().all(|b| inner(b) || *b == b'-') {
        return Err(format!(
            "a {rule} holds only lowercase letters, digits and `-`"
        ));
    }
    if !bytes
        .first()
        .is_some_and(|b| b.is_ascii_lowercase() || first_digit(b))
    {
        return Err(if first_digit(&b'0') {
            format!("a {rule} starts with a letter or digit")
        } else {
            format!("a {rule} starts with a letter")
        });
    }
    if !bytes.last().is_some_and(inner) {
        return Err(format!("a {rule} ends with a letter or digit"));
    }
    Ok(())
}

/// DNS-1123 labels joined by `.`, at most 253 characters: the names of most
/// kinds (Deployments, ConfigMaps, ServiceAccounts, ...). As the API server
/// reads it (`IsDNS1123Subdomain`, one regular expression over the whole
/// name), a part may be longer than a label's 63 characters.
pub fn dns1123_subdomain(name: &str) -> Result<(), String> {
    // Most names are valid: one pass over the bytes says so; the words of
    // a refusal come from the rule part by part.
    if is_dns1123_subdomain(name) {
        return Ok(());
    }
    subdomain_parts(name)
}

/// A DNS-1123 subdomain whose labels may each start with one `_` and
/// hold `_` inside (`IsDNS1123SubdomainWithUnderscore`: a pod's DNS
/// search domains): `_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?` joined by `.`.
pub fn dns1123_subdomain_with_underscore(name: &str) -> Result<(), String> {
    if name.len() > 253 {
        return Err(format!(
            "{} characters; a DNS-1123 subdomain has at most 253",
            name.len()
        ));
    }
    let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    for part in name.split('.') {
        let bytes = part.strip_prefix('_').unwrap_or(part).as_bytes();
        let valid = bytes.first().is_some_and(alnum)
            && bytes.last().is_some_and(alnum)
            && bytes.iter().all(|b| alnum(b) || *b == b'-' || *b == b'_');
        if !valid {
            return Err(format!(
                "`{part}` is no label of lowercase letters, digits, `-` and `_`, starting (after one `_` at most) and ending with a letter or digit"
            ));
        }
    }
    Ok(())
}

/// [`dns1123_subdomain`], part by part, saying what is wrong.
fn subdomain_parts(name: &str) -> Result<(), String> {
    if name.len() > 253 {
        return Err(format!(
            "{} characters; a DNS-1123 subdomain has at most 253",
            name.len()
        ));
    }
    for part in name.split('.') {
        label(part, "DNS-1123 label", false, u8::is_ascii_digit).map_err(|why| {
            format!("a DNS-1123 subdomain is DNS-1123 labels joined by `.`: {why}")
        })?;
    }
    Ok(())
}

/// `*.` and a DNS-1123 subdomain, at most 253 characters in all
/// (`IsWildcardDNS1123Subdomain`): an Ingress's hosts that hold a `*`.
/// The `*` stands for one whole label, the first.
pub fn wildcard_dns1123_subdomain(name: &str) -> Result<(), String> {
    if name.len() > 253 {
        return Err(format!(
            "{} characters; a wildcard DNS-1123 subdomain has at most 253",
            name.len()
        ));
    }
    let Some(rest) = name.strip_prefix("*.") else {
        return Err(
            "a wildcard DNS-1123 subdomain starts with `*.`, its only `*`, such as *.example.com"
                .to_owned(),
        );
    };
    dns1123_subdomain(rest).map_err(|why| format!("after `*.`, {why}"))
}

/// What a byte may be in a name, one bit per rule ([`CLASSES`]).
const LOWER_OR_DIGIT: u8 = 1;
/// `-`.
const DASH: u8 = 2;
/// `.`.
const DOT: u8 = 4;
/// A letter of either case, a digit, `-`, `_` or `.`: a label value's.
const IN_LABEL_VALUE: u8 = 8;

/// Each byte's classes: one load per byte, where the rules of this module
/// test ranges.
const CLASSES: [u8; 256] = {
    let mut classes = [0; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if byte.is_ascii_lowercase() || byte.is_ascii_digit() {
            classes[b] |= LOWER_OR_DIGIT;
        }
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.') {
            classes[b] |= IN_LABEL_VALUE;
        }
        b += 1;
    }
    classes[b'-' as usize] |= DASH;
    classes[b'.' as usize] |= DOT;
    classes
};

/// Whether `name` is a DNS-1123 subdomain, in one pass: what
/// [`dns1123_subdomain`] accepts. Each part between dots is not empty and
/// starts and ends with a lowercase letter or digit, with `-` inside.
fn is_dns1123_subdomain(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.len() > 253 {
        return false;
    }
    // The class of the byte before the current one; a part starts as
    // after a dot.
    let mut previous = DOT;
    for &b in bytes {
        let class = CLASSES[usize::from(b)];
        let ok = if class & LOWER_OR_DIGIT != 0 {
            true
        } else if class & DASH != 0 {
            previous & DOT == 0
        } else if class & DOT != 0 {
            previous & LOWER_OR_DIGIT != 0
        } else {
            false
        };
        if !ok {
            return false;
        }
        previous = class;
    }
    previous & LOWER_OR_DIGIT != 0
}

/// A name that can be one segment of a URL path: RBAC roles and bindings.
pub fn path_segment(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the name is empty".to_owned());
    }
    if name == "." || name == ".." {
        return Err(format!("`{name}` cannot be a name"));
    }
    match name.chars().find(|c| *c == '/' || *c == '%') {
        Some(c) => Err(format!("{c:?} is not allowed in a name")),
        None => Ok(()),
    }
}

/// A label or annotation key: an optional DNS subdomain prefix and `/`,
/// then a name of at most 63 letters, digits, `-`, `_` or `.`.
pub fn qualified_name(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix
        && dns1123_subdomain(prefix).is_err()
    {
        return Err(format!("the prefix `{prefix}` is not a DNS subdomain"));
    }
    if name.is_empty() {
        return Err("the name is empty".to_owned());
    }
    label_value(name)
}

/// A label value: empty, or at most 63 of `[A-Za-z0-9_.-]` with
/// alphanumeric ends.
pub fn label_value(value: &str) -> Result<(), String> {
    if value.is_empty() || is_label_value(value) {
        return Ok(());
    }
    label_value_chars(value)
}

/// [`label_value`] of a non-empty value, character by character, saying
/// what is wrong.
fn label_value_chars(value: &str) -> Result<(), String> {
    if value.len() > 63 {
        return Err(format!("{} characters, more than 63", value.len()));
    }
    let alnum = |c: char| c.is_ascii_alphanumeric();
    if !value.starts_with(alnum) || !value.ends_with(alnum) {
        return Err("it must start and end with a letter or digit".to_owned());
    }
    match value.chars().find(|c| !(alnum(*c) || "-_.".contains(*c))) {
        Some(c) => Err(format!("{c:?} is not allowed")),
        None => Ok(()),
    }
}

/// Whether `value` is a non-empty label value, by its bytes: what
/// [`label_value`] accepts but the empty value, for which this is false (a
/// character that is not ASCII is refused by both). A `const fn`, so that
/// a constant that must be one is checked when it compiles
/// ([`crate::cluster::Manager`]).
pub const fn is_label_value(value: &str) -> bool {
    let bytes = value.as_bytes();
    let [first, .., last] = bytes else {
        return bytes.len() == 1 && bytes[0].is_ascii_alphanumeric();
    };
    if bytes.len() > 63 || !first.is_ascii_alphanumeric() || !last.is_ascii_alphanumeric() {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        if CLASSES[bytes[i] as usize] & IN_LABEL_VALUE == 0 {
            return false;
        }
        i += 1;
    }
    true
}

/// An IANA service name, as container port names must be: at most 15
/// lowercase letters, digits and `-`, at least one letter, no `-` at either
/// end and no `--`.
pub fn iana_service_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 15
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && name.bytes().any(|b| b.is_ascii_lowercase())
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    if ok {
        Ok(())
    } else {
        Err("a port name is an IANA service name: at most 15 lowercase letters, digits and `-`, with a letter, no `-` at either end and no `--`".to_owned())
    }
}

/// An image reference as the kubelet parses it: `[registry/]repository`,
/// then `:tag` and/or `@digest`, in the distribution reference grammar:
///
/// ```text
/// reference := name [ ":" tag ] [ "@" digest ]
/// name      := [ domain "/" ] path ( "/" path )*      (at most 255 characters)
/// domain    := label ( "." label )* [ ":" port ]      (label: [A-Za-z0-9], `-` inside)
/// path      := [a-z0-9]+ ( ( "." | "_" | "__" | "-"+ ) [a-z0-9]+ )*
/// tag       := [A-Za-z0-9_] [A-Za-z0-9_.-]{0,127}
/// digest    := ( sha256 | sha384 | sha512 ) ":" lowercase hex of 64 | 96 | 128
/// ```
///
/// Written out rather than taken from a crate: `oci-spec`'s parser compiles
/// a Unicode regex on first use, which cost 260 million instructions (about
/// 80 ms) per process, more than the rest of a render.
pub fn image_reference(reference: &str) -> Result<(), String> {
    let (rest, digest) = match reference.split_once('@') {
        Some((rest, digest)) => (rest, Some(digest)),
        None => (reference, None),
    };
    // A tag's `:` comes after the last `/`; one before it is a port's.
    let path_start = rest.rfind('/').map_or(0, |i| i + 1);
    let (name, tag) = match rest[path_start..].find(':') {
        Some(i) => (&rest[..path_start + i], Some(&rest[path_start + i + 1..])),
        None => (rest, None),
    };
    let invalid = |why: String| Err(format!("not an image reference ({why})"));
    if name.is_empty() {
        return invalid("the repository is empty".to_owned());
    }
    if name.len() > 255 {
        return invalid(format!(
            "the repository has {} characters, at most 255",
            name.len()
        ));
    }
    let parts: Vec<&str> = name.split('/').collect();
    let paths = |parts: &[&str]| parts.iter().all(|p| path_component(p));
    if !(paths(&parts) || (parts.len() > 1 && domain(parts[0]) && paths(&parts[1..]))) {
        return invalid(format!(
            "`{name}` is no `[registry/]path` of lowercase letters, digits and single separators"
        ));
    }
    if let Some(tag) = tag {
        let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
        let ok = tag.len() <= 128
            && tag.as_bytes().first().is_some_and(word)
            && tag.bytes().all(|b| word(&b) || b == b'.' || b == b'-');
        if !ok {
            return invalid(format!(
                "the tag `{tag}` is not 1 to 128 letters, digits, `_`, `.` or `-`, starting with a letter, digit or `_`"
            ));
        }
    }
    if let Some(digest) = digest {
        let (hex, length) = match digest.split_once(':') {
            Some(("sha256", hex)) => (hex, 64),
            Some(("sha384", hex)) => (hex, 96),
            Some(("sha512", hex)) => (hex, 128),
            _ => {
                return invalid(format!(
                    "the digest `{digest}` is not sha256:, sha384: or sha512: and hex"
                ));
            }
        };
        let lower_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
        if hex.len() != length || !hex.bytes().all(lower_hex) {
            return invalid(format!(
                "the digest `{digest}` needs {length} lowercase hex digits"
            ));
        }
    }
    Ok(())
}

/// One path component of a repository: lowercase letters and digits, with
/// single separators (`.`, `_`, `__` or a run of `-`) between them.
fn path_component(part: &str) -> bool {
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let bytes = part.as_bytes();
    if !bytes.first().is_some_and(|b| alnum(*b)) || !bytes.last().is_some_and(|b| alnum(*b)) {
        return false;
    }
    part.split(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        .filter(|separator| !separator.is_empty())
        .all(|separator| {
            matches!(separator, "." | "_" | "__") || separator.bytes().all(|b| b == b'-')
        })
}

/// A registry: DNS labels (letters of either case, digits, `-` inside)
/// joined by `.`, then an optional `:port`.
fn domain(part: &str) -> bool {
    let (host, port) = match part.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (part, None),
    };
    let label = |l: &str| {
        let b = l.as_bytes();
        b.first().is_some_and(u8::is_ascii_alphanumeric)
            && b.last().is_some_and(u8::is_ascii_alphanumeric)
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
    };
    host.split('.').all(label)
        && port.is_none_or(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// A name prefix as the API server reads one (`maskTrailingDash`): a
/// trailing `-`, after at least one byte, and the byte before it become
/// `a`, since a generated suffix follows; `None` where nothing is masked.
pub fn masked_prefix(prefix: &str) -> Option<String> {
    match prefix.strip_suffix('-') {
        Some(_) if prefix.len() > 1 => prefix
            .get(..prefix.len() - 2)
            .map(|head| format!("{head}a")),
        _ => None,
    }
}

/// Why the API server refuses `prefix` as the `metadata.generateName` of an
/// object of `kind` (`""` for a custom resource), if it does: the kind's
/// name rule read as a prefix ([`masked_prefix`]), and no `/` or `%` in
/// any kind's; the RBAC kinds' is held to a whole name's rule (not `.` or
/// `..`), a PodDisruptionBudget's to no more.
pub fn generate_name(group: &str, kind: &str, prefix: &str) -> Result<(), String> {
    let masked = masked_prefix(prefix);
    let name = masked.as_deref().unwrap_or(prefix);
    // Every kind's, after its own rule and as written (the REST layer's
    // `ValidatePathSegmentName`): the masking of a trailing `-` may hide
    // a `/` from the kind's rule (`a/-` reads `aa`), not from this one.
    if prefix.contains(['/', '%']) {
        return Err("a name prefix may not contain `/` or `%`".to_owned());
    }
    match kind {
        // The RBAC kinds' rule reads a prefix as a whole name
        // (`ValidateRBACName` ignores that it is one): `.` and `..` too.
        "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding" => path_segment(prefix),
        "PodDisruptionBudget" => Ok(()),
        // The 52 characters hold the name, not the prefix.
        "" | "CronJob" => dns1123_subdomain(name),
        // An IPAddress's rule reads the prefix as a whole address.
        "IPAddress" if group == "networking.k8s.io" => ip_address(prefix),
        _ => object_name(group, kind, name),
    }
}

/// An IPAddress (networking.k8s.io) is named by its address, as the API
/// server writes it (`ValidateIPAddressName`): no leading zeros, no zone,
/// no IPv4-mapped IPv6 address, and in canonical form (RFC 5952:
/// lowercase, the longest run of zeros compressed).
pub fn ip_address(name: &str) -> Result<(), String> {
    let Ok(address) = name.parse::<std::net::IpAddr>() else {
        return Err("must be a valid IP address (10.9.8.7, 2001:db8::ffff)".to_owned());
    };
    if let std::net::IpAddr::V6(v6) = address
        && v6.to_ipv4_mapped().is_some()
    {
        return Err("must not be an IPv4-mapped IPv6 address".to_owned());
    }
    let canonical = address.to_string();
    if canonical != name {
        return Err(format!("must be in canonical form (`{canonical}`)"));
    }
    Ok(())
}

/// The rule for the name of an object of `kind`, where the API server has
/// one; `None` for a kind whose rule this module does not know (custom
/// resources: their names only need to be path segments, checked too).
pub fn object_name(group: &str, kind: &str, name: &str) -> Result<(), String> {
    match kind {
        // The events.k8s.io Event's validation holds its name to a DNS
        // subdomain; the core group's to nothing but a path segment.
        "Event" if group == "events.k8s.io" => dns1123_subdomain(name),
        "IPAddress" if group == "networking.k8s.io" => ip_address(name),
        "Service" => dns1035_label(name),
        // Its pods are named `<name>-<ordinal>`, each a label value too.
        "Namespace" | "StatefulSet" => dns1123_label(name),
        // A PodDisruptionBudget's validation names no rule of its own: the
        // name is held to what every object's is, a path segment.
        "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding" | "PodDisruptionBudget" => {
            path_segment(name)
        }
        // Its Jobs are named `<name>-<11 digits of time>`, a label value.
        "CronJob" if name.len() > 52 => Err(format!(
            "{} characters, more than 52 (its Jobs add 11)",
            name.len()
        )),
        "ConfigMap"
        | "Secret"
        | "ServiceAccount"
        | "Deployment"
        | "DaemonSet"
        | "ReplicaSet"
        | "Job"
        | "CronJob"
        | "Pod"
        | "PersistentVolumeClaim"
        | "RuntimeClass"
        | "NetworkPolicy"
        | "Lease"
        | "PriorityClass"
        | "CustomResourceDefinition"
        | "Certificate"
        | "Issuer"
        | "ClusterIssuer"
        | "ValidatingWebhookConfiguration"
        | "MutatingWebhookConfiguration"
        | "ValidatingAdmissionPolicy"
        | "ValidatingAdmissionPolicyBinding"
        | "PersistentVolume"
        | "Node"
        | "Endpoints"
        | "EndpointSlice"
        | "LimitRange"
        | "ResourceQuota"
        | "PodTemplate"
        | "ReplicationController"
        | "ControllerRevision"
        | "HorizontalPodAutoscaler"
        | "StorageClass"
        | "CSIDriver"
        | "CSINode"
        | "VolumeAttachment"
        | "IngressClass"
        | "Ingress"
        | "DeviceClass"
        | "DeviceTaintRule"
        | "ResourceClaim"
        | "ResourceClaimTemplate"
        | "ResourceSlice"
        | "FlowSchema"
        | "PriorityLevelConfiguration"
        | "ServiceCIDR"
        | "CSIStorageCapacity"
        | "VolumeAttributesClass" => dns1123_subdomain(name),
        _ => path_segment(name),
    }
}

/// A path in a container or on a node as Go's `path.Clean` leaves it, as
/// the API server and the container runtime read one: `.` and empty
/// segments dropped, `..` taking one back (never above the root), no
/// trailing `/`; `.` for nothing.
///
/// ```
/// use kubernetes::names::clean_path;
///
/// assert_eq!(clean_path("//etc/./buildkit/../buildkit/"), "/etc/buildkit");
/// assert_eq!(clean_path("/a/.."), "/");
/// assert_eq!(clean_path(""), ".");
/// ```
pub fn clean_path(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    if path.starts_with('/') {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".to_owned()
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn services_start_with_a_letter_other_names_may_not() {
        assert!(dns1035_label("gateway").is_ok());
        let why = dns1035_label("1gateway").unwrap_err();
        assert!(why.contains("starts with a letter"), "{why}");
        assert!(object_name("", "Service", "1gateway").is_err());
        // Measured on v1.35.4: the two Events' rules differ by group.
        assert!(object_name("events.k8s.io", "Event", "A").is_err());
        assert!(object_name("", "Event", "A").is_ok());
        for kind in ["FlowSchema", "ServiceCIDR", "CSIStorageCapacity"] {
            assert!(object_name("x", kind, "a_b").is_err(), "{kind}");
        }
        for ok in ["10.0.0.1", "::", "2001:db8::1", "fe80::1", "0.0.0.0"] {
            assert_eq!(ip_address(ok), Ok(()), "{ok}");
        }
        for bad in [
            "010.0.0.1",
            "2001:DB8::1",
            "2001:db8:0::1",
            "::ffff:10.0.0.1",
            "1a",
            "fe80::1%eth0",
        ] {
            assert!(ip_address(bad).is_err(), "{bad}");
        }
        assert!(object_name("", "Deployment", "1gateway").is_ok());
        assert!(object_name("", "Namespace", "a.b").is_err());
        assert!(object_name("", "ConfigMap", "a.b").is_ok());
        assert!(object_name("", "ClusterRole", "system:aggregate-to-view").is_ok());
        assert!(object_name("", "ClusterRole", "a/b").is_err());
        assert!(object_name("", "Widget", "..").is_err());
        assert!(object_name("", "StatefulSet", "a.b").is_err());
        assert!(object_name("", "StatefulSet", &"a".repeat(64)).is_err());
        assert!(object_name("", "PodDisruptionBudget", "Budget_1 ä").is_ok());
        assert!(object_name("", "PodDisruptionBudget", "a/b").is_err());
        assert!(object_name("", "ResourceClaim", "A").is_err());
    }

    #[test]
    fn labels_have_their_bounds() {
        assert!(dns1123_label(&"a".repeat(63)).is_ok());
        assert!(dns1123_label(&"a".repeat(64)).is_err());
        assert!(dns1123_label("-a").is_err());
        assert!(dns1123_label("a-").is_err());
        assert!(dns1123_label("A").is_err());
        assert!(dns1123_label("").is_err());
        assert!(dns1123_subdomain(&format!("{}.b", "a".repeat(63))).is_ok());
        assert!(dns1123_subdomain("a..b").is_err());
        assert!(dns1123_subdomain(&"a.".repeat(127)).is_err());
        // One expression over the whole name: a part of 64 or more is a
        // valid subdomain (a real API server accepts a ConfigMap so named).
        assert!(dns1123_subdomain(&"a".repeat(64)).is_ok());
        assert!(dns1123_subdomain(&format!("{}.b", "a".repeat(200))).is_ok());
        assert!(dns1123_subdomain(&"a".repeat(254)).is_err());
        assert!(dns1123_subdomain(&format!("{}-.b", "a".repeat(70))).is_err());
    }

    #[test]
    fn keys_and_values() {
        assert!(qualified_name("example.com/team").is_ok());
        assert!(qualified_name("team").is_ok());
        assert!(qualified_name("Example.com/team").is_err());
        assert!(qualified_name("example.com/").is_err());
        assert!(label_value("").is_ok());
        assert!(label_value("v1.2_x-Y").is_ok());
        assert!(label_value("v1 ").is_err());
        assert!(label_value(&"a".repeat(64)).is_err());
    }

    #[test]
    fn port_names() {
        assert!(iana_service_name("https").is_ok());
        assert!(iana_service_name("metrics-1").is_ok());
        for bad in ["", "1234", "a--b", "-a", "a-", "UPPER", "abcdefghijklmnop"] {
            assert!(iana_service_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn image_references_follow_the_grammar() {
        for good in [
            "ghcr.io/buildkit-operator/buildd:0.4.0",
            "docker.io/moby/buildkit:v0.26.2-rootless",
            "busybox",
            "localhost:5000/a/b:tag",
            "ghcr.io/a/b@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "ghcr.io/a/b:1.0@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "Registry.Example.com:443/a__b/c--d/e.f:_tag",
            "a/b",
        ] {
            assert!(image_reference(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "ghcr.io/A/b:1",
            "ghcr.io/a/b:",
            "ghcr.io/a/b:-tag",
            "ghcr.io/a b:1",
            "ghcr.io/a/b:1\n",
            "ghcr.io/a/b@sha256:beef",
            "ghcr.io//b:1",
            "ghcr.io/a._b:1",
            "ghcr.io/a___b:1",
            "ghcr.io/a/b:t\u{e9}g",
            "ghcr.io/a/b@sha256:0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef",
            "ghcr.io/a/b@md5:0123456789abcdef0123456789abcdef",
            "-ghcr.io/a:1",
            "ghcr.io:port/a:1",
        ] {
            assert!(image_reference(bad).is_err(), "{bad:?}");
        }
    }

    /// The one-pass checks accept what the rules, part by part and
    /// character by character, accept: on names of the characters that
    /// matter (and one that is not ASCII), up to past the length bounds.
    #[test]
    fn one_pass_checks_agree_with_the_rules() {
        let alphabet = ["a", "z", "0", "9", "-", ".", "_", "A", "é", " "];
        let mut names: Vec<String> = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = (names.iter())
                .flat_map(|n| alphabet.iter().map(move |c| format!("{n}{c}")))
                .collect();
            names.extend(longer);
        }
        for long in [62, 63, 64, 252, 253, 254] {
            names.push("a".repeat(long));
            names.push(format!("{}.b", "a".repeat(long - 2)));
            names.push(format!("{}-", "a".repeat(long - 1)));
        }
        assert_eq!(label_value(""), Ok(()));
        for name in &names {
            assert_eq!(
                is_dns1123_subdomain(name),
                subdomain_parts(name).is_ok(),
                "{name:?}"
            );
            assert_eq!(dns1123_subdomain(name), subdomain_parts(name), "{name:?}");
            if !name.is_empty() {
                assert_eq!(
                    is_label_value(name),
                    label_value_chars(name).is_ok(),
                    "{name:?}"
                );
                assert_eq!(label_value(name), label_value_chars(name), "{name:?}");
            }
        }
    }

    proptest::proptest! {
        /// The hand-written parser agrees with the grammar written as one
        /// regular expression (ASCII classes), on token soup that reaches
        /// every branch: ports, separators, tags, digests.
        #[test]
        fn image_references_agree_with_the_grammar_as_a_regex(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "a", "b9", "Z", "0", ".", "_", "__", "___", "-", "--", "/", ":", "@", "5000",
                "localhost", "ghcr.io", "sha256:", "sha512:", "md5:", "é",
                "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            ]), 0..10)
        ) {
            let reference = parts.concat();
            let grammar = regex::Regex::new(concat!(
                r"^(?-u)((?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])",
                r"(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?/)?",
                r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*)",
                r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?",
                r"(?:@(sha256:[0-9a-f]{64}|sha384:[0-9a-f]{96}|sha512:[0-9a-f]{128}))?$",
            ))
            .unwrap();
            let expected = grammar
                .captures(&reference)
                .is_some_and(|c| c[1].len() <= 255);
            proptest::prop_assert_eq!(image_reference(&reference).is_ok(), expected, "{}", reference);
        }
    }
}
