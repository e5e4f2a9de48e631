//! The chart's rules (ADR-0006, ADR-2647), one file each: every `*.rs`
//! file here but this one is a rule, and holds its `RULE` (a
//! [`Definition`]: id, title, what it protects, an example finding, its
//! place in the reference and among one object's findings) and its check.
//! The build script (`build.rs`) reads the file names and writes the
//! registry: the `mod` lines, the [`Invariant`] enum (one variant per file,
//! named by the file: `no_wildcards.rs` is `Invariant::NoWildcards`, its
//! printed id `R5` its `RULE`'s), and each variant's definition. So the
//! dispatch ([`check`]) and the reference (`docs/checks.md`,
//! [`reference()`], which every finding's `doc` field links to) are derived
//! from the files: adding a rule means adding its file, and its fixture
//! beside it (`<file>.yaml`, checked by the rule's own test,
//! `each_rule::<file>`, which the build script writes beside the registry
//! and which snapshots its findings).
//!
//! To add a rule: write `<name>.rs` here, with `pub const RULE:
//! Definition` (an id, a `section` and a `rank` no other rule has; a help
//! text too long to read in a string literal beside it, in `<name>.md`,
//! read with `include_str!`, as `api.md` and `schema.md` are) and its
//! `fn check(inputs: &Inputs, findings: &mut Findings)`; write `<name>.yaml`
//! beside it, a fixture that breaks the rule and nothing else (alone, or,
//! under a `# Over shared/release.yaml` header, as the objects that change
//! the passing release of `shared/release.yaml`); accept its
//! snapshot (`INSTA_UPDATE=always cargo test -p buildkit-chart --lib
//! check::rules`, then read it) and regenerate the reference (`cargo run -q
//! -- docs checks > docs/checks.md`). The tests below, and
//! `committed_checks_reference_is_fresh`, fail until each is done. The
//! files are mounted by the build script, which `cargo fmt` does not
//! follow: format them by name (`rustfmt --edition 2024
//! crates/chart/src/check/rules/*.rs`), as `.ci/run` checks.
//!
//! What the rules share lives in `shared/`, which is no rule: the RBAC
//! rules read one `shared::grants::Grants`, built once per run
//! (the resolved roles and bindings, [`kubernetes::rbac`], and what the
//! bindings give each ServiceAccount); the topology rules read the
//! [`crate::check::facts`] of the context; `shared::info` says what the
//! input does not show.

mod shared;

use std::cmp::Ordering;
use std::fmt::Write as _;
use std::sync::OnceLock;

use serde_json::Value as Json;

use super::{Context, Findings, Options};
use kubernetes::diagnostic::Rule;

// The registry, written by build.rs from the files of this folder: a
// `mod` per rule file, `Invariant`, `Invariant::ALL`, `Invariant::name`,
// `Invariant::definition` and `FILES`.
include!(concat!(env!("OUT_DIR"), "/rules.rs"));

/// The document that explains every rule, a section per id: each
/// finding's `doc` link.
pub const DOC: &str = "docs/checks.md";

/// One rule: what every finding of it carries and the reference says of
/// it, where it is listed, and the check that reports it. Each rule file
/// holds one, as `pub const RULE`.
#[derive(Debug)]
pub struct Definition {
    /// The id printed on each finding (`R5`), its title, what it protects
    /// (`help`) and an example finding, as `docs/checks.md` shows them.
    pub rule: Rule,
    /// Its place in `docs/checks.md`, ascending: the ADR rules first,
    /// grouped by topic.
    pub section: u16,
    /// Its place among the findings of one object, ascending: what the
    /// schema and the roles say first, then the ADR rules.
    pub rank: u16,
    /// The check that reports it, or `None` when another rule's check
    /// reports it beside its own (its file says which).
    pub check: Option<Check>,
    /// More of the reference, printed after its section's example (the
    /// Pod Security controls after T3's).
    pub appendix: Option<fn() -> String>,
    /// Whether its check judges each object alone (the schema, the API
    /// server's rules), reading nothing of how the objects relate: such
    /// checks run beside the others on a second core ([`check`]).
    pub per_object: bool,
    /// Whose objects it judges: `None` for an ADR rule, which judges the
    /// buildkit operator's objects only ([`Context::in_scope`]); for a
    /// generic rule, which judges any application's objects, the words the
    /// reference's scope paragraph lists it under (`the schema`: rules of
    /// the same words are listed together).
    pub generic: Option<&'static str>,
}

