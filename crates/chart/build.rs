//! Compiles every template in the repository's `templates/` once at build
//! time, so that a syntax error fails `cargo build` with the template's name
//! and line, and embeds the templates (`$OUT_DIR/templates.rs`) in the
//! library; bakes the values schema (`schema/values.schema.json`) into a
//! table of the kubernetes crate's validator (`$OUT_DIR/values_schema.rs`)
//! with that crate's baker; and writes the registry of the check rules
//! (`$OUT_DIR/rules.rs`) from the rule files of `src/check/rules/`.

use std::path::{Path, PathBuf};

// The kubernetes crate's baker; only `bake_document` is used here.
#[allow(dead_code)]
#[path = "../kubernetes/build/kube_schemas.rs"]
mod kube_schemas;

fn main() {
    // Read when the script runs, not when it is compiled: Cargo reuses a
    // compiled build script for a second checkout sharing the target
    // directory, which would then bake the first checkout's files.
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let manifest = manifest.as_path();
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));

    let templates = manifest.join("../../templates");
    let files = files_below(&templates, &[""]);
    let mut env = minijinja::Environment::new();
    let mut failed = false;
    for (name, path) in &files {
        let source = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        if let Err(error) = env.add_template_owned(name.clone(), source) {
            let line = error.line().map_or(String::new(), |l| format!(":{l}"));
            let detail = error.detail().unwrap_or("invalid syntax");
            eprintln!(
                "error: templates/{name}{line}: {detail} ({:?})",
                error.kind()
            );
            failed = true;
        }
    }
    if failed {
        eprintln!("error: a template does not compile; see above");
        std::process::exit(1);
    }
    write_list(
        &out.join("templates.rs"),
        "TEMPLATES",
        "Every template by name, as compiled into the binary.",
        &files,
    );
    let values = manifest.join("../../schema/values.schema.json");
    println!("cargo:rerun-if-changed=../kubernetes/build/kube_schemas.rs");
    if let Err(error) = kube_schemas::bake_document(
        &values,
        "schema/values.schema.json",
        &out.join("values_schema.rs"),
    ) {
        eprintln!("error: the values schema cannot be baked: {error}");
        std::process::exit(1);
    }
    write_rules(&manifest.join("src/check/rules"), &out.join("rules.rs"));
}

/// The registry of the check rules, included by `src/check/rules/mod.rs`:
/// every `*.rs` file of `dir` but `mod.rs` is a rule (what the rules share
/// lives in a subfolder, which is not read). For each, a `mod` line, a
/// variant of `Invariant` named by the file (`no_wildcards.rs`:
/// `NoWildcards`, documented by the first sentence of the file's `//!`
/// text), its name (`no-wildcards`) and its `RULE`; and `FILES`, the files
/// read.
fn write_rules(dir: &Path, target: &Path) {
    println!("cargo:rerun-if-changed={}", dir.display());
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    let mut rules: Vec<(String, PathBuf)> = entries
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.is_file() && path.extension().is_some_and(|e| e == "rs"))
        .filter_map(|path| {
            let stem = path.file_stem()?.to_str()?.to_owned();
            (stem != "mod").then_some((stem, path))
        })
        .collect();
    rules.sort();
    let mut code = String::from("// Written by build.rs from the rule files; do not edit.\n\n");
    for (stem, path) in &rules {
        code += &format!("#[path = {:?}]\nmod {stem};\n", path.display().to_string());
    }
    code += "\n/// The invariant a finding breaks: one rule, one file of \
             `src/check/rules/`, whose name it carries.\n\
             #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\npub enum Invariant {\n";
    for (stem, path) in &rules {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        code += &format!("    /// {}\n    {},\n", first_sentence(&text), camel(stem));
    }
    code += "}\n\nimpl Invariant {\n";
    code += &format!(
        "    /// Every invariant, one per rule file, by file name.\n    \
         pub const ALL: [Invariant; {}] = [\n",
        rules.len()
    );
    for (stem, _) in &rules {
        code += &format!("        Invariant::{},\n", camel(stem));
    }
    code += "    ];\n\n    /// The rule's name, its file's: `no-wildcards`.\n    \
             pub const fn name(self) -> &'static str {\n        match self {\n";
    for (stem, _) in &rules {
        code += &format!(
            "            Invariant::{} => {:?},\n",
            camel(stem),
            stem.replace('_', "-")
        );
    }
    code += "        }\n    }\n\n    /// The rule's definition: its file's `RULE`.\n    \
             pub const fn definition(self) -> &'static Definition {\n        match self {\n";
    for (stem, _) in &rules {
        code += &format!("            Invariant::{} => &{stem}::RULE,\n", camel(stem));
    }
    code += "        }\n    }\n}\n\n/// The rule files the registry was written from, by name.\n";
    code += &format!("pub const FILES: [&str; {}] = [\n", rules.len());
    for (stem, _) in &rules {
        code += &format!("    \"{stem}.rs\",\n");
    }
    code += "];\n";
    code += "\n/// One test a rule, named by its file: it reports its fixture and \
             nothing else.\n#[cfg(test)]\nmod each_rule {\n";
    for (stem, _) in &rules {
        code += &format!(
            "    #[test]\n    fn {stem}() {{\n        \
             super::tests::reports_its_fixture(super::Invariant::{});\n    }}\n",
            camel(stem)
        );
    }
    code += "}\n";
    std::fs::write(target, code).expect("OUT_DIR is writable");
}

/// `no_wildcards` as `NoWildcards`.
fn camel(stem: &str) -> String {
    stem.split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or(String::new(), |first| {
                first.to_uppercase().chain(chars).collect()
            })
        })
        .collect()
}

/// The first sentence of a file's `//!` text, on one line, its links
/// plain code (they name items from the file's module, not the registry's).
fn first_sentence(text: &str) -> String {
    let doc: Vec<&str> = text
        .lines()
        .map_while(|line| line.strip_prefix("//!"))
        .map(str::trim)
        .take_while(|line| !line.is_empty())
        .collect();
    let doc = doc.join(" ").replace("[`", "`").replace("`]", "`");
    match doc.find(". ") {
        Some(end) => doc[..=end].to_owned(),
        None => doc,
    }
}

/// Every file in the folders `subdirs` of `root` (`""` for `root` itself),
/// as (path relative to `root` with `/`, full path), sorted; each folder is
/// watched for changes.
fn files_below(root: &Path, subdirs: &[&str]) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    for subdir in subdirs {
        let dir = root.join(subdir);
        println!("cargo:rerun-if-changed={}", dir.display());
        collect(&dir, &mut files);
    }
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(root)
                .expect("collected below the root")
                .to_string_lossy()
                .replace('\\', "/");
            (name, path)
        })
        .collect();
    named.sort();
    named
}

/// Writes `pub const NAME: &[(&str, &str)]` of names and `include_str!`s.
fn write_list(target: &Path, name: &str, doc: &str, files: &[(String, PathBuf)]) {
    let mut code = format!("/// {doc}\npub const {name}: &[(&str, &str)] = &[\n");
    for (file, path) in files {
        code += &format!(
            "    ({file:?}, include_str!({:?})),\n",
            path.display().to_string()
        );
    }
    code += "];\n";
    std::fs::write(target, code).expect("OUT_DIR is writable");
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in walkdir::WalkDir::new(dir).min_depth(1) {
        let entry = entry.unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
        if !entry.file_type().is_dir() {
            files.push(entry.into_path());
        }
    }
}
