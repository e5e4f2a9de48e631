//! What the GitOps tools that apply the bundles may delete, and in what
//! order they apply: the one home of the Argo CD and Flux annotations.
//!
//! The Namespaces and the BuildProject CRD hold the state: deleting a
//! Namespace deletes everything in it (the daemons' Secrets, what buildd
//! made), deleting the CRD deletes every BuildProject of the cluster, in
//! every namespace. A GitOps application that is deleted or renamed, or a
//! render that no longer holds them (a bad merge, a renamed namespace),
//! would delete them. With `gitops.protect` (on by default) they carry:
//!
//! - Argo CD's `argocd.argoproj.io/sync-options: Prune=false,Delete=false`
//!   ("No Prune Resources": not pruned when missing from the source; "No
//!   Resource Deletion": kept when the Application is deleted);
//! - Flux's `kustomize.toolkit.fluxcd.io/prune: disabled` (kustomize-
//!   controller skips it in garbage collection, which also runs when the
//!   Kustomization is deleted).
//!
//! The BuildProjects carry Argo CD's `Delete=false` only: kept when the
//! Application is deleted or renamed, still pruned when a project leaves
//! the values. Flux has no per-object mark with that meaning (its prune
//! mark keeps an object in both cases); its Kustomization's
//! `deletionPolicy: Orphan` does it for the whole bundle
//! (`examples/flux/kustomizations.yaml`).
//!
//! Order: Argo CD applies wave by wave (`argocd.argoproj.io/sync-wave`,
//! lower first, waiting for each wave to be healthy), so the Namespaces
//! and the CRD go one wave before everything else: `-1`, or one before
//! the wave the common annotations give every object. Flux's
//! kustomize-controller applies CRDs, Namespaces and ClusterRoles of a
//! Kustomization first and waits for them (its staged apply), so a bundle
//! folder needs no split; the bundles' order is the Kustomizations'
//! `dependsOn`.

use std::collections::BTreeMap;

/// Argo CD's per-resource sync options, comma-separated.
pub const ARGOCD_SYNC_OPTIONS: &str = "argocd.argoproj.io/sync-options";
/// Argo CD's sync wave: an integer, lower waves applied first; 0 unset.
pub const ARGOCD_SYNC_WAVE: &str = "argocd.argoproj.io/sync-wave";
/// Flux kustomize-controller's prune policy, as a label or annotation.
pub const FLUX_PRUNE: &str = "kustomize.toolkit.fluxcd.io/prune";
/// The value of [`FLUX_PRUNE`] with which Flux never deletes the object.
pub const FLUX_PRUNE_DISABLED: &str = "disabled";
/// Argo CD's option: not pruned when missing from the source.
pub const ARGOCD_NO_PRUNE: &str = "Prune=false";
/// Argo CD's option: kept when the Application is deleted.
pub const ARGOCD_NO_DELETE: &str = "Delete=false";

/// The part an object plays for the GitOps tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A Namespace or the CRD: applied first, never deleted by the tool.
    Foundation,
    /// A BuildProject: kept when the application is deleted, pruned when
    /// the values drop it.
    Project,
}

/// Adds the GitOps annotations of `role` to `annotations` (the common
/// ones, `common` the values' common annotations, which set the wave of
/// every other object). Sync options already there (from the common
/// annotations) are kept, but for `Prune`/`Delete` ones the protection
/// replaces.
pub fn annotate(
    annotations: &mut BTreeMap<String, String>,
    common: &BTreeMap<String, String>,
    role: Role,
    protect: bool,
) {
    let own: &[&str] = match (role, protect) {
        (_, false) => &[],
        (Role::Foundation, true) => &[ARGOCD_NO_PRUNE, ARGOCD_NO_DELETE],
        (Role::Project, true) => &[ARGOCD_NO_DELETE],
    };
    if role == Role::Foundation {
        annotations.insert(ARGOCD_SYNC_WAVE.to_owned(), foundation_wave(common));
        if protect {
            annotations.insert(FLUX_PRUNE.to_owned(), FLUX_PRUNE_DISABLED.to_owned());
        }
    }
    if own.is_empty() {
        return;
    }
    let replaced = |option: &str| {
        own.iter()
            .any(|o| option.split('=').next() == o.split('=').next())
    };
    let mut options: Vec<String> = annotations
        .get(ARGOCD_SYNC_OPTIONS)
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|o| !o.is_empty() && !replaced(o))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    options.extend(own.iter().map(|o| (*o).to_owned()));
    annotations.insert(ARGOCD_SYNC_OPTIONS.to_owned(), options.join(","));
}

