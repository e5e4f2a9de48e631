//! `check --output sarif`: the report as a SARIF 2.1.0 log, for code
//! scanning (GitHub, GitLab, editors' SARIF viewers).
//!
//! One run; `tool.driver.rules` holds every rule of `check`
//! ([`RULES`]) with its title, help text and
//! example; each finding is a result at `error` level with its rule's id
//! and index, its message and, when it was read from a file of the working
//! tree, that file (relative to the directory `check` ran in, base id
//! `SRCROOT`, or an absolute `file:` URI), line and column. Decisions
//! (`docs/output.md` says them to users):
//!
//! - No `helpUri`: a rule's link (`docs/checks.md#r1`) is relative to
//!   chartgen's own sources, which the log's reader need not have, and SARIF
//!   wants an absolute URI there; the link is in the help text instead.
//! - A finding about an object read from standard input or from a git
//!   revision (`REV:PATH`) has no file of the working tree: its location is
//!   logical only (the object), with where it was read as its message, so
//!   no viewer opens a file that is not the one checked.
//! - What `check` could not verify (its `info` notes) are no results: they
//!   fail nothing and name no file, so they are the invocation's
//!   `toolExecutionNotifications` at `note` level.
//! - Every text from the input (messages, objects, key paths, file names)
//!   is escaped as on a terminal ([`printable`]), and findings keep the
//!   masking of possible Secrets that `check` applied.

use std::path::{Component, Path, PathBuf};

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_encode};
use serde_json::{Value as Json, json};

use chart::check::CheckReport;
use chart::check::rules::RULES;
use kubernetes::diagnostic::{Diagnostic, Rule};
use kubernetes::location::Location;
use kubernetes::text::printable;

/// The base id of relative artifact URIs: the directory `check` ran in.
pub const SRCROOT: &str = "SRCROOT";

/// What a URI path keeps unescaped: RFC 3986's unreserved characters and
/// the path separator.
const PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// The real path of the file messages name (escaped) as the argument,
/// when one was read ([`kubernetes::input::ManifestSet::real_path`]).
pub type RealPath<'a> = &'a dyn Fn(&str) -> Option<PathBuf>;

/// The SARIF log of `report`. `local` lists the arguments read from the
/// working tree (not `-`, not `REV:PATH`): a finding's file beneath one of
/// them is an artifact, its URI made of the file's real path (`real`),
/// byte for byte, not of the escaped name messages show; `cwd` is the
/// directory relative paths start from.
pub fn log(report: &CheckReport, local: &[&str], cwd: Option<&Path>, real: RealPath<'_>) -> Json {
    let results: Vec<Json> = report
        .findings
        .iter()
        .map(|finding| result(finding, local, real))
        .collect();
    let notes: Vec<Json> = report.info.iter().map(notification).collect();
    let base = match cwd {
        Some(dir) => json!({"uri": format!("{}/", file_uri(dir).trim_end_matches('/'))}),
        None => json!({"description": {"text": "the directory chartgen check ran in"}}),
    };
    json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver()},
            "originalUriBaseIds": {SRCROOT: base},
            "invocations": [{
                "executionSuccessful": true,
                "toolExecutionNotifications": notes,
            }],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// chartgen and every rule of `check`.
fn driver() -> Json {
    let rules: Vec<Json> = RULES.iter().copied().map(rule).collect();
    json!({
        "name": "chartgen",
        "version": env!("CARGO_PKG_VERSION"),
        "semanticVersion": env!("CARGO_PKG_VERSION"),
        "rules": rules,
    })
}

/// One rule as a SARIF reporting descriptor.
fn rule(rule: &Rule) -> Json {
    let link = rule.link();
    let text = format!(
        "{}\n\nExample:\n  {}\n\nSee {link} in chartgen's repository.",
        rule.help, rule.example
    );
    let markdown = format!(
        "{}\n\nExample:\n\n```text\n{}\n```\n\nSee `{link}` in chartgen's repository.",
        rule.help, rule.example
    );
    json!({
        "id": rule.id,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.help},
        "help": {"text": text, "markdown": markdown},
        "defaultConfiguration": {"level": "error"},
        "properties": {"doc": link},
    })
}

