use serde::{Deserialize, Serialize};
use toolkit::prelude::*;

fn keep_max(current: &mut f64, new: f64) {
    *current = current.max(new);
}

#[derive(AgentState, Serialize, Deserialize)]
struct Tuple(String);

#[derive(AgentState, Serialize, Deserialize)]
struct Generic<T> {
    value: T,
}

#[derive(AgentState, Serialize, Deserialize)]
struct Mistakes {
    #[state(append)]
    documents: Vec<String>,
    #[state(replace, merge = keep_max)]
    best: f64,
}

fn main() {}
