//! Upgrades touch only what they must (issue 11, part 1): bumping one
//! image's tag or digest in production changes the workloads that run that
//! image and no other rendered file, and only their pod template and version
//! label; a digest pinned in one layer never silently outlives a tag changed
//! in a later one.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value as Json;

use kubernetes::yaml;

use kubernetes::location::Source;

use crate::harness::{below, chartgen};

const PROD: &str = "values/ovh-prod.yaml";
const VERSION: &str = "app.kubernetes.io/version";
const BUILDD: &str = "release/buildkit-operator/deployment-buildkit-buildd.yaml";
const GATEWAY: &str = "release/buildkit-operator/deployment-buildkit-gateway.yaml";
const KATA_DEPLOY: &str = "kata/buildkit-system/daemonset-buildkit-kata-deploy.yaml";
const VCPU_TUNE: &str = "kata/buildkit-system/daemonset-buildkit-kata-clh-vcpu-tune.yaml";
const DIGEST: &str = "sha256:1111111111111111111111111111111111111111111111111111111111111111";

/// Renders prod with `sets` into a fresh directory: each file's path
/// (relative, with `/`) and text.
fn render_prod(sets: &[String]) -> BTreeMap<String, String> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("prod");
    let mut args = vec!["render".to_owned(), "-f".to_owned(), PROD.to_owned()];
    for set in sets {
        args.extend(["--set".to_owned(), set.clone()]);
    }
    args.extend(["--output-dir".to_owned(), out.display().to_string()]);
    let run = chartgen(&args);
    assert_eq!(run.code, 0, "{args:?}\n{}", run.stderr);
    (kubernetes::files::walk(&out).map(Result::unwrap))
        .filter(|entry| !entry.file_type().is_dir())
        .map(|entry| {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            (below(&out, entry.path()), text)
        })
        .collect()
}

/// The files added, removed or changed between two renders.
fn changed(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Vec<String> {
    let names: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    names
        .into_iter()
        .filter(|name| before.get(*name) != after.get(*name))
        .cloned()
        .collect()
}

/// The one object of a rendered file, as JSON.
fn object(text: &str) -> Json {
    let nodes = yaml::parse_stream(&Source::file("file", text), kubernetes::manifest::LIMITS)
        .expect("a rendered file reads back");
    assert_eq!(nodes.len(), 1, "one object per file");
    nodes[0].to_json()
}

/// `object` without its pod template and its version label: what must
/// stay the same when only its image changes.
fn outside_the_pod_template(mut object: Json) -> Json {
    object["spec"].as_object_mut().unwrap().remove("template");
    object["metadata"]["labels"]
        .as_object_mut()
        .unwrap()
        .remove(VERSION);
    object
}

/// One bump: what it sets, the files it may change, and the version label
/// those workloads then carry (none when their own image is unchanged).
struct Bump {
    what: &'static str,
    sets: Vec<String>,
    changes: &'static [&'static str],
    version: Option<&'static str>,
}

