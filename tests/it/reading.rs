//! Issue 9, section 2: `check` and `diff` read what Kubernetes reads, or
//! refuse. The differential test reads a generated corpus with chartgen and
//! with an independent YAML 1.1 reader (PyYAML); the other tests pin the
//! refusals (located, escaped), kustomizations, special files, links and
//! the budgets that keep reading linear.

use std::path::Path;
use std::process::{Command, Stdio};

use kubernetes::location::Source;
use kubernetes::manifest::LIMITS;
use kubernetes::yaml;

use crate::harness::{chartgen, chartgen_with_stdin, root, scratch};

/// A small deterministic generator (xorshift), so the corpus is the same on
/// every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Plain scalars that YAML 1.1, go-yaml and YAML 1.2 read alike or not.
const SCALARS: &[&str] = &[
    "yes",
    "Yes",
    "YES",
    "no",
    "No",
    "NO",
    "on",
    "On",
    "ON",
    "off",
    "Off",
    "OFF",
    "y",
    "Y",
    "n",
    "N",
    "true",
    "True",
    "TRUE",
    "false",
    "False",
    "FALSE",
    "~",
    "null",
    "Null",
    "NULL",
    "0777",
    "0644",
    "0o17",
    "0x1F",
    "0x_1F",
    "0b101",
    "0b_",
    "1_000",
    "1__0",
    "1:20",
    "1:20.5",
    "190:20:30",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "2001-1-2",
    "2002-12-14 21:59:43",
    "1e3",
    "1E3",
    "1.0e+3",
    "1.0e3",
    "1.5",
    ".5",
    "+.5",
    "-1",
    "+1",
    "-0",
    "00",
    "08",
    "09.5",
    "1.",
    "1._",
    ".inf",
    "-.Inf",
    ".NaN",
    "<<",
    "=",
    "v1",
    "app",
    "0.1.2",
    "12:30:45",
    "1e999",
    "99999999999999999999",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "-9223372036854775808",
    "a b",
    "http://x",
    "x:y",
    "-x",
    "?x",
    ":x",
    "0",
    "1",
    "42",
    "3.14",
    "-2.5e-3",
    "Yesterday",
    "nO",
    "oN",
    "TRUE1",
    "0x",
    "0o",
    "1_",
    "_1",
    "1.2.3",
    "a#b",
];

const WORDS: &[&str] = &[
    "name", "value", "kind", "port", "mode", "x", "data", "enabled",
];

fn scalar(rng: &mut Rng) -> String {
    let text = rng.pick(SCALARS);
    match rng.below(10) {
        0 => format!("'{}'", text.replace('\'', "''")),
        1 => format!("\"{text}\""),
        2 => format!("!!str {text}"),
        _ => text.to_owned(),
    }
}

fn key(rng: &mut Rng) -> String {
    match rng.below(6) {
        0 => rng.pick(SCALARS).to_owned(),
        1 => format!("\"{}\"", rng.pick(SCALARS)),
        _ => rng.pick(WORDS).to_owned(),
    }
}

/// A YAML 1.1 line break or other character that a reader may see
/// differently, spliced in somewhere.
const ODD: &[&str] = &[
    "\u{85}", "\u{2028}", "\u{2029}", "\u{feff}", "\u{7}", "\u{a0}", "\t", "\u{7f}", "\u{9b}",
];

/// Syntax whose reading differs between YAML versions or parsers; `{v}` is
/// a scalar as written, `{w}` a plain one.
const SYNTAX: &[&str] = &[
    "a:\n- {v}\n- {w}\n",
    "- - {v}\n  - {w}\n",
    "? a\n: {v}\n",
    "? {w}\n",
    "a: |2-\n   {w}\n",
    "a: >+\n  {w}\n\n",
    "a: | # note\n  {w}\n",
    "a: \"x\\\n  y {w}\"\n",
    "a: {v}\r\nb: {w}\r\n",
    "a: {w}\rb: 1\r",
    "a:    # comment\n  {v}\n",
    "a: &x {v}\nb: *x\n",
    "[*x]\n",
    "&k a: {v}\n",
    "a: [\n  {v},\n  {w}\n]\n",
    "{a: [b, {c: {v}}]}\n",
    "a: b: {w}\n",
    "a: - {w}\n",
    "a: {w}   \n",
    "a: '{w}'  # c\n",
    "- {w}: {v}\n  c: 1\n",
    "a: !!int {w}\n",
    "a: !!float {w}\n",
    "a: !!bool {w}\n",
    "a: !!null {w}\n",
    "{w}\n",
    "--- {v}\n",
    "--- |\n{w}\n",
    "a: {w}\n--- \nb: {w}\n",
    "a: \"\\N\\_\\L\\P\\e\\a\\v\\0 {w}\"\n",
    "a: \"\\x7f\\u00e9\\U0001F600\"\n",
    "a: {w}\n...\n---\nb: 1\n",
    "a: {w}\n#\u{2028}b: 2\n",
    "{? a : {v}}\n",
    "{a: 1, ? {w}}\n",
    "[a: {v}, {w}]\n",
    "a: \"line one\n  line two\\\n  {w}\"\n",
    "a: 'x\n\n  y {w}'\n",
    "a: |\r\n  {w}\r\n",
    "a: |\n  x\n--- {w}\n",
    "a: |\n  x\n...\n",
    "a:\n  - b\n  c: {v}\n",
    "a:\n  b: {v}\n c: 1\n",
    "a: |\n\t{w}\n",
    "a: >\n  {w}\n   more\n  {w}\n",
    "{w} {w}: {v}\n",
    "a: {w}\n  b: 1\n",
    "a: [{w}, [{v}, {{w}: {v}}]]\n",
    "a: {{w}}\n",
    "- &a {v}\n- *a\n- &b [*a]\n- *b\n",
    "a: &a {x: {v}}\nb:\n  <<: [*a]\n",
    "a: {v}\nb: !!str\nc: !!null\n",
    "'a': {v}\n\"a\": 1\n",
    "a: \"\\t\\ \\\"\\/{w}\"\n",
    "a: ''\nb: \"\"\nc:\nd: ~\n",
    "? |\n  block key\n: {v}\n",
    "a: b #{w}\n",
    "a: b#{w}\n",
    "a: 'it''s {w}'\n",
];

