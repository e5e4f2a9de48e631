//! The real control plane of `scripts/control-plane/cluster`, for the tests
//! that ask Kubernetes itself.
//!
//! `.ci/run` starts it and exports `CHARTGEN_KUBECONFIG`; without that
//! variable these tests print one line saying so and pass, unless
//! `CHARTGEN_REQUIRE_SERVER` is set (as `.ci/run` sets it), when they fail.
//! The committed bundles use fixed namespaces, so a test that applies them
//! holds the server alone ([`Server::exclusive`]) and starts from a clean
//! slate ([`Server::reset`]); a test that only dry-runs shares it.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};

/// One test at a time applies objects for real.
static EXCLUSIVE: Mutex<()> = Mutex::new(());

/// A running control plane: its kubeconfig and the kubectl built with it.
pub struct Server {
    kubeconfig: PathBuf,
}

/// The control plane `.ci/run` started, or `None` (after a line on stderr)
/// when there is none and none is required.
pub fn server(test: &str) -> Option<Server> {
    match std::env::var_os("CHARTGEN_KUBECONFIG") {
        Some(path) if !path.is_empty() => Some(Server {
            kubeconfig: PathBuf::from(path),
        }),
        _ => {
            assert!(
                std::env::var_os("CHARTGEN_REQUIRE_SERVER").is_none(),
                "{test}: CHARTGEN_REQUIRE_SERVER is set but CHARTGEN_KUBECONFIG is not: start the control plane (scripts/control-plane/cluster up)"
            );
            eprintln!(
                "skipped {test}: no control plane (scripts/control-plane/cluster up, then source target/control-plane/env)"
            );
            None
        }
    }
}

impl Server {
    /// The kubeconfig that reaches the server as its administrator.
    pub fn kubeconfig(&self) -> &std::path::Path {
        &self.kubeconfig
    }

    /// Runs kubectl against the server, `stdin` on its standard input.
    pub fn kubectl(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut child = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .args(args)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kubectl runs (the control plane's env puts it on PATH)");
        if let Some(text) = stdin {
            child
                .stdin
                .take()
                .expect("piped stdin")
                .write_all(text.as_bytes())
                .expect("kubectl reads its input");
        }
        child.wait_with_output().expect("kubectl finishes")
    }

    /// Runs kubectl and returns its standard output, failing the test with
    /// kubectl's own words when it fails.
    pub fn kubectl_ok(&self, args: &[&str], stdin: Option<&str>) -> String {
        let output = self.kubectl(args, stdin);
        assert!(
            output.status.success(),
            "kubectl {} failed:\n{}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).expect("kubectl prints UTF-8")
    }

    /// Holds the server alone until the guard drops; a test that failed
    /// while holding it does not stop the others.
    pub fn exclusive(&self) -> MutexGuard<'static, ()> {
        EXCLUSIVE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Deletes what earlier tests applied: every namespace but the
    /// cluster's own, and the cluster-scoped objects chartgen rendered
    /// (labelled `app.kubernetes.io/managed-by=chartgen`); waits until the
    /// namespace controller has emptied them.
    pub fn reset(&self) {
        let namespaces = self.kubectl_ok(&["get", "namespaces", "-o", "name"], None);
        let ours: Vec<&str> = namespaces
            .lines()
            .filter(|name| {
                !matches!(
                    *name,
                    "namespace/default"
                        | "namespace/kube-system"
                        | "namespace/kube-public"
                        | "namespace/kube-node-lease"
                )
            })
            .collect();
        if !ours.is_empty() {
            let mut args = vec!["delete", "--wait=true", "--timeout=120s"];
            args.extend(&ours);
            self.kubectl_ok(&args, None);
        }
        for kind in [
            "clusterroles",
            "clusterrolebindings",
            "runtimeclasses",
            "customresourcedefinitions",
        ] {
            self.kubectl_ok(
                &[
                    "delete",
                    kind,
                    "-l",
                    "app.kubernetes.io/managed-by=chartgen",
                    "--wait=true",
                ],
                None,
            );
        }
    }
}
