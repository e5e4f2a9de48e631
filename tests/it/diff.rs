//! `chartgen diff` on fixture pairs (issue 5, requirements 2-5). Each folder
//! in `crates/kubernetes/tests/fixtures/diff/` holds `old.yaml` (or an `old/` directory),
//! `new.yaml` (or a `new/` directory) and optionally `args`: extra
//! arguments, one run per line.

use crate::harness::{assert_contains, chartgen, chartgen_with, chartgen_with_stdin, relative};

/// `text` with each Secret token's hash (keyed anew every run) replaced by
/// its number in order of first appearance: `<secret #1>`. What a reviewer
/// relies on stays visible: equal values show one number, changed ones two.
pub fn numbered_tokens(text: &str) -> String {
    const PREFIX: &str = "<secret #";
    let mut seen: Vec<&str> = Vec::new();
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(PREFIX) {
        let (before, after) = rest.split_at(at + PREFIX.len());
        out.push_str(before);
        let hash = after
            .get(..16)
            .filter(|h| h.chars().all(|c| c.is_ascii_hexdigit()) && after[16..].starts_with('>'));
        match hash {
            Some(hash) => {
                let number = match seen.iter().position(|s| *s == hash) {
                    Some(n) => n + 1,
                    None => {
                        seen.push(hash);
                        seen.len()
                    }
                };
                out.push_str(&number.to_string());
                rest = &after[16..];
            }
            None => rest = after,
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn fixtures() {
    insta::glob!(
        "../../crates/kubernetes/tests/fixtures/diff",
        "*/{old.yaml,old}",
        |old| {
            let dir = old.parent().unwrap();
            let new = if dir.join("new").is_dir() {
                dir.join("new")
            } else {
                dir.join("new.yaml")
            };
            let runs = std::fs::read_to_string(dir.join("args")).unwrap_or_default();
            let mut transcripts = Vec::new();
            for extra in runs.lines().chain(runs.is_empty().then_some("")) {
                let mut args = vec!["diff".to_owned()];
                args.extend(extra.split_whitespace().map(str::to_owned));
                args.push(relative(old));
                args.push(relative(&new));
                let run = chartgen(&args);
                assert_eq!(run.stderr, "", "{args:?}");
                transcripts.push(run.transcript());
            }
            insta::assert_snapshot!(numbered_tokens(&transcripts.join("\n")));
        }
    );
}

#[test]
fn a_set_against_itself_or_a_reordered_copy_has_no_difference() {
    let render = chartgen(&["render", "-f", "values/ovh-prod.yaml", "--bundle", "all"]).stdout;
    let run = chartgen_with_stdin(&["diff", "--exit-code", "out/ovh-prod", "-"], Some(&render));
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "no differences\n"),
        "{}",
        run.stderr
    );
    let mut documents: Vec<&str> = render.split("---\n").filter(|d| !d.is_empty()).collect();
    documents.reverse();
    let reversed = format!("---\n{}", documents.join("---\n"));
    let run = chartgen_with_stdin(
        &["diff", "--exit-code", "-", "out/ovh-prod"],
        Some(&reversed),
    );
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "no differences\n"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_values_change_shows_as_fields_and_permissions() {
    // From 2 replicas: past one, the gateway's spread is on both sides.
    let old = chartgen(&[
        "render",
        "-f",
        "values/dev.yaml",
        "--set",
        "gateway.replicas=2",
    ])
    .stdout;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let old_file = dir.join("old.yaml");
    std::fs::write(&old_file, old).unwrap();
    let new = chartgen(&[
        "render",
        "-f",
        "values/dev.yaml",
        "--set",
        "gateway.replicas=3",
    ])
    .stdout;
    let run = chartgen_with_stdin(&["diff", old_file.to_str().unwrap(), "-"], Some(&new));
    assert_eq!(
        run.stdout,
        "~ Deployment buildkit-operator/buildkit-gateway\n    spec.replicas: 2 → 3\n1 object differs: 0 added, 0 removed, 1 changed\n"
    );
}

#[test]
fn bad_arguments_are_usage_errors() {
    let run = chartgen(&["diff", "-", "-"]);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (2, "error: only one side of a diff can be read from stdin\n")
    );
    // One pipe under two names: the second side would read nothing and
    // say every object was removed.
    for sides in [["/dev/stdin", "-"], ["-", "/dev/fd/0"]] {
        let manifests = "apiVersion: v1\nkind: Namespace\nmetadata: {name: prod}\n";
        let run = chartgen_with_stdin(&["diff", sides[0], sides[1]], Some(manifests));
        run.assert_refused(2, "both sides of the diff name one stream");
        assert!(run.stdout.is_empty(), "{sides:?}: {}", run.transcript());
    }
    let run = chartgen(&["diff", "--ignore", "metadata..name", "out/dev", "out/dev"]);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (2, "error: --ignore `metadata..name` has an empty segment\n")
    );
}

/// Permissions are compared on the RBAC objects alone, and computed once
/// when those are the same on both sides: past the grant budget the diff
/// still says they were not compared, whatever else changed.
#[test]
fn permissions_past_the_budget_are_not_compared_even_when_unchanged() {
    let rbac = crate::cost::hostile_rbac(61);
    let config = |value: &str| {
        format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c, namespace: ns}}\ndata: {{a: {value}}}\n"
        )
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let (old, new) = (dir.join("old.yaml"), dir.join("new.yaml"));
    std::fs::write(&old, format!("{rbac}{}", config("one"))).unwrap();
    std::fs::write(&new, format!("{rbac}{}", config("two"))).unwrap();
    let run = chartgen(&["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("~ ConfigMap ns/c\n    data.a: \"one\" → \"two\"\nEffective permissions:\n  not compared: the effective permissions of this input are more than 500000 grants"),
        "{}",
        run.stdout
    );
    // Nothing that grants changed, so the security gate passes.
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    let run = chartgen(&["diff", "--fail-on", "security", old, new]);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