/// A rule's check: reads the [`Inputs`], reports into the findings.
pub type Check = fn(&Inputs<'_>, &mut Findings<'_>);

/// What every rule's check reads, built once per run.
pub struct Inputs<'a> {
    /// The objects and what they show.
    context: &'a Context<'a>,
    /// The resolved roles and bindings, and what they grant: resolved on
    /// first use ([`Inputs::grants`]), by the RBAC rules.
    grants: &'a OnceLock<shared::grants::Grants<'a>>,
    /// The Kyverno exemptions artifact, when the input has one.
    exemptions: Option<&'a Json>,
    /// The schemas, for the checks that need them (`check` has them,
    /// `relations` does not).
    schema: Option<&'a Options<'a>>,
}

impl<'a> Inputs<'a> {
    /// The resolved roles and bindings, and what they grant, resolved once.
    fn grants(&self) -> &shared::grants::Grants<'a> {
        self.grants
            .get_or_init(|| shared::grants::Grants::of(self.context))
    }
}

impl Invariant {
    /// The short id, printed on each finding: `R1`, `T3`, `K8S`.
    pub const fn id(self) -> &'static str {
        self.definition().rule.id
    }

    /// The rule, with its help text, as every finding carries it.
    pub const fn rule(self) -> &'static Rule {
        &self.definition().rule
    }

    /// Where the rule is explained: its section of `docs/checks.md`.
    pub fn doc(self) -> String {
        self.rule().link()
    }
}

/// Findings sort by object, then by the rule's [`Definition::rank`].
impl Ord for Invariant {
    fn cmp(&self, other: &Self) -> Ordering {
        self.definition().rank.cmp(&other.definition().rank)
    }
}

impl PartialOrd for Invariant {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Every rule, in the order of their findings ([`Definition::rank`]): the
/// order the checks run in, so that two checks that report one rule (the
/// schema's and the API server's both report API) report in a fixed order.
pub fn by_rank() -> Vec<Invariant> {
    let mut all = Invariant::ALL.to_vec();
    all.sort();
    all
}

/// Every rule, in the order `docs/checks.md` lists them
/// ([`Definition::section`]).
pub const BY_SECTION: [Invariant; Invariant::ALL.len()] = {
    let mut all = Invariant::ALL;
    let mut i = 1;
    while i < all.len() {
        let mut j = i;
        while j > 0 && all[j - 1].definition().section > all[j].definition().section {
            let moved = all[j];
            all[j] = all[j - 1];
            all[j - 1] = moved;
            j -= 1;
        }
        i += 1;
    }
    all
};

/// Every rule's text, in the order `docs/checks.md` lists them: what SARIF
/// lists as the tool's rules.
pub const RULES: [&Rule; Invariant::ALL.len()] = {
    let mut rules = [Invariant::ALL[0].rule(); Invariant::ALL.len()];
    let mut i = 0;
    while i < rules.len() {
        rules[i] = BY_SECTION[i].rule();
        i += 1;
    }
    rules
};

/// Runs every rule's check on `context`, and notes what the input does not
/// show; `exemptions` is the Kyverno artifact, when the input has one, and
/// `schema` the schemas (none for [`crate::check::relations`]).
pub fn check(
    context: &Context<'_>,
    findings: &mut Findings<'_>,
    exemptions: Option<&Json>,
    schema: Option<&Options<'_>>,
    split: bool,
) {
    let grants = OnceLock::new();
    let inputs = Inputs {
        context,
        grants: &grants,
        exemptions,
        schema,
    };
    // Some rules judge each object alone (`per_object`); the others read
    // how the objects relate. Split, the two run on two cores, and the
    // findings come in the order one core gives.
    let alone = |invariant: &Invariant| invariant.definition().per_object;
    let run = |keep: &dyn Fn(&Invariant) -> bool, findings: &mut Findings<'_>| {
        for invariant in by_rank().iter().filter(|i| keep(i)) {
            if let Some(check) = invariant.definition().check {
                check(&inputs, findings);
            }
        }
    };
    if split {
        let mut related = Findings::new(context);
        kubernetes::beside(
            || run(&alone, findings),
            || {
                run(&|i| !alone(i), &mut related);
                shared::info::check(context, &mut related);
            },
        );
        findings.found.append(&mut related.found);
        findings.info.append(&mut related.info);
    } else {
        run(&|_| true, findings);
        shared::info::check(context, findings);
    }
}

