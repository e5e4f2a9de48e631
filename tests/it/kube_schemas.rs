//! The baked Kubernetes schemas and their validator against jsonschema on
//! the vendored files: the same (path, message) lists, in the same order, on
//! every rendered object and on a seeded corpus of mutations; and the bake
//! refusing what its validator does not implement.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use kubernetes::kube::validator::{self, Additional, KUBERNETES};
use kubernetes::kube::{KubeSchemas, VERSIONS};
use kubernetes::location::KeyPath;
use serde_json::{Value as Json, json};

use crate::corpus::{Rng, pointers, within_64_bits};

#[path = "../../crates/kubernetes/build/kube_schemas.rs"]
#[allow(dead_code)]
mod bake;

/// One vendored version: the baked schemas and jsonschema's validators of
/// the same files, compiled as the old `src/kube.rs` did before the schemas were baked.
struct Version {
    name: &'static str,
    baked: KubeSchemas,
    reference: BTreeMap<(String, String), jsonschema::Validator>,
}

fn versions() -> &'static [Version] {
    static VERSIONS_: LazyLock<Vec<Version>> = LazyLock::new(|| {
        VERSIONS
            .iter()
            .map(|name| Version {
                name,
                baked: KubeSchemas::load(name).unwrap(),
                reference: reference_validators(name),
            })
            .collect()
    });
    &VERSIONS_
}

fn reference_validators(version: &str) -> BTreeMap<(String, String), jsonschema::Validator> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
    let dir = root.join(format!("kubernetes/v{version}.0"));
    let read = |path: &Path| -> Json {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let registry = jsonschema::Registry::new()
        .add(
            "https://kubernetes.io/api/_definitions.json",
            jsonschema::Resource::from_contents(read(&dir.join("_definitions.json"))),
        )
        .and_then(|builder| builder.prepare())
        .unwrap();
    let mut validators = BTreeMap::new();
    let files = std::fs::read_dir(&dir)
        .unwrap()
        .chain(std::fs::read_dir(root.join("cert-manager")).unwrap())
        .chain(std::fs::read_dir(root.join("cilium")).unwrap())
        .chain(std::fs::read_dir(root.join("prometheus-operator")).unwrap());
    for path in files.map(|e| e.unwrap().path()) {
        if path.ends_with("_definitions.json") {
            continue;
        }
        let schema = read(&path);
        let first = |f: &str| {
            schema["properties"][f]["enum"][0]
                .as_str()
                .unwrap()
                .to_owned()
        };
        let validator = jsonschema::options()
            .with_pattern_options(kubernetes::kube::pattern_engine())
            .with_registry(&registry)
            .build(&schema)
            .unwrap();
        validators.insert((first("apiVersion"), first("kind")), validator);
    }
    validators
}

type Errors = Vec<(KeyPath, String)>;

impl Version {
    /// Both validators' errors for `object` as kind `(api_version, kind)`;
    /// fails the test where they differ.
    fn agree(&self, api_version: &str, kind: &str, object: &Json, case: &str) -> Errors {
        // The one deliberate difference from JSON Schema: an integer is one
        // the API server's decoder reads, within 64 bits
        // (`integers_past_64_bits_are_no_integers`). Past them, both sides
        // see the nearest 64-bit integer.
        let object = &within_64_bits(object);
        let key = (api_version.to_owned(), kind.to_owned());
        let expected: Errors = self.reference[&key]
            .iter_errors(object)
            .map(|e| {
                (
                    KeyPath::from_pointer(e.instance_path().as_str()),
                    e.to_string(),
                )
            })
            .collect();
        let root = self.baked.root(api_version, kind).unwrap();
        let actual: Errors = validator::validate(root, object)
            .into_iter()
            .map(|e| {
                let message = e.to_string();
                (validator::as_pointer_reads(e.path), message)
            })
            .collect();
        assert_eq!(
            actual, expected,
            "Kubernetes {}, {kind} {case}: baked validator (left) and jsonschema (right) differ on\n{object}",
            self.name
        );
        actual
    }
}

