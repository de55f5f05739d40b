use toolkit::prelude::*;

#[derive(Default)]
struct Shelf;

#[toolset]
impl Shelf {
    /// Count the shelves
    #[tool]
    fn count() -> usize {
        0
    }
}

fn main() {}
