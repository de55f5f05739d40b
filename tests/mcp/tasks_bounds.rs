//! What tasks may hold of the server: a place under the call cap while their tool runs, and a
//! share of one byte budget for their results once it has. Driven as MCP 2026-07-28 clients
//! with the Tasks extension (tests/mcp/tasks_extension.rs's `request`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::sync::watch;
use toolkit::context::Caller;
use toolkit::mcp::{HttpOptions, HttpServerHandle, McpServer, StaticTokens};
use toolkit::prelude::*;
use toolkit::{TaskSupport, ToolDefinition};

use super::tasks_extension::{ended, request};
use crate::common::memory::resident_mb;

/// How many bodies of a tool run now, and the most that ever ran at once.
#[derive(Default)]
struct Running {
    now: AtomicUsize,
    most: AtomicUsize,
}

/// `hold`: counts itself running, then waits until `gate` opens; it runs as a task only.
fn hold(gate: &watch::Receiver<bool>, running: &Arc<Running>) -> ToolProxy {
    let mut definition = ToolDefinition::new("hold", "Holds", json!({"type": "object"}));
    definition.options.task = TaskSupport::Required;
    let (gate, running) = (gate.clone(), Arc::clone(running));
    ToolProxy::from_async_fn(definition, move |_| {
        let (mut gate, running) = (gate.clone(), Arc::clone(&running));
        async move {
            let now = running.now.fetch_add(1, Ordering::SeqCst) + 1;
            running.most.fetch_max(now, Ordering::SeqCst);
            let _ = gate.wait_for(|open| *open).await;
            running.now.fetch_sub(1, Ordering::SeqCst);
            Ok::<_, String>("held")
        }
    })
}

/// A server capped at two calls takes two task calls of six; the other four are refused at
/// once with the busy error a plain call over the cap gets, so no more than two bodies ever
/// run at once. Once the tasks end, their places are free again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_calls_take_places_under_the_call_cap() {
    let (open, gate) = watch::channel(false);
    let running = Arc::new(Running::default());
    let server = McpServer::new(vec![hold(&gate, &running)])
        .spawn_http(
            "127.0.0.1:0",
            HttpOptions::default().max_concurrent_calls(2),
        )
        .await
        .expect("serve");
    let call = json!({"name": "hold", "arguments": {}});
    let mut started = Vec::new();
    let mut refused = Vec::new();
    for _ in 0..6 {
        match request(&server, None, "tools/call", call.clone(), true).await {
            Ok(created) => started.push(created["taskId"].as_str().expect("an id").to_owned()),
            Err(err) => refused.push(err["message"].as_str().unwrap_or_default().to_owned()),
        }
    }
    assert_eq!((started.len(), refused.len()), (2, 4), "{refused:?}");
    assert!(
        refused[0].contains("the server is busy: 2 tool calls are running, its limit"),
        "{refused:?}"
    );
    // A call without the extension finds no place either while the two tasks hold them.
    let plain = request(&server, None, "tools/call", call.clone(), false).await;
    let plain = plain.expect_err("busy");
    let busy = plain["message"].as_str().unwrap_or_default();
    assert!(busy.starts_with("the server is busy"), "{plain}");

    for _ in 0..200 {
        if running.now.load(Ordering::SeqCst) == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    open.send_replace(true);
    for id in &started {
        let done = ended(&server, None, id).await;
        assert_eq!(done["result"]["content"][0]["text"], "held", "{done}");
    }
    assert_eq!(running.most.load(Ordering::SeqCst), 2);
    // Their places are free again.
    let again = request(&server, None, "tools/call", call, true).await;
    let again = again.expect("a task");
    let done = ended(&server, None, again["taskId"].as_str().expect("an id")).await;
    assert_eq!(done["result"]["content"][0]["text"], "held");
    assert_eq!(running.most.load(Ordering::SeqCst), 2);

    server.shutdown().await.expect("shutdown");
}

/// `big`: answers a string of `bytes` `x`s; it runs as a task only.
fn big() -> ToolProxy {
    let schema = json!({"type": "object", "properties": {"bytes": {"type": "integer"}}});
    let mut definition = ToolDefinition::new("big", "A long answer", schema);
    definition.options.task = TaskSupport::Required;
    ToolProxy::from_async_fn(definition, |arguments| async move {
        let bytes = arguments["bytes"].as_u64().unwrap_or(0);
        Ok::<_, String>("x".repeat(usize::try_from(bytes).unwrap_or(0)))
    })
}

