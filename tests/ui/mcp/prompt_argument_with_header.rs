use toolkit::prelude::*;

#[derive(Default)]
struct Prompts;

#[toolset]
impl Prompts {
    /// Greet someone
    #[prompt]
    fn greet(&self, #[arg(header = "Name")] name: String) -> String {
        format!("Greet {name}")
    }
}

fn main() {}
