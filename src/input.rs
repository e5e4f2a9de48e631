//! Reading manifest sets that chartgen did not just render: directories,
//! multi-document files, or stdin, as `check`, `rbac` and `diff` take them.
//!
//! A `# Source: templates/<file>` comment before a document (as `render`
//! and Helm write them) is kept as the object's template, so findings can
//! name where an object came from.

use std::io::Read as _;
use std::path::Path;
use std::sync::Arc;

use crate::diagnostic::{KeyPath, Problem};
use crate::error::Error;
use crate::manifest::{self, LIMITS, Manifest};
use crate::yaml::{self, Node, Source, Value};

/// The file name of the Kyverno exemptions artifact in an output directory.
pub const EXEMPTIONS_FILE: &str = "kyverno-exemptions.yaml";

/// What a set of paths holds.
#[derive(Debug, Default)]
pub struct ManifestSet {
    /// The Kubernetes objects, in install order.
    pub manifests: Vec<Manifest>,
    /// The Kyverno exemptions artifacts the input holds (one per release).
    pub exemptions: Vec<Node>,
}

/// Reads every path: a directory (its `.yaml`/`.yml` files, recursively, in
/// name order), a file, or `-` for stdin. Every problem is collected.
pub fn read(paths: &[String]) -> Result<ManifestSet, Error> {
    if paths.iter().filter(|p| *p == "-").count() > 1 {
        return Err(Error::Usage {
            reason: "standard input (-) can be read only once".to_owned(),
        });
    }
    let mut set = ManifestSet::default();
    let mut problems = Vec::new();
    for path in paths {
        if path == "-" {
            let mut text = String::new();
            std::io::stdin()
                .lock()
                .take(LIMITS.max_bytes as u64 + 1)
                .read_to_string(&mut text)
                .map_err(|source| Error::ReadManifests {
                    path: "-".to_owned(),
                    source,
                })?;
            read_text(Source::file("<stdin>", text), &mut set, &mut problems);
            continue;
        }
        let mut files = Vec::new();
        collect_files(Path::new(path), &mut files).map_err(|source| Error::ReadManifests {
            path: path.clone(),
            source,
        })?;
        for file in files {
            let read_error = |source| Error::ReadManifests {
                path: file.display().to_string(),
                source,
            };
            let mut text = String::new();
            std::fs::File::open(&file)
                .and_then(|f| {
                    f.take(LIMITS.max_bytes as u64 + 1)
                        .read_to_string(&mut text)
                })
                .map_err(read_error)?;
            read_text(
                Source::file(file.display().to_string(), text),
                &mut set,
                &mut problems,
            );
        }
    }
    duplicates(&mut set, &mut problems);
    if !problems.is_empty() {
        return Err(Error::InvalidManifests { problems });
    }
    if set.manifests.is_empty() {
        return Err(Error::Usage {
            reason: format!("no Kubernetes objects in {}", paths.join(", ")),
        });
    }
    manifest::sort(&mut set.manifests);
    Ok(set)
}

/// Two objects with one identity: one would silently hide the other. The
/// exception is a CustomResourceDefinition that two releases both hold,
/// identical (it carries nothing of one instance): it is one object.
fn duplicates(set: &mut ManifestSet, problems: &mut Vec<Problem>) {
    let mut seen: std::collections::HashMap<crate::manifest::ObjectId, usize> =
        std::collections::HashMap::new();
    let mut shared = Vec::new();
    for (index, manifest) in set.manifests.iter().enumerate() {
        let Some(&first) = seen.get(&manifest.id) else {
            seen.insert(manifest.id.clone(), index);
            continue;
        };
        let first = &set.manifests[first];
        if manifest.id.kind == "CustomResourceDefinition"
            && manifest.node.to_json() == first.node.to_json()
        {
            shared.push(index);
            continue;
        }
        problems.push(Problem::new(
            manifest.node.origin.clone(),
            KeyPath::root(),
            format!("{} again; it is also at {}", manifest.id, first.node.origin),
        ));
    }
    for index in shared.into_iter().rev() {
        set.manifests.remove(index);
    }
}

