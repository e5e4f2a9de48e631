//! `chartgen check` and `chartgen rbac` (issue 4): every committed render
//! passes; each mutation below breaks exactly one invariant of a valid
//! render, the way a hand edit in a GitOps repository would, and `check`
//! must report exactly that finding.

use crate::harness::{
    assert_contains, chartgen, chartgen_with_stdin, is_prerequisite_line, root,
    without_prerequisites,
};

/// The production render, both bundles, as one stream.
fn prod() -> String {
    let run = chartgen(&["render", "-f", "values/ovh-prod.yaml", "--bundle", "all"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// `text` with each `(from, to)` replaced once (everywhere when `from`
/// starts with `*`); panics when `from` is absent, so a mutation cannot
/// silently stop applying.
fn mutate(text: &str, edits: &[(&str, &str)]) -> String {
    let mut text = text.to_owned();
    for (from, to) in edits {
        let (from, all) = from.strip_prefix('*').map_or((*from, false), |f| (f, true));
        assert!(
            text.contains(from),
            "the mutation's anchor is gone: {from:?}"
        );
        text = if all {
            text.replace(from, to)
        } else {
            text.replacen(from, to, 1)
        };
    }
    text
}

const OPERATOR_ROLE_RULES: &str = "rules:\n  - apiGroups: [\"\"]\n    resources: [pods]\n    verbs: [get, list, watch]\n  - apiGroups: [coordination.k8s.io]";
const KATA_ROLE_RULES: &str = "rules:\n  - apiGroups: [\"\"]\n    resources: [nodes]\n";
const EVENTS_ROLE_RULES: &str =
    "rules:\n  - apiGroups: [\"\"]\n    resources: [events]\n    verbs: [create, patch]\n";
const CR_ROLE_RULES: &str = "rules:\n  - apiGroups: [buildkit-operator.dev]\n    resources: [buildprojects]\n    verbs: [get, list, watch, create, update, patch, delete]\n";

/// The operator namespace's default deny, up to the policy after it.
const OPERATOR_DEFAULT_DENY: &str = "  podSelector: {}\n  policyTypes: [Ingress, Egress]\n---\n# Source: templates/network-policies.yaml\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: buildkit-gateway\n";

/// The same, its policy types left out: an egress rule (to its own
/// namespace) makes it isolate Egress too, as the API server defaults it.
static OPERATOR_DEFAULT_DENY_IMPLIED: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| {
        OPERATOR_DEFAULT_DENY.replace(
            "  policyTypes: [Ingress, Egress]\n",
            "  egress: [{to: [{podSelector: {}}]}]\n",
        )
    });

/// One mutation: its name, the invariant it breaks, and its edits.
type Mutation = (&'static str, &'static str, Vec<(&'static str, String)>);

/// Each case breaks exactly one invariant.
// Over 80 lines: one table of every mutation and the exact finding it must give, read top to bottom.
fn mutations() -> Vec<Mutation> {
    vec![
        ("r1-events-in-a-role", "R1", vec![(
            OPERATOR_ROLE_RULES,
            format!("rules:\n  - apiGroups: [\"\"]\n    resources: [events]\n    verbs: [create, patch]\n{}", &OPERATOR_ROLE_RULES[7..]),
        )]),
        ("r1-events-bound-in-one-namespace", "R1", vec![(
            "kind: ClusterRoleBinding\nmetadata:\n  name: buildkit-operator-events\n",
            "kind: RoleBinding\nmetadata:\n  name: buildkit-operator-events\n  namespace: buildkit-operator\n".to_owned(),
        )]),
        ("r2-read-verb-on-events", "R2", vec![(
            "resources: [events]\n    verbs: [create, patch]",
            "resources: [events]\n    verbs: [create, patch, get, watch]".to_owned(),
        )]),
        ("r3-leases-in-a-cluster-role", "R3", vec![(
            KATA_ROLE_RULES,
            format!("rules:\n  - apiGroups: [coordination.k8s.io]\n    resources: [leases]\n    verbs: [get]\n{}", &KATA_ROLE_RULES[7..]),
        )]),
        ("r3-pods-cluster-wide", "R3", vec![(
            KATA_ROLE_RULES,
            format!("rules:\n  - apiGroups: [\"\"]\n    resources: [pods]\n    verbs: [list]\n{}", &KATA_ROLE_RULES[7..]),
        )]),
        ("r3-operator-role-loses-leases", "R3", vec![(
            "  - apiGroups: [coordination.k8s.io]\n    resources: [leases]\n    resourceNames: [buildkit-buildd-leader]\n    verbs: [get, update]\n  - apiGroups: [coordination.k8s.io]\n    resources: [leases]\n    verbs: [create]\n",
            String::new(),
        )]),
        ("r4-core-resource-in-the-custom-resource-role", "R4", vec![(
            CR_ROLE_RULES,
            format!("rules:\n  - apiGroups: [\"\"]\n    resources: [nodes]\n    verbs: [get]\n{}", &CR_ROLE_RULES[7..]),
        )]),
        ("r5-wildcard-verb", "R5", vec![(
            "resources: [configmaps]\n    resourceNames: [buildkit-buildkitd-config]\n    verbs: [get, list, watch]",
            "resources: [configmaps]\n    resourceNames: [buildkit-buildkitd-config]\n    verbs: [\"*\"]".to_owned(),
        )]),
        ("r6-secrets-in-the-operator-namespace", "R6", vec![(
            OPERATOR_ROLE_RULES,
            format!("rules:\n  - apiGroups: [\"\"]\n    resources: [secrets]\n    verbs: [get]\n{}", &OPERATOR_ROLE_RULES[7..]),
        )]),
        ("t1-system-in-kube-system", "T1", vec![("*buildkit-system", "kube-system".to_owned())]),
        ("t2-gateway-service-in-the-builds-namespace", "T2", vec![(
            "kind: Service\nmetadata:\n  name: buildkit-gateway\n  namespace: buildkit-operator",
            "kind: Service\nmetadata:\n  name: buildkit-gateway\n  namespace: buildkit-builds".to_owned(),
        )]),
        ("rootfs-writable-root-on-buildd", "ROOTFS", vec![(
            "readOnlyRootFilesystem: true\n            runAsNonRoot: true",
            "readOnlyRootFilesystem: false\n            runAsNonRoot: true".to_owned(),
        )]),
        ("t3-host-path-on-the-gateway", "T3", vec![(
            "      volumes:\n        - name: tmp\n          emptyDir: {}\n        - name: client-tls",
            "      volumes:\n        - name: tmp\n          hostPath: {path: /tmp}\n        - name: client-tls".to_owned(),
        )]),
        ("t3-operator-namespace-not-restricted", "T3", vec![(
            "pod-security.kubernetes.io/enforce: restricted",
            "pod-security.kubernetes.io/enforce: baseline".to_owned(),
        )]),
        ("t4-builds-namespace-loses-its-exemption", "T4", vec![(
            "    buildkit-operator.dev/policy-exemptions: security-context=add-custom-mas-securitycontext\n",
            String::new(),
        )]),
        ("t5-pod-namespace-from-the-node", "T5", vec![(
            "fieldPath: metadata.namespace",
            "fieldPath: spec.nodeName".to_owned(),
        )]),
        // The shape before issue 23: one server key for every daemon.
        ("keys-one-secret-for-every-trust-level", "KEYS", vec![(
            "            - --untrusted-daemon-tls-secret=buildkit-daemon-tls-untrusted\n",
            String::new(),
        )]),
        ("keys-both-levels-name-one-secret", "KEYS", vec![(
            "--untrusted-daemon-tls-secret=buildkit-daemon-tls-untrusted",
            "--untrusted-daemon-tls-secret=buildkit-daemon-tls-trusted".to_owned(),
        )]),
        // The untrusted daemons' certificate valid for the whole namespace,
        // trusted daemons' hostnames included.
        ("keys-untrusted-certificate-covers-the-trusted-daemons", "KEYS", vec![(
            "    - \"*.buildkit-daemons-untrusted.buildkit-builds.svc\"\n",
            "    - \"*.buildkit-daemons-trusted.buildkit-builds.svc\"\n".to_owned(),
        )]),
        ("k8s-unknown-field", "K8S", vec![(
            "  revisionHistoryLimit: 5\n",
            "  revisionHistoryLimt: 5\n".to_owned(),
        )]),
        ("r2-update-and-delete-on-events", "R2", vec![(
            "resources: [events]\n    verbs: [create, patch]",
            "resources: [events]\n    verbs: [create, patch, update, delete]".to_owned(),
        )]),
        ("r3-pods-in-the-system-namespace", "R3", vec![(
            "---\n# Source: templates/namespaces.yaml\n",
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: peek, namespace: buildkit-system}\nrules: [{apiGroups: [\"\"], resources: [pods/exec], verbs: [create]}]\n---\n# Source: templates/namespaces.yaml\n".to_owned(),
        )]),
        ("r4-through-the-namespace-group", "R4", vec![(
            "---\n# Source: templates/namespaces.yaml\n",
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: extra}\nrules: [{apiGroups: [\"\"], resources: [nodes], verbs: [get]}]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: extra}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: extra}\nsubjects: [{kind: Group, apiGroup: rbac.authorization.k8s.io, name: \"system:serviceaccounts:buildkit-operator\"}]\n---\n# Source: templates/namespaces.yaml\n".to_owned(),
        )]),
        ("r4-tenant-role-that-writes", "R4", vec![(
            "  - apiGroups: [buildkit-operator.dev]\n    resources: [buildprojects]\n    verbs: [get, list, watch]\n",
            "  - apiGroups: [buildkit-operator.dev]\n    resources: [buildprojects]\n    verbs: [get, list, watch, delete]\n".to_owned(),
        )]),
        ("role-bound-but-not-in-the-input", "ROLE", vec![(
            "---\n# Source: templates/namespaces.yaml\n",
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: admin}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: platform-superuser}\nsubjects: [{kind: ServiceAccount, name: buildkit-buildd, namespace: buildkit-operator}]\n---\n# Source: templates/namespaces.yaml\n".to_owned(),
        )]),
        // cluster-admin is one of the cluster's default roles: known, its
        // wildcards held by buildd cluster-wide.
        ("r4-buildd-bound-to-a-default-role", "R4", vec![(
            "---\n# Source: templates/namespaces.yaml\n",
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: admin}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:node-bootstrapper}\nsubjects: [{kind: ServiceAccount, name: buildkit-buildd, namespace: buildkit-operator}]\n---\n# Source: templates/namespaces.yaml\n".to_owned(),
        )]),
        ("t3-privileged-pod-in-the-builds-namespace", "T3", vec![(
            "---\n# Source: templates/namespaces.yaml\n",
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: debug, namespace: buildkit-builds, labels: {app.kubernetes.io/component: daemons}}\nspec:\n  selector: {matchLabels: {app: debug}}\n  template:\n    metadata: {labels: {app: debug}}\n    spec:\n      securityContext: {runAsNonRoot: true}\n      containers: [{name: sh, image: busybox, securityContext: {privileged: true}}]\n---\n# Source: templates/namespaces.yaml\n".to_owned(),
        )]),
        ("t3-added-capability-on-buildd", "T3", vec![(
            "runAsNonRoot: true\n            capabilities:\n              drop: [ALL]",
            "runAsNonRoot: true\n            capabilities:\n              drop: [ALL]\n              add: [SYS_ADMIN]".to_owned(),
        )]),
        ("t5-buildd-told-the-wrong-namespace", "T5", vec![(
            "- --namespace=buildkit-builds\n",
            "- --namespace=buildkit-builds\n            - --namespace\n            - buildkit-operator\n".to_owned(),
        )]),
        // Issue 8: what ADR-2647 rejected, and wiring between objects.
        ("r4-events-in-the-custom-resource-role", "R4", vec![(
            CR_ROLE_RULES,
            format!("rules:\n  - apiGroups: [\"\"]\n    resources: [events]\n    verbs: [create, patch]\n{}", &CR_ROLE_RULES[7..]),
        )]),
        ("r4-events-only-in-the-custom-resource-role", "R4", vec![
            (EVENTS_ROLE_RULES, "rules: []\n".to_owned()),
            (CR_ROLE_RULES, format!("rules:\n  - apiGroups: [\"\"]\n    resources: [events]\n    verbs: [create, patch]\n{}", &CR_ROLE_RULES[7..])),
        ]),
        ("r1-events-restricted-by-name", "R1", vec![(
            EVENTS_ROLE_RULES,
            "rules:\n  - apiGroups: [\"\"]\n    resources: [events]\n    resourceNames: [buildkit-events]\n    verbs: [create, patch]\n".to_owned(),
        )]),
        ("r1-events-only-in-events-k8s-io", "R1", vec![(
            EVENTS_ROLE_RULES,
            "rules:\n  - apiGroups: [events.k8s.io]\n    resources: [events]\n    verbs: [create, patch]\n".to_owned(),
        )]),
        ("r3-leader-election-id-names-another-lease", "R3", vec![(
            "--leader-election-id=buildkit-buildd-leader",
            "--leader-election-id=buildkit-buildd-lock".to_owned(),
        )]),
        ("t5-gateway-points-at-the-operator-namespace", "T5", vec![(
            "--daemon-namespace=buildkit-builds",
            "--daemon-namespace=buildkit-operator".to_owned(),
        )]),
        ("t5-lease-in-another-namespace", "T5", vec![(
            "- --leader-elect=true\n",
            "- --leader-elect=true\n            - --leader-election-namespace\n            - buildkit-builds\n".to_owned(),
        )]),
        // Issue 23: default deny in every namespace the release targets, no
        // ingress from the whole cluster.
        // Egress stays isolated by the DNS policy (every pod, Egress); no
        // policy selects every pod for Ingress.
        ("net-operator-default-deny-without-ingress", "NET", vec![(
            OPERATOR_DEFAULT_DENY,
            OPERATOR_DEFAULT_DENY.replace("[Ingress, Egress]", "[Egress]"),
        )]),
        ("net-gateway-open-to-every-namespace", "NET", vec![(
            "        - namespaceSelector:\n            matchLabels:\n              buildkit-operator.dev/gateway-client: \"true\"\n",
            "        - namespaceSelector: {}\n          podSelector:\n            matchLabels:\n              app: ci\n".to_owned(),
        )]),
        ("net-buildd-metrics-from-anywhere", "NET", vec![(
            "    - from:\n        - namespaceSelector:\n            matchLabels:\n              kubernetes.io/metadata.name: monitoring\n",
            "    - from: []\n".to_owned(),
        )]),
        ("kind-without-schema", "KIND", vec![(
            "---\n# Source: templates/namespaces.yaml\n",
            "---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: buildkit-builds\n---\n# Source: templates/namespaces.yaml\n".to_owned(),
        )]),
    ]
}

#[test]
fn every_committed_render_passes() {
    for env in ["dev", "ovh-prod"] {
        let run = chartgen(&["check", &format!("out/{env}")]);
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{}", run.stdout);
        assert!(
            without_prerequisites(&run.stdout).starts_with("ok: "),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn each_mutation_is_reported_as_exactly_its_invariant() {
    let valid = prod();
    for (name, invariant, edits) in mutations() {
        let edits: Vec<(&str, &str)> = edits.iter().map(|(f, t)| (*f, t.as_str())).collect();
        let run = chartgen_with_stdin(&["check", "-"], Some(&mutate(&valid, &edits)));
        assert_eq!(run.code, 1, "{name}: {}{}", run.stdout, run.stderr);
        let findings: Vec<&str> = run
            .stdout
            .lines()
            // Finding lines only: not their locations, not the closing count.
            .filter(|l| {
                !(l.starts_with("  at ")
                    || is_prerequisite_line(l)
                    || (l.contains(" finding") && l.contains(" object")))
            })
            .collect();
        assert!(!findings.is_empty(), "{name}");
        for finding in &findings {
            assert!(
                finding.starts_with(&format!("{invariant} ")),
                "{name}: {finding}"
            );
        }
        insta::assert_snapshot!(
            format!("check-{name}"),
            without_prerequisites(&run.transcript())
        );
    }
}

/// What ADR-2647 decides or tolerates passes: core events only (the
/// render), an extra write-only grant in events.k8s.io, and buildd told its
/// builds namespace in the two-argument form.
#[test]
fn equivalent_forms_pass() {
    let valid = prod();
    for (name, edits) in [
        (
            "an extra write-only events.k8s.io grant",
            vec![(
                EVENTS_ROLE_RULES,
                "rules:\n  - apiGroups: [\"\"]\n    resources: [events]\n    verbs: [create, patch]\n  - apiGroups: [events.k8s.io]\n    resources: [events]\n    verbs: [create, patch]\n",
            )],
        ),
        (
            "a default deny whose Egress type follows from its egress rule",
            vec![(OPERATOR_DEFAULT_DENY, &*OPERATOR_DEFAULT_DENY_IMPLIED)],
        ),
        (
            "--namespace X",
            vec![(
                "- --namespace=buildkit-builds\n",
                "- --namespace\n            - buildkit-builds\n",
            )],
        ),
    ] {
        let run = chartgen_with_stdin(&["check", "-"], Some(&mutate(&valid, &edits)));
        assert_eq!(
            (run.code, without_prerequisites(&run.stdout).as_str()),
            (0, "ok: 45 objects, no findings\n"),
            "{name}"
        );
    }
}

/// Manifests chartgen did not write (a Helm-style render with other names
/// and no chartgen labels): the classes come from what the workloads show;
/// the valid one passes, the broken one gives exactly its findings, none
/// contradicting another.
#[test]
fn label_free_renders_give_exactly_their_findings() {
    let valid = chartgen(&["check", "tests/fixtures/check/helm-style"]);
    assert_eq!(valid.code, 0, "{}", valid.stdout);
    insta::assert_snapshot!("check-helm-style", valid.transcript());
    let broken = chartgen(&["check", "tests/fixtures/check/helm-violations"]);
    assert_eq!(broken.code, 1);
    let ids: Vec<&str> = broken
        .stdout
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with("info:") && !l.contains(" finding"))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["R4", "R2", "R1", "R3", "ROOTFS", "T5", "R3", "T2"],
        "{}",
        broken.stdout
    );
    assert!(!broken.stdout.contains(" ?"), "{}", broken.stdout);
    insta::assert_snapshot!("check-helm-violations", broken.transcript());
}

/// `--output json` is the text output as data, field for field, and its
/// bytes are a contract (the snapshot): the same diagnostics through the
/// other renderer.
#[test]
fn the_json_output_says_what_the_text_says() {
    let dir = "tests/fixtures/check/helm-violations";
    let json = chartgen(&["check", "--output", "json", dir]);
    assert_eq!(json.code, 1);
    insta::assert_snapshot!("check-helm-violations-json", json.stdout);
    let text = chartgen(&["check", dir]).stdout;
    let report: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let mut expected = String::new();
    for f in report["findings"].as_array().unwrap() {
        let field = |key: &str| f[key].as_str().unwrap().to_owned();
        let path = Some(field("path"))
            .filter(|p| !p.is_empty())
            .map_or(String::new(), |p| format!(" {p}"));
        expected += &format!(
            "{} {}{path}: {}\n  at {} (rendered by templates/{})\n",
            field("invariant"),
            field("object"),
            field("message"),
            field("location"),
            field("template"),
        );
        assert_eq!(
            field("doc"),
            format!("docs/checks.md#{}", field("invariant").to_lowercase())
        );
    }
    for i in report["info"].as_array().unwrap() {
        expected += &format!(
            "info: {}: {}\n",
            i["subject"].as_str().unwrap(),
            i["message"].as_str().unwrap()
        );
    }
    assert!(!report["info"].as_array().unwrap().is_empty());
    assert_eq!(text, format!("{expected}8 findings in 27 objects\n"));
}

/// Without buildd, the classes cannot be told: one finding per namespace
/// of the operator's objects (the BuildProjects show one; nothing shows the
/// unlabelled rest is the operator's) says which fact is missing, instead
/// of findings that contradict.
#[test]
fn a_missing_fact_is_one_clear_finding() {
    let valid =
        std::fs::read_to_string(root().join("tests/fixtures/check/helm-style/manifests.yaml"))
            .unwrap();
    let without_buildd: Vec<&str> = valid
        .split("\n---\n")
        .filter(|d| !d.contains("ghcr.io/buildkit-operator/buildd:"))
        .collect();
    let run = chartgen_with_stdin(&["check", "-"], Some(&without_buildd.join("\n---\n")));
    assert_eq!(run.code, 1);
    let findings: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with("info:"))
        .collect();
    let lacking = "cannot be told: the input has no buildd Deployment (a container named buildd or running a buildd image), so neither the operator namespace (where buildd runs) nor the builds namespace (its --namespace) is shown; its objects' placement is not verified";
    assert_eq!(
        findings,
        [
            format!(
                "FACT BuildProject ci-builds/app-backend metadata.namespace: the trust class of namespace ci-builds {lacking}"
            ),
            "1 finding in 24 objects".to_owned(),
        ],
        "{}",
        run.stdout
    );
}

/// Host access outside the system namespace does not make a second system
/// namespace; another application's workload draws no ADR finding (no T2,
/// no class demand): it is held to its namespace's Pod Security labels,
/// and when the input does not show them an info line says what its pod
/// needs. Labelled `restricted`, the same pod is refused by the cluster's
/// verdict, named by control.
#[test]
fn node_plumbing_elsewhere_is_no_second_system_namespace() {
    let miner = "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: miner, namespace: sneaky}\nspec:\n  selector: {matchLabels: {app: m}}\n  template:\n    metadata: {labels: {app: m}}\n    spec:\n      hostPID: true\n      containers: [{name: m, image: busybox, securityContext: {privileged: true}}]\n";
    let run = chartgen_with_stdin(&["check", "-"], Some(&format!("{}{miner}", prod())));
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(!run.stdout.contains("sneaky/miner"), "{}", run.stdout);
    assert_contains(
        &run.stdout,
        "info: Namespace sneaky: Namespace sneaky is not in the input, and a pod there needs Pod Security privileged (Host Namespaces, Privileged Containers); what the cluster enforces there was not verified",
    );
    let namespace = "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: sneaky\n  labels: {pod-security.kubernetes.io/enforce: restricted}\n";
    let run = chartgen_with_stdin(
        &["check", "-"],
        Some(&format!("{}{miner}{namespace}", prod())),
    );
    assert_eq!(run.code, 1, "{}", run.transcript());
    let lines: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| !l.starts_with(' ') && !is_prerequisite_line(l))
        .collect();
    assert_eq!(
        lines[0],
        "T3 DaemonSet sneaky/miner spec.template.spec.hostPID: Pod Security control \"Host Namespaces\": host namespaces (hostPID=true); namespace sneaky enforces Pod Security restricted:latest, which refuses the pod"
    );
    assert!(
        lines[..lines.len() - 1]
            .iter()
            .all(|l| l.starts_with("T3 DaemonSet sneaky/miner ")),
        "{}",
        run.stdout
    );
}

/// Values from the manifests (flags, names) cannot break a line of the
/// report or send escape sequences to the terminal.
#[test]
fn values_from_the_input_are_printed_escaped() {
    let text = mutate(
        &prod(),
        &[(
            "--daemon-namespace=buildkit-builds",
            "\"--daemon-namespace=x\\e[2J\\nT9 forged\"",
        )],
    );
    let run = chartgen_with_stdin(&["check", "-"], Some(&text));
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("told --daemon-namespace=x\\u{001b}[2J\\u{000a}T9 forged; the daemons"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains('\u{1b}') && !run.stdout.contains("\nT9"));
}

/// Two releases checked together: their shared CRD is one object, and each
/// buildd is judged in its own namespaces.
#[test]
fn two_releases_check_together() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let other = dir.join("other");
    let run = chartgen(&[
        "render",
        "-f",
        "values/ovh-prod.yaml",
        "--set",
        "releaseName=other",
        "--set",
        "namespaces.operator=other-operator",
        "--set",
        "namespaces.builds=other-builds",
        "--set",
        "commonLabels.environment=staging",
        "--output-dir",
        other.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = chartgen(&[
        "check",
        "out/ovh-prod",
        other.join("release").to_str().unwrap(),
    ]);
    assert_eq!(
        (
            run.code,
            without_prerequisites(&run.stdout).as_str(),
            run.stderr.as_str()
        ),
        (0, "ok: 82 objects, no findings\n", "")
    );
}

/// A release without Namespace objects (createNamespaces off): their Pod
/// Security and exemptions are said to be unverified, not passed silently.
#[test]
fn namespaces_not_in_the_input_are_said_unverified() {
    let stream = chartgen(&[
        "render",
        "-f",
        "values/dev.yaml",
        "--set",
        "namespaces.create=false",
    ])
    .stdout;
    let run = chartgen_with_stdin(&["check", "-"], Some(&stream));
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        without_prerequisites(&run.stdout),
        "info: Namespace buildkit-builds: not in the input (the builds class's namespace): its Pod Security level and policy exemptions were not verified\ninfo: Namespace buildkit-operator: not in the input (the operator class's namespace): its Pod Security level and policy exemptions were not verified\nok: 33 objects, no findings\n"
    );
    let run = chartgen_with_stdin(&["check", "--output", "json", "-"], Some(&stream));
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["findings"], serde_json::json!([]));
    assert_eq!(report["info"][0]["subject"], "Namespace buildkit-builds");
}

#[test]
fn findings_point_at_the_line_and_template() {
    let text = mutate(
        &prod(),
        &[(
            "readOnlyRootFilesystem: true\n            runAsNonRoot: true",
            "readOnlyRootFilesystem: false\n            runAsNonRoot: true",
        )],
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let file = dir.join("prod.yaml");
    std::fs::write(&file, &text).unwrap();
    let line = 1 + text[..text.find("readOnlyRootFilesystem: false").unwrap()]
        .matches('\n')
        .count();
    let run = chartgen(&["check", "--output", "json", file.to_str().unwrap()]);
    // The file named through a folder called `templates/` (a chart's own
    // folder, say): still a file the user has, so the template that
    // rendered the object is named besides it.
    // `templates/` and one `..` per component of the absolute root reach `/`.
    let through = format!(
        "templates/{}{}",
        "../".repeat(root().components().count()),
        file.strip_prefix("/").unwrap().display()
    );
    let text = chartgen(&["check", &through]);
    assert_eq!(
        text.stdout.lines().nth(1),
        Some(format!("  at {through}:{line} (rendered by templates/buildd.yaml)").as_str()),
        "{}",
        text.stdout
    );
    assert_eq!(run.code, 1);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let info: Vec<&serde_json::Value> = report["info"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| !matches!(i["subject"].as_str(), Some("cert-manager" | "Kyverno")))
        .collect();
    assert!(info.is_empty(), "{info:?}");
    let findings = &report["findings"];
    assert_eq!(findings.as_array().unwrap().len(), 1, "{findings:#}");
    let finding = &findings[0];
    assert_eq!(finding["doc"], "docs/checks.md#rootfs");
    assert_eq!(finding["invariant"], "ROOTFS");
    assert_eq!(
        finding["object"],
        "Deployment buildkit-operator/buildkit-buildd"
    );
    assert_eq!(
        finding["path"],
        "spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem"
    );
    assert_eq!(finding["location"], format!("{}:{line}", file.display()));
    assert_eq!(finding["template"], "buildd.yaml");
}

#[test]
fn the_exemptions_artifact_must_match_the_namespaces() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    std::fs::write(dir.join("stream.yaml"), prod()).unwrap();
    let artifact =
        std::fs::read_to_string(root().join("out/ovh-prod/release/kyverno-exemptions.yaml"))
            .unwrap();
    let artifact = mutate(
        &artifact,
        &[(
            "disallowHostPath:\n  excludedNamespaces: [buildkit-system]\n",
            "",
        )],
    );
    std::fs::write(dir.join("kyverno-exemptions.yaml"), artifact).unwrap();
    let run = chartgen(&["check", dir.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.starts_with("T4 Namespace buildkit-system metadata.name: the exemptions artifact does not exclude buildkit-system for disallowHostPath, but the system class needs it\n"),
        "{}",
        run.stdout
    );
}

/// `--crd` takes CustomResourceDefinitions only, as `render --crd` does:
/// a file of other objects given there would check nothing, unsaid.
#[test]
fn crd_refuses_what_is_no_crd() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("h1.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n",
    )
    .unwrap();
    for command in ["check", "render"] {
        let mut args = vec![command, "--crd", file.to_str().unwrap()];
        if command == "check" {
            args.push("out/dev/release");
        }
        let run = chartgen(&args);
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (
                2,
                "",
                "error: --crd takes CustomResourceDefinitions; ConfigMap default/x is none\n"
            ),
            "{command}"
        );
    }
}