/// A role that changes among objects that do not: its permissions show.
/// A whole number written as a float is the integer kubectl sends: `2.0`
/// over `2` changes nothing stored (a review's server kept the object as
/// it was); `2.5` is another value.
#[test]
fn a_whole_float_over_its_integer_is_no_change() {
    let dir = tempfile::tempdir().unwrap();
    let deployment = |replicas: &str| {
        let path = dir.path().join(format!("{replicas}.yaml"));
        std::fs::write(
            &path,
            format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d, namespace: a}}\nspec:\n  replicas: {replicas}\n  \
                 selector: {{matchLabels: {{a: b}}}}\n  template:\n    metadata: {{labels: {{a: b}}}}\n    \
                 spec: {{containers: [{{name: c, image: 'nginx:1'}}]}}\n"
            ),
        )
        .unwrap();
        path.to_str().unwrap().to_owned()
    };
    let (two, whole, half) = (deployment("2"), deployment("2.0"), deployment("2.5"));
    let run = chartgen(&["diff", &two, &whole]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "no differences\n"),
        "{}",
        run.transcript()
    );
    let run = chartgen(&["diff", &two, &half]);
    assert!(
        run.stdout.contains("spec.replicas: 2 → 2.5"),
        "{}",
        run.stdout
    );
}

/// A ClusterRole that drops its `aggregationRule` and writes no `rules`
/// keeps the rules its aggregation controller wrote (neither apply removes
/// what the controller owns: a v1.35 server still said yes to `get
/// secrets`); `rules: []` removes them.
#[test]
fn dropping_an_aggregation_rule_keeps_the_rules_it_gathered() {
    let dir = tempfile::tempdir().unwrap();
    let set = |rule: &str| {
        format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: parent}}\n{rule}---\n\
             apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: child, labels: {{agg: x}}}}\n\
             rules: [{{apiGroups: [''], resources: [secrets], verbs: [get]}}]\n---\n\
             apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: b, namespace: apps}}\n\
             roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: parent}}\n\
             subjects: [{{kind: ServiceAccount, name: sa, namespace: apps}}]\n"
        )
    };
    let write = |name: &str, text: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let old = write(
        "old.yaml",
        set("aggregationRule: {clusterRoleSelectors: [{matchLabels: {agg: x}}]}\n"),
    );
    let dropped = write("dropped.yaml", set(""));
    let emptied = write("emptied.yaml", set("rules: []\n"));
    let run = chartgen(&["diff", &old, &dropped]);
    assert!(!run.stdout.contains("loses"), "{}", run.stdout);
    let run = chartgen(&["diff", &old, &emptied]);
    assert!(
        run.stdout.contains("apps/sa loses get on secrets in apps"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_role_change_among_unchanged_objects_shows_in_permissions() {
    let role = |verbs: &str| {
        let configs: String = (0..50)
            .map(|i| format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}, namespace: ns}}\ndata: {{a: b}}\n"))
            .collect();
        format!(
            "{configs}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {{name: r, namespace: ns}}\nrules: [{{apiGroups: [\"\"], resources: [pods], verbs: [{verbs}]}}]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: r, namespace: ns}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}}\nsubjects: [{{kind: ServiceAccount, name: app}}]\n"
        )
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let old = dir.join("old.yaml");
    std::fs::write(&old, role("get")).unwrap();
    let run = chartgen_with_stdin(
        &["diff", old.to_str().unwrap(), "-"],
        Some(&role("get, delete")),
    );
    assert_eq!(
        run.stdout,
        "Impact, most severe first:\n  security    ServiceAccount ns/app: gains delete on pods in ns (through RoleBinding ns/r → Role ns/r)\n~ Role ns/r\n    rules[0].verbs: [\"get\"] → [\"get\", \"delete\"]\nEffective permissions:\n  ns/app gains delete on pods in ns\n1 object differs: 0 added, 0 removed, 1 changed\n",
        "{}",
        run.stderr
    );
}

/// A scratch git repository for the `REV:PATH` tests, removed on drop.
struct Repo(tempfile::TempDir);

impl Repo {
    fn new(name: &str) -> Self {
        let dir = tempfile::Builder::new()
            .prefix(&format!("chartgen-git-{name}-"))
            .tempdir()
            .unwrap();
        let repo = Repo(dir);
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    fn git(&self, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
            .args(args)
            .current_dir(self.0.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn write(&self, path: &str, text: &str) {
        let path = self.0.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn commit(&self) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", "c"]);
    }

    /// Runs chartgen in the repository, its temporary files in a folder
    /// of their own, removed after (a copy it left would not pile up in
    /// the system's temporary folder).
    fn chartgen(&self, args: &[&str]) -> crate::harness::Run {
        let tmpdir = tempfile::tempdir().unwrap();
        self.chartgen_with_tmpdir(args, tmpdir.path())
    }

    /// Runs chartgen in the repository, its temporary files in `tmpdir`.
    fn chartgen_with_tmpdir(&self, args: &[&str], tmpdir: &std::path::Path) -> crate::harness::Run {
        let output = crate::harness::command(self.0.path(), args)
            .env("TMPDIR", tmpdir)
            .output()
            .unwrap();
        crate::harness::Run {
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            code: output.status.code().unwrap(),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }
}

fn config_map(name: &str, value: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: ns}}\ndata: {{a: {value}}}\n"
    )
}

const KUSTOMIZATION: &str = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml, b.yaml]\n";

/// A revision's copy is removed when chartgen ends, whatever the command
/// and its verdict: a CI job diffing every pull request leaves nothing in
/// the temporary folder.
#[test]
fn the_copy_of_a_revision_is_removed_at_exit() {
    let repo = Repo::new("copy-removed");
    repo.write("out/a.yaml", &config_map("a", "1"));
    repo.commit();
    repo.write("out/a.yaml", &config_map("a", "2"));
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        &["diff", "HEAD:out", "out"][..],
        &["diff", "--exit-code", "HEAD:out", "out"][..],
        &["check", "HEAD:out/a.yaml"][..],
        &["rbac", "HEAD:out"][..],
        &["diff", "HEAD:out", "no-such-folder"][..],
    ] {
        let run = repo.chartgen_with_tmpdir(args, tmp.path());
        assert_ne!(run.code, 101, "{args:?}: {}", run.stderr);
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
}

/// `diff REV:PATH PATH` reads a rendered folder (or file) from a revision
/// without a checkout, as a checkout would read it (kustomization
/// included), beside the working tree, another revision, and for `check`.
#[test]
fn a_folder_of_a_git_revision_is_read_without_a_checkout() {
    let repo = Repo::new("revision");
    repo.write("out/prod/kustomization.yaml", KUSTOMIZATION);
    repo.write("out/prod/a.yaml", &config_map("a", "one"));
    repo.write("out/prod/b.yaml", &config_map("b", "one"));
    repo.commit();
    repo.write("out/prod/a.yaml", &config_map("a", "two"));
    let changed = "~ ConfigMap ns/a\n    data.a: \"one\" → \"two\"\n1 object differs: 0 added, 0 removed, 1 changed\n";
    for (old, new) in [
        ("HEAD:out/prod", "out/prod"),
        ("main:out/prod/", "out/prod"),
        ("HEAD:out/prod/a.yaml", "out/prod/a.yaml"),
    ] {
        let run = repo.chartgen(&["diff", old, new]);
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (0, changed, ""),
            "{old}"
        );
    }
    repo.commit();
    let run = repo.chartgen(&["diff", "HEAD~1:out/prod", "HEAD:out/prod"]);
    assert_eq!(run.stdout, changed, "{}", run.stderr);
    // The copy is read like a checkout: an unlisted file is refused, named
    // by its place in the revision.
    repo.write("out/prod/c.yaml", &config_map("c", "one"));
    repo.commit();
    let run = repo.chartgen(&["check", "HEAD:out/prod"]);
    run.assert_refused(
        2,
        "HEAD:out/prod/c.yaml is not listed in the resources of HEAD:out/prod's kustomization",
    );
    run.assert_stderr_lacks("manifests-rev-");
    // A kustomization that does more than list resources: kubectl cannot
    // read `REV:PATH`, so the hint builds from a checkout of the revision.
    repo.write(
        "out/prod/kustomization.yaml",
        &format!("{KUSTOMIZATION}namePrefix: x-\n"),
    );
    repo.commit();
    let run = repo.chartgen(&["check", "HEAD:out/prod"]);
    run.assert_refused(2, "check what kustomize builds from a checkout of the revision: git worktree add /tmp/rev HEAD && kubectl kustomize /tmp/rev/out/prod | chartgen check -");
}

