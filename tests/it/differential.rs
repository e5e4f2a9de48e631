//! The differential test (issue 21): generated pod variants and API
//! objects go to a real API server and to `chartgen check`, and every
//! verdict agrees.
//!
//! - Pods (`generate::pod_case`): a mutation of a pod that passes
//!   `restricted` (one to three at once, over every Pod Security control),
//!   in every workload kind that carries a pod. The server gets the
//!   workload's pod created as a Pod (server-side dry run) in a namespace
//!   enforcing `restricted` and in one enforcing `baseline` (version
//!   `latest`); chartgen gets the workload itself in namespaces of the same
//!   names and labels, all variants in one folder and one `check`. A T3
//!   finding exactly where the server refuses for Pod Security, naming the
//!   controls the server names; where the server finds the pod invalid, a
//!   finding of the API rules.
//! - API objects (`generate::api_case`): objects of the areas `check`'s
//!   API rule claims (docs/checks.md), valid and invalid, dry-run created
//!   in an unlabelled namespace with kubectl's strict field validation; a
//!   finding of `API`, `K8S` or `KIND` exactly where the server refuses.
//!
//! The live test needs the control plane (`scripts/control-plane/cluster
//! up`). With `CHARTGEN_RECORD=1` it writes the cases and the server's
//! answers to `tests/fixtures/k8s-truth/recorded/`; without, it also
//! fails where the server's answer differs from the recording. The replay
//! test holds chartgen to the recording without a server, in every
//! `cargo test`. `CHARTGEN_DIFFERENTIAL_SEED` and
//! `CHARTGEN_DIFFERENTIAL_CASES` vary the live cases (the recording is
//! compared only where a case is the same object).

mod generate;

use std::collections::BTreeMap;
use std::path::Path;

use kubernetes::emit;
use kubernetes::location::Source;
use kubernetes::pod_security::reasons_in_server_message;
use kubernetes::yaml;
use serde_json::{Value as Json, json};

use crate::harness::{chartgen, root};
use crate::server::{self, Answer, Proxy};
use generate::{API_NAMESPACE, Gen};

/// The server the recording was made with.
const SERVER_VERSION: &str = "v1.35.4";
const RECORDED_PSA: &str = "tests/fixtures/k8s-truth/recorded/psa-v1.35.4.jsonl";
const RECORDED_API: &str = "tests/fixtures/k8s-truth/recorded/api-v1.35.4.jsonl";
/// The default seed and number of cases of each family: what is recorded.
const SEED: u64 = 21;
const CASES: usize = 500;

/// The namespaces pods are judged in, with their Pod Security level.
const LEVELS: [(&str, &str); 2] = [
    ("restricted", "psa-restricted"),
    ("baseline", "psa-baseline"),
];
/// The rules whose findings say the API server refuses an object.
const API_RULES: [&str; 3] = ["API", "K8S", "KIND"];

fn seed() -> u64 {
    std::env::var("CHARTGEN_DIFFERENTIAL_SEED")
        .ok()
        .map_or(SEED, |s| {
            s.parse().expect("CHARTGEN_DIFFERENTIAL_SEED is a number")
        })
}

fn case_count() -> usize {
    std::env::var("CHARTGEN_DIFFERENTIAL_CASES")
        .ok()
        .map_or(CASES, |s| {
            s.parse().expect("CHARTGEN_DIFFERENTIAL_CASES is a number")
        })
}

/// The object as YAML, as chartgen reads it (and the recording keeps it).
fn to_yaml(object: &Json) -> String {
    emit::block(&yaml::Node::from_json(
        object,
        &kubernetes::location::Origin::Default,
    ))
}

fn from_yaml(text: &str) -> Json {
    let source = Source::file("case.yaml", text.to_owned());
    yaml::parse_stream(&source, yaml::Limits::VALUES).unwrap()[0].to_json()
}

/// The server's answer as the corpora record it.
fn verdict(answer: &Answer) -> Json {
    let accepted = (200..300).contains(&answer.status);
    json!({
        "verdict": if accepted { "accept" } else { "refuse" },
        "message": if accepted { "" } else { answer.body["message"].as_str().unwrap_or_default() },
        "warnings": answer.warnings,
        "http_status": answer.status,
    })
}