/// One finding as a SARIF result.
fn result(finding: &Diagnostic, local: &[&str], real: RealPath<'_>) -> Json {
    let mut result = serde_json::Map::new();
    if let Some(rule) = finding.rule {
        result.insert("ruleId".to_owned(), rule.id.into());
        if let Some(index) = RULES.iter().position(|r| r.id == rule.id) {
            result.insert("ruleIndex".to_owned(), index.into());
        }
    }
    result.insert("level".to_owned(), "error".into());
    result.insert("message".to_owned(), json!({"text": message(finding)}));
    result.insert(
        "locations".to_owned(),
        json!([location(finding, local, real)]),
    );
    if let Some(subject) = finding.subject.as_deref() {
        let mut properties = json!({
            "object": printable(&subject.object),
            "path": printable(&finding.path.to_string()),
        });
        if let Some(template) = &subject.template {
            properties["template"] = printable(template).into();
        }
        result.insert("properties".to_owned(), properties);
    }
    result.into()
}

/// `Kind ns/name key.path: message`, then the hint, escaped.
fn message(finding: &Diagnostic) -> String {
    let mut text = match finding.object() {
        Some(object) if finding.path.is_root() => format!("{object}: {}", finding.message),
        Some(object) => format!("{object} {}: {}", finding.path, finding.message),
        None => finding.message.clone(),
    };
    if let Some(hint) = &finding.hint {
        text.push_str(" (hint: ");
        text.push_str(hint);
        text.push(')');
    }
    printable(&text).into_owned()
}

/// The finding's file, line and column when it has a file of the working
/// tree; the object, as a logical location, always.
fn location(finding: &Diagnostic, local: &[&str], real: RealPath<'_>) -> Json {
    let mut location = serde_json::Map::new();
    let place = finding.location();
    match place
        .as_ref()
        .and_then(|place| artifact(place, local, real))
    {
        Some(artifact) => {
            let place = place.as_ref().expect("an artifact comes from a place");
            let mut region = json!({"startLine": place.line.unwrap_or(1)});
            if let Some(column) = place.column {
                region["startColumn"] = column.into();
            }
            let physical = json!({"artifactLocation": artifact, "region": region});
            location.insert("physicalLocation".to_owned(), physical);
        }
        None => {
            if let Some(place) = &place {
                let text = format!("read at {}", printable(&place.to_string()));
                location.insert("message".to_owned(), json!({"text": text}));
            }
        }
    }
    if let Some(object) = finding.object() {
        let logical = json!([{"fullyQualifiedName": printable(object), "kind": "resource"}]);
        location.insert("logicalLocations".to_owned(), logical);
    }
    location.into()
}

/// The artifact location of `place`'s file, when it lies beneath one of
/// the `local` arguments: relative to [`SRCROOT`], or an absolute `file:`
/// URI; of the file's real path when `real` knows it (a name with a
/// control character or bytes that are not UTF-8 is shown escaped, but
/// its URI is its bytes, percent-encoded).
fn artifact(place: &Location, local: &[&str], real: RealPath<'_>) -> Option<Json> {
    let shown = Path::new(&place.file);
    if !local.iter().any(|arg| shown.starts_with(arg)) {
        return None;
    }
    let found = real(&place.file);
    let path = found.as_deref().unwrap_or(shown);
    if path.is_absolute() {
        return Some(json!({"uri": file_uri(path)}));
    }
    let parts: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::CurDir => None,
            Component::ParentDir => Some("..".to_owned()),
            other => Some(encode(other.as_os_str())),
        })
        .collect();
    Some(json!({"uri": parts.join("/"), "uriBaseId": SRCROOT}))
}

