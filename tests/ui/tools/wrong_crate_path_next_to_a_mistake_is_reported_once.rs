// The fallback `Toolset` impl emitted next to a mistake names toolkit through the
// `crate = "..."` path once: a wrong path adds one error, not one per use.
use toolkit::prelude::*;

#[derive(Default)]
struct Catalog;

#[toolset(crate = "not_toolkit")]
impl Catalog {
    #[tool]
    fn lookup(&self, id: String) -> String {
        id
    }
}

fn main() {
    let _ = Catalog::to_tools();
}
