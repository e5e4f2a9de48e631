//! What a change will do once applied: the impact summary beside the field
//! changes. Generic: it knows Kubernetes (and Kyverno's and cert-manager's
//! public shapes), never one chart.
//!
//! Each [`Impact`] has a [`Class`] (what kind of consequence), a [`Level`]
//! (how much it matters, what a gate compares), the object and one line
//! saying why. The classes, each in a file of its own:
//!
//! - [`immutable`]: a field the API server refuses to change: the apply
//!   fails, the object must be deleted and created again (`refused`);
//! - [`deletion`]: an object whose deletion deletes or breaks others (a
//!   Namespace, a CRD or one of its served versions, a bound
//!   ServiceAccount, a PersistentVolumeClaim) (`destructive`);
//! - [`security`]: effective permissions gained (`security`) or lost
//!   (`change`), by [`crate::rbac`]'s model, a workload's pods
//!   running as a ServiceAccount that may do more, rules reaching the
//!   built-in `view`/`edit`/`admin` roles through aggregation (`security`);
//!   [`pods`]: a pod that needs a weaker Pod Security level or breaks a
//!   control anew, by the Pod Security model (`security`);
//!   [`policies`]: Pod Security labels, Kyverno rules and NetworkPolicies
//!   that enforce less, a hostPath volume bound into a namespace
//!   (`security`);
//! - [`workload`]: a new pod template, so the pods are replaced, and why
//!   (`restart`; DaemonSets with host access called out);
//! - [`rename`]: an object removed and one added with the same content
//!   under another name or namespace, shown as one rename (delete + create);
//! - [`invalid`]: an object added or changed that the API server refuses
//!   on its own, by its schema or an API rule (`api::refused`); against a
//!   live cluster the server's own answer (`rejected`) stands instead;
//! - `rejected`: against a live cluster, the server's own refusal of a
//!   dry-run apply (`refused`), added by [`Diff::reject`].
//! - [`schema`]: a CRD's schema that narrows (a field required, an enum,
//!   pattern or bound tighter): stored custom resources that no longer fit
//!   are refused on their next update (`destructive`).
//!
//! Every pass is linear in the two sets: objects are looked up by key or
//! hash, never compared pairwise.

mod deletion;
mod immutable;
mod invalid;
pub(crate) mod pods;
pub(crate) mod policies;
#[cfg(test)]
mod property;
mod rename;
mod schema;
mod security;
mod tree;
mod workload;

use serde::Serialize;

use super::{Diff, Ignore, ObjectChange};
use crate::manifest::Manifest;

pub(crate) use immutable::may_refuse_unchanged;
pub(crate) use security::{Held, PermissionChange, PermissionModel};
pub(crate) use workload::pod_spec;

/// How much an impact matters, from least to most. A gate on a level
/// fails on an impact at that level or above; any difference at all is
/// at least `change`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// A difference with no consequence listed here beyond itself
    /// (renames, permissions lost, a CronJob's next runs).
    Change,
    /// Pods are replaced: a rollout.
    Restart,
    /// Someone or something may do more than before.
    Security,
    /// Deleting an object deletes or breaks others.
    Destructive,
    /// The API server refuses the apply: the object must be recreated.
    Refused,
}

impl Level {
    /// Its name, as in the JSON and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Level::Change => "change",
            Level::Restart => "restart",
            Level::Security => "security",
            Level::Destructive => "destructive",
            Level::Refused => "refused",
        }
    }
}

/// What kind of consequence an impact is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// An immutable field changes.
    Immutable,
    /// A deletion that takes or breaks other objects.
    Deletion,
    /// Permissions, admission policy or a workload's privileges.
    Security,
    /// A new pod template.
    Restart,
    /// The same object under another name or namespace.
    Rename,
    /// The API server rejected a dry run of the object (a diff against a
    /// live cluster): invalid, or forbidden by admission.
    Rejected,
    /// The API server would refuse the new object on its own: its schema
    /// or an API rule, read as the API server reads them.
    Invalid,
    /// A CRD's schema that narrows: stored custom resources may no longer
    /// fit it.
    Schema,
}

