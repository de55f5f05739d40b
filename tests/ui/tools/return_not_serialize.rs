use toolkit::prelude::*;

/// A report, without `Serialize`.
struct Report {
    words: usize,
}

#[derive(Default)]
struct Stats;

#[toolset]
impl Stats {
    /// Count words
    #[tool]
    fn report(&self, text: String) -> Report {
        Report { words: text.split_whitespace().count() }
    }
}

fn main() {}
