//! The agent's `prepare` hook: what each model call offers, chosen from the step, the
//! messages and the state; a call to a tool not offered at its step is refused by the toolbox the
//! hook narrowed, with an error result naming the tools it holds; an edited description is what
//! the model reads.

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use toolkit::agent::Agent;
use toolkit::models::{ModelReply, ScriptedModel};
use toolkit::prelude::*;

/// Search the notes
#[tool]
fn search(query: String) -> String {
    format!("found {query}")
}

/// Delete the notes
#[tool(destructive)]
fn delete() -> &'static str {
    "deleted"
}

fn toolbox() -> Toolbox {
    let tools = vec![search_tool(), delete_tool()];
    Toolbox::builder().tools("notes", tools).build().unwrap()
}

/// A model that replies from `script` and records, per request, the tools offered as
/// `name: description`.
fn recording(script: Vec<ModelReply>) -> (ScriptedModel, Arc<Mutex<Vec<Vec<String>>>>) {
    let offered = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&offered);
    let script = Mutex::new(script.into_iter());
    let model = ScriptedModel::from_fn(move |request| {
        let tools = request.tools.tools().iter();
        let tools = tools.map(|t| format!("{}: {}", t.name(), t.description()));
        seen.lock().unwrap().push(tools.collect());
        Ok(script
            .lock()
            .unwrap()
            .next()
            .unwrap_or_else(|| ModelReply::text("done")))
    });
    (model, offered)
}

#[tokio::test]
async fn each_step_offers_what_the_hook_returns_and_a_hidden_tool_is_refused() {
    let (model, offered) = recording(vec![
        ModelReply::calls([ToolCall::new("delete", json!({})).with_id("d1")]),
        ModelReply::calls([ToolCall::new("delete", json!({})).with_id("d2")]),
    ]);
    let agent = Agent::builder(model)
        .toolbox(toolbox())
        // Nothing destructive on the first step.
        .prepare(|ctx, tools| match ctx.step {
            1 => tools
                .into_iter()
                .filter(|t| !t.options().annotations.destructive.unwrap_or(false))
                .collect(),
            _ => tools,
        })
        .build();
    let run = agent.run("clean up").await.unwrap();
    assert_eq!(
        *offered.lock().unwrap(),
        [
            vec!["search: Search the notes"],
            vec!["search: Search the notes", "delete: Delete the notes"],
            vec!["search: Search the notes", "delete: Delete the notes"],
        ]
    );
    let results: Vec<(bool, String)> = run
        .tool_calls()
        .map(|c| (c.is_error(), c.result.text()))
        .collect();
    assert_eq!(
        results,
        [
            (
                true,
                // Refused by the toolbox the hook narrowed, which holds only `search`.
                "Error: Unknown tool: delete. Available: search".to_owned()
            ),
            (false, "deleted".to_owned()),
        ]
    );
    // The refused call goes back paired with its id, its arguments kept.
    assert_eq!(
        run.tool_calls().next().unwrap().result.call_id.as_deref(),
        Some("d1")
    );
    assert_eq!(run.answer, "done");
}

#[tokio::test]
async fn the_hook_edits_descriptions_and_sees_the_messages_so_far() {
    let (model, offered) = recording(vec![ModelReply::calls([ToolCall::new(
        "search",
        json!({"query": "rust"}),
    )])]);
    let lengths = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&lengths);
    let agent = Agent::builder(model)
        .toolbox(toolbox())
        .system_prompt("Be brief.")
        .prepare(move |ctx, tools| {
            seen.lock().unwrap().push(ctx.messages.len());
            let last = ctx.step == 2;
            tools
                .into_iter()
                .map(|t| match (t.name(), last) {
                    ("search", true) => {
                        t.with_description("Search the notes (one more search at most)")
                    }
                    _ => t,
                })
                .collect()
        })
        .build();
    let run = agent.run("find rust").await.unwrap();
    assert_eq!(
        run.tool_calls().next().unwrap().result.value,
        json!("found rust")
    );
    // System and user; then the reply and its result.
    assert_eq!(*lengths.lock().unwrap(), [2, 4]);
    let offered = offered.lock().unwrap();
    assert_eq!(
        offered[1][0],
        "search: Search the notes (one more search at most)"
    );
    assert_eq!(offered[0][0], "search: Search the notes");
}

