use toolkit::prelude::*;

#[derive(Default)]
struct Docs;

#[toolset]
impl Docs {
    /// The readme
    #[resource(uri = "docs://readme")]
    fn readme(&self, lang: String) -> String {
        lang
    }
}

fn main() {}
