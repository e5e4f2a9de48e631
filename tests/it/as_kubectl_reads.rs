//! What kubectl reads, read the same: a `List`'s items one by one, a
//! namespaced object without a namespace in `default`, a JSON manifest as
//! JSON.

use crate::harness::{assert_contains, chartgen, chartgen_with_stdin};

fn prod() -> String {
    let run = chartgen(&["render", "-f", "values/ovh-prod.yaml", "--bundle", "all"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// The finding lines (not their locations, not the count).
fn findings(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with("info:"))
        .collect()
}

/// A privileged pod and an events grant inside a `v1 List` are found as if
/// they were documents of their own, located at their item.
#[test]
fn check_reads_the_items_of_a_list() {
    let list = "---\napiVersion: v1\nkind: List\nitems:\n  - apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: debug, namespace: buildkit-builds}\n    spec:\n      selector: {matchLabels: {app: debug}}\n      template:\n        metadata: {labels: {app: debug}}\n        spec:\n          securityContext: {runAsNonRoot: true}\n          containers: [{name: sh, image: busybox, securityContext: {privileged: true}}]\n  - apiVersion: rbac.authorization.k8s.io/v1\n    kind: Role\n    metadata: {name: chatty, namespace: buildkit-operator}\n    rules: [{apiGroups: [\"\"], resources: [events], verbs: [create, patch]}]\n";
    let text = format!("{}{list}", prod());
    let lines: Vec<&str> = text.lines().collect();
    let line_of = |needle: &str| lines.iter().rposition(|l| l.contains(needle)).unwrap() + 1;
    let run = chartgen_with_stdin(&["check", "-"], Some(&text));
    assert_eq!(run.code, 1, "{}", run.transcript());
    let lines = findings(&run.stdout);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("T3 Deployment buildkit-builds/debug ")
                && l.contains("privileged")),
        "{}",
        run.stdout
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("R1 Role buildkit-operator/chatty ")),
        "{}",
        run.stdout
    );
    // Each finding at its item's line.
    assert_contains(
        &run.stdout,
        &format!("at <stdin>:{}", line_of("privileged: true")),
    );
    assert_contains(
        &run.stdout,
        &format!("at <stdin>:{}", line_of("resources: [events]")),
    );
}

/// `rbac` lists the grants of a List's Role, bound by a RoleBinding of the
/// same List, to a ServiceAccount of it; none of them names a namespace.
#[test]
fn rbac_lists_the_grants_of_a_list() {
    let list = "apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: ServiceAccount, metadata: {name: reader}}\n  - apiVersion: rbac.authorization.k8s.io/v1\n    kind: Role\n    metadata: {name: pod-reader}\n    rules: [{apiGroups: [\"\"], resources: [pods], verbs: [get, list]}]\n  - apiVersion: rbac.authorization.k8s.io/v1\n    kind: RoleBinding\n    metadata: {name: pod-reader}\n    roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}\n    subjects: [{kind: ServiceAccount, name: reader, namespace: default}]\n";
    let run = chartgen_with_stdin(&["rbac", "-"], Some(list));
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_contains(&run.stdout, "ServiceAccount default/reader");
    assert!(
        run.stdout.lines().any(|l| l
            .split_whitespace()
            .take(4)
            .eq(["default", "pods", "get,", "list"])),
        "{}",
        run.stdout
    );
}

/// A list inside a list, an item of a `v1 List` without kind, and `items`
/// that is no list are refused where they are written.
#[test]
fn lists_kubectl_cannot_apply_are_refused_located() {
    for (text, message) in [
        (
            "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: List\n    items: []\n",
            "error: <stdin>:4:5: items[0]: a list inside a List",
        ),
        (
            "apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, metadata: {name: a}}\n",
            "error: <stdin>:4:5: items[0]: not a Kubernetes object: an item of a List without kind",
        ),
        (
            "apiVersion: v1\nkind: List\nitems: {a: 1}\n",
            "error: <stdin>:3:8: items: the items of a List must be a list, not object",
        ),
        (
            "items: []\n",
            "error: <stdin>:1:1: not a Kubernetes object: a list (a document with `items`) without apiVersion and kind",
        ),
    ] {
        let run = chartgen_with_stdin(&["check", "-"], Some(text));
        assert_eq!(run.code, 2, "{}", run.transcript());
        assert!(run.stderr.starts_with(message), "{}", run.stderr);
    }
}

/// The shape of an upstream example: a privileged buildkitd Deployment
/// with no namespace. It lands in `default`, and `check` says so, alone
/// and beside a render.
#[test]
fn an_object_without_a_namespace_is_checked_in_default() {
    let fixture = "tests/fixtures/check/default-namespace/privileged-daemon.yaml";
    for args in [vec!["check", fixture], vec!["check", fixture, "out/dev"]] {
        let run = chartgen(&args);
        assert_eq!(run.code, 1, "{}", run.transcript());
        assert!(
            findings(&run.stdout)
                .iter()
                .any(|l| l.contains(" default/buildkitd ")),
            "{}",
            run.stdout
        );
    }
}

