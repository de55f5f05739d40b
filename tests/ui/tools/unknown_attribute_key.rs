use toolkit::prelude::*;

#[derive(Default)]
struct Catalog;

#[toolset(prefix = "cat")]
impl Catalog {
    /// Look up an item
    #[tool(desc = "Look up an item")]
    fn lookup(&self, #[arg(help = "the id")] id: String) -> String {
        id
    }
}

fn main() {}