/// The wave of the Namespaces and the CRD: one before the wave every other
/// object is in (the common annotations' wave, else Argo CD's 0).
fn foundation_wave(common: &BTreeMap<String, String>) -> String {
    let others = common
        .get(ARGOCD_SYNC_WAVE)
        .and_then(|w| w.trim().parse::<i64>().ok())
        .unwrap_or(0);
    others.saturating_sub(1).to_string()
}

/// Whether Argo CD keeps an object with these annotations when its
/// Application is deleted (a `Delete=false` sync option).
pub fn argocd_keeps_on_delete(annotations: &BTreeMap<String, String>) -> bool {
    has_option(annotations, ARGOCD_NO_DELETE)
}

/// Whether Argo CD keeps an object with these annotations when a sync
/// prunes it (a `Prune=false` sync option).
pub fn argocd_keeps_on_prune(annotations: &BTreeMap<String, String>) -> bool {
    has_option(annotations, ARGOCD_NO_PRUNE)
}

/// Whether Flux keeps an object with these labels or annotations in its
/// garbage collection (`kustomize.toolkit.fluxcd.io/prune: disabled`; the
/// controller compares the value ignoring case).
pub fn flux_keeps(marks: &BTreeMap<String, String>) -> bool {
    marks
        .get(FLUX_PRUNE)
        .is_some_and(|v| v.eq_ignore_ascii_case(FLUX_PRUNE_DISABLED))
}

fn has_option(annotations: &BTreeMap<String, String>, option: &str) -> bool {
    annotations
        .get(ARGOCD_SYNC_OPTIONS)
        .is_some_and(|v| v.split(',').any(|o| o.trim() == option))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn a_foundation_is_kept_by_both_tools_and_applied_first() {
        let mut a = BTreeMap::new();
        annotate(&mut a, &BTreeMap::new(), Role::Foundation, true);
        assert_eq!(a[ARGOCD_SYNC_OPTIONS], "Prune=false,Delete=false");
        assert_eq!(a[FLUX_PRUNE], "disabled");
        assert_eq!(a[ARGOCD_SYNC_WAVE], "-1");
        assert!(argocd_keeps_on_delete(&a) && argocd_keeps_on_prune(&a) && flux_keeps(&a));
    }

    #[test]
    fn a_project_is_kept_on_deletion_but_pruned_when_dropped() {
        let mut a = BTreeMap::new();
        annotate(&mut a, &BTreeMap::new(), Role::Project, true);
        assert_eq!(a, map(&[(ARGOCD_SYNC_OPTIONS, "Delete=false")]));
        assert!(argocd_keeps_on_delete(&a));
        assert!(!argocd_keeps_on_prune(&a) && !flux_keeps(&a));
    }

    #[test]
    fn without_protection_only_the_order_is_written() {
        let mut a = BTreeMap::new();
        annotate(&mut a, &BTreeMap::new(), Role::Foundation, false);
        assert_eq!(a, map(&[(ARGOCD_SYNC_WAVE, "-1")]));
        let mut p = BTreeMap::new();
        annotate(&mut p, &BTreeMap::new(), Role::Project, false);
        assert!(p.is_empty());
    }

    #[test]
    fn common_sync_options_are_kept_and_the_wave_stays_before_the_common_one() {
        let common = map(&[
            (ARGOCD_SYNC_OPTIONS, "ServerSideApply=true, Prune=confirm"),
            (ARGOCD_SYNC_WAVE, "-10"),
        ]);
        let mut a = common.clone();
        annotate(&mut a, &common, Role::Foundation, true);
        assert_eq!(
            a[ARGOCD_SYNC_OPTIONS],
            "ServerSideApply=true,Prune=false,Delete=false"
        );
        assert_eq!(a[ARGOCD_SYNC_WAVE], "-11");
    }

    #[test]
    fn flux_reads_its_mark_ignoring_case() {
        assert!(flux_keeps(&map(&[(FLUX_PRUNE, "Disabled")])));
        assert!(!flux_keeps(&map(&[(FLUX_PRUNE, "enabled")])));
    }
}
