//! How long `chartgen check` takes on the largest environment (issue 4:
//! "well under a second"). Run with `cargo bench --bench check`; the
//! figures are recorded in BENCHMARKS.md.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

use chart::artifacts::{EXEMPTIONS_FILE, READ};
use chart::check::{self, Options};
use kubernetes::input;
use kubernetes::kube::{DEFAULT_VERSION, KubeSchemas};

fn check_largest_environment(c: &mut Criterion) {
    let root = env!("CARGO_MANIFEST_DIR");
    let paths = vec![format!("{root}/out/ovh-prod")];
    c.bench_function("read out/ovh-prod", |b| {
        b.iter(|| input::read(black_box(&paths), &READ).unwrap())
    });
    c.bench_function("load Kubernetes schemas", |b| {
        b.iter(|| KubeSchemas::load(black_box(DEFAULT_VERSION)).unwrap())
    });
    let set = input::read(&paths, &READ).unwrap();
    let schemas = KubeSchemas::load(DEFAULT_VERSION).unwrap();
    let options = Options {
        schemas: &schemas,
        extra_crds: &[],
        only_version: false,
    };
    c.bench_function("check out/ovh-prod", |b| {
        b.iter(|| {
            check::run(
                black_box(&set.manifests),
                set.artifact(EXEMPTIONS_FILE),
                &options,
            )
        })
    });
    c.bench_function("read, load and check out/ovh-prod", |b| {
        b.iter(|| {
            let set = input::read(black_box(&paths), &READ).unwrap();
            let schemas = KubeSchemas::load(DEFAULT_VERSION).unwrap();
            let options = Options {
                schemas: &schemas,
                extra_crds: &[],
                only_version: false,
            };
            check::run(&set.manifests, set.artifact(EXEMPTIONS_FILE), &options)
        })
    });
}

criterion_group!(benches, check_largest_environment);
criterion_main!(benches);
