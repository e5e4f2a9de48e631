//! No value can change the structure of the output (issue 3, requirement 3):
//! arbitrary strings go through `commonAnnotations` (key and value), and the
//! render must parse back to the same objects with the string intact; so
//! must a pod annotation of the daemons (YAML inside a ConfigMap) and a
//! toleration value. Plain `cargo test` tries the first cases of each
//! sweep; `CHARTGEN_SLOW=1` (as `.ci/run` sets it) all of them.

use std::collections::BTreeMap;

use proptest::prelude::*;

use chart::model::Values;
use chart::pipeline;
use kubernetes::{manifest, yaml};

/// Strings that break naive templating, mixed with arbitrary unicode.
fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[-:#'\"|>&*!%@`{}\\[\\],?\n\r\t \u{85}\u{2028}\u{2029}\u{feff}\u{0}a-z0-9]{0,24}",
        prop::sample::select(vec![
            "yes",
            "no",
            "on",
            "off",
            "~",
            "null",
            "0123",
            "1.10",
            "1e3",
            "-",
            "---",
            "...",
            "- a",
            "a: b",
            "#c",
            "|",
            ">-",
            "*x",
            "&y",
            "!!str",
            "\"",
            "'",
            "\\",
            " ",
            "\n",
            "a\n---\nkind: Secret",
            "{a: b}",
            "[1, 2]",
            "%YAML 1.2",
        ])
        .prop_map(str::to_owned),
    ]
}

/// The annotations of every object but the CRD, which carries nothing of
/// one instance (two releases share it).
fn annotations_of(stream: &str) -> Vec<Option<BTreeMap<String, String>>> {
    let source = kubernetes::location::Source::file("render", stream);
    yaml::parse_stream(&source, manifest::LIMITS)
        .expect("the render reads back")
        .iter()
        .map(yaml::Node::to_json)
        .filter(|json| json["kind"] != "CustomResourceDefinition")
        .map(|json| serde_json::from_value(json["metadata"]["annotations"].clone()).ok())
        .collect()
}

/// A long annotation of four-byte characters makes every template's text
/// large enough to be read back in two parts (with a second core, as CI's
/// machine has), the middle byte of most of them inside a character: the
/// render reads back whole (it panicked at that byte before the split
/// looked for a line break byte by byte).
#[test]
fn a_wide_annotation_splits_no_character_in_two() {
    let mut values = Values::default();
    let wide = "\u{1d546}".repeat(12_000);
    values
        .common_annotations
        .insert("example.com/note".to_owned(), wide.clone());
    let output = pipeline::render(&values).unwrap();
    let stream = manifest::to_stream(&output.release);
    assert!(stream.len() > 12 * 48_000, "every object carries it");
    for annotations in annotations_of(&stream) {
        let annotations = annotations.expect("every object carries the common annotations");
        assert_eq!(annotations.get("example.com/note"), Some(&wide));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::tools::cases(24, 200), ..ProptestConfig::default() })]

    #[test]
    fn any_annotation_survives_the_render_unchanged(key in hostile(), value in hostile()) {
        let baseline = pipeline::render(&Values::default()).unwrap();
        let mut values = Values::default();
        values.common_annotations.insert(key.clone(), value.clone());
        let output = pipeline::render(&values).unwrap();
        prop_assert_eq!(output.release.len(), baseline.release.len());
        let ids = |o: &pipeline::Output| o.release.iter().map(|m| m.id.clone()).collect::<Vec<_>>();
        prop_assert_eq!(ids(&output), ids(&baseline));
        let stream = manifest::to_stream(&output.release);
        for annotations in annotations_of(&stream) {
            let annotations = annotations.expect("every object carries the common annotations");
            prop_assert_eq!(annotations.get(&key), Some(&value));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::tools::cases(12, 100), ..ProptestConfig::default() })]

    /// The daemons' pod template is YAML inside a ConfigMap's YAML: a
    /// hostile annotation or toleration value survives both layers, and
    /// adds no field to either.
    #[test]
    fn a_pod_setting_survives_the_render_and_the_daemon_template(key in hostile(), value in hostile()) {
        let mut values = Values::default();
        values.builds.daemon.pod.pod_annotations.insert(key.clone(), value.clone());
        values.buildd.pod.tolerations.push(k8s_openapi::api::core::v1::Toleration {
            key: Some("k".to_owned()),
            value: Some(value.clone()),
            ..Default::default()
        });
        let output = pipeline::render(&values).unwrap();
        let stream = manifest::to_stream(&output.release);
        let objects: Vec<serde_json::Value> = yaml::parse_stream(&kubernetes::location::Source::file("render", &stream), manifest::LIMITS)
            .expect("the render reads back")
            .iter()
            .map(yaml::Node::to_json)
            .collect();
        let find = |kind: &str, name: &str| {
            objects.iter().find(|o| o["kind"] == kind && o["metadata"]["name"] == name).cloned().unwrap()
        };
        let buildd = find("Deployment", "buildkit-buildd");
        prop_assert_eq!(&buildd["spec"]["template"]["spec"]["tolerations"][0]["value"], &serde_json::json!(value));
        let config = find("ConfigMap", "buildkit-daemon-pod-template");
        prop_assert_eq!(config["data"].as_object().unwrap().len(), 1);
        let text = config["data"]["pod-template.yaml"].as_str().unwrap();
        let template = yaml::parse_stream(&kubernetes::location::Source::file("template", text), manifest::LIMITS)
            .expect("the daemon template reads back")[0]
            .to_json();
        prop_assert_eq!(template.as_object().unwrap().keys().collect::<Vec<_>>(), ["metadata"]);
        prop_assert_eq!(&template["metadata"]["annotations"], &serde_json::json!({key: value}));
    }
}
