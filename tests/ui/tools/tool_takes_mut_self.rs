use toolkit::prelude::*;

#[derive(Default)]
struct Notes {
    items: Vec<String>,
}

#[toolset]
impl Notes {
    /// Add a note
    #[tool]
    fn add(&mut self, text: String) {
        self.items.push(text);
    }
}

fn main() {}
