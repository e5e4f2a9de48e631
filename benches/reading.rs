//! How reading manifests grows with the number of documents in one text
//! (issue 9: linear in time and memory). Run with
//! `cargo bench --bench reading`; 1,000, 10,000 and 100,000 tiny objects
//! should take about 1, 10 and 100 times as long.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

use kubernetes::input;

/// `count` ConfigMaps, each with a `# Source:` comment.
fn documents(count: usize) -> String {
    let mut text = String::new();
    for i in 0..count {
        let _ = write!(
            text,
            "---\n# Source: templates/t{i}.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}, namespace: x}}\ndata: {{a: \"1\"}}\n"
        );
    }
    text
}

fn reading(c: &mut Criterion) {
    let mut group = c.benchmark_group("read documents");
    group.sample_size(10);
    for count in [1_000, 10_000, 100_000] {
        let text = documents(count);
        group.bench_with_input(BenchmarkId::from_parameter(count), &text, |b, text| {
            b.iter(|| input::parse("bench", black_box(text)).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, reading);
criterion_main!(benches);
