//! `check` against a real API server's validation verdicts
//! (`tests/fixtures/k8s-truth/api/`): each object alone, a finding of the
//! rules that judge API validity (`API`, `K8S`, `KIND`) exactly when the
//! server refused it.

use kubernetes::location::Source;
use kubernetes::yaml;
use serde_json::{Value as Json, json};

use crate::harness::{chartgen_with_stdin, root};

/// The rules whose findings say the API server refuses the object.
const API_RULES: [&str; 3] = ["API", "K8S", "KIND"];

/// Cases where Kubernetes 1.33 and 1.35 (what chartgen checks against)
/// answer otherwise than the recorded v1.28 server, with the newer answer.
/// `env-name-with-space`: RelaxedEnvironmentVariableValidation (on by
/// default since 1.32, GA in 1.34) allows any printable ASCII but `=`.
/// `cron-tz-in-schedule`: a `TZ=` or `CRON_TZ=` in a new CronJob's
/// schedule is refused (the v1.35 recording in `recorded/` says so).
const NEWER: [(&str, &str); 2] = [
    ("env-name-with-space", "accept"),
    ("cron-tz-in-schedule", "refuse"),
];

#[test]
fn check_refuses_exactly_what_the_api_server_refuses() {
    let path = root().join("tests/fixtures/k8s-truth/api/corpus.jsonl");
    let corpus = std::fs::read_to_string(path).unwrap();
    let mut disagreements = Vec::new();
    let mut cases = 0;
    for line in corpus.lines() {
        let case: Json = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap();
        cases += 1;
        let noted = NEWER.iter().find(|(n, _)| *n == id);
        assert_eq!(
            noted.is_some(),
            !case["version_note"].is_null(),
            "{id}: every version note is judged here, and only those"
        );
        let verdict = noted.map_or_else(|| case["verdict"].as_str().unwrap(), |(_, v)| v);
        // The object as the server read it (YAML 1.2, as sent), handed to
        // chartgen as JSON: the corpus's plain `y` and `n` are strings.
        let source = Source::file("case.yaml", case["yaml"].as_str().unwrap().to_owned());
        let nodes = yaml::parse_stream(&source, yaml::Limits::VALUES).unwrap();
        let object = serde_json::to_string(&nodes[0].to_json()).unwrap();
        let run = chartgen_with_stdin(&["check", "--output", "json", "-"], Some(&object));
        let report: Json = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{id}: {e}\n{}", run.transcript()));
        let findings: Vec<String> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| API_RULES.contains(&f["invariant"].as_str().unwrap()))
            .map(|f| format!("{} {}: {}", f["invariant"], f["path"], f["message"]))
            .collect();
        if findings.is_empty() == (verdict == "refuse") {
            disagreements.push(format!(
                "{id} ({}): the server says {verdict} ({}); chartgen: {findings:?}",
                case["area"], case["message"]
            ));
        }
    }
    assert_eq!(cases, 94, "the whole corpus is read");
    assert!(
        disagreements.is_empty(),
        "{} of {cases} disagree:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

/// Objects written to probe rules of the API server's validation whole,
/// with its verdicts, recorded from a real server.
const RECORDED_WRITTEN: &str = "tests/fixtures/k8s-truth/recorded/written-v1.35.4.jsonl";

/// LimitRanges written to probe each rule of the API server's validation
/// of them (`ValidateLimitRange`), its defaults (a `Container` item's
/// `default` from `max`, `defaultRequest` from `default`, else `min`) and
/// its precision (`max` / `min` in thousandths), by their `spec.limits`.
fn limit_range_cases() -> Vec<Json> {
    let container = |item: Json| {
        let mut item = item;
        item["type"] = json!("Container");
        json!([item])
    };
    vec![
        // Ordered bounds, written or defaulted.
        container(
            json!({"min": {"cpu": "100m"}, "defaultRequest": {"cpu": "250m"}, "default": {"cpu": "1"}, "max": {"cpu": "2"}}),
        ),
        container(json!({"min": {"cpu": "3"}, "max": {"cpu": "2"}})),
        container(json!({"defaultRequest": {"cpu": "3"}, "max": {"cpu": "2"}})),
        container(json!({"defaultRequest": {"cpu": "3"}, "default": {"cpu": "2"}})),
        container(json!({"default": {"cpu": "3"}, "max": {"cpu": "2"}})),
        container(json!({"min": {"cpu": "3"}, "default": {"cpu": "2"}})),
        container(json!({"min": {"cpu": "3"}, "defaultRequest": {"cpu": "2"}})),
        container(json!({"min": {"memory": "1Gi"}})),
        container(
            json!({"max": {"memory": 1_073_741_824_u64}, "min": {"memory": 2_147_483_648_u64}}),
        ),
        container(json!({"min": {"cpu": "-1"}, "max": {"cpu": "-500m"}})),
        json!([{"type": "Pod", "min": {"cpu": "3"}, "max": {"cpu": "2"}}]),
        json!([{"type": "Pod", "min": {"cpu": "1"}, "max": {"cpu": "2"}}]),
        // Ratios: at least 1, at most max / min (in thousandths).
        container(json!({"maxLimitRequestRatio": {"cpu": "500m"}})),
        container(json!({"maxLimitRequestRatio": {"cpu": "1"}})),
        container(
            json!({"min": {"cpu": "1"}, "max": {"cpu": "4"}, "maxLimitRequestRatio": {"cpu": "4"}}),
        ),
        container(
            json!({"min": {"cpu": "1"}, "max": {"cpu": "4"}, "maxLimitRequestRatio": {"cpu": "4001m"}}),
        ),
        container(
            json!({"min": {"cpu": "1500u"}, "max": {"cpu": "6m"}, "maxLimitRequestRatio": {"cpu": "3.5"}}),
        ),
        container(
            json!({"min": {"cpu": "1500u"}, "max": {"cpu": "6m"}, "maxLimitRequestRatio": {"cpu": "3"}}),
        ),
        container(
            json!({"min": {"cpu": "0"}, "max": {"cpu": "0"}, "maxLimitRequestRatio": {"cpu": "5"}}),
        ),
        json!([{"type": "Pod", "min": {"cpu": "1"}, "max": {"cpu": "2"}, "maxLimitRequestRatio": {"cpu": "3"}}]),
        // Types: one of each, Kubernetes' own or with a domain.
        json!([{"type": "Container", "max": {"cpu": "2"}}, {"type": "Container", "max": {"memory": "1Gi"}}]),
        json!([{"type": "Container", "max": {"cpu": "2"}}, {"type": "Pod", "max": {"cpu": "4"}}]),
        json!([{"type": "Foo", "max": {"cpu": "2"}}]),
        json!([{"type": "example.com/foo", "max": {"example.com/bar": "2"}}]),
        json!([{"type": "example.com/foo", "max": {"bar": "2"}}]),
        json!([{"type": "Pod", "default": {"cpu": "1"}}]),
        json!([{"type": "Pod", "defaultRequest": {}}]),
        json!([{"type": "PersistentVolumeClaim", "max": {"storage": "10Gi"}}]),
        json!([{"type": "PersistentVolumeClaim", "max": {"cpu": "1"}}]),
        json!([{"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}, "default": {"storage": "5Gi"}, "defaultRequest": {"storage": "8Gi"}}]),
        // Resource names a container may hold; resources not overcommitted.
        container(json!({"max": {"pods": "2"}})),
        container(json!({"max": {"requests.example.com/gpu": "2"}})),
        container(json!({"max": {"kubernetes.io/foo": "2"}})),
        container(json!({"max": {"hugepages-anything": "2"}})),
        container(
            json!({"default": {"example.com/gpu": "1"}, "defaultRequest": {"example.com/gpu": "1"}}),
        ),
        container(
            json!({"default": {"example.com/gpu": "2"}, "defaultRequest": {"example.com/gpu": "1"}}),
        ),
        container(json!({"min": {"example.com/gpu": "1"}, "max": {"example.com/gpu": "2"}})),
        container(
            json!({"defaultRequest": {"example.com/gpu": "1"}, "max": {"example.com/gpu": "2"}}),
        ),
        json!([{"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}, "defaultRequest": {"example.com/gpu": "1"}, "default": {"example.com/gpu": "2"}}]),
        container(
            json!({"defaultRequest": {"hugepages-2Mi": "2Mi"}, "default": {"hugepages-2Mi": "4Mi"}}),
        ),
        // Amounts that are no quantities.
        container(json!({"max": {"cpu": "2x"}})),
        container(json!({"max": {"cpu": "1e3"}, "min": {"cpu": "1e4"}})),
        json!([]),
    ]
}

/// Containers' resources, written to probe `validateResourceRequirements`
/// whole: names, quantities, extended resources in whole units (in
/// thousandths), huge pages (page sizes, whole pages, beside CPU or
/// memory), requests against limits, and claims against the pod's.
fn container_resource_cases() -> Vec<Json> {
    let gpu = |amount: &str| json!({"requests": {"example.com/gpu": amount}, "limits": {"example.com/gpu": amount}});
    let pages = |name: &str, amount: &str| json!({"limits": {name: amount, "memory": "1Gi"}});
    let claims = |claims: Json| json!({"claims": claims});
    vec![
        json!({"limits": {"requests.example.com/gpu": "1"}}),
        json!({"limits": {"kubernetes.io/foo": "1"}}),
        json!({"limits": {"example.kubernetes.io/foo": "1"}, "requests": {"example.kubernetes.io/foo": "500m"}}),
        gpu("1.9995"),
        gpu("1.5"),
        gpu("999999999n"),
        json!({"limits": {"example.com/gpu": "2"}}),
        json!({"requests": {"example.com/gpu": "2"}}),
        json!({"limits": {"hugepages-2Mi": "4Mi"}}),
        json!({"requests": {"hugepages-2Mi": "4Mi", "cpu": "1"}, "limits": {"hugepages-2Mi": "4Mi"}}),
        pages("hugepages-2Mi", "4Mi"),
        pages("hugepages-0", "1"),
        pages("hugepages-1500m", "3"),
        pages("hugepages-x", "1"),
        pages("hugepages-1Ki", "1500"),
        pages("hugepages-1Ki", "2048"),
        pages("hugepages-1Ki", "2047.5"),
        json!({"limits": {"cpu": "-1"}}),
        json!({"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}),
        claims(json!([{"name": "gpu"}])),
        claims(json!([{"name": "other"}])),
        claims(json!([{"name": "gpu"}, {"name": "gpu"}])),
        claims(json!([{"name": "gpu", "request": "a"}, {"name": "gpu", "request": "b"}])),
        claims(json!([{"name": "gpu", "request": "a"}, {"name": "gpu"}])),
        claims(json!([{"name": "gpu"}, {"name": "gpu", "request": "a"}])),
        claims(json!([{"name": "gpu", "request": "A"}])),
        claims(json!([{"name": ""}])),
    ]
}

/// Claims' specs (`ValidatePersistentVolumeClaimSpec`): access modes,
/// resources (the server reads the storage request alone, and any amount
/// must be a quantity), class names, the volume mode, the selector and
/// the data sources, which a PersistentVolumeClaim's preparation drops in
/// part and a template keeps.
fn claim_spec_cases() -> Vec<Json> {
    let once = json!(["ReadWriteOnce"]);
    let storage = json!({"requests": {"storage": "1Gi"}});
    let with = |field: &str, value: Json| json!({"accessModes": once.clone(), "resources": storage.clone(), field: value});
    let resources = [
        json!({"requests": {"storage": "1Gi"}, "limits": {"storage": "500Mi"}}),
        json!({"requests": {"storage": "1Gi", "example.com/gpu": "1.5"}}),
        json!({"requests": {"storage": "1Gi"}, "limits": {"cpu": "-1"}}),
        json!({"requests": {"storage": "0"}}),
        json!({"requests": {"storage": "-1Gi"}}),
        json!({"requests": {}}),
        json!({"requests": {"storage": "1Gi"}, "limits": {"storage": "1Gx"}}),
    ];
    let source = |group: Option<&str>, kind: &str, name: Option<&str>, namespace: Option<&str>| {
        let mut source = json!({"kind": kind});
        for (key, value) in [
            ("apiGroup", group),
            ("name", name),
            ("namespace", namespace),
        ] {
            if let Some(value) = value {
                source[key] = json!(value);
            }
        }
        source
    };
    let claim = |name: &str| source(None, "PersistentVolumeClaim", Some(name), None);
    let thing =
        |namespace: Option<&str>| source(Some("example.com"), "Thing", Some("t"), namespace);
    let both = |source: Json, reference: Json| json!({"accessModes": once.clone(), "resources": storage.clone(), "dataSource": source, "dataSourceRef": reference});
    let mut cases: Vec<Json> = (resources.into_iter())
        .map(|r| json!({"accessModes": once.clone(), "resources": r}))
        .collect();
    cases.extend([
        json!({"resources": storage.clone()}),
        with("accessModes", json!([])),
        with("accessModes", json!(["ReadWriteOncePod", "ReadWriteOnce"])),
        with("accessModes", json!(["ReadWriteOncePod"])),
        with("accessModes", json!(["ReadWriteMany", "ReadOnlyMany"])),
        with("accessModes", json!(["Foo"])),
        with("volumeMode", json!("Foo")),
        with("volumeMode", json!("")),
        with("volumeMode", json!("Block")),
        with("storageClassName", json!("Bad_Name")),
        with("storageClassName", json!("")),
        with("volumeAttributesClassName", json!("Bad_Name")),
        with("selector", json!({"matchLabels": {"a": "-x"}})),
        with("dataSource", source(None, "Foo", Some("x"), None)),
        with(
            "dataSource",
            source(None, "PersistentVolumeClaim", None, None),
        ),
        with("dataSource", claim("src")),
        with(
            "dataSource",
            source(
                Some("snapshot.storage.k8s.io"),
                "VolumeSnapshot",
                Some("s"),
                None,
            ),
        ),
        with(
            "dataSource",
            source(Some("Bad_Group"), "X", Some("y"), None),
        ),
        with("dataSourceRef", thing(None)),
        with("dataSourceRef", thing(Some("other"))),
        with("dataSourceRef", thing(Some("Bad_NS"))),
        with("dataSourceRef", source(None, "Thing", Some("t"), None)),
        both(claim("a"), claim("b")),
        both(claim("a"), claim("a")),
        both(claim("a"), thing(Some("other"))),
        both(source(None, "Foo", Some("x"), None), thing(None)),
    ]);
    cases
}

/// A pod's ephemeral volume sources beyond the claim's spec: a template,
/// whose metadata holds labels and annotations alone (a field at its zero
/// value is not set).
fn ephemeral_cases() -> Vec<Json> {
    let spec =
        json!({"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}});
    let template = |metadata: Json| json!({"volumeClaimTemplate": {"metadata": metadata, "spec": spec.clone()}});
    vec![
        json!({}),
        template(json!({"labels": {"a": "b"}, "annotations": {"c": "d"}})),
        template(json!({"name": "x"})),
        template(json!({"name": ""})),
        template(json!({"creationTimestamp": null})),
        template(json!({"finalizers": []})),
        template(json!({"labels": {"a": "-x"}})),
    ]
}

/// Pod specs probing a pod's own resources (`validatePodResources`, with
/// the defaults a Pod is given and a template is not) and its resource
/// claims.
fn pod_spec_cases() -> Vec<Json> {
    let container = |resources: Json| json!({"name": "app", "image": "registry.example/app:1", "resources": resources});
    let pod = |resources: Json, containers: Vec<Json>| json!({"resources": resources, "containers": containers});
    let cpu = |field: &str, amount: &str| json!({field: {"cpu": amount}});
    let alone = |resources: Json| pod(resources, vec![container(json!({}))]);
    let claims =
        |claims: Json| json!({"containers": [container(json!({}))], "resourceClaims": claims});
    let init = |restart: bool, amount: &str| {
        let mut init = json!({"name": "init", "image": "registry.example/app:1", "resources": {"requests": {"cpu": amount}}});
        if restart {
            init["restartPolicy"] = json!("Always");
        }
        init
    };
    vec![
        alone(json!({"requests": {"cpu": "2"}, "limits": {"cpu": "1"}})),
        alone(json!({"requests": {"ephemeral-storage": "1Gi"}})),
        alone(json!({"limits": {"example.com/gpu": "1"}})),
        alone(json!({"requests": {"cpu": "-1"}})),
        alone(json!({"claims": [{"name": "gpu"}]})),
        alone(json!({})),
        pod(cpu("limits", "1"), vec![container(cpu("limits", "3"))]),
        pod(cpu("limits", "2"), vec![container(cpu("requests", "1"))]),
        pod(cpu("limits", "1"), vec![container(cpu("requests", "2"))]),
        pod(
            cpu("requests", "1"),
            vec![
                container(cpu("requests", "1")),
                json!({"name": "two", "image": "registry.example/app:1", "resources": cpu("requests", "1")}),
            ],
        ),
        pod(
            cpu("requests", "3"),
            vec![
                container(cpu("requests", "1")),
                json!({"name": "two", "image": "registry.example/app:1", "resources": cpu("requests", "1")}),
            ],
        ),
        json!({"resources": cpu("requests", "3"), "containers": [container(cpu("requests", "1"))], "initContainers": [init(false, "4")]}),
        json!({"resources": cpu("requests", "2"), "containers": [container(cpu("requests", "1"))], "initContainers": [init(true, "1")]}),
        json!({"resources": cpu("requests", "1500m"), "containers": [container(cpu("requests", "1"))], "initContainers": [init(true, "1")]}),
        json!({"resources": cpu("limits", "1"), "containers": [container(json!({}))], "os": {"name": "windows"}}),
        pod(
            json!({"limits": {"hugepages-2Mi": "4Mi", "memory": "1Gi"}}),
            vec![container(
                json!({"limits": {"hugepages-2Mi": "8Mi", "memory": "512Mi"}}),
            )],
        ),
        pod(
            json!({"limits": {"memory": "1Gi"}}),
            vec![container(
                json!({"limits": {"hugepages-2Mi": "4Mi", "memory": "512Mi"}}),
            )],
        ),
        pod(
            json!({"requests": {"memory": "1Gi"}}),
            vec![container(
                json!({"limits": {"hugepages-2Mi": "4Mi", "memory": "512Mi"}}),
            )],
        ),
        claims(json!([{"name": "Bad", "resourceClaimName": "x"}])),
        claims(json!([{"name": "g", "resourceClaimName": "x", "resourceClaimTemplateName": "t"}])),
        claims(json!([{"name": "g"}])),
        claims(
            json!([{"name": "g", "resourceClaimName": "x"}, {"name": "g", "resourceClaimName": "z"}]),
        ),
        claims(json!([{"name": "g", "resourceClaimName": "Bad_Name"}])),
        claims(json!([{"name": "g", "resourceClaimName": ""}])),
        claims(json!([{"name": "g", "resourceClaimName": "x"}])),
    ]
}

/// Environment variables (`ValidateEnv`, `ValidateEnvFrom`): resource
/// fields and their divisors (held to the text the server writes a divisor
/// back as), downward API paths, ConfigMap and Secret names and keys, files
/// of emptyDir volumes (EnvFiles, on by default since 1.35), and `envFrom`
/// names (read as name prefixes: a trailing `-` is masked).
fn env_cases() -> Vec<Json> {
    let from = |source: &str, value: Json| json!({"name": "X", "valueFrom": {source: value}});
    let mut cases = Vec::new();
    let divisors = [
        ("limits.cpu", json!(null)),
        ("requests.cpu", json!(null)),
        ("limits.foo", json!(null)),
        ("cpu", json!(null)),
        ("limits.cpu", json!("1m")),
        ("limits.cpu", json!("2m")),
        ("limits.cpu", json!("1")),
        ("limits.cpu", json!("1k")),
        ("limits.cpu", json!("0")),
        ("limits.cpu", json!("-1")),
        ("limits.cpu", json!("1000m")),
        ("limits.cpu", json!("1e0")),
        ("limits.cpu", json!("1e-3")),
        ("limits.cpu", json!("0.001")),
        ("limits.cpu", json!("+1")),
        ("limits.cpu", json!("1.0")),
        ("limits.cpu", json!("0.001k")),
        ("limits.cpu", json!(1)),
        ("limits.cpu", json!("1n")),
        ("limits.memory", json!("1Mi")),
        ("limits.memory", json!("1m")),
        ("limits.memory", json!("3")),
        ("limits.memory", json!("1G")),
        ("limits.memory", json!("1024")),
        ("limits.memory", json!("1e3")),
        ("limits.memory", json!("1000")),
        ("limits.memory", json!("0.9765625Ki")),
        ("limits.memory", json!("1024Ki")),
        ("limits.memory", json!("1000k")),
        ("limits.memory", json!("1E")),
        ("limits.memory", json!("1e18")),
        ("limits.memory", json!("2Ki")),
        ("limits.memory", json!(1024)),
        ("limits.ephemeral-storage", json!("1Gi")),
        ("requests.hugepages-2Mi", json!("1Mi")),
        ("requests.hugepages-2Mi", json!("2Mi")),
    ];
    for (resource, divisor) in divisors {
        let mut field = json!({"resource": resource});
        if !divisor.is_null() {
            field["divisor"] = divisor;
        }
        cases.push((
            json!([from("resourceFieldRef", field)]),
            json!(null),
            json!([]),
        ));
    }
    cases.push((
        json!([from(
            "resourceFieldRef",
            json!({"resource": "limits.cpu", "containerName": "other"})
        )]),
        json!(null),
        json!([]),
    ));
    for path in [
        "metadata.name",
        "metadata.annotations['a.b/c']",
        "metadata.annotations['-bad']",
        "metadata.labels",
        "status.podIPs",
        "metadata.annotations",
        "metadata.generateName",
        "spec.host",
        "metadata.annotations['Example.com/A']",
        "metadata.labels['Example.com/A']",
        "spec.nodeName['x']",
        "metadata.labels['a']']",
    ] {
        cases.push((
            json!([from("fieldRef", json!({"fieldPath": path}))]),
            json!(null),
            json!([]),
        ));
    }
    cases.push((
        json!([from(
            "fieldRef",
            json!({"fieldPath": "spec.nodeName", "apiVersion": "v2"})
        )]),
        json!(null),
        json!([]),
    ));
    for source in ["configMapKeyRef", "secretKeyRef"] {
        for (name, key) in [
            (None, "a"),
            (Some("c"), ""),
            (Some("Bad_Name"), "a"),
            (Some("c"), "a/b"),
            (Some("c"), "a"),
        ] {
            let mut selector = json!({"key": key});
            if let Some(name) = name {
                selector["name"] = json!(name);
            }
            cases.push((json!([from(source, selector)]), json!(null), json!([])));
        }
    }
    let volumes = json!([{"name": "v", "emptyDir": {}}, {"name": "w", "configMap": {"name": "c"}}]);
    for (path, key, volume) in [
        ("a", "k", "v"),
        ("../a", "k", "v"),
        ("a", "K=1", "v"),
        ("a/..", "k", "v"),
        ("a", "", "v"),
        ("a", "k", "w"),
        ("a..b", "k", "v"),
        ("a", "k", "none"),
    ] {
        let selector = json!({"path": path, "key": key, "volumeName": volume});
        cases.push((
            json!([from("fileKeyRef", selector)]),
            json!(null),
            volumes.clone(),
        ));
    }
    cases.push((json!([{"name": "X", "value": "", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]), json!(null), json!([])));
    cases.push((
        json!([{"name": "X", "valueFrom": {}}]),
        json!(null),
        json!([]),
    ));
    for name in ["", "abc-", "--", "a.-", "-", "Bad", "x"] {
        for source in ["configMapRef", "secretRef"] {
            cases.push((json!([]), json!([{source: {"name": name}}]), json!([])));
        }
    }
    cases.push((json!([]), json!([{"configMapRef": {}}]), json!([])));
    (cases.into_iter())
        .map(|(env, env_from, volumes)| {
            let mut container = json!({"name": "app", "image": "registry.example/app:1", "env": env,
                                       "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}});
            if !env_from.is_null() {
                container["envFrom"] = env_from;
            }
            json!({"containers": [container], "volumes": volumes})
        })
        .collect()
}

/// Probes, lifecycle handlers and the pod's own fields: handlers (an
/// exec with a command), DNS (nameservers as the server reads older IP
/// fields, search domains with `_`, options), host aliases,
/// `hostnameOverride` (beta and on in 1.35), readiness and scheduling
/// gates, the os, node and RuntimeClass names, and a scheduler name,
/// which the server takes as written.
fn pod_field_cases() -> Vec<Json> {
    let base = || json!({"containers": [{"name": "app", "image": "registry.example/app:1"}]});
    let with = |field: &str, value: Json| {
        let mut spec = base();
        spec[field] = value;
        spec
    };
    let container = |field: &str, value: Json| {
        let mut spec = base();
        spec["containers"][0][field] = value;
        spec
    };
    let mut cases = Vec::new();
    let handlers = [
        json!({"exec": {"command": ["true"]}}),
        json!({"exec": {"command": []}}),
        json!({"exec": {}}),
        json!({"httpGet": {"port": 80, "host": "bad host"}}),
        json!({"grpc": {"port": 80, "service": "a b"}}),
        json!({"exec": {"command": ["true"]}, "terminationGracePeriodSeconds": 0}),
        json!({}),
    ];
    for handler in &handlers {
        for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
            cases.push(container(probe, handler.clone()));
        }
    }
    for handler in [
        json!({"sleep": {"seconds": 0}}),
        json!({"sleep": {"seconds": -1}}),
        json!({"exec": {"command": []}}),
        json!({"grpc": {"port": 80}}),
    ] {
        cases.push(container("lifecycle", json!({"preStop": handler})));
    }
    let ips = [
        "010.0.0.1",
        "1.2.3.4",
        "::1",
        "::00001",
        "1.2.3.256",
        "::ffff:1.2.3.4",
        "::ffff:01.2.3.4",
        "1::2::3",
        "fe80::1%eth0",
        "1.2.3.4 ",
        "",
        "1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:7::",
        "::1.2.3.4",
        "1:2:3:4:5:6:1.2.3.4",
        "1:2:3:4:5:6:7:1.2.3.4",
        "0x1.2.3.4",
        "1.2.3.04",
    ];
    for ip in ips {
        cases.push(with("hostAliases", json!([{"ip": ip, "hostnames": ["a"]}])));
        cases.push(with("dnsConfig", json!({"nameservers": [ip]})));
    }
    cases.push(with(
        "hostAliases",
        json!([{"ip": "1.2.3.4", "hostnames": ["Bad_Host"]}]),
    ));
    cases.push(with(
        "dnsConfig",
        json!({"nameservers": ["1.1.1.1", "2.2.2.2", "3.3.3.3", "4.4.4.4"]}),
    ));
    let long = "x".repeat(70);
    for search in [
        ".",
        "a.",
        "_a",
        "_a._b",
        "a__b",
        "A",
        "-a",
        "a_",
        "a..b",
        "Bad_Domain",
        long.as_str(),
    ] {
        cases.push(with("dnsConfig", json!({"searches": [search]})));
    }
    cases.push(with("dnsConfig", json!({"searches": vec!["a"; 33]})));
    cases.push(with(
        "dnsConfig",
        json!({"searches": vec!["a".repeat(200); 11]}),
    ));
    cases.push(with("dnsConfig", json!({"options": [{"name": ""}]})));
    let mut none = with("dnsConfig", json!({"searches": ["a"]}));
    none["dnsPolicy"] = json!("None");
    cases.push(none);
    for (field, value) in [
        ("hostnameOverride", json!("Bad")),
        ("hostnameOverride", json!("")),
        ("hostnameOverride", json!("a".repeat(65))),
        ("hostnameOverride", json!("a.b")),
        ("readinessGates", json!([{"conditionType": "bad type!"}])),
        ("readinessGates", json!([{"conditionType": "a/b"}])),
        ("schedulingGates", json!([{"name": "a"}, {"name": "a"}])),
        ("schedulingGates", json!([{"name": "a b"}])),
        ("os", json!({})),
        ("os", json!({"name": "plan9"})),
        ("nodeName", json!("Bad_Name")),
        ("nodeName", json!("a.b")),
        ("runtimeClassName", json!("")),
        ("schedulerName", json!("a/b/c")),
        ("activeDeadlineSeconds", json!(0)),
        ("preemptionPolicy", json!("Foo")),
    ] {
        cases.push(with(field, value));
    }
    for (field, value) in [
        ("setHostnameAsFQDN", json!(true)),
        ("hostNetwork", json!(true)),
    ] {
        let mut spec = with("hostnameOverride", json!("a"));
        spec[field] = value;
        cases.push(spec);
    }
    cases
}

/// NetworkPolicies' `ipBlock` ranges, read as the server reads an older
/// field's CIDR (`ParseCIDRSloppy`).
fn network_policy_cases() -> Vec<Json> {
    let ranges = [
        "010.0.0.0/8",
        "1.2.3.4/8",
        "::ffff:01.2.3.4/64",
        "1.2.3.256/8",
        "::00001/64",
        "10.0.0.0/08",
        "10.0.0.0/008",
        "10.0.0.0/+8",
        "10.0.0.0/33",
        "::/128",
        "::/129",
        "10.0.0.0/",
        "10.0.0.0/8/8",
        "0x1.2.3.4/8",
    ];
    (ranges.iter().enumerate())
        .map(|(i, cidr)| {
            json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                   "metadata": {"name": format!("ranges-{i}"), "namespace": "default"},
                   "spec": {"podSelector": {}, "ingress": [{"from": [{"ipBlock": {"cidr": cidr}}]}]}})
        })
        .collect()
}

/// Every written case as the object sent: LimitRanges, Pods of one
/// container with those resources (and a resource claim `gpu`), claim
/// specs as PersistentVolumeClaims, StatefulSets' claim templates and
/// pods' ephemeral volumes, and the ephemeral volumes' own cases.
fn written_cases() -> Vec<Json> {
    let metadata = |name: String| json!({"name": name, "namespace": "default"});
    let ranges = (limit_range_cases().into_iter().enumerate()).map(|(i, limits)| {
        json!({"apiVersion": "v1", "kind": "LimitRange", "metadata": metadata(format!("range-{i}")),
               "spec": {"limits": limits}})
    });
    let pods = (container_resource_cases().into_iter().enumerate()).map(|(i, resources)| {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata(format!("resources-{i}")),
               "spec": {"containers": [{"name": "app", "image": "registry.example/app:1", "resources": resources}],
                        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu"}]}})
    });
    let claims = claim_spec_cases();
    let volume_claims = (claims.iter().enumerate()).map(|(i, spec)| {
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": metadata(format!("claim-{i}")),
               "spec": spec})
    });
    let templates = (claims.iter().enumerate()).map(|(i, spec)| {
        let labels = json!({"app": format!("claims-{i}")});
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": metadata(format!("claims-{i}")),
               "spec": {"selector": {"matchLabels": labels}, "serviceName": "claims",
                        "template": {"metadata": {"labels": labels},
                                     "spec": {"containers": [{"name": "app", "image": "registry.example/app:1"}]}},
                        "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": spec}]}})
    });
    let ephemeral = (claims.iter().map(|spec| json!({"volumeClaimTemplate": {"spec": spec}})))
        .chain(ephemeral_cases())
        .enumerate()
        .map(|(i, source)| {
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata(format!("ephemeral-{i}")),
                   "spec": {"containers": [{"name": "app", "image": "registry.example/app:1",
                                            "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}]}],
                            "volumes": [{"name": "scratch", "ephemeral": source}]}})
        });
    let specs: Vec<Json> = (pod_spec_cases().into_iter())
        .chain(env_cases())
        .chain(pod_field_cases())
        .collect();
    let spec_pods = (specs.iter().enumerate()).map(|(i, spec)| {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata(format!("pod-{i}")), "spec": spec})
    });
    let spec_templates = (specs.iter().enumerate()).map(|(i, spec)| {
        let labels = json!({"app": format!("pod-{i}")});
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": metadata(format!("pod-{i}")),
               "spec": {"selector": {"matchLabels": labels},
                        "template": {"metadata": {"labels": labels}, "spec": spec}}})
    });
    let mirror = |claims: Json| {
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": format!("mirror-{}", claims.as_array().map_or(0, Vec::len)), "namespace": "default",
                            "annotations": {"kubernetes.io/config.mirror": "x"}},
               "spec": {"nodeName": "node", "containers": [{"name": "app", "image": "registry.example/app:1"}],
                        "resourceClaims": claims}})
    };
    ranges
        .chain(pods)
        .chain(volume_claims)
        .chain(templates)
        .chain(ephemeral)
        .chain(spec_pods)
        .chain(spec_templates)
        .chain([
            mirror(json!([])),
            mirror(json!([{"name": "g", "resourceClaimName": "x"}])),
        ])
        .chain(network_policy_cases())
        .chain(written_files())
        .collect()
}

