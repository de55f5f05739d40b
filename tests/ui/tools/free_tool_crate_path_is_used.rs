// `#[tool]` on a free function names toolkit only through its `crate = "..."` path (here a
// wrong one), as `#[toolset]` does: one error, at the path.
use toolkit::prelude::*;

/// Add two numbers
#[tool(crate = "not_toolkit")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
