//! Issue 24: the editor and chartgen agree. yaml-language-server, driven
//! as an editor drives it (`integrations::editor_diagnostics`), judges
//! every values file under `tests/` and in `values/` with the committed
//! overlay schema; `chartgen validate` judges the same file as it is used
//! (over the layers it is given after, as its `# args:` line or
//! `render --all` gives them). Both must find problems in the file, or
//! neither, but for the few files listed in [`BY_DESIGN`] with the reason
//! a JSON schema cannot say what chartgen says. Small cases pin the
//! classes of scalars, nulls and `KEY+` appends one by one, and hovering a
//! key shows the key's description.
//!
//! The tests skip, with one line, where node or yaml-language-server is
//! missing, unless `CHARTGEN_REQUIRE_YAML_LANGUAGE_SERVER` is set (as
//! `.ci/run` sets it): then they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as Json;

use crate::harness::{chartgen, relative, root};
use crate::integrations::{LSP_SESSION, editor_diagnostics};

/// yaml-language-server's entry point (`integrations.rs` installs it
/// into `target/tools` as `.ci/run` does); `None`, after one line saying
/// why, when node or the server is missing, unless
/// `CHARTGEN_REQUIRE_YAML_LANGUAGE_SERVER` is set: then the test fails.
fn editor() -> Option<PathBuf> {
    crate::integrations::yaml_language_server()
}

/// The folders of `tests/fixtures` that hold values files: the tests give
/// each of their YAML files to chartgen as `-f` (`validate.rs` every file
/// of `validate/`, which `_shared/` serves as a lower layer; `render.rs`
/// and `explain.rs` the files of `render/`, `hatches.rs` those of
/// `hatches/`). That is how a file is known
/// to be a values file.
const VALUES_FOLDERS: [&str; 3] = ["validate", "render", "hatches"];

/// The other folders: manifests for `check`, `diff` and `rbac`, Kubernetes'
/// recorded verdicts, a Helm chart (its `values.yaml` is Helm's, not
/// chartgen's). A new folder must be put in one of the two lists.
const OTHER_FOLDERS: [&str; 8] = [
    "adr",
    "check",
    "diff",
    "diff-server",
    "extra-objects",
    "helm",
    "hostile",
    "k8s-truth",
];

/// Values files in a folder of [`OTHER_FOLDERS`], beside manifests (the
/// CRDs `extra_objects.rs` gives with `--crd`).
const VALUES_FILES: [&str; 1] = ["tests/fixtures/extra-objects/values.yaml"];

/// Files whose two verdicts differ by design: chartgen's problem is one a
/// JSON schema of one file cannot state. Each with the reason.
const BY_DESIGN: [(&str, &str); 10] = [
    (
        "tests/fixtures/validate/amounts-equal-in-two-notations.yaml",
        "a request compared with its limit: two keys",
    ),
    (
        "tests/fixtures/validate/amounts-exceed-limits.yaml",
        "requests compared with limits, renewBefore with duration: two keys each",
    ),
    (
        "tests/fixtures/validate/common-annotations-past-the-api-servers-total.yaml",
        "the total size of every annotation a Namespace carries, the chart's own included",
    ),
    (
        "tests/fixtures/validate/duplicate-projects.yaml",
        "project names unique across the list (uniqueItems compares whole items)",
    ),
    (
        "tests/fixtures/validate/gateway-scaled-down-alone.yaml",
        "the gateway's replicas against buildd's, which the defaults give",
    ),
    (
        "tests/fixtures/validate/namespace-collides-with-default.yaml",
        "one namespace equal to another, which the defaults give",
    ),
    (
        "tests/fixtures/validate/tls-duration-past-a-go-duration.yaml",
        "a duration's parts summed against Go's limit",
    ),
    (
        "tests/fixtures/validate/two-documents.yaml",
        "a second document: the editor judges each document, chartgen refuses the file",
    ),
    (
        "tests/fixtures/validate/digest-pinned-tag-in-later-file.yaml",
        "a tag changed over a digest a lower file pinned: two layers",
    ),
    (
        "tests/fixtures/validate/merge-key.yaml",
        "the editor's YAML reader merges a `<<` key before the schema sees the document",
    ),
];

/// Every values file: the fixtures of [`VALUES_FOLDERS`] and `values/`.
fn values_files() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let found = (kubernetes::files::walk(dir).map(Result::unwrap))
            .filter(|entry| !entry.file_type().is_dir())
            .map(|entry| entry.into_path())
            .filter(|path| path.extension().is_some_and(|e| e == "yaml" || e == "yml"));
        out.extend(found);
    }
    let mut files = Vec::new();
    for folder in VALUES_FOLDERS {
        walk(&root().join("tests/fixtures").join(folder), &mut files);
    }
    walk(&root().join("values"), &mut files);
    files.extend(VALUES_FILES.iter().map(|file| root().join(file)));
    let mut files: Vec<String> = files.iter().map(|p| relative(p)).collect();
    files.sort();
    files
}