/// Where JSON Schema calls any whole number an integer, the baked
/// validator holds an integer field to the 64 bits the API server's
/// decoder reads: past them a number is refused as no integer. A whole
/// float is the integer kubectl sends, its shortest digits: a v1.35.4
/// server read `9223372036854774784.0` as 9223372036854775000 and refused
/// `-9223372036854775808.0` ("cannot unmarshal number
/// -9223372036854776000 into Go struct field").
#[test]
fn integers_past_64_bits_are_no_integers() {
    for version in versions() {
        let root = version.baked.root("v1", "Pod").unwrap();
        let pod = |seconds: Json| {
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                "spec": {"containers": [{"name": "a", "image": "a:1"}],
                    "activeDeadlineSeconds": seconds}})
        };
        for inside in [
            json!(i64::MAX),
            json!(-1),
            json!(4.0),
            json!(9_223_372_036_854_774_784.0),
        ] {
            assert!(
                validator::validate(root, &pod(inside.clone())).is_empty(),
                "{inside}"
            );
        }
        for past in [
            json!(18_446_744_073_709_551_615_u64),
            json!(9_223_372_036_854_775_808_u64),
            json!(1e19),
            json!(-1e30),
            json!(-9_223_372_036_854_775_808.0),
        ] {
            let object = pod(past.clone());
            let errors = validator::validate(root, &object);
            assert_eq!(errors.len(), 1, "{past}");
            let message = errors[0].to_string();
            assert!(
                message.contains("is not of type") && message.contains("\"integer\""),
                "{past}: {message}"
            );
        }
    }
}

/// Every object of every committed `out/*/` render.
fn rendered_objects() -> Vec<Json> {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("out");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut objects = Vec::new();
    for dir in dirs {
        let set =
            kubernetes::input::read(&[dir.display().to_string()], &chart::artifacts::READ).unwrap();
        objects.extend(set.manifests.iter().map(|m| m.node().to_json()));
    }
    objects
}

fn kind_of(object: &Json) -> (&str, &str) {
    (
        object["apiVersion"].as_str().unwrap_or_default(),
        object["kind"].as_str().unwrap_or_default(),
    )
}

#[test]
fn every_rendered_object_gets_the_errors_jsonschema_gives() {
    let objects = rendered_objects();
    assert!(objects.len() > 50, "{} objects", objects.len());
    for version in versions() {
        let mut checked = 0;
        for object in &objects {
            let (api_version, kind) = kind_of(object);
            if version.baked.root(api_version, kind).is_some() {
                let errors = version.agree(api_version, kind, object, "as rendered");
                assert!(errors.is_empty(), "{errors:?}");
                checked += 1;
            }
        }
        assert!(
            checked > 40,
            "Kubernetes {}: {checked} objects",
            version.name
        );
    }
}

/// Values of every JSON type, flat and nested, to put where they do not belong.
fn odd_values() -> Vec<Json> {
    vec![
        Json::Null,
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(3.0),
        json!(18_446_744_073_709_551_615_u64),
        json!(""),
        json!("x"),
        json!("1h"),
        json!("0"),
        json!([]),
        json!([null]),
        json!([{}]),
        json!({}),
        json!({"zz": 1}),
        json!({"name": "x"}),
        json!([[[{"a": [{"b": {"c": [1, "2", null]}}]}]]]),
    ]
}

/// Unknown member names, among them ones a JSON pointer escapes or a
/// `KeyPath` reads as an index.
const ODD_KEYS: &[&str] = &["zz", "0", "+7", "a/b", "~1", "x~0y", "", "é"];