#[test]
fn a_custom_kind_is_checked_against_a_crd_given_with_crd() {
    let widget_crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            apiVersion: {type: string}\n            kind: {type: string}\n            metadata: {type: object}\n            spec: {type: object, properties: {size: {type: integer}}}\n";
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    std::fs::write(dir.join("crd.yaml"), widget_crd).unwrap();
    let widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: buildkit-builds, labels: {app.kubernetes.io/component: daemons}}\nspec: {size: big}\n";
    let run = chartgen_with_stdin(
        &[
            "check",
            "--crd",
            dir.join("crd.yaml").to_str().unwrap(),
            "-",
        ],
        Some(&format!("{}---\n{widget}", prod())),
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.starts_with(
            "K8S Widget buildkit-builds/w spec.size: \"big\" is not of type \"integer\"\n"
        ),
        "{}",
        run.stdout
    );
}

/// A custom resource whose CRD says `scope: Cluster`, in the input or
/// given with `--crd`, is cluster-scoped: the API server clears the
/// namespace written on it (a real v1.35 server created one namespaced
/// `Bad_NS`), so `check` neither reads the namespace nor puts the object in
/// one.
#[test]
fn a_cluster_scoped_custom_resource_has_no_namespace() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.example.com\nspec:\n  group: example.com\n  names: {kind: Gadget, plural: gadgets}\n  scope: Cluster\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}\n";
    let gadget = |namespace: &str| {
        format!(
            "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {{name: g, namespace: {namespace}}}\n"
        )
    };
    let tmp = tempfile::tempdir().unwrap();
    let crd_file = tmp.path().join("crd.yaml");
    std::fs::write(&crd_file, crd).unwrap();
    let crd_file = crd_file.to_str().unwrap();
    let beside = chartgen_with_stdin(
        &["check", "-"],
        Some(&format!("{crd}---\n{}", gadget("Bad_NS"))),
    );
    let given = chartgen_with_stdin(&["check", "--crd", crd_file, "-"], Some(&gadget("Bad_NS")));
    for run in [beside, given] {
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{}", run.stdout);
    }
    let run = chartgen_with_stdin(
        &["check", "--output", "json", "--crd", crd_file, "-"],
        Some(&format!("{}---\n{}", gadget("a"), gadget("b"))),
    );
    // One object, written twice: a cluster-scoped name is the identity.
    run.assert_refused(2, "Gadget g again");
    // Namespaced, the same namespace is read, and refused.
    let namespaced = crd.replace("scope: Cluster", "scope: Namespaced");
    let run = chartgen_with_stdin(
        &["check", "-"],
        Some(&format!("{namespaced}---\n{}", gadget("Bad_NS"))),
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.starts_with(
            "API Gadget Bad_NS/g metadata.namespace: `Bad_NS` is not a valid namespace"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn malformed_input_is_bad_input_not_a_finding() {
    let run = chartgen_with_stdin(&["check", "-"], Some("kind: [\n"));
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    // The text ends while `[` is open: placed at the end of its last
    // line, not on a line past it.
    run.assert_refused_each(2, &["error: <stdin>:1:8: ", ", at the end of the file\n"]);
    assert!(
        run.stderr.starts_with("error: <stdin>:1:8: "),
        "{}",
        run.stderr
    );
    let run = chartgen_with_stdin(&["check", "-"], Some("just: a mapping\n"));
    run.assert_refused(2, "not a Kubernetes object: a document without apiVersion");
    // What `kubectl create` takes and `kubectl apply` refuses.
    let run = chartgen_with_stdin(
        &["check", "-"],
        Some("apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: cm-}\n"),
    );
    run.assert_refused(2, "cannot use generate name with apply");
    let run = chartgen_with_stdin(
        &["check", "-"],
        Some("apiVersion: v1\nkind: LimitRange\nmetadata: {namespace: default}\n"),
    );
    run.assert_refused(
        2,
        "not a Kubernetes object: a document without metadata.name",
    );
    let run = chartgen(&["check", "out/nope"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("error: cannot read manifests from `out/nope`\n  caused by: "),
        "{}",
        run.stderr
    );
}

#[test]
fn rbac_lists_effective_permissions_per_service_account() {
    let run = chartgen(&["rbac", "out/ovh-prod"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    insta::assert_snapshot!("rbac-ovh-prod", run.stdout);
    let run = chartgen(&["rbac", "--output", "json", "out/ovh-prod"]);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    // Every ServiceAccount the input declares or a workload runs as (the
    // vCPU tuner as buildkit-system/default) is listed, sorted.
    let names: Vec<&str> = json["subjects"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["subject"]["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "buildkit-daemons",
            "buildkit-buildd",
            "buildkit-gateway",
            "buildkit-kata-deploy",
            "default"
        ]
    );
}

/// A namespaced CRD of group `example.com`, version `v1`, whose `spec`
/// declares `properties` (each `name: {schema}` in YAML's flow style).
fn custom_resource_definition(plural: &str, kind: &str, properties: &[&str]) -> String {
    let mut crd = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: {plural}.example.com}}\n\
         spec:\n  group: example.com\n  scope: Namespaced\n  names: {{kind: {kind}, plural: {plural}}}\n  versions:\n  \
         - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        \
         properties:\n          spec:\n            type: object\n            properties:\n"
    );
    for property in properties {
        crd.push_str(&format!("              {property}\n"));
    }
    crd
}

/// A custom resource's keyed lists hold no item twice, as a v1.35 server
/// refused in a review: a `set`'s items by value (`1` and `1.0` are one), a
/// `map`'s by their keys, a key left out being its default.
#[test]
fn a_custom_resources_keyed_lists_hold_no_item_twice() {
    let crd = custom_resource_definition(
        "lists",
        "Lst",
        &[
            "tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}",
            "nums: {type: array, x-kubernetes-list-type: set, items: {type: number}}",
            "ports: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name, proto], items: {type: object, required: [name], properties: {name: {type: string}, proto: {type: string, default: TCP}}}}",
        ],
    );
    let list = |spec: &str| {
        format!(
            "{crd}---\napiVersion: example.com/v1\nkind: Lst\nmetadata: {{name: l, namespace: apps}}\nspec: {spec}\n"
        )
    };
    let run = chartgen_with_stdin(
        &["check", "-"],
        Some(&list(
            "{tags: [a, b], nums: [1, 2], ports: [{name: a}, {name: a, proto: UDP}]}",
        )),
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
    for (spec, finding) in [
        ("{tags: [a, b, a]}", "spec.tags[2]: Duplicate value: \"a\""),
        ("{nums: [1, 1.0]}", "spec.nums[1]: Duplicate value"),
        (
            "{ports: [{name: a}, {name: a, proto: TCP}]}",
            "spec.ports[1]: Duplicate value: {\"name\":\"a\",\"proto\":\"TCP\"}",
        ),
    ] {
        let run = chartgen_with_stdin(&["check", "-"], Some(&list(spec)));
        assert!(
            run.code == 1 && run.stdout.contains(finding),
            "{spec}: {}",
            run.transcript()
        );
    }
}

/// A CRD's versions (`validateCustomResourceDefinitionSpec`): exactly one
/// stored (a v1.35 server refused a second `storage: true` in a review),
/// each named with a DNS-1035 label, once.
#[test]
fn a_crd_stores_exactly_one_version_of_unique_names() {
    let crd = |versions: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: gadgets.example.com}}\n\
             spec:\n  group: example.com\n  scope: Namespaced\n  names: {{kind: Gadget, plural: gadgets}}\n  versions:\n{versions}"
        )
    };
    let version = |name: &str, storage: bool| {
        format!(
            "  - {{name: {name}, served: true, storage: {storage}, schema: {{openAPIV3Schema: {{type: object}}}}}}\n"
        )
    };
    let run = chartgen_with_stdin(
        &["check", "-"],
        Some(&crd(&(version("v1", true) + &version("v2", false)))),
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
    for (versions, finding) in [
        (
            version("v1", true) + &version("v2", true),
            "must have exactly one version marked as storage version, not 2",
        ),
        (
            version("v1", false),
            "must have exactly one version marked as storage version, not 0",
        ),
        (
            version("v1", true) + &version("v1", false),
            "must contain unique version names",
        ),
        (version("V2", true), "`V2` is no version name"),
    ] {
        let run = chartgen_with_stdin(&["check", "-"], Some(&crd(&versions)));
        assert!(
            run.code == 1 && run.stdout.contains(finding),
            "{finding}: {}",
            run.transcript()
        );
    }
}