/// The files chartgen reads below `file`, as it is used: the `-f` files
/// before `{}` on its `# args:` line; `values/common.yaml` below every
/// other file of `values/` (`render --all`). No set flag: an editor sees
/// only files.
fn layers_below(file: &str) -> Vec<String> {
    if let Some(env) = file.strip_prefix("values/") {
        return if env == "common.yaml" {
            Vec::new()
        } else {
            vec!["values/common.yaml".to_owned()]
        };
    }
    let bytes = std::fs::read(root().join(file)).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let Some(args) = text.lines().next().and_then(|l| l.strip_prefix("# args: ")) else {
        return Vec::new();
    };
    let words: Vec<&str> = args.split_whitespace().collect();
    let mut below = Vec::new();
    for pair in words.windows(2) {
        if pair[0] == "-f" {
            if pair[1] == "{}" {
                break;
            }
            below.push(pair[1].to_owned());
        }
    }
    below
}

/// chartgen's problems located in `file` ("LINE: message"), with the
/// layers `below` read first.
fn chartgen_problems(below: &[String], file: &str) -> Vec<String> {
    let mut args = vec!["validate".to_owned(), "--output".into(), "json".into()];
    for layer in below.iter().map(String::as_str).chain([file]) {
        args.extend(["-f".to_owned(), layer.to_owned()]);
    }
    let run = chartgen(&args);
    let report: Json = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}\n{}\n{}", run.stdout, run.stderr));
    let problems = report["problems"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        run.code == 0,
        problems.is_empty(),
        "{args:?}: {}",
        run.stdout
    );
    problems
        .iter()
        .filter(|p| p["location"]["file"] == file)
        .map(|p| format!("{}: {}", p["location"]["line"], p["message"]))
        .collect()
}

/// The first line that tells yaml-language-server to use the committed
/// overlay schema.
fn modeline() -> String {
    let schema = root().join("schema/values.overlay.schema.json");
    format!("# yaml-language-server: $schema={}\n", schema.display())
}

/// yaml-language-server's diagnostics for each file ("LINE: message", the
/// file's own lines), each judged with the committed overlay schema: a
/// copy in `dir` with the modeline on a first line of its own (a file's
/// own modeline blanked).
fn editor_problems(server: &Path, dir: &Path, files: &[(String, Vec<u8>)]) -> Vec<Vec<String>> {
    let copies: Vec<PathBuf> = (files.iter().enumerate())
        .map(|(i, (name, bytes))| {
            let name = Path::new(name).file_name().unwrap().to_string_lossy();
            let copy = dir.join(format!("{i}-{name}"));
            let mut text = modeline().into_bytes();
            for line in bytes.split_inclusive(|b| *b == b'\n') {
                if line.starts_with(b"# yaml-language-server:") {
                    text.extend_from_slice(b"#\n");
                } else {
                    text.extend_from_slice(line);
                }
            }
            std::fs::write(&copy, text).unwrap();
            copy
        })
        .collect();
    editor_diagnostics(server, &copies)
        .into_iter()
        .map(|(_, found)| {
            (found.iter())
                .map(|d| match d.split_once(": ") {
                    Some((line, message)) => {
                        format!("{}: {message}", line.parse::<usize>().unwrap() - 1)
                    }
                    None => d.clone(),
                })
                .collect()
        })
        .collect()
}

#[test]
fn every_fixture_folder_is_known_to_hold_values_files_or_not() {
    for entry in std::fs::read_dir(root().join("tests/fixtures")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            VALUES_FOLDERS.contains(&name.as_str()) || OTHER_FOLDERS.contains(&name.as_str()),
            "tests/fixtures/{name}: put it in VALUES_FOLDERS (its YAML files are values files) or OTHER_FOLDERS"
        );
    }
}

