//! The real control plane of `scripts/control-plane/cluster`, for the tests
//! that ask Kubernetes itself.
//!
//! `.ci/run` starts it and exports `CHARTGEN_KUBECONFIG`; without that
//! variable these tests print one line saying so and pass, unless
//! `CHARTGEN_REQUIRE_SERVER` is set (as `.ci/run` sets it), when they fail.
//! They are slow: they run under `CHARTGEN_SLOW=1` only (as `.ci/run` sets
//! it; recording with `CHARTGEN_RECORD=1` needs it too).
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
    if !crate::tools::slow("the control plane") {
        return None;
    }
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
        // A namespace an earlier reset deleted may finish going between the
        // listing and the delete: gone is what is asked.
        if !ours.is_empty() {
            let mut args = vec!["delete", "--ignore-not-found", "--wait=false"];
            args.extend(&ours);
            self.kubectl_ok(&args, None);
        }
        // Meanwhile the cluster-scoped objects chartgen rendered, in one
        // request each kind.
        self.kubectl_ok(
            &[
                "delete",
                "clusterroles,clusterrolebindings,runtimeclasses,customresourcedefinitions",
                "-l",
                "app.kubernetes.io/managed-by=chartgen",
                "--wait=true",
                "--timeout=120s",
            ],
            None,
        );
        if !ours.is_empty() {
            let mut args = vec!["wait", "--for=delete", "--timeout=120s"];
            args.extend(&ours);
            self.kubectl_ok(&args, None);
        }
        // A ServiceCIDR an earlier test added (the diff-server's cases)
        // changes which addresses a Service may ask for, and more while it
        // is deleted, which a test that deleted it did not wait for: only
        // the cluster's own (`kubernetes`) stays, gone before the next test.
        let cidrs = self.kubectl_ok(&["get", "servicecidrs", "-o", "name"], None);
        let added: Vec<&str> = (cidrs.lines())
            .filter(|name| *name != "servicecidr.networking.k8s.io/kubernetes")
            .collect();
        if !added.is_empty() {
            let mut args = vec![
                "delete",
                "--ignore-not-found",
                "--wait=true",
                "--timeout=120s",
            ];
            args.extend(&added);
            self.kubectl_ok(&args, None);
        }
    }
}

/// How long any one wait on the server may take before the test fails.
pub const WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Where the API server is and how the administrator reaches it.
struct Api {
    server: String,
    ca: String,
    token: String,
}

/// What `kubectl apply` said: the objects it applied, and the warnings the
/// server returned (Pod Security's `would violate PodSecurity`, deprecated
/// APIs), one per line.
#[derive(Debug, Default)]
pub struct Applied {
    /// `kind.group/name serverside-applied`, one per object.
    pub applied: Vec<String>,
    /// What the server said of each object it refused
    /// ([`Server::apply_each`]; the others refuse nothing).
    pub refused: Vec<String>,
    /// The lines of standard error starting with `Warning:`.
    pub warnings: Vec<String>,
}

impl Server {
    /// The folder of cert-manager's CRDs (`scripts/control-plane/cluster
    /// crds`: from the Go module cache, after one download).
    pub fn crds(&self) -> PathBuf {
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/control-plane/cluster");
        // The script's state folder is the one holding the kubeconfig
        // (`$CHARTGEN_CONTROL_PLANE_DIR/kubeconfig`), unless set.
        let mut command = Command::new(&script);
        command.arg("crds");
        if let (None, Some(state)) = (
            std::env::var_os("CHARTGEN_CONTROL_PLANE_DIR"),
            self.kubeconfig().parent(),
        ) {
            command.env("CHARTGEN_CONTROL_PLANE_DIR", state);
        }
        let folder = crate::harness::stdout_of(&mut command, "scripts/control-plane/cluster crds");
        PathBuf::from(String::from_utf8(folder).unwrap().trim())
    }

    /// Applies cert-manager's CRDs (server-side) and waits until they are
    /// established: the bundles hold Certificates.
    pub fn apply_crds(&self) {
        let folder = self.crds();
        let folder = folder.to_str().unwrap();
        self.kubectl_ok(
            &["apply", "--server-side", "--force-conflicts", "-f", folder],
            None,
        );
        self.kubectl_ok(
            &[
                "wait",
                "--for=condition=established",
                "--timeout=60s",
                "-f",
                folder,
            ],
            None,
        );
    }