/// As a v1.35 server answered a review: an owner reference written twice
/// whole is one (the server drops the copy before it validates, with a
/// warning), two controllers of different names are refused; a
/// PersistentVolume's iSCSI Secret reference needs its name, CHAP or not.
#[test]
fn owner_references_written_twice_and_an_iscsi_secret_without_a_name() {
    let owned = |second: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owned\n  namespace: apps\n  ownerReferences:\n  \
             - {{apiVersion: apps/v1, kind: Deployment, name: web, uid: '1234', controller: true}}\n  - {second}\n"
        )
    };
    let copy = "{kind: Deployment, apiVersion: apps/v1, name: web, uid: '1234', controller: true}";
    let run = chartgen_with_stdin(&["check", "-"], Some(&owned(copy)));
    assert_eq!(run.code, 0, "{}", run.transcript());
    let other =
        "{apiVersion: apps/v1, kind: Deployment, name: web2, uid: '1234', controller: true}";
    let run = chartgen_with_stdin(&["check", "-"], Some(&owned(other)));
    assert!(
        run.code == 1 && run.stdout.contains("2 owner references are the controller"),
        "{}",
        run.transcript()
    );
    let volume = |reference: &str| {
        format!(
            "apiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: disk}}\nspec:\n  capacity: {{storage: 1Gi}}\n  \
             accessModes: [ReadWriteOnce]\n  iscsi: {{targetPortal: 10.0.0.1:3260, iqn: iqn.2001-04.com.example:storage, lun: 0{reference}}}\n"
        )
    };
    for reference in [
        ", secretRef: {namespace: apps}",
        ", secretRef: {}",
        ", secretRef: {name: ''}",
    ] {
        let run = chartgen_with_stdin(&["check", "-"], Some(&volume(reference)));
        assert!(
            run.code == 1 && run.stdout.contains("spec.iscsi.secretRef.name"),
            "{reference}: {}",
            run.transcript()
        );
    }
    let run = chartgen_with_stdin(&["check", "-"], Some(&volume(", secretRef: {name: chap}")));
    assert_eq!(run.code, 0, "{}", run.transcript());
}

