//! Compiles every template in the repository's `templates/` once at build
//! time, so that a syntax error fails `cargo build` with the template's name
//! and line, and embeds the templates (`$OUT_DIR/templates.rs`) in the
//! library; bakes the values schema (`schema/values.schema.json`) into a
//! table of the kubernetes crate's validator (`$OUT_DIR/values_schema.rs`)
//! with that crate's baker.

use std::path::{Path, PathBuf};

// The kubernetes crate's baker; only `bake_document` is used here.
#[allow(dead_code)]
#[path = "../kubernetes/build/kube_schemas.rs"]
mod kube_schemas;

fn main() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
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
