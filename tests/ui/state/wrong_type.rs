use serde::{Deserialize, Serialize};
use toolkit::prelude::*;

#[derive(AgentState, Default, Serialize, Deserialize)]
struct Research {
    repository: String,
    documents: Vec<String>,
    best: f64,
}

#[derive(Default)]
struct Repo;

#[toolset(name = "repo", state = Research)]
impl Repo {
    /// Search the repository
    #[tool(outputs_to_state(documents))]
    fn search(&self, #[arg(from_state)] repository: u32, query: String) -> Vec<u64> {
        vec![u64::from(repository), query.len() as u64]
    }

    /// Score the search
    #[tool(outputs_to_state(best))]
    fn score(&self, #[arg(from_state = "documents")] found: Vec<String>) -> Result<String, String> {
        Ok(found.join(","))
    }
}

fn main() {}
