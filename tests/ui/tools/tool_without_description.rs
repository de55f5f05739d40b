use toolkit::prelude::*;

#[derive(Default)]
struct Catalog;

#[toolset]
impl Catalog {
    #[tool]
    fn lookup(&self, id: String) -> String {
        id
    }
}

fn main() {}
