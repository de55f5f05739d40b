// Generated code names toolkit only through the `crate = "..."` path (here a wrong one), never
// through whatever the user imported.
use toolkit::prelude::*;

#[derive(Default)]
struct Catalog;

#[toolset(crate = "not_toolkit")]
impl Catalog {
    /// Look up an item
    #[tool]
    fn lookup(&self, id: String) -> String {
        id
    }
}

fn main() {}
