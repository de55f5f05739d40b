use toolkit::prelude::*;

/// An error without `Display`.
#[derive(Debug)]
struct ParseFailure;

#[derive(Default)]
struct Parser;

#[toolset]
impl Parser {
    /// Parse a number
    #[tool]
    fn parse(&self, text: String) -> Result<i64, ParseFailure> {
        text.trim().parse().map_err(|_| ParseFailure)
    }
}

fn main() {}
