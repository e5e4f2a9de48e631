//! Invalid plans do not compile (issue 3, requirement 1). Each file in
//! `tests/ui/` tries one combination the ADRs forbid; its `.stderr` pins the
//! compiler's refusal. Regenerate with `TRYBUILD=overwrite cargo test compile_fail`.

#[test]
fn forbidden_combinations_do_not_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