    /// Waits until every CustomResourceDefinition is established (its
    /// kind served), for at most a minute.
    pub fn wait_crds_established(&self) {
        self.kubectl_ok(
            &[
                "wait",
                "--for=condition=Established",
                "crd",
                "--all",
                "--timeout=60s",
            ],
            None,
        );
    }

    /// Applies `objects` server-side as `field_manager`, as a GitOps tool
    /// does: first the CustomResourceDefinitions and Namespaces (with a
    /// Namespace for every namespace an object names that the objects do
    /// not declare), until the CRDs are established, then everything.
    /// Fails the test when the server refuses anything.
    pub fn apply_objects(&self, objects: &[serde_json::Value], field_manager: &str) -> Applied {
        if !objects
            .iter()
            .any(|o| o["kind"] == "CustomResourceDefinition")
        {
            // Without CRDs one request list does: kubectl applies its items
            // in order, the Namespaces first.
            let mut all = first_stage(objects);
            let count = all.len();
            all.extend(objects.iter().filter(|o| o["kind"] != "Namespace").cloned());
            let mut applied = self.apply_list(&all, field_manager);
            let declared = objects.iter().filter(|o| o["kind"] == "Namespace").count();
            // The Namespaces added for names the objects only use are not
            // the caller's.
            applied.applied.drain(declared..count);
            return applied;
        }
        let mut warnings = self.apply_first_stage(objects, field_manager);
        let mut all = self.apply_list(objects, field_manager);
        warnings.append(&mut all.warnings);
        all.warnings = warnings;
        all
    }

    /// The first stage of [`Server::apply_objects`]: the CRDs and
    /// Namespaces of `objects` (and those they name) applied, the CRDs
    /// established. Returns the server's warnings.
    pub fn apply_first_stage(
        &self,
        objects: &[serde_json::Value],
        field_manager: &str,
    ) -> Vec<String> {
        let first: Vec<serde_json::Value> = first_stage(objects);
        if first.is_empty() {
            return Vec::new();
        }
        let stage = self.apply_list(&first, field_manager);
        let crds: Vec<String> = first
            .iter()
            .filter(|o| o["kind"] == "CustomResourceDefinition")
            .map(|o| format!("crd/{}", o["metadata"]["name"].as_str().unwrap()))
            .collect();
        if !crds.is_empty() {
            let mut args = vec!["wait", "--for=condition=established", "--timeout=60s"];
            args.extend(crds.iter().map(String::as_str));
            self.kubectl_ok(&args, None);
        }
        stage.warnings
    }

