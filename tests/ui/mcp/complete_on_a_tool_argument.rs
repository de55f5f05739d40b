use toolkit::prelude::*;

#[derive(Default)]
struct Langs;

#[toolset]
impl Langs {
    /// Translate a text
    #[tool]
    fn translate(&self, text: String, #[arg(complete = ["en", "fr"])] lang: String) -> String {
        format!("{text} {lang}")
    }
}

fn main() {}