/// Reads manifests from `text`, named `name` in messages.
pub fn parse(name: &str, text: &str) -> Result<ManifestSet, Error> {
    let mut set = ManifestSet::default();
    let mut problems = Vec::new();
    read_text(Source::file(name, text), &mut set, &mut problems);
    if !problems.is_empty() {
        return Err(Error::InvalidManifests { problems });
    }
    manifest::sort(&mut set.manifests);
    Ok(set)
}

fn collect_files(path: &Path, files: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    if !path.is_dir() {
        if !std::fs::metadata(path)?.is_file() {
            return Err(std::io::Error::other("not a regular file or directory"));
        }
        files.push(path.to_owned());
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(path)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for entry in entries {
        let is_yaml = entry
            .extension()
            .is_some_and(|ext| ext == "yaml" || ext == "yml");
        // Links to folders are not followed (a loop would repeat every
        // object); FIFOs and devices are not read.
        let kind = std::fs::symlink_metadata(&entry)?.file_type();
        if kind.is_dir() {
            collect_files(&entry, files)?;
        } else if is_yaml && std::fs::metadata(&entry).is_ok_and(|m| m.is_file()) {
            files.push(entry);
        }
    }
    Ok(())
}

/// Reads one text's documents into `set`.
fn read_text(source: Arc<Source>, set: &mut ManifestSet, problems: &mut Vec<Problem>) {
    let documents = match yaml::parse_stream(&source, LIMITS) {
        Ok(documents) => documents,
        Err(e) => {
            problems.push(Problem {
                origin: e.origin,
                path: KeyPath::root(),
                message: e.message,
                hint: e.hint,
            });
            return;
        }
    };
    let templates = source_comments(&source.text);
    let is_exemptions = source.name.ends_with(EXEMPTIONS_FILE);
    for node in documents {
        if matches!(node.value, Value::Null) {
            continue;
        }
        if is_exemptions && node.get("kind").is_none() {
            set.exemptions.push(node);
            continue;
        }
        // Kustomize's file sits beside the objects of an output directory.
        let kind = node.get("kind").map(|k| &k.value);
        if matches!(kind, Some(Value::String(k)) if k == "Kustomization") {
            continue;
        }
        match manifest::identify(&node) {
            Ok(id) => {
                let line = manifest::line_of(&node.origin);
                let template = templates
                    .iter()
                    .rev()
                    .find(|(start, _)| *start <= line)
                    .and_then(|(_, template)| template.clone());
                set.manifests.push(Manifest {
                    id,
                    template,
                    file: Some(source.name.clone()),
                    trace: None,
                    node,
                });
            }
            Err(why) => problems.push(
                Problem::new(
                    node.origin.clone(),
                    KeyPath::root(),
                    format!("not a Kubernetes object: a document {why}"),
                )
                .with_hint("every document needs apiVersion, kind and metadata.name"),
            ),
        }
    }
}

/// For each document start (`---` line, and line 1), the template named by
/// a `# Source:` comment within that document's leading comment lines.
fn source_comments(text: &str) -> Vec<(usize, Option<String>)> {
    let mut starts = vec![(1, None)];
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line == "---" || line.starts_with("--- ") {
            starts.push((number, None));
        } else if let Some(template) = line.strip_prefix("# Source: ")
            && let Some(last) = starts.last_mut()
        {
            let template = template.strip_prefix("templates/").unwrap_or(template);
            // Helm writes `# Source: <chart>/templates/<file>`.
            let template = template
                .split_once("/templates/")
                .map_or(template, |(_, t)| t);
            last.1 = Some(template.to_owned());
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_comments_follow_document_starts() {
        let text = "---\n# Source: templates/a.yaml\nkind: A\n---\n# Source: chart/templates/b.yaml\nkind: B\n---\nkind: C\n";
        assert_eq!(
            source_comments(text),
            [
                (1, None),
                (1, Some("a.yaml".to_owned())),
                (4, Some("b.yaml".to_owned())),
                (7, None)
            ]
        );
    }
}