/// The editor's verdict (problems or none) on every values file is
/// chartgen's, but on the files of [`BY_DESIGN`], where they must differ
/// (a disagreement fixed leaves the list).
#[test]
fn the_editor_and_chartgen_agree_on_every_values_file() {
    let Some(server) = editor() else {
        return;
    };
    let files = values_files();
    assert!(files.len() > 40, "{files:?}");
    let dir = tempfile::tempdir().unwrap();
    let texts: Vec<(String, Vec<u8>)> = (files.iter())
        .map(|f| (f.clone(), std::fs::read(root().join(f)).unwrap()))
        .collect();
    let editor = editor_problems(&server, dir.path(), &texts);
    let mut wrong = Vec::new();
    for (file, found) in files.iter().zip(&editor) {
        let ours = chartgen_problems(&layers_below(file), file);
        let by_design = BY_DESIGN.iter().find(|(f, _)| f == file);
        let agree = ours.is_empty() == found.is_empty();
        match (agree, by_design) {
            (true, None) | (false, Some(_)) => {}
            (false, None) => wrong.push(format!(
                "{file}: chartgen {ours:?}, the editor {found:?}"
            )),
            (true, Some((_, why))) => wrong.push(format!(
                "{file}: listed as a disagreement by design ({why}) but both say {ours:?} / {found:?}: take it off BY_DESIGN"
            )),
        }
    }
    for (file, _) in BY_DESIGN {
        assert!(files.iter().any(|f| f == file), "{file} is no values file");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// One small values file per class of what chartgen reads where a JSON
/// schema could go either way: both accept it, or both refuse it.
#[test]
fn the_editor_and_chartgen_agree_on_each_class_of_scalar_null_and_append() {
    let Some(server) = editor() else {
        return;
    };
    // (values file, whether chartgen accepts it)
    let cases: &[(&str, bool)] = &[
        // A number where a string is wanted is the text as written.
        ("images: {buildd: {tag: 1.10}}\n", true),
        ("images: {buildd: {tag: 20240101}}\n", true),
        ("commonLabels: {release: 1.5}\n", true),
        (
            "network: {cni: cilium, buildEgress: {fqdns: [{name: 1.5, ports: [443]}]}}\n",
            true,
        ),
        ("namespaces: {builds: 1e3}\n", true),
        ("namespaces: {builds: 0644}\n", true),
        ("buildd: {metrics: {serviceMonitor: {interval: 0}}}\n", true),
        // ... and must still fit the string's form, the rules of one key
        // included: a tag's grammar, a workload's tag a label value.
        ("images: {buildd: {tag: -1}}\n", false),
        ("images: {buildd: {tag: 0.5.0-}}\n", false),
        ("images: {buildkitd: {tag: 0.5.0-}}\n", true),
        ("commonLabels: {'bad key!': a}\n", false),
        ("commonLabels: {team: 'a b'}\n", false),
        ("commonAnnotations: {note: 'a b'}\n", true),
        ("buildd: {nodeSelector: {zone: -1}}\n", false),
        ("buildd: {podLabels: {example.com/release: 1.5}}\n", true),
        // An infinity is no number to chartgen.
        ("images: {buildkitd: {tag: .inf}}\n", false),
        ("buildd: {resources: {limits: {cpu: .inf}}}\n", false),
        ("buildd: {resources: {limits: {cpu: 1e400}}}\n", false),
        ("namespaces: {builds: 1.5}\n", false),
        ("namespaces: {builds: -7}\n", false),
        ("releaseName: 12345\n", false),
        (
            "releaseName: a1234567890123456789012345678901234567890\n",
            false,
        ),
        ("namespaces: {system: kube-system}\n", false),
        (
            "buildd: {metrics: {serviceMonitor: {interval: 30}}}\n",
            false,
        ),
        ("images: {buildd: {digest: 1}}\n", false),
        ("buildd: {logLevel: 1}\n", false),
        ("builds: {tls: {duration: 720}}\n", false),
        // Booleans stay booleans, nulls delete.
        ("images: {buildd: {tag: true}}\n", false),
        ("images: {buildd: {tag: ~}}\n", false),
        ("images: {buildd: {digest: ~}}\n", true),
        ("commonLabels: {team: ~}\n", true),
        ("buildd: ~\n", true),
        ("buildd: {logLevel: ~, resources: {limits: ~}}\n", true),
        ("projects: ~\n", true),
        (
            "buildd: {tolerations: [{key: a, operator: Exists, effect: ~}]}\n",
            false,
        ),
        (
            "buildd: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: ~}}}}\n",
            false,
        ),
        // A list item is written whole: its nulls are values.
        (
            "projects: [{name: a, repository: 'https://example.com/a.git', resources: ~}]\n",
            false,
        ),
        (
            "projects: [{name: ~, repository: 'https://example.com/a.git'}]\n",
            false,
        ),
        // Integers stay integers.
        ("buildd: {replicas: 1.5}\n", false),
        ("buildd: {replicas: '2'}\n", false),
        ("gateway: {service: {port: 0x1F90}}\n", true),
        // KEY+ appends to the list KEY below it.
        (
            "projects+: [{name: a, repository: 'https://example.com/a.git'}]\n",
            true,
        ),
        ("projects+: [{name: a}]\n", false),
        ("releaseName+: [a]\n", false),
        ("network: {apiServer: {ports+: [8443]}}\n", true),
        ("network: {apiServer: {ports+: [http]}}\n", false),
        (
            "projects: []\nprojects+: [{name: a, repository: 'https://example.com/a.git'}]\n",
            false,
        ),
        ("projects+: ~\n", false),
        ("commonLabels: {team+: a}\n", false),
        (
            "projects+: [{name: a, repository: 'https://example.com/a.git', resources+: []}]\n",
            false,
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let texts: Vec<(String, Vec<u8>)> = (cases.iter().enumerate())
        .map(|(i, (text, _))| (format!("case{i}.yaml"), text.as_bytes().to_vec()))
        .collect();
    let editor = editor_problems(&server, dir.path(), &texts);
    let mut wrong = Vec::new();
    for (i, ((text, valid), found)) in cases.iter().zip(&editor).enumerate() {
        let path = dir.path().join(format!("plain{i}.yaml"));
        std::fs::write(&path, text).unwrap();
        let path = path.to_string_lossy().into_owned();
        let ours = chartgen_problems(&[], &path);
        if ours.is_empty() != *valid {
            wrong.push(format!(
                "{text:?}: chartgen {ours:?}, expected valid: {valid}"
            ));
        }
        if found.is_empty() != *valid {
            wrong.push(format!(
                "{text:?}: the editor {found:?}, expected valid: {valid}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// An editor's hover requests, after [`LSP_SESSION`]: opens FILE, waits
/// for its diagnostics, asks for a hover at each LINE:CHARACTER (from 0)
/// and prints the texts as a JSON list.
const HOVERS: &str = r##"
const [file, ...positions] = args;
const uri = "file://" + path.resolve(file);
const settings = { yaml: { validate: true, hover: true, schemaStore: { enable: false }, format: { enable: false } } };
const hovers = {};
function opened() {
  open(uri, file);
}
function received(msg) {
  if (msg.method === "textDocument/publishDiagnostics" && msg.params.uri === uri) {
    positions.forEach((p, i) => {
      const [line, character] = p.split(":").map(Number);
      send({ id: 100 + i, method: "textDocument/hover", params: { textDocument: { uri }, position: { line, character } } });
    });
  } else if (msg.id >= 100) {
    const contents = msg.result ? msg.result.contents : "";
    hovers[msg.id - 100] = typeof contents === "string" ? contents : contents.value ?? "";
    if (Object.keys(hovers).length === positions.length) {
      finish(positions.map((_, i) => hovers[i]));
    }
  }
}
setTimeout(() => { console.error("no hover in time"); process.exit(3); }, 30000);
"##;

/// Hovering a key shows the key's description (from the field), not one
/// of its values' (an enum's) nor its type's; an enum's values are listed
/// with theirs.
#[test]
fn hovering_a_key_describes_the_key() {
    let Some(server) = editor() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("values.yaml");
    let text = format!(
        "{}buildd:\n  logLevel: info\n  resources:\n    requests:\n      cpu: 100m\ngateway:\n  service:\n    type: NodePort\n",
        modeline()
    );
    std::fs::write(&file, text).unwrap();
    // (line, character) of logLevel, cpu and type, from 0 (line 0 is the modeline).
    let positions = ["2:4", "5:8", "8:6"];
    let output = crate::harness::stdout_of(
        Command::new("node")
            .args(["-e", &format!("{LSP_SESSION}{HOVERS}")])
            .arg(server)
            .arg(&file)
            .args(positions),
        "node (the language server's session)",
    );
    let hovers: Vec<String> = serde_json::from_slice(&output).unwrap();
    let schema = crate::harness::chartgen(&["schema", "merged"]);
    let schema: Json = serde_json::from_str(&schema.stdout).unwrap();
    let buildd = &schema["$defs"]["Buildd"]["properties"];
    let key_texts = [
        buildd["logLevel"]["description"].as_str().unwrap(),
        schema["$defs"]["ResourceList"]["properties"]["cpu"]["description"]
            .as_str()
            .unwrap(),
        schema["$defs"]["GatewayService"]["properties"]["type"]["description"]
            .as_str()
            .unwrap(),
    ];
    for (hover, key) in hovers.iter().zip(key_texts) {
        assert!(
            hover.starts_with(key),
            "the hover shows {hover:?}, not the key's {key:?}"
        );
    }
    // The values of an enum, each with its own description, follow.
    assert!(hovers[0].contains("`info`: "), "{}", hovers[0]);
    assert!(hovers[2].contains("`ClusterIP`: "), "{}", hovers[2]);
}