/// `object` with one mutation at `pointer`.
fn mutate(rng: &mut Rng, object: &Json, pointer: &str, odd: &[Json]) -> (Json, String) {
    let mut mutated = object.clone();
    let (parent, last) = pointer.rsplit_once('/').unwrap();
    let target = mutated.pointer_mut(pointer).unwrap();
    let what = match rng.below(6) {
        0 | 1 => {
            *target = rng.pick(odd).clone();
            "replaced"
        }
        2 => {
            *target = match target.take() {
                Json::Array(items) => items
                    .into_iter()
                    .next()
                    .map_or(json!({}), |first| json!({ "0": first })),
                other => json!([other]),
            };
            "array and object swapped"
        }
        3 => match target {
            Json::Object(map) => {
                for _ in 0..=rng.below(2) {
                    map.insert((*rng.pick(ODD_KEYS)).to_owned(), rng.pick(odd).clone());
                }
                "unknown members added"
            }
            _ => {
                *target = Json::Null;
                "nulled"
            }
        },
        _ => {
            match mutated.pointer_mut(parent).unwrap() {
                Json::Object(map) => {
                    let key = last.replace("~1", "/").replace("~0", "~");
                    map.shift_remove(&key);
                }
                Json::Array(items) => {
                    items.remove(last.parse::<usize>().unwrap());
                }
                _ => unreachable!("a parent holds members"),
            }
            "removed"
        }
    };
    (mutated, format!("{what} at {pointer}"))
}

#[test]
fn mutations_of_rendered_objects_get_the_errors_jsonschema_gives() {
    let objects = rendered_objects();
    let odd = odd_values();
    let mut rng = Rng(0x6b75_6265);
    let mut all = Vec::new();
    let mut cases = 0;
    for version in versions() {
        for object in &objects {
            let (api_version, kind) = kind_of(object);
            if version.baked.root(api_version, kind).is_none() {
                continue;
            }
            let mut paths = Vec::new();
            pointers(object, "", &mut paths);
            for _ in 0..paths.len().min(40) {
                let pointer = rng.pick(&paths).clone();
                let (mutated, case) = mutate(&mut rng, object, &pointer, &odd);
                all.extend(version.agree(api_version, kind, &mutated, &case));
                cases += 1;
            }
        }
    }
    assert!(cases >= 3000, "{cases} cases");
    assert_covers(&all, "mutations");
}

/// A value for node `index`: mostly of its shape, sometimes not.
fn generate(rng: &mut Rng, index: u32, depth: usize, odd: &[Json]) -> Json {
    let node = KUBERNETES.node(index);
    if depth > 9 || rng.chance(6) {
        return rng.pick(odd).clone();
    }
    if !node.one_of.is_empty() {
        let branch = *rng.pick(KUBERNETES.branches(node.one_of));
        return generate(rng, branch, depth, odd);
    }
    if !node.enumeration.is_empty() && !rng.chance(10) {
        let options: Vec<&str> = KUBERNETES.strs(node.enumeration).collect();
        return json!(rng.pick(&options));
    }
    let types: Vec<u8> = (0..7)
        .map(|b| 1 << b)
        .filter(|b| node.types & b != 0)
        .collect();
    let ty = match types.as_slice() {
        [] => return rng.pick(odd).clone(),
        [null, rest @ ..] if *null == 1 && !rest.is_empty() && !rng.chance(5) => *rng.pick(rest),
        all => *rng.pick(all),
    };
    match ty {
        1 => Json::Null,
        2 => json!(rng.chance(50)),
        4 => json!(rng.pick(&[-1, 0, 1, 2, 100, 101, 65_536])),
        8 => rng
            .pick(&[json!(0.5), json!(1), json!(-2.5), json!(100.0)])
            .clone(),
        16 => json!(rng.pick(&["", "x", "1h", "90m", "1.5h", "10µs", "h1", &"y".repeat(70)])),
        32 => {
            let items = node.items;
            let count = rng.below(3);
            let mut array = Vec::new();
            for _ in 0..count {
                array.push(match items {
                    Some(item) => generate(rng, item, depth + 1, odd),
                    None => rng.pick(odd).clone(),
                });
            }
            Json::Array(array)
        }
        _ => generate_object(rng, node, depth, odd),
    }
}

