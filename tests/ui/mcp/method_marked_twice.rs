use toolkit::prelude::*;

#[derive(Default)]
struct Docs;

#[toolset]
impl Docs {
    /// The readme
    #[tool]
    #[resource(uri = "docs://readme")]
    fn readme(&self) -> String {
        String::new()
    }
}

fn main() {}
