//! Invalid plans do not compile (issue 3, requirement 1). Each file in
//! `tests/ui/` tries one combination the ADRs forbid; its `.stderr` pins the
//! compiler's refusal. Regenerate with `TRYBUILD=overwrite CHARTGEN_SLOW=1
//! cargo test compile_fail`. Slow (trybuild builds the crates and their
//! dependencies again in `target/tests/trybuild`: minutes on a fresh
//! clone), so it runs under `CHARTGEN_SLOW=1`, as `.ci/run` sets it.

#[test]
fn forbidden_combinations_do_not_compile() {
    if !crate::tools::slow("trybuild") {
        return;
    }
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
