//! Go's `net/url.ParseRequestURI`, as Kubernetes' `uri` string format reads it.
//!
//! CRD schemas with `format: uri` are checked by k8s.io/kube-openapi's
//! `govalidator.IsRequestURI`, which is "`url.ParseRequestURI(text)` returns
//! no error". This module ports that parser (Go 1.26's `net/url`; a
//! bracketed host's address is read by the parent's `netip`) step by step,
//! working on bytes and only answering yes or no.
//!
//! What Go takes or refuses that one might not expect:
//!
//! - Any ASCII control byte (below 0x20, or 0x7F) anywhere, query included,
//!   is refused; the empty string is refused; `*` alone is taken.
//! - A scheme must start with a letter and go on with letters, digits, `+`,
//!   `-` or `.`; a leading `:` is refused. `1a:/x` has no scheme.
//! - `scheme:` followed by anything that does not start with `/` is an
//!   "opaque" URI and is taken unchecked: `a:`, `mailto:%zz`, `x:a b`.
//! - Without a scheme only a path starting with `/` is taken; `//host/p` is
//!   then a path, so its "host" is never checked.
//! - Everything from the first `?` on is the query and is never checked.
//! - `#` is not special: it is fine in a path, refused in a host.
//! - Paths and userinfo only need every `%` to start `%XX` with two hex
//!   digits; spaces, `"`, `<`, `{` and non-ASCII are all taken in a path.
//! - Userinfo (before the last `@`) only takes letters, digits and
//!   `-._:~!$&'()*+,;=%@`; a raw non-ASCII byte there is refused.
//! - A host takes raw non-ASCII bytes and `%XX` escapes of non-ASCII bytes,
//!   but an escape of an ASCII byte (`%41`) is refused, except `%25`.
//! - A host takes `!$&'()*+,;=:<>"[]-_.~` besides letters and digits; a `]`
//!   in a plain host is fine, a `[` anywhere but first is refused.
//! - A port is `:` followed by any number of digits (none, or 30 of them).
//!   With several colons only what follows the last colon must be digits
//!   (`http://a:b:1/` is taken): that is Go 1.26 with `urlstrictcolons=0`,
//!   the default for every main module declaring a Go version below 1.26,
//!   which is what the Kubernetes API server is built with (and the control
//!   plane of chartgen's tests).
//! - `[...]` must hold an IPv6 address (IPv4, even `[1.2.3.4]`, is refused;
//!   `[::ffff:1.2.3.4]` is taken). Its zone starts at the first `%25`, may
//!   not be empty, and takes raw non-ASCII, `%20`, `%25` and `]`.

/// Whether Go's strict-colons rule (`urlstrictcolons=1`) applies to
/// `http`/`https` hosts: a host with two colons is then refused there.
///
/// Go 1.26 turns it on only for main modules declaring `go 1.26` or later;
/// the Kubernetes API server (and the control plane of chartgen's tests)
/// declare an older version, so
/// the lenient rule applies.
const STRICT_COLONS: bool = false;

/// Whether Go's `net/url.ParseRequestURI` reads `text` without an error,
/// which is what Kubernetes' `uri` format checks.
pub(crate) fn is_request_uri(text: &str) -> bool {
    let raw = text.as_bytes();
    if raw.is_empty() || raw.iter().any(|&b| is_ctl(b)) {
        return false;
    }
    if raw == b"*" {
        return true;
    }
    let Some((scheme, rest)) = split_scheme(raw) else {
        return false;
    };
    let rest = before_byte(rest, b'?');
    if rest.first() != Some(&b'/') {
        // Opaque URIs are taken unchecked; no scheme means not a request URI.
        return !scheme.is_empty();
    }
    let path = match rest.strip_prefix(b"//") {
        Some(after) if !scheme.is_empty() => {
            let (authority, path) = split_before(after, b'/');
            if !valid_authority(scheme, authority) {
                return false;
            }
            path
        }
        _ => rest,
    };
    valid_escapes(path, Mode::Path)
}

/// Whether `b` is a byte Go's `stringContainsCTLByte` refuses.
fn is_ctl(b: u8) -> bool {
    b < b' ' || b == 0x7f
}

/// Go's `getScheme`: `None` for a leading `:` ("missing protocol scheme"),
/// otherwise the scheme (maybe empty) and the rest.
fn split_scheme(raw: &[u8]) -> Option<(&[u8], &[u8])> {
    for (i, &c) in raw.iter().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return None,
            b':' => return Some((raw.get(..i)?, raw.get(i + 1..)?)),
            _ => break,
        }
    }
    Some((&[], raw))
}

/// The part of `s` before the first `stop` byte (all of `s` without one).
fn before_byte(s: &[u8], stop: u8) -> &[u8] {
    split_before(s, stop).0
}