/// Links and submodules in a revision's tree are skipped with a note, in
/// the directory reader's words (it reads the copy); one named is refused.
#[test]
fn links_and_submodules_in_a_revision_are_not_read() {
    let repo = Repo::new("links");
    repo.write("out/a.yaml", &config_map("a", "one"));
    std::os::unix::fs::symlink("/etc/passwd", repo.0.path().join("out/link.yaml")).unwrap();
    repo.commit();
    let commit = repo.git(&["rev-parse", "HEAD"]);
    let cacheinfo = format!("160000,{},out/sub", commit.trim());
    repo.git(&["update-index", "--add", "--cacheinfo", &cacheinfo]);
    repo.git(&["commit", "-q", "-m", "submodule"]);
    let run = repo.chartgen(&["diff", "HEAD:out", "HEAD:out"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "no differences\n");
    assert_eq!(
        run.stderr,
        "note: not reading HEAD:out/link.yaml: a symbolic link inside an input directory is not followed\n\
         note: not reading HEAD:out/sub: a submodule (another repository's checkout); no other repository is read\n"
            .repeat(2)
    );
    // The whole tree: each path named as REV:PATH names it, without a
    // leading `/` (which REV:PATH refuses).
    let run = repo.chartgen(&["diff", "HEAD:", "HEAD:out"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("note: not reading HEAD:out/link.yaml: a symbolic link"),
        "{}",
        run.stderr
    );
    for (named, why) in [
        ("HEAD:out/link.yaml", "a symbolic link in the revision"),
        ("HEAD:out/sub", "a submodule"),
    ] {
        let run = repo.chartgen(&["check", named]);
        run.assert_refused(2, &format!("`{named}` is {why}"));
    }
    repo.write("bad.yaml", "a: [\n");
    repo.commit();
    let run = repo.chartgen(&["diff", "HEAD:", "HEAD:out"]);
    run.assert_refused(2, "error: HEAD:bad.yaml:1:5: ");
}

/// One entry of a tree materialised both on disk and in a revision.
#[derive(Clone, Copy)]
enum Entry {
    File(&'static str),
    Link(&'static str),
    Submodule,
}

/// One reading of a folder: every shape of tree, written in a working
/// tree (a submodule as its checkout, with its `.git`) and committed, reads
/// the same as `DIR` and as `HEAD:DIR`: the same objects, notes, errors and
/// exit code, in the same words (the revision's paths named `HEAD:DIR/…`).
#[test]
fn a_revision_reads_as_the_same_folder_on_disk() {
    use Entry::{File, Link, Submodule};
    const LIST_A: &str =
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml]\n";
    const A: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ns}\n";
    const B: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: ns}\n";
    const JSON: &str = r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j", "namespace": "ns"}}"#;
    const EXEMPTIONS: &str = "disallow-privileged:\n  excludedNamespaces: [builds]\n";
    let shapes: &[(&str, &[(&str, Entry)])] = &[
        (
            "plain folder: YAML, JSON, hidden, nested; other files passed over",
            &[
                ("a.yaml", File(A)),
                ("b.yml", File(B)),
                ("j.json", File(JSON)),
                (
                    ".hidden.yaml",
                    File("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h, namespace: ns}\n"),
                ),
                ("notes.txt", File("not: [yaml")),
                (
                    "deep/er/c.yaml",
                    File("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns}\n"),
                ),
            ],
        ),
        (
            "unlisted file refused",
            &[
                ("kustomization.yaml", File(LIST_A)),
                ("a.yaml", File(A)),
                ("b.yaml", File(B)),
            ],
        ),
        (
            "unlisted file in a subfolder refused",
            &[
                ("kustomization.yaml", File(LIST_A)),
                ("a.yaml", File(A)),
                ("sub/b.yaml", File(B)),
            ],
        ),
        (
            "exemptions artifact beside a kustomization",
            &[
                ("kustomization.yaml", File(LIST_A)),
                ("a.yaml", File(A)),
                ("kyverno-exemptions.yaml", File(EXEMPTIONS)),
            ],
        ),
        (
            "linked kustomization refused",
            &[
                ("kustomization.yaml", Link("k.txt")),
                ("k.txt", File(LIST_A)),
                ("a.yaml", File(A)),
            ],
        ),
        (
            "linked file passed over",
            &[("a.yaml", File(A)), ("b.yaml", Link("a.yaml"))],
        ),
        (
            "linked folder passed over",
            &[("a.yaml", File(A)), ("more", Link("."))],
        ),
        (
            "link to outside passed over",
            &[("a.yaml", File(A)), ("passwd.yaml", Link("/etc/passwd"))],
        ),
        (
            "resource through a link refused",
            &[
                (
                    "kustomization.yaml",
                    File("resources: [a.yaml, l/b.yaml]\n"),
                ),
                ("a.yaml", File(A)),
                ("l", Link("real")),
                ("real/b.yaml", File(B)),
            ],
        ),
        (
            "submodule passed over",
            &[("a.yaml", File(A)), ("vendor", Submodule)],
        ),
        (
            "resource in a submodule refused",
            &[
                ("kustomization.yaml", File("resources: [a.yaml, vendor]\n")),
                ("a.yaml", File(A)),
                ("vendor", Submodule),
            ],
        ),
        (
            "nested kustomizations",
            &[
                ("kustomization.yaml", File("resources: [a.yaml, base]\n")),
                ("a.yaml", File(A)),
                ("base/kustomization.yml", File("resources: [b.yaml]\n")),
                ("base/b.yaml", File(B)),
            ],
        ),
        (
            "listed folder without a kustomization",
            &[
                ("kustomization.yaml", File("resources: [base]\n")),
                ("base/b.yaml", File(B)),
            ],
        ),
        (
            "two kustomizations",
            &[
                ("kustomization.yaml", File(LIST_A)),
                ("Kustomization", File(LIST_A)),
                ("a.yaml", File(A)),
            ],
        ),
        (
            "listed non-YAML file read",
            &[
                ("kustomization.yaml", File("resources: [a.txt]\n")),
                ("a.txt", File(A)),
            ],
        ),
        (
            "resource leaving the folder",
            &[
                ("kustomization.yaml", File("resources: [../x.yaml]\n")),
                ("a.yaml", File(A)),
            ],
        ),
        (
            "missing resource",
            &[("kustomization.yaml", File("resources: [nothere.yaml]\n"))],
        ),
        (
            "invalid YAML",
            &[("a.yaml", File(A)), ("bad.yaml", File("a: [\n"))],
        ),
        ("no objects", &[("notes.txt", File("hello"))]),
        (
            "duplicate objects",
            &[("a.yaml", File(A)), ("again.yaml", File(A))],
        ),
    ];
    for (shape, entries) in shapes {
        let repo = Repo::new("one-reading");
        repo.write("base.yaml", A);
        let mut submodules = Vec::new();
        for (path, entry) in *entries {
            let at = repo.0.path().join("tree").join(path);
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            match entry {
                File(text) => std::fs::write(&at, text).unwrap(),
                Link(to) => std::os::unix::fs::symlink(to, &at).unwrap(),
                Submodule => submodules.push(format!("tree/{path}")),
            }
        }
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "c"]);
        let commit = repo.git(&["rev-parse", "HEAD"]);
        for path in &submodules {
            repo.git(&[
                "update-index",
                "--add",
                "--cacheinfo",
                &format!("160000,{},{path}", commit.trim()),
            ]);
            // The submodule's checkout: its folder with its `.git`.
            repo.write(&format!("{path}/.git"), "gitdir: ../.git/modules/vendor\n");
            repo.write(&format!("{path}/inside.yaml"), B);
        }
        if !submodules.is_empty() {
            repo.git(&["commit", "-q", "-m", "submodule"]);
        }
        let on_disk = repo.chartgen(&["diff", "base.yaml", "tree"]);
        let in_git = repo.chartgen(&["diff", "base.yaml", "HEAD:tree"]);
        // The one difference meant: kubectl cannot read `REV:PATH`, so the
        // hint builds from a checkout of the revision.
        let named = |text: &str| {
            text.replace(
                " from a checkout of the revision: git worktree add /tmp/rev HEAD && kubectl kustomize /tmp/rev/tree",
                ": kubectl kustomize tree",
            )
            .replace("HEAD:tree", "tree")
        };
        assert_eq!(
            (in_git.code, named(&in_git.stdout), named(&in_git.stderr)),
            (on_disk.code, on_disk.stdout.clone(), on_disk.stderr.clone()),
            "{shape}"
        );
    }
}

