use toolkit::prelude::*;

struct Opaque;

#[derive(Default)]
struct Prompts;

#[toolset]
impl Prompts {
    /// Greet
    #[prompt]
    fn greet(&self, who: Opaque) -> String {
        let _ = who;
        String::new()
    }
}

fn main() {}
