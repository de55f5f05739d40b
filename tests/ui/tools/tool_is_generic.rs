use toolkit::prelude::*;

#[derive(Default)]
struct Echo;

#[toolset]
impl Echo {
    /// Echo a value back
    #[tool]
    fn echo<T: serde::Serialize>(&self, value: T) -> T {
        value
    }
}

fn main() {}
