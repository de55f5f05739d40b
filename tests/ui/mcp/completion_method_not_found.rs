use toolkit::prelude::*;

#[derive(Default)]
struct Langs;

#[toolset]
impl Langs {
    /// Greet in a language
    #[prompt]
    fn greet(&self, #[arg(complete = languages)] lang: String) -> String {
        lang
    }

    fn langs(&self, typed: &str) -> Vec<String> {
        vec![typed.to_owned()]
    }
}

fn main() {}
