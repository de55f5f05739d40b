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

    /// Greet in a language
    #[prompt]
    fn greet(
        &self,
        #[arg(complete = "en")] lang: String,
        #[arg(complete = self::langs)] other: String,
        #[arg(complete = ["en", 3])] third: String,
    ) -> String {
        format!("{lang} {other} {third}")
    }
}

fn main() {}
