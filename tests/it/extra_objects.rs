//! `extraObjects`: any manifests added to the release as written, after the
//! chart's objects, and checked like them (docs/patching.md).

use crate::harness::{chartgen, chartgen_with_stdin};

const VALUES: &str = "tests/fixtures/extra-objects/values.yaml";
const CRDS: &str = "tests/fixtures/extra-objects/crds.yaml";

/// The kind and name of every document of a stream, in order.
fn kinds_and_names(stream: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for document in stream.split("\n---\n") {
        let field = |prefix: &str| {
            document
                .lines()
                .find_map(|l| l.strip_prefix(prefix))
                .map(str::to_owned)
        };
        if let (Some(kind), Some(name)) = (field("kind: "), field("  name: ")) {
            found.push((kind, name));
        }
    }
    found
}

#[test]
fn a_service_monitor_an_external_secret_a_pod_monitor_and_a_priority_class_render_and_pass_check() {
    let run = chartgen(&[
        "render",
        "-f",
        VALUES,
        "--crd",
        CRDS,
        "--set",
        "commonLabels.team=platform",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let objects = kinds_and_names(&run.stdout);
    // After the chart's objects, in the order written.
    let last: Vec<(&str, &str)> = objects[objects.len() - 5..]
        .iter()
        .map(|(k, n)| (k.as_str(), n.as_str()))
        .collect();
    assert_eq!(
        last,
        [
            ("ServiceMonitor", "buildkit-gateway"),
            ("PodMonitor", "buildkit-daemons"),
            ("ExternalSecret", "registry-credentials"),
            ("ClusterSecretStore", "vault"),
            ("PriorityClass", "buildkit-control-plane"),
        ]
    );
    // As written: the common labels are the chart's objects', not theirs.
    let documents: Vec<&str> = run.stdout.split("\n---\n").collect();
    let (chart, extra) = documents.split_at(documents.len() - 5);
    assert!(chart.iter().any(|d| d.contains("team: platform")));
    assert!(extra.iter().all(|d| !d.contains("team: platform")));

    // The same objects, written as files, pass `check` with the CRDs.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let run = chartgen(&["render", "-f", VALUES, "--crd", CRDS, "--output-dir", out]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let kustomization =
        std::fs::read_to_string(dir.path().join("out/release/kustomization.yaml")).unwrap();
    assert!(
        kustomization.ends_with(
            "  - buildkit-operator/servicemonitor-buildkit-gateway.yaml\n  - buildkit-builds/podmonitor-buildkit-daemons.yaml\n  - buildkit-builds/externalsecret-registry-credentials.yaml\n  - cluster/clustersecretstore-vault.yaml\n  - cluster/priorityclass-buildkit-control-plane.yaml\n"
        ),
        "{kustomization}"
    );
    let release = format!("{out}/release");
    let run = chartgen(&["check", &release, "--crd", CRDS]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    // Without the CRDs, a custom kind is a KIND finding, as for `check`.
    let run = chartgen(&["check", &release]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains(
            "KIND ExternalSecret buildkit-builds/registry-credentials: no schema for external-secrets.io/v1 ExternalSecret; give its CRD with --crd"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn a_custom_kind_without_its_crd_is_a_kind_finding_as_in_check() {
    let values = "extraObjects:\n  - apiVersion: monitoring.coreos.com/v1\n    kind: PodMonitor\n    metadata: {name: daemons, namespace: buildkit-builds}\n    spec: {selector: {}}\n";
    let run = chartgen_with_stdin(&["render", "-f", "-"], Some(values));
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    assert!(
        run.stderr.starts_with(
            "KIND PodMonitor buildkit-builds/daemons: no schema for monitoring.coreos.com/v1 PodMonitor; give its CRD with --crd\n  at <stdin>:2\n"
        ),
        "{}",
        run.stderr
    );
}

/// Each entry breaks one ADR; the render is refused with its rule, at the
/// values line, exit 1 as for any finding.
#[test]
fn an_extra_object_that_breaks_an_adr_is_refused_with_its_rule() {
    let cases = [
        (
            "a Role in the operator namespace granting events",
            "  - apiVersion: rbac.authorization.k8s.io/v1\n    kind: Role\n    metadata: {name: events, namespace: buildkit-operator}\n    rules:\n      - apiGroups: ['']\n        resources: [events]\n        verbs: [create, patch]\n",
            "R1 Role buildkit-operator/events rules[0].resources: events in a namespaced Role",
            "at <stdin>:7",
        ),
        (
            "a Role in the builds namespace granting leases",
            "  - apiVersion: rbac.authorization.k8s.io/v1\n    kind: Role\n    metadata: {name: leases, namespace: buildkit-builds}\n    rules:\n      - apiGroups: [coordination.k8s.io]\n        resources: [leases]\n        verbs: [get]\n",
            "R3 Role buildkit-builds/leases rules[0].resources: leases granted in namespace buildkit-builds",
            "at <stdin>:7",
        ),
        (
            "a ClusterRole of wildcards bound to buildd",
            "  - apiVersion: rbac.authorization.k8s.io/v1\n    kind: ClusterRole\n    metadata: {name: everything}\n    rules:\n      - apiGroups: ['*']\n        resources: ['*']\n        verbs: ['*']\n  - apiVersion: rbac.authorization.k8s.io/v1\n    kind: ClusterRoleBinding\n    metadata: {name: everything}\n    roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: everything}\n    subjects: [{kind: ServiceAccount, name: buildkit-buildd, namespace: buildkit-operator}]\n",
            "R5 ClusterRole everything rules[0].apiGroups: a wildcard in apiGroups; name what is granted",
            "at <stdin>:6",
        ),
        (
            "a privileged Deployment in the operator namespace",
            "  - apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: debug, namespace: buildkit-operator}\n    spec:\n      selector: {matchLabels: {app: debug}}\n      template:\n        metadata: {labels: {app: debug}}\n        spec:\n          containers:\n            - name: debug\n              image: busybox:1.36\n              securityContext: {privileged: true}\n",
            "T3 Deployment buildkit-operator/debug spec.template.spec.containers[0].securityContext.privileged: Pod Security control \"Privileged Containers\"",
            "at <stdin>:13",
        ),
    ];
    for (case, entries, finding, at) in cases {
        let values = format!("extraObjects:\n{entries}");
        let run = chartgen_with_stdin(&["render", "-f", "-"], Some(&values));
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (1, ""),
            "{case}: {}",
            run.stderr
        );
        let line = run.stderr.lines().position(|l| l.starts_with(finding));
        let line = line.unwrap_or_else(|| panic!("{case}: no `{finding}` in\n{}", run.stderr));
        assert_eq!(
            run.stderr.lines().nth(line + 1),
            Some(format!("  {at}").as_str()),
            "{case}: {}",
            run.stderr
        );
        assert!(
            run.stderr
                .ends_with("error: the render breaks the invariants above; nothing was written\n")
        );
    }
}

/// What is no object to add is refused before anything renders, located at
/// its key, exit 2 as for any bad value.
#[test]
fn what_is_no_object_to_add_is_refused_at_its_key() {
    let cases = [
        (
            "a Secret with data",
            "  - apiVersion: v1\n    kind: Secret\n    metadata: {name: token, namespace: buildkit-builds}\n    stringData: {token: hunter2}\n",
            "error: <stdin>:5:17: extraObjects[0].stringData: extraObjects[0] is a Secret with stringData: its material would be written into the rendered output (out/, a Git repository) and into every diff",
        ),
        (
            "a namespaced object without its namespace",
            "  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: settings}\n",
            "error: <stdin>:4:15: extraObjects[0].metadata: extraObjects[0] (ConfigMap `settings`) has no metadata.namespace: chartgen has no release namespace to put a namespaced object in, and `kubectl apply` would put it in `default`",
        ),
        (
            "a List",
            "  - apiVersion: v1\n    kind: List\n    metadata: {name: many}\n    items: []\n",
            "error: <stdin>:5:12: extraObjects[0].items: extraObjects[0] is a List: each entry is one object, checked and written as one file",
        ),
        (
            "an object the chart renders",
            "  - apiVersion: v1\n    kind: ServiceAccount\n    metadata: {name: buildkit-buildd, namespace: buildkit-operator}\n",
            "error: <stdin>:4:22: extraObjects[0].metadata.name: extraObjects[0] is ServiceAccount buildkit-operator/buildkit-buildd, which the chart renders itself: the two would replace each other",
        ),
        (
            "no object",
            "  - just text\n",
            "error: <stdin>:2:5: extraObjects[0]: expected object, found string \"just text\"",
        ),
        (
            "an object without kind",
            "  - apiVersion: v1\n    metadata: {name: x, namespace: buildkit-builds}\n",
            "error: <stdin>:2:5: extraObjects[0]: missing key `kind`",
        ),
        (
            "a name that is no text",
            "  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: 12, namespace: buildkit-builds}\n",
            "error: <stdin>:4:22: extraObjects[0].metadata.name: `extraObjects[0].metadata.name` must be a non-empty text: it identifies the object in the cluster",
        ),
        (
            "the same object twice",
            "  - {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: buildkit-builds}}\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: buildkit-builds}}\n",
            "error: <stdin>:3:56: extraObjects[1].metadata.name: extraObjects[1] is the same object as extraObjects[0] (ConfigMap `a`): the second would replace the first when applied",
        ),
    ];
    for (case, entries, error) in cases {
        let values = format!("extraObjects:\n{entries}");
        // `validate` refuses each as `render` does, with the same error.
        for command in ["render", "validate"] {
            let run = chartgen_with_stdin(&[command, "-f", "-"], Some(&values));
            assert_eq!(
                (run.code, run.stdout.as_str()),
                (2, ""),
                "{command}: {case}: {}",
                run.stderr
            );
            assert!(
                run.stderr.starts_with(error),
                "{command}: {case}: expected\n{error}\ngot\n{}",
                run.stderr
            );
            // Never the Secret's value, anywhere.
            run.assert_stderr_lacks("hunter2");
        }
    }
    // A built-in kind's scope is known without a CRD: `validate` refuses
    // the missing namespace as `render` does; a custom kind's waits for
    // its CRD (`render --crd`).
    let run = chartgen_with_stdin(
        &["validate", "-f", "-"],
        Some("extraObjects:\n  - {apiVersion: apps/v1, kind: Deployment, metadata: {name: d}}\n"),
    );
    run.assert_refused(
        2,
        "extraObjects[0] (Deployment `d`) has no metadata.namespace",
    );
    for kind in [
        "{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: p}, value: 5}",
        "{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}",
    ] {
        let values = format!("extraObjects:\n  - {kind}\n");
        let run = chartgen_with_stdin(&["validate", "-f", "-"], Some(&values));
        assert_eq!(run.code, 0, "{kind}: {}", run.stderr);
    }
    // A custom kind known to be namespaced (one chartgen holds the schema
    // of, one a CRD among the entries declares so) is refused without its
    // namespace by `validate` as by `render`.
    let crd = "{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: gadgets.example.com}, spec: {group: example.com, scope: Namespaced, names: {kind: Gadget, plural: gadgets}, versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]}}";
    for (entries, kind) in [
        ("  - {apiVersion: monitoring.coreos.com/v1, kind: ServiceMonitor, metadata: {name: m}}\n".to_owned(), "ServiceMonitor"),
        ("  - {apiVersion: cert-manager.io/v1, kind: Certificate, metadata: {name: c}}\n".to_owned(), "Certificate"),
        (format!("  - {crd}\n  - {{apiVersion: example.com/v1, kind: Gadget, metadata: {{name: g}}}}\n"), "Gadget"),
    ] {
        let values = format!("extraObjects:\n{entries}");
        for command in ["validate", "render"] {
            let run = chartgen_with_stdin(&[command, "-f", "-"], Some(&values));
            run.assert_refused(2, &format!("({kind} `"));
            run.assert_refused(2, "has no metadata.namespace");
        }
    }
    // Nor when the Secret came in a set flag, whose argument is the
    // error's headline: named by its flag and key only.
    for flag in ["--set-json", "--set"] {
        let arg = if flag == "--set" {
            "extraObjects[0].stringData.token=hunter2".to_owned()
        } else {
            r#"extraObjects=[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"t","namespace":"buildkit-builds"},"stringData":{"token":"hunter2"}}]"#.to_owned()
        };
        let mut args = vec!["validate", flag, &arg];
        let base = [
            "--set-json",
            r#"extraObjects=[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"t","namespace":"buildkit-builds"}}]"#,
        ];
        if flag == "--set" {
            args.splice(1..1, base);
        }
        let run = chartgen(&args);
        run.assert_refused(2, "is a Secret with stringData");
        run.assert_stderr_lacks("hunter2");
    }
}

/// A Secret embedded in an entry (a policy's generated object, a
/// template's objects, a wrapper's manifest) would write its material
/// into `out/` as surely as one written as the entry: refused at its key,
/// by `validate` as by `render`, the value never shown (the entry's texts
/// are masked whole, its name too). What only names
/// a Secret, or is another kind's `data`, renders.
#[test]
fn a_secret_embedded_in_an_entry_is_refused_at_its_key() {
    let wrapper = |embedded: &str| {
        format!(
            "extraObjects:\n  - apiVersion: example.com/v1\n    kind: Wrapper\n    metadata: {{name: w, namespace: buildkit-builds}}\n    spec:\n      objects:\n        - {{kind: ConfigMap, data: {{a: b}}}}\n        - {embedded}\n"
        )
    };
    let refused = [
        (
            "{apiVersion: v1, kind: Secret, metadata: {name: t}, stringData: {token: hunter2}}",
            "extraObjects[0].spec.objects[1].stringData: extraObjects[0] (Wrapper `…`) embeds a Secret with stringData",
        ),
        (
            "{kind: Secret, data: {token: aHVudGVyMg==, other: hunter2}}",
            "extraObjects[0].spec.objects[1].data: extraObjects[0] (Wrapper `…`) embeds a Secret with data",
        ),
        (
            "{generate: {apiVersion: v1, kind: Secret, name: t, data: {data: {token: hunter2}}}}",
            "extraObjects[0].spec.objects[1].generate.data: extraObjects[0] (Wrapper `…`) embeds a Secret with data",
        ),
        (
            "{deeper: [[{kind: Secret, stringData: hunter2}]]}",
            "extraObjects[0].spec.objects[1].deeper[0][0].stringData: extraObjects[0] (Wrapper `…`) embeds a Secret with stringData",
        ),
        (
            // A list's decoder makes a Secret of an item without a kind.
            "{apiVersion: v1, kind: SecretList, items: [{stringData: {p: hunter2}}]}",
            "extraObjects[0].spec.objects[1].items[0].stringData: extraObjects[0] (Wrapper `…`) embeds a Secret with stringData",
        ),
    ];
    for (embedded, error) in refused {
        let values = wrapper(embedded);
        for command in ["validate", "render"] {
            let run = chartgen_with_stdin(&[command, "-f", "-"], Some(&values));
            run.assert_refused(2, error);
            run.assert_stderr_lacks("hunter2");
            run.assert_stderr_lacks("aHVudGVyMg");
        }
    }
    // What `kubectl get secret -o yaml` leaves: the material in the
    // last-applied annotation, on a Secret without data or on any kind.
    let applied =
        r#"{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"data\":{\"password\":\"aHVudGVyMg==\"}}"#;
    for kind in ["Secret", "ConfigMap"] {
        let values = format!(
            "extraObjects:\n  - apiVersion: v1\n    kind: {kind}\n    metadata:\n      name: db\n      namespace: buildkit-builds\n      annotations:\n        kubectl.kubernetes.io/last-applied-configuration: \"{applied}\"\n"
        );
        for command in ["validate", "render"] {
            let run = chartgen_with_stdin(&[command, "-f", "-"], Some(&values));
            run.assert_refused(2, "holds a Secret with data in its last-applied annotation");
            run.assert_stderr_lacks("aHVudGVyMg");
        }
    }
    let plain = r#"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"a\":\"b\"}}"#;
    let values = format!(
        "extraObjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: db\n      namespace: buildkit-builds\n      annotations:\n        kubectl.kubernetes.io/last-applied-configuration: \"{plain}\"\n"
    );
    let run = chartgen_with_stdin(&["validate", "-f", "-"], Some(&values));
    assert_eq!(run.code, 0, "{}", run.transcript());
    for embedded in [
        // A reference names a Secret and holds none of it.
        "{secretRef: {kind: Secret, name: t}}",
        "{kind: Secret, data: {}}",
        // Another group's Secret is not the core one.
        "{apiVersion: example.com/v1, kind: Secret, data: {a: b}}",
        "{kind: SealedSecret, spec: {encryptedData: {token: AgB}}}",
    ] {
        let values = wrapper(embedded);
        let run = chartgen_with_stdin(&["validate", "-f", "-"], Some(&values));
        assert_eq!(run.code, 0, "{embedded}: {}", run.stderr);
    }
}

/// A name Kubernetes allows (253 characters) makes a file name past what a
/// file system holds beside its kind: the render writes it cut, with a
/// digest, where it used to stop part-way, every time, with `File name
/// too long`. Two ClusterRoles whose names differ in case each get a
/// file too.
#[test]
fn every_extra_object_gets_a_file_however_it_is_named() {
    let long = format!(
        "{}.{}.{}.{}",
        "a".repeat(63),
        "b".repeat(63),
        "c".repeat(63),
        "d".repeat(61)
    );
    let values = format!(
        "extraObjects:\n  - {{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {{name: {long}}}, value: 1000}}\n  \
         - {{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {{name: Tools}}, rules: []}}\n  \
         - {{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {{name: tools}}, rules: []}}\n"
    );
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let run = chartgen_with_stdin(
        &["render", "-f", "-", "--output-dir", out.to_str().unwrap()],
        Some(&values),
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
    let cluster: Vec<String> = std::fs::read_dir(out.join("release/cluster"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        cluster
            .iter()
            .filter(|n| n.starts_with("priorityclass-aaa"))
            .count(),
        1,
        "{cluster:#?}"
    );
    assert_eq!(
        cluster
            .iter()
            .filter(|n| n.starts_with("clusterrole-tools-"))
            .count(),
        2,
        "{cluster:#?}"
    );
    let kustomization = std::fs::read_to_string(out.join("release/kustomization.yaml")).unwrap();
    assert_eq!(
        kustomization.matches("cluster/clusterrole-tools-").count(),
        2,
        "{kustomization}"
    );
}

/// An error about another key quotes its line, which may hold a Secret
/// entry too (values written as one line of JSON, or in flow style): then
/// it quotes nothing. An entry a set flag made a Secret is judged as the
/// merged values have it, not as its file's text reads.
#[test]
fn no_error_quotes_a_secret_beside_it_or_made_one_by_a_flag() {
    let beside = [
        r#"{"extraObjects":[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","namespace":"buildkit-builds"},"data":{"password":"aHVudGVyMg=="}}],"z":1}"#,
        "{extraObjects: [{apiVersion: v1, kind: Secret, metadata: {name: db, namespace: buildkit-builds}, stringData: {password: hunter2}}], buildd: {replicas: '3'}}",
    ];
    for values in beside {
        for command in ["validate", "render"] {
            let run = chartgen_with_stdin(&[command, "-f", "-"], Some(values));
            assert_eq!(run.code, 2, "{command}: {}", run.transcript());
            run.assert_stderr_lacks("hunter2");
            run.assert_stderr_lacks("aHVudGVyMg");
        }
    }
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        file.path(),
        "extraObjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: db}\n    stringData: {password: hunter2}\n",
    )
    .unwrap();
    let path = file.path().to_str().unwrap();
    for command in ["validate", "render"] {
        let run = chartgen(&[command, "-f", path, "--set", "extraObjects[0].kind=Secret"]);
        run.assert_refused(2, "is a Secret with stringData");
        run.assert_stderr_lacks("hunter2");
    }
    // Without the flag, a ConfigMap's line is quoted as before.
    let run = chartgen(&["validate", "-f", path]);
    run.assert_refused(2, "(ConfigMap `db`) has no metadata.namespace");
}

/// Whether an error about an entry quotes its line is the entry's own
/// text's to decide: a pull secret named elsewhere in the file hides
/// nothing of a ConfigMap, and a Secret entry is still masked, in either
/// list (`extraObjects`, `extraObjects+`).
#[test]
fn an_entrys_own_text_decides_what_its_error_quotes() {
    for list in ["extraObjects", "extraObjects+"] {
        let values = format!(
            "buildd:\n  imagePullSecrets: [{{name: regcred}}]\n{list}:\n  - {{apiVersion: v1, kind: ConfigMap, metadata: {{name: settings}}}}\n  - apiVersion: v1\n    kind: Secret\n    metadata: {{name: hunter2}}\n"
        );
        let run = chartgen_with_stdin(&["validate", "-f", "-"], Some(&values));
        run.assert_refused(2, "(ConfigMap `settings`) has no metadata.namespace");
        run.assert_refused(2, "metadata: {name: settings}");
        run.assert_refused(2, "(Secret `…`) has no metadata.namespace");
        run.assert_stderr_lacks("hunter2");
    }
    // A Secret on the line of the entry at fault (flow style): the line,
    // which would show it, is not quoted.
    let run = chartgen_with_stdin(
        &["validate", "-f", "-"],
        Some(
            "extraObjects: [{kind: Secret, data: {pw: aHVudGVyMg==}}, {kind: ConfigMap, metadata: {name: x}}]\n",
        ),
    );
    run.assert_refused(2, "extraObjects[1]: missing key `apiVersion`");
    run.assert_stderr_lacks("aHVudGVyMg");
}

/// A masked error hides the values it quotes, not the names of the keys
/// the schema requires: each missing key of an entry given in a set flag
/// is named, as from a file, while the argument stays `KEY=…`.
#[test]
fn a_masked_error_still_names_the_missing_keys() {
    let entry = r#"{"kind":"Secret","stringData":{"p":"HUNTER20"}}"#;
    for (flag, arg) in [
        ("--set", "extraObjects[0].kind=ConfigMap".to_owned()),
        ("--set-string", "extraObjects[0].kind=ConfigMap".to_owned()),
        (
            "--set-json",
            r#"extraObjects=[{"kind":"ConfigMap"}]"#.to_owned(),
        ),
        ("--set-json", format!("extraObjects=[{entry}]")),
    ] {
        let run = chartgen(&["validate", flag, &arg]);
        let key = arg.split_once('=').unwrap().0;
        let headline = format!("error: {flag} {key}=…: extraObjects[0]: missing key");
        assert_eq!(
            run.stderr,
            format!(
                "{headline} `apiVersion`\n{headline} `metadata`\nerror: 2 problems in the values\n"
            ),
            "{}",
            run.transcript()
        );
        run.assert_shows_nowhere("HUNTER20");
    }
}

#[test]
fn explain_names_the_values_line_of_a_field_of_an_extra_object() {
    let run = chartgen(&[
        "explain",
        "-f",
        VALUES,
        "--crd",
        CRDS,
        "priorityclass/buildkit-control-plane.value",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        format!(
            "PriorityClass buildkit-control-plane\n  field: value\n  value: 1000000\n  written by: the values, as written (extraObjects)\n  values:\n    extraObjects[4].value: 1000000  ({VALUES}:52:12)\n"
        )
    );
}
