use toolkit::prelude::*;

#[derive(Default)]
struct Langs;

#[toolset]
impl Langs {
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
