use toolkit::prelude::*;

#[derive(Default)]
struct Echo;

#[toolset]
impl Echo {
    /// Echo text back
    #[tool]
    fn echo(&self, text: impl Into<String>) -> String {
        text.into()
    }
}

fn main() {}
