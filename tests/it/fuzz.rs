//! A bounded fuzz run (issue 9): arbitrary bytes, and arbitrary sequences of
//! YAML's tricky tokens, through the YAML reader, the manifest reader (and
//! the relational checks on whatever it accepts) and `--set`. Nothing may
//! panic; every input ends in a value or an error. The cases come from
//! `CHARTGEN_FUZZ_CASES` (default 64 for `cargo test`; `.ci/run` runs
//! thousands, well under a minute on two cores).

use proptest::prelude::*;

use chart::check;
use chart::values::{self, Inputs};
use kubernetes::input;
use kubernetes::location::Source;
use kubernetes::yaml::{self, Limits};

fn config() -> ProptestConfig {
    let cases = std::env::var("CHARTGEN_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(64);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Pieces of YAML that reach the reader's corners: indicators, anchors,
/// aliases, tags, merge keys, flow collections, block scalars, document
/// markers, YAML 1.1 line breaks, BOMs, controls, and Kubernetes keys.
const TOKENS: &[&str] = &[
    "\n",
    "\n  ",
    "\n    ",
    " ",
    "- ",
    ": ",
    "? ",
    "---\n",
    "...\n",
    "#c",
    "&a ",
    "*a",
    "!!str ",
    "!x ",
    "<<: ",
    "{",
    "}",
    "[",
    "]",
    ", ",
    "|\n",
    ">-\n",
    "'",
    "\"",
    "\\",
    "yes",
    "0777",
    "1:20",
    "2001-12-14",
    "~",
    "null",
    ".inf",
    "1e3",
    "0x1F",
    "\u{85}",
    "\u{2028}",
    "\u{2029}",
    "\u{feff}",
    "\u{1b}[31m",
    "\t",
    "\r",
    "\0",
    "apiVersion: v1\n",
    "kind: Secret\n",
    "kind: Role\n",
    "kind: List\n",
    "items:\n",
    "metadata:\n  name: x\n",
    "  namespace: y\n",
    "rules:\n- apiGroups: ['']\n  resources: [events]\n  verbs: [get]\n",
    "data: {a: YQ==}\n",
    "kind: Kustomization\n",
    "resources: [a.yaml]\n",
];

fn tokens() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..48).prop_map(|t| t.concat())
}

fn bytes() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<u8>(), 0..512)
        .prop_map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![bytes(), tokens()]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_yaml_reader_ends_in_a_value_or_an_error(text in text()) {
        let _ = yaml::parse_stream(&Source::file("fuzz.yaml", text.as_str()), Limits::VALUES);
    }

    #[test]
    fn the_manifest_reader_and_the_checks_end(text in text()) {
        if let Ok(set) = input::parse("fuzz.yaml", &text) {
            let _ = check::relations(&set.manifests, set.artifact(chart::artifacts::EXEMPTIONS_FILE));
        }
    }

    #[test]
    fn set_ends_in_values_or_an_error(key in "[a-zA-Z.\\[\\]0-9\\\\=]{0,24}", value in text()) {
        let inputs = Inputs { files: Vec::new(), sets: vec![values::SetArg::yaml(format!("{key}={value}"))] };
        let _ = values::load(&inputs);
    }
}