/// A CRD's patterns are Go's: a review against a v1.35 server found every
/// object of a CRD whose pattern used `(?i)` refused (the schema engine
/// read it as ECMA-262 and did not compile it), and Go's ASCII `\b`,
/// `\s` and a `.` that matches `\r` read as Unicode or ECMA read them.
/// Each value below as the server judged it.
#[test]
fn a_crds_patterns_are_judged_as_go_reads_them() {
    let crd = custom_resource_definition(
        "flags",
        "Flag",
        &[
            "name: {type: string, pattern: '(?i)^[a-z]+$'}",
            "word: {type: string, pattern: '\\bfoo\\b'}",
            "space: {type: string, pattern: '^\\s$'}",
            "any: {type: string, pattern: '^.$'}",
            "named: {type: string, pattern: '^(?P<1a>x)(?P<1a>y)$'}",
        ],
    );
    let flag = |spec: &str| {
        format!(
            "{crd}---\napiVersion: example.com/v1\nkind: Flag\nmetadata: {{name: f, namespace: apps}}\nspec: {spec}\n"
        )
    };
    for accepted in [
        "{name: Abc}",
        "{word: \"\\u00e9foo\"}",
        "{word: \"\\u65e5foo\"}",
        "{any: \"\\r\"}",
        "{named: xy}",
        "{}",
    ] {
        let run = chartgen_with_stdin(&["check", "-"], Some(&flag(accepted)));
        assert_eq!(run.code, 0, "{accepted}: {}", run.transcript());
    }
    for (refused, field) in [
        ("{name: Ab1}", "spec.name"),
        ("{space: \"\\u00a0\"}", "spec.space"),
        ("{space: \"\\u2003\"}", "spec.space"),
        ("{named: yx}", "spec.named"),
    ] {
        let run = chartgen_with_stdin(&["check", "-"], Some(&flag(refused)));
        assert!(
            run.code == 1
                && run
                    .stdout
                    .starts_with(&format!("K8S Flag apps/f {field}: ")),
            "{refused}: {}",
            run.transcript()
        );
    }
}

