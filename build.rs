//! Compiles every template in `templates/` once at build time, so that a
//! syntax error fails `cargo build` with the template's name and line, and
//! embeds them all in the binary (`$OUT_DIR/templates.rs`).

use std::path::{Path, PathBuf};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();

    let mut env = minijinja::Environment::new();
    let mut failed = false;
    let mut code = String::from(
        "/// Every template by name, as compiled into the binary.\npub const TEMPLATES: &[(&str, &str)] = &[\n",
    );
    for path in &files {
        let name = path
            .strip_prefix(&root)
            .expect("collected below the root")
            .to_string_lossy()
            .replace('\\', "/");
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
        code += &format!(
            "    ({name:?}, include_str!({:?})),\n",
            path.display().to_string()
        );
    }
    code += "];\n";
    if failed {
        eprintln!("error: a template does not compile; see above");
        std::process::exit(1);
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("templates.rs"), code).expect("OUT_DIR is writable");
    embed_schemas(&out);
}

/// Embeds the vendored Kubernetes schemas and the cert-manager schema as
/// `SCHEMA_FILES: &[(path below schema/, contents)]`.
fn embed_schemas(out: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
    let mut files = Vec::new();
    for dir in ["kubernetes", "cert-manager"] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
        collect(&root.join(dir), &mut files);
    }
    files.sort();
    let mut code = String::from(
        "/// Vendored schemas by path below `schema/`.\npub const SCHEMA_FILES: &[(&str, &str)] = &[\n",
    );
    for path in &files {
        let name = path
            .strip_prefix(&root)
            .expect("collected below the root")
            .to_string_lossy()
            .replace('\\', "/");
        code += &format!(
            "    ({name:?}, include_str!({:?})),\n",
            path.display().to_string()
        );
    }
    code += "];\n";
    std::fs::write(out.join("schemas.rs"), code).expect("OUT_DIR is writable");
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            collect(&path, files);
        } else {
            files.push(path);
        }
    }
}
