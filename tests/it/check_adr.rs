//! The ADR rules complete, and only on the operator's objects (issue 20,
//! items 4 and 5): each case adds to or edits a valid input the way a hand
//! edit or another application in the same GitOps repository would, and
//! `check` must report exactly the ADR breach, or none when the objects are
//! another application's.

use crate::harness::{chartgen, chartgen_with_stdin, root};

/// The production render, both bundles, as one stream.
fn prod() -> String {
    let run = chartgen(&["render", "-f", "values/ovh-prod.yaml", "--bundle", "all"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// The label-free, Helm-style install (no chartgen labels on any object).
fn helm_style() -> String {
    std::fs::read_to_string(root().join("tests/fixtures/check/helm-style/manifests.yaml")).unwrap()
}

/// `text` with `from` replaced once; panics when `from` is absent, so a
/// case cannot silently stop applying.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "the edit's anchor is gone: {from:?}");
    text.replacen(from, to, 1)
}

/// The findings of `check` on `text` as (id, object, path, message), and
/// its exit code.
fn check(text: &str) -> (i32, Vec<(String, String, String, String)>) {
    let run = chartgen_with_stdin(&["check", "--output", "json", "-"], Some(text));
    assert!(run.code < 2, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let field = |k: &str| f[k].as_str().unwrap_or_default().to_owned();
            (
                field("invariant"),
                field("object"),
                field("path"),
                field("message"),
            )
        })
        .collect();
    (run.code, findings)
}

/// Asserts that `text` gives exactly one finding, of `id` about `object`
/// at `path`, whose message contains `says`.
fn exactly(text: &str, id: &str, object: &str, path: &str, says: &str) {
    let (code, found) = check(text);
    assert_eq!(code, 1, "{found:#?}");
    assert_eq!(found.len(), 1, "{found:#?}");
    let (i, o, p, m) = &found[0];
    assert_eq!(
        (i.as_str(), o.as_str(), p.as_str()),
        (id, object, path),
        "{m}"
    );
    assert!(m.contains(says), "{m}");
}

const BINDING: &str = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\n";

/// A ClusterRole and a ClusterRoleBinding giving it to `subject`.
fn cluster_grant(name: &str, rules: &str, subject: &str) -> String {
    format!(
        "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: {name}}}\nrules: {rules}\n---\n{BINDING}metadata: {{name: {name}}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: {name}}}\nsubjects: [{subject}]\n"
    )
}

const BUILDD: &str = "{kind: ServiceAccount, name: buildkit-buildd, namespace: buildkit-operator}";

#[test]
fn non_resource_urls_granted_to_buildd_are_a_finding() {
    let text = prod()
        + &cluster_grant(
            "metrics-reader",
            "[{nonResourceURLs: [/metrics, /healthz], verbs: [get]}]",
            BUILDD,
        );
    exactly(
        &text,
        "R4",
        "ClusterRole metrics-reader",
        "rules[0].nonResourceURLs",
        "non-resource URLs /metrics, /healthz cluster-wide",
    );
}

#[test]
fn events_for_a_group_are_a_finding_whichever_group() {
    for group in [
        "system:serviceaccounts",
        "system:serviceaccounts:buildkit-operator",
        "system:authenticated",
    ] {
        // The operator's own events role given to a group as well.
        let text = edit(
            &prod(),
            "  name: buildkit-operator-events\nsubjects:\n",
            &format!(
                "  name: buildkit-operator-events\nsubjects:\n  - kind: Group\n    name: {group}\n    apiGroup: rbac.authorization.k8s.io\n"
            ),
        );
        exactly(
            &text,
            "R1",
            "ClusterRoleBinding buildkit-operator-events",
            "subjects[0]",
            &format!("gives events to Group {group}, every ServiceAccount it includes"),
        );
        // A role of its own that gives events to the group (which covers
        // buildd's account too).
        let text = prod()
            + &cluster_grant(
                "event-writers",
                "[{apiGroups: [\"\"], resources: [events], verbs: [create, patch]}]",
                &format!("{{kind: Group, name: \"{group}\", apiGroup: rbac.authorization.k8s.io}}"),
            );
        exactly(
            &text,
            "R1",
            "ClusterRoleBinding event-writers",
            "subjects[0]",
            &format!("gives events to Group {group}"),
        );
    }
    // To another application's account, through the operator's role.
    let text = edit(
        &prod(),
        "  name: buildkit-operator-events\nsubjects:\n",
        "  name: buildkit-operator-events\nsubjects:\n  - {kind: ServiceAccount, name: app, namespace: shop}\n",
    );
    exactly(
        &text,
        "R1",
        "ClusterRoleBinding buildkit-operator-events",
        "subjects[0]",
        "gives events to ServiceAccount shop/app;",
    );
}

#[test]
fn the_custom_resource_grant_is_required_and_cluster_wide() {
    let bound = "kind: ClusterRoleBinding\nmetadata:\n  name: buildkit-operator\n";
    // No grant at all: the binding gone (its role stays, unbound).
    let text = edit(
        &prod(),
        bound,
        "kind: ClusterRoleBinding\nmetadata:\n  name: buildkit-operator-unused\n",
    );
    let text = edit(
        &text,
        "  name: buildkit-operator\nsubjects:\n  - kind: ServiceAccount\n    name: buildkit-buildd\n",
        "  name: buildkit-operator\nsubjects:\n  - kind: ServiceAccount\n    name: nobody\n",
    );
    exactly(
        &text,
        "R4",
        "Deployment buildkit-operator/buildkit-buildd",
        "spec.template.spec.serviceAccountName",
        "cannot get, list, watch buildprojects.buildkit-operator.dev cluster-wide; the operator reconciles",
    );
    // Only through a RoleBinding, in one namespace (chartgen's labels say
    // the binding is the operator namespace's: T2 says so too).
    let text = edit(
        &prod(),
        bound,
        "kind: RoleBinding\nmetadata:\n  name: buildkit-operator\n  namespace: buildkit-builds\n",
    );
    let (code, found) = check(&text);
    assert_eq!(code, 1);
    let r4: Vec<&str> = found
        .iter()
        .filter(|f| f.0 == "R4")
        .map(|f| f.3.as_str())
        .collect();
    assert_eq!(r4.len(), 1, "{found:#?}");
    assert!(
        r4[0].contains("cluster-wide (only through RoleBinding buildkit-builds/buildkit-operator, one namespace each)"),
        "{found:#?}"
    );
}

#[test]
fn the_release_role_holds_pods_and_leases_only() {
    let text = edit(
        &prod(),
        "rules:\n  - apiGroups: [\"\"]\n    resources: [pods]\n    verbs: [get, list, watch]\n  - apiGroups: [coordination.k8s.io]",
        "rules:\n  - apiGroups: [\"\"]\n    resources: [pods]\n    verbs: [get, list, watch]\n  - apiGroups: [apps]\n    resources: [deployments]\n    verbs: [get, patch]\n  - apiGroups: [coordination.k8s.io]",
    );
    exactly(
        &text,
        "R3",
        "Role buildkit-operator/buildkit-operator",
        "rules[1].resources",
        "grants deployments.apps in namespace buildkit-operator; the operator namespace's Role keeps pods and leases only",
    );
    // The same through a RoleBinding to a ClusterRole there.
    let text = prod()
        + "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: deployer}\nrules: [{apiGroups: [apps], resources: [deployments], verbs: [get]}]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: deployer, namespace: buildkit-operator}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: deployer}\nsubjects: [{kind: ServiceAccount, name: buildkit-buildd}]\n";
    exactly(
        &text,
        "R3",
        "RoleBinding buildkit-operator/deployer",
        "roleRef",
        "grants deployments.apps in buildkit-operator",
    );
}

/// A Kyverno PolicyException in `apiVersion` for `policy`, matching `matching`.
fn exception(api_version: &str, name: &str, policy: &str, matching: &str) -> String {
    format!(
        "---\napiVersion: {api_version}\nkind: PolicyException\nmetadata: {{name: {name}, namespace: kyverno}}\nspec:\n  exceptions: [{{policyName: {policy}, ruleNames: [\"*\"]}}]\n  match:\n{matching}\n"
    )
}

#[test]
fn a_policy_exception_is_an_exemption_like_any_other() {
    let t4 = |text: &str| -> Vec<String> {
        check(text)
            .1
            .into_iter()
            .filter(|(i, ..)| i == "T4")
            .map(|(_, o, _, m)| format!("{o}: {m}"))
            .collect()
    };
    let by_name = "    any:\n    - resources: {kinds: [Pod], namespaces: [buildkit-operator]}";
    for version in ["kyverno.io/v2", "kyverno.io/v2beta1"] {
        let text = prod() + &exception(version, "operator", "disallow-host-path", by_name);
        assert_eq!(
            t4(&text),
            [
                "PolicyException kyverno/operator: exempts buildkit-operator, the operator namespace, from disallow-host-path; it carries no exemption (ADR-0006)"
            ],
            "{version}"
        );
    }
    // By a wildcard, by the namespace's labels, by no namespace at all.
    for matching in [
        "    any:\n    - resources: {kinds: [Pod], namespaces: [\"buildkit-op*\"]}",
        "    all:\n    - resources: {kinds: [Pod], namespaceSelector: {matchLabels: {buildkit-operator.dev/trust-class: operator}}}",
        // The name label the API server puts on every Namespace.
        "    any:\n    - resources: {kinds: [Pod], namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: buildkit-operator}}}",
        "    any:\n    - resources: {kinds: [Deployment]}",
    ] {
        let text = prod() + &exception("kyverno.io/v2", "x", "require-labels", matching);
        let found = t4(&text);
        assert!(
            found.iter().any(|f| f.starts_with(
                "PolicyException kyverno/x: exempts buildkit-operator, the operator namespace"
            )),
            "{matching}: {found:#?}"
        );
    }
    // The builds namespace: its security-context policy is what it needs;
    // the host-path policy is not.
    let builds = "    any:\n    - resources: {namespaces: [buildkit-builds]}";
    let text = prod()
        + &exception(
            "kyverno.io/v2",
            "b",
            "add-custom-mas-securitycontext",
            builds,
        );
    assert_eq!(t4(&text), Vec::<String>::new());
    let text = prod() + &exception("kyverno.io/v2", "b", "disallow-host-path", builds);
    assert_eq!(
        t4(&text),
        [
            "PolicyException kyverno/b: exempts buildkit-builds, the builds namespace, from disallow-host-path, which its class does not need; it needs add-custom-mas-securitycontext only (ADR-0006)"
        ]
    );
    // Another application's namespace is no business of the ADR.
    let text = prod()
        + &exception(
            "kyverno.io/v2",
            "shop",
            "disallow-host-path",
            "    any:\n    - resources: {namespaces: [shop]}",
        );
    assert_eq!(t4(&text), Vec::<String>::new());
}

#[test]
fn daemon_objects_are_placed_by_what_names_them_not_by_labels() {
    let valid = helm_style();
    assert_eq!(check(&valid).0, 0, "{:#?}", check(&valid).1);
    // The daemons' certificate (--daemon-tls-secret) in the operator namespace.
    let text = edit(
        &valid,
        "  name: bk-daemon-tls\n  namespace: ci-builds\n",
        "  name: bk-daemon-tls\n  namespace: ci-operator\n",
    );
    exactly(
        &text,
        "T2",
        "Certificate ci-operator/bk-daemon-tls",
        "metadata.namespace",
        "buildd's --daemon-tls-secret (in ci-operator) names it for the daemons, in ci-builds (the builds class), not ci-operator",
    );
    // The buildkitd config (--daemon-config) there too.
    let text = edit(
        &valid,
        "  name: bk-buildkitd\n  namespace: ci-builds\n",
        "  name: bk-buildkitd\n  namespace: ci-operator\n",
    );
    exactly(
        &text,
        "T2",
        "ConfigMap ci-operator/bk-buildkitd",
        "metadata.namespace",
        "buildd's --daemon-config (in ci-operator) names it for the daemons, in ci-builds (the builds class)",
    );
    // The daemons' pod template (--daemon-pod-template), named by a flag
    // in the separate form, placed in the operator namespace.
    let text = edit(
        &valid,
        "            - --daemon-config=bk-buildkitd\n",
        "            - --daemon-config=bk-buildkitd\n            - --daemon-pod-template\n            - bk-pod-template\n",
    ) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: bk-pod-template, namespace: ci-operator}\ndata: {pod-template.yaml: \"spec: {}\"}\n";
    exactly(
        &text,
        "T2",
        "ConfigMap ci-operator/bk-pod-template",
        "metadata.namespace",
        "buildd's --daemon-pod-template (in ci-operator) names it for the daemons, in ci-builds",
    );
    // What the daemons' pod template pulls images with and mounts belongs
    // where the daemons run, though only the template names it.
    let template = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: bk-pod-template, namespace: ci-builds}\ndata:\n  pod-template.yaml: |\n    spec:\n      imagePullSecrets: [{name: mirror-creds}]\n      volumes: [{name: ca, configMap: {name: extra-ca}}]\n";
    let text = edit(
        &valid,
        "            - --daemon-config=bk-buildkitd\n",
        "            - --daemon-config=bk-buildkitd\n            - --daemon-pod-template=bk-pod-template\n",
    ) + template
        + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra-ca, namespace: ci-operator}\ndata: {ca.pem: x}\n";
    exactly(
        &text,
        "T2",
        "ConfigMap ci-operator/extra-ca",
        "metadata.namespace",
        "the daemons' pod template (ConfigMap bk-pod-template) mounts it, in ci-builds (the builds class), not ci-operator",
    );
    // The gateway's client certificate, which it mounts, in the builds
    // namespace: the gateway cannot mount it there.
    let text = edit(
        &valid,
        "  name: bk-api-client-tls\n  namespace: ci-operator\n",
        "  name: bk-api-client-tls\n  namespace: ci-builds\n",
    );
    exactly(
        &text,
        "T2",
        "Certificate ci-builds/bk-api-client-tls",
        "metadata.namespace",
        "Deployment ci-operator/bk-api mounts it, in ci-operator (the operator class), not ci-builds",
    );
}