/// What a CRD's schema does not declare the API server prunes, and its
/// strict decoding refuses: the members of an object with no
/// `properties` (`type: object` alone, a map's object values, array
/// items, `status`), and every member of any object under
/// `additionalProperties: true` (even beside
/// `x-kubernetes-preserve-unknown-fields`), arrays included. A review saw
/// check take each; the verdicts below are a v1.35.4 server's.
#[test]
fn a_crds_undeclared_members_are_refused_as_the_server_prunes_them() {
    let crd = r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "o": {"type": "object"},
                        "om": {"type": "object", "additionalProperties": {"type": "object"}},
                        "ao": {"type": "array", "items": {"type": "object"}},
                        "m": {"type": "object", "additionalProperties": true},
                        "atp": {"type": "object", "additionalProperties": true, "x-kubernetes-preserve-unknown-fields": true}}},
                    "status": {"type": "object"}}}}}]}}"#;
    let widget = |spec: &str, status: &str| {
        format!(
            r#"{{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {{"name": "w", "namespace": "apps"}}, "spec": {spec}{status}}}"#
        )
    };
    let check = |object: String| {
        chartgen_with_stdin(
            &["check", "-"],
            Some(&format!(
                r#"{{"apiVersion": "v1", "kind": "List", "items": [{crd}, {object}]}}"#
            )),
        )
    };
    for (spec, unexpected) in [
        (
            r#"{"o": {"a": 1}}"#,
            "spec.o: Additional properties are not allowed ('a' was unexpected)",
        ),
        (r#"{"om": {"k": {"a": 1}}}"#, "spec.om.k: "),
        (r#"{"ao": [{"a": 1}]}"#, "spec.ao[0]: "),
        (r#"{"m": {"q": {"x": null}}}"#, "spec.m.q: "),
        (r#"{"m": {"q": [{"a": null}]}}"#, "spec.m.q[0]: "),
        (r#"{"m": {"q": {"x": {"y": 1}}}}"#, "spec.m.q: "),
        (r#"{"atp": {"q": {"x": 1}}}"#, "spec.atp.q: "),
    ] {
        let run = check(widget(spec, ""));
        assert!(
            run.code == 1
                && run
                    .stdout
                    .starts_with(&format!("K8S Widget apps/w {unexpected}")),
            "{spec}: {}",
            run.transcript()
        );
    }
    let run = check(widget(r#"{"o": {}}"#, r#", "status": {"phase": "x"}"#));
    assert!(
        run.code == 1 && run.stdout.starts_with("K8S Widget apps/w status: "),
        "{}",
        run.transcript()
    );
    for spec in [
        r#"{"m": {"q": [1], "r": null, "s": "x"}, "o": {}, "atp": {"q": 1}}"#,
        r#"{"om": {"k": {}}, "ao": [{}]}"#,
    ] {
        let run = check(widget(spec, ""));
        assert_eq!(run.code, 0, "{spec}: {}", run.transcript());
    }
}

/// A custom resource at a version its CRD does not serve is refused: kubectl
/// finds no such kind to create (a v1.35.4 server's answer), where check
/// judged it against that version's schema.
#[test]
fn a_custom_resource_at_a_version_not_served_is_refused() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\n\
               spec:\n  group: example.com\n  scope: Namespaced\n  names: {plural: widgets, kind: Widget}\n  versions:\n  \
               - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}\n  \
               - {name: v2, served: false, storage: false, schema: {openAPIV3Schema: {type: object}}}\n";
    let widget = |version: &str| {
        format!(
            "{crd}---\napiVersion: example.com/{version}\nkind: Widget\nmetadata: {{name: w, namespace: apps}}\n"
        )
    };
    let run = chartgen_with_stdin(&["check", "-"], Some(&widget("v2")));
    assert!(
        run.code == 1
            && run.stdout.starts_with(
                "KIND Widget apps/w: version v2 of CRD widgets.example.com is not served (`served: false`)"
            ),
        "{}",
        run.transcript()
    );
    let run = chartgen_with_stdin(&["check", "-"], Some(&widget("v1")));
    assert_eq!(run.code, 0, "{}", run.transcript());
}

/// An embedded resource (`x-kubernetes-embedded-resource`) needs an
/// apiVersion that is a group version and a kind that is a DNS-1035 label
/// in any case, as a v1.35.4 server answered each below.
#[test]
fn an_embedded_resource_needs_its_api_version_and_kind() {
    let crd = custom_resource_definition(
        "widgets",
        "Widget",
        &[
            "emb: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}",
        ],
    );
    let check = |emb: &str| {
        chartgen_with_stdin(
            &["check", "-"],
            Some(&format!(
                "{crd}---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: w, namespace: apps}}\nspec: {{emb: {emb}}}\n"
            )),
        )
    };
    for refused in [
        "{}",
        "{kind: X}",
        "{apiVersion: '', kind: X}",
        "{apiVersion: a/b/c, kind: X}",
        "{apiVersion: v1, kind: 1x}",
        "{apiVersion: v1, kind: X_y}",
    ] {
        let run = check(refused);
        assert!(
            run.code == 1 && run.stdout.starts_with("K8S Widget apps/w spec.emb"),
            "{refused}: {}",
            run.transcript()
        );
    }
    for accepted in [
        "{apiVersion: /v1, kind: X}",
        "{apiVersion: v1, kind: my-Kind}",
        "{apiVersion: g/, kind: X}",
    ] {
        let run = check(accepted);
        assert_eq!(run.code, 0, "{accepted}: {}", run.transcript());
    }
}

/// A CRD whose schema holds a keyword of another JSON type than
/// `JSONSchemaProps` decodes cannot be decoded by the API server, under
/// `items` and `additionalProperties` too, where the published schema of
/// JSONSchemaProps types nothing (a review saw check take them). Each
/// verdict below a v1.35.4 server's.
#[test]
fn a_crds_keywords_have_the_types_the_server_decodes() {
    let crd = |keyword: &str| {
        format!(
            r#"{{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
              "metadata": {{"name": "kws.example.com"}},
              "spec": {{"group": "example.com", "scope": "Namespaced", "names": {{"plural": "kws", "kind": "Kw"}},
                "versions": [{{"name": "v1", "served": true, "storage": true, "schema": {{"openAPIV3Schema":
                  {{"type": "object", "properties": {{"spec": {{"type": "object", "properties": {{
                    "l": {{"type": "array", "items": {{"type": "string", {keyword}}}}}}}}}}}}}}}}}]}}}}"#
        )
    };
    for refused in [
        r#""minLength": "1""#,
        r#""maxLength": 1.5"#,
        r#""nullable": "yes""#,
        r#""enum": "a""#,
        r#""x-kubernetes-validations": "x""#,
        r#""x-kubernetes-list-type": 5"#,
        r#""externalDocs": "x""#,
    ] {
        let run = chartgen_with_stdin(&["check", "-"], Some(&crd(refused)));
        assert!(
            run.code == 1
                && run.stdout.contains("items.")
                && run.stdout.contains("the API server cannot decode the CRD"),
            "{refused}: {}",
            run.transcript()
        );
    }
    for accepted in [
        r#""enum": null"#,
        r#""maxLength": 1.0"#,
        r#""x-kubernetes-validations": []"#,
        r#""default": "x""#,
        r#""externalDocs": {"url": "http://x"}"#,
    ] {
        let run = chartgen_with_stdin(&["check", "-"], Some(&crd(accepted)));
        assert_eq!(run.code, 0, "{accepted}: {}", run.transcript());
    }
}

/// A plain whole number from 2^63 to 2^64-1 is a `uint64` to go-yaml:
/// a quantity takes it (a real v1.35 server accepted a ResourceQuota's
/// `requests.storage: 9223372036854775808`), compared exactly; an integer
/// field refuses it, as the server's decoder does. It used to refuse the
/// file.
#[test]
fn a_whole_number_past_int64_is_read_as_kubernetes_reads_it() {
    let quota = "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: apps}\n\
                 spec:\n  hard: {requests.storage: 9223372036854775808, limits.memory: 18446744073709551615}\n";
    let run = chartgen_with_stdin(&["check", "-"], Some(quota));
    assert_eq!(run.code, 0, "{}", run.transcript());
    let pod = |requests: &str, limits: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: apps}}\nspec:\n  containers:\n  \
             - name: c\n    image: registry.example/app:1\n    \
             resources: {{requests: {{memory: {requests}}}, limits: {{memory: {limits}}}}}\n"
        )
    };
    let run = chartgen_with_stdin(
        &["check", "-"],
        Some(&pod("9223372036854775808", "18446744073709551615")),
    );
    assert_eq!(run.code, 0, "{}", run.transcript());
    let run = chartgen_with_stdin(
        &["check", "-"],
        Some(&pod("18446744073709551615", "18446744073709551614")),
    );
    assert!(
        run.code == 1
            && run.stdout.contains(
                "requests 18446744073709551615 of memory, more than its limit 18446744073709551614"
            ),
        "{}",
        run.transcript()
    );
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: apps}\n\
                      spec:\n  replicas: 9223372036854775808\n  selector: {matchLabels: {a: b}}\n  \
                      template:\n    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c, image: registry.example/app:1}]}\n";
    let run = chartgen_with_stdin(&["check", "-"], Some(deployment));
    assert!(
        run.code == 1
            && run
                .stdout
                .contains("spec.replicas: 9223372036854775808 is past what an integer field holds"),
        "{}",
        run.transcript()
    );
}