// Over 80 lines: a generator: one match arm per shape of YAML it writes.
fn document(rng: &mut Rng) -> String {
    let mut out = String::new();
    if rng.below(40) == 0 {
        out += rng.pick(&[
            "%YAML 1.1\n---\n",
            "%YAML 1.2\n---\n",
            "%TAG !e! tag:example.com,2000:\n---\n",
        ]);
    }
    match rng.below(8) {
        // A flow mapping.
        0 => {
            let n = 1 + rng.below(3);
            let entries: Vec<String> = (0..n)
                .map(|i| format!("{}{i}: {}", key(rng), scalar(rng)))
                .collect();
            out += &format!("{{{}}}\n", entries.join(", "));
        }
        // Anchors, aliases and merge keys.
        1 => {
            out += &format!("base: &b {{{}: {}}}\n", rng.pick(WORDS), scalar(rng));
            match rng.below(3) {
                0 => out += "other:\n  <<: *b\n  extra: 1\n",
                1 => out += "other: *b\n",
                _ => out += "list: [*b, *b]\n",
            }
        }
        // Block and quoted scalar styles.
        2 => {
            let text = rng.pick(SCALARS);
            match rng.below(4) {
                0 => out += &format!("a: |\n  {text}\n  {text}\n"),
                1 => out += &format!("a: >-\n  {text}\n\n  {text}\n"),
                2 => out += &format!("a: \"{text}\\n\\u2028\\x41\\/\"\n"),
                _ => out += &format!("a: '{text}\n\n  {text}'\n"),
            }
        }
        // Sequences, block and flow.
        3 => {
            out += "items:\n";
            for _ in 0..1 + rng.below(3) {
                out += &format!("  - {}\n", scalar(rng));
            }
            out += &format!("flow: [{}, {}]\n", scalar(rng), scalar(rng));
        }
        // Several documents.
        4 => {
            for _ in 0..1 + rng.below(3) {
                out += &format!("---\n{}: {}\n", key(rng), scalar(rng));
            }
            if rng.below(2) == 0 {
                out += "...\n";
            }
        }
        // Comments.
        5 => {
            out += &format!(
                "# {}\n{}: {} # {}\n",
                rng.pick(SCALARS),
                key(rng),
                scalar(rng),
                rng.pick(WORDS)
            )
        }
        // A plain scalar over several lines.
        6 => out += &format!("a: {}\n  {}\n", rng.pick(SCALARS), rng.pick(WORDS)),
        // Less common syntax: indicators, chomping, explicit keys, line ends.
        7 if rng.below(2) == 0 => {
            let v = scalar(rng);
            let w = rng.pick(SCALARS);
            out += &rng.pick(SYNTAX).replace("{v}", &v).replace("{w}", w);
        }
        // A nested manifest-like object.
        _ => {
            out += &format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n  labels: {{{}: {}}}\ndata:\n  {}: {}\n",
                rng.pick(WORDS),
                key(rng),
                scalar(rng),
                key(rng),
                scalar(rng)
            );
        }
    }
    // One in four documents gets an odd character somewhere.
    if rng.below(4) == 0 {
        let odd = rng.pick(ODD);
        let places: Vec<usize> = out
            .char_indices()
            .map(|(i, _)| i)
            .chain([out.len()])
            .collect();
        let at = places[rng.below(places.len())];
        out.insert_str(at, odd);
    }
    out
}

