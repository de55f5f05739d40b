//! What state costs a call: one call with two parameters filled from state and its result
//! merged into a state key, against the same call with every argument sent and no state.
//!
//! - `state/none`: `Toolbox::call` with all three arguments (the baseline);
//! - `state/dynamic`: `Toolbox::call_with_state` on a `DynamicState` (keys checked against
//!   their JSON Schema);
//! - `state/typed`: the same tool written with `#[toolset(state = Research)]`, on a struct
//!   deriving `AgentState` (the typed path: fields cloned into parameters, the result moved
//!   into its field);
//! - `state/typed_json`: the run-time wiring of `state/dynamic` on that struct (the JSON path);
//! - `state/wired_called_without_state`: the wired tool called with every argument and no state
//!   (the call alone, without filling and merging).
//!
//! Report the ratios to `state/none` of the same run: the machine is shared and noisy.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde::{Deserialize, Serialize};
use toolkit::prelude::*;
use toolkit::state::{DynamicState, MergeRule, StateSchema, StateWiring};

#[path = "support/counting.rs"]
mod counting;

use counting::allocations_per_call;

#[derive(Default)]
struct Repo;

#[toolset(name = "repo")]
impl Repo {
    /// Search a repository
    #[tool]
    fn search(&self, repository: String, owner: String, query: String) -> Vec<String> {
        vec![format!("{owner}/{repository}: {query}")]
    }
}

#[derive(Default)]
struct WiredRepo;

#[toolset(name = "repo", state = Research)]
impl WiredRepo {
    /// Search a repository
    #[tool(outputs_to_state(documents))]
    fn search(
        &self,
        #[arg(from_state)] repository: String,
        #[arg(from_state)] owner: String,
        query: String,
    ) -> Vec<String> {
        vec![format!("{owner}/{repository}: {query}")]
    }
}

#[derive(AgentState, Default, Serialize, Deserialize)]
struct Research {
    repository: String,
    owner: String,
    // Replaced, so that the state does not grow over the iterations.
    #[state(replace)]
    documents: Vec<String>,
}

fn bench(c: &mut Criterion) {
    let plain = Toolbox::builder().toolset::<Repo>().build().unwrap();
    let wiring = StateWiring::new()
        .input("repository")
        .input("owner")
        .output("documents");
    let wired = Repo::to_tools().remove(0).with_state(wiring).unwrap();
    let stateful = Toolbox::builder().tool(wired).build().unwrap();
    let macro_wired = Toolbox::builder().toolset::<WiredRepo>().build().unwrap();

    let full = ToolCall::new(
        "repo_search",
        json!({"repository": "toolkit", "owner": "acme", "query": "merge rules"}),
    );
    let partial = ToolCall::new("repo_search", json!({"query": "merge rules"}));

    let schema = StateSchema::new()
        .key("repository", json!({"type": "string"}))
        .key("owner", json!({"type": "string"}))
        .key_with_rule("documents", json!({"type": "array"}), MergeRule::Replace);
    let mut dynamic = DynamicState::new(schema);
    dynamic.merge("repository", json!("toolkit")).unwrap();
    dynamic.merge("owner", json!("acme")).unwrap();
    let mut typed = Research {
        repository: "toolkit".into(),
        owner: "acme".into(),
        documents: Vec::new(),
    };

    for (name, allocations) in [
        ("none", allocations_per_call(|| plain.call(&full))),
        (
            "dynamic",
            allocations_per_call(|| stateful.call_with_state(&mut dynamic, &partial)),
        ),
        (
            "typed",
            allocations_per_call(|| macro_wired.call_with_state(&mut typed, &partial)),
        ),
        (
            "typed_json",
            allocations_per_call(|| stateful.call_with_state(&mut typed, &partial)),
        ),
    ] {
        println!("allocations per call: {name:<10} {allocations:>6.1}");
    }

    let mut group = c.benchmark_group("state");
    group.bench_function("none", |b| {
        b.iter(|| black_box(plain.call(black_box(&full))))
    });
    group.bench_function("wired_called_without_state", |b| {
        b.iter(|| black_box(stateful.call(black_box(&full))))
    });
    group.bench_function("dynamic", |b| {
        b.iter(|| black_box(stateful.call_with_state(&mut dynamic, black_box(&partial))))
    });
    group.bench_function("typed", |b| {
        b.iter(|| black_box(macro_wired.call_with_state(&mut typed, black_box(&partial))))
    });
    group.bench_function("typed_json", |b| {
        b.iter(|| black_box(stateful.call_with_state(&mut typed, black_box(&partial))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