/// Runs `big` as a task of `bytes` for `token`'s caller and waits for it: its id, and its
/// result's text length.
async fn finished_task(server: &HttpServerHandle, token: &str, bytes: u64) -> (String, usize) {
    let call = json!({"name": "big", "arguments": {"bytes": bytes}});
    let created = request(server, Some(token), "tools/call", call, true).await;
    let id = created.expect("a task")["taskId"]
        .as_str()
        .expect("an id")
        .to_owned();
    let done = ended(server, Some(token), &id).await;
    let text = done["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    (id, text.len())
}

/// Every caller's finished results share one budget (8 MiB here): of twelve 1 MB results,
/// six a caller, the eight newest are kept, and the four oldest, all the first caller's,
/// expire early with a clear error, their task saying so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_task_results_share_one_byte_budget_and_the_oldest_expire_first() {
    let tokens = StaticTokens::new()
        .token("token-ann", Caller::new("ann"))
        .token("token-bob", Caller::new("bob"));
    let server = McpServer::new(vec![big()])
        .with_max_task_result_bytes(8 << 20)
        .spawn_http("127.0.0.1:0", HttpOptions::default().token_verifier(tokens))
        .await
        .expect("serve");
    let mut ids = Vec::new();
    for n in 0..12 {
        let token = if n < 6 { "token-ann" } else { "token-bob" };
        let (id, length) = finished_task(&server, token, 1_000_000).await;
        assert_eq!(length, 1_000_000);
        ids.push((token, id));
    }
    let mut kept = Vec::new();
    for (n, (token, id)) in ids.iter().enumerate() {
        let task = request(
            &server,
            Some(token),
            "tasks/get",
            json!({"taskId": id}),
            true,
        )
        .await;
        let task = task.expect("the task");
        match task["status"].as_str() {
            Some("completed") => {
                let text = task["result"]["content"][0]["text"].as_str();
                assert_eq!(text.unwrap_or_default().len(), 1_000_000);
                kept.push(n);
            }
            _ => {
                let expired = format!(
                    "the result of task {id} expired before its time to live: the server keeps \
                     at most 8388608 bytes of finished task results, and newer ones took its \
                     place"
                );
                assert_eq!(task["status"], "failed", "{n}: {task}");
                assert_eq!(task["error"]["message"], expired.as_str(), "{n}: {task}");
                assert_eq!(task["statusMessage"], expired.as_str(), "{n}: {task}");
            }
        }
    }
    assert_eq!(kept, (4..12).collect::<Vec<_>>());
    server.shutdown().await.expect("shutdown");
}

/// Resident memory once two callers hold 256 finished tasks of 1 MB results each.
async fn resident_after_512_results(server: McpServer) -> (Option<u64>, Option<u64>) {
    let before = resident_mb();
    let tokens = StaticTokens::new()
        .token("token-ann", Caller::new("ann"))
        .token("token-bob", Caller::new("bob"));
    let server = server
        .spawn_http("127.0.0.1:0", HttpOptions::default().token_verifier(tokens))
        .await
        .expect("serve");
    let call = json!({"name": "big", "arguments": {"bytes": 1_000_000}});
    let mut ids = Vec::new();
    for token in ["token-ann", "token-bob"] {
        for _ in 0..256 {
            let created = request(&server, Some(token), "tools/call", call.clone(), true).await;
            let id = created.expect("a task")["taskId"]
                .as_str()
                .map(str::to_owned);
            ids.push((token, id.expect("an id")));
        }
    }
    for (token, id) in &ids {
        ended(&server, Some(token), id).await;
    }
    let after = resident_mb();
    server.shutdown().await.expect("shutdown");
    (before, after)
}

/// The figure in the issue, before and after the budget (run alone, with `--ignored`): 512
/// finished tasks of 1 MB results, unbounded, and under the default budget.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a memory figure: run alone with --ignored --nocapture"]
async fn resident_memory_of_512_finished_results_with_and_without_the_budget() {
    // The budget first: memory freed is not always given back to the system.
    let (before, after) = resident_after_512_results(McpServer::new(vec![big()])).await;
    println!("default budget (64 MiB): {before:?} MB before, {after:?} MB after");
    let unbounded = McpServer::new(vec![big()]).with_max_task_result_bytes(usize::MAX);
    let (before, after) = resident_after_512_results(unbounded).await;
    println!("no budget: {before:?} MB before, {after:?} MB after");
}