/// python3 with PyYAML importable: from the system, or installed into
/// `target/tools/pyyaml` (once, from PyPI, as `.ci/run` does); `None` (the
/// test skips, or fails under CHARTGEN_REQUIRE_PYYAML) when it cannot be.
fn python_with_pyyaml() -> Option<Command> {
    if !crate::tools::slow("PyYAML") {
        return None;
    }
    let tools = root().join("target/tools/pyyaml");
    let python = || {
        let mut command = Command::new("python3");
        command.env("PYTHONPATH", &tools);
        command
    };
    let importable = || {
        python()
            .args(["-c", "import yaml"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !importable() {
        let installed = crate::tools::step(
            python()
                .args(["-m", "pip", "install", "--quiet", "--upgrade"])
                .args(["--retries", "1", "--timeout", "20", "--target"])
                .env("PIP_ROOT_USER_ACTION", "ignore")
                .arg(&tools)
                .arg("PyYAML"),
        );
        if let Err(why) = installed {
            crate::tools::unavailable("CHARTGEN_REQUIRE_PYYAML", "PyYAML from PyPI", &why);
            return None;
        }
        assert!(importable(), "PyYAML installed but not importable");
    }
    Some(python())
}

/// Every document of the corpus is refused by chartgen, or read by chartgen
/// and by PyYAML (YAML 1.1) into the same JSON.
#[test]
fn chartgen_refuses_or_reads_what_a_yaml_1_1_reader_reads() {
    // CHARTGEN_CORPUS_SEED explores other corpora; the default is fixed.
    let seed = std::env::var("CHARTGEN_CORPUS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15_u64);
    let mut rng = Rng(seed | 1);
    let corpus: Vec<String> = (0..4000).map(|_| document(&mut rng)).collect();
    let Some(mut python) = python_with_pyyaml() else {
        return;
    };
    let mut child = python
        .arg(root().join("scripts/yaml11-read.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let input = serde_json::to_vec(&corpus).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(output.status.success(), "the YAML 1.1 reader failed");
    let readings: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(readings.len(), corpus.len());
    let (mut refused, mut agreed) = (0, 0);
    let non_null = |docs: Vec<serde_json::Value>| -> Vec<serde_json::Value> {
        docs.into_iter().filter(|d| !d.is_null()).collect()
    };
    for (text, reading) in corpus.iter().zip(readings) {
        let Ok(documents) = yaml::parse_manifests(&Source::file("corpus", text.as_str()), LIMITS)
        else {
            refused += 1;
            continue;
        };
        let ours = non_null(documents.iter().map(|d| d.to_json()).collect());
        let Some(theirs) = reading.get("ok").and_then(|ok| ok.as_array()) else {
            panic!("chartgen read {text:?} as {ours:?}; PyYAML refused it: {reading}");
        };
        assert_eq!(
            ours,
            non_null(theirs.clone()),
            "chartgen and PyYAML read {text:?} differently"
        );
        agreed += 1;
    }
    // The corpus exercises both sides: neither all refused nor all read.
    eprintln!("{refused} refused, {agreed} read alike");
    assert!(
        refused > 500 && agreed > 500,
        "{refused} refused, {agreed} agreed"
    );
}

fn hostile(name: &str) -> String {
    format!("tests/fixtures/hostile/reading/{name}")
}

/// The YAML 1.1 scalars of a manifest are refused where they are, with the
/// value Kubernetes would read and a hint.
#[test]
fn yaml_1_1_scalars_are_refused_located_with_a_hint() {
    let cases = [
        (
            "octal-mode.yaml",
            ":16:26: spec.template.spec.volumes[0].configMap.defaultMode: plain `0644` is the integer `420` to Kubernetes (go-yaml, YAML 1.1) but the integer `644` in YAML 1.2",
            "hint: write `420` if you mean the number Kubernetes reads, or quote it (\"0644\") for the text",
        ),
        (
            "norway.yaml",
            ":6:11: data.norway: plain `NO` is the boolean `false` to Kubernetes (go-yaml, YAML 1.1) but the string \"NO\" in YAML 1.2",
            "hint: write `false` if you mean the boolean, or quote it (\"NO\") for the text",
        ),
        (
            "boolean-key.yaml",
            ":7:3: data.on: plain key `on` is the boolean `true` to Kubernetes (go-yaml, YAML 1.1), not the text",
            "hint: quote the key (\"on\")",
        ),
        (
            "sexagesimal.yaml",
            ":6:8: data.lap: plain `1:20` is the string \"1:20\" to Kubernetes (go-yaml) and in YAML 1.2, but the integer `80` to other YAML 1.1 readers (PyYAML, libyaml)",
            "quote it (\"1:20\")",
        ),
        (
            "timestamp.yaml",
            ":6:12: data.release: plain `2001-12-14` is the string \"2001-12-14\" to Kubernetes (go-yaml) and in YAML 1.2, but a timestamp to other YAML 1.1 readers (PyYAML, libyaml)",
            "quote it (\"2001-12-14\")",
        ),
        (
            "merge-key.yaml",
            ":9:5: metadata.annotations.\"<<\": YAML merge keys (`<<`) are not supported",
            "hint: write the keys out: YAML 1.1 readers (kubectl) merge them",
        ),
    ];
    for (file, message, hint) in cases {
        let path = hostile(file);
        let run = chartgen(&["check", &path]);
        run.assert_refused(2, &format!("error: {path}{message}"));
        run.assert_refused(2, hint);
        assert_eq!(run.stdout, "", "{file}");
    }
}

/// U+2028 ends a comment for YAML 1.1: what follows is content to
/// Kubernetes and a comment to YAML 1.2. Refused wherever it is.
#[test]
fn yaml_1_1_line_breaks_are_refused_anywhere() {
    let run = chartgen(&["check", &hostile("line-separator-in-comment.yaml")]);
    run.assert_refused(2, "line-separator-in-comment.yaml:4:24: U+2028, a line break to YAML 1.1 (Kubernetes) but not to YAML 1.2");
    for (place, text) in [
        ("a key", "a\u{85}b: 1\n"),
        ("a plain scalar", "a: b\u{2029}c\n"),
        ("a quoted scalar", "a: \"b\u{2028}\"\n"),
        ("a block scalar", "a: |\n  b\u{85}\n"),
        ("a comment", "# x\u{2029}\na: 1\n"),
    ] {
        let error = yaml::parse_manifests(&Source::file("t.yaml", text), LIMITS).unwrap_err();
        assert!(
            error.message.contains("a line break to YAML 1.1"),
            "{place}"
        );
    }
}

/// What kubectl's reader refuses before YAML is read, and what go-yaml's
/// scanner refuses that a YAML 1.2 reader takes, each as a review saw
/// kubectl answer: a line starting with `---` with more than a comment
/// after it ("invalid Yaml document separator"), and the escape `\/` in a
/// double-quoted string ("found unknown escape character"), and a tab
/// where go-yaml looks for a block scalar's indentation ("found a tab
/// character where an indentation space is expected"). The forms
/// kubectl takes stay read, and a large stream read in two parts refuses
/// alike.
#[test]
fn what_kubectls_reader_refuses_before_yaml_is_refused() {
    let object = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n";
    for (text, refusal) in [
        (
            format!("--- !!map\n{object}"),
            "1:4: `---` followed by `!!map`",
        ),
        (format!("{object}--- ~\n"), "4:4: `---` followed by `~`"),
        (format!("{object}----\n"), "4:4: `---` followed by `-`"),
        (
            "--- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n".to_string(),
            "1:4: `---` followed by",
        ),
        (
            format!("{object}data: {{x: \"a\\/b\"}}\n"),
            "4:11: data.x: `\\/` in a double-quoted string",
        ),
        (
            format!("{object}data:\n  x: \"a\\\"\\/\"\n"),
            "5:6: data.x: `\\/` in a double-quoted string",
        ),
        (
            format!("{object}data:\n  x: |\n    \tb\n"),
            "6:5: data.x: a tab where go-yaml",
        ),
        (
            format!("{object}data:\n  x: >-\n\n    \tb\n"),
            "7:5: data.x: a tab where go-yaml",
        ),
        (
            format!("{object}data:\n  x: !!str |\n    \tb\n"),
            "5:6: data.x: a tab where go-yaml",
        ),
        (
            format!("{object}data:\r  x: |\r   \tb\r"),
            "6:4: data.x: a tab where go-yaml",
        ),
        // A local tag spelt like a core one is a tag go-yaml does not know.
        (
            format!("{object}data: {{x: !tag:yaml.org%2C2002:int 3}}\n"),
            "unsupported YAML tag",
        ),
        // A tag no reader shares is named, whatever its value (go-yaml
        // keeps `!foo yes` as "yes", YAML 1.1 readers refuse the tag):
        // not the value's own ambiguity.
        (
            format!("{object}data:\n  x: !foo yes\n"),
            "5:6: data.x: unsupported YAML tag `!foo`",
        ),
        (
            format!("{object}data:\n  x: !!binary aGVsbG8=\n"),
            "5:6: data.x: unsupported YAML tag `!!binary`",
        ),
    ] {
        let error =
            yaml::parse_manifests(&Source::file("t.yaml", text.clone()), LIMITS).expect_err(&text);
        assert!(error.to_string().contains(refusal), "{text}: {error}");
    }
    for text in [
        format!("--- # a comment\n{object}"),
        format!("---   \n{object}---\n"),
        format!("{object}data: {{x: \"a\\\\/b\", z: 'a\\/b'}}\n"),
        format!("{object}data:\n  x: |\n    ---y\n    a\\/b\n"),
        format!("{object}data:\n  x: |\n    a\n    \tb\tc\n"),
        format!("{object}data:\n  x: |2\n    \tb\n"),
        // Text that starts like a header is text (a review saw it refused).
        format!("{object}data:\n  x: |\n    | col | col |\n    \tindented\n"),
        format!("{object}data:\n  x: >\n    > quoted 2\n    \tindented\n"),
        format!("{object}data:\n  \"k#\": |\n    a\n    \tb\n"),
    ] {
        let read = yaml::parse_manifests(&Source::file("t.yaml", text.clone()), LIMITS);
        assert!(read.is_ok(), "{text}: {read:?}");
    }
    // A verbatim core tag is its short form, and the non-specific `!`
    // makes a scalar a string, to go-yaml as to YAML 1.2 (the server
    // stored "yes" and "1").
    for (tagged, value) in [
        ("!<tag:yaml.org,2002:str> yes", "yes"),
        ("! yes", "yes"),
        ("! 1", "1"),
    ] {
        let text = format!("{object}data: {{k: {tagged}}}\n");
        let read = yaml::parse_manifests(&Source::file("t.yaml", text.clone()), LIMITS)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(read[0].to_json()["data"]["k"], value, "{text}");
    }
    // A stream large enough to be read in two parts, the separator in the
    // second.
    let mut large: String = (0..4000)
        .map(|i| format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\n"))
        .collect();
    large.push_str("--- !!map\n");
    large.push_str(object);
    let error = yaml::parse_manifests_split(&Source::file("t.yaml", large), LIMITS).unwrap_err();
    assert!(
        error.message.contains("`---` followed by `!!map`"),
        "{error}"
    );
}

/// A values file is read as Helm reads it, YAML 1.1: a U+2028 in a comment
/// would end the comment there and make the rest a key. Refused, as in a
/// manifest, and the hint spells the character's own escape.
#[test]
fn a_values_file_hides_no_key_behind_a_yaml_1_1_line_break() {
    let dir = scratch("values-line-break");
    let values = dir.path().join("values.yaml");
    std::fs::write(&values, "# harmless\u{2028}buildd: {replicas: 5}\n").unwrap();
    let run = chartgen(&["validate", "-f", values.to_str().unwrap()]);
    run.assert_refused(
        2,
        "values.yaml:1:11: U+2028, a line break to YAML 1.1 (Kubernetes) but not to YAML 1.2",
    );
    run.assert_refused(
        2,
        "write it as an escape (\\u2028) in a double-quoted string",
    );
    let error = yaml::parse_manifests(&Source::file("t.yaml", "a: \u{1}\n"), LIMITS).unwrap_err();
    assert_eq!(
        error.hint.as_deref(),
        Some("remove it, or write it as an escape (\\u0001) in a double-quoted string")
    );
}

/// A quote from the input in a message is escaped and clipped.
#[test]
fn quotes_from_the_input_are_escaped_and_short() {
    let text = "\"a\\u001b[2Jb\": 1\n\"a\\u001b[2Jb\": 2\n";
    let error = yaml::parse_manifests(&Source::file("t.yaml", text), LIMITS).unwrap_err();
    assert_eq!(error.message, "duplicate key `a\\u{001b}[2Jb`");
    let long = format!("a: 1_{}\n", "0".repeat(10_000));
    let error = yaml::parse_manifests(&Source::file("t.yaml", long), LIMITS).unwrap_err();
    assert!(
        error.message.starts_with("plain `1_000"),
        "{}",
        error.message
    );
    assert!(error.message.chars().count() < 300, "{}", error.message);
}

const SA: &str = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a, namespace: x}\n";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The objects a `check` run read, from its summary line.
fn objects_read(run: &crate::harness::Run) -> &str {
    run.stdout.lines().last().unwrap_or_default()
}

/// A kustomization that lists resources is evaluated (files and folders
/// with their own kustomization); everything else it could do is refused
/// with the `kubectl kustomize` hint.
// Over 80 lines: a table of kustomizations and the outcome each must give.
#[test]
fn kustomizations_are_evaluated_or_refused() {
    let dir_tmp = scratch("kustomize");
    let dir = dir_tmp.path().to_path_buf();
    let app = dir.join("app");
    write(
        &app.join("kustomization.yaml"),
        "# a comment\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - sa.yaml\n  - ./sub\n",
    );
    write(&app.join("sa.yaml"), SA);
    write(&app.join("sub/kustomization.yml"), "resources: [cm.yaml]\n");
    write(
        &app.join("sub/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: x}\n",
    );
    let target = app.to_str().unwrap();
    let run = chartgen(&["check", target]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(objects_read(&run).contains(" 2 objects"), "{}", run.stdout);

    // A file nothing lists is not applied by kustomize: refused.
    write(
        &app.join("stray.yaml"),
        SA.replace("name: a", "name: b").as_str(),
    );
    let run = chartgen(&["check", target]);
    run.assert_refused(2, "stray.yaml is not listed in the resources of");
    std::fs::remove_file(app.join("stray.yaml")).unwrap();

    std::fs::create_dir_all(app.join("plain")).unwrap();
    // A name past what a file system takes (255 bytes).
    let long_name = format!("resources: [{}.yaml]\n", "n".repeat(300));
    for (kustomization, message) in [
        (
            "resources: [sa.yaml]\nnamePrefix: p-\n",
            "`namePrefix` changes what kustomize applies",
        ),
        (
            "resources: [sa.yaml]\npatches: []\n",
            "`patches` changes what kustomize applies",
        ),
        (
            "namespace: other\nresources: [sa.yaml]\n",
            "`namespace` changes what kustomize applies",
        ),
        (
            "resources: [sa.yaml]\nimages: []\n",
            "`images` changes what kustomize applies",
        ),
        (
            "kind: Component\nresources: [sa.yaml]\n",
            "not a kustomization that can be read here",
        ),
        ("resources: [../elsewhere.yaml]\n", "leaves the directory"),
        ("resources: [/etc/passwd]\n", "leaves the directory"),
        (
            "resources: [\"https://github.com/x/y//base?ref=v1\"]\n",
            "is a URL",
        ),
        ("resources: [missing.yaml]\n", "is not in the directory"),
        // A path that cannot be looked at says why, not that it is missing.
        (&long_name, "cannot be read at"),
        (
            "resources: [sa.yaml, plain]\n",
            "a folder without a kustomization",
        ),
    ] {
        write(&app.join("kustomization.yaml"), kustomization);
        let run = chartgen(&["check", target]);
        run.assert_refused(2, message);
        run.assert_refused(
            2,
            &format!(
                "hint: only `resources` are evaluated; check what kustomize builds: kubectl kustomize {target} | chartgen check -"
            ),
        );
        assert_eq!(run.stdout, "", "{kustomization}");
    }
}

/// A kustomize Kustomization in a stream is no object and changes what
/// gets applied: refused. Flux's Kustomization is a cluster object: read.
#[test]
fn a_kustomization_document_is_never_skipped_silently() {
    let stream = format!(
        "{SA}---\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata: {{name: k}}\nnamePrefix: p-\n"
    );
    let run = chartgen_with_stdin(&["check", "-"], Some(&stream));
    run.assert_refused(2, "<stdin>:5:1: a kustomize Kustomization (kustomize.config.k8s.io/v1beta1) changes what gets applied");
    assert!(
        run.stderr
            .contains("kubectl kustomize DIR | chartgen check -")
    );

    let flux = format!(
        "{SA}---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: apps, namespace: flux-system}}\nspec: {{path: ./apps}}\n"
    );
    let run = chartgen_with_stdin(&["check", "-"], Some(&flux));
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("Kustomization flux-system/apps"),
        "{}",
        run.stdout
    );
    // A kustomization named on the command line is no object either.
    let run = chartgen(&["check", "out/ovh-prod/release/kustomization.yaml"]);
    run.assert_refused(2, "a kustomize Kustomization");
}

/// chartgen's own output directories keep working: the kustomization lists
/// every object, and the exemptions artifact beside it is read as one.
#[test]
fn chartgen_output_directories_still_check() {
    let run = chartgen(&["check", "out/ovh-prod/release"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "");
}

/// A FIFO, socket or device inside a directory is refused from its
/// metadata, never opened: a FIFO nobody writes would block the reader
/// forever (the FIFO named on the command line is read: see
/// `a_fifo_named_on_the_command_line_is_read_as_it_streams`).
#[test]
fn special_files_are_refused_not_opened() {
    let dir_tmp = scratch("special");
    let dir = dir_tmp.path().to_path_buf();
    write(&dir.join("sa.yaml"), SA);
    let fifo = dir.join("pipe.yaml");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // Nobody writes the FIFO: a reader that opened it would hang here.
    for command in ["check", "rbac"] {
        let run = chartgen(&[command, dir.to_str().unwrap()]);
        run.assert_refused(
            2,
            "pipe.yaml is a FIFO (named pipe), not a regular file; nothing else is opened",
        );
    }
    let run = chartgen(&["diff", dir.to_str().unwrap(), "out/dev"]);
    run.assert_refused(2, "is a FIFO");
    std::fs::remove_file(&fifo).unwrap();
    let socket = dir.join("socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let run = chartgen(&["check", dir.to_str().unwrap()]);
    run.assert_refused(2, "socket is a socket");
    // Values files named with `-f` may be streams: `cli::values_from_*`.
    // A device named on the command line is read, but only up to the
    // budget: /dev/zero stops there, it does not fill the memory.
    if crate::tools::slow("/dev/zero, read up to the byte budget") {
        let run = chartgen(&["check", "/dev/zero"]);
        run.assert_refused(
            2,
            &format!(
                "error: /dev/zero:1:1: more than the limit of {} bytes in the whole input",
                LIMITS.max_bytes
            ),
        );
    }
    // A socket named on the command line stays refused: it cannot be read
    // as a file.
    let run = chartgen(&["check", socket.to_str().unwrap()]);
    run.assert_refused(2, "socket is a socket");
}

/// Makes a FIFO at `path` and writes `text` into it from a thread, as a
/// shell's process substitution does; the thread ends when a reader took
/// all of it.
fn fifo_writing(path: &Path, text: String) -> std::thread::JoinHandle<()> {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success());
    let path = path.to_owned();
    std::thread::spawn(move || {
        // Opening for writing waits for the reader, as a shell's would.
        std::fs::write(&path, text).unwrap();
    })
}

/// `diff <(chartgen render …) <(chartgen render …)`, `check` and `rbac` of
/// a pipe: a FIFO named on the command line is read as it streams, under
/// the same budget as a file.
#[test]
fn a_fifo_named_on_the_command_line_is_read_as_it_streams() {
    let dir_tmp = scratch("named-fifo");
    let dir = dir_tmp.path().to_path_buf();
    let (old, new) = (dir.join("old"), dir.join("new"));
    let writers = [
        fifo_writing(&old, SA.to_owned()),
        fifo_writing(&new, SA.replace("name: a", "name: b")),
    ];
    let run = chartgen(&["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
    for writer in writers {
        writer.join().unwrap();
    }
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            0,
            "Impact, most severe first:\n  change      ServiceAccount x/a → ServiceAccount x/b: renamed, same content: applied as a delete and a create\n1 object differs: 0 added, 0 removed, 0 changed, 1 renamed\n",
            ""
        )
    );
    let bound = format!(
        "{SA}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {{name: r, namespace: x}}\nrules: [{{apiGroups: [\"\"], resources: [pods], verbs: [get]}}]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: r, namespace: x}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}}\nsubjects: [{{kind: ServiceAccount, name: a, namespace: x}}]\n"
    );
    for command in ["check", "rbac"] {
        let fifo = dir.join(command);
        let writer = fifo_writing(&fifo, bound.clone());
        let run = chartgen(&[command, fifo.to_str().unwrap()]);
        writer.join().unwrap();
        assert_ne!(run.code, 2, "{command}: {}", run.stderr);
        // `check` counts the objects (none is the operator's: no
        // finding); `rbac` lists the account.
        let read = if command == "check" {
            "3 objects"
        } else {
            "x/a"
        };
        assert!(run.stdout.contains(read), "{command}: {}", run.stdout);
    }
    // Past the budget, a stream is refused like a file: /dev/zero in
    // `special_files_are_refused_not_opened` (the same reader).
}

/// A link inside an input directory is not read, and a note says so; a link
/// named on the command line is read (the user named it).
#[test]
fn links_inside_a_directory_are_not_read_and_say_so() {
    let dir_tmp = scratch("links");
    let dir = dir_tmp.path().to_path_buf();
    let elsewhere_tmp = scratch("links-elsewhere");
    let elsewhere = elsewhere_tmp.path().to_path_buf();
    write(&dir.join("sa.yaml"), SA);
    write(
        &elsewhere.join("other.yaml"),
        &SA.replace("name: a", "name: other"),
    );
    std::os::unix::fs::symlink(elsewhere.join("other.yaml"), dir.join("other.yaml")).unwrap();
    let run = chartgen(&["check", dir.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(objects_read(&run).contains(" 1 object,"), "{}", run.stdout);
    assert!(
        run.stderr
            .contains("other.yaml: a symbolic link inside an input directory is not followed"),
        "{}",
        run.stderr
    );
    let run = chartgen(&["check", dir.join("other.yaml").to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("ok: 1 object,"), "{}", run.stdout);
    // A kustomization that lists a link is refused: kustomize would follow it.
    write(
        &dir.join("kustomization.yaml"),
        "resources: [sa.yaml, other.yaml]\n",
    );
    let run = chartgen(&["check", dir.to_str().unwrap()]);
    run.assert_refused(2, "goes through the symbolic link");
}

/// 100,000 documents in one text are read (each with its `# Source:`
/// template); past the document budget, the error names it.
#[test]
fn many_documents_are_read_and_the_budget_is_named() {
    // 100,000 under CHARTGEN_SLOW; 5,000 read the same way.
    let count = crate::tools::cases(5_000, 100_000);
    let mut text = String::new();
    for i in 0..count {
        text += &format!(
            "---\n# Source: templates/t{i}.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}, namespace: x}}\n"
        );
    }
    let set = kubernetes::input::parse("many", &text).unwrap();
    assert_eq!(set.manifests.len(), count as usize);
    let last = count - 1;
    let last = set
        .manifests
        .iter()
        .find(|m| m.id.name == format!("c{last}"))
        .unwrap();
    assert_eq!(
        last.template.as_deref(),
        Some(format!("t{}.yaml", count - 1).as_str())
    );

    let empty = "---\n".repeat(yaml::MAX_DOCUMENTS + 1);
    let error = yaml::parse_manifests(&Source::file("t.yaml", empty), LIMITS).unwrap_err();
    assert_eq!(
        error.message,
        format!(
            "more than the limit of {} YAML documents",
            yaml::MAX_DOCUMENTS
        )
    );
}

/// Aliases still count every node they repeat in manifests.
#[test]
fn an_alias_bomb_in_a_manifest_runs_into_the_node_budget() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..9 {
        let p = i - 1;
        text += &format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        );
    }
    let error = yaml::parse_manifests(&Source::file("t.yaml", text), LIMITS).unwrap_err();
    assert!(
        error.message.starts_with(&format!(
            "more than the limit of {} YAML nodes",
            LIMITS.max_nodes
        )),
        "{}",
        error.message
    );
}

/// Thousands of bad documents: every problem is kept, so the count printed
/// at the end is true.
#[test]
fn every_problem_is_counted_and_the_printer_caps_them() {
    // The reader keeps every problem (the count stays true); the error
    // printer shows the first hundred (`tests/it/terminal.rs`).
    let text = "---\nkind: ConfigMap\n".repeat(150);
    let Err(kubernetes::error::Error::InvalidManifests { problems }) =
        kubernetes::input::parse("bad", &text)
    else {
        panic!("bad input read");
    };
    assert_eq!(problems.len(), 150);
}

/// Each syntax the corpus found read differently by YAML 1.1 and 1.2 is
/// refused, with a message that says why.
#[test]
fn syntax_read_differently_is_refused() {
    let cases = [
        ("a: b\tc\n", "a tab outside a quoted or block scalar"),
        ("[a,\tb]\n", "a tab outside a quoted or block scalar"),
        ("%YAML 1.2\n---\na: 1\n", "a YAML directive"),
        (
            "a: 1\n...\nb: 2\n",
            "a document after the first without `---`",
        ),
        ("|\n  text\n", "a document that is a single value"),
        ("--- |\ntext\n", "`---` followed by `|`"),
        ("a: [x?y]\n", "plain `x?y` in a flow collection"),
        ("a: {b: :c}\n", "plain `:c` in a flow collection"),
        ("a: &k\u{a0} 1\n", "the anchor or alias name `k\u{a0}`"),
        ("a: !!float 0x1F\n", "is not a decimal number"),
        ("a: !!bool yes\n", "plain `yes` is the boolean `true`"),
        (
            "!!int 1: a\n",
            "on a key; readers of YAML 1.1 and 1.2 take it differently",
        ),
        (
            "a: \u{1}\n",
            "U+0001, a character YAML does not allow unescaped",
        ),
        (
            "a: x\u{feff}\n",
            "a byte-order mark (U+FEFF) inside the text",
        ),
        ("a: <<\n", "but a merge key to other YAML 1.1 readers"),
        ("a: =\n", "but the value key `=` to other YAML 1.1 readers"),
        ("1_0: a\n", "plain key `1_0` is the integer `10`"),
    ];
    for (text, message) in cases {
        match yaml::parse_manifests(&Source::file("t.yaml", text), LIMITS) {
            Ok(nodes) => panic!("{text:?} read as {nodes:?}"),
            Err(e) => assert!(e.message.contains(message), "{text:?}: {}", e.message),
        }
    }
    // Where the readers agree, chartgen reads: tabs in quoted and block
    // scalars and comments, `:` inside a flow scalar, a quoted `<<`.
    let text = "a: 'x\ty'\nb: |\n  x\ty\n# c\td\nc: [m:1]\n\"<<\": 1\nd: 0x1F\n";
    let doc = yaml::parse_manifests(&Source::file("t.yaml", text), LIMITS).unwrap();
    assert_eq!(
        doc[0].to_json(),
        serde_json::json!({"a": "x\ty", "b": "x\ty\n", "c": ["m:1"], "<<": 1, "d": 31})
    );
}

/// A ConfigMap whose alias chain expands to about `nodes` nodes.
fn alias_bomb(name: &str, nodes: usize) -> String {
    let mut text = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: x}}\nbomb:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
    );
    let (mut level, mut size) = (0, 11);
    while size * 10 < nodes {
        let p = level;
        level += 1;
        text += &format!(
            "  a{level}: &a{level} [{}]\n",
            vec![format!("*a{p}"); 10].join(", ")
        );
        size = size * 10 + 1;
    }
    text += &format!(
        "  top: [{}]\n",
        vec![format!("*a{level}"); nodes / size].join(", ")
    );
    text
}

/// The node budget bounds the whole input, not each file: small files,
/// each well under it, cannot add up to more memory than one budget. The
/// error names the budget, says it is the input's total, and names the
/// file where it ran out.
#[test]
fn small_alias_bombs_in_many_files_share_one_node_budget() {
    if !crate::tools::slow("the whole node budget, expanded") {
        return;
    }
    let dir_tmp = scratch("bombs");
    let dir = dir_tmp.path().to_path_buf();
    let per_file = LIMITS.max_nodes / 4;
    for i in 0..8 {
        write(
            &dir.join(format!("b{i}.yaml")),
            &alias_bomb(&format!("b{i}"), per_file),
        );
    }
    // Each file alone is read: the budget is not spent by one of them.
    let one = dir.join("b0.yaml").display().to_string();
    assert_eq!(
        kubernetes::input::read(&[one], &chart::artifacts::READ)
            .unwrap()
            .manifests
            .len(),
        1
    );

    let Err(kubernetes::error::Error::InvalidManifests { problems }) =
        kubernetes::input::read(&[dir.display().to_string()], &chart::artifacts::READ)
    else {
        panic!("eight bombs of a quarter of the budget each were read");
    };
    assert_eq!(problems.len(), 1, "{problems:?}");
    let problem = &problems[0];
    assert!(
        problem.message.starts_with(&format!(
            "more than the limit of {} YAML nodes in the whole input, this file and those read before it together",
            LIMITS.max_nodes
        )),
        "{}",
        problem.message
    );
    // Each file holds over a quarter of the budget (its anchors count as
    // well as the expansions): a later file than the first, and one before
    // the last, runs it out.
    let at = problem.origin.to_string();
    assert!((1..7).any(|i| at.contains(&format!("/b{i}.yaml:"))), "{at}");
    assert!(
        problem
            .hint
            .as_deref()
            .unwrap_or_default()
            .contains("total")
    );

    // Through the command line: exit 2, the same message.
    let run = chartgen(&["check", &dir.display().to_string()]);
    run.assert_refused(2, "YAML nodes in the whole input");
    // diff's two sides are one input: two folders of three bombs each (each
    // side under the budget) are over it together.
    let (old, new) = (dir.join("old"), dir.join("new"));
    for (side, from) in [(&old, 0), (&new, 3)] {
        std::fs::create_dir_all(side).unwrap();
        for i in from..from + 3 {
            std::fs::rename(
                dir.join(format!("b{i}.yaml")),
                side.join(format!("b{i}.yaml")),
            )
            .unwrap();
        }
    }
    let old_side = old.display().to_string();
    assert!(
        kubernetes::input::read(std::slice::from_ref(&old_side), &chart::artifacts::READ).is_ok(),
        "one side alone is read"
    );
    let run = chartgen(&["diff", &old_side, &new.display().to_string()]);
    run.assert_refused(2, "YAML nodes in the whole input");
}

/// The byte budget bounds the whole input too: two files, each under it,
/// together over it, stop at the second.
#[test]
fn files_together_over_the_byte_budget_stop_at_the_one_that_passes_it() {
    if !crate::tools::slow("the whole byte budget, read") {
        return;
    }
    let dir_tmp = scratch("bytes");
    let dir = dir_tmp.path().to_path_buf();
    let half = "# padding\n".repeat(LIMITS.max_bytes / 2 / 10 + 1);
    write(&dir.join("a.yaml"), &format!("{SA}{half}"));
    write(&dir.join("b.yaml"), &half);
    write(&dir.join("c.yaml"), SA);
    let Err(kubernetes::error::Error::InvalidManifests { problems }) =
        kubernetes::input::read(&[dir.display().to_string()], &chart::artifacts::READ)
    else {
        panic!("files over the byte budget together were read");
    };
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(
        problems[0].message,
        format!(
            "more than the limit of {} bytes in the whole input, this file and those read before it together",
            LIMITS.max_bytes
        )
    );
    assert!(problems[0].origin.to_string().contains("b.yaml"));
}

/// Files chartgen found itself (`render --check` reads those of its output
/// directory) are never read as a stream nor as a git revision: a FIFO
/// swapped in after the folder was listed is refused, not waited on.
#[test]
fn files_chartgen_found_are_never_streams_or_revisions() {
    let dir_tmp = scratch("found");
    let dir = dir_tmp.path().to_path_buf();
    let fifo = dir.join("object.yaml");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let error =
        kubernetes::input::read_found(&[fifo.display().to_string()], &chart::artifacts::READ)
            .unwrap_err();
    let cause = std::error::Error::source(&error).unwrap().to_string();
    assert!(
        cause.contains("object.yaml is a FIFO (named pipe), not a regular file"),
        "{cause}"
    );
    let error =
        kubernetes::input::read_found(&["HEAD:out/dev".to_owned()], &chart::artifacts::READ)
            .unwrap_err();
    let cause = std::error::Error::source(&error).unwrap().to_string();
    assert!(cause.contains("No such file"), "{cause}");
}

/// The fast event source (`yaml::subset`) reads the chart's rendered
/// templates, at prod and with 50 projects, as saphyr does: the same
/// events with the same spans, so the reader makes the same nodes with the
/// same origins; and it reads most of them (the rest fall back to saphyr).
#[test]
fn the_fast_source_reads_the_chart_s_renders_as_saphyr_does() {
    use chart::{plan::Plan, render, values};
    let dir = tempfile::tempdir().unwrap();
    let many_file = crate::harness::many_projects(dir.path(), 50);
    let templates = render::templates().unwrap();
    let (mut fast_bytes, mut total_bytes) = (0, 0);
    for file in [root().join("values/ovh-prod.yaml"), many_file] {
        let loaded = values::load(&values::Inputs {
            files: vec![file],
            sets: Vec::new(),
        })
        .unwrap();
        let plan = Plan::new(&loaded.values);
        let plan = render::plan_value(&plan);
        for names in [&templates.objects, &templates.kata] {
            for rendered in render::render_objects(&templates, names, &plan).unwrap() {
                let text = &rendered.text;
                total_bytes += text.len();
                let saphyr: Vec<_> = saphyr_parser::Parser::new_from_str(text)
                    .collect::<Result<_, _>>()
                    .unwrap();
                if let Some(fast) = yaml::subset::events(text) {
                    assert_eq!(fast, saphyr, "{}", rendered.template);
                    fast_bytes += text.len();
                }
            }
        }
    }
    eprintln!("{fast_bytes} of {total_bytes} rendered bytes read by the fast source");
    assert!(
        fast_bytes * 10 > total_bytes * 9,
        "{fast_bytes} of {total_bytes}"
    );
}

/// The fast event source reads every YAML file of the repository (the
/// fixtures, both crates', the values files, the rendered `out/`, the
/// chart's rule files) as saphyr does: the same events with the same
/// spans, so the reader makes the same nodes with the same origins; and it
/// reads most of them. (The `kubernetes` crate holds its own fixtures to
/// the reader's two paths, nodes and errors too.)
#[test]
fn the_repository_s_yaml_reads_the_same_through_the_fast_source() {
    let files: Vec<std::path::PathBuf> = [
        "tests/fixtures",
        "crates/kubernetes/tests/fixtures",
        "values",
        "out",
        "crates/chart/src/check/rules",
    ]
    .into_iter()
    .flat_map(|dir| kubernetes::files::walk(&root().join(dir)).flatten())
    .filter(|entry| entry.file_type().is_file())
    .map(|entry| entry.into_path())
    .filter(|path| path.extension().is_some_and(|e| e == "yaml" || e == "yml"))
    .collect();
    let (mut fast, mut total) = (0, 0);
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        total += 1;
        let Some(events) = yaml::subset::events(&text) else {
            continue;
        };
        let saphyr: Result<Vec<_>, _> = saphyr_parser::Parser::new_from_str(&text).collect();
        let saphyr = saphyr.unwrap_or_else(|e| {
            panic!(
                "{}: saphyr refuses what the subset reads: {e}",
                file.display()
            )
        });
        assert_eq!(events, saphyr, "{}", file.display());
        fast += 1;
    }
    eprintln!("{fast} of {total} YAML files read by the fast source");
    assert!(total > 300, "{total} files");
    // Most of what the repository's renders and fixtures write is in the subset.
    assert!(fast * 10 > total * 9, "{fast} of {total}");
}

/// A manifest that is not UTF-8 text is named at the byte, as a values
/// file is (one message, the values' code): file, line and column, the line
/// shown as it reads, unless it could hold a Secret.
#[test]
fn a_manifest_not_utf8_is_located_as_a_values_file_is() {
    let dir = tempfile::tempdir().unwrap();
    let text = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: b}\ndata: {k: \"v\xff\"}\n";
    let (manifest, values) = (dir.path().join("inv.yaml"), dir.path().join("inv_v.yaml"));
    std::fs::write(&manifest, text).unwrap();
    std::fs::write(&values, text).unwrap();
    let (manifest, values) = (manifest.to_str().unwrap(), values.to_str().unwrap());
    let located = "4:13: the file is not UTF-8 text\n   |\n 4 | data: {k: \"v\u{fffd}\"}\n   |             ^\n";
    chartgen(&["check", manifest]).assert_refused(2, &format!("error: {manifest}:{located}"));
    chartgen(&["validate", "-f", values]).assert_refused(2, &format!("error: {values}:{located}"));
    let run = chartgen(&["check", dir.path().to_str().unwrap()]);
    run.assert_refused(2, &format!("error: {manifest}:{located}"));
    // Lines that end with a lone CR, or CRLF, are counted as YAML counts
    // them, and the line shown is that line.
    for end in [&b"\r"[..], b"\r\n"] {
        let text: Vec<u8> = (text.split(|b| *b == b'\n')).collect::<Vec<_>>().join(end);
        std::fs::write(dir.path().join("inv.yaml"), &text).unwrap();
        chartgen(&["check", manifest]).assert_refused(2, &format!("error: {manifest}:{located}"));
    }
    // UTF-16 (with its byte order mark, either order), which kubectl
    // reads: named, with what to do.
    for bom in [[0xff_u8, 0xfe], [0xfe, 0xff]] {
        std::fs::write(dir.path().join("inv.yaml"), [&bom[..], b"a\0:\0"].concat()).unwrap();
        let run = chartgen(&["check", manifest]);
        run.assert_refused(2, &format!("error: {manifest}:1:1: the file is UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8\n  hint: save it as UTF-8"));
    }
    let secret = b"apiVersion: v1\nkind: Secret\nmetadata: {name: a, namespace: b}\nstringData: {k: \"hunter2\xff\"}\n";
    std::fs::write(dir.path().join("inv.yaml"), secret).unwrap();
    let run = chartgen(&["check", manifest]);
    assert_eq!(
        run.stderr,
        format!("error: {manifest}:4:25: the file is not UTF-8 text\n")
    );
}

/// One pipe under two names (`-` and `/dev/stdin`, `/dev/fd/0`) is refused
/// by every command that reads several inputs: the second reader would
/// see a drained pipe and report its input as empty.
#[test]
fn one_pipe_named_twice_is_refused_everywhere() {
    let manifest = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a, namespace: b}\n";
    for (args, stdin) in [
        (&["rbac", "-", "/dev/stdin"][..], manifest),
        (&["check", "/dev/fd/0", "-"], manifest),
        (&["validate", "-f", "-", "-f", "/dev/stdin"], "buildd: {}\n"),
        (&["render", "-f", "/dev/stdin", "-f", "-"], "buildd: {}\n"),
    ] {
        let run = chartgen_with_stdin(args, Some(stdin));
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (2, ""),
            "{args:?}: {}",
            run.transcript()
        );
        run.assert_refused(
            2,
            "names a stream another argument reads too: a pipe can be read only once",
        );
    }
}

/// A JSON manifest's lone surrogate escape is U+FFFD, as kubectl's JSON
/// decoder (Go's) reads it and the API server stores it; a values file's
/// is refused, as Helm's YAML reader refuses it.
#[test]
fn a_json_manifests_lone_surrogate_is_read_as_go_reads_it() {
    let manifest = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"d"},"data":{"a":"\ud800b"}}"#;
    let run = chartgen_with_stdin(&["check", "-"], Some(manifest));
    assert_eq!(run.code, 0, "{}", run.transcript());
    let values = r#"{"commonAnnotations":{"a":"\ud800"}}"#;
    let run = chartgen_with_stdin(&["validate", "-f", "-"], Some(values));
    assert_eq!(run.code, 2, "{}", run.transcript());
}
