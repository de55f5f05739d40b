use serde::{Deserialize, Serialize};
use toolkit::prelude::*;

#[derive(AgentState, Default, Serialize, Deserialize)]
struct Research {
    repository: String,
    documents: Vec<String>,
}

#[derive(Default)]
struct Repo;

#[toolset(name = "repo", state = Research)]
impl Repo {
    /// Search the repository
    #[tool]
    fn search(&self, #[arg(from_state)] repositry: String, query: String) -> Vec<String> {
        vec![repositry, query]
    }

    /// Count documents
    #[tool]
    fn count(&self, #[arg(from_state = "owner")] docs: Vec<String>) -> usize {
        docs.len()
    }
}

fn main() {}
