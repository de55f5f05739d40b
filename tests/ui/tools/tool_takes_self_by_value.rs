use toolkit::prelude::*;

#[derive(Default)]
struct Shelf;

#[toolset]
impl Shelf {
    /// Consume the shelf
    #[tool]
    fn consume(self) -> usize {
        0
    }
}

fn main() {}
