//! Agent state: a search tool reads the repository from state, and its results pile up in state.
//!
//! `cargo run --example state` prints the state before and after a batch of calls.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolkit::prelude::*;
use toolkit::state::{
    AgentState, MergeRule, StateError, StateKey, StateWiring, merge_into, merge_list_into,
};

#[derive(Default)]
struct RepoToolset;

#[toolset(name = "repo")]
impl RepoToolset {
    /// Search the repository for a word
    #[tool]
    fn search(&self, repository: String, query: String) -> Vec<String> {
        vec![format!("{repository}/README.md mentions {query}")]
    }

    /// Summarise the documents found so far
    #[tool]
    fn summarise(&self, documents: Vec<String>) -> String {
        format!("{} documents found", documents.len())
    }
}

/// The state of one research run.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Research {
    repository: String,
    documents: Vec<String>,
}

impl Research {
    const KEYS: [&str; 2] = ["repository", "documents"];

    fn undeclared(key: &str) -> StateError {
        StateError::UndeclaredKey {
            key: key.into(),
            declared: Self::KEYS.map(String::from).to_vec(),
        }
    }
}

impl AgentState for Research {
    fn read(&self, key: &str) -> Result<Option<Value>, StateError> {
        match key {
            "repository" => Ok(Some(json!(self.repository))),
            "documents" => Ok(Some(json!(self.documents))),
            other => Err(Self::undeclared(other)),
        }
    }

    fn merge(&mut self, key: &str, value: Value) -> Result<(), StateError> {
        match key {
            "repository" => merge_into(key, &mut self.repository, MergeRule::Replace, value),
            "documents" => merge_list_into(key, &mut self.documents, value),
            other => Err(Self::undeclared(other)),
        }
    }

    fn keys(&self) -> Vec<StateKey> {
        let key = |name: &str, kind: &str, rule| StateKey {
            name: name.into(),
            schema: json!({"type": kind}),
            rule,
        };
        vec![
            key("repository", "string", MergeRule::Replace),
            key("documents", "array", MergeRule::Lists),
        ]
    }

    fn to_json(&self) -> Value {
        json!(self)
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut tools = RepoToolset::to_tools().into_iter();
    let (search, summarise) = (
        tools.next().ok_or("search")?,
        tools.next().ok_or("summarise")?,
    );
    let toolbox = Toolbox::builder()
        .tool(search.with_state(StateWiring::new().input("repository").output("documents"))?)
        .tool(summarise.with_state(StateWiring::new().input("documents"))?)
        .build()?;
    println!(
        "what the model sees of search: {}",
        toolbox.to_openai()[0]["function"]["parameters"]
    );

    let mut state = Research {
        repository: "toolkit".into(),
        documents: Vec::new(),
    };
    println!("state before: {}", state.to_json());
    let calls = vec![
        ToolCall::new("repo_search", json!({"query": "state"})),
        ToolCall::new("repo_search", json!({"query": "merge"})),
        // Reads `documents`, which both searches write: it runs after them.
        ToolCall::new("repo_summarise", json!({})),
    ];
    for result in toolbox.call_all_with_state(&mut state, calls).await {
        println!("{} -> {}", result.name, result.value);
    }
    println!("state after: {}", state.to_json());
    Ok(())
}
