use toolkit::prelude::*;

#[derive(Default)]
struct Prompts;

#[toolset]
impl Prompts {
    /// Review some code
    #[prompt]
    fn review(&mut self, code: String) -> String {
        code
    }

    /// A second prompt of the same name
    #[prompt(name = "review", title = 3)]
    fn review_again(&self) -> String {
        String::new()
    }

    /// Generic, with attributes that say nothing about a prompt argument
    #[prompt]
    fn summarize<T>(
        &self,
        #[arg(required)] text: Option<String>,
        #[arg(from_state)] notes: String,
        #[arg(complete = [])] style: String,
    ) -> String {
        format!("{text:?} {notes} {style}")
    }

    /// A key only resources take
    #[prompt(uri = "x://y")]
    fn greet(&self) -> String {
        String::new()
    }
}

fn main() {}