/// The API path that creates `object` (a dry run, strict fields as kubectl
/// asks for them).
fn create_path(object: &Json) -> String {
    let kind = object["kind"].as_str().unwrap();
    let resource = match kind {
        "Pod" => "pods",
        "Service" => "services",
        "ConfigMap" => "configmaps",
        "Secret" => "secrets",
        "ServiceAccount" => "serviceaccounts",
        "PersistentVolumeClaim" => "persistentvolumeclaims",
        "Namespace" => "namespaces",
        "PodTemplate" => "podtemplates",
        "ReplicationController" => "replicationcontrollers",
        "Deployment" => "deployments",
        "StatefulSet" => "statefulsets",
        "DaemonSet" => "daemonsets",
        "ReplicaSet" => "replicasets",
        "Job" => "jobs",
        "CronJob" => "cronjobs",
        "PodDisruptionBudget" => "poddisruptionbudgets",
        "NetworkPolicy" => "networkpolicies",
        "Role" => "roles",
        "RoleBinding" => "rolebindings",
        "ClusterRole" => "clusterroles",
        "ClusterRoleBinding" => "clusterrolebindings",
        _ => panic!("no resource for {kind}"),
    };
    let api_version = object["apiVersion"].as_str().unwrap();
    let base = if api_version == "v1" {
        "/api/v1".to_owned()
    } else {
        format!("/apis/{api_version}")
    };
    let namespace = object["metadata"]["namespace"]
        .as_str()
        .map(|ns| format!("/namespaces/{ns}"))
        .unwrap_or_default();
    format!("{base}{namespace}/{resource}?dryRun=All&fieldValidation=Strict")
}

/// Sends every request, four at a time.
fn ask_all(proxy: &Proxy, objects: &[Json]) -> Vec<Answer> {
    let mut answers: Vec<Option<Answer>> = (0..objects.len()).map(|_| None).collect();
    let chunk = objects.len().div_ceil(4).max(1);
    std::thread::scope(|scope| {
        for (objects, answers) in objects.chunks(chunk).zip(answers.chunks_mut(chunk)) {
            scope.spawn(move || {
                for (object, answer) in objects.iter().zip(answers) {
                    *answer = Some(proxy.request("POST", &create_path(object), object));
                }
            });
        }
    });
    answers.into_iter().map(Option::unwrap).collect()
}

/// The generated pod variants, with the server's answers: the recording's
/// lines.
fn live_psa(proxy: &Proxy, seed: u64, count: usize) -> Vec<Json> {
    let mut g = Gen::new(seed);
    let cases: Vec<generate::PodCase> = (0..count).map(|i| generate::pod_case(&mut g, i)).collect();
    let mut pods = Vec::new();
    for case in &cases {
        let name = case.object["metadata"]["name"].as_str().unwrap();
        for (_, namespace) in LEVELS {
            let mut pod = generate::pod_of(&case.object, name);
            pod["metadata"]["namespace"] = json!(namespace);
            pods.push(pod);
        }
    }
    let mut answers = ask_all(proxy, &pods).into_iter();
    cases
        .iter()
        .map(|case| {
            let yaml = to_yaml(&case.object);
            assert_eq!(from_yaml(&yaml), case.object, "{}: YAML keeps the object", case.id);
            let restricted = verdict(&answers.next().unwrap());
            let baseline = verdict(&answers.next().unwrap());
            json!({
                "id": case.id, "control": case.control, "kind": case.kind, "placement": case.placement,
                "yaml": yaml, "restricted": restricted, "baseline": baseline,
                "version_note": null, "server_version": SERVER_VERSION,
            })
        })
        .collect()
}

/// The generated API objects, with the server's answers.
fn live_api(proxy: &Proxy, seed: u64, count: usize) -> Vec<Json> {
    let mut g = Gen::new(seed ^ 0x005e_eda1);
    let cases: Vec<generate::ApiCase> = (0..count).map(|i| generate::api_case(&mut g, i)).collect();
    let objects: Vec<Json> = cases.iter().map(|c| c.object.clone()).collect();
    let answers = ask_all(proxy, &objects);
    cases
        .iter()
        .zip(answers)
        .map(|(case, answer)| {
            let yaml = to_yaml(&case.object);
            assert_eq!(
                from_yaml(&yaml),
                case.object,
                "{}: YAML keeps the object",
                case.id
            );
            let mut line = json!({
                "id": case.id, "area": case.area, "variant": case.variant,
                "kind": case.object["kind"], "yaml": yaml,
            });
            for (key, value) in verdict(&answer).as_object().unwrap() {
                line[key] = value.clone();
            }
            line["version_note"] = Json::Null;
            line["server_version"] = json!(SERVER_VERSION);
            line
        })
        .collect()
}

