//! Compiles every template in the repository's `templates/` once at build
//! time, so that a syntax error fails `cargo build` with the template's name
//! and line, and embeds the templates (`$OUT_DIR/templates.rs`) in the
//! library.

use std::path::{Path, PathBuf};

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
