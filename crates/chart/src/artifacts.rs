//! The chart's artifacts: the side files of a release that are not
//! objects, which the `kubernetes` crate reads, writes and compares only
//! as the chart declares them ([`kubernetes::input::Options::artifacts`]).
//!
//! One: the Kyverno exemptions (`kyverno-exemptions.yaml`), the namespaces
//! each policy of the platform's Kyverno values must exclude, by policy.
//! `render` writes it beside the release's objects, `check` holds it to
//! T4 (ADR-0006), `diff` says when a namespace joins a policy's
//! exclusions ([`Exemptions`]).

use std::collections::BTreeSet;

use kubernetes::diff::{self, Class, Impact, Level};
use kubernetes::input;
use kubernetes::yaml::Node;
use serde_json::Value as Json;

/// The file name of the Kyverno exemptions artifact in an output directory.
pub const EXEMPTIONS_FILE: &str = "kyverno-exemptions.yaml";

/// How the chart's inputs are read: with its artifacts declared, so that
/// a release directory reads as `render` wrote it. A command line adds the
/// command its hints pipe into ([`input::Options::pipe_into`]).
pub const READ: input::Options<'static> = input::Options {
    artifacts: &[EXEMPTIONS_FILE],
    pipe_into: "",
    crds: &[],
};

/// Several releases' exemptions artifacts as one: the namespaces each
/// policy excludes, all of them; `None` when there is none.
pub fn merged_exemptions(artifacts: &[Node]) -> Option<Json> {
    (!artifacts.is_empty()).then(|| merge(artifacts))
}

/// The artifacts' policies, each with the namespaces of all of them.
fn merge(artifacts: &[Node]) -> Json {
    let mut merged = serde_json::Map::new();
    for artifact in artifacts.iter().map(Node::to_json) {
        for (key, entry) in artifact.as_object().into_iter().flatten() {
            let list = merged
                .entry(key.clone())
                .or_insert_with(|| serde_json::json!({"excludedNamespaces": []}));
            let namespaces = entry["excludedNamespaces"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            if let Some(all) = list["excludedNamespaces"].as_array_mut() {
                all.extend(namespaces);
            }
        }
    }
    Json::Object(merged)
}

/// The exemptions artifact as `diff` compares it: merged per side, and a
/// namespace that joins a policy's `excludedNamespaces` is that policy
/// relaxed there, a security impact.
#[derive(Clone, Copy, Debug, Default)]
pub struct Exemptions;

impl diff::Artifact for Exemptions {
    fn name(&self) -> &str {
        EXEMPTIONS_FILE
    }

    fn merge(&self, documents: &[Node]) -> Json {
        merge(documents)
    }

    fn impact(&self, before: &Json, after: &Json) -> Vec<Impact> {
        relaxed(before, after)
    }
}

/// One security impact per policy whose exclusions gained namespaces.
fn relaxed(before: &Json, after: &Json) -> Vec<Impact> {
    let listed_in = |artifact: &Json, policy: &str| -> BTreeSet<String> {
        artifact[policy]["excludedNamespaces"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|ns| ns.as_str().map(str::to_owned))
            .collect()
    };
    let mut out = Vec::new();
    for policy in after.as_object().into_iter().flatten().map(|(k, _)| k) {
        let added: Vec<String> = listed_in(after, policy)
            .difference(&listed_in(before, policy))
            .cloned()
            .collect();
        if added.is_empty() {
            continue;
        }
        out.push(Impact {
            level: Level::Security,
            class: Class::Security,
            object: EXEMPTIONS_FILE.to_owned(),
            from: None,
            why: format!(
                "Kyverno exemption relaxed: policy {policy} newly excludes {} {}: it no longer applies there",
                if added.len() == 1 { "namespace" } else { "namespaces" },
                diff::listed(&added)
            ),
        });
    }
    out
}