/// What cannot be read from git says why and exits 2; a local path wins
/// over `REV:PATH`, and a revision is never taken as an option.
#[test]
fn git_revisions_that_cannot_be_read_are_usage_errors() {
    let repo = Repo::new("errors");
    repo.write("out/a.yaml", &config_map("a", "one"));
    repo.commit();
    for (arg, message) in [
        (
            "nope:out",
            "caused by: unknown revision `nope` in `nope:out`",
        ),
        (
            "HEAD:out/none",
            "caused by: `out/none` is not in revision `HEAD`",
        ),
        ("HEAD:../out", "without `.`, `..` or a leading `/`"),
        (
            "-c:out",
            "`-c` is no revision: a revision never starts with `-`",
        ),
        ("--output=x:out", "a revision never starts with `-`"),
    ] {
        let run = repo.chartgen(&["diff", "--", arg, "out"]);
        run.assert_refused(2, message);
        assert_eq!(run.stdout, "");
    }
    // A local file whose name holds a colon is read as a file.
    repo.write("HEAD:out", &config_map("a", "two"));
    let run = repo.chartgen(&["diff", "HEAD:out", "out"]);
    assert_eq!(
        run.stdout,
        "~ ConfigMap ns/a\n    data.a: \"two\" → \"one\"\n1 object differs: 0 added, 0 removed, 1 changed\n",
        "{}",
        run.stderr
    );
    // Outside a repository.
    let elsewhere_tmp = tempfile::tempdir().unwrap();
    let elsewhere = elsewhere_tmp.path().to_path_buf();
    std::fs::create_dir_all(&elsewhere).unwrap();
    let ceiling = std::env::temp_dir();
    crate::harness::chartgen_at(
        &elsewhere,
        &["diff", "HEAD:out", "HEAD:out"],
        None,
        &[("GIT_CEILING_DIRECTORIES", ceiling.to_str().unwrap())],
    )
    .assert_refused(
        2,
        "not a git repository here, so `HEAD:out` cannot be read as REV:PATH",
    );
}

/// A revision's folder past the byte budget is refused from the sizes git
/// lists, before any of it is read or copied.
#[test]
fn a_revision_past_the_budget_is_refused_before_reading() {
    if !crate::tools::slow("a revision of 64 MB") {
        return;
    }
    let repo = Repo::new("budget");
    let big = format!(
        "{}#{}\n",
        config_map("a", "one"),
        "x".repeat(kubernetes::manifest::LIMITS.max_bytes)
    );
    repo.write("out/a.yaml", &big);
    repo.commit();
    std::fs::remove_file(repo.0.path().join("out/a.yaml")).unwrap();
    let run = repo.chartgen(&["check", "HEAD:out"]);
    run.assert_refused(
        2,
        &format!(
            "`HEAD:out` holds {} bytes of manifests, more than is left of the limit of",
            big.len()
        ),
    );
}