/// ClusterRoles that aggregate each other hold, in `rbac`'s answer, every
/// rule any of them writes, which a cluster may hold less of: a note names
/// each such cycle once, its members sorted; a cycle whose members write
/// no rules of their own, or a chain without a cycle, gets none.
#[test]
fn rbac_names_a_cycle_of_aggregation_in_a_note() {
    let role = |name: &str, label: &str, selects: &str, rules: &str| {
        format!(
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n\
             metadata: {{name: {name}, labels: {{ring: '{label}'}}}}\n\
             aggregationRule: {{clusterRoleSelectors: [{{matchLabels: {{ring: '{selects}'}}}}]}}\n\
             rules: [{rules}]\n"
        )
    };
    let get =
        |resource: &str| format!("{{apiGroups: [''], resources: [{resource}], verbs: [get]}}");
    let input = [
        role("c", "1", "2", &get("pods")),
        role("a", "2", "3", ""),
        role("b", "3", "1", &get("configmaps")),
        // Two roles that gather each other's nothing.
        role("p", "7", "8", ""),
        role("q", "8", "7", ""),
        // A chain: d gathers e, nothing gathers d.
        role("d", "4", "5", &get("secrets")),
        role("e", "5", "6", &get("services")),
    ]
    .concat();
    // A ring of seven: five named, then how many more.
    let ring: String = (0..7)
        .map(|n| {
            role(
                &format!("r{n}"),
                &format!("r{n}"),
                &format!("r{}", (n + 1) % 7),
                &get("nodes"),
            )
        })
        .collect();
    let input = input + &ring;
    let run = chartgen_with_stdin(&["rbac", "-"], Some(&input));
    assert_eq!(run.code, 0, "{}", run.transcript());
    let notes: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(notes.len(), 2, "{}", run.stderr);
    assert!(
        notes[0].starts_with("note: the ClusterRoles a, b, c aggregate each other: each is listed with the rules all of them write"),
        "{}",
        run.stderr
    );
    assert!(
        notes[1].starts_with(
            "note: the ClusterRoles r0, r1, r2, r3, r4 and 2 more aggregate each other"
        ),
        "{}",
        run.stderr
    );
    let quiet = chartgen_with_stdin(&["-q", "rbac", "-"], Some(&input));
    assert_eq!((quiet.code, quiet.stderr.as_str()), (0, ""));
}

/// An aggregated ClusterRole that a cycle reaches leaves its own rules in
/// the cycle (a member synced before it copies them, and the members pass
/// them round: a review saw it on a real server in three applies of
/// three), though it holds what it gathers itself: `rbac` lists them for
/// the cycle's members and the roles that reach the cycle, not for the
/// role itself nor a role that reaches it another way, and its note says
/// so; a cycle that writes nothing but reaches such a role is noted too.
#[test]
fn a_cycle_of_aggregation_keeps_the_rules_of_the_roles_it_reaches() {
    let role = |name: &str, label: &str, selects: &[&str], rules: &str| {
        let selectors: Vec<String> = (selects.iter())
            .map(|s| format!("{{matchLabels: {{ring: '{s}'}}}}"))
            .collect();
        format!(
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n\
             metadata: {{name: {name}, labels: {{ring: '{label}'}}}}\n\
             aggregationRule: {{clusterRoleSelectors: [{}]}}\nrules: [{rules}]\n",
            selectors.join(", ")
        )
    };
    let bound = |account: &str, role: &str| {
        format!(
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\n\
             metadata: {{name: {account}}}\n\
             roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: {role}}}\n\
             subjects: [{{kind: ServiceAccount, name: {account}, namespace: ns}}]\n"
        )
    };
    let input = [
        role("a", "a", &["b"], "{apiGroups: [''], resources: [pods], verbs: [get]}"),
        role("b", "b", &["a", "x"], "{apiGroups: [''], resources: [services], verbs: [get]}"),
        // x gathers the leaf: once synced, its own rules are gone from it.
        role(
            "x",
            "x",
            &["leaf"],
            "{apiGroups: [''], resources: [secrets], verbs: ['*']}, {nonResourceURLs: ['*'], verbs: ['*']}",
        ),
        "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n\
         metadata: {name: leaf, labels: {ring: leaf}}\n\
         rules: [{apiGroups: [''], resources: [configmaps], verbs: [list]}]\n"
            .to_owned(),
        // z reaches x without a cycle; up reaches the cycle.
        role("z", "z", &["x"], ""),
        role("up", "up", &["a"], ""),
        // p and q write nothing, gather each other and reach x.
        role("p", "p", &["q", "x"], ""),
        role("q", "q", &["p"], ""),
        bound("in-cycle", "a"),
        bound("direct", "x"),
        bound("around", "z"),
        bound("above", "up"),
    ]
    .concat();
    let run = chartgen_with_stdin(&["rbac", "--output", "json", "-"], Some(&input));
    assert_eq!(run.code, 0, "{}", run.transcript());
    let listed: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let of = |account: &str| -> Vec<String> {
        let subject = (listed["subjects"].as_array().unwrap().iter())
            .find(|s| s["subject"]["name"] == account)
            .unwrap_or_else(|| panic!("no {account}: {}", run.stdout));
        let listed = |key: &str, what: &str| -> Vec<String> {
            (subject[key].as_array().unwrap().iter())
                .filter(|p| !p["via"][0].as_str().unwrap().contains("(cluster default)"))
                .map(|p| format!("{} {}", p[what].as_str().unwrap(), p["verbs"]))
                .collect()
        };
        let mut held = listed("permissions", "resource");
        held.extend(listed("non_resource", "url"));
        held.sort();
        held
    };
    for account in ["in-cycle", "above"] {
        assert_eq!(
            of(account),
            [
                r#"* ["*"]"#,
                r#"configmaps ["list"]"#,
                r#"pods ["get"]"#,
                r#"secrets ["*"]"#,
                r#"services ["get"]"#,
            ],
            "{account}"
        );
    }
    for account in ["direct", "around"] {
        assert_eq!(of(account), [r#"configmaps ["list"]"#], "{account}");
    }
    let notes: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(notes.len(), 2, "{}", run.stderr);
    assert!(notes[0].starts_with("note: the ClusterRoles a, b aggregate each other: each is listed with the rules all of them write, and those written in the aggregated roles they reach"), "{}", run.stderr);
    assert!(
        notes[1].starts_with("note: the ClusterRoles p, q aggregate each other"),
        "{}",
        run.stderr
    );
}

/// A namespace written on a ClusterRole or ClusterRoleBinding is none (the
/// server stores them without one, as a review saw): `rbac` names them
/// without it; a Role's and RoleBinding's keep theirs. A refusal for an
/// unknown top-level field names no empty path.
#[test]
fn rbac_names_cluster_scoped_objects_without_a_namespace() {
    let input = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader, namespace: one}\n\
                 rules: [{apiGroups: [''], resources: [nodes], verbs: [get]}]\n---\n\
                 apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: readers, namespace: two}\n\
                 roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reader}\n\
                 subjects: [{kind: User, name: u, apiGroup: rbac.authorization.k8s.io}]\n---\n\
                 apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: local, namespace: apps}\n\
                 roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reader}\n\
                 subjects: [{kind: User, name: v, apiGroup: rbac.authorization.k8s.io}]\n---\n\
                 apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: typo}\n\
                 rule: [{apiGroups: [''], resources: [nodes], verbs: [get]}]\n";
    let run = chartgen_with_stdin(&["rbac", "-"], Some(input));
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        run.stdout
            .contains(" get     ClusterRoleBinding readers → ClusterRole reader\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(" get     RoleBinding apps/local → ClusterRole reader\n"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("one/") && !run.stdout.contains("two/"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.starts_with("note: ClusterRole typo grants nothing here: the API server refuses it (Additional properties are not allowed ('rule' was unexpected)"),
        "{}",
        run.stderr
    );
}

