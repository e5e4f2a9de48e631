//! The property the security impact keeps: for random pairs of sets built
//! from the diff fixtures (`tests/fixtures/diff`), every
//! subject whose permissions grew, as the `rbac` command's model computes
//! them on each whole set, and every pod whose strongest Pod Security
//! level is weaker, as `pod_security::evaluate` says, appears as a
//! `security` impact of the diff. Fixed seed by default; the cases from
//! `CHARTGEN_DIFF_CASES` (default 100).

use std::collections::{BTreeMap, BTreeSet};

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value as Json;

use crate::diff::{Class, Level, diff};
use crate::manifest::Manifest;
use crate::pod_security::{self, Level as PodLevel};
use crate::rbac;
use crate::rbac::resolve::Cluster;

type Key = (String, String, Option<String>, String);

/// Every object of the diff fixtures, by identity, each distinct version
/// once.
fn pool() -> BTreeMap<Key, Vec<Manifest>> {
    let paths: Vec<String> = (crate::fixtures::diff_sides().iter())
        .map(|side| side.display().to_string())
        .collect();
    let mut pool: BTreeMap<Key, Vec<Manifest>> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for path in paths {
        let Ok(set) = crate::input::read(std::slice::from_ref(&path), &crate::input::TEST_OUT)
        else {
            continue;
        };
        for m in set.manifests {
            if seen.insert(m.json().to_string()) {
                pool.entry(crate::diff::key(&m.id)).or_default().push(m);
            }
        }
    }
    pool
}

/// Each subject's (scope, resource or URL, names, verb) tuples.
fn grants(set: &[Manifest]) -> BTreeMap<String, BTreeSet<String>> {
    let objects: Vec<Json> = set.iter().map(|m| m.json()).collect();
    let listed =
        crate::rbac::resolve::permissions_with(&objects, Cluster::Roles, rbac::defaults::TARGET)
            .unwrap();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in listed {
        let subject = match p.subject.kind.as_str() {
            "ServiceAccount" => format!("ServiceAccount {}", p.subject.describe()),
            _ => p.subject.describe(),
        };
        let held = out.entry(subject).or_default();
        for r in p.permissions {
            for verb in &r.verbs {
                held.insert(format!(
                    "{verb} {} {:?} {}",
                    r.resource,
                    r.resource_names,
                    r.scope.describe()
                ));
            }
        }
        for u in p.non_resource {
            for verb in &u.verbs {
                held.insert(format!("{verb} {} {}", u.url, u.scope.describe()));
            }
        }
    }
    out
}

/// The strongest level the pod an object carries satisfies.
fn level(object: &Manifest) -> Option<PodLevel> {
    let json = object.json();
    let carried = pod_security::carried_pod(&json)?;
    let minor = rbac::defaults::TARGET.1;
    let satisfies = |l| pod_security::evaluate(&carried.pod, l, minor).is_empty();
    Some(if satisfies(PodLevel::Restricted) {
        PodLevel::Restricted
    } else if satisfies(PodLevel::Baseline) {
        PodLevel::Baseline
    } else {
        PodLevel::Privileged
    })
}

#[test]
fn grown_permissions_and_weaker_pods_are_security_impacts() {
    let pool = pool();
    let keys: Vec<&Key> = pool.keys().collect();
    assert!(keys.len() > 100, "{}", keys.len());
    let cases = std::env::var("CHARTGEN_DIFF_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let choices = proptest::collection::vec(0u8..=255, keys.len() * 2);
    let (grown, weakened) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    runner
        .run(&choices, |choice| {
            // Per identity: absent, or one of its versions, on each side;
            // mostly the same one, so that a case is a few changes.
            let side = |offset: usize| -> Vec<Manifest> {
                let mut set = Vec::new();
                for (i, key) in keys.iter().enumerate() {
                    let versions = &pool[*key];
                    let pick = choice[2 * i] as usize;
                    let change = choice[2 * i + 1] < 32;
                    let pick = if offset == 1 && change {
                        pick + 1
                    } else {
                        pick
                    };
                    let n = pick % (versions.len() + 1);
                    if n > 0 {
                        set.push(versions[n - 1].clone());
                    }
                }
                set
            };
            let (old, new) = (side(0), side(1));
            let result = diff(&old, &new, &[]);
            let security: BTreeSet<&str> = result
                .impact
                .iter()
                .filter(|i| i.level == Level::Security && i.class == Class::Security)
                .map(|i| i.object.as_str())
                .collect();
            let (before, after) = (grants(&old), grants(&new));
            let none = BTreeSet::new();
            for (subject, held) in &after {
                if !held.is_subset(before.get(subject).unwrap_or(&none)) {
                    grown.set(grown.get() + 1);
                    assert!(
                        security.contains(subject.as_str()),
                        "{subject} may do more, no security impact: {:?}",
                        result.impact
                    );
                }
            }
            let olds: BTreeMap<Key, &Manifest> =
                old.iter().map(|m| (crate::diff::key(&m.id), m)).collect();
            for m in &new {
                let Some(was) = olds.get(&crate::diff::key(&m.id)) else {
                    continue;
                };
                if let (Some(a), Some(b)) = (level(was), level(m))
                    && b < a
                {
                    weakened.set(weakened.get() + 1);
                    let object = m.id.to_string();
                    assert!(
                        security.contains(object.as_str()),
                        "{object} needs {} instead of {}, no security impact: {:?}",
                        b.name(),
                        a.name(),
                        result.impact
                    );
                }
            }
            Ok(())
        })
        .unwrap();
    // The property was put to the test, not passed vacuously.
    let (grown, weakened) = (grown.get(), weakened.get());
    assert!(grown > 0 && weakened > 0, "{grown} {weakened}");
}