fn generate_object(
    rng: &mut Rng,
    node: &kubernetes::kube::validator::Node,
    depth: usize,
    odd: &[Json],
) -> Json {
    let mut map = serde_json::Map::new();
    let optional = if depth < 3 { 45 } else { 20 };
    for (name, child) in KUBERNETES.members(node.properties) {
        let wanted = if KUBERNETES.strs(node.required).any(|r| r == name) {
            92
        } else {
            optional
        };
        if rng.chance(wanted) {
            map.insert(name.to_owned(), generate(rng, child, depth + 1, odd));
        }
    }
    if let Additional::Node(child) = node.additional {
        for _ in 0..rng.below(3) {
            let key = (*rng.pick(ODD_KEYS)).to_owned();
            map.insert(key, generate(rng, child, depth + 1, odd));
        }
    }
    if rng.chance(8) {
        for _ in 0..=rng.below(2) {
            map.insert((*rng.pick(ODD_KEYS)).to_owned(), rng.pick(odd).clone());
        }
    }
    // Shuffle: the members' order decides the errors' order.
    let mut entries: Vec<(String, Json)> = map.into_iter().collect();
    for i in (1..entries.len()).rev() {
        entries.swap(i, rng.below(i + 1));
    }
    Json::Object(entries.into_iter().collect())
}

/// 200 instances of each kind under `CHARTGEN_SLOW=1` (as `.ci/run`
/// sets it), 50 in plain `cargo test`.
#[test]
fn generated_instances_of_every_kind_get_the_errors_jsonschema_gives() {
    let odd = odd_values();
    let mut rng = Rng(0x0006_1a5e);
    let mut all = Vec::new();
    let per_kind = crate::tools::cases(50, 200);
    let mut cases = 0;
    for version in versions() {
        for (api_version, kind) in version.baked.kinds() {
            let root = version.baked.root(api_version, kind).unwrap();
            for case in 0..per_kind {
                let object = generate(&mut rng, root, 0, &odd);
                all.extend(version.agree(api_version, kind, &object, &format!("case {case}")));
                cases += 1;
            }
        }
    }
    assert!(cases >= 30 * per_kind, "{cases} cases");
    assert_covers(&all, "generated");
}

/// The corpus reaches every error kind the baked validator reports.
fn assert_covers(errors: &Errors, corpus: &str) {
    let needles = [
        "is not of type \"",
        "is not of types \"null\"",
        "is not one of",
        "is a required property",
        "Additional properties are not allowed",
        "were unexpected",
        "under any of the schemas listed in the 'oneOf'",
        "more than one of the schemas listed in the 'oneOf'",
    ];
    for needle in needles {
        assert!(
            errors.iter().any(|(_, m)| m.contains(needle)),
            "the {corpus} corpus never produced {needle:?} ({} errors)",
            errors.len()
        );
    }
    let keyed = errors
        .iter()
        .any(|(path, _)| path.to_string().contains('"'));
    assert!(keyed || corpus != "generated", "no error below an odd key");
}