/// A role or binding the API server refuses does not exist once applied:
/// `rbac` counts nothing of it, and says so, while the valid objects
/// beside it count (a binding to the refused role grants nothing).
#[test]
fn rbac_counts_nothing_of_an_object_the_server_refuses() {
    let rbac = "apiVersion: rbac.authorization.k8s.io/v1";
    let bind = |kind: &str, name: &str, role: (&str, &str)| {
        format!(
            "---\n{rbac}\nkind: {kind}\nmetadata: {{name: {name}, namespace: apps}}\n\
             roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: {}, name: {}}}\n\
             subjects: [{{kind: ServiceAccount, name: sa, namespace: apps}}]\n",
            role.0, role.1
        )
    };
    let input = format!(
        "{rbac}\nkind: Role\nmetadata: {{name: r, namespace: apps}}\n\
         rules: [{{apiGroups: [''], resources: [secrets], verbs: [get]}}, {{nonResourceURLs: [/metrics], verbs: [get]}}]\n\
         {}---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: empty-rule}}\naggregationRule: {{}}\n\
         rules: [{{apiGroups: [''], resources: [configmaps], verbs: [list]}}]\n\
         {}{}---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: fine}}\n\
         rules: [{{apiGroups: [apps], resources: [deployments], verbs: [watch]}}]\n{}",
        bind("RoleBinding", "r", ("Role", "r")),
        bind(
            "ClusterRoleBinding",
            "empty-rule",
            ("ClusterRole", "empty-rule")
        ),
        bind("ClusterRoleBinding", "old", ("ClusterRole", "view")).replace(
            "rbac.authorization.k8s.io/v1\n",
            "rbac.authorization.k8s.io/v1beta1\n"
        ),
        bind("ClusterRoleBinding", "fine", ("ClusterRole", "fine")),
    );
    let run = chartgen_with_stdin(&["rbac", "--output", "json", "-"], Some(&input));
    assert_eq!(run.code, 0, "{}", run.transcript());
    let notes: Vec<&str> = run.stderr.lines().collect();
    let refused = [
        "ClusterRole empty-rule grants nothing here: the API server refuses it (aggregationRule.clusterRoleSelectors: an aggregation rule names at least one",
        "ClusterRoleBinding apps/old grants nothing here: the API server refuses it (no rbac.authorization.k8s.io/v1beta1 ClusterRoleBinding is served",
        "Role apps/r grants nothing here: the API server refuses it (rules[1].nonResourceURLs:",
    ];
    assert_eq!(notes.len(), refused.len(), "{}", run.stderr);
    for (note, refused) in notes.iter().zip(refused) {
        assert!(
            note.starts_with(&format!("note: {refused}")),
            "{}",
            run.stderr
        );
    }
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let sa = (json["subjects"].as_array().unwrap().iter())
        .find(|s| s["subject"]["name"] == "sa")
        .unwrap();
    let mine: Vec<&str> = (sa["permissions"].as_array().unwrap().iter())
        .filter(|p| !p["via"].to_string().contains("(cluster default) →"))
        .map(|p| p["resource"].as_str().unwrap())
        .collect();
    assert_eq!(mine, ["deployments.apps"], "{sa:#}");
}

#[test]
fn a_role_binding_to_a_cluster_role_counts_only_in_its_namespace() {
    let text = mutate(
        &prod(),
        &[(
            "kind: ClusterRoleBinding\nmetadata:\n  name: buildkit-operator-events\n",
            "kind: RoleBinding\nmetadata:\n  name: buildkit-operator-events\n  namespace: buildkit-operator\n",
        )],
    );
    let run = chartgen_with_stdin(&["rbac", "-"], Some(&text));
    let events: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains(" events"))
        .collect();
    assert_eq!(
        events,
        [
            "  buildkit-operator  events                                                                                                     create, patch                                    RoleBinding buildkit-operator/buildkit-operator-events → ClusterRole buildkit-operator-events",
        ]
    );
}

/// What the authorizer matches, as a real v1.35.4 server answered `kubectl
/// auth can-i`: a core-group resource written with a dot is its own row,
/// never merged into the group it names (`list deployments.apps` yes,
/// `delete` no); the name `""` is the requests that name none (create and
/// list allowed), shown so.
#[test]
fn permissions_keep_what_the_authorizer_tells_apart() {
    let text = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa, namespace: a}\n---\n\
        apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r, namespace: a}\nrules:\n\
        - {apiGroups: [\"\"], resources: [deployments.apps], verbs: [delete]}\n\
        - {apiGroups: [apps], resources: [deployments], verbs: [list]}\n\
        - {apiGroups: [\"\"], resources: [configmaps], resourceNames: [\"\"], verbs: [create]}\n---\n\
        apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: r, namespace: a}\n\
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}\n\
        subjects: [{kind: ServiceAccount, name: sa, namespace: a}]\n";
    let run = chartgen_with_stdin(&["rbac", "--output", "json", "-"], Some(text));
    assert_eq!(run.code, 0, "{}", run.transcript());
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let sa = report["subjects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["subject"]["name"] == "sa")
        .unwrap();
    let mine: Vec<(String, String, String, String)> = sa["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["scope"]["namespace"] == "a")
        .map(|p| {
            let text = |v: &serde_json::Value| v.as_str().unwrap().to_owned();
            let verbs: Vec<&str> = (p["verbs"].as_array().unwrap().iter())
                .map(|v| v.as_str().unwrap())
                .collect();
            let names: Vec<&str> = (p["resource_names"].as_array().unwrap().iter())
                .map(|v| v.as_str().unwrap())
                .collect();
            (
                text(&p["resource"]),
                text(&p["group"]),
                format!("{names:?}"),
                verbs.join(","),
            )
        })
        .collect();
    let row = |r: &str, g: &str, n: &str, v: &str| (r.into(), g.into(), n.into(), v.into());
    assert_eq!(
        mine,
        [
            row("configmaps", "", "[\"\"]", "create"),
            row("deployments.apps", "", "[]", "delete"),
            row("deployments.apps", "apps", "[]", "list"),
        ],
        "{sa:#}"
    );
    let run = chartgen_with_stdin(&["rbac", "-"], Some(text));
    let rows: Vec<Vec<&str>> = (run.stdout.lines())
        .filter(|l| l.starts_with("  a "))
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    assert_eq!(
        rows.iter().map(|r| &r[1..3]).collect::<Vec<_>>(),
        [
            &["configmaps", "\"\""][..],
            &["deployments.apps (in the core group)", "delete"],
            &["deployments.apps", "list"],
        ],
        "{}",
        run.stdout
    );
}

#[test]
fn aggregated_cluster_roles_resolve_to_the_roles_they_select() {
    let extra = "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: umbrella}\naggregationRule:\n  clusterRoleSelectors: [{matchLabels: {umbrella: \"yes\"}}]\nrules: []\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: part, labels: {umbrella: \"yes\"}}\nrules: [{apiGroups: [\"\"], resources: [configmaps], verbs: [list]}]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: umbrella}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: umbrella}\nsubjects: [{kind: ServiceAccount, name: buildkit-buildd, namespace: buildkit-operator}]\n";
    let run = chartgen_with_stdin(&["check", "-"], Some(&format!("{}{extra}", prod())));
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.starts_with("R4 ClusterRole part rules[0].resources: buildkit-operator/buildkit-buildd gets configmaps cluster-wide;"),
        "{}",
        run.stdout
    );
}

#[test]
fn every_vendored_kubernetes_version_can_be_chosen() {
    for version in ["1.33", "1.35"] {
        let run = chartgen(&["check", "--kube-version", version, "out/ovh-prod"]);
        assert_eq!(
            (run.code, without_prerequisites(&run.stdout).as_str()),
            (0, "ok: 45 objects, no findings\n"),
            "{version}"
        );
    }
    let run = chartgen(&["check", "--kube-version", "1.20", "out/ovh-prod"]);
    run.assert_refused(2, "possible values: 1.33, 1.35");
}

#[test]
fn hostile_inputs_are_refused_or_skipped_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    std::fs::create_dir_all(dir.join("objects")).unwrap();
    let target = dir.to_str().unwrap().to_owned();
    // An empty directory holds no objects: that is bad input, not "ok".
    let run = chartgen(&["check", &target]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert_eq!(
        run.stderr,
        format!("error: no Kubernetes objects in {target}\n")
    );
    // A link back to the folder would repeat every object; it is not followed.
    std::fs::write(
        dir.join("objects/sa.yaml"),
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a, namespace: x}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&dir, dir.join("objects/loop")).unwrap();
    // The one object counts once (nothing shows it is the operator's).
    let run = chartgen(&["check", &target]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "ok: 1 object, no findings\n");
    // The same object twice is an error naming both places.
    std::fs::write(
        dir.join("objects/again.yaml"),
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: a, namespace: x}\n",
    )
    .unwrap();
    let run = chartgen(&["check", &target]);
    run.assert_refused(2, "ServiceAccount x/a again; it is also at ");
    let run = chartgen_with_stdin(&["check", "-", "-"], Some(""));
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (2, "error: standard input (-) can be read only once\n")
    );
}

/// An aggregated ClusterRole holds what its selectors reach as the
/// aggregation controller reads them: `matchExpressions` (`In`, `NotIn`,
/// `Exists`, `DoesNotExist`) as well as `matchLabels`, and an empty
/// selector reaches every ClusterRole. A rule hidden behind one of them is
/// still seen by `rbac` (and so by `check` and `diff`).
#[test]
fn aggregation_selectors_are_read_as_the_controller_reads_them() {
    // A resource no default role names: the selectors that match
    // everything also gather the cluster's default ClusterRoles.
    let source = "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: source, labels: {tier: gold}}\nrules: [{apiGroups: [example.com], resources: [gizmos], verbs: [get]}]\n";
    for (selector, reaches) in [
        (
            "{matchExpressions: [{key: tier, operator: In, values: [gold]}]}",
            true,
        ),
        (
            "{matchExpressions: [{key: tier, operator: NotIn, values: [gold]}]}",
            false,
        ),
        (
            "{matchExpressions: [{key: other, operator: NotIn, values: [gold]}]}",
            true,
        ),
        ("{matchExpressions: [{key: tier, operator: Exists}]}", true),
        (
            "{matchExpressions: [{key: tier, operator: DoesNotExist}]}",
            false,
        ),
        (
            "{matchLabels: {tier: gold}, matchExpressions: [{key: tier, operator: DoesNotExist}]}",
            false,
        ),
        ("{}", true),
    ] {
        let text = format!(
            "{source}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: top}}\naggregationRule: {{clusterRoleSelectors: [{selector}]}}\nrules: []\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {{name: top}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: top}}\nsubjects: [{{kind: ServiceAccount, name: reader, namespace: apps}}]\n"
        );
        let run = chartgen_with_stdin(&["rbac", "-"], Some(&text));
        assert_eq!(run.code, 0, "{selector}: {}", run.stderr);
        assert_eq!(
            run.stdout.contains("gizmos.example.com"),
            reaches,
            "{selector}: {}",
            run.stdout
        );
    }
}