fn read_recording(path: &str) -> Vec<Json> {
    let text = std::fs::read_to_string(root().join(path)).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn write_recording(path: &str, lines: &[Json]) {
    let text: String = lines
        .iter()
        .map(|l| format!("{}\n", serde_json::to_string(l).unwrap()))
        .collect();
    let path = root().join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Where the live answers differ from the recording, for the cases that
/// are the same object in both.
fn drift(live: &[Json], recorded: &[Json], answers: &[&str]) -> (usize, Vec<String>) {
    let by_id: BTreeMap<&str, &Json> = recorded
        .iter()
        .map(|r| (r["id"].as_str().unwrap(), r))
        .collect();
    let mut same = 0;
    let mut changed = Vec::new();
    for case in live {
        let Some(old) = by_id.get(case["id"].as_str().unwrap()) else {
            continue;
        };
        if old["yaml"] != case["yaml"] {
            continue;
        }
        same += 1;
        for key in answers {
            for field in ["verdict", "message", "warnings", "http_status"] {
                let (now, then) = match *key {
                    "" => (&case[field], &old[field]),
                    k => (&case[k][field], &old[k][field]),
                };
                if now != then {
                    changed.push(format!(
                        "{} {key} {field}: recorded {then}, the server now says {now}",
                        case["id"].as_str().unwrap()
                    ));
                }
            }
        }
    }
    (same, changed)
}

// ---------------------------------------------------------------------------
// chartgen's side.

/// A folder of one file per case, checked by one `check --output json`:
/// each finding by the file it is located in.
fn check_files(files: &[(String, String)]) -> BTreeMap<String, Vec<Json>> {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let run = chartgen(&["check", "--output", "json", dir.path().to_str().unwrap()]);
    assert!(run.code == 0 || run.code == 1, "{}", run.transcript());
    let report: Json =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.transcript()));
    let mut by_file: BTreeMap<String, Vec<Json>> = BTreeMap::new();
    for finding in report["findings"].as_array().unwrap() {
        let file = finding["location"]
            .as_str()
            .and_then(|l| Path::new(l.rsplit_once(':').map_or(l, |(f, _)| f)).file_name())
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        by_file.entry(file).or_default().push(finding.clone());
    }
    by_file
}

fn rules<'a>(findings: &'a [Json], wanted: &[&str]) -> Vec<&'a Json> {
    findings
        .iter()
        .filter(|f| wanted.contains(&f["invariant"].as_str().unwrap_or_default()))
        .collect()
}

fn show(findings: &[&Json]) -> String {
    if findings.is_empty() {
        return "no finding".to_owned();
    }
    findings
        .iter()
        .map(|f| {
            format!(
                "\n      {} {}: {}",
                f["invariant"].as_str().unwrap(),
                f["path"].as_str().unwrap_or_default(),
                f["message"].as_str().unwrap()
            )
        })
        .collect()
}

/// The reasons of a chartgen Pod Security finding: `Pod Security control
/// "X": reason (detail)[, reason (detail)]; ...`.
fn chartgen_reasons(findings: &[&Json]) -> Vec<String> {
    let mut reasons: Vec<String> = findings
        .iter()
        .filter_map(|f| {
            let message = f["message"].as_str()?;
            let rest = &message[message.find("\": ")? + 3..];
            let end = rest.find(" (").unwrap_or(rest.len());
            Some(rest[..end].to_owned())
        })
        .collect();
    reasons.sort();
    reasons.dedup();
    reasons
}

/// Disagreements known and not fixed, each a class: a text its report
/// holds, and why it stays. The replay test requires each to occur (a
/// fixed class leaves this list) and nothing else to disagree.
const KNOWN: &[(&str, &str)] = &[
    // Out of scope (docs/checks.md, API: "Not promised: ... admission").
    (
        "priority admission controller",
        "admission, not validation: out of scope",
    ),
];

/// The disagreements no [`KNOWN`] class covers, and how many each class
/// covered.
fn unknown(disagreements: &[String], used: &mut BTreeMap<&'static str, usize>) -> Vec<String> {
    disagreements
        .iter()
        .filter(|d| match KNOWN.iter().find(|(text, _)| d.contains(text)) {
            Some((text, _)) => {
                *used.entry(text).or_default() += 1;
                false
            }
            None => true,
        })
        .cloned()
        .collect()
}

