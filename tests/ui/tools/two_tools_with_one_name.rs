use toolkit::prelude::*;

#[derive(Default)]
struct Catalog;

#[toolset(name = "catalog")]
impl Catalog {
    /// Look up an item
    #[tool(name = "catalog_lookup")]
    fn find(&self, id: String) -> String {
        id
    }

    /// Look up an item, again
    #[tool]
    fn lookup(&self, id: String) -> String {
        id
    }
}

fn main() {}
