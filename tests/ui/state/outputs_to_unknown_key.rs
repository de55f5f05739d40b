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
    #[tool(outputs_to_state(documnets, best = "score"))]
    fn search(&self, query: String) -> Vec<String> {
        vec![query]
    }
}

fn main() {}