/// One consequence of applying the new set over the old one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Impact {
    /// How much it matters.
    pub level: Level,
    /// What kind of consequence.
    pub class: Class,
    /// The object, as `Kind namespace/name` (for a rename: the new one).
    pub object: String,
    /// For a rename: the old object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Why, in one line.
    pub why: String,
}

impl Impact {
    fn new(level: Level, class: Class, object: &Manifest, why: String) -> Self {
        Impact {
            level,
            class,
            object: object.id.to_string(),
            from: None,
            why,
        }
    }
}

/// The objects of both sets, borrowed, parted as the diff matched them by
/// identity: removed, added, changed, kept.
#[derive(Default)]
pub(crate) struct Partition<'a> {
    /// Only in the old set, in the order of [`Diff::removed`].
    pub(crate) removed: Vec<&'a Manifest>,
    /// Only in the new set, in the order of [`Diff::added`].
    pub(crate) added: Vec<&'a Manifest>,
    /// In both and different (old, new), in the order of [`Diff::changed`].
    pub(crate) changed: Vec<(&'a Manifest, &'a Manifest)>,
    /// In both and the same, of the kinds whose update may be refused
    /// though nothing changes ([`immutable::may_refuse_unchanged`]).
    pub(crate) kept: Vec<(&'a Manifest, &'a Manifest)>,
}

/// The two whole sets.
#[derive(Clone, Copy)]
pub(crate) struct Sets<'a> {
    pub(crate) old: &'a [Manifest],
    pub(crate) new: &'a [Manifest],
    /// The minor Kubernetes version whose Pod Security rules apply.
    pub(crate) minor: u32,
    /// What the new set declares to the server's defaults, read once for
    /// the diff; `None` where a caller has none (read again when asked).
    pub(crate) declared: Option<&'a crate::diff::defaults::Declared<'a>>,
}

/// Fills `diff.impact`, and takes the renamed objects out of
/// `diff.added`/`diff.removed` (a rename is shown once, as a rename).
pub(crate) fn assess(
    diff: &mut Diff,
    matched: &Partition<'_>,
    sets: Sets<'_>,
    permissions: &PermissionModel,
    ignore: &[Ignore],
) {
    let mut out = Vec::new();
    for ((before, after), change) in matched.changed.iter().zip(&diff.changed) {
        changed_object(before, after, change, sets, &mut out);
        security::identity(before, after, permissions, &mut out);
    }
    for &(before, after) in &matched.kept {
        immutable::empty_map(before, after, &[], &mut out);
    }
    deletion::removed(&matched.removed, sets, &mut out);
    policies::removed(&matched.removed, &mut out);
    let renames = rename::renames(&matched.removed, &matched.added, ignore);
    // A renamed object brings nothing new: its old self had it all.
    let renamed: std::collections::HashSet<usize> = renames.iter().map(|&(_, a)| a).collect();
    let new: Vec<&Manifest> = (matched.added.iter().enumerate())
        .filter(|(a, _)| !renamed.contains(a))
        .map(|(_, m)| *m)
        .collect();
    security::added(&new, &mut out);
    for object in &new {
        pods::pods(None, object, sets.minor, &mut out);
    }
    let bound: Vec<&Manifest> = (new.iter().copied())
        .chain(matched.changed.iter().map(|&(_, after)| after))
        .collect();
    policies::host_path_volumes(&bound, sets.new, &mut out);
    invalid::refused(&matched.added, &matched.changed, sets, &mut out);
    security::permissions(&permissions.changes, &mut out);
    security::unknown(permissions, &matched.added, &matched.changed, &mut out);
    if !renames.is_empty() {
        let (gone, came): (Vec<usize>, Vec<usize>) = renames.iter().copied().unzip();
        for &(r, a) in &renames {
            out.push(rename::impact(matched.removed[r], matched.added[a]));
        }
        retain_others(&mut diff.removed, &gone);
        retain_others(&mut diff.added, &came);
    }
    diff.impact = out;
    sort(&mut diff.impact);
}

