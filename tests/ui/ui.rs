//! Compile-time diagnostics: each file under `tools/`, `state/` and `mcp/` is one mistake, named
//! for it, with the exact error checked in beside it (`.stderr`). Refresh with
//! `TRYBUILD=overwrite`.

#[test]
fn mistakes_in_tool_definitions_fail_to_compile_with_a_clear_message() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tools/*.rs");
    cases.compile_fail("state/*.rs");
    cases.compile_fail("mcp/*.rs");
}