/// `(invariant, object, path)` of the findings of `check -` on `text`.
fn findings_of(text: &str) -> Vec<(String, String, String)> {
    let run = chartgen_with_stdin(&["check", "--output", "json", "-"], Some(text));
    assert_ne!(run.code, 2, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let field = |k: &str| f[k].as_str().unwrap().to_owned();
            (field("invariant"), field("object"), field("path"))
        })
        .collect()
}

/// A binding to an aggregated ClusterRole grants whatever its selectors
/// match in the cluster (the built-in roles carry labels a selector can
/// match): like a binding to a role not in the input, it is a finding. A
/// tenant role (aggregated into view, edit or admin) that aggregates others
/// itself is a finding, whatever it gathers (GRANT: it is no role of the
/// operator's; R4 in the operator's).
#[test]
fn aggregation_that_reaches_beyond_the_input_is_a_finding() {
    let text = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: helper}
aggregationRule:
  clusterRoleSelectors: [{matchLabels: {kubernetes.io/bootstrapping: rbac-defaults}}]
rules: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: helper}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: helper}
subjects: [{kind: ServiceAccount, name: gateway, namespace: ops}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tenant-extra
  labels: {rbac.authorization.k8s.io/aggregate-to-edit: "true"}
aggregationRule:
  clusterRoleSelectors: [{matchLabels: {pick: me}}]
rules: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: innocuous, labels: {pick: me}}
rules: [{apiGroups: [networking.k8s.io], resources: [networkpolicies], verbs: [delete]}]
"#;
    let found = findings_of(text);
    for expected in [
        ("ROLE", "ClusterRoleBinding helper", "roleRef"),
        ("GRANT", "ClusterRole tenant-extra", "aggregationRule"),
    ] {
        assert!(
            found
                .iter()
                .any(|(i, o, p)| (i.as_str(), o.as_str(), p.as_str()) == expected),
            "{expected:?} in {found:#?}"
        );
    }
}

/// A ServiceAccount subject with an empty namespace is the binding's own
/// namespace's account, as the API server reads it.
#[test]
fn an_empty_subject_namespace_is_the_bindings() {
    let text = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r, namespace: team}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: r}
subjects: [{kind: ServiceAccount, name: a, namespace: ""}]
"#;
    let run = chartgen_with_stdin(&["rbac", "-"], Some(text));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("ServiceAccount team/a\n"),
        "{}",
        run.stdout
    );
}

/// The API server ignores a namespace on a cluster-scoped object: two
/// ClusterRoles differing only there are one object applied twice, and a
/// duplicate, not two roles of which check would read one.
#[test]
fn a_namespace_on_a_cluster_scoped_object_is_no_part_of_its_identity() {
    let text = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: cr, namespace: x}\nrules: []\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: cr}\nrules: [{apiGroups: [\"\"], resources: [nodes], verbs: [delete]}]\n";
    let run = chartgen_with_stdin(&["check", "-"], Some(text));
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("error: <stdin>:6:1: ClusterRole cr again; it is also at <stdin>:1:1"),
        "{}",
        run.stderr
    );
}

/// Every built-in kind has its schema (issue 20): a StatefulSet, Job,
/// CronJob, bare Pod, ReplicationController, webhook configuration,
/// Ingress, StorageClass, PriorityClass and PersistentVolume are validated,
/// none "unknown"; a kind removed from Kubernetes still is, with the reason.
#[test]
fn every_built_in_kind_is_validated_against_its_schema() {
    let run = chartgen(&[
        "check",
        "tests/fixtures/check/built-in-kinds.yaml",
        "--output",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("check prints JSON");
    let found: Vec<(String, String, String)> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| ["K8S", "KIND", "API"].contains(&f["invariant"].as_str().unwrap()))
        .map(|f| {
            let field = |k: &str| f[k].as_str().unwrap().to_owned();
            (field("invariant"), field("object"), field("message"))
        })
        .collect();
    let kinds: Vec<&(String, String, String)> = found.iter().filter(|f| f.0 == "KIND").collect();
    assert_eq!(kinds.len(), 1, "{found:#?}");
    assert_eq!(kinds[0].1, "PodSecurityPolicy removed");
    assert!(
        kinds[0]
            .2
            .contains("no built-in kind of this Kubernetes version"),
        "{found:#?}"
    );
    assert!(
        found.iter().any(|(id, object, message)| id == "K8S"
            && object == "StatefulSet apps/builder"
            && message.contains("'replica' was unexpected")),
        "{found:#?}"
    );
    assert_eq!(found.len(), 2, "{found:#?}");
}

/// An explicit null is the field unset, as the API server reads it (a real
/// v1.35 server accepts a DaemonSet with `maxSurge: null`): no schema
/// finding; a wrong type beside it still is one.
#[test]
fn an_explicit_null_is_an_unset_field() {
    let object = "apiVersion: apps/v1
kind: DaemonSet
metadata: {name: d, namespace: ops}
spec:
  selector: {matchLabels: {a: b}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1, maxSurge: null}}
  template:
    metadata: {labels: {a: b}}
    spec:
      containers: [{name: a, image: \"registry.example.com/a:1\", ports: null}]
";
    let run = chartgen_with_stdin(&["check", "-"], Some(object));
    assert_eq!(run.code, 0, "{}", run.transcript());
    let wrong = object.replace("ports: null", "ports: 8080");
    let run = chartgen_with_stdin(&["check", "-"], Some(&wrong));
    assert!(
        run.stdout
            .contains("K8S DaemonSet ops/d spec.template.spec.containers[0].ports"),
        "{}",
        run.transcript()
    );
}

/// A CustomResourceDefinition of `kind` in `group`, served as `v1`, any
/// content accepted.
fn crd(group: &str, kind: &str, plural: &str) -> String {
    format!(
        "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: {plural}.{group}}}\nspec:\n  group: {group}\n  names: {{kind: {kind}, plural: {plural}}}\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}\n"
    )
}

/// The prerequisites the render shows (its Certificates, its namespaces'
/// Kyverno exemptions) are said on `info:` lines while their CRDs are not
/// in the input, never as findings; with the CRDs in the input, or
/// cert-manager's given with `--crd`, nothing is said.
#[test]
fn prerequisites_without_their_crds_are_said() {
    let run = chartgen(&["check", "out/ovh-prod"]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert_contains(
        &run.stdout,
        "info: cert-manager: the input relies on it (3 Certificate) but holds no CRD of cert-manager.io for that: install cert-manager (its CRDs and controller) before applying them\n",
    );
    assert_contains(
        &run.stdout,
        "info: Kyverno: the input relies on it (exemptions from its policies for namespace buildkit-builds, buildkit-system) but holds no CRD of kyverno.io for that",
    );
    // A CRD of the group but another kind does not stand for Certificate's.
    let issuer = crd("cert-manager.io", "Issuer", "issuers");
    let run = chartgen_with_stdin(&["check", "-"], Some(&format!("{}{issuer}", prod())));
    assert_contains(
        &run.stdout,
        "info: cert-manager: the input relies on it (3 Certificate)",
    );
    // A kind of one of its subgroups (`acme.cert-manager.io`) is its too.
    let challenge = "---\napiVersion: acme.cert-manager.io/v1\nkind: Challenge\nmetadata: {name: c, namespace: buildkit-builds}\nspec: {}\n";
    let run = chartgen_with_stdin(&["check", "-"], Some(&format!("{}{challenge}", prod())));
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("info: cert-manager:"));
    assert!(
        line.is_some_and(|l| l.contains("Challenge")),
        "{}",
        run.stdout
    );
    let with = format!(
        "{}{}{}",
        prod(),
        crd("cert-manager.io", "Certificate", "certificates"),
        crd("kyverno.io", "ClusterPolicy", "clusterpolicies"),
    );
    let run = chartgen_with_stdin(&["check", "-"], Some(&with));
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        !run.stdout.lines().any(is_prerequisite_line),
        "{}",
        run.stdout
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    std::fs::write(
        dir.join("certificates.yaml"),
        crd("cert-manager.io", "Certificate", "certificates"),
    )
    .unwrap();
    let run = chartgen(&["check", "out/ovh-prod", "--crd", dir.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.transcript());
    assert!(
        !run.stdout.contains("info: cert-manager:"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("info: Kyverno:"), "{}", run.stdout);
}

/// An unknown field is found at the line of its key, not at the first line
/// of the object that holds it (`lables:`, whose value starts a line
/// below), one finding for each, with a did-you-mean where a field of the
/// schema is close; the value is never quoted.
#[test]
fn an_unknown_field_is_found_at_its_key_with_a_did_you_mean() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("web.yaml");
    std::fs::write(
        &file,
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  lables:
    app: web-label-value
spec:
  replica: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.25
          imagePullPolicee: Always
          zzzzzzzz: 1
",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let run = chartgen(&["check", path]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    for (found, line) in [
        (
            "metadata: Additional properties are not allowed ('lables' was unexpected); did you mean `labels`?",
            5,
        ),
        (
            "spec: Additional properties are not allowed ('replica' was unexpected); did you mean `replicas`?",
            8,
        ),
        (
            "spec.template.spec.containers[0]: Additional properties are not allowed ('imagePullPolicee' was unexpected); did you mean `imagePullPolicy`?",
            18,
        ),
        (
            "spec.template.spec.containers[0]: Additional properties are not allowed ('zzzzzzzz' was unexpected)\n",
            19,
        ),
    ] {
        assert_contains(
            &run.stdout,
            &format!("{found}\n  at {path}:{line}\n").replace("\n\n", "\n"),
        );
    }
    assert!(!run.stdout.contains("web-label-value"), "{}", run.stdout);
}