#[test]
fn certificate_limits_and_patterns_agree_with_jsonschema() {
    for version in versions() {
        let mut all = Vec::new();
        for (field, value) in [
            ("secretName", json!("")),
            ("commonName", json!("c".repeat(65))),
            ("commonName", json!("é".repeat(64))),
            ("duration", json!("1h30m")),
            ("duration", json!("1x")),
            ("renewBefore", json!("")),
            ("renewBeforePercentage", json!(-1)),
            ("renewBeforePercentage", json!(101)),
            ("renewBeforePercentage", json!(100.5)),
            (
                "renewBeforePercentage",
                json!(18_446_744_073_709_551_615_u64),
            ),
            ("revisionHistoryLimit", json!(0)),
            ("revisionHistoryLimit", json!(0.5)),
        ] {
            let object = json!({
                "apiVersion": "cert-manager.io/v1", "kind": "Certificate",
                "metadata": {"name": "c"},
                "spec": {"secretName": "s", "issuerRef": {"name": "i"}, field: value},
            });
            let case = format!("{field} = {value}");
            all.extend(version.agree("cert-manager.io/v1", "Certificate", &object, &case));
        }
        for needle in [
            "shorter than 1 character",
            "longer than 64 characters",
            "does not match",
            "less than the minimum of",
            "greater than the maximum of 100",
        ] {
            assert!(
                all.iter().any(|(_, m)| m.contains(needle)),
                "{needle}: {all:?}"
            );
        }
    }
}

/// A schema folder with one kind whose `properties` hold `spec`.
fn schema_dir(spec: &Json, draft: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let version = dir.path().join("kubernetes/v1.0.0");
    std::fs::create_dir_all(&version).unwrap();
    std::fs::create_dir_all(dir.path().join("cert-manager")).unwrap();
    std::fs::create_dir_all(dir.path().join("cilium")).unwrap();
    std::fs::create_dir_all(dir.path().join("prometheus-operator")).unwrap();
    let definitions = json!({"$defs": {"Name": {"type": "string"}}});
    std::fs::write(version.join("_definitions.json"), definitions.to_string()).unwrap();
    let kind = json!({
        "$schema": draft, "$id": "https://kubernetes.io/api/thing/v1",
        "type": "object", "additionalProperties": false,
        "properties": {
            "apiVersion": {"enum": ["v1"]}, "kind": {"enum": ["Thing"]},
            "name": {"$ref": "/api/_definitions.json#/$defs/Name"},
            "spec": spec,
        },
    });
    std::fs::write(version.join("thing-v1.json"), kind.to_string()).unwrap();
    dir
}

fn bake_error(spec: &Json, draft: &str) -> Result<String, String> {
    let dir = schema_dir(spec, draft);
    let target = dir.path().join("out.rs");
    bake::bake(dir.path(), &target).map(|()| std::fs::read_to_string(target).unwrap())
}

#[test]
fn the_bake_refuses_what_its_validator_does_not_implement() {
    const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";
    let baked = bake_error(
        &json!({"type": "string", "description": "ok", "format": "int32"}),
        DRAFT,
    );
    assert!(
        baked
            .as_ref()
            .is_ok_and(|code| code.contains("\"v1\", \"Thing\"")),
        "{baked:?}"
    );
    for (spec, draft, needle) in [
        (
            json!({"uniqueItems": true}),
            DRAFT,
            "keyword `uniqueItems` is not supported",
        ),
        (
            json!({"type": "string"}),
            "http://json-schema.org/draft-07/schema#",
            "draft",
        ),
        (
            json!({"$ref": "https://example.com/x.json#/$defs/Name"}),
            DRAFT,
            "is not a definition",
        ),
        (
            json!({"$ref": "/api/_definitions.json#/$defs/Missing"}),
            DRAFT,
            "missing definition",
        ),
        (
            json!({"$ref": "/api/_definitions.json#/$defs/Name", "type": "string"}),
            DRAFT,
            "next to `type`",
        ),
        (json!({"pattern": "^\\d+$"}), DRAFT, "read differently"),
        (json!({"enum": [1, 2]}), DRAFT, "of strings only"),
        (
            json!({"properties": {"a": {}}}),
            DRAFT,
            "without `additionalProperties: false`",
        ),
        (
            json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false, "required": ["b"]}),
            DRAFT,
            "`properties` lacks",
        ),
        (json!({"minimum": 0.5}), DRAFT, "integer limits"),
    ] {
        let error = bake_error(&spec, draft).unwrap_err();
        assert!(error.contains(needle), "{spec}: {error}");
    }
}

