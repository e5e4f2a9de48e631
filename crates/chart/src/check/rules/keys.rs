//! KEYS: no daemon key shared between the trust levels (issue 23,
//! ADR-0006's "the daemons' certs"): buildd names one server-certificate
//! Secret per level, the two differ, and the Certificates that write them
//! share no hostname, so an untrusted daemon that escapes its build holds
//! no key a trusted daemon serves with, nor one valid for a trusted
//! daemon's name.

use std::collections::HashMap;

use serde_json::Value as Json;

use super::{DOC, Definition, Inputs};
use crate::check::facts::{Instance, command_line, flag_field, last_flag, namespace_of};
use crate::check::rules::Invariant;
use crate::check::{Context, Findings};
use crate::plan::adr::DAEMON_TLS_FLAGS;
use kubernetes::diagnostic::Rule;
use kubernetes::json::Field;
use kubernetes::location::KeyPath;

/// KEYS: what `docs/checks.md` says of it, and its check.
pub const RULE: Definition = Definition {
    rule: Rule {
        id: "KEYS",
        title: "No daemon key shared between trusted and untrusted daemons",
        help: "ADR-0006 makes the builds namespace the untrusted blast radius and speaks of the daemons' certificates; a daemon that runs an untrusted build (a `trusted: false` project or a fork) and escapes into its container holds the key its daemon serves with. So each trust level has its own server certificate and key: buildd names the trusted daemons' Secret with `--daemon-tls-secret` and the untrusted daemons' with `--untrusted-daemon-tls-secret`. One of the two flags without the other (one key for every daemon), both naming the same Secret, or Certificates in the builds namespace writing the two Secrets whose `dnsNames` a hostname could match both of (a wildcard standing for exactly one leftmost label, as TLS clients match names), are findings. What the Certificates' issuer is, and who else it issues to, is not in the manifests: see docs/security.md.",
        example: "KEYS Deployment buildkit-operator/buildkit-buildd spec.template.spec.containers[0].args: buildd is given --daemon-tls-secret=buildkit-daemon-tls and no --untrusted-daemon-tls-secret: every daemon, trusted and untrusted, would serve with one key; each trust level has its own",
        doc: DOC,
    },
    section: 140,
    rank: 180,
    check: Some(check),
    appendix: None,
    per_object: false,
    generic: None,
};

/// Checks KEYS on each buildd that names a daemon TLS Secret.
fn check(inputs: &Inputs<'_>, findings: &mut Findings<'_>) {
    let context = inputs.context;
    for instance in &context.facts.instances {
        buildd(context, instance, findings);
    }
}