/// A `metadata.namespace` that is no string is refused, not read as none:
/// kubectl's decoder refuses the file (`cannot unmarshal number into Go
/// struct field ObjectMeta.metadata.namespace of type string`), where the
/// object used to land in `default` unsaid (a review found it). A null or
/// empty one is unset, as before.
#[test]
fn a_namespace_that_is_no_string_is_refused() {
    for namespace in ["1", "1.5", "true", "[a]", "{a: b}"] {
        let object = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: m1, namespace: {namespace}}}\ndata: {{a: b}}\n"
        );
        let run = chartgen_with_stdin(&["check", "-"], Some(&object));
        assert_eq!(run.code, 1, "{namespace}: {}", run.transcript());
        assert!(
            run.stdout
                .starts_with("K8S ConfigMap default/m1 metadata.namespace: "),
            "{namespace}: {}",
            run.stdout
        );
    }
    for namespace in ["null", "''"] {
        let object = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: m1, namespace: {namespace}}}\ndata: {{a: b}}\n"
        );
        let run = chartgen_with_stdin(&["check", "-"], Some(&object));
        assert_eq!(run.code, 0, "{namespace}: {}", run.transcript());
    }
}

/// One identity whether `default` is written or not: `diff` sees no
/// change, and two such objects in one input are one object twice.
#[test]
fn default_written_or_not_is_one_identity() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let bare = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n";
    let written =
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata: {a: b}\n";
    let cluster = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules: []\n";
    std::fs::write(dir.join("old.yaml"), format!("{bare}---\n{cluster}")).unwrap();
    std::fs::write(dir.join("new.yaml"), format!("{written}---\n{cluster}")).unwrap();
    let (old, new) = (dir.join("old.yaml"), dir.join("new.yaml"));
    let run = chartgen(&["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    let run = chartgen_with_stdin(&["rbac", "-"], Some(&format!("{bare}---\n{written}")));
    run.assert_refused(2, "ConfigMap default/c again");
}

/// A JSON manifest is read as JSON: a raw U+0085 inside a string is a
/// character (YAML 1.1 would read a line break), and findings keep its
/// line. A `.json` file in a directory is read, as `kubectl apply -f DIR`
/// reads it.
#[test]
fn a_json_manifest_is_read_as_json() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let json = "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"ConfigMap\",\n  \"metadata\": {\"name\": \"c\", \"namespace\": \"x\",\n    \"annotations\": {\"note\": \"a\u{85}b\"},\n    \"labels\": {\"bad label\": \"v\"}}\n}\n";
    std::fs::write(dir.join("cm.json"), json).unwrap();
    let run = chartgen(&["check", dir.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert_contains(&run.stdout, "ConfigMap x/c metadata.labels");
    assert_contains(&run.stdout, "cm.json:6");
}

/// buildd's flags are read wherever the container gives them: the kubelet
/// runs `command` followed by `args`, so a `--namespace` (or its value) in
/// `command` counts, and the finding points at the field that holds it.
#[test]
fn buildd_flags_in_command_are_read() {
    let prod = prod();
    let flags = "          args:\n            - --namespace=buildkit-builds\n            - --leader-elect=true\n";
    assert!(prod.contains(flags));
    for (edit, field) in [
        // The flag in command, overriding args' earlier one: own namespace.
        (
            "          command: [/buildd, --namespace, buildkit-operator]\n          args:\n            - --leader-elect=true\n",
            "command",
        ),
        // The flag in command, its value in args.
        (
            "          command: [/buildd, --namespace]\n          args:\n            - buildkit-operator\n            - --leader-elect=true\n",
            "command",
        ),
    ] {
        let run = chartgen_with_stdin(&["check", "-"], Some(&prod.replacen(flags, edit, 1)));
        assert_eq!(run.code, 1, "{}", run.transcript());
        let t5: Vec<&str> = findings(&run.stdout)
            .into_iter()
            .filter(|l| l.starts_with("T5 "))
            .collect();
        assert_eq!(
            t5,
            [format!(
                "T5 Deployment buildkit-operator/buildkit-buildd spec.template.spec.containers[0].{field}: buildd is told --namespace=buildkit-operator, its own namespace; it creates the daemons in the builds namespace, never the operator's (ADR-0006)"
            )],
            "{}",
            run.stdout
        );
    }
    // Flags in command alone, as right as in args: no finding.
    let run = chartgen_with_stdin(
        &["check", "-"],
        Some(&prod.replacen(flags, "          command:\n            - /buildd\n            - --namespace=buildkit-builds\n            - --leader-elect=true\n", 1)),
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
}
