//! Agent state: a search tool reads the repository from state, its results pile up in state, and
//! a ranking tool reads them back. The wiring is written on the methods and checked when this
//! example compiles: misspell a key, or give `repository` another type, and it does not build.
//!
//! `cargo run --example state` prints what the model sees, then the state before and after a
//! batch of calls.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolkit::prelude::*;
use toolkit::providers::Format;

/// The state of one research run: each field is a key.
#[derive(AgentState, Debug, Default, Serialize, Deserialize)]
struct Research {
    repository: String,
    /// A list: a list written to it is concatenated, a single document appended.
    documents: Vec<String>,
    /// Only the best score is kept.
    #[state(merge = keep_max)]
    best: f64,
}

fn keep_max(current: &mut f64, new: f64) {
    *current = current.max(new);
}

#[derive(Serialize, JsonSchema)]
struct Ranking {
    summary: String,
    best: f64,
}

#[derive(Default)]
struct RepoToolset;

#[toolset(name = "repo", state = Research)]
impl RepoToolset {
    /// Search the repository for a word
    #[tool(outputs_to_state(documents))]
    fn search(
        &self,
        #[arg(from_state)] repository: String,
        /// the word to look for
        query: String,
    ) -> Vec<String> {
        vec![format!("{repository}/README.md mentions {query}")]
    }

    /// Rank the documents found so far
    #[tool(outputs_to_state(best = "best"), outputs_to_string = "summary")]
    fn rank(&self, #[arg(from_state)] documents: Vec<String>) -> Ranking {
        Ranking {
            summary: format!("{} documents ranked", documents.len()),
            best: 1.0 - 1.0 / (documents.len() as f64 + 1.0),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let toolbox = Toolbox::builder().toolset::<RepoToolset>().build()?;
    println!(
        "what the model sees of search: {}",
        toolbox.definitions(Format::OpenAi)?[0]["function"]["parameters"]
    );

    let mut state = Research {
        repository: "toolkit".into(),
        ..Research::default()
    };
    println!("state before: {}", state.to_json());
    let calls = vec![
        ToolCall::new("repo_search", json!({"query": "state"})),
        ToolCall::new("repo_search", json!({"query": "merge"})),
        // Reads `documents`, which both searches write: it runs after them.
        ToolCall::new("repo_rank", json!({})),
    ];
    for result in toolbox.call_all_with_state(&mut state, calls).await {
        println!("{} -> {}", result.name, result.value);
    }
    println!("state after: {}", state.to_json());
    Ok(())
}