/// A large file the reader does not read (an archive beside the
/// manifests) refuses the revision no more than the folder on disk: both
/// read the same objects.
#[test]
fn a_large_unread_file_counts_in_neither_reading() {
    let repo = Repo::new("unread");
    repo.write("out/a.yaml", &config_map("a", "one"));
    let archive = "x".repeat(kubernetes::manifest::LIMITS.max_bytes + 1);
    repo.write("out/chart.tgz", &archive);
    repo.commit();
    let on_disk = repo.chartgen(&["diff", "out", "out"]);
    assert_eq!(on_disk.code, 0, "{}", on_disk.stderr);
    let at_head = repo.chartgen(&["diff", "HEAD:out", "out"]);
    assert_eq!(at_head.code, 0, "{}", at_head.stderr);
    assert_eq!(at_head.stdout, on_disk.stdout);
}

const HELM_OLD: &str = "crates/kubernetes/tests/fixtures/diff/helm-release-prefix/old.yaml";
const HELM_NEW: &str = "crates/kubernetes/tests/fixtures/diff/helm-release-prefix/new.yaml";

/// `--ignore-helm` removes Helm's labels and annotations, and nothing else:
/// without it they show on every matched object; a selector stays compared.
#[test]
fn helm_labels_and_annotations_vanish_only_with_ignore_helm() {
    let helm_keys = [
        "helm.sh/chart",
        "managed-by",
        "heritage",
        "labels.release",
        "labels.chart",
        "meta.helm.sh",
    ];
    let run = chartgen(&["diff", "--map", "buildkit-*=*", HELM_OLD, HELM_NEW]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for key in helm_keys {
        assert!(run.stdout.contains(key), "{key}: {}", run.stdout);
    }
    let run = chartgen(&[
        "diff",
        "--map",
        "buildkit-*=*",
        "--ignore-helm",
        HELM_OLD,
        HELM_NEW,
    ]);
    for key in helm_keys {
        assert!(!run.stdout.contains(key), "{key}: {}", run.stdout);
    }
    // A selector is immutable: a Helm label there is a change to know of,
    // and the impact says the apply is refused.
    let deployment = |selector: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d, namespace: ns, labels: {{release: r, heritage: Helm}}}}\nspec: {{selector: {{matchLabels: {{{selector}}}}}}}\n"
        )
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let old = dir.join("old.yaml");
    std::fs::write(&old, deployment("app: d, release: r")).unwrap();
    let run = chartgen_with_stdin(
        &["diff", "--ignore-helm", old.to_str().unwrap(), "-"],
        Some(&deployment("app: d").replace(", labels: {release: r, heritage: Helm}", "")),
    );
    assert_eq!(
        run.stdout,
        "Impact, most severe first:\n  refused     Deployment ns/d: cannot change spec.selector.matchLabels.release: the API server refuses the apply; delete the object and create it again (its pods go with it)\n~ Deployment ns/d\n    - spec.selector.matchLabels.release: \"r\"\n1 object differs: 0 added, 0 removed, 1 changed\n",
        "{}",
        run.stderr
    );
}

/// `--ignore-helm` keeps a Helm label that a selector selects on: a
/// Service selecting `release: r` loses its pods when their template drops
/// the label, and the diff must show that.
#[test]
fn ignore_helm_keeps_the_labels_a_selector_selects() {
    let set = |pod_labels: &str| {
        format!(
            "apiVersion: v1\nkind: Service\nmetadata: {{name: d, namespace: ns}}\nspec: {{selector: {{app: d, release: r}}}}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d, namespace: ns}}\nspec: {{selector: {{matchLabels: {{app: d}}}}, template: {{metadata: {{labels: {{{pod_labels}}}}}}}}}\n"
        )
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let old = dir.join("old.yaml");
    std::fs::write(&old, set("app: d, release: r, heritage: Helm")).unwrap();
    let run = chartgen_with_stdin(
        &["diff", "--ignore-helm", old.to_str().unwrap(), "-"],
        Some(&set("app: d")),
    );
    // The new Service no longer selects `release`: the pods may drop it,
    // and only the selector's own change shows.
    let dropped = chartgen_with_stdin(
        &["diff", "--ignore-helm", old.to_str().unwrap(), "-"],
        Some(&set("app: d").replace("app: d, release: r", "app: d")),
    );
    assert!(
        !dropped.stdout.contains("spec.template") && dropped.stdout.contains("~ Service ns/d"),
        "{}",
        dropped.stdout
    );
    assert_eq!(
        run.stdout,
        "Impact, most severe first:\n  restart     Deployment ns/d: new pod template (labels): its pods are replaced\n~ Deployment ns/d\n    - spec.template.metadata.labels.release: \"r\"\n1 object differs: 0 added, 0 removed, 1 changed\n",
        "{}",
        run.stderr
    );
}

/// A new workload's pods gain every privilege they run with, so
/// `--fail-on security` gates a privileged DaemonSet added to the set; the
/// same workload renamed brings nothing new.
#[test]
fn a_new_privileged_workload_is_a_security_impact() {
    let workload = |name: &str| {
        format!(
            "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: {name}, namespace: ns}}\nspec: {{selector: {{matchLabels: {{app: x}}}}, template: {{metadata: {{labels: {{app: x}}}}, spec: {{hostPID: true, containers: [{{name: c, image: x, securityContext: {{privileged: true}}}}]}}}}}}\n"
        )
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let old = dir.join("old.yaml");
    std::fs::write(&old, config_map("a", "one")).unwrap();
    let old = old.to_str().unwrap().to_owned();
    let added = chartgen_with_stdin(
        &["diff", "--fail-on", "security", &old, "-"],
        Some(&format!("{}{}", config_map("a", "one"), workload("d"))),
    );
    let before = dir.join("before.yaml");
    std::fs::write(&before, workload("d")).unwrap();
    let renamed = chartgen_with_stdin(
        &[
            "diff",
            "--fail-on",
            "security",
            before.to_str().unwrap(),
            "-",
        ],
        Some(&workload("e")),
    );
    assert_eq!(added.code, 1, "{}{}", added.stdout, added.stderr);
    assert!(
        added.stdout.contains(
            "security    DaemonSet ns/d: its pods (spec.template) need Pod Security privileged: Host Namespaces: host namespaces (hostPID=true); Privileged Containers: privileged (container \"c\" must not set securityContext.privileged=true)\n"
        ),
        "{}",
        added.stdout
    );
    assert_eq!(renamed.code, 0, "{}{}", renamed.stdout, renamed.stderr);
    assert!(!renamed.stdout.contains("security"), "{}", renamed.stdout);
}

/// A Secret's `type` never changes (`ValidateSecretUpdate`), whether or
/// not the Secret is marked immutable: the apply is refused.
#[test]
fn a_secret_type_change_is_refused() {
    let secret = |kind: &str| {
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata: {{name: s, namespace: ns}}\ntype: {kind}\n"
        )
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let old = dir.join("old.yaml");
    std::fs::write(&old, secret("Opaque")).unwrap();
    let run = chartgen_with_stdin(
        &["diff", "--fail-on", "refused", old.to_str().unwrap(), "-"],
        Some(&secret("kubernetes.io/tls")),
    );
    // No type is `Opaque`: writing it out changes nothing.
    let defaulted = chartgen_with_stdin(
        &["diff", "--fail-on", "refused", old.to_str().unwrap(), "-"],
        Some(&secret("Opaque").replace("type: Opaque\n", "")),
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("refused     Secret ns/s: cannot change type: the API server refuses"),
        "{}",
        run.stdout
    );
    assert_eq!(
        defaulted.code, 0,
        "{}{}",
        defaulted.stdout, defaulted.stderr
    );
}

/// An object `--map` matches under another name is a new object to the API
/// server: its selector is set at creation, never refused (the README's
/// migration step 3), so `--fail-on refused` does not fail on it; the same
/// selector change under one name is refused.
#[test]
fn a_mapped_object_is_created_so_its_immutable_fields_are_not_refused() {
    let deployment = |name: &str, selector: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: ns}}\nspec: {{selector: {{matchLabels: {{{selector}}}}}}}\n"
        )
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let old = dir.join("old.yaml");
    std::fs::write(&old, deployment("r-d", "app: d, release: r")).unwrap();
    let old = old.to_str().unwrap().to_owned();
    let new = deployment("d", "app: d");
    let run = chartgen_with_stdin(
        &["diff", "--fail-on", "refused", "--map", "r-*=*", &old, "-"],
        Some(&new),
    );
    let named = chartgen_with_stdin(
        &["diff", "--fail-on", "refused", &old, "-"],
        Some(&deployment("r-d", "app: d")),
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("refused"), "{}", run.stdout);
    assert!(
        run.stdout.contains("- spec.selector.matchLabels.release"),
        "{}",
        run.stdout
    );
    assert_eq!(named.code, 1, "{}{}", named.stdout, named.stderr);
    assert!(named.stdout.contains("refused"), "{}", named.stdout);
}

