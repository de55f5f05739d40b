use toolkit::prelude::*;

/// A query that derives `Deserialize` but not `JsonSchema`: the usual mistake.
#[derive(serde::Deserialize)]
struct Query {
    text: String,
    limit: u32,
}

#[derive(Default)]
struct Search;

#[toolset]
impl Search {
    /// Search the index
    #[tool]
    fn search(&self, #[arg(required)] query: Option<Query>) -> Vec<String> {
        query.map(|q| vec![q.text; q.limit as usize]).unwrap_or_default()
    }
}

fn main() {}