/// buildd's flags name the daemons' objects wherever the container gives
/// them: in `command` as in `args`, and in Go's single-dash form (the flag
/// package reads `-name` as `--name`).
#[test]
fn daemon_references_are_read_from_command_and_single_dash_flags() {
    let moved = edit(
        &helm_style(),
        "  name: bk-buildkitd\n  namespace: ci-builds\n",
        "  name: bk-buildkitd\n  namespace: ci-operator\n",
    );
    let in_command = edit(
        &moved,
        "          args:\n            - --namespace\n",
        "          command:\n            - /buildd\n            - --daemon-config=bk-buildkitd\n          args:\n            - --namespace\n",
    );
    let single_dash = edit(
        &moved,
        "            - --daemon-config=bk-buildkitd\n",
        "            - -daemon-config=bk-buildkitd\n",
    );
    for text in [in_command, single_dash] {
        exactly(
            &text,
            "T2",
            "ConfigMap ci-operator/bk-buildkitd",
            "metadata.namespace",
            "names it for the daemons, in ci-builds (the builds class)",
        );
    }
}

/// Objects of another application that only share a name with the
/// operator's (a ConfigMap and a ServiceAccount named as buildd's flags
/// name the daemons', in the application's own namespace) are not the
/// operator's: the operator's are where buildd needs them.
#[test]
fn a_namesake_in_another_namespace_is_not_the_operators() {
    let namesakes = "---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: bk-daemon, namespace: ci}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: bk-buildkitd, namespace: ci}\ndata: {buildkitd.toml: \"debug = true\"}\n";
    let (code, found) = check(&format!("{}{namesakes}", helm_style()));
    assert_eq!(code, 0, "{found:#?}");
}

