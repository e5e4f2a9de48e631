//! The house, checked (ARCHITECTURE.md, "Layout" and "Layers").
//!
//! The folders: the base (the top-level modules of `src/`) < `kubernetes/`
//! (generic, usable on any manifests) < `chart/` (the buildkit operator) <
//! `cli/` (the command line). A file may use only its own folder and lower
//! ones, whether it names a module by its folder (`crate::chart::plan`) or
//! by the short path `src/lib.rs` re-exports (`crate::plan`): each
//! re-exported name is mapped to its folder by reading `src/lib.rs`.
//!
//! The bottom modules, in layers: a module of a layer may use only modules
//! of lower layers, so there is no dependency cycle among them; modules not
//! listed sit above all of these and may use any.

use std::collections::BTreeMap;
use std::path::Path;

/// The layers, lowest first.
const LAYERS: &[&[&str]] = &[
    // Text safety, name rules, Secrets, exit codes, the terminal's colour
    // and --quiet: nothing of the crate.
    &["text", "names", "secret", "exit", "terminal"],
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

/// The folders, lowest first; the base is every other top-level module.
const FOLDERS: &[&str] = &["base", "kubernetes", "chart", "cli"];

/// A Rust text without its comments (a doc link is no dependency).
fn code(text: &str) -> String {
    let code: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect();
    code.join("\n")
}

/// Every `crate::NAME` a Rust text refers to, `use crate::{a, b}` included;
/// through a folder, both (`crate::kubernetes::yaml` uses `kubernetes` and
/// `yaml`); comments left out.
fn uses(text: &str) -> Vec<String> {
    let text = code(text);
    let regex = regex::Regex::new(r"crate::(?:(kubernetes|chart|cli)::)?(\{[^}]*\}|[a-z_]+)")
        .expect("a valid regex");
    let word = regex::Regex::new(r"(?:^|[{,\s])([a-z_]+)(?:::|[,}\s]|$)").expect("a valid regex");
    let mut names = Vec::new();
    for found in regex.captures_iter(&text) {
        if let Some(folder) = found.get(1) {
            names.push(folder.as_str().to_owned());
        }
        let target = &found[2];
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

/// The module a file of `src/` belongs to: its top-level module, or the
/// module under its folder (`kubernetes/yaml/dialects.rs` is `yaml`).
fn module_of(relative: &Path) -> String {
    let mut names = relative.components().map(|c| {
        c.as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned()
    });
    let first = names.next().expect("a path under src/");
    match names.next() {
        Some(second) if FOLDERS.contains(&first.as_str()) && second != "mod" => second,
        _ => first,
    }
}

/// The folder of each module name `src/lib.rs` re-exports
/// (`pub use chart::{check, plan};`), and each folder's own name.
fn folders(lib: &str) -> BTreeMap<String, &'static str> {
    let regex =
        regex::Regex::new(r"pub use ([a-z_]+)::(\{[^}]*\}|[a-z_]+);").expect("a valid regex");
    let mut folder = BTreeMap::new();
    for found in regex.captures_iter(lib) {
        let Some(&name) = FOLDERS[1..].iter().find(|f| **f == &found[1]) else {
            continue;
        };
        for module in found[2].trim_matches(['{', '}']).split(',') {
            folder.insert(module.trim().to_owned(), name);
        }
    }
    for name in &FOLDERS[1..] {
        folder.insert((*name).to_owned(), *name);
    }
    folder
}

/// The folder a file of `src/` is in (a module at the top is the base).
fn folder_of(relative: &Path, folder: &BTreeMap<String, &'static str>) -> &'static str {
    let first = relative.components().next().expect("a path under src/");
    let first = first.as_os_str().to_string_lossy();
    let name = first.trim_end_matches(".rs");
    folder.get(name).copied().unwrap_or(FOLDERS[0])
}

/// Every name a `super::` path reaches at the crate root from a file
/// `depth` modules deep (`super::super::plan` from `kubernetes/yaml.rs`):
/// a folder cannot be left that way either.
fn root_uses_through_super(text: &str, depth: usize) -> Vec<String> {
    let regex = regex::Regex::new(r"((?:super::)+)([a-z_]+)").expect("a valid regex");
    regex
        .captures_iter(text)
        .filter(|found| found[1].len() / "super::".len() >= depth)
        .map(|found| found[2].to_owned())
        .collect()
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

/// The files under `src/` whose uses are read, with their path relative to
/// it; the crate root and this file (its tests quote uses) left out.
fn sources() -> (std::path::PathBuf, Vec<std::path::PathBuf>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.retain(|file| {
        let relative = file.strip_prefix(&src).expect("under src/");
        !["lib.rs", "main.rs", "layers.rs"].contains(&relative.to_str().unwrap_or_default())
    });
    assert!(files.len() > 20, "src/ was not found");
    (src, files)
}

/// Every use of a higher folder by a file of `src/`, as `file uses name`.
fn folder_breaks(lib: &str, files: &[(String, String)]) -> Vec<String> {
    let folder = folders(lib);
    let rank = |name: &str| FOLDERS.iter().position(|f| *f == name).expect("a folder");
    let mut broken = Vec::new();
    for (relative, text) in files {
        let own = folder_of(Path::new(relative), &folder);
        let path = Path::new(relative);
        let depth = path.components().count() - usize::from(path.ends_with("mod.rs"));
        let mut used = uses(text);
        used.extend(root_uses_through_super(&code(text), depth));
        for name in used {
            let other = folder.get(&name).copied().unwrap_or(FOLDERS[0]);
            if rank(other) > rank(own) {
                broken.push(format!("{relative} ({own}) uses {name} ({other})"));
            }
        }
    }
    broken
}

#[test]
fn lower_modules_never_use_higher_ones() {
    let layer: BTreeMap<&str, usize> = LAYERS
        .iter()
        .enumerate()
        .flat_map(|(i, names)| names.iter().map(move |name| (*name, i)))
        .collect();
    let (src, files) = sources();
    let mut broken = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).expect("under src/");
        let module = module_of(relative);
        let Some(&own) = layer.get(module.as_str()) else {
            continue;
        };
        let text = std::fs::read_to_string(file).expect("a readable source file");
        for used in uses(&text) {
            // A folder is no module: the one named after it is judged.
            if used == module || FOLDERS.contains(&used.as_str()) {
                continue;
            }
            match layer.get(used.as_str()) {
                Some(&other) if other < own => {}
                _ => broken.push(format!("{} uses crate::{used}", relative.display())),
            }
        }
    }
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
}

#[test]
fn no_folder_uses_a_higher_one() {
    let (src, files) = sources();
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs");
    let files: Vec<(String, String)> = files
        .iter()
        .map(|file| {
            let relative = file.strip_prefix(&src).expect("under src/");
            let text = std::fs::read_to_string(file).expect("a readable source file");
            (relative.display().to_string(), text)
        })
        .collect();
    let folder = folders(&lib);
    for (name, expected) in [("yaml", "kubernetes"), ("plan", "chart"), ("report", "cli")] {
        assert_eq!(
            folder.get(name).copied(),
            Some(expected),
            "src/lib.rs re-exports {name}"
        );
    }
    let broken = folder_breaks(&lib, &files);
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
}

#[test]
fn a_use_of_a_higher_folder_is_seen_in_every_form() {
    let lib = "pub use chart::{check, plan};\npub use kubernetes::{kube, rbac, yaml};";
    let file = |path: &str, text: &str| (path.to_owned(), text.to_owned());
    let files = [
        file("kubernetes/diff/mod.rs", "use crate::plan::adr;"),
        file("kubernetes/yaml.rs", "let x = crate::chart::check::run();"),
        file(
            "kubernetes/names.rs",
            "let x = crate::cli::args::Cli::parse();",
        ),
        file("kubernetes/emit.rs", "use super::super::check;"),
        file("kube/mod.rs", "use crate::{yaml, cli::Cli};"),
        file("text.rs", "use crate::rbac::Rbac;"),
        file("chart/render.rs", "use crate::{yaml, rbac, cli::args};"),
        file(
            "kubernetes/input.rs",
            "// [`crate::plan`] is only a doc link\nuse crate::rbac;",
        ),
        file("cli/commands/mod.rs", "use crate::{check, yaml, rbac};"),
    ];
    assert_eq!(
        folder_breaks(lib, &files),
        [
            "kubernetes/diff/mod.rs (kubernetes) uses plan (chart)",
            "kubernetes/yaml.rs (kubernetes) uses chart (chart)",
            "kubernetes/yaml.rs (kubernetes) uses check (chart)",
            "kubernetes/names.rs (kubernetes) uses cli (cli)",
            "kubernetes/emit.rs (kubernetes) uses check (chart)",
            "kube/mod.rs (kubernetes) uses cli (cli)",
            "text.rs (base) uses rbac (kubernetes)",
            "chart/render.rs (chart) uses cli (cli)",
        ]
    );
}

#[test]
fn the_check_sees_every_form_of_use() {
    let text = "use crate::yaml::Node;\nuse crate::{check, input::Set};\nlet x = crate::emit::block(n);\nuse crate::kubernetes::secret;";
    assert_eq!(
        uses(text),
        ["yaml", "check", "input", "emit", "kubernetes", "secret"]
    );
}