/// Splits `s` just before its first `stop` byte (the second part keeps it).
fn split_before(s: &[u8], stop: u8) -> (&[u8], &[u8]) {
    let at = s.iter().position(|&b| b == stop).unwrap_or(s.len());
    s.split_at(at)
}

/// Go's `parseAuthority`: `[userinfo@]host`, split at the last `@`.
fn valid_authority(scheme: &[u8], authority: &[u8]) -> bool {
    match authority.iter().rposition(|&b| b == b'@') {
        Some(at) => {
            let (userinfo, host) = authority.split_at(at);
            valid_host(scheme, host.get(1..).unwrap_or_default()) && valid_userinfo(userinfo)
        }
        None => valid_host(scheme, authority),
    }
}

/// Go's `validUserinfo` plus the `%` checks of its unescaping.
fn valid_userinfo(userinfo: &[u8]) -> bool {
    userinfo.iter().all(|&b| is_userinfo_byte(b)) && valid_escapes(userinfo, Mode::UserPassword)
}

/// Whether Go's `validUserinfo` takes byte `b` (non-ASCII never).
fn is_userinfo_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&b)
}

/// Go's `parseHost`: an IP literal in brackets or a name with a port.
fn valid_host(scheme: &[u8], host: &[u8]) -> bool {
    match host.iter().rposition(|&b| b == b'[') {
        Some(0) => valid_ip_literal(host),
        Some(_) => false,
        None => valid_host_name(scheme, host),
    }
}

/// A host without `[`: optional `:port`, then the host-mode escape rules.
fn valid_host_name(scheme: &[u8], host: &[u8]) -> bool {
    if let Some(first) = host.iter().position(|&b| b == b':') {
        let last = host.iter().rposition(|&b| b == b':').unwrap_or(first);
        let strict = STRICT_COLONS && is_http(scheme);
        let colon = if strict { first } else { last };
        if !valid_optional_port(host.get(colon..).unwrap_or_default()) {
            return false;
        }
    }
    valid_escapes(host, Mode::Host)
}

/// Whether the (not yet lowered) scheme is `http` or `https`.
fn is_http(scheme: &[u8]) -> bool {
    scheme.eq_ignore_ascii_case(b"http") || scheme.eq_ignore_ascii_case(b"https")
}

