use toolkit::prelude::*;

#[derive(Default)]
struct Catalog;

#[toolset]
impl Catalog {
    /// Look up an item
    #[tool(name = "catalog lookup!")]
    fn lookup(&self, id: String) -> String {
        id
    }
}

fn main() {}