/// The impact of the objects a map matched, each pair (old, new) with
/// its identity as read: for the cluster another object, so a deletion
/// and a creation ([`rename::replaced`]), the old object's deletion taking
/// or breaking what a removal would ([`deletion::deleted`]). `sets` hold
/// the old objects under their identities as read.
pub(crate) fn mapped(pairs: &[(&Manifest, &Manifest)], sets: Sets<'_>) -> Vec<Impact> {
    let mut out = Vec::new();
    if pairs.is_empty() {
        return out;
    }
    let namespaces = (pairs.iter())
        .filter(|(old, _)| tree::is(old, "", "Namespace"))
        .map(|(old, _)| old.id.name.as_str())
        .collect();
    let contents = deletion::kinds_in(sets.old, &namespaces);
    let users = deletion::references(sets.new);
    for (old, new) in pairs {
        let how = "matched by a map, another object for the cluster";
        let (level, why) = rename::replaced(old, new, how);
        out.push(Impact {
            level,
            class: Class::Rename,
            object: new.id.to_string(),
            from: Some(old.id.to_string()),
            why,
        });
        if let Some(why) = deletion::deleted(old, sets, &contents, &users) {
            let why = format!("deleted, as a map matched it with {}: {why}", new.id);
            out.push(Impact::new(Level::Destructive, Class::Deletion, old, why));
        }
    }
    out
}

/// What one changed object's field changes do.
fn changed_object(
    before: &Manifest,
    after: &Manifest,
    change: &ObjectChange,
    sets: Sets<'_>,
    out: &mut Vec<Impact>,
) {
    immutable::refused(before, after, &change.fields, sets, out);
    immutable::empty_map(before, after, &change.fields, out);
    workload::restart(after, &change.fields, out);
    security::changed(before, after, &change.fields, out);
    pods::pods(Some(before), after, sets.minor, out);
    policies::changed(before, after, out);
    deletion::changed(before, after, out);
    schema::narrowed(before, after, out);
}

/// `list` without the items at `indexes`.
fn retain_others(list: &mut Vec<String>, indexes: &[usize]) {
    let drop: std::collections::HashSet<usize> = indexes.iter().copied().collect();
    let mut i = 0;
    list.retain(|_| {
        i += 1;
        !drop.contains(&(i - 1))
    });
}

/// Most severe first; then by class, object and why, so the order is
/// stable whatever the input order.
pub(crate) fn sort(impact: &mut [Impact]) {
    impact.sort_by(|a, b| {
        b.level
            .cmp(&a.level)
            .then(a.class.cmp(&b.class))
            .then_with(|| a.object.cmp(&b.object))
            .then_with(|| a.why.cmp(&b.why))
    });
}

/// The whys of the impacts of `class` that `diff` finds from the YAML
/// stream `old` to `new`: what the classes' tests read.
#[cfg(test)]
pub(super) fn whys(old: &str, new: &str, class: Class) -> Vec<String> {
    let old = crate::input::parse("old.yaml", old).unwrap().manifests;
    let new = crate::input::parse("new.yaml", new).unwrap().manifests;
    (super::diff(&old, &new, &[]).impact.into_iter())
        .filter(|i| i.class == class)
        .map(|i| i.why)
        .collect()
}

/// At most this many items of a list are named in a why.
const NAMED: usize = 6;

/// `a, b, c` or `a, b, c, … and 4 more`: a why stays one short line
/// whatever the input.
pub fn listed<S: AsRef<str>>(items: &[S]) -> String {
    let shown: Vec<&str> = items.iter().take(NAMED).map(AsRef::as_ref).collect();
    let mut text = shown.join(", ");
    if items.len() > NAMED {
        text += &format!(" and {} more", items.len() - NAMED);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The levels order as documented, and each is named in the JSON as on
    /// the command line.
    #[test]
    fn levels_order_and_names() {
        let all = [
            Level::Change,
            Level::Restart,
            Level::Security,
            Level::Destructive,
            Level::Refused,
        ];
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        for level in all {
            assert_eq!(serde_json::to_value(level).unwrap(), level.name());
        }
    }

    #[test]
    fn lists_in_a_why_are_clipped() {
        let many: Vec<String> = (0..100).map(|i| i.to_string()).collect();
        assert_eq!(listed(&many), "0, 1, 2, 3, 4, 5 and 94 more");
        assert_eq!(listed(&["a", "b"]), "a, b");
    }
}