/// Go's `validOptionalPort`: empty, or `:` followed by digits only.
fn valid_optional_port(port: &[u8]) -> bool {
    match port.split_first() {
        None => true,
        Some((&b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

/// `[address]` or `[address%25zone]`, then an optional port; the address
/// must be IPv6 as Go's `netip.ParseAddr` reads it.
fn valid_ip_literal(host: &[u8]) -> bool {
    let Some(close) = host.iter().rposition(|&b| b == b']') else {
        return false;
    };
    let (inside, port) = host.split_at(close);
    if !valid_optional_port(port.get(1..).unwrap_or_default()) {
        return false;
    }
    let hostname = inside.get(1..).unwrap_or_default();
    let zone_at = find(hostname, b"%25").unwrap_or(hostname.len());
    let (address, zone) = hostname.split_at(zone_at);
    if !valid_escapes(address, Mode::Host) || !valid_escapes(zone, Mode::Zone) {
        return false;
    }
    let mut unescaped = decode(address);
    unescaped.extend(decode(zone));
    matches!(
        super::netip(&unescaped),
        Some(super::NetIp::V6 | super::NetIp::V6Zoned)
    )
}

/// Index of the first occurrence of `needle` in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Which part of the URL Go's `unescape` is reading.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The path: only `%XX` well-formedness matters.
    Path,
    /// A user name or password: only `%XX` well-formedness matters.
    UserPassword,
    /// A host: ASCII bytes restricted, `%XX` only for non-ASCII or `%25`.
    Host,
    /// An IPv6 zone (from its `%25` on): `%XX` only for host bytes or space.
    Zone,
}

/// Go's `unescape(s, mode)` succeeding.
fn valid_escapes(s: &[u8], mode: Mode) -> bool {
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        if c == b'%' {
            let Some((hi, lo)) = hex_pair(s, i + 1) else {
                return false;
            };
            if !escape_allowed(mode, hi, lo) {
                return false;
            }
            i += 3;
        } else {
            let hostlike = matches!(mode, Mode::Host | Mode::Zone);
            if hostlike && c.is_ascii() && !is_host_byte(c) {
                return false;
            }
            i += 1;
        }
    }
    true
}

/// The two hex digits at `s[at]` and `s[at + 1]`, if both are hex.
fn hex_pair(s: &[u8], at: usize) -> Option<(u8, u8)> {
    let hi = *s.get(at)?;
    let lo = *s.get(at + 1)?;
    (hi.is_ascii_hexdigit() && lo.is_ascii_hexdigit()).then_some((hi, lo))
}

/// Whether `%` + `hi` + `lo` (both hex) is allowed in `mode`.
fn escape_allowed(mode: Mode, hi: u8, lo: u8) -> bool {
    let percent = hi == b'2' && lo == b'5';
    match mode {
        Mode::Path | Mode::UserPassword => true,
        Mode::Host => percent || unhex(hi) >= 8,
        Mode::Zone => {
            let v = (unhex(hi) << 4) | unhex(lo);
            percent || v == b' ' || is_host_byte(v)
        }
    }
}

/// The value of a hex digit (0 for anything else).
fn unhex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

/// Whether Go's `shouldEscape(b, encodeHost)` is false (ASCII only).
fn is_host_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-_.~!$&'()*+,;=:[]<>\"".contains(&b)
}

/// Decodes `%XX` escapes of an already checked string.
fn decode(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        match hex_pair(s, i + 1) {
            Some((hi, lo)) if c == b'%' => {
                out.push((unhex(hi) << 4) | unhex(lo));
                i += 3;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::is_request_uri;

    /// Each case with the verdict Go's `url.ParseRequestURI` gave.
    const CASES: &[(&str, bool)] = &[
        // Plain request URIs; empty, control bytes and `*`.
        ("http://example.com/a/b?c=d", true),
        ("https://example.com", true),
        ("http://", true),
        ("*", true),
        ("", false),
        ("/a\tb", false),
        ("/a?b\u{7f}", false),
        // Paths: only `%XX` matters; spaces, `#` and non-ASCII are fine.
        ("/", true),
        ("/a b", true),
        ("/\u{e9}", true),
        ("/a#b", true),
        ("/%41", true),
        ("/a%2", false),
        // The query is never checked, from the first `?` on.
        ("/?%zz", true),
        ("/a?b?c", true),
        ("?q", false),
        // Schemes: letter first, then letters, digits, `+-.`; opaque rest unchecked.
        ("http:", true),
        ("a:", true),
        ("mailto:%zz", true),
        ("x:a b", true),
        ("a+b-c.d:/x", true),
        (":foo", false),
        ("1a:/x", false),
        ("relative/path", false),
        // Without a scheme `//host` is a path: the host is not checked.
        ("//ho st/p", true),
        ("//host/%zz", false),
        // `#` is not special: fine in a path, refused in a host.
        ("http://h/#f", true),
        ("http://h#f", false),
        // Userinfo: split at the last `@`, ASCII subset, valid escapes.
        ("http://u:p@h/", true),
        ("http://u@v@h/", true),
        ("http://u%20@h/", true),
        ("http://\u{e9}@h/", false),
        ("http://u%zz@h/", false),
        // Host names: raw non-ASCII and escaped non-ASCII, no ASCII escapes but %25.
        ("http://host\u{e9}/", true),
        ("http://host%C3%A9/", true),
        ("http://host%25/", true),
        ("http://host%41/", false),
        ("http://a]b/", true),
        ("http://a<b>/", true),
        ("http://a b/", false),
        ("http://a[b/", false),
        // Ports: any digits, even none; only after the last colon.
        ("http://h:80/", true),
        ("http://h:/", true),
        ("http://h:99999999999999999999/", true),
        ("http://a:b:1/", true),
        ("http://h:8a/", false),
        ("http://a:1:b/", false),
        // IP literals: IPv6 only, netip rules, port after the bracket.
        ("http://[::1]:80/", true),
        ("http://[::ffff:1.2.3.4]/", true),
        ("http://[::1]x/", false),
        ("http://[1.2.3.4]/", false),
        ("http://[::01.2.3.4]/", false),
        ("http://[1:2:3:4:5:6:7:8::]/", false),
        ("http://[12345::]/", false),
        // Zones: from the first `%25`, non-empty, lenient content.
        ("http://[fe80::1%25en0]/", true),
        ("http://[fe80::1%25%20x]/", true),
        ("http://[fe80::1%25%41]/", true),
        ("http://[fe80::1%25\u{e9}]/", true),
        ("http://[fe80::1%25a]b]/", true),
        ("http://[fe80::1%en0]/", false),
        ("http://[fe80::1%25]/", false),
    ];

    #[test]
    fn matches_go() {
        for &(text, want) in CASES {
            assert_eq!(is_request_uri(text), want, "{text:?}");
        }
    }

    #[test]
    fn large_inputs_are_fast_enough() {
        let long = "%25".repeat(1 << 18);
        assert!(is_request_uri(&format!("http://[::1{long}]/")));
        assert!(!is_request_uri(&format!(
            "http://[{}]/",
            "1:".repeat(1 << 19)
        )));
        assert!(is_request_uri(&format!("/{}", "a".repeat(1 << 20))));
    }
}
