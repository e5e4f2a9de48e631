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

// ---------------------------------------------------------------------------
// The differential test's helpers (tests/it/differential.rs): the API
// server's own answer to one request, with its status, its Status message
// and its warnings, many requests a second, through `kubectl proxy`.

/// What the API server answered to one request.
pub struct Answer {
    /// The HTTP status (201 created, 403 forbidden, 422 invalid, ...).
    pub status: u16,
    /// The response body, as JSON (`Null` when it is none).
    pub body: serde_json::Value,
    /// The `Warning` headers' texts, in order.
    pub warnings: Vec<String>,
}

/// A `kubectl proxy` on a loopback port, stopped when dropped: plain HTTP
/// to the API server, authenticated as the test administrator.
pub struct Proxy {
    child: std::process::Child,
    port: u16,
}

impl Server {
    /// Starts `kubectl proxy` on a free loopback port.
    pub fn proxy(&self) -> Proxy {
        use std::io::BufRead as _;
        let mut child = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .args(["proxy", "--port=0", "--address=127.0.0.1"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("kubectl proxy runs");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut line)
            .expect("kubectl proxy says where it serves");
        // "Starting to serve on 127.0.0.1:PORT"
        let port = line
            .trim()
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("kubectl proxy: {line:?}"));
        Proxy { child, port }
    }
}

impl Proxy {
    /// `method path` with `body` (JSON), as HTTP/1.0: one connection per
    /// request, the answer read to its end.
    pub fn request(&self, method: &str, path: &str, body: &serde_json::Value) -> Answer {
        use std::io::Read as _;
        let body = serde_json::to_vec(body).expect("JSON");
        let mut stream =
            std::net::TcpStream::connect(("127.0.0.1", self.port)).expect("kubectl proxy accepts");
        let head = format!(
            "{method} {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).expect("request sent");
        stream.write_all(&body).expect("request sent");
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).expect("answer read");
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("an HTTP answer");
        let head = String::from_utf8_lossy(&raw[..split]).into_owned();
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no HTTP status in {head:?}"));
        let warnings = lines
            .filter_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("warning")
                    .then(|| warning_text(value.trim()))
            })
            .collect();
        let body = serde_json::from_slice(&raw[split + 4..]).unwrap_or(serde_json::Value::Null);
        Answer {
            status,
            body,
            warnings,
        }
    }
}

/// The text of a `Warning` header (`299 - "text"`), unquoted.
fn warning_text(value: &str) -> String {
    let Some(start) = value.find('"') else {
        return value.to_owned();
    };
    let mut text = String::new();
    let mut chars = value[start + 1..].chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => text.extend(chars.next()),
            '"' => break,
            c => text.push(c),
        }
    }
    text
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