/// Objects written as JSON lists beside the recording
/// (`tests/fixtures/k8s-truth/written/*.json`), the files in name order:
/// workloads (strategies, Jobs' indexes and policies), metadata and
/// scheduling (labels, annotations, the names of kinds, tolerations, node
/// and pod affinity), Services, RBAC and containers, the fields the
/// OpenAPI schema calls required left out, volumes and mounts, Secrets,
/// times, CronJob schedules and time zones, Windows options, quantities
/// past 2^63-1 (compared, and as Go's int64 holds them, LimitRange ratios
/// too), NetworkPolicy ranges of IPv4-mapped IPv6 addresses, and the
/// classes a differential fuzzer found (metadata, strict decoding, a
/// StatefulSet's claim templates as volumes), PersistentVolume capacities
/// that Go's int64 wraps, the generated names of CRDs and APIServices, and
/// namespaces that are no string.
fn written_files() -> Vec<Json> {
    json_lists("tests/fixtures/k8s-truth/written")
}

/// The objects of the JSON lists (`*.json`) of a folder of the
/// repository, the files in name order.
fn json_lists(folder: &str) -> Vec<Json> {
    let dir = root().join(folder);
    let mut files: Vec<_> = (std::fs::read_dir(&dir).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    (files.iter())
        .flat_map(|path| {
            let list: Vec<Json> = serde_json::from_str(&std::fs::read_to_string(path).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            list
        })
        .collect()
}

/// What `check` finds of the API rules in `object` checked alone.
fn api_findings(object: &Json) -> Vec<String> {
    let run = chartgen_with_stdin(
        &["check", "--output", "json", "-"],
        Some(&object.to_string()),
    );
    let report: Json = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{object}: {e}\n{}", run.transcript()));
    (report["findings"].as_array().unwrap().iter())
        .filter(|f| API_RULES.contains(&f["invariant"].as_str().unwrap()))
        .map(|f| format!("{} {}: {}", f["invariant"], f["path"], f["message"]))
        .collect()
}

/// `check` finds an API rule's break in each recorded object exactly where
/// the server refused it.
fn agrees_with_each(recorded: &[Json]) {
    for record in recorded {
        let findings = api_findings(&record["object"]);
        assert_eq!(
            findings.is_empty(),
            record["verdict"] == "accept",
            "{}: the server said {}, chartgen {findings:?}",
            record["object"],
            record["message"]
        );
    }
}

/// `check` refuses each object of [`written_cases`] exactly when the
/// recorded server did, without a server.
#[test]
fn check_refuses_the_written_objects_the_server_refused() {
    let recorded = std::fs::read_to_string(root().join(RECORDED_WRITTEN)).unwrap();
    let recorded: Vec<Json> = (recorded.lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let objects: Vec<&Json> = recorded.iter().map(|r| &r["object"]).collect();
    assert!(
        objects.iter().copied().eq(written_cases().iter()),
        "the recording holds other cases than written_cases: record again (CHARTGEN_RECORD=1, cluster_written_objects_the_server_refuses_check_refuses)"
    );
    let refused = recorded.iter().filter(|r| r["verdict"] == "refuse").count();
    assert!(
        refused > 20 && refused + 20 < recorded.len(),
        "{refused} of {} refused",
        recorded.len()
    );
    agrees_with_each(&recorded);
}

/// The same objects against the live server: `check` refuses each exactly
/// when the server does (a dry run), and the server answers as recorded;
/// `CHARTGEN_RECORD=1` records its answers.
#[test]
fn cluster_written_objects_the_server_refuses_check_refuses() {
    let Some(server) =
        crate::server::server("cluster_written_objects_the_server_refuses_check_refuses")
    else {
        return;
    };
    let _alone = server.exclusive();
    server.reset();
    let mut records = Vec::new();
    for object in written_cases() {
        let output = server.kubectl(
            &["create", "--dry-run=server", "-o", "name", "-f", "-"],
            Some(&object.to_string()),
        );
        let admitted = output.status.success();
        let said = String::from_utf8_lossy(&output.stderr).into_owned();
        let findings = api_findings(&object);
        assert_eq!(
            findings.is_empty(),
            admitted,
            "{object}: the server said {said:?}, chartgen {findings:?}"
        );
        records.push(json!({
            "object": object,
            "verdict": if admitted { "accept" } else { "refuse" },
            "message": said.trim_end(),
        }));
    }
    let path = root().join(RECORDED_WRITTEN);
    if std::env::var_os("CHARTGEN_RECORD").is_some() {
        let lines: Vec<String> = records.iter().map(Json::to_string).collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        return;
    }
    // The verdicts, not the messages: the server orders several reasons
    // of one object as its maps iterate.
    let recorded = std::fs::read_to_string(&path).unwrap();
    let verdicts = |records: &mut dyn Iterator<Item = Json>| -> Vec<(Json, Json)> {
        records
            .map(|r| (r["object"].clone(), r["verdict"].clone()))
            .collect()
    };
    assert_eq!(
        verdicts(&mut records.into_iter()),
        verdicts(&mut recorded.lines().map(|l| serde_json::from_str(l).unwrap())),
        "the server answers otherwise than recorded in {RECORDED_WRITTEN}: record again (CHARTGEN_RECORD=1)"
    );
}

/// Custom resources' numbers, as a v1.35.4 server judged them: one CRD
/// whose fields set `integer` and `number` types, `multipleOf`, `minimum`
/// and `maximum` (exclusive or not, below 1, past 2^63, not positive), and
/// one custom resource a case setting one field to one value (floats near
/// whole numbers, whole numbers past 2^53 and 2^63, negative ones, strings).
const RECORDED_NUMBERS: &str =
    "tests/fixtures/k8s-truth/recorded/custom-resource-numbers-v1.35.4.json";

/// Custom resources' strings, as a v1.35.4 server judged them against
/// the `format`s it keeps (and some it strips): one CRD with a field a
/// format, string-typed or not, and one custom resource a case.
const RECORDED_FORMATS: &str =
    "tests/fixtures/k8s-truth/recorded/custom-resource-formats-v1.35.4.json";

/// Custom resources' embedded resources (`x-kubernetes-embedded-resource`),
/// as a v1.35.4 server judged their `metadata` (names, namespace, labels,
/// annotations, finalizers, owner references, generation, types) and
/// their apiVersion and kind: in a field, a list's items and a map's
/// values.
const RECORDED_EMBEDDED: &str =
    "tests/fixtures/k8s-truth/recorded/custom-resource-embedded-v1.35.4.json";

/// Custom resources' defaults, as a v1.35.4 server filled them in before
/// it judged: a null item of an array (objects, arrays, strings; under
/// `maxProperties`, keyed lists, `enum`, `maxItems`; nullable items, items
/// without a default), a null value of a map, defaults within defaults.
const RECORDED_DEFAULTS: &str =
    "tests/fixtures/k8s-truth/recorded/custom-resource-defaults-v1.35.4.json";

/// Custom resources' strings against patterns of Unicode classes, as a
/// v1.35.4 server matched them: Go counts a class as one instruction, so
/// `^[\p{L}\p{N}]{0,63}$` and `[\p{L}]{1000}` compile, and match.
const RECORDED_PATTERNS: &str =
    "tests/fixtures/k8s-truth/recorded/custom-resource-patterns-v1.35.4.json";

/// A recorded CRD, and each case's custom resource (`n<index>`, of the
/// CRD's kind) with the server's verdict.
fn recorded_cases(path: &str) -> (Json, Vec<(Json, String)>) {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    let recorded: Json = serde_json::from_str(&text).unwrap();
    let spec = &recorded["crd"]["spec"];
    let api_version = format!("{}/v1", spec["group"].as_str().unwrap());
    let cases = (recorded["cases"].as_array().unwrap().iter().enumerate())
        .map(|(i, case)| {
            let resource = json!({
                "apiVersion": api_version, "kind": spec["names"]["kind"],
                "metadata": {"name": format!("n{i}"), "namespace": "default"},
                "spec": {case["field"].as_str().unwrap(): case["value"]},
            });
            (resource, case["verdict"].as_str().unwrap().to_owned())
        })
        .collect();
    (recorded["crd"].clone(), cases)
}

/// The names of the custom resources `check` finds an API rule's break in,
/// all of them checked beside their CRD in one run.
fn resources_refused(crd: &Json, resources: &[&Json]) -> std::collections::BTreeSet<String> {
    let mut items = vec![crd];
    items.extend(resources);
    let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
    let run = chartgen_with_stdin(&["check", "--output", "json", "-"], Some(&list.to_string()));
    let report: Json =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.transcript()));
    let prefix = format!(
        "{} default/",
        crd["spec"]["names"]["kind"].as_str().unwrap()
    );
    (report["findings"].as_array().unwrap().iter())
        .filter(|f| API_RULES.contains(&f["invariant"].as_str().unwrap()))
        .map(|f| {
            let object = f["object"].as_str().unwrap();
            object.trim_start_matches(prefix.as_str()).to_owned()
        })
        .collect()
}

/// `check`, given a recorded CRD and its cases in one run, refuses
/// exactly the custom resources the server refused; both verdicts are
/// common among the cases (each at least a tenth).
fn check_judges_as_recorded(path: &str) {
    let (crd, cases) = recorded_cases(path);
    let resources: Vec<&Json> = cases.iter().map(|(r, _)| r).collect();
    let refused = resources_refused(&crd, &resources);
    let disagreements: Vec<String> = (cases.iter())
        .filter(|(resource, verdict)| {
            let name = resource["metadata"]["name"].as_str().unwrap();
            refused.contains(name) != (verdict == "refuse")
        })
        .map(|(resource, verdict)| format!("{}: the server said {verdict}", resource["spec"]))
        .collect();
    let refusals = cases.iter().filter(|(_, v)| v == "refuse").count();
    assert!(
        refusals * 10 > cases.len() && (cases.len() - refusals) * 10 > cases.len(),
        "{refusals} of {}",
        cases.len()
    );
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}

/// `check` fills in a custom resource's defaults as the recorded server
/// did before it judged: a null item takes its items' default of any
/// shape, each copy defaulted within.
#[test]
fn check_judges_custom_resource_defaults_as_the_server_did() {
    check_judges_as_recorded(RECORDED_DEFAULTS);
}

/// `check` compiles a CRD's patterns of Unicode classes as Go does
/// (however large their UTF-8 automata) and matches as the recorded
/// server did.
#[test]
fn check_judges_custom_resource_patterns_as_the_server_did() {
    check_judges_as_recorded(RECORDED_PATTERNS);
}

/// `check` judges a custom resource's numbers as the recorded server did:
/// go-openapi's, not JSON Schema's (an `integer` that takes
/// `3.0000000001`, bounds and factors converted to int64 for an integer
/// value, a `multipleOf` of 0 refusing the values and not the CRD).
#[test]
fn check_judges_custom_resource_numbers_as_the_server_did() {
    check_judges_as_recorded(RECORDED_NUMBERS);
}

/// `check` judges a custom resource's strings against their `format` as
/// the recorded server did: go-openapi's registry (Go's `net/mail`,
/// `net/url`, `net.ParseIP`, `time.Parse`, govalidator's checksums), a
/// format it strips judging nothing, and beside a kept format a type that
/// is not numeric taking any string the format takes.
#[test]
fn check_judges_custom_resource_formats_as_the_server_did() {
    check_judges_as_recorded(RECORDED_FORMATS);
}

/// `check` judges a custom resource's embedded resources as the recorded
/// server did: their `metadata` as ObjectMeta (path segment names, a
/// namespace that is a DNS label, labels, annotations, finalizers, owner
/// references), their apiVersion and kind.
#[test]
fn check_judges_custom_resource_embedded_metadata_as_the_server_did() {
    check_judges_as_recorded(RECORDED_EMBEDDED);
}

/// The same cases against the live server, which answers as recorded;
/// `CHARTGEN_RECORD=1` records its answers.
#[test]
fn cluster_judges_custom_resource_embedded_metadata_as_recorded() {
    cluster_judges_as_recorded(
        RECORDED_EMBEDDED,
        "cluster_judges_custom_resource_embedded_metadata_as_recorded",
    );
}

/// The recorded patterns' cases, asked of a real server again.
#[test]
fn cluster_judges_custom_resource_patterns_as_recorded() {
    cluster_judges_as_recorded(
        RECORDED_PATTERNS,
        "cluster_judges_custom_resource_patterns_as_recorded",
    );
}

/// The recorded defaults' cases, asked of a real server again.
#[test]
fn cluster_judges_custom_resource_defaults_as_recorded() {
    cluster_judges_as_recorded(
        RECORDED_DEFAULTS,
        "cluster_judges_custom_resource_defaults_as_recorded",
    );
}

/// The same cases against the live server, which answers as recorded;
/// `CHARTGEN_RECORD=1` records its answers.
#[test]
fn cluster_judges_custom_resource_numbers_as_recorded() {
    cluster_judges_as_recorded(
        RECORDED_NUMBERS,
        "cluster_judges_custom_resource_numbers_as_recorded",
    );
}

/// The same cases against the live server, which answers as recorded;
/// `CHARTGEN_RECORD=1` records its answers.
#[test]
fn cluster_judges_custom_resource_formats_as_recorded() {
    cluster_judges_as_recorded(
        RECORDED_FORMATS,
        "cluster_judges_custom_resource_formats_as_recorded",
    );
}

/// A recorded CRD's cases asked of the live server, in one List; its
/// answers are compared with the recording, or recorded where
/// `CHARTGEN_RECORD` is set.
fn cluster_judges_as_recorded(path: &str, test: &str) {
    let Some(server) = crate::server::server(test) else {
        return;
    };
    let _alone = server.exclusive();
    let (crd, cases) = recorded_cases(path);
    server.kubectl_ok(&["apply", "-f", "-"], Some(&crd.to_string()));
    server.wait_crds_established();
    let resources: Vec<&Json> = cases.iter().map(|(r, _)| r).collect();
    let list = json!({"apiVersion": "v1", "kind": "List", "items": resources});
    // One request a resource; the refused ones on stderr, each naming its
    // resource. kubectl's own check of a List's items (the CRD's OpenAPI,
    // read by the client) is off: the server's is asked. The server then
    // drops an unknown field where `check` refuses it, as a strict apply
    // does: the cases hold none.
    let output = server.kubectl(
        &[
            "create",
            "--dry-run=server",
            "--validate=false",
            "-o",
            "name",
            "-f",
            "-",
        ],
        Some(&list.to_string()),
    );
    server.kubectl_ok(&["delete", "-f", "-"], Some(&crd.to_string()));
    // kubectl names a resource by its kind in lowercase and its group.
    let spec = &crd["spec"];
    let kind = spec["names"]["kind"].as_str().unwrap().to_lowercase();
    let prefix = format!("{kind}.{}/", spec["group"].as_str().unwrap());
    let accepted: std::collections::BTreeSet<&str> = (std::str::from_utf8(&output.stdout).unwrap())
        .lines()
        .filter_map(|line| line.strip_prefix(prefix.as_str()))
        .collect();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let verdicts: Vec<(String, &str)> = (cases.iter())
        .map(|(resource, _)| {
            let name = resource["metadata"]["name"].as_str().unwrap();
            let said = |line: &&str| line.contains(&format!("\"{name}\""));
            let mut message = stderr.lines().find(said).unwrap_or("").to_owned();
            assert!(
                !accepted.contains(name) || message.is_empty(),
                "{name}: accepted and refused: {stderr}"
            );
            // A decoding error (BadRequest) names no object.
            if !accepted.contains(name) && message.is_empty() {
                message = "refused (the server's message names no object)".to_owned();
            }
            (
                message,
                if accepted.contains(name) {
                    "accept"
                } else {
                    "refuse"
                },
            )
        })
        .collect();
    if std::env::var_os("CHARTGEN_RECORD").is_some() {
        let text = std::fs::read_to_string(root().join(path)).unwrap();
        let mut recorded: Json = serde_json::from_str(&text).unwrap();
        for (case, (message, verdict)) in
            (recorded["cases"].as_array_mut().unwrap().iter_mut()).zip(&verdicts)
        {
            case["verdict"] = json!(verdict);
            case["message"] = json!(if message.is_empty() {
                "created (server dry run)"
            } else {
                message
            });
        }
        let text = serde_json::to_string_pretty(&recorded).unwrap() + "\n";
        std::fs::write(root().join(path), text).unwrap();
        return;
    }
    let differ: Vec<String> = (cases.iter().zip(&verdicts))
        .filter(|((_, recorded), (_, now))| recorded != now)
        .map(|((resource, recorded), (message, now))| {
            format!(
                "{}: recorded {recorded}, now {now} {message}",
                resource["spec"]
            )
        })
        .collect();
    assert!(
        differ.is_empty(),
        "the server answers otherwise than recorded in {path}: record again (CHARTGEN_RECORD=1): {differ:#?}"
    );
}

/// Objects a server-side apply is asked to land
/// (`tests/fixtures/k8s-truth/applied/*.json`, the files in name order):
/// the kinds the vendored schemas define that no resource stores (a
/// subresource's body, the reviews, bindings, component statuses) beside
/// kinds it keeps; rules of kinds `written/` does not reach.
const APPLIED: &str = "tests/fixtures/k8s-truth/applied";

/// What a real server answered to [`APPLIED`], applied as GitOps tools
/// apply: `kubectl apply --server-side`, a dry run.
const RECORDED_APPLIED: &str = "tests/fixtures/k8s-truth/recorded/applied-v1.35.4.jsonl";

fn applied_cases() -> Vec<Json> {
    json_lists(APPLIED)
}

/// `check` refuses each object of [`APPLIED`] exactly when the recorded
/// server refused to apply it, without a server.
#[test]
fn check_refuses_the_objects_a_server_side_apply_refused() {
    let recorded = std::fs::read_to_string(root().join(RECORDED_APPLIED)).unwrap();
    let recorded: Vec<Json> = (recorded.lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        (recorded.iter().map(|r| &r["object"])).eq(applied_cases().iter()),
        "the recording holds other cases than {APPLIED}: record again (CHARTGEN_RECORD=1, cluster_objects_a_server_side_apply_refuses_check_refuses)"
    );
    let accepted = recorded.iter().filter(|r| r["verdict"] == "accept").count();
    assert!(
        accepted > 0 && accepted < recorded.len(),
        "both verdicts are held"
    );
    agrees_with_each(&recorded);
}

/// The same objects against the live server: a server-side apply (a dry
/// run) refuses each exactly when `check` does, as recorded;
/// `CHARTGEN_RECORD=1` records its answers.
#[test]
fn cluster_objects_a_server_side_apply_refuses_check_refuses() {
    let Some(server) =
        crate::server::server("cluster_objects_a_server_side_apply_refuses_check_refuses")
    else {
        return;
    };
    let args = [
        "apply",
        "--server-side",
        "--dry-run=server",
        "--field-manager=chartgen",
        "-o",
        "name",
        "-f",
        "-",
    ];
    let records: Vec<Json> = (applied_cases().into_iter())
        .map(|object| {
            let output = server.kubectl(&args, Some(&object.to_string()));
            let admitted = output.status.success();
            let said = String::from_utf8_lossy(&output.stderr).into_owned();
            let findings = api_findings(&object);
            assert_eq!(
                findings.is_empty(),
                admitted,
                "{object}: the server said {said:?}, chartgen {findings:?}"
            );
            json!({
                "object": object,
                "verdict": if admitted { "accept" } else { "refuse" },
                "message": said.trim_end(),
            })
        })
        .collect();
    let path = root().join(RECORDED_APPLIED);
    let lines: Vec<String> = records.iter().map(Json::to_string).collect();
    if std::env::var_os("CHARTGEN_RECORD").is_some() {
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        return;
    }
    let verdict = |line: &str| serde_json::from_str::<Json>(line).unwrap()["verdict"].clone();
    let recorded = std::fs::read_to_string(&path).unwrap();
    assert!(
        (records.iter().map(|r| r["verdict"].clone())).eq(recorded.lines().map(verdict)),
        "the server answers otherwise than recorded in {RECORDED_APPLIED}: record again (CHARTGEN_RECORD=1)"
    );
}