#[derive(AgentState, Default, Serialize, Deserialize)]
struct Session {
    admin: bool,
}

#[tokio::test]
async fn the_hook_chooses_from_the_runs_state() {
    let only_admins_delete = |ctx: &toolkit::agent::PrepareContext<'_>, tools: Vec<ToolProxy>| {
        let admin = ctx.state_as::<Session>().is_some_and(|s| s.admin);
        tools
            .into_iter()
            .filter(|t| admin || t.name() != "delete")
            .collect()
    };
    for (admin, expected) in [
        (true, "deleted"),
        (false, "Error: Unknown tool: delete. Available: search"),
    ] {
        let (model, _) = recording(vec![ModelReply::calls([ToolCall::new(
            "delete",
            json!({}),
        )])]);
        let agent = Agent::builder(model)
            .toolbox(toolbox())
            .prepare(only_admins_delete)
            .build();
        let run = agent
            .run("clean up")
            .state(Box::new(Session { admin }))
            .await
            .unwrap();
        let result = run.tool_calls().next().unwrap().result.text();
        assert!(result.starts_with(expected), "admin {admin}: {result}");
    }
}

#[tokio::test]
async fn a_hook_that_offers_nothing_sends_no_tools_and_refuses_every_call() {
    let (model, offered) = recording(vec![ModelReply::calls([ToolCall::new(
        "search",
        json!({"query": "x"}),
    )])]);
    let agent = Agent::builder(model)
        .toolbox(toolbox())
        .prepare(|_, _| Vec::new())
        .build();
    let run = agent.run("go").await.unwrap();
    assert!(offered.lock().unwrap().iter().all(Vec::is_empty));
    assert_eq!(
        run.tool_calls().next().unwrap().result.text(),
        "Error: Unknown tool: search. Available: "
    );
}

#[tokio::test]
async fn a_resumed_step_runs_through_the_toolbox_its_hook_narrowed() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use toolkit::agent::{AgentError, ApprovalPolicy, Decision};

    let deleted = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&deleted);
    let delete = ToolBuilder::new("delete")
        .description("Delete the notes")
        .build(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok::<_, String>("deleted")
        })
        .unwrap();
    let tools = Toolbox::builder()
        .tool(search_tool())
        .tool(delete)
        .build()
        .unwrap();
    let (model, _) = recording(vec![ModelReply::calls([
        ToolCall::new("search", json!({"query": "old"})).with_id("s1"),
        ToolCall::new("delete", json!({})).with_id("d1"),
    ])]);
    let agent = Agent::builder(model)
        .toolbox(tools)
        .approval_policy(ApprovalPolicy::when(|call| call.name == "search"))
        .prepare(|_, tools| tools.into_iter().filter(|t| t.name() != "delete").collect())
        .build();
    let Err(AgentError::Paused(token)) = agent.run("clean up").await else {
        panic!("the run did not pause for the search")
    };
    // The hidden call waits for nobody: only the offered one is pending.
    let pending: Vec<&str> = token.pending().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(pending, ["search"]);
    let approve = Decision::approve(&token.pending()[0]);
    let run = agent.resume(*token, [approve]).await.unwrap();
    let results: Vec<String> = run.tool_calls().map(|c| c.result.text()).collect();
    assert_eq!(
        results,
        [
            "found old",
            "Error: Unknown tool: delete. Available: search"
        ]
    );
    assert_eq!(deleted.load(Ordering::SeqCst), 0, "the hidden tool ran");
}