#[test]
fn formats_are_annotations_under_draft_2020_12_so_times_and_int32_are_written_out() {
    for version in versions() {
        let namespace = json!({
            "apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "n", "creationTimestamp": "yesterday"},
        });
        // `date-time` is an annotation; the vendored schema writes out the
        // pattern Go's RFC 3339 reading takes, which both validators read.
        let errors = version.agree("v1", "Namespace", &namespace, "date-time");
        assert_eq!(
            (errors.iter())
                .map(|(at, _)| at.to_string())
                .collect::<Vec<_>>(),
            ["metadata.creationTimestamp"],
            "{errors:?}"
        );
        let mut namespace = namespace;
        namespace["metadata"]["creationTimestamp"] = json!("2024-02-29T1:00:00,5+24:00");
        let errors = version.agree("v1", "Namespace", &namespace, "date-time");
        assert!(errors.is_empty(), "{errors:?}");
        let deployment = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d"},
            "spec": {
                "replicas": 10_000_000_000_i64,
                "selector": {},
                "template": {"spec": {"containers": []}},
            },
        });
        // `int32` is an annotation too; the vendored schema writes out the
        // bounds the API server's decoder holds such a field to
        // (`scripts/vendor-kubernetes-schemas`), which both validators read.
        let errors = version.agree("apps/v1", "Deployment", &deployment, "int32");
        assert_eq!(
            errors
                .iter()
                .map(|(at, _)| at.to_string())
                .collect::<Vec<_>>(),
            ["spec.replicas"],
            "{errors:?}"
        );
        assert!(errors[0].1.contains("maximum of 2147483647"), "{errors:?}");
    }
}

/// Texts at the edges of the baked patterns of both tables: durations with
/// and without a unit (`µs` is two bytes), port names and numbers, label
/// values, DNS labels, quantities, a wildcard, line breaks before and after
/// (`$` is the end of the text only), non-ASCII letters and digits.
const PATTERN_TEXTS: &[&str] = &[
    "",
    "0",
    "00",
    "1",
    "1.",
    ".5",
    "1s",
    "1.5ms",
    "1.s",
    "3µs",
    "3us",
    "3μs",
    "1h30m",
    "30m1h",
    "1.5h",
    "1y2w3d",
    "1y2w3d4h5m6s7ms",
    "2d1y",
    "a",
    "A",
    "-",
    "a-b",
    "a-",
    "-a",
    "a_b.c",
    "a_b.c*",
    "a*",
    "*",
    "a b",
    "65535",
    "123456",
    "http",
    "http-metrics",
    "Http",
    "+1.5Gi",
    "-1",
    "1e3",
    "1E-3",
    "1Ki",
    "1ki",
    "é",
    "١٢",
    "1s\n",
    "\n1s",
    "a\n",
    "\na",
    "a\u{2028}",
];

/// Every pattern of `table` is matched by the DFA its build script baked,
/// and that DFA finds a match where the regex crate does.
fn agrees_with_the_regex_crate(table: &validator::Table, texts: &[&str]) {
    for (index, pattern) in table.patterns().iter().enumerate() {
        assert!(table.is_baked(index), "{pattern:?} has no baked DFA");
        let regex = regex::Regex::new(pattern).unwrap();
        for text in texts {
            let (baked, expected) = (table.is_match(index, text), regex.is_match(text));
            assert_eq!(baked, expected, "{pattern:?} on {text:?}");
        }
    }
}

/// The Kubernetes and the values tables, each pattern on the edge texts,
/// and digests of the right length, one short, one long and in capitals.
#[test]
fn baked_patterns_match_as_the_regex_crate_does() {
    let digest = format!("sha256:{}", "a".repeat(64));
    let digests = [
        digest.clone(),
        digest[1..].to_owned(),
        format!("{digest}0"),
        digest.to_uppercase(),
    ];
    let mut texts = PATTERN_TEXTS.to_vec();
    texts.extend(digests.iter().map(String::as_str));
    for table in [&KUBERNETES, &chart::schema::VALUES] {
        agrees_with_the_regex_crate(table, &texts);
    }
}

