//! Digests and the tags they were pinned with, across values layers.
//!
//! An image's `digest` decides what the kubelet pulls; its `tag` only
//! names it. A digest pinned in one layer (`-f prod.yaml`) and a tag
//! changed in a later one (`--set images.buildd.tag=0.5.0`) would render
//! `repo:0.5.0@sha256:<the old image>`: the new tag on the label, the old
//! image on the nodes. [`Pins`] watches each layer and refuses that pair,
//! naming where the digest and where the tag were written.
//!
//! A layer is one `-f` file, or all the `--set` arguments together (the
//! command line is written at once). The same layer setting both is fine,
//! and so is a digest set in a later layer than its tag: the digest was
//! chosen knowing the tag.

use std::collections::BTreeMap;

use kubernetes::location::KeyPath;

use kubernetes::diagnostic::Problem;
use kubernetes::location::Origin;
use kubernetes::yaml::{Node, Value};

/// Per image (its key under `images`), the digest's origin as last seen
/// and the tag the merged document held when a layer last wrote it.
#[derive(Debug, Default)]
pub struct Pins {
    seen: BTreeMap<String, Pin>,
}

#[derive(Debug)]
struct Pin {
    digest: Origin,
    tag: Option<Value>,
}

impl Pins {
    /// Records, after a layer was merged into `document`, the tag of every
    /// image whose digest that layer wrote (or the first time an image is
    /// seen: the defaults).
    pub fn observe(&mut self, document: &Node) {
        let Some(Value::Mapping(images)) = document.at(&images()).map(|n| &n.value) else {
            return;
        };
        for (key, image) in images {
            let digest = field(image, "digest").map_or(Origin::Default, |n| n.origin.clone());
            let tag = field(image, "tag").map(|n| n.value.clone());
            match self.seen.get_mut(&key.name) {
                Some(pin) if pin.digest == digest => {}
                Some(pin) => *pin = Pin { digest, tag },
                None => {
                    self.seen.insert(key.name.clone(), Pin { digest, tag });
                }
            }
        }
    }

    /// A problem for every image whose digest is set and whose tag is not
    /// the one it was pinned with, at the tag, naming the digest's origin.
    pub fn problems(&self, document: &Node) -> Vec<Problem> {
        let mut problems = Vec::new();
        for (key, pin) in &self.seen {
            let path = images().key(key.clone());
            let Some(image) = document.at(&path) else {
                continue;
            };
            let (Some(digest), Some(tag)) = (field(image, "digest"), field(image, "tag")) else {
                continue;
            };
            if matches!(digest.value, Value::Null) || pin.tag.as_ref() == Some(&tag.value) {
                continue;
            }
            problems.push(mismatch(key, &pin.tag, digest, tag));
        }
        problems
    }
}

/// The problem of `images.<key>`: `tag` written after `digest`, which was
/// pinned while the tag was `pinned_with`.
fn mismatch(key: &str, pinned_with: &Option<Value>, digest: &Node, tag: &Node) -> Problem {
    let shown = |value: &Value| match value {
        Value::String(text) => format!("`{text}`"),
        other => format!("a {}", other.type_name()),
    };
    let old = pinned_with
        .as_ref()
        .map_or_else(|| "no tag".to_owned(), shown);
    let message = format!(
        "the tag becomes {new} here, but images.{key}.digest, pinned at {at} with tag {old}, is not set again: the kubelet would pull the pinned image, not {new}",
        new = shown(&tag.value),
        at = digest.origin,
    );
    let hint = format!(
        "set images.{key}.tag and images.{key}.digest together (in one values file, or both with --set), or drop the digest where the tag changes: `digest: null` in that file, `--set images.{key}.digest=null` on the command line"
    );
    Problem::new(tag.origin.clone(), images().key(key).key("tag"), message).with_hint(hint)
}

fn images() -> KeyPath {
    KeyPath::dotted("images")
}

/// The value of `key` in mapping `node`.
fn field<'n>(node: &'n Node, key: &str) -> Option<&'n Node> {
    match &node.value {
        Value::Mapping(entries) => entries.iter().find(|(k, _)| k.name == key).map(|(_, v)| v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{defaults, merge};
    use kubernetes::location::Source;
    use kubernetes::yaml::Limits;

    /// The problems' paths after merging `layers` over the defaults, each
    /// layer one file.
    fn after(layers: &[&str]) -> Vec<String> {
        let mut document = defaults();
        let mut pins = Pins::default();
        pins.observe(&document);
        for (i, text) in layers.iter().enumerate() {
            let source = Source::file(format!("{i}.yaml"), *text);
            let layer = kubernetes::yaml::parse_document(&source, Limits::VALUES)
                .unwrap()
                .unwrap();
            assert!(merge(&mut document, layer).is_empty());
            pins.observe(&document);
        }
        pins.problems(&document)
            .into_iter()
            .map(|p| format!("{}: {}", p.origin, p.path))
            .collect()
    }

    const PIN: &str = "images: {buildd: {digest: 'sha256:0000000000000000000000000000000000000000000000000000000000000000'}}";

    #[test]
    fn a_tag_changed_after_its_digest_is_refused_at_the_tag() {
        assert_eq!(
            after(&[PIN, "images: {buildd: {tag: '0.5.0'}}"]),
            ["1.yaml:1:24: images.buildd.tag"]
        );
    }

    #[test]
    fn a_pair_written_together_or_restated_or_dropped_is_fine() {
        // The digest later than the tag; the digest set again with the tag.
        assert!(after(&["images: {buildd: {tag: '0.5.0'}}", PIN]).is_empty());
        let both = "images: {buildd: {tag: '0.6.0', digest: 'sha256:1111111111111111111111111111111111111111111111111111111111111111'}}";
        assert!(after(&[PIN, "images: {buildd: {tag: '0.5.0'}}", both]).is_empty());
        // The tag restated with the value it was pinned with, or changed
        // and changed back.
        assert!(after(&[PIN, "images: {buildd: {tag: '0.4.0'}}"]).is_empty());
        assert!(
            after(&[
                PIN,
                "images: {buildd: {tag: '0.5.0'}}",
                "images: {buildd: {tag: '0.4.0'}}"
            ])
            .is_empty()
        );
        // The digest dropped where the tag changes.
        assert!(after(&[PIN, "images: {buildd: {tag: '0.5.0', digest: null}}"]).is_empty());
    }
}