/// The old object of a `--map` match is deleted: a Namespace takes
/// everything in it along, so the match is destructive, as a removal is.
#[test]
fn a_mapped_namespace_is_still_a_deletion() {
    let namespace =
        |name: &str| format!("apiVersion: v1\nkind: Namespace\nmetadata: {{name: {name}}}\n");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let old = dir.join("old.yaml");
    std::fs::write(&old, namespace("r-apps")).unwrap();
    let run = chartgen_with_stdin(
        &[
            "diff",
            "--fail-on",
            "destructive",
            "--map",
            "r-*=*",
            old.to_str().unwrap(),
            "-",
        ],
        Some(&namespace("apps")),
    );
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (
            1,
            "Impact, most severe first:\n  destructive Namespace r-apps: deleted, as a map matched it with Namespace apps: everything in it is deleted with it\n  change      Namespace r-apps → Namespace apps: matched by a map, another object for the cluster: applied as a delete and a create\n= Namespace r-apps as Namespace apps (map r-*=*)\nno object differs field by field, but applying has the impact above\n"
        ),
        "{}",
        run.stderr
    );
}

/// A malformed `--map`, or maps that give two old objects one identity, are
/// usage errors: one object would silently hide the other.
#[test]
fn maps_that_would_hide_an_object_are_refused() {
    let config = |name: &str| {
        format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: ns}}\n")
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let old = dir.join("old.yaml");
    std::fs::write(&old, format!("{}{}", config("a-x"), config("b-x"))).unwrap();
    let old = old.to_str().unwrap();
    let run = chartgen_with_stdin(&["diff", "--map", "*-x=x", old, "-"], Some(&config("x")));
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            2,
            "",
            "error: --map gives ConfigMap ns/a-x and ConfigMap ns/b-x one identity, ConfigMap ns/x: one would hide the other; make the maps more specific\n"
        )
    );
    // Mapped onto an old object that keeps its name: refused too.
    let run = chartgen_with_stdin(&["diff", "--map", "a-x=b-x", old, "-"], Some(&config("x")));
    run.assert_refused(2, "one identity, ConfigMap ns/b-x");
    let run = chartgen(&["diff", "--map", "a=*", HELM_OLD, HELM_NEW]);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            2,
            "error: invalid --map `a=*`: `*` has a `*` that `a` does not (the form is OLD=NEW, each side NAME, KIND/NAME or KIND/NAMESPACE/NAME, a part holding at most one `*`)\n"
        )
    );
}

/// Names in a revision reach the terminal escaped; a tree of more files
/// than a rendered folder could hold is refused before any is copied.
#[test]
fn hostile_trees_in_a_revision_are_escaped_or_refused() {
    let repo = Repo::new("hostile");
    repo.write("out/evil\u{1b}[2J.yaml", "a: [\n");
    repo.commit();
    let run = repo.chartgen(&["check", "HEAD:out"]);
    run.assert_refused(2, "HEAD:out/evil\\u{001b}[2J.yaml");
    run.assert_stderr_lacks("\u{1b}");
    if !crate::tools::slow("a tree of 100,001 files") {
        return;
    }
    let empty = repo.git(&["hash-object", "-w", "--stdin"]);
    let listing: String = (0..=100_000)
        .map(|i| format!("100644 blob {}\tf{i}.yaml\n", empty.trim()))
        .collect();
    let mut mktree = std::process::Command::new("git")
        .arg("mktree")
        .current_dir(repo.0.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write as _;
        let mut stdin = mktree.stdin.take().unwrap();
        stdin.write_all(listing.as_bytes()).unwrap();
    }
    let tree = String::from_utf8(mktree.wait_with_output().unwrap().stdout).unwrap();
    let spec = format!("{}:", tree.trim());
    let run = repo.chartgen(&["check", &spec]);
    run.assert_refused(2, "holds more than 100000 files");
}

