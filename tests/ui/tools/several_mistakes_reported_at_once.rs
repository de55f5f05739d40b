use toolkit::prelude::*;

#[derive(Default)]
struct Notes;

#[toolset]
impl Notes {
    #[tool]
    fn add(&mut self, text: String) {
        let _ = text;
    }

    /// Remove a note
    #[tool(name = "notes_add")]
    fn remove<T>(&self, id: T) {
        let _ = id;
    }
}

// The impl block is still emitted, so uses of it elsewhere do not add errors of their own.
fn elsewhere(notes: &mut Notes) {
    notes.add(String::new());
}

fn main() {}
