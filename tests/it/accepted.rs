//! Exit 0 means it will work (issue 9, section 5): what the OpenAPI schemas
//! allow but the API server or the kubelet refuse is a finding of `check`,
//! and a values error before `render` writes anything.

use serde_json::Value;

use crate::harness::chartgen;

/// `(id, object, path)` of every finding of `check FILE` with one of `ids`.
fn findings(file: &str, ids: &[&str]) -> Vec<(String, String, String)> {
    let run = chartgen(&["check", file, "--output", "json"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    let report: Value = serde_json::from_str(&run.stdout).expect("check prints JSON");
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| ids.contains(&f["invariant"].as_str().unwrap()))
        .map(|f| {
            let field = |k: &str| f[k].as_str().unwrap().to_owned();
            (field("invariant"), field("object"), field("path"))
        })
        .collect()
}

#[test]
fn names_and_images_the_api_server_refuses_are_findings() {
    // The image is the kubelet's refusal (IMAGE): the API server takes it.
    let found = findings(
        "tests/fixtures/hostile/accepted/names.yaml",
        &["API", "IMAGE"],
    );
    let expected = [
        ("Service apps/1-gateway", "metadata.name"),
        ("Service apps/1-gateway", "spec.ports[0]"),
        ("Service apps/1-gateway", "spec.ports[1].targetPort"),
        (
            "Deployment apps/web",
            "metadata.labels.\"example.com/team\"",
        ),
        (
            "Deployment apps/web",
            "spec.template.spec.containers[0].name",
        ),
        (
            "Deployment apps/web",
            "spec.template.spec.containers[0].image",
        ),
        (
            "Deployment apps/web",
            "spec.template.spec.containers[0].ports[0].name",
        ),
        (
            "Deployment apps/web",
            "spec.template.spec.containers[0].volumeMounts[0].name",
        ),
    ];
    let mut found: Vec<(String, String)> = found.into_iter().map(|(_, o, p)| (o, p)).collect();
    found.sort();
    let mut expected: Vec<(String, String)> = expected
        .iter()
        .map(|(o, p)| ((*o).to_owned(), (*p).to_owned()))
        .collect();
    expected.sort();
    assert_eq!(found, expected);
}

// Over 80 lines: a table of fields the API server refuses and the finding each must give.
#[test]
fn fields_the_api_server_refuses_are_findings() {
    // A negative terminationGracePeriodSeconds is not among them: the API
    // server accepts it with a warning and reads it as 1.
    let found = findings("tests/fixtures/hostile/accepted/pod-fields.yaml", &["API"]);
    let mut found: Vec<(String, String)> = found.into_iter().map(|(_, o, p)| (o, p)).collect();
    found.sort();
    let pod = "spec.template.spec";
    let container = format!("{pod}.containers[0]");
    let mut expected: Vec<(String, String)> = [
        ("Deployment apps/api", "spec.replicas".to_owned()),
        (
            "Deployment apps/api",
            "spec.revisionHistoryLimit".to_owned(),
        ),
        ("Deployment apps/api", "spec.selector".to_owned()),
        (
            "Deployment apps/api",
            "spec.selector.matchExpressions[0].values".to_owned(),
        ),
        (
            "Deployment apps/api",
            format!("{pod}.securityContext.runAsUser"),
        ),
        (
            "Deployment apps/api",
            format!("{pod}.securityContext.fsGroup"),
        ),
        (
            "Deployment apps/api",
            format!("{pod}.securityContext.seccompProfile"),
        ),
        (
            "Deployment apps/api",
            format!("{pod}.securityContext.sysctls[1].name"),
        ),
        ("Deployment apps/api", format!("{pod}.volumes[1].name")),
        (
            "Deployment apps/api",
            format!("{container}.ports[1].containerPort"),
        ),
        (
            "Deployment apps/api",
            format!("{container}.volumeMounts[1].mountPath"),
        ),
        (
            "Deployment apps/api",
            format!("{container}.livenessProbe.initialDelaySeconds"),
        ),
        (
            "Deployment apps/api",
            format!("{container}.livenessProbe.periodSeconds"),
        ),
        (
            "Deployment apps/api",
            format!("{container}.resources.requests.cpu"),
        ),
        (
            "Deployment apps/api",
            format!("{container}.resources.requests.memory"),
        ),
        (
            "Deployment apps/api",
            format!("{container}.securityContext.runAsGroup"),
        ),
        (
            "Deployment apps/api",
            format!("{container}.securityContext.seccompProfile.localhostProfile"),
        ),
        ("Service apps/api", "spec.ports[0].port".to_owned()),
        ("StatefulSet apps/db", "spec.selector".to_owned()),
        (
            "PodDisruptionBudget apps/api",
            "spec.selector.matchExpressions[0].values".to_owned(),
        ),
    ]
    .into_iter()
    .map(|(o, p)| (o.to_owned(), p))
    .collect();
    expected.sort();
    assert_eq!(found, expected);
}

#[test]
fn crds_are_read_as_the_api_server_reads_them() {
    let found = findings(
        "tests/fixtures/hostile/accepted/crd-claims.yaml",
        &["API", "K8S", "KIND"],
    );
    let mut found: Vec<(&str, &str, &str)> = found
        .iter()
        .map(|(i, o, p)| (i.as_str(), o.as_str(), p.as_str()))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            (
                "API",
                "CustomResourceDefinition things.example.com",
                "metadata.name"
            ),
            (
                "API",
                "CustomResourceDefinition zwidgets.example.com",
                "spec.names.kind"
            ),
            ("K8S", "Widget apps/closed", "spec"),
            ("K8S", "Widget apps/closed", "spec.properties.metadata"),
        ]
    );
}

#[test]
fn values_that_would_render_refused_objects_are_values_errors() {
    for (set, key) in [
        ("releaseName=1chart", "releaseName"),
        (
            "images.gateway.repository=ghcr.io/Acme/gateway",
            "images.gateway.repository",
        ),
        ("images.buildkitd.tag=-rootless", "images.buildkitd.tag"),
    ] {
        let run = chartgen(&["render", "--set", set]);
        run.assert_refused(2, key);
        assert!(run.stdout.is_empty(), "{}", run.transcript());
    }
}
