use toolkit::prelude::*;

#[derive(Default)]
struct Letters;

#[toolset]
impl Letters {
    /// Write a letter
    #[tool]
    fn write(&self, #[arg(name = "for")] recipient: String) -> String {
        recipient
    }

    /// A letter by its id
    #[resource(uri = "letters://{id}")]
    fn letter(&self, #[arg(name = "letter")] id: String) -> String {
        id
    }

    /// Greet someone
    #[prompt]
    fn greet(&self, #[arg(name = "")] recipient: String) -> String {
        recipient
    }

    /// Thank someone
    #[prompt]
    fn thank(&self, #[arg(name = "who")] recipient: String, who: String) -> String {
        format!("{recipient}{who}")
    }
}

fn main() {}
