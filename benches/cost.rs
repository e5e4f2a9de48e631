//! Growth with the input (issue 9, section 4): each hostile shape at 1×,
//! 10× and 100× its size, so a cost that grows faster than the input shows
//! as a ratio above 10. Run with `cargo bench --bench cost` (or
//! `-- --quick`); the figures are recorded in BENCHMARKS.md.

include!("../tests/fixtures/hostile/cost/shapes.rs");

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

use chart::{artifacts, check};
use chart::{pipeline, values};
use kubernetes::diff::lines;
use kubernetes::input;

/// `check`'s relational checks (RBAC, topology) on out/ovh-prod plus the
/// multiplying RBAC of `hostile_rbac(n)`: 1.6 KB per n.
fn rbac_check(c: &mut Criterion) {
    let root = env!("CARGO_MANIFEST_DIR");
    let prod = input::read(&[format!("{root}/out/ovh-prod")], &artifacts::READ).unwrap();
    let mut group = c.benchmark_group("check RBAC, hostile");
    for n in [6, 60, 600] {
        let mut manifests = prod.manifests.clone();
        manifests.extend(input::parse("hostile", &hostile_rbac(n)).unwrap().manifests);
        group.bench_with_input(BenchmarkId::from_parameter(n), &manifests, |b, m| {
            b.iter(|| check::relations(black_box(m), prod.artifact(artifacts::EXEMPTIONS_FILE)))
        });
    }
    group.finish();
    // Listing is the output's size: under the grant budget it is listed,
    // past it refused at once.
    let mut group = c.benchmark_group("rbac listing, hostile");
    for n in [3, 30, 300] {
        let objects: Vec<serde_json::Value> = input::parse("hostile", &hostile_rbac(n))
            .unwrap()
            .manifests
            .iter()
            .map(|m| m.node().to_json())
            .collect();
        group.bench_with_input(BenchmarkId::from_parameter(n), &objects, |b, o| {
            b.iter(|| {
                kubernetes::rbac::resolve::effective_permissions(black_box(o)).map(|p| p.len())
            })
        });
    }
    group.finish();
}

/// The line diff of long texts (one changed line) and of long single lines.
fn line_diff(c: &mut Criterion) {
    let mut group = c.benchmark_group("line diff");
    for size in [1_000, 10_000, 100_000] {
        let [(old, new), (one, longer)] = long_texts(size);
        group.bench_with_input(BenchmarkId::new("lines", size), &(old, new), |b, (o, n)| {
            b.iter(|| lines::render(&lines::diff(black_box(o), black_box(n)), 3, "  "))
        });
        group.bench_with_input(
            BenchmarkId::new("one line of 64 bytes ×", size),
            &(one, longer),
            |b, (o, n)| b.iter(|| lines::render(&lines::diff(black_box(o), black_box(n)), 3, "  ")),
        );
    }
    group.finish();
}

/// Rendering with 50, 500 and 5,000 common labels (the whole pipeline:
/// plan, templates, parse-back).
fn render_labels(c: &mut Criterion) {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let mut group = c.benchmark_group("render with many labels");
    for labels in [50, 500, 5_000] {
        let file = dir.join(format!("labels-{labels}.yaml"));
        std::fs::write(
            &file,
            amplifying_values(labels, 0).replace("projects:\n", ""),
        )
        .unwrap();
        let loaded = values::load(&values::Inputs {
            files: vec![file],
            sets: Vec::new(),
        })
        .unwrap();
        group.bench_with_input(
            BenchmarkId::from_parameter(labels),
            &loaded.values,
            |b, v| b.iter(|| pipeline::render(black_box(v)).unwrap()),
        );
    }
    group.finish();
}

/// Reading a folder whose kustomization lists 50, 500 and 5,000 files
/// (what `render --output-dir` writes for as many objects): every file
/// walked is looked up among the listed ones.
fn kustomized_folder(c: &mut Criterion) {
    let scratch = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("read a kustomized folder of files");
    for files in [50, 500, 5_000] {
        let dir = scratch.path().join(format!("f{files}"));
        std::fs::create_dir(&dir).unwrap();
        let mut kustomization = String::from(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n",
        );
        for i in 0..files {
            let name = format!("configmap-c{i:05}.yaml");
            let object = format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i:05}\n  namespace: ns\n"
            );
            std::fs::write(dir.join(&name), object).unwrap();
            kustomization.push_str(&format!("  - {name}\n"));
        }
        std::fs::write(dir.join("kustomization.yaml"), kustomization).unwrap();
        let dir = dir.display().to_string();
        group.bench_with_input(BenchmarkId::from_parameter(files), &dir, |b, d| {
            b.iter(|| input::read(std::slice::from_ref(black_box(d)), &artifacts::READ).unwrap())
        });
    }
    group.finish();
}

/// LIMITS on out/ovh-prod plus a LimitRange of n items in the builds
/// namespace and n BuildProjects of n different resources: each project
/// is held to the namespace's strictest bounds, found once, not to every
/// item (which cost projects × items).
fn limit_ranges(c: &mut Criterion) {
    let root = env!("CARGO_MANIFEST_DIR");
    let prod = input::read(&[format!("{root}/out/ovh-prod")], &artifacts::READ).unwrap();
    let mut group = c.benchmark_group("check LimitRanges, items × projects");
    for n in [40, 400, 4_000] {
        let mut text = String::from(
            "apiVersion: v1\nkind: LimitRange\nmetadata: {name: many, namespace: buildkit-builds}\nspec:\n  limits:\n",
        );
        for i in 0..n {
            text.push_str(&format!(
                "  - type: Container\n    max: {{memory: {}Gi}}\n",
                1000 + i
            ));
        }
        for i in 0..n {
            text.push_str(&format!(
                "---\napiVersion: buildkit-operator.dev/v1alpha1\nkind: BuildProject\nmetadata: {{name: p{i}, namespace: buildkit-builds}}\nspec:\n  repository: https://git.example.com/p{i}.git\n  trusted: true\n  resources:\n    requests: {{memory: {}Mi}}\n    limits: {{memory: {}Mi}}\n",
                i + 1,
                i + 2
            ));
        }
        let mut manifests = prod.manifests.clone();
        manifests.extend(input::parse("hostile", &text).unwrap().manifests);
        group.bench_with_input(BenchmarkId::from_parameter(n), &manifests, |b, m| {
            b.iter(|| check::relations(black_box(m), prod.artifact(artifacts::EXEMPTIONS_FILE)))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    rbac_check,
    line_diff,
    render_labels,
    kustomized_folder,
    limit_ranges
);
criterion_main!(benches);
