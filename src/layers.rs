//! The bottom of the house, checked: the modules every other one builds
//! on, in layers (ARCHITECTURE.md, "Layers"). A module of a layer may use
//! only modules of lower layers, so there is no dependency cycle among
//! them; modules not listed sit above all of these and may use any.

use std::collections::BTreeMap;
use std::path::Path;

/// The layers, lowest first.
const LAYERS: &[&[&str]] = &[
    // Text safety, name rules, Secrets, exit codes: nothing of the crate.
    &["text", "names", "secret", "exit"],
    // Where things are: sources, origins, key paths.
    &["location"],
    // The one diagnostic type.
    &["diagnostic"],
    // Positioned YAML; opening files.
    &["yaml", "files"],
    // YAML writing; the user-facing error.
    &["emit", "error"],
    // Printing errors.
    &["report"],
];

/// Every `crate::NAME` a Rust text refers to, `use crate::{a, b}` included;
/// comments (a doc link is no dependency) left out.
fn uses(text: &str) -> Vec<String> {
    let code: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect();
    let text = code.join("\n");
    let regex = regex::Regex::new(r"crate::(\{[^}]*\}|[a-z_]+)").expect("a valid regex");
    let word = regex::Regex::new(r"(?:^|[{,\s])([a-z_]+)(?:::|[,}\s]|$)").expect("a valid regex");
    let mut names = Vec::new();
    for found in regex.captures_iter(&text) {
        let target = &found[1];
        if target.starts_with('{') {
            // Only the first name of each item: `{a::X, b}` uses a and b.
            for item in target.trim_matches(['{', '}']).split(',') {
                if let Some(name) = word.captures(item.trim()) {
                    names.push(name[1].to_owned());
                }
            }
        } else {
            names.push(target.to_owned());
        }
    }
    names
}

/// The top-level module a file of `src/` belongs to.
fn module_of(relative: &Path) -> String {
    let first = relative.components().next().expect("a path under src/");
    let first = first.as_os_str().to_string_lossy();
    first.trim_end_matches(".rs").to_owned()
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn lower_modules_never_use_higher_ones() {
    let layer: BTreeMap<&str, usize> = LAYERS
        .iter()
        .enumerate()
        .flat_map(|(i, names)| names.iter().map(move |name| (*name, i)))
        .collect();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut broken = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).expect("under src/");
        let module = module_of(relative);
        let Some(&own) = layer.get(module.as_str()) else {
            continue;
        };
        let text = std::fs::read_to_string(file).expect("a readable source file");
        for used in uses(&text) {
            if used == module {
                continue;
            }
            match layer.get(used.as_str()) {
                Some(&other) if other < own => {}
                _ => broken.push(format!("{} uses crate::{used}", relative.display())),
            }
        }
    }
    assert!(files.len() > 20, "src/ was not found");
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
}

#[test]
fn the_check_sees_every_form_of_use() {
    let text =
        "use crate::yaml::Node;\nuse crate::{check, input::Set};\nlet x = crate::emit::block(n);";
    assert_eq!(uses(text), ["yaml", "check", "input", "emit"]);
}
