//! `chartgen validate` on fixture values files (issue 2, requirements 4-8).
//!
//! Each file in `tests/fixtures/validate/` is one case. Its first line may be
//! `# args: ...`, the whole command line with `{}` standing for the fixture's
//! path; without it the case runs `validate -f <fixture>`. The transcript
//! (command, exit code, stdout, stderr) is pinned by a snapshot.

use crate::harness::{chartgen, relative, root};

#[test]
fn fixtures() {
    insta::glob!("../fixtures/validate", "*.yaml", |path| {
        let fixture = relative(path);
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let args: Vec<String> = match text.lines().next().and_then(|l| l.strip_prefix("# args: ")) {
            Some(line) => line
                .split_whitespace()
                .map(|a| a.replace("{}", &fixture))
                .collect(),
            None => vec!["validate".into(), "-f".into(), fixture.clone()],
        };
        let run = chartgen(&args);
        if run.code == 0 {
            assert!(run.stderr.is_empty(), "a success says nothing on stderr");
        } else {
            assert!(run.stdout.is_empty(), "a failure prints nothing on stdout");
        }
        insta::assert_snapshot!(run.transcript());
    });
}

#[test]
fn every_environment_in_values_is_valid() {
    let mut seen = 0;
    for entry in std::fs::read_dir(root().join("values")).unwrap() {
        let path = relative(&entry.unwrap().path());
        let run = chartgen(&["validate", "-f", &path]);
        assert_eq!(run.code, 0, "{path}:\n{}", run.stderr);
        seen += 1;
    }
    assert!(
        seen >= 2,
        "values/ holds a dev and a production environment"
    );
}

#[test]
fn a_missing_file_names_the_file_and_the_cause() {
    let run = chartgen(&["validate", "-f", "values/nope.yaml"]);
    insta::assert_snapshot!(run.transcript(), @r"
    $ chartgen validate -f values/nope.yaml
    exit: 2
    --- stdout
    --- stderr
    error: cannot read values file `values/nope.yaml`
      caused by: No such file or directory (os error 2)
    ");
}

#[test]
fn a_directory_is_not_a_values_file() {
    let run = chartgen(&["validate", "-f", "values"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("error: cannot read values file `values`\n  caused by: ")
    );
}

#[test]
fn bad_usage_exits_2() {
    let run = chartgen(&["validate", "--frobnicate"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("unexpected argument '--frobnicate'"));
}

#[test]
fn a_huge_file_fails_fast_with_the_limit() {
    let dir = std::env::temp_dir().join(format!("chartgen-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("huge.yaml");
    let line = format!("# {}\n", "x".repeat(1022));
    std::fs::write(&path, line.repeat(5 * 1024)).unwrap();
    let run = chartgen(&["validate", "-f", path.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains(":1:1: larger than the limit of 4194304 bytes"),
        "{}",
        run.stderr
    );
}
