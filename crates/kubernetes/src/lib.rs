//! The generic Kubernetes layer: usable on any manifests, whoever wrote
//! them. Positioned YAML ([`yaml`]) and its writing ([`emit`]), objects and
//! their identity ([`manifest`]), manifest sets read from disk ([`input`]),
//! Kubernetes' name rules ([`names`]), Go durations ([`duration`]), exact resource quantities
//! ([`quantity`]), label selectors ([`selector`]), Secrets kept out of every output
//! ([`secret`]) and command-line values out of every message ([`withhold`]), the API schemas and every object held to them ([`kube`]),
//! effective RBAC ([`rbac`]), the semantic diff ([`diff`]), a live cluster
//! as one of its sides ([`cluster`]) and the GitOps output directory
//! ([`output`]).
//! Beneath them the base every layer uses: positions in a source
//! ([`location`]), errors that carry them ([`diagnostic`], [`error`]), the
//! exit codes ([`exit`]), text helpers ([`text`]), reading a JSON object's
//! fields without hashing their keys ([`json`]) and the terminal's colour
//! choice ([`terminal`]).
//!
//! This crate knows no chart: it depends on neither `chart` nor the
//! command line, and Cargo enforces that (ARCHITECTURE.md, "Crates").
//!
//! # Example
//!
//! Read two versions of some manifests, none of them the chart's, and ask
//! what changed and who may do what:
//!
//! ```
//! use kubernetes::{diff, input, rbac};
//!
//! let old = input::parse("old.yaml", "\
//! apiVersion: v1
//! kind: ServiceAccount
//! metadata: {name: app, namespace: shop}
//! ").unwrap();
//! let new = input::parse("new.yaml", "\
//! apiVersion: v1
//! kind: ServiceAccount
//! metadata: {name: app, namespace: shop}
//! ---
//! apiVersion: rbac.authorization.k8s.io/v1
//! kind: Role
//! metadata: {name: reader, namespace: shop}
//! rules: [{apiGroups: [\"\"], resources: [pods], verbs: [get, list]}]
//! ---
//! apiVersion: rbac.authorization.k8s.io/v1
//! kind: RoleBinding
//! metadata: {name: app-reads, namespace: shop}
//! roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
//! subjects: [{kind: ServiceAccount, name: app, namespace: shop}]
//! ").unwrap();
//!
//! let changes = diff::diff(&old.manifests, &new.manifests, &[]);
//! assert_eq!(changes.added.len(), 2);
//! assert!(changes.removed.is_empty() && changes.changed.is_empty());
//!
//! let objects: Vec<_> = new.manifests.iter().map(|m| m.json()).collect();
//! let everyone = rbac::resolve::effective_permissions(&objects).unwrap();
//! let app = everyone.iter().find(|p| p.subject.name == "app").unwrap();
//! assert!(app.permissions.iter().any(|p| p.resource == "pods" && p.verbs == ["get", "list"]));
//! ```

pub mod api;
pub mod cidr;
pub mod cluster;
pub mod diagnostic;
pub mod diff;
pub mod duration;
pub mod emit;
pub mod error;
pub mod exit;
pub mod files;
pub mod input;
pub mod json;
pub mod kube;
pub mod location;
pub mod manifest;
pub mod metadata;
pub mod names;
pub mod output;
pub mod pod_security;
pub mod quantity;
pub mod quotable;
pub mod rbac;
pub mod regexp;
pub mod scheduling;
pub mod secret;
pub mod selector;
pub mod terminal;
pub mod text;
pub mod tree;
pub mod withhold;
pub mod yaml;

/// The crate's own test inputs, under `tests/fixtures/`: the diff cases
/// (`diff/`, one folder each, also the command line's diff snapshots) and
/// the Secret shapes (`secret-shapes/`). Its tests read no other file of
/// the repository but Kubernetes' recorded answers (`k8s-truth`).
#[cfg(test)]
pub(crate) mod fixtures {
    use std::path::{Path, PathBuf};

    /// `tests/fixtures/` of this crate.
    pub(crate) fn dir() -> &'static Path {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"))
    }

    /// Every side of every diff case, by case name: its `old.yaml` or
    /// `old/`, then its `new.yaml` or `new/`.
    pub(crate) fn diff_sides() -> Vec<PathBuf> {
        let mut cases: Vec<PathBuf> = std::fs::read_dir(dir().join("diff"))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.is_dir())
            .collect();
        cases.sort();
        let mut sides = Vec::new();
        for case in cases {
            for side in ["old.yaml", "old", "new.yaml", "new"] {
                if case.join(side).exists() {
                    sides.push(case.join(side));
                }
            }
        }
        sides
    }
}

/// From how many objects a stage splits its work over a second core
/// ([`parallel`]): below it starting a thread (and its allocator heap)
/// costs more than it saves (BENCHMARKS.md). A stage may split at any
/// size where the second core has nothing else to do, once the worker
/// runs already ([`worker_running`]). The chart's values stage (the schema
/// beside the typed reading) and its checks ask it.
pub const PARALLEL_FROM: usize = 200;

/// Whether work over `objects` objects is worth a second thread: enough of
/// them ([`PARALLEL_FROM`]), and a second core ([`second_core`]).
pub fn parallel(objects: usize) -> bool {
    objects >= PARALLEL_FROM && second_core()
}

