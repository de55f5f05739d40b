use toolkit::prelude::*;

struct Catalog;

impl Catalog {
    /// Look an item up
    #[tool]
    fn lookup(&self, id: String) -> String {
        id
    }
}

fn main() {}