/// The tally of one comparison.
#[derive(Default)]
struct Tally {
    compared: usize,
    agree: usize,
    disagreements: Vec<String>,
}

impl Tally {
    fn judge(&mut self, agrees: bool, what: impl FnOnce() -> String) {
        self.compared += 1;
        if agrees {
            self.agree += 1;
        } else {
            self.disagreements.push(what());
        }
    }
}

/// chartgen against the server's answers on pod variants.
fn compare_psa(records: &[Json]) -> Tally {
    let mut files = vec![(
        "00-namespaces.yaml".to_owned(),
        LEVELS
            .iter()
            .map(|(level, ns)| {
                format!("---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n  labels:\n    pod-security.kubernetes.io/enforce: {level}\n    pod-security.kubernetes.io/enforce-version: latest\n")
            })
            .collect(),
    )];
    for record in records {
        let object = from_yaml(record["yaml"].as_str().unwrap());
        for (level, namespace) in LEVELS {
            let mut object = object.clone();
            object["metadata"]["namespace"] = json!(namespace);
            files.push((
                format!("{}-{level}.yaml", record["id"].as_str().unwrap()),
                to_yaml(&object),
            ));
        }
    }
    let by_file = check_files(&files);
    let mut tally = Tally::default();
    for record in records {
        let id = record["id"].as_str().unwrap();
        for (level, _) in LEVELS {
            let server = &record[level];
            let findings = by_file
                .get(&format!("{id}-{level}.yaml"))
                .cloned()
                .unwrap_or_default();
            // chartgen judges Kubernetes 1.33 and 1.35; the server is 1.35.
            let t3: Vec<&Json> = rules(&findings, &["T3"])
                .into_iter()
                .filter(|f| {
                    !f["message"]
                        .as_str()
                        .unwrap()
                        .contains("(on Kubernetes 1.33)")
                })
                .collect();
            let api = rules(&findings, &API_RULES);
            let message = server["message"].as_str().unwrap();
            // The server judged the workload's pod, created as a Pod: the
            // rules only a template is held to (an AppArmor annotation
            // against the pod's profile) were not asked.
            let api_ok = api.is_empty() || record["kind"] != "Pod";
            let (agrees, expected) = match server["http_status"].as_u64().unwrap() {
                200..=299 => (t3.is_empty() && api_ok, "no T3 or API finding".to_owned()),
                403 if message.contains("violates PodSecurity") => {
                    let mut reasons = reasons_in_server_message(message);
                    reasons.sort();
                    reasons.dedup();
                    let agrees = api_ok && chartgen_reasons(&t3) == reasons;
                    (agrees, format!("T3 naming {reasons:?}"))
                }
                _ => (!api.is_empty(), "an API finding".to_owned()),
            };
            tally.judge(agrees, || {
                format!(
                    "{id} [{level}] {}\n  server: {} {} {message}\n  chartgen: {}\n  expected: {expected}\n  case:\n{}",
                    record["control"].as_str().unwrap(),
                    server["http_status"],
                    server["verdict"].as_str().unwrap(),
                    show(&[t3, api].concat()),
                    indent(record["yaml"].as_str().unwrap()),
                )
            });
        }
    }
    tally
}