    /// Applies `objects` server-side in one request list, as
    /// `field_manager`, taking over fields another test's manager left
    /// (`--force-conflicts`); fails the test when the server refuses one.
    pub fn apply_list(&self, objects: &[serde_json::Value], field_manager: &str) -> Applied {
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": objects});
        let output = self.apply_text(&list.to_string(), field_manager);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "the server refused objects:\n{stderr}"
        );
        Applied {
            applied: String::from_utf8_lossy(&output.stdout)
                .lines()
                .map(str::to_owned)
                .collect(),
            refused: Vec::new(),
            warnings: warnings(&stderr),
        }
    }

    /// `kubectl apply` of `text`, server-side, taking the fields other
    /// managers hold, as `field_manager`.
    fn apply_text(&self, text: &str, field_manager: &str) -> Output {
        self.kubectl(
            &[
                "apply",
                "--server-side",
                "--force-conflicts",
                "--field-manager",
                field_manager,
                "-f",
                "-",
            ],
            Some(text),
        )
    }

    /// Applies `objects` one by one (server-side, taking the fields other
    /// managers hold, as [`Server::apply_list`]), the Namespaces first:
    /// an object the server refuses is noted, not a failure.
    pub fn apply_each(&self, objects: &[serde_json::Value], field_manager: &str) -> Applied {
        let mut all = first_stage(objects);
        all.extend(objects.iter().filter(|o| o["kind"] != "Namespace").cloned());
        let mut applied = Applied::default();
        for object in &all {
            let output = self.apply_text(&object.to_string(), field_manager);
            let stderr = String::from_utf8_lossy(&output.stderr);
            applied.warnings.extend(warnings(&stderr));
            match output.status.success() {
                true => applied.applied.extend(
                    String::from_utf8_lossy(&output.stdout)
                        .lines()
                        .map(str::to_owned),
                ),
                false => applied.refused.push(stderr.trim().to_owned()),
            }
        }
        applied
    }

    /// Deletes every Role, RoleBinding, ClusterRole and ClusterRoleBinding
    /// that is not one of the cluster's defaults (those labelled
    /// `kubernetes.io/bootstrapping`): between RBAC sets, faster than
    /// [`Server::reset`] (namespaces left behind grant nothing).
    pub fn reset_rbac(&self) {
        self.kubectl_ok(
            &[
                "delete",
                "roles,rolebindings,clusterroles,clusterrolebindings",
                "--all-namespaces",
                "-l",
                "!kubernetes.io/bootstrapping",
                "--wait=true",
                "--timeout=60s",
            ],
            None,
        );
    }

    /// The SelfSubjectRulesReview of `user` (impersonated: a
    /// `system:serviceaccount:NS:NAME` user gets its groups, as with
    /// `kubectl --as`) in each of `namespaces`, by namespace: what
    /// `kubectl auth can-i --list` prints. One curl for them all (kubectl
    /// takes a process and its discovery per request).
    pub fn rules_reviews<'a>(
        &self,
        user: &str,
        namespaces: impl IntoIterator<Item = &'a str>,
    ) -> std::collections::BTreeMap<String, serde_json::Value> {
        let api = self.api();
        let url = format!(
            "{}/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
            api.server
        );
        let mut args: Vec<String> = Vec::new();
        let mut asked: Vec<&str> = Vec::new();
        for namespace in namespaces {
            if !asked.is_empty() {
                args.push("--next".into());
            }
            asked.push(namespace);
            let body = serde_json::json!({
                "apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview",
                "spec": {"namespace": namespace},
            });
            args.extend([
                "-sS".into(),
                "--fail-with-body".into(),
                "--cacert".into(),
                api.ca.clone(),
                "-H".into(),
                format!("Authorization: Bearer {}", api.token),
                "-H".into(),
                format!("Impersonate-User: {user}"),
                "-H".into(),
                "Content-Type: application/json".into(),
                "-d".into(),
                body.to_string(),
                url.clone(),
            ]);
        }
        let output = Command::new("curl")
            .args(&args)
            .output()
            .expect("curl runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "SelfSubjectRulesReview as {user}: {}{stdout}",
            String::from_utf8_lossy(&output.stderr)
        );
        // The server does not echo the spec: the answers come in the
        // order of the requests.
        let reviews: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&stdout)
            .into_iter::<serde_json::Value>()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            reviews.len(),
            asked.len(),
            "SelfSubjectRulesReview as {user}: {stdout}"
        );
        asked
            .into_iter()
            .zip(reviews)
            .map(|(namespace, review)| (namespace.to_owned(), review["status"].clone()))
            .collect()
    }

    /// The API server's address, CA file and token, from the kubeconfig.
    fn api(&self) -> &Api {
        static API: std::sync::OnceLock<Api> = std::sync::OnceLock::new();
        API.get_or_init(|| {
            let config: serde_json::Value = serde_json::from_str(
                &self.kubectl_ok(&["config", "view", "--raw", "--minify", "-o", "json"], None),
            )
            .unwrap();
            let cluster = &config["clusters"][0]["cluster"];
            Api {
                server: cluster["server"].as_str().unwrap().to_owned(),
                ca: cluster["certificate-authority"]
                    .as_str()
                    .expect("the kubeconfig names its CA file")
                    .to_owned(),
                token: config["users"][0]["user"]["token"]
                    .as_str()
                    .expect("the kubeconfig holds a token")
                    .to_owned(),
            }
        })
    }

    /// Waits until the ClusterRole aggregation controller has caught up:
    /// every ClusterRole with an `aggregationRule` holds exactly the rules
    /// of the other ClusterRoles its selectors match (the controller's
    /// union), chains and cycles included, or its own when they hold none.
    /// Fails after [`WAIT`].
    pub fn wait_aggregated(&self) {
        let start = std::time::Instant::now();
        loop {
            let roles: serde_json::Value = serde_json::from_str(
                &self.kubectl_ok(&["get", "clusterroles", "-o", "json"], None),
            )
            .unwrap();
            let behind = behind_aggregation(roles["items"].as_array().unwrap());
            if behind.is_empty() {
                return;
            }
            assert!(
                start.elapsed() < WAIT,
                "the ClusterRole aggregation controller did not aggregate {behind:?} within {WAIT:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    /// The server's version, `v1.35.4`.
    pub fn version(&self) -> String {
        let version: serde_json::Value =
            serde_json::from_str(&self.kubectl_ok(&["version", "-o", "json"], None)).unwrap();
        version["serverVersion"]["gitVersion"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

/// The lines of kubectl's standard error that carry a warning of the
/// server (`Warning: …`).
pub fn warnings(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|l| l.starts_with("Warning:"))
        .map(str::to_owned)
        .collect()
}

/// The CRDs and Namespaces of `objects`, and a Namespace for every other
/// namespace they name (but the cluster's own).
fn first_stage(objects: &[serde_json::Value]) -> Vec<serde_json::Value> {
    let mut first: Vec<serde_json::Value> = objects
        .iter()
        .filter(|o| o["kind"] == "CustomResourceDefinition" || o["kind"] == "Namespace")
        .cloned()
        .collect();
    let mut named: Vec<&str> = objects
        .iter()
        .filter_map(|o| o["metadata"]["namespace"].as_str())
        .collect();
    named.sort_unstable();
    named.dedup();
    for namespace in named {
        let declared = first
            .iter()
            .any(|o| o["kind"] == "Namespace" && o["metadata"]["name"] == namespace);
        if !declared && !matches!(namespace, "default" | "kube-system" | "kube-public") {
            first.push(serde_json::json!({
                "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace},
            }));
        }
    }
    first
}

/// Whether `labels` match a label selector (`matchLabels` and
/// `matchExpressions`; an empty selector matches everything).
pub fn selects(selector: &serde_json::Value, labels: &serde_json::Value) -> bool {
    let label = |key: &str| labels.get(key).and_then(serde_json::Value::as_str);
    let by_labels = selector["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .all(|(k, v)| label(k) == v.as_str());
    let by_expressions = selector["matchExpressions"]
        .as_array()
        .into_iter()
        .flatten()
        .all(|e| {
            let key = e["key"].as_str().unwrap_or_default();
            let values: Vec<&str> = e["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(serde_json::Value::as_str)
                .collect();
            match e["operator"].as_str().unwrap_or_default() {
                "In" => label(key).is_some_and(|v| values.contains(&v)),
                "NotIn" => label(key).is_none_or(|v| !values.contains(&v)),
                "Exists" => label(key).is_some(),
                "DoesNotExist" => label(key).is_none(),
                _ => false,
            }
        });
    by_labels && by_expressions
}

/// The aggregated ClusterRoles whose rules are not yet the union of the
/// rules of the other ClusterRoles their selectors match.
fn behind_aggregation(roles: &[serde_json::Value]) -> Vec<String> {
    let rules = |role: &serde_json::Value| -> std::collections::BTreeSet<String> {
        role["rules"]
            .as_array()
            .into_iter()
            .flatten()
            .map(ToString::to_string)
            .collect()
    };
    let mut behind = Vec::new();
    for role in roles {
        let Some(selectors) = role["aggregationRule"]["clusterRoleSelectors"].as_array() else {
            continue;
        };
        let name = &role["metadata"]["name"];
        let mut want = std::collections::BTreeSet::new();
        for other in roles.iter().filter(|o| &o["metadata"]["name"] != name) {
            let labels = &other["metadata"]["labels"];
            if selectors.iter().any(|s| selects(s, labels)) {
                want.extend(rules(other));
            }
        }
        // Gathering no rule, the controller applies none and leaves the
        // role's own as they were written.
        if !want.is_empty() && rules(role) != want {
            behind.push(name.as_str().unwrap_or_default().to_owned());
        }
    }
    behind
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
