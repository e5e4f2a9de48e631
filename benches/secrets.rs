//! What hiding Secret values costs as a Secret grows: redacting one with
//! 1,000, 10,000 and 100,000 keys, and searching a finding's message for
//! every hidden value (one pass, whatever their number). Growth should be
//! linear in the keys for redaction and flat for the search. Run with
//! `cargo bench --bench secrets`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value as Json, json};

use kubernetes::secret;

fn secret_with(keys: usize) -> Json {
    let data: Map<String, Json> = (0..keys)
        .map(|i| {
            (
                format!("key-{i}"),
                Json::from(format!("value-{i}-{}", "x".repeat(i % 64))),
            )
        })
        .collect();
    json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "ns"}, "data": data})
}

fn hiding(c: &mut Criterion) {
    let mut group = c.benchmark_group("secrets");
    let message = format!("{} is not of type \"object\"", "y".repeat(400));
    for keys in [1_000, 10_000, 100_000] {
        let object = secret_with(keys);
        group.bench_with_input(BenchmarkId::new("redact", keys), &object, |b, object| {
            b.iter(|| secret::redact(black_box(object)))
        });
        let (_, hidden) = secret::redact(&object);
        group.bench_with_input(
            BenchmarkId::new("search a message", keys),
            &hidden,
            |b, hidden| b.iter(|| hidden.revealed_by(black_box(&message))),
        );
    }
    group.finish();
}

criterion_group!(benches, hiding);
criterion_main!(benches);
