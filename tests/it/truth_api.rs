//! `check` against a real API server's validation verdicts
//! (`tests/fixtures/k8s-truth/api/`): each object alone, a finding of the
//! rules that judge API validity (`API`, `K8S`, `KIND`) exactly when the
//! server refused it.

use kubernetes::location::Source;
use kubernetes::yaml;
use serde_json::Value as Json;

use crate::harness::{chartgen_with_stdin, root};

/// The rules whose findings say the API server refuses the object.
const API_RULES: [&str; 3] = ["API", "K8S", "KIND"];

/// Cases where Kubernetes 1.33 and 1.35 (what chartgen checks against)
/// answer otherwise than the recorded v1.28 server, with the newer answer.
/// `env-name-with-space`: RelaxedEnvironmentVariableValidation (on by
/// default since 1.32, GA in 1.34) allows any printable ASCII but `=`.
/// `cron-tz-in-schedule`: a `TZ=` or `CRON_TZ=` in a new CronJob's
/// schedule is refused (the v1.35 recording in `recorded/` says so).
const NEWER: [(&str, &str); 2] = [
    ("env-name-with-space", "accept"),
    ("cron-tz-in-schedule", "refuse"),
];

#[test]
fn check_refuses_exactly_what_the_api_server_refuses() {
    let path = root().join("tests/fixtures/k8s-truth/api/corpus.jsonl");
    let corpus = std::fs::read_to_string(path).unwrap();
    let mut disagreements = Vec::new();
    let mut cases = 0;
    for line in corpus.lines() {
        let case: Json = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap();
        cases += 1;
        let noted = NEWER.iter().find(|(n, _)| *n == id);
        assert_eq!(
            noted.is_some(),
            !case["version_note"].is_null(),
            "{id}: every version note is judged here, and only those"
        );
        let verdict = noted.map_or_else(|| case["verdict"].as_str().unwrap(), |(_, v)| v);
        // The object as the server read it (YAML 1.2, as sent), handed to
        // chartgen as JSON: the corpus's plain `y` and `n` are strings.
        let source = Source::file("case.yaml", case["yaml"].as_str().unwrap().to_owned());
        let nodes = yaml::parse_stream(&source, yaml::Limits::VALUES).unwrap();
        let object = serde_json::to_string(&nodes[0].to_json()).unwrap();
        let run = chartgen_with_stdin(&["check", "--output", "json", "-"], Some(&object));
        let report: Json = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{id}: {e}\n{}", run.transcript()));
        let findings: Vec<String> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| API_RULES.contains(&f["invariant"].as_str().unwrap()))
            .map(|f| format!("{} {}: {}", f["invariant"], f["path"], f["message"]))
            .collect();
        if findings.is_empty() == (verdict == "refuse") {
            disagreements.push(format!(
                "{id} ({}): the server says {verdict} ({}); chartgen: {findings:?}",
                case["area"], case["message"]
            ));
        }
    }
    assert_eq!(cases, 94, "the whole corpus is read");
    assert!(
        disagreements.is_empty(),
        "{} of {cases} disagree:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}
