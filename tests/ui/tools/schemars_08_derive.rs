use toolkit::prelude::*;

/// Derives `JsonSchema` from schemars 0.8, while toolkit uses schemars 1.
#[derive(serde::Deserialize, schemars08::JsonSchema)]
#[schemars(crate = "schemars08")]
struct Query {
    text: String,
}

#[derive(Default)]
struct Search;

#[toolset]
impl Search {
    /// Search the index
    #[tool]
    fn search(&self, query: Query) -> Vec<String> {
        vec![query.text]
    }
}

fn main() {}