/// Without a map, removed objects that are added ones under a prefix get a
/// hint naming the `--map` (the heuristic suggests, never applies); a map
/// that applies to nothing says so.
#[test]
fn a_release_prefix_is_suggested_and_an_unused_map_noted() {
    let run = chartgen(&["diff", HELM_OLD, HELM_NEW]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stderr,
        "hint: 3 removed objects are added ones with the prefix `buildkit-` (as Helm names objects after the release); --map 'buildkit-*=*' compares them field by field\n"
    );
    assert_eq!(
        run.stdout.lines().filter(|l| l.starts_with("- ")).count(),
        4,
        "{}",
        run.stdout
    );
    let run = chartgen(&[
        "diff",
        "--map",
        "buildkit-*=*",
        "--map",
        "relase-*=*",
        HELM_OLD,
        HELM_NEW,
    ]);
    assert_eq!(
        run.stderr,
        "note: --map relase-*=* applies to no object of the old side\n"
    );
}

/// An `--ignore` that names no field of either side (a typo, most likely)
/// is noted, as an unused `--map` is; one that names a field, a list item
/// by name or a field of the exemptions artifact is not.
#[test]
fn an_ignore_that_names_no_field_is_noted() {
    let run = chartgen(&[
        "diff",
        "--ignore",
        "nosuch.path",
        "--ignore",
        "metadata.labels.*",
        "--ignore",
        "spec.template.spec.containers[buildd].image",
        "--ignore",
        "securityContextPolicy",
        "out/dev",
        "out/ovh-prod",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "note: --ignore nosuch.path names no field of either side\n"
    );
    let run = chartgen(&[
        "--quiet", "diff", "--ignore", "nosuch", "out/dev", "out/dev",
    ]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
}

/// A revision's folder has GitOps applications as a checkout has: an object
/// that changes application between the revision and the working tree is
/// a move.
#[test]
fn moves_between_applications_are_seen_in_a_revision() {
    let repo = Repo::new("moves");
    let kustomization = |files: &str| {
        format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [{files}]\n"
        )
    };
    repo.write("out/a/kustomization.yaml", &kustomization("x.yaml, z.yaml"));
    repo.write("out/a/x.yaml", &config_map("x", "one"));
    repo.write("out/a/z.yaml", &config_map("z", "one"));
    repo.write("out/b/kustomization.yaml", &kustomization("w.yaml"));
    repo.write("out/b/w.yaml", &config_map("w", "one"));
    repo.commit();
    std::fs::rename(
        repo.0.path().join("out/a/x.yaml"),
        repo.0.path().join("out/b/x.yaml"),
    )
    .unwrap();
    repo.write("out/a/kustomization.yaml", &kustomization("z.yaml"));
    repo.write("out/b/kustomization.yaml", &kustomization("w.yaml, x.yaml"));
    let run = repo.chartgen(&["diff", "HEAD:out", "out"]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            0,
            "moved between GitOps applications:\n  ConfigMap ns/x: a → b\n1 object differs: 0 added, 0 removed, 0 changed; 1 moved between applications\n",
            ""
        )
    );
}

/// The exit-code table of `diff` (the README's): 0 unless asked; with
/// `--exit-code`, 1 on any difference; with `--fail-on LEVEL`, 1 when the
/// impact reaches LEVEL (`change`: any difference); 2 on bad input,
/// whatever the flags.
#[test]
fn exit_codes_follow_the_table() {
    let fixture = |name: &str| format!("crates/kubernetes/tests/fixtures/diff/{name}");
    let inputs = [
        // (old, new): no difference; differences without impact; a
        // restart; a refused change.
        (
            fixture("impact-restart/old.yaml"),
            fixture("impact-restart/old.yaml"),
        ),
        (
            fixture("json-output/old.yaml"),
            fixture("json-output/new.yaml"),
        ),
        (
            fixture("impact-restart/old.yaml"),
            fixture("impact-restart/new.yaml"),
        ),
        (
            fixture("impact-immutable/old.yaml"),
            fixture("impact-immutable/new.yaml"),
        ),
    ];
    let table: [(&[&str], [i32; 4]); 8] = [
        (&[], [0, 0, 0, 0]),
        (&["--exit-code"], [0, 1, 1, 1]),
        (&["--fail-on", "change"], [0, 1, 1, 1]),
        (&["--fail-on", "restart"], [0, 0, 1, 1]),
        (&["--fail-on", "security"], [0, 0, 0, 1]),
        (&["--fail-on", "refused"], [0, 0, 0, 1]),
        (&["--exit-code", "--fail-on", "refused"], [0, 1, 1, 1]),
        (&["--output", "json", "--fail-on", "restart"], [0, 0, 1, 1]),
    ];
    for (flags, codes) in table {
        for ((old, new), code) in inputs.iter().zip(codes) {
            let mut args = vec!["diff"];
            args.extend(flags);
            args.extend([old.as_str(), new.as_str()]);
            let run = chartgen(&args);
            assert_eq!((run.code, run.stderr.as_str()), (code, ""), "{args:?}");
        }
        let mut args = vec!["diff"];
        args.extend(flags);
        args.extend([
            "crates/kubernetes/tests/fixtures/diff/no-such-file.yaml",
            "out/dev",
        ]);
        assert_eq!(chartgen(&args).code, 2, "{args:?}");
    }
    let run = chartgen(&["diff", "--fail-on", "severe", "out/dev", "out/dev"]);
    run.assert_refused(
        2,
        "possible values: change, restart, security, destructive, refused",
    );
}