/// Whether the process may run on more than one core. The stages that
/// split their work over two threads ask it.
pub fn second_core() -> bool {
    cores() > 1
}

/// The cores the process may run on: asked of the system once
/// (`available_parallelism` reads the cgroup's quota files on every
/// call), then remembered; 1 when it cannot tell.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Runs `here` on this thread and `there` on the process' worker, and
/// returns both results: the stages that split their work over two cores
/// call it where they would start a scoped thread. The worker is started
/// once and kept (one per further core, two at most), so the second
/// halves of every stage land in the same allocator heaps: eight threads
/// of their own each took fresh pages and filled the allocator's first
/// arena (BENCHMARKS.md). `there` starts when the worker is free (after
/// the jobs queued before it), without waiting for this thread. A panic
/// of either is raised here once both are done (when both panic, one of
/// the two). Without a worker (one core, or none could be started), or
/// called on the worker, the two may run one after the other, `here`
/// first.
///
/// So `here` must not wait for `there` unless [`overlapping`] says the
/// two run apart; `there` may wait for `here`. Nor may `here` hold a lock
/// that `there` or a job queued before it needs.
pub fn beside<A, B>(here: impl FnOnce() -> A, there: impl FnOnce() -> B + Send) -> (A, B)
where
    B: Send,
{
    let Some(pool) = pool() else {
        return (here(), there());
    };
    let mut theirs = None;
    let ours = pool.in_place_scope(|scope| {
        scope.spawn(|_| theirs = Some(there()));
        here()
    });
    (ours, theirs.expect("a scope returns once its work is done"))
}

/// Whether [`beside`] called here runs `there` apart from this thread, so
/// that `here` may wait for it: there is a worker, and this thread is not
/// one (a worker may run both halves itself, one after the other).
pub fn overlapping() -> bool {
    pool().is_some() && rayon_core::current_thread_index().is_none()
}

/// Whether the worker [`beside`] hands its second halves to is running
/// already (a stage before has started it): a stage that would not start
/// it for a small job, as starting it costs more than the job saves, may
/// hand that job to it then.
pub fn worker_running() -> bool {
    POOL.get().is_some_and(Option::is_some)
}

/// The pool [`pool`] starts once.
static POOL: std::sync::OnceLock<Option<rayon_core::ThreadPool>> = std::sync::OnceLock::new();

/// The process' workers: one per core beyond the first, at most two (no
/// stage splits its work more than twice at once); none with one core, or
/// when none can be started.
fn pool() -> Option<&'static rayon_core::ThreadPool> {
    let pool = POOL.get_or_init(|| {
        if !second_core() {
            return None;
        }
        rayon_core::ThreadPoolBuilder::new()
            .num_threads((cores() - 1).clamp(1, 2))
            .thread_name(|i| format!("worker-{i}"))
            .build()
            .ok()
    });
    pool.as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both halves run and give their results; `there` runs on a worker,
    /// `here` on the caller's thread; a worker may split its own work
    /// again (on one worker, the halves run one after the other).
    #[test]
    fn beside_runs_both_halves_and_nests() {
        let caller = std::thread::current().id();
        let (a, b) = beside(
            || {
                let on_worker = rayon_core::current_thread_index().is_some();
                (std::thread::current().id(), on_worker)
            },
            || {
                let on_worker = rayon_core::current_thread_index().is_some();
                (std::thread::current().id(), on_worker)
            },
        );
        assert_eq!(a, (caller, false));
        assert_eq!(b.1, second_core(), "the second half runs on a worker");
        assert_eq!(overlapping(), second_core());
        assert_eq!(
            worker_running(),
            second_core(),
            "a first `beside` started it"
        );
        let (sum, nested) = beside(|| (1..=100).sum::<u32>(), || beside(overlapping, || 2 + 2));
        assert_eq!((sum, nested), (5050, (false, 4)));
    }

    /// When the two run apart, `here` may wait for what `there` makes (the
    /// values' events, the templates); it never waits forever.
    #[test]
    fn here_may_wait_for_there_when_they_run_apart() {
        if !overlapping() {
            return;
        }
        let (send, receive) = std::sync::mpsc::sync_channel(0);
        let (got, ()) = beside(
            || receive.recv_timeout(std::time::Duration::from_secs(30)),
            move || send.send(7).unwrap(),
        );
        assert_eq!(got, Ok(7));
    }

    /// A panic of either half is raised to the caller, with its own
    /// payload, once both are done, and the worker serves the next call.
    #[test]
    fn beside_raises_a_half_s_panic() {
        for there_panics in [true, false] {
            let done = std::sync::atomic::AtomicBool::new(false);
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                beside(
                    || {
                        if !there_panics {
                            std::panic::panic_any("here");
                        }
                    },
                    || {
                        done.store(true, std::sync::atomic::Ordering::SeqCst);
                        if there_panics {
                            std::panic::panic_any("there");
                        }
                    },
                )
            }));
            let payload = result.expect_err("a half panicked");
            let said = payload.downcast_ref::<&str>().copied().unwrap_or_default();
            assert_eq!(said, if there_panics { "there" } else { "here" });
            // With a worker, both halves ran; without, `there` runs after
            // `here`, so not after `here` panicked.
            let done = done.load(std::sync::atomic::Ordering::SeqCst);
            assert_eq!(done, there_panics || overlapping());
        }
        assert_eq!(beside(|| 1, || 2), (1, 2));
    }
}