fn bump(what: &'static str, sets: &[&str], changes: &'static [&'static str]) -> Bump {
    Bump {
        what,
        sets: sets.iter().map(|s| (*s).to_owned()).collect(),
        changes,
        version: None,
    }
}

/// Every image in `images` bumped in turn, with the digest handled, and
/// digest-only bumps. buildd runs the build daemons by image reference
/// (`--daemon-image`), so it is the workload that runs buildkitd.
fn bumps() -> Vec<Bump> {
    let with_version = |mut b: Bump, version| {
        b.version = Some(version);
        b
    };
    vec![
        with_version(
            bump(
                "buildd: tag and digest",
                &[
                    "images.buildd.tag=0.5.0",
                    &format!("images.buildd.digest={DIGEST}"),
                ],
                &[BUILDD],
            ),
            "0.5.0",
        ),
        with_version(
            bump(
                "buildd: tag, digest dropped",
                &["images.buildd.tag=0.5.0", "images.buildd.digest=null"],
                &[BUILDD],
            ),
            "0.5.0",
        ),
        with_version(
            bump(
                "gateway: tag, digest dropped",
                &["images.gateway.tag=0.5.0", "images.gateway.digest=null"],
                &[GATEWAY],
            ),
            "0.5.0",
        ),
        bump(
            "buildkitd: tag",
            &["images.buildkitd.tag=v0.27.0-rootless"],
            &[BUILDD],
        ),
        // The Kata images are pinned in prod (they run as root on every
        // Kata node): a bump sets the tag and its digest together.
        with_version(
            bump(
                "kataDeploy: tag and digest",
                &[
                    "images.kataDeploy.tag=4.2.0",
                    &format!("images.kataDeploy.digest={DIGEST}"),
                ],
                &[KATA_DEPLOY],
            ),
            "4.2.0",
        ),
        with_version(
            bump(
                "vcpuTune: tag and digest",
                &[
                    "images.vcpuTune.tag=0.5.0",
                    &format!("images.vcpuTune.digest={DIGEST}"),
                ],
                &[VCPU_TUNE],
            ),
            "0.5.0",
        ),
        with_version(
            bump(
                "kataDeploy: tag, digest dropped",
                &[
                    "images.kataDeploy.tag=4.2.0",
                    "images.kataDeploy.digest=null",
                ],
                &[KATA_DEPLOY],
            ),
            "4.2.0",
        ),
        bump(
            "kataDeploy: digest only",
            &[&format!("images.kataDeploy.digest={DIGEST}")],
            &[KATA_DEPLOY],
        ),
        bump(
            "buildd: digest only",
            &[&format!("images.buildd.digest={DIGEST}")],
            &[BUILDD],
        ),
        bump(
            "gateway: digest only",
            &[&format!("images.gateway.digest={DIGEST}")],
            &[GATEWAY],
        ),
        bump(
            "buildkitd: digest only",
            &[&format!("images.buildkitd.digest={DIGEST}")],
            &[BUILDD],
        ),
    ]
}

#[test]
fn bumping_one_image_changes_only_the_workloads_that_run_it() {
    let before = render_prod(&[]);
    for bump in bumps() {
        let after = render_prod(&bump.sets);
        assert_eq!(changed(&before, &after), bump.changes, "{}", bump.what);
        for file in bump.changes {
            let (old, new) = (object(&before[*file]), object(&after[*file]));
            assert_ne!(
                old["spec"]["template"], new["spec"]["template"],
                "{}: {file} rolls",
                bump.what
            );
            let old_version = &old["metadata"]["labels"][VERSION];
            let version = bump.version.map_or(old_version.clone(), Json::from);
            assert_eq!(new["metadata"]["labels"][VERSION], version, "{}", bump.what);
            let pod = &new["spec"]["template"]["metadata"]["labels"][VERSION];
            assert_eq!(*pod, version, "{}: {file}'s pods", bump.what);
            assert_eq!(
                outside_the_pod_template(old),
                outside_the_pod_template(new),
                "{}: {file} changes only in its pod template and version",
                bump.what
            );
        }
    }
}

#[test]
fn the_bumps_cover_every_image() {
    let defaults = chart::values::defaults().to_json();
    let images: BTreeSet<&str> = defaults["images"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let bumps = bumps();
    let bumped: BTreeSet<&str> = bumps
        .iter()
        .flat_map(|b| b.sets.iter())
        .filter_map(|set| set.strip_prefix("images.")?.split_once(".tag="))
        .map(|(image, _)| image)
        .collect();
    assert_eq!(bumped, images, "every image's tag is bumped");
}

#[test]
fn only_workloads_carry_a_version_label() {
    let files = render_prod(&[]);
    let versioned: BTreeSet<&str> = files
        .iter()
        .filter(|(_, text)| text.contains(VERSION))
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(
        versioned,
        BTreeSet::from([BUILDD, GATEWAY, KATA_DEPLOY, VCPU_TUNE])
    );
}

/// A tag changed over a pinned digest is refused by `render` too, and
/// nothing is written.
#[test]
fn a_tag_over_a_pinned_digest_renders_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("prod");
    let out_arg = out.display().to_string();
    let run = chartgen(&[
        "render",
        "-f",
        PROD,
        "--set",
        "images.buildd.tag=0.5.0",
        "--output-dir",
        &out_arg,
    ]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert!(!out.exists(), "nothing is written");
    assert_eq!(
        run.stderr.lines().next().unwrap(),
        // A set flag's value is never quoted: the tag is named by its key.
        "error: --set images.buildd.tag=…: images.buildd.tag: the tag becomes `…` here, \
         but images.buildd.digest, pinned at values/ovh-prod.yaml:21:13 with tag `0.4.0`, is not \
         set again: the kubelet would pull the pinned image, not `…`"
    );
}

/// The refusal quotes the tag the user wrote in a file; a terminal escape
/// in it is shown escaped, never sent to the terminal. Given with a set
/// flag, the tag is not quoted at all.
#[test]
fn a_hostile_tag_over_a_pinned_digest_is_quoted_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let later = tmp.path().join("later.yaml");
    std::fs::write(&later, "images:\n  gateway:\n    tag: \"x\\e[2Jy\"\n").unwrap();
    let run = chartgen(&["validate", "-f", PROD, "-f", later.to_str().unwrap()]);
    run.assert_refused(
        2,
        "images.gateway.tag: the tag becomes `x\\u{001b}[2Jy` here, but images.gateway.digest, \
         pinned at values/ovh-prod.yaml:25:13 with tag `0.4.0`",
    );
    run.assert_stderr_lacks("\u{1b}");
    let run = chartgen(&[
        "validate",
        "-f",
        PROD,
        "--set",
        "images.gateway.tag=x\u{1b}[2Jy",
    ]);
    run.assert_refused(2, "images.gateway.tag: the tag becomes `…` here");
    run.assert_stderr_lacks("\u{1b}");
    run.assert_stderr_lacks("2Jy");
}
