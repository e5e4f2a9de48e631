//! Bakes the vendored Kubernetes schemas and our cert-manager, Cilium and
//! Prometheus Operator ones (the repository's `schema/` folder) into static
//! tables (`$OUT_DIR/kube_schemas.rs`, see `build/kube_schemas.rs`).

use std::path::PathBuf;

// `bake_document` is for crates with schemas of their own (the chart).
#[allow(dead_code)]
#[path = "build/kube_schemas.rs"]
mod kube_schemas;

fn main() {
    // Read when the script runs, not when it is compiled: Cargo reuses a
    // compiled build script for a second checkout sharing the target
    // directory, which would then bake the first checkout's files.
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let manifest = manifest.as_path();
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let schema_dir = manifest.join("../../schema");
    for folder in [
        "kubernetes",
        "cert-manager",
        "cilium",
        "prometheus-operator",
    ] {
        // Cargo scans a folder named here for a change anywhere beneath it.
        println!(
            "cargo:rerun-if-changed={}",
            schema_dir.join(folder).display()
        );
    }
    println!("cargo:rerun-if-changed=build/kube_schemas.rs");
    if let Err(error) = kube_schemas::bake(&schema_dir, &out.join("kube_schemas.rs")) {
        eprintln!("error: the vendored schemas cannot be baked: {error}");
        std::process::exit(1);
    }
}