/// The ids of the generic rules, which hold for every object.
const GENERIC: [&str; 5] = ["K8S", "KIND", "API", "ROLE", "GRANT"];

#[test]
fn another_application_beside_the_release_draws_no_adr_finding() {
    let run = chartgen(&[
        "check",
        "--output",
        "json",
        "out/ovh-prod/release",
        "tests/fixtures/adr/cert-manager.yaml",
    ]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    for finding in findings {
        let id = finding["invariant"].as_str().unwrap();
        assert!(GENERIC.contains(&id), "an ADR finding: {finding:#}");
    }
    // Every kind it holds has a schema now, its webhook configurations
    // included: nothing at all.
    assert!(findings.is_empty(), "{findings:#?}");
    // The release alone is clean; with the other application, its RBAC,
    // namespace, Deployments and leader election in kube-system draw
    // nothing of the ADRs.
    let alone = chartgen(&["check", "out/ovh-prod/release"]);
    assert_eq!(alone.code, 0, "{}", alone.stdout);
}

#[test]
fn grants_that_escalate_are_generic_findings_for_any_role() {
    let other = "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: ci-admin}\nrules:\n  - apiGroups: [rbac.authorization.k8s.io]\n    resources: [clusterroles]\n    verbs: [bind, escalate]\n  - apiGroups: [\"\"]\n    resources: [serviceaccounts]\n    verbs: [impersonate]\n  - apiGroups: [apps]\n    resources: [\"*\"]\n    verbs: [get]\n  - apiGroups: [cert-manager.io]\n    resources: [signers]\n    resourceNames: [\"issuers.cert-manager.io/*\"]\n    verbs: [approve]\n  - apiGroups: [rbac.authorization.k8s.io]\n    resources: [clusterroles/finalizers, pods/*]\n    verbs: [bind]\n  - apiGroups: [\"\"]\n    resources: [serviceaccounts/token, nodes/proxy]\n    verbs: [create]\n  - apiGroups: [authentication.k8s.io]\n    resources: [userextras/*]\n    verbs: [impersonate]\n";
    let (code, found) = check(&format!("{}{other}", prod()));
    assert_eq!(code, 1);
    let got: Vec<(&str, &str, &str)> = found
        .iter()
        .map(|(i, o, p, _)| (i.as_str(), o.as_str(), p.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("GRANT", "ClusterRole ci-admin", "rules[0].verbs"),
            ("GRANT", "ClusterRole ci-admin", "rules[0].verbs"),
            ("GRANT", "ClusterRole ci-admin", "rules[1].verbs"),
            ("GRANT", "ClusterRole ci-admin", "rules[2].resources"),
            // `clusterroles/finalizers` is not `clusterroles`; `pods/*`,
            // which the authorizer matches to nothing, is written as a
            // wildcard (rules[4]).
            ("GRANT", "ClusterRole ci-admin", "rules[4].resources"),
            ("GRANT", "ClusterRole ci-admin", "rules[5].verbs"),
            // `userextras/*` names the extra `*`, which no user has: a
            // wildcard as written, no impersonation.
            ("GRANT", "ClusterRole ci-admin", "rules[6].resources"),
        ],
        "{found:#?}"
    );
    assert!(
        found[1]
            .3
            .contains("grants bind on clusterroles.rbac.authorization.k8s.io"),
        "{found:#?}"
    );
    // A wildcard in the operator's own role is R5, reported once.
    let text = edit(
        &prod(),
        "resources: [configmaps]\n    resourceNames: [buildkit-buildkitd-config]\n    verbs: [get, list, watch]",
        "resources: [configmaps]\n    resourceNames: [buildkit-buildkitd-config]\n    verbs: [\"*\"]",
    );
    let ids: Vec<String> = check(&text).1.into_iter().map(|f| f.0).collect();
    assert_eq!(ids, ["R5"]);
}

/// A default role is judged by its rules like a role of the input: buildd
/// bound to `edit` in its own namespace reads events (R2) and secrets (R6)
/// there, each said once at the binding's `roleRef`.
#[test]
fn a_default_role_bound_to_buildd_is_judged_by_its_rules() {
    let binding = "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: rb-edit, namespace: buildkit-operator}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}\nsubjects: [{kind: ServiceAccount, name: buildkit-buildd, namespace: buildkit-operator}]\n";
    let (code, found) = check(&format!("{}{binding}", prod()));
    assert_eq!(code, 1);
    let at_binding: Vec<(&str, &str)> = found
        .iter()
        .filter(|(_, o, p, _)| o == "RoleBinding buildkit-operator/rb-edit" && p == "roleRef")
        .map(|(i, _, _, m)| (i.as_str(), m.as_str()))
        .collect();
    assert!(
        at_binding
            .iter()
            .any(|(i, m)| *i == "R2" && m.contains("grants get, list, watch on events")),
        "{at_binding:#?}"
    );
    assert!(
        at_binding
            .iter()
            .any(|(i, m)| *i == "R6" && m.contains("grants secrets in buildkit-operator")),
        "{at_binding:#?}"
    );
    let mut unique = at_binding.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        at_binding.len(),
        "said twice: {at_binding:#?}"
    );
}

