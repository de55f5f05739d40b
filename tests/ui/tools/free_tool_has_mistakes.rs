// A free-function tool gets the same checks as a method tool, all reported at once.
use toolkit::prelude::*;

#[tool(name = "look up")]
fn lookup(ids: &Vec<String>, #[arg(required)] limit: u32) -> usize {
    ids.len().min(limit as usize)
}

fn main() {
    let _ = lookup_tool();
}
