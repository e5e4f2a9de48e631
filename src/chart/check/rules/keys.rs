//! KEYS: no daemon key shared between the trust levels (issue 23,
//! ADR-0006's "the daemons' certs"): buildd names one server-certificate
//! Secret per level, the two differ, and the Certificates that write them
//! share no hostname, so an untrusted daemon that escapes its build holds
//! no key a trusted daemon serves with, nor one valid for a trusted
//! daemon's name.

use serde_json::Value as Json;

use crate::check::facts::{Instance, command_line, flag_field, last_flag, namespace_of};
use crate::check::{Context, Findings, Invariant};
use crate::diagnostic::KeyPath;
use crate::plan::adr::DAEMON_TLS_FLAGS;

/// Checks KEYS on each buildd that names a daemon TLS Secret.
pub(super) fn check(context: &Context<'_>, findings: &mut Findings<'_>) {
    for instance in &context.facts.instances {
        buildd(context, instance, findings);
    }
}

fn buildd(context: &Context<'_>, instance: &Instance, findings: &mut Findings<'_>) {
    let object = &context.objects[instance.buildd];
    let container = &object["spec"]["template"]["spec"]["containers"][instance.container];
    let args = command_line(container);
    let [trusted_flag, untrusted_flag] = DAEMON_TLS_FLAGS;
    let at = |flag: &str| {
        KeyPath::dotted("spec.template.spec.containers")
            .index(instance.container)
            .key(flag_field(container, flag))
    };
    let trusted = last_flag(&args, trusted_flag);
    let untrusted = last_flag(&args, untrusted_flag);
    let (trusted, untrusted) = match (trusted, untrusted) {
        (None, None) => return,
        (Some(one), None) | (None, Some(one)) => {
            let (given, missing) = if last_flag(&args, trusted_flag).is_some() {
                (trusted_flag, untrusted_flag)
            } else {
                (untrusted_flag, trusted_flag)
            };
            findings.report(
                Invariant::Keys,
                instance.buildd,
                &at(given),
                format!(
                    "buildd is given {given}={one} and no {missing}: every daemon, trusted and untrusted, would serve with one key; each trust level has its own"
                ),
            );
            return;
        }
        (Some(t), Some(u)) => (t, u),
    };
    if trusted == untrusted {
        findings.report(
            Invariant::Keys,
            instance.buildd,
            &at(untrusted_flag),
            format!(
                "{trusted_flag} and {untrusted_flag} name the same Secret, {trusted}: an untrusted daemon would hold the trusted daemons' key"
            ),
        );
        return;
    }
    let Some(builds) = instance.builds.as_deref() else {
        return;
    };
    let writers = |secret: &str| -> Vec<usize> {
        context
            .objects
            .iter()
            .enumerate()
            .filter(|(_, o)| is_certificate(o) && namespace_of(o) == builds)
            .filter(|(_, o)| o["spec"]["secretName"].as_str() == Some(secret))
            .map(|(i, _)| i)
            .collect()
    };
    let (trusted_certs, untrusted_certs) = (writers(&trusted), writers(&untrusted));
    for &u in &untrusted_certs {
        for &t in &trusted_certs {
            let shared = shared_names(context.objects[t], context.objects[u]);
            if let Some((ti, ui)) = shared.first() {
                let object = context.objects[u];
                let name = object["metadata"]["name"].as_str().unwrap_or_default();
                let t_name = context.objects[t]["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default();
                findings.report(
                    Invariant::Keys,
                    u,
                    &KeyPath::dotted("spec.dnsNames").index(*ui),
                    format!(
                        "{} of the untrusted daemons' Certificate {name} is valid for {} of the trusted daemons' Certificate {t_name}: an untrusted daemon's key would pass for a trusted daemon",
                        dns_name(object, *ui),
                        dns_name(context.objects[t], *ti),
                    ),
                );
            }
        }
    }
}

/// A cert-manager Certificate.
fn is_certificate(object: &Json) -> bool {
    object["kind"] == "Certificate"
        && object["apiVersion"]
            .as_str()
            .is_some_and(|v| v.starts_with("cert-manager.io/"))
}

fn dns_name(certificate: &Json, i: usize) -> &str {
    certificate["spec"]["dnsNames"][i]
        .as_str()
        .unwrap_or_default()
}

/// The pairs of indexes of `a`'s and `b`'s `dnsNames` that some hostname
/// matches both of.
fn shared_names(a: &Json, b: &Json) -> Vec<(usize, usize)> {
    let names = |c: &Json| -> Vec<String> {
        c["spec"]["dnsNames"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|n| n.as_str().unwrap_or_default().to_ascii_lowercase())
            .collect()
    };
    let (a, b) = (names(a), names(b));
    let mut shared = Vec::new();
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            if overlap(x, y) {
                shared.push((i, j));
            }
        }
    }
    shared
}

/// Whether a hostname exists that both `a` and `b` match, as TLS clients
/// match names (RFC 6125 as Go's crypto/x509 does): a wildcard only as the
/// whole leftmost label, standing for exactly one non-empty label; a
/// trailing dot ignored.
pub(crate) fn overlap(a: &str, b: &str) -> bool {
    let a = a.trim_end_matches('.');
    let b = b.trim_end_matches('.');
    match (a.strip_prefix("*."), b.strip_prefix("*.")) {
        (Some(x), Some(y)) => x == y,
        (Some(suffix), None) => matches_wildcard(b, suffix),
        (None, Some(suffix)) => matches_wildcard(a, suffix),
        (None, None) => a == b,
    }
}

fn matches_wildcard(host: &str, suffix: &str) -> bool {
    host.split_once('.')
        .is_some_and(|(label, rest)| !label.is_empty() && !label.contains('*') && rest == suffix)
}

#[cfg(test)]
mod tests {
    use super::overlap;

    #[test]
    fn names_overlap_as_tls_clients_match_them() {
        for (a, b, shared) in [
            ("*.t.ns.svc", "*.t.ns.svc", true),
            ("*.t.ns.svc", "*.u.ns.svc", false),
            ("*.ns.svc", "*.u.ns.svc", false),
            ("*.ns.svc", "u.ns.svc", true),
            ("*.ns.svc", "x.u.ns.svc", false),
            ("a.t.ns.svc", "*.t.ns.svc", true),
            ("A.t.ns.svc.", "a.t.ns.svc", true),
            ("a.t.ns.svc", "b.t.ns.svc", false),
            ("*.t.ns.svc", ".t.ns.svc", false),
        ] {
            let a = a.to_ascii_lowercase();
            assert_eq!(overlap(&a, b), shared, "{a} ~ {b}");
            assert_eq!(overlap(b, &a), shared, "{b} ~ {a}");
        }
    }
}
