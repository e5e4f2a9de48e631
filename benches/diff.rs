//! How long `chartgen diff` takes on two sets of 1,000 objects (issue 5:
//! "well under a second"), its impact summary included (issue 11: under
//! 50 ms). Run with `cargo bench --bench diff`; the figures
//! are recorded in BENCHMARKS.md.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

use kubernetes::{diff, input};

/// 500 Deployments and 500 ConfigMaps; `version` changes every tenth
/// object's image and TOML, and the order of containers and env.
fn objects(version: u32) -> String {
    let mut text = String::new();
    for i in 0..500_u32 {
        let tag = if i.is_multiple_of(10) { version } else { 1 };
        let app = format!(
            "        - name: app\n          image: registry.example.com/app:{tag}\n          env: [{{name: A, value: \"1\"}}, {{name: B, value: \"2\"}}]\n"
        );
        let sidecar = format!(
            "        - name: sidecar\n          image: registry.example.com/sidecar:{tag}\n          ports: [{{name: http, containerPort: 8080}}]\n"
        );
        // The second version lists the containers the other way round: a change
        // of every Deployment's pod template (server-side apply keeps the order).
        let containers = if version.is_multiple_of(2) {
            app + &sidecar
        } else {
            sidecar + &app
        };
        let _ = write!(
            text,
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web-{i}, namespace: ns-{}, labels: {{app: web-{i}}}}}\nspec:\n  replicas: 2\n  selector: {{matchLabels: {{app: web-{i}}}}}\n  template:\n    metadata: {{labels: {{app: web-{i}}}}}\n    spec:\n      containers:\n{containers}",
            i % 7
        );
        let _ = write!(
            text,
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: config-{i}, namespace: ns-{}}}\ndata:\n  config.toml: |\n    [server]\n      port = 8080\n      workers = {tag}\n    [cache]\n      size = \"1Gi\"\n",
            i % 7
        );
    }
    text
}

/// A Role and its binding; `verbs` is what the role grants.
fn rbac(verbs: &str) -> String {
    format!(
        "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {{name: reader, namespace: ns-0}}\nrules: [{{apiGroups: [\"\"], resources: [configmaps], verbs: [{verbs}]}}]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: reader, namespace: ns-0}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}}\nsubjects: [{{kind: ServiceAccount, name: app}}]\n"
    )
}

/// 1,000 objects whose second version has an impact of every class:
/// `objects` (every tenth Deployment's image: restarts) with 100
/// ConfigMaps renamed, 10 selectors changed (refused), a Namespace and a
/// bound ServiceAccount removed, a ClusterRole aggregated into `edit`
/// gaining a rule, and a workload gaining privileges.
fn impactful(version: u32) -> String {
    let mut text = objects(version);
    let renamed = if version == 1 { "old" } else { "new" };
    // Replace 100 ConfigMaps by renamed copies and 10 selectors by others:
    // the set stays at 1,000 objects.
    for i in 0..100_u32 {
        text = text.replacen(
            &format!("name: config-{i}, namespace"),
            &format!("name: config-{i}-{renamed}, namespace"),
            1,
        );
    }
    if version != 1 {
        for i in 490..500_u32 {
            text = text.replacen(
                &format!("selector: {{matchLabels: {{app: web-{i}}}}}"),
                &format!("selector: {{matchLabels: {{app: web-{i}, tier: front}}}}"),
                1,
            );
        }
        text = text.replacen(
            "      containers:\n",
            "      hostNetwork: true\n      containers:\n",
            1,
        );
    }
    let verbs = if version == 1 { "get" } else { "get, list" };
    let _ = write!(
        text,
        "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: aggregated, labels: {{rbac.authorization.k8s.io/aggregate-to-edit: \"true\"}}}}\nrules: [{{apiGroups: [\"\"], resources: [configmaps], verbs: [{verbs}]}}]\n"
    );
    if version == 1 {
        text += "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns-0}\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: app, namespace: ns-0}\n";
    }
    text + &rbac(verbs)
}

fn diff_thousand_objects(c: &mut Criterion) {
    let old = input::parse("old", &objects(1)).unwrap().manifests;
    let new = input::parse("new", &objects(2)).unwrap().manifests;
    assert_eq!((old.len(), new.len()), (1000, 1000));
    let result = diff::diff(&old, &new, &[]);
    // Every Deployment (its containers in another order) and every tenth
    // ConfigMap (its TOML).
    assert_eq!(result.changed.len(), 550);
    c.bench_function("diff 1000 objects", |b| {
        b.iter(|| diff::diff(black_box(&old), black_box(&new), &[]))
    });
    let same = input::parse("same", &objects(1)).unwrap().manifests;
    assert!(diff::diff(&old, &same, &[]).is_empty());
    c.bench_function("diff 1000 identical objects", |b| {
        b.iter(|| diff::diff(black_box(&old), black_box(&same), &[]))
    });
    let with_rbac = |version, verbs| {
        let text = objects(version) + &rbac(verbs);
        input::parse("rbac", &text).unwrap().manifests
    };
    let (old_rbac, new_rbac) = (with_rbac(1, "get"), with_rbac(2, "get, list"));
    assert_eq!(diff::diff(&old_rbac, &new_rbac, &[]).rbac.len(), 1);
    c.bench_function("diff 1000 objects, one role changed", |b| {
        b.iter(|| diff::diff(black_box(&old_rbac), black_box(&new_rbac), &[]))
    });
    let (old_impact, new_impact) = (
        input::parse("old", &impactful(1)).unwrap().manifests,
        input::parse("new", &impactful(2)).unwrap().manifests,
    );
    let result = diff::diff(&old_impact, &new_impact, &[]);
    let classes: std::collections::BTreeSet<_> = result.impact.iter().map(|i| i.class).collect();
    // Refused twice over: the changed selectors no longer match their
    // templates (class invalid) and are immutable.
    assert_eq!(classes.len(), 6, "{:?}", result.impact);
    assert!(result.impact.len() > 150, "{}", result.impact.len());
    c.bench_function("diff 1000 objects, every impact class", |b| {
        b.iter(|| diff::diff(black_box(&old_impact), black_box(&new_impact), &[]))
    });
    let (old_text, new_text) = (objects(1), objects(2));
    c.bench_function("parse and diff 1000 objects", |b| {
        b.iter(|| {
            let old = input::parse("old", black_box(&old_text)).unwrap().manifests;
            let new = input::parse("new", black_box(&new_text)).unwrap().manifests;
            diff::render_text(&diff::diff(&old, &new, &[]), diff::Style::default())
        })
    });
}

criterion_group!(benches, diff_thousand_objects);
criterion_main!(benches);