/// Names in the impact summary come from the input: escaped in the text,
/// in the JSON too, and a Secret's values never appear, not even when an
/// immutable Secret's data changes.
#[test]
fn impact_lines_escape_names_and_hide_secret_values() {
    let hostile = "x\u{1b}[2J\u{9b}\u{202e}y";
    let objects = |image: &str, password: &str| {
        format!(
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: agent, namespace: ns}}\nspec:\n  selector: {{matchLabels: {{app: a}}}}\n  template:\n    metadata: {{labels: {{app: a}}}}\n    spec:\n      containers: [{{name: \"{hostile}\", image: \"{image}\", securityContext: {{privileged: true}}}}]\n      volumes: [{{name: h, hostPath: {{path: \"/{hostile}\"}}}}]\n---\napiVersion: v1\nkind: Secret\nmetadata: {{name: token, namespace: ns}}\nimmutable: true\nstringData: {{password: \"{password}\"}}\n"
        )
        .replace("\u{1b}", "\\e")
        .replace("\u{9b}", "\\x9b")
        .replace("\u{202e}", "\\u202e")
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let (old, new) = (dir.join("old.yaml"), dir.join("new.yaml"));
    std::fs::write(&old, objects("agent:1", "hunter2-old-value")).unwrap();
    std::fs::write(&new, objects("agent:2", "hunter2-new-value")).unwrap();
    for output in ["text", "json"] {
        let run = chartgen(&[
            "diff",
            "--output",
            output,
            old.to_str().unwrap(),
            new.to_str().unwrap(),
        ]);
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{}", run.stdout);
        for raw in ['\u{1b}', '\u{9b}', '\u{202e}'] {
            assert!(!run.stdout.contains(raw), "{}", run.stdout.escape_debug());
        }
        assert!(!run.stdout.contains("hunter2"), "{}", run.stdout);
        assert!(run.stdout.contains("refused"), "{}", run.stdout);
        assert!(run.stdout.contains("stringData.password"), "{}", run.stdout);
        assert!(
            run.stdout
                .contains("its pods restart on every node, with host access (hostPath /x"),
            "{}",
            run.stdout
        );
    }
}

/// A `git` that fills its stderr pipe before it writes any stdout (as a
/// hook or a warning flood could) does not hang `REV:PATH`: stderr drains
/// while stdout is read, and the first line becomes the reason.
#[test]
fn a_git_flooding_stderr_does_not_hang_a_revision_read() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let git = dir.join("git");
    std::fs::write(
        &git,
        "#!/bin/sh\necho 'fatal: noisy'>&2\nhead -c 1000000 /dev/zero | tr '\\0' x >&2\nexit 128\n",
    )
    .unwrap();
    std::fs::set_permissions(&git, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", dir.display(), std::env::var("PATH").unwrap());
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let run = chartgen_with(&["diff", "HEAD:out", "out"], None, &[("PATH", &path)]);
        let _ = done.send(run);
    });
    let run = finished
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("chartgen diff REV:PATH finishes while git floods stderr");
    run.assert_refused(2, "fatal: noisy");
}

/// A quantity compares as the API server stores it, read as it decodes
/// one: `" 1024Mi "` is `1Gi`, and a shrinking claim is seen through the
/// spaces (`kubernetes::quantity::of_value`, shared with `check`).
#[test]
fn quantities_compare_as_the_server_decodes_them() {
    let dir = tempfile::tempdir().unwrap();
    let quota = |memory: &str| {
        format!(
            "apiVersion: v1\nkind: ResourceQuota\nmetadata: {{name: q, namespace: d}}\nspec: {{hard: {{memory: {memory:?}}}}}\n"
        )
    };
    let claim = |storage: &str| {
        format!(
            "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: c, namespace: d}}\nspec: {{accessModes: [ReadWriteOnce], resources: {{requests: {{storage: {storage:?}}}}}}}\n"
        )
    };
    let (old, new) = (dir.path().join("old.yaml"), dir.path().join("new.yaml"));
    std::fs::write(&old, quota("1Gi")).unwrap();
    std::fs::write(&new, quota(" 1024Mi ")).unwrap();
    let run = chartgen(&["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert_eq!(run.stdout, "no differences\n", "{}", run.transcript());
    std::fs::write(&old, claim("2Gi")).unwrap();
    std::fs::write(&new, claim(" 1Gi ")).unwrap();
    let run = chartgen(&["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert!(
        run.stdout.contains("storage request shrinks"),
        "{}",
        run.transcript()
    );
}

/// A side may be nothing on purpose (a new environment diffed against
/// none): an empty folder, one of hidden files only, an empty file, one of
/// comments and `---` only, `/dev/null`, empty stdin. Every object of the
/// other side is then added (or removed), and a note names the empty
/// side. What guards against a mistyped path stays: a path that does not
/// exist, a folder of other files and a file of no object are refused.
#[test]
fn an_empty_side_is_no_objects_and_a_wrong_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    std::fs::write(at("new.yaml"), config_map("a", "one")).unwrap();
    std::fs::create_dir(at("empty")).unwrap();
    std::fs::create_dir(at("kept")).unwrap();
    std::fs::write(at("kept/.gitkeep"), "").unwrap();
    std::fs::write(at("empty.yaml"), "").unwrap();
    std::fs::write(at("comments.yaml"), "# nothing yet\n---\n").unwrap();
    let new = at("new.yaml");
    for old in [
        at("empty"),
        at("kept"),
        at("empty.yaml"),
        at("comments.yaml"),
        "/dev/null".to_owned(),
    ] {
        let run = chartgen(&["diff", "--exit-code", &old, &new]);
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (
                1,
                "+ ConfigMap ns/a\n1 object differs: 1 added, 0 removed, 0 changed\n"
            ),
            "{old}: {}",
            run.stderr
        );
        assert_eq!(
            run.stderr,
            format!(
                "note: the old side, {old}, is empty (no objects): every object of the new side is added\n"
            )
        );
    }
    let run = chartgen_with_stdin(&["diff", "-", &new], Some(""));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_contains(&run.stderr, "the old side, -, is empty");
    let run = chartgen(&["diff", &new, &at("empty")]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (
            0,
            "- ConfigMap ns/a\n1 object differs: 0 added, 1 removed, 0 changed\n"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("every object of the old side is removed"),
        "{}",
        run.stderr
    );
    let run = chartgen(&["diff", &at("empty"), "/dev/null"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "no differences\n"));
    assert_eq!(
        run.stderr,
        "note: both sides are empty (no objects): nothing to compare\n"
    );
    // Still refused: a typo, a folder of other files, documents that are
    // no objects.
    std::fs::create_dir(at("notes")).unwrap();
    std::fs::write(at("notes/README.md"), "hello\n").unwrap();
    std::fs::write(at("list.yaml"), "apiVersion: v1\nkind: List\nitems: []\n").unwrap();
    for (old, error) in [
        (at("missing"), "cannot read manifests from"),
        (at("notes"), "no Kubernetes objects in"),
        (at("list.yaml"), "no Kubernetes objects in"),
    ] {
        let run = chartgen(&["diff", &old, &new]);
        assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{old}");
        assert!(
            run.stderr.starts_with(&format!("error: {error}")),
            "{old}: {}",
            run.stderr
        );
    }
}
