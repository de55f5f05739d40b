//! A batch with state: dependent calls wait for the calls whose writes they read, independent
//! calls overlap, and updates are applied in call order.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolkit::ToolDefinition;
use toolkit::prelude::*;
use toolkit::state::{AgentState, DynamicState, StateSchema, StateWiring};

/// When each call started and ended, by tool name.
type Log = Arc<Mutex<Vec<(String, Instant, Instant)>>>;

const WAIT: Duration = Duration::from_millis(150);

/// An async tool that waits, logs its run and returns `{"item": <its name>, "seen": <docs>}`.
fn waiting_tool(name: &str, log: &Log, wiring: StateWiring) -> ToolProxy {
    let schema = json!({"type": "object", "properties": {"docs": {"type": "array"}}});
    let (log, tool) = (Arc::clone(log), name.to_owned());
    let definition = ToolDefinition::new(name, "Wait, then report", schema);
    ToolProxy::from_async_fn(definition, move |args| {
        let (log, tool) = (Arc::clone(&log), tool.clone());
        async move {
            let start = Instant::now();
            tokio::time::sleep(WAIT).await;
            log.lock()
                .unwrap()
                .push((tool.clone(), start, Instant::now()));
            if tool == "broken" {
                return Err("broken on purpose".to_string());
            }
            Ok(json!({"item": tool, "seen": args.get("docs").cloned().unwrap_or(Value::Null)}))
        }
    })
    .with_state(wiring)
    .unwrap()
}

fn toolbox(log: &Log) -> Toolbox {
    let writes = || StateWiring::new().output_field("item", "docs");
    Toolbox::builder()
        .tool(waiting_tool("produce", log, writes()))
        .tool(waiting_tool("other", log, writes()))
        .tool(waiting_tool("broken", log, writes()))
        .tool(waiting_tool(
            "consume",
            log,
            StateWiring::new().input("docs"),
        ))
        .tool(waiting_tool("alone", log, StateWiring::new()))
        .concurrency(8)
        .build()
        .unwrap()
}

fn state() -> DynamicState {
    DynamicState::new(StateSchema::new().key("docs", json!({"type": "array"})))
}

fn span(log: &Log, tool: &str) -> (Instant, Instant) {
    let log = log.lock().unwrap();
    let (_, start, end) = log
        .iter()
        .find(|(name, ..)| name == tool)
        .expect("the tool ran");
    (*start, *end)
}

fn calls(names: &[&str]) -> Vec<ToolCall> {
    names
        .iter()
        .map(|name| ToolCall::new(*name, json!({})))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_call_reading_a_key_written_earlier_in_the_batch_runs_after_the_writer() {
    let log = Log::default();
    let mut state = state();
    let results = toolbox(&log)
        .call_all_with_state(&mut state, calls(&["produce", "consume"]))
        .await;
    let (_, produced) = span(&log, "produce");
    let (consumed, _) = span(&log, "consume");
    assert!(consumed >= produced, "consume started before produce ended");
    assert_eq!(results[1].value["seen"], json!(["produce"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn independent_calls_of_a_batch_overlap() {
    let log = Log::default();
    let mut state = state();
    let started = Instant::now();
    toolbox(&log)
        .call_all_with_state(&mut state, calls(&["produce", "alone", "consume"]))
        .await;
    let (alone_start, _) = span(&log, "alone");
    let (_, produce_end) = span(&log, "produce");
    assert!(
        alone_start < produce_end,
        "the independent call waited for the writer"
    );
    // Two rounds of one wait each, not three waits in a row.
    assert!(started.elapsed() < WAIT * 3, "{:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn updates_of_concurrent_calls_are_applied_in_call_order() {
    for order in [["other", "produce"], ["produce", "other"]] {
        let log = Log::default();
        let mut state = state();
        toolbox(&log)
            .call_all_with_state(&mut state, calls(&order))
            .await;
        assert_eq!(state.to_json(), json!({"docs": order}));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failed_call_in_a_batch_changes_nothing_in_state() {
    let log = Log::default();
    let mut state = state();
    let results = toolbox(&log)
        .call_all_with_state(&mut state, calls(&["broken", "produce", "consume"]))
        .await;
    assert_eq!(results[0].value, json!("Error: broken on purpose"));
    assert_eq!(state.read("docs").unwrap(), Some(json!(["produce"])));
    assert_eq!(results[2].value["seen"], json!(["produce"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn results_come_back_in_call_order_with_unknown_tools_answered() {
    let log = Log::default();
    let mut state = state();
    let results = toolbox(&log)
        .call_all_with_state(&mut state, calls(&["consume", "nope", "produce"]))
        .await;
    let names: Vec<&str> = results.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["consume", "nope", "produce"]);
    assert!(results[1].is_error);
    // `consume` comes before the writer, so it reads the state as the batch found it.
    assert_eq!(results[0].value["seen"], Value::Null);
}