fn buildd(context: &Context<'_>, instance: &Instance, findings: &mut Findings<'_>) {
    let object = &context.objects[instance.buildd];
    let container = &object
        .field("spec")
        .field("template")
        .field("spec")
        .field("containers")[instance.container];
    let args = command_line(container);
    let [trusted_flag, untrusted_flag] = DAEMON_TLS_FLAGS;
    let at = |flag: &str| {
        KeyPath::dotted("spec.template.spec.containers")
            .index(instance.container)
            .key(flag_field(container, flag))
    };
    let trusted = last_flag(&args, trusted_flag);
    let untrusted = last_flag(&args, untrusted_flag);
    let one_is_trusted = trusted.is_some();
    let (trusted, untrusted) = match (trusted, untrusted) {
        (None, None) => return,
        (Some(one), None) | (None, Some(one)) => {
            let (given, missing) = if one_is_trusted {
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
            .filter(|(_, o)| o.field("spec").field("secretName").as_str() == Some(secret))
            .map(|(i, _)| i)
            .collect()
    };
    let (trusted_certs, untrusted_certs) = (writers(&trusted), writers(&untrusted));
    let index = Names::of(context, &trusted_certs);
    for u in untrusted_certs {
        let object = context.objects[u];
        let Some((ui, (t, ti))) = (dns_names(object).enumerate())
            .find_map(|(ui, name)| index.matching(&name).map(|found| (ui, found)))
        else {
            continue;
        };
        let name = object
            .field("metadata")
            .field("name")
            .as_str()
            .unwrap_or_default();
        let t_name = context.objects[t]
            .field("metadata")
            .field("name")
            .as_str()
            .unwrap_or_default();
        findings.report(
            Invariant::Keys,
            u,
            &KeyPath::dotted("spec.dnsNames").index(ui),
            format!(
                "{} of the untrusted daemons' Certificate {name} is valid for {} of the trusted daemons' Certificate {t_name}: an untrusted daemon's key would pass for a trusted daemon",
                dns_name(object, ui),
                dns_name(context.objects[t], ti),
            ),
        );
    }
}

/// A Certificate's `dnsNames`, as [`normal`] writes them.
fn dns_names(certificate: &Json) -> impl Iterator<Item = String> + '_ {
    (certificate
        .field("spec")
        .field("dnsNames")
        .as_array()
        .into_iter()
        .flatten())
    .map(|n| normal(n.as_str().unwrap_or_default()))
}

/// A DNS name as TLS clients compare it: lowercase, a trailing dot
/// dropped.
fn normal(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// The `dnsNames` of some Certificates, indexed as TLS clients match them
/// (RFC 6125 as Go's crypto/x509 does: a wildcard only as the whole
/// leftmost label, standing for exactly one non-empty label), each with its Certificate and its place there: looking
/// a name up costs one hash, whatever the number of names.
#[derive(Default)]
struct Names {
    /// `*.SUFFIX` by its suffix.
    wildcards: HashMap<String, (usize, usize)>,
    /// Plain hostnames.
    hosts: HashMap<String, (usize, usize)>,
    /// Plain hostnames by what follows their first label (what a wildcard
    /// of that suffix matches).
    parents: HashMap<String, (usize, usize)>,
}

impl Names {
    fn of(context: &Context<'_>, certificates: &[usize]) -> Self {
        let mut names = Names::default();
        for &c in certificates {
            for (i, name) in dns_names(context.objects[c]).enumerate() {
                names.insert(name, (c, i));
            }
        }
        names
    }

    fn insert(&mut self, name: String, at: (usize, usize)) {
        if let Some(suffix) = name.strip_prefix("*.") {
            self.wildcards.entry(suffix.to_owned()).or_insert(at);
        } else {
            if let Some(parent) = parent(&name) {
                self.parents.entry(parent.to_owned()).or_insert(at);
            }
            self.hosts.entry(name).or_insert(at);
        }
    }

    /// An indexed name some hostname matches together with `name`.
    fn matching(&self, name: &str) -> Option<(usize, usize)> {
        match name.strip_prefix("*.") {
            Some(suffix) => (self.wildcards.get(suffix)).or_else(|| self.parents.get(suffix)),
            None => {
                (self.hosts.get(name)).or_else(|| parent(name).and_then(|p| self.wildcards.get(p)))
            }
        }
        .copied()
    }
}

/// What follows a hostname's first label, when a wildcard could stand for
/// that label (non-empty, no `*`).
fn parent(host: &str) -> Option<&str> {
    host.split_once('.')
        .filter(|(label, _)| !label.is_empty() && !label.contains('*'))
        .map(|(_, rest)| rest)
}

/// A cert-manager Certificate.
fn is_certificate(object: &Json) -> bool {
    object.field("kind") == "Certificate"
        && object
            .field("apiVersion")
            .as_str()
            .is_some_and(|v| v.starts_with("cert-manager.io/"))
}

fn dns_name(certificate: &Json, i: usize) -> &str {
    certificate.field("spec").field("dnsNames")[i]
        .as_str()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::Names;

    /// Names match as TLS clients match them (RFC 6125 as Go's
    /// crypto/x509 does): a wildcard only as the whole leftmost label,
    /// standing for exactly one non-empty label; case and a trailing dot
    /// ignored.
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
            ("a.t.ns.svc", "B.t.ns.svc", false),
            ("*.t.ns.svc", ".t.ns.svc", false),
        ] {
            for (indexed, asked) in [(a, b), (b, a)] {
                let mut names = Names::default();
                names.insert(super::normal(indexed), (0, 0));
                let found = names.matching(&super::normal(asked)).is_some();
                assert_eq!(found, shared, "{indexed} ~ {asked}");
            }
        }
    }
}
