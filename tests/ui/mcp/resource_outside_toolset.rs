use toolkit::prelude::*;

/// The readme
#[resource(uri = "docs://readme")]
fn readme() -> String {
    String::new()
}

struct Prompts;

impl Prompts {
    /// Greet
    #[prompt]
    fn greet(&self) -> String {
        String::new()
    }
}

fn main() {}