/// What a pod reads is placed by its user in every kind that carries a
/// pod, as Pod Security finds them: a ReplicationController's and a
/// PodTemplate's Secret belong where they run, like a Deployment's.
#[test]
fn every_pod_bearing_kind_places_what_it_reads() {
    let pod = "metadata: {labels: {app: x}}\n    spec:\n      containers: [{name: x, image: registry.example.com/x:1, envFrom: [{secretRef: {name: SECRET}}]}]";
    for (kind, head) in [
        (
            "ReplicationController",
            "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: x, namespace: buildkit-operator}\nspec:\n  selector: {app: x}\n  template:\n    ",
        ),
        (
            "PodTemplate",
            "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: x, namespace: buildkit-operator}\ntemplate:\n    ",
        ),
    ] {
        let secret = format!("{}-secret", kind.to_lowercase());
        let extra = format!(
            "---\n{head}{}\n---\napiVersion: v1\nkind: Secret\nmetadata: {{name: {secret}, namespace: buildkit-builds}}\n",
            pod.replace("SECRET", &secret)
        );
        let (_, found) = check(&format!("{}{extra}", prod()));
        assert!(
            found.iter().any(|(i, o, _, m)| i == "T2"
                && *o == format!("Secret buildkit-builds/{secret}")
                && m.contains(&format!("{kind} buildkit-operator/x reads it"))),
            "{kind}: {found:#?}"
        );
    }
}