/// Every string, list and index a node of `table` holds is within its
/// pools, `properties` are sorted by name as the validator's binary search
/// needs, a key next to a declared one is not found, and each string is
/// stored once: the baker's pools are written as its nodes read them.
fn every_reference_resolves(table: &validator::Table) {
    let pools = table.tables();
    let count = table.nodes().len();
    let node_index = |index: u32| assert!((index as usize) < count, "node {index}");
    let mut strings = Vec::new();
    for node in table.nodes() {
        // Each resolves within the pool (a slice out of it panics).
        strings.extend([node.constant, node.format].into_iter().flatten());
        strings.extend(&pools.strs[node.enumeration.range()]);
        strings.extend(&pools.strs[node.required.range()]);
        let options: Vec<&str> = table.strs(node.enumeration).collect();
        let distinct: std::collections::HashSet<&str> = options.iter().copied().collect();
        assert_eq!(distinct.len(), options.len(), "{options:?}");
        let required: Vec<&str> = table.strs(node.required).collect();
        let members: Vec<(&str, u32)> = table.members(node.properties).collect();
        assert!(
            members.windows(2).all(|pair| pair[0].0 < pair[1].0),
            "{members:?}"
        );
        for (name, child) in &members {
            node_index(*child);
            assert_eq!(table.property(node, name), Some(*child));
            // A key next to a declared one, in byte order, is not one.
            for near in [
                format!("{name}\0"),
                format!("{name}~"),
                name.chars().skip(1).collect(),
            ] {
                let declared = members.iter().any(|(m, _)| *m == near);
                assert_eq!(table.property(node, &near).is_some(), declared, "{near:?}");
            }
        }
        if matches!(node.additional, Additional::Forbid) {
            assert!(required.iter().all(|r| members.iter().any(|(m, _)| m == r)));
        }
        let branches = [node.any_of, node.one_of].map(|list| table.branches(list));
        branches.concat().into_iter().for_each(node_index);
        node.items.into_iter().for_each(node_index);
        if let Additional::Node(child) = node.additional {
            node_index(child);
        }
        assert!(node.pattern.is_none_or(|p| p < table.patterns().len()));
    }
    // Each string is stored once, however many nodes name it.
    let mut stored = std::collections::HashMap::new();
    let names = pools.members.iter().map(|(name, _)| *name);
    for string in names.chain(strings) {
        let first = *stored.entry(table.text(string)).or_insert(string);
        assert_eq!(first, string, "{:?} stored twice", table.text(string));
    }
}

/// Both baked tables, the Kubernetes schemas' and the values schema's,
/// hold only references that resolve.
#[test]
fn every_reference_of_every_baked_node_resolves() {
    for table in [&KUBERNETES, &chart::schema::VALUES] {
        assert!(table.nodes().len() > 10);
        every_reference_resolves(table);
    }
}

/// The baker checks patterns with the limits the validator compiles them
/// with when a DFA does not read.
#[test]
fn the_baker_and_the_validator_share_the_pattern_limit() {
    assert_eq!(
        bake::PATTERN_SIZE_LIMIT,
        kubernetes::kube::PATTERN_SIZE_LIMIT
    );
}

proptest::proptest! {
    /// Short texts over the patterns' alphabet and a few others agree with
    /// the regex crate, in both tables.
    #[test]
    fn any_short_text_agrees_with_the_regex_crate(text in "[-0-9a-zA-Z_.*+µ é\n]{0,10}") {
        for table in [&KUBERNETES, &chart::schema::VALUES] {
            agrees_with_the_regex_crate(table, &[&text]);
        }
    }
}