/// chartgen against the server's answers on API objects.
fn compare_api(records: &[Json]) -> Tally {
    let files: Vec<(String, String)> = records
        .iter()
        .map(|r| {
            (
                format!("{}.yaml", r["id"].as_str().unwrap()),
                r["yaml"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let by_file = check_files(&files);
    let mut tally = Tally::default();
    for record in records {
        let id = record["id"].as_str().unwrap();
        let findings = by_file
            .get(&format!("{id}.yaml"))
            .cloned()
            .unwrap_or_default();
        let api = rules(&findings, &API_RULES);
        let accepted = record["verdict"] == "accept";
        tally.judge(api.is_empty() == accepted, || {
            format!(
                "{id} ({}: {})\n  server: {} {} {}\n  chartgen: {}\n  case:\n{}",
                record["area"].as_str().unwrap(),
                record["variant"].as_str().unwrap(),
                record["http_status"],
                record["verdict"].as_str().unwrap(),
                record["message"].as_str().unwrap(),
                show(&api),
                indent(record["yaml"].as_str().unwrap()),
            )
        });
    }
    tally
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

// ---------------------------------------------------------------------------
// The tests.

/// Every recorded answer of the real server, chartgen held to it: no
/// server needed.
#[test]
fn chartgen_agrees_with_every_recorded_answer_of_the_server() {
    let psa = read_recording(RECORDED_PSA);
    let api = read_recording(RECORDED_API);
    assert!(
        psa.len() >= 300 && api.len() >= 300,
        "the recordings are there"
    );
    for line in psa.iter().chain(&api) {
        assert_eq!(line["server_version"], SERVER_VERSION);
    }
    let psa = compare_psa(&psa);
    let api = compare_api(&api);
    let mut used = BTreeMap::new();
    let left: Vec<String> = unknown(&psa.disagreements, &mut used)
        .into_iter()
        .chain(unknown(&api.disagreements, &mut used))
        .collect();
    eprintln!(
        "differential replay: pods {} of {} agree, API objects {} of {} agree; known classes: {used:?}",
        psa.agree, psa.compared, api.agree, api.compared
    );
    assert!(
        left.is_empty(),
        "{} disagreements of no known class:\n{}",
        left.len(),
        left.join("\n\n")
    );
    for (text, why) in KNOWN {
        assert!(
            used.contains_key(text),
            "the known class {text:?} ({why}) no longer occurs: remove it"
        );
    }
}

/// The generated cases against the live server and chartgen; the
/// server's answers against the recording; `CHARTGEN_RECORD=1` records.
#[test]
fn chartgen_agrees_with_the_live_server_on_generated_cases() {
    let Some(server) = server::server("differential") else {
        return;
    };
    let _alone = server.exclusive();
    let namespaces: String = LEVELS
        .iter()
        .map(|(level, ns)| {
            format!("---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n  labels:\n    pod-security.kubernetes.io/enforce: {level}\n    pod-security.kubernetes.io/enforce-version: latest\n")
        })
        .chain([format!("---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: {API_NAMESPACE}\n")])
        .collect();
    server.kubectl_ok(&["apply", "-f", "-"], Some(&namespaces));
    assert!(server.kubeconfig().exists());
    let version = server.kubectl_ok(&["version", "-o", "json"], None);
    let version: Json = serde_json::from_str(&version).unwrap();
    assert_eq!(
        version["serverVersion"]["gitVersion"], SERVER_VERSION,
        "the recording's server"
    );

    let (seed, count) = (seed(), case_count());
    let started = std::time::Instant::now();
    let proxy = server.proxy();
    let psa = live_psa(&proxy, seed, count);
    let api = live_api(&proxy, seed, count);
    drop(proxy);
    eprintln!(
        "differential: {} pods and {} API objects asked in {:?}",
        psa.len(),
        api.len(),
        started.elapsed()
    );

    if std::env::var_os("CHARTGEN_RECORD").is_some() {
        assert_eq!(
            (seed, count),
            (SEED, CASES),
            "record the default seed and count only"
        );
        write_recording(RECORDED_PSA, &psa);
        write_recording(RECORDED_API, &api);
    }
    let (same_psa, psa_drift) = drift(
        &psa,
        &read_recording(RECORDED_PSA),
        &["restricted", "baseline"],
    );
    let (same_api, api_drift) = drift(&api, &read_recording(RECORDED_API), &[""]);
    if (seed, count) == (SEED, CASES) {
        assert_eq!(
            (same_psa, same_api),
            (psa.len(), api.len()),
            "the recording holds the default cases: re-record (CHARTGEN_RECORD=1)"
        );
    }
    let psa_tally = compare_psa(&psa);
    let api_tally = compare_api(&api);
    eprintln!("differential: compared in {:?}", started.elapsed());
    server.reset();
    let drift: Vec<String> = psa_drift.into_iter().chain(api_drift).collect();
    let mut used = BTreeMap::new();
    let left: Vec<String> = unknown(&psa_tally.disagreements, &mut used)
        .into_iter()
        .chain(unknown(&api_tally.disagreements, &mut used))
        .collect();
    eprintln!(
        "differential: pods {} of {} agree, API objects {} of {} agree; known classes: {used:?}",
        psa_tally.agree, psa_tally.compared, api_tally.agree, api_tally.compared
    );
    assert!(
        drift.is_empty(),
        "the server's answers differ from the recording in {} places (Kubernetes changed, or the recording is stale: re-record with CHARTGEN_RECORD=1):\n{}",
        drift.len(),
        drift.join("\n")
    );
    assert!(
        left.is_empty(),
        "{} disagreements of no known class:\n{}",
        left.len(),
        left.join("\n\n")
    );
}
