//! The render path and `check`'s scaling: rendering the largest environment
//! (values, templates, parse-back), the checks `render` runs on it (release,
//! Kata bundle, both together), and `check` on 400 and 1,600 operator
//! instances, whose ratio shows the cost grows linearly. Run with
//! `cargo bench --bench render`; the figures are in BENCHMARKS.md.

use std::hint::black_box;
use std::path::PathBuf;
use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};

use chart::check::{self, Options};
use chart::pipeline;
use chart::values::{self, Inputs};
use kubernetes::input;
use kubernetes::kube::{DEFAULT_VERSION, KubeSchemas};

/// The stream `scripts/many-instances count` prints.
fn instances(count: usize) -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/many-instances");
    let output = Command::new(script)
        .arg(count.to_string())
        .output()
        .expect("python3 runs scripts/many-instances");
    String::from_utf8(output.stdout).expect("the script prints UTF-8")
}

fn render_and_scale(c: &mut Criterion) {
    let inputs = Inputs {
        files: vec![PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/values/ovh-prod.yaml"
        ))],
        sets: Vec::new(),
    };
    c.bench_function("render ovh-prod (values, templates, parse back)", |b| {
        b.iter(|| pipeline::render(&values::load(black_box(&inputs)).unwrap().values).unwrap())
    });
    let output = pipeline::render(&values::load(&inputs).unwrap().values).unwrap();
    assert!(pipeline::check(&output).is_empty());
    c.bench_function("checks of a fresh ovh-prod render (3 runs)", |b| {
        b.iter(|| pipeline::check(black_box(&output)))
    });
    let schemas = KubeSchemas::load(DEFAULT_VERSION).unwrap();
    let options = Options {
        schemas: &schemas,
        extra_crds: &[],
        only_version: false,
    };
    let mut group = c.benchmark_group("check instances");
    group.sample_size(10);
    for count in [400, 1600] {
        let set = input::parse("instances", &instances(count)).unwrap();
        assert!(
            check::run(&set.manifests, &[], &options)
                .findings
                .is_empty()
        );
        group.bench_function(format!("{count}"), |b| {
            b.iter(|| check::run(black_box(&set.manifests), &[], &options))
        });
    }
    group.finish();
}

criterion_group!(benches, render_and_scale);
criterion_main!(benches);
