//! What the differential schema tests (`kube_schemas.rs`, `values_schema.rs`)
//! share: a seeded generator and the JSON pointers of an instance's nodes.

use serde_json::Value as Json;

/// SplitMix64: a small seeded generator, so every run sees the same corpus.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Pointers to every node below `value` (children before their parent).
pub fn pointers(value: &Json, at: &str, out: &mut Vec<String>) {
    let children: Vec<(String, &Json)> = match value {
        Json::Object(map) => map
            .iter()
            .map(|(k, v)| (k.replace('~', "~0").replace('/', "~1"), v))
            .collect(),
        Json::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        _ => return,
    };
    for (segment, child) in children {
        let pointer = format!("{at}/{segment}");
        pointers(child, &pointer, out);
        out.push(pointer);
    }
}

/// `value` with every whole number past 64 bits replaced by the nearest
/// one within them.
pub fn within_64_bits(value: &Json) -> Json {
    match value {
        Json::Number(n) if !n.is_i64() => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f >= 9_223_372_036_854_775_808.0 => {
                serde_json::json!(i64::MAX)
            }
            Some(f) if f.fract() == 0.0 && f < -9_223_372_036_854_775_808.0 => {
                serde_json::json!(i64::MIN)
            }
            _ => value.clone(),
        },
        Json::Array(items) => Json::Array(items.iter().map(within_64_bits).collect()),
        Json::Object(map) => Json::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), within_64_bits(v)))
                .collect(),
        ),
        _ => value.clone(),
    }
}