/// `file://` and the absolute `path`, its bytes percent-encoded.
fn file_uri(path: &Path) -> String {
    format!("file://{}", encode(path.as_os_str()))
}

/// A path's bytes, as the file system has them, percent-encoded (RFC
/// 3986: all but the unreserved characters and `/`).
fn encode(path: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt as _;
    percent_encode(path.as_bytes(), PATH).to_string()
}

/// A note of `check` as a tool execution notification.
fn notification(note: &Diagnostic) -> Json {
    let text = match note.object() {
        Some(subject) => format!("{subject}: {}", note.message),
        None => note.message.clone(),
    };
    let mut notification = json!({"level": "note", "message": {"text": printable(&text)}});
    if let Some(subject) = note.object() {
        notification["locations"] = json!([{"logicalLocations": [{"fullyQualifiedName": printable(subject), "kind": "resource"}]}]);
    }
    notification
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubernetes::diagnostic::About;
    use kubernetes::location::Source;
    use kubernetes::location::{KeyPath, Origin};

    fn finding(file: &str) -> Diagnostic {
        let origin = Origin::At {
            source: Source::file(file, ""),
            line: 7,
            col: 3,
            width: 1,
        };
        let subject = About {
            object: "Role a/b\u{1b}[2J\u{202e}".to_owned(),
            template: None,
            rendered_at: None,
        };
        let path = KeyPath::root().key("rules").index(0);
        Diagnostic::finding(RULES[0], subject, origin, path, "bad\nline")
    }

    #[test]
    fn a_file_of_the_working_tree_is_relative_to_srcroot_and_encoded() {
        let location = location(&finding("./out/a b#.yaml"), &["./out"], &|_| None);
        assert_eq!(
            location["physicalLocation"]["artifactLocation"],
            json!({"uri": "out/a%20b%23.yaml", "uriBaseId": "SRCROOT"})
        );
        assert_eq!(
            location["physicalLocation"]["region"],
            json!({"startLine": 7, "startColumn": 3})
        );
        let absolute = location_of("/tmp/x y/m.yaml", &["/tmp/x y"]);
        assert_eq!(absolute, json!({"uri": "file:///tmp/x%20y/m.yaml"}));
    }

    fn location_of(file: &str, local: &[&str]) -> Json {
        location(&finding(file), local, &|_| None)["physicalLocation"]["artifactLocation"].clone()
    }

    /// A file whose name messages show escaped: its URI is its real bytes.
    #[test]
    fn the_uri_is_the_real_file_not_its_escaped_name() {
        use std::os::unix::ffi::OsStrExt as _;
        let shown = "out/n\u{fffd}x\\u{001b}.yaml";
        let real = Path::new(std::ffi::OsStr::from_bytes(b"out/n\xffx\x1b.yaml")).to_path_buf();
        let lookup = |name: &str| (name == shown).then(|| real.clone());
        let location = location(&finding(shown), &["out"], &lookup);
        assert_eq!(
            location["physicalLocation"]["artifactLocation"],
            json!({"uri": "out/n%FFx%1B.yaml", "uriBaseId": "SRCROOT"})
        );
    }

    #[test]
    fn stdin_and_revisions_have_only_a_logical_location() {
        for (file, local) in [("<stdin>", &[][..]), ("HEAD:out/m.yaml", &["out"][..])] {
            let location = location(&finding(file), local, &|_| None);
            assert!(location.get("physicalLocation").is_none(), "{location}");
            assert_eq!(location["message"]["text"], format!("read at {file}:7"));
            assert_eq!(
                location["logicalLocations"][0]["fullyQualifiedName"],
                "Role a/b\\u{001b}[2J\\u{202e}"
            );
        }
    }

    #[test]
    fn messages_are_escaped() {
        let text = message(&finding("m.yaml"));
        assert_eq!(
            text,
            "Role a/b\\u{001b}[2J\\u{202e} rules[0]: bad\\u{000a}line"
        );
    }
}