/// The ids of the ADR rules, then the generic rules' ids grouped by the
/// words they are listed under ([`Definition::generic`]), each in
/// reference order: whom each rule judges, for the reference's scope
/// paragraph.
fn scopes() -> (Vec<&'static str>, Vec<(&'static str, Vec<&'static str>)>) {
    let mut adr = Vec::new();
    let mut generic: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
    for invariant in BY_SECTION {
        let id = invariant.id();
        match invariant.definition().generic {
            None => adr.push(id),
            Some(words) => match generic.iter_mut().find(|(w, _)| *w == words) {
                Some((_, group)) => group.push(id),
                None => generic.push((words, vec![id])),
            },
        }
    }
    (adr, generic)
}

/// `ids` as the reference lists them: numbered ids of one letter first,
/// a run of them as a range (`R1-R6`), then the others in their order.
fn ids(ids: &[&str]) -> String {
    let numbered = |id: &str| {
        let digits = id.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        let prefix = &id[..id.len() - digits.len()];
        let number = digits.parse::<u32>().ok().filter(|_| !prefix.is_empty())?;
        Some((prefix.to_owned(), number))
    };
    let mut runs: Vec<(String, u32, u32)> = Vec::new();
    let mut named = Vec::new();
    for id in ids {
        match numbered(id) {
            Some((prefix, number)) => match runs.iter_mut().find(|(p, _, _)| *p == prefix) {
                Some((_, _, last)) if *last + 1 == number => *last = number,
                _ => runs.push((prefix, number, number)),
            },
            None => named.push((*id).to_owned()),
        }
    }
    (runs.into_iter())
        .map(|(prefix, first, last)| match first == last {
            true => format!("{prefix}{first}"),
            false => format!("{prefix}{first}-{prefix}{last}"),
        })
        .chain(named)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `docs/checks.md`: every rule with what it protects and an example.
pub fn reference() -> String {
    let mut out = String::from(
        "# Checks\n\n\
         <!-- Generated by `chartgen docs checks` from the rule files of crates/chart/src/check/rules/, one per rule; do not edit. -->\n\n\
         `chartgen check` (and `chartgen render`, before it prints or writes anything) \
         reports each broken rule as a finding: the rule's id, the object, the path in \
         it, a message, and where it was read. `--output json` gives the same with a \
         `doc` link to the rule's section here. Exit code 1 when there is any finding.\n\n\
         The trust classes come from what the manifests show: the operator namespace is \
         where buildd runs, the builds namespace is buildd's `--namespace`, the system \
         namespace is where the Kata node plumbing (privileged or host-path, running a \
         Kata image or labelled as such) runs. Labels only fill \
         gaps. What the input does not show is said on an `info:` line (in JSON, `info`), \
         which does not change the exit code: a trust class's namespace with objects in it \
         but no Namespace object; any other namespace only where a pod needs more than \
         Pod Security `baseline` and its Namespace is not in the input or states no \
         enforced level; a RuntimeClass from the Kata bundle applied out-of-band; the \
         daemons' pod template ConfigMap named by buildd but not in the input; a Namespace \
         of another tool that states no Pod Security level; a prerequisite the cluster must hold \
         before the bundle is applied: cert-manager (custom resources of \
         `cert-manager.io` whose CRD is neither in the input nor given with `--crd`) and \
         Kyverno (a Namespace whose `buildkit-operator.dev/policy-exemptions` annotation \
         names its policies, or `kyverno.io` resources, with no Kyverno CRD).\n\n\
         The ADR rules (",
    );
    let (adr, generic) = scopes();
    out.push_str(&ids(&adr));
    out.push_str(
        ") judge the buildkit operator's objects only: \
         each buildd and what ties to it (its namespaces and everything in them, the \
         BuildProjects and their CRD, what its objects name or mount, the roles and \
         bindings that reach its namespaces' ServiceAccounts). Another application's \
         objects beside it (cert-manager's chart in the same GitOps repository, say) get \
         the generic rules only: ",
    );
    let groups: Vec<String> = (generic.iter())
        .map(|(words, group)| format!("{words} ({})", group.join(", ")))
        .collect();
    out.push_str(&match groups.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    });
    out.push_str(".\n\n");
    for invariant in BY_SECTION {
        let rule = invariant.rule();
        let _ = write!(
            out,
            "## {}\n\n**{}.** {}\n\nExample:\n\n```\n{}\n```\n\n",
            rule.id, rule.title, rule.help, rule.example
        );
        if let Some(appendix) = invariant.definition().appendix {
            out.push_str(&appendix());
            out.push('\n');
        }
    }
    out.pop();
    out
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::artifacts::EXEMPTIONS_FILE;
    use crate::check::{Options, render_text, run};
    use kubernetes::kube::{DEFAULT_VERSION, KubeSchemas};

    /// This folder, on disk.
    fn folder() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src/check/rules")
    }

    /// The names of the files of this folder (not below it) ending in
    /// `.{extension}`, sorted.
    fn files(extension: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(folder())
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.is_file())
            .filter_map(|path| path.file_name()?.to_str().map(str::to_owned))
            .filter(|name| name.ends_with(&format!(".{extension}")))
            .collect();
        names.sort();
        names
    }

    /// The header line of a fixture that changes the release of
    /// `shared/release.yaml` rather than standing alone.
    const OVER: &str = "# Over shared/release.yaml";

    /// The objects a fixture means: its own, or, when it says it is
    /// [`OVER`] the release, the release's with each of the fixture's in
    /// place of the release's object of its identity (kind, namespace,
    /// name), or after them when the release has none.
    fn fixture(name: &str) -> kubernetes::input::ManifestSet {
        let text = std::fs::read_to_string(folder().join(name))
            .unwrap_or_else(|e| panic!("no fixture {name}: {e}"));
        let own = kubernetes::input::parse(name, &text).unwrap();
        if !text
            .lines()
            .take_while(|l| l.starts_with('#'))
            .any(|l| l.starts_with(OVER))
        {
            return own;
        }
        let release = "shared/release.yaml";
        let base = std::fs::read_to_string(folder().join(release)).unwrap();
        let mut set = kubernetes::input::parse(release, &base).unwrap();
        for manifest in own.manifests {
            match set.manifests.iter().position(|m| m.id == manifest.id) {
                Some(at) => set.manifests[at] = manifest,
                None => set.manifests.push(manifest),
            }
        }
        set
    }

    /// The release the overlay fixtures change passes `check`: each
    /// fixture's findings are its own changes'.
    #[test]
    fn the_fixtures_release_passes() {
        let schemas = KubeSchemas::load(DEFAULT_VERSION).unwrap();
        let text = std::fs::read_to_string(folder().join("shared/release.yaml")).unwrap();
        let set = kubernetes::input::parse("release.yaml", &text).unwrap();
        let options = Options {
            schemas: &schemas,
            extra_crds: &[],
            only_version: false,
        };
        let report = run(&set.manifests, set.artifact(EXEMPTIONS_FILE), &options);
        let found: Vec<String> = report.findings.iter().map(|f| f.render()).collect();
        assert!(found.is_empty(), "{found:#?}");
        assert!(set.manifests.len() > 10);
    }

    /// A rule's file stem: `no_wildcards` for `Invariant::NoWildcards`.
    fn stem(invariant: Invariant) -> String {
        invariant.name().replace('-', "_")
    }

    /// Adding a rule is adding its file: every rule file on disk is in the
    /// registry, so in the dispatch, and has its section in the reference
    /// (`docs/checks.md`), in [`BY_SECTION`] order, once; and a fixture
    /// beside it. Ids, sections and ranks are each unique (a rank shared by
    /// two rules would order their findings by chance).
    #[test]
    fn every_rule_file_is_registered_and_has_its_section_and_fixture() {
        let mut on_disk = files("rs");
        on_disk.retain(|name| name != "mod.rs");
        assert_eq!(FILES.to_vec(), on_disk, "the registry is the rule files");
        let registered: Vec<String> = (Invariant::ALL.iter())
            .map(|i| format!("{}.rs", stem(*i)))
            .collect();
        assert_eq!(registered, on_disk);
        let fixtures: Vec<String> = on_disk.iter().map(|f| f.replace(".rs", ".yaml")).collect();
        assert_eq!(
            files("yaml"),
            fixtures,
            "one fixture per rule file, beside it"
        );

        let reference = reference();
        let sections: Vec<&str> = (reference.lines())
            .filter_map(|line| line.strip_prefix("## "))
            .collect();
        let ids: Vec<&str> = BY_SECTION.iter().map(|i| i.id()).collect();
        assert_eq!(sections, ids, "a section per rule, in BY_SECTION order");
        let in_rules: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        assert_eq!(in_rules, ids);

        let mut unique: Vec<&str> = ids.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "ids are unique");
        for key in [|d: &Definition| d.section, |d: &Definition| d.rank] {
            let mut keys: Vec<u16> = Invariant::ALL.iter().map(|i| key(i.definition())).collect();
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(
                keys.len(),
                Invariant::ALL.len(),
                "sections and ranks are unique"
            );
        }
    }

    /// Each rule's text is whole: its example is a finding of its own, as
    /// the text renderer prints it, and each finding links to its section.
    #[test]
    fn every_rule_is_explained_and_its_example_carries_its_id() {
        for invariant in Invariant::ALL {
            let rule = invariant.rule();
            assert!(
                rule.example.starts_with(&format!("{} ", rule.id)),
                "{}",
                rule.example
            );
            assert!(!rule.title.is_empty() && !rule.help.is_empty());
            assert_eq!(
                invariant.doc(),
                format!("docs/checks.md#{}", rule.id.to_lowercase())
            );
        }
    }

    /// The values stage names what the API server and the kubelet refuse
    /// in the escape hatches by these rules' ids (the model, below the
    /// checks, cannot read them: `model::extras::rule_id`).
    #[test]
    fn the_values_name_the_refusers_rules_by_their_ids() {
        use crate::model::extras::rule_id;
        use kubernetes::api::Refuser;
        assert_eq!(rule_id(Refuser::ApiServer), Invariant::Api.id());
        assert_eq!(rule_id(Refuser::Kubelet), Invariant::Image.id());
    }

    /// The reference's scope paragraph lists every rule once, as an ADR
    /// rule or a generic one, from the rules' definitions; ids in runs
    /// are ranges.
    #[test]
    fn the_scope_paragraph_lists_every_rule_once() {
        let (adr, generic) = scopes();
        let mut listed: Vec<&str> = adr.clone();
        listed.extend(generic.iter().flat_map(|(_, group)| group.iter().copied()));
        listed.sort_unstable();
        let mut all: Vec<&str> = Invariant::ALL.iter().map(|i| i.id()).collect();
        all.sort_unstable();
        assert_eq!(listed, all);
        assert_eq!(
            ids(&["R1", "R2", "R3", "T1", "FACT", "T2"]),
            "R1-R3, T1-T2, FACT"
        );
        assert_eq!(ids(&["R1", "R3", "KEYS"]), "R1, R3, KEYS");
        let reference = reference();
        assert!(reference.contains(&format!("The ADR rules ({})", ids(&adr))));
        for (words, group) in &generic {
            assert!(reference.contains(&format!("{words} ({})", group.join(", "))));
        }
    }

    /// Findings of one object sort by rank: the schema's (K8S, KIND)
    /// first; the roles and grants the RBAC rules read (ROLE, GRANT)
    /// before any ADR rule; the ADR rules' in the reference's order.
    #[test]
    fn findings_sort_by_rank() {
        let ranked = by_rank();
        let ids: Vec<&str> = ranked.iter().map(|i| i.id()).collect();
        assert_eq!(&ids[..2], ["K8S", "KIND"]);
        let adr = |i: &&Invariant| i.definition().generic.is_none();
        let first_adr = ranked.iter().position(|i| adr(&i)).unwrap();
        for read in [Invariant::UnknownRole, Invariant::Grant] {
            assert!(ranked.iter().position(|i| *i == read).unwrap() < first_adr);
        }
        let adr_ranked: Vec<Invariant> = ranked.iter().filter(adr).copied().collect();
        let adr_listed: Vec<Invariant> = BY_SECTION.iter().filter(adr).copied().collect();
        assert_eq!(adr_ranked, adr_listed);
        assert!(Invariant::Schema < Invariant::Api);
    }

    /// A rule is dispatched and reports its own fixture (`<file>.yaml`
    /// beside it, alone or over the release of `shared/release.yaml`):
    /// `check` on the fixture finds that rule's breaks, and only those; the
    /// findings and notes are the snapshot (`snapshots/`). Each rule's
    /// test is its own, written by the build script with the registry
    /// (`each_rule::<file>`), so that a new rule file has one too.
    pub(super) fn reports_its_fixture(invariant: Invariant) {
        let schemas = KubeSchemas::load(DEFAULT_VERSION).unwrap();
        let options = Options {
            schemas: &schemas,
            extra_crds: &[],
            only_version: false,
        };
        let name = format!("{}.yaml", stem(invariant));
        let set = fixture(&name);
        let report = run(&set.manifests, set.artifact(EXEMPTIONS_FILE), &options);
        assert!(!report.findings.is_empty(), "{name}: no finding");
        for finding in &report.findings {
            assert_eq!(
                finding.id(),
                Some(invariant.id()),
                "{name}: {}",
                finding.render()
            );
        }
        let text = render_text(&report.findings, &report.info, set.manifests.len());
        insta::assert_snapshot!(stem(invariant), text);
    }
}
