//! What a session's tasks may hold of the server: a place under the call cap while their tool
//! runs, and a share of one byte budget for their results once it has.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::watch;
use toolkit::mcp::{HttpOptions, McpServer};
use toolkit::prelude::*;
use toolkit::{TaskSupport, ToolDefinition};

use super::tasks::{raw, raw_client};
use crate::common::memory::resident_mb;

/// How many bodies of a tool run now, and the most that ever ran at once.
#[derive(Default)]
struct Running {
    now: AtomicUsize,
    most: AtomicUsize,
}

/// `hold`: counts itself running, then waits until `gate` opens; it may run as a task.
fn hold(gate: &watch::Receiver<bool>, running: &Arc<Running>) -> ToolProxy {
    let mut definition = ToolDefinition::new("hold", "Holds", json!({"type": "object"}));
    definition.options.task = TaskSupport::Optional;
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
    let client = raw_client(&server.url()).await;
    let call = json!({"name": "hold", "task": {"ttl": 60_000}});
    let mut started = Vec::new();
    let mut refused = Vec::new();
    for _ in 0..6 {
        match raw(&client, "tools/call", call.clone()).await {
            Ok(created) => started.push(created["task"]["taskId"].clone()),
            Err(err) => refused.push(err),
        }
    }
    assert_eq!((started.len(), refused.len()), (2, 4), "{refused:?}");
    assert!(
        refused[0].contains("the server is busy: 2 tool calls are running, its limit"),
        "{refused:?}"
    );
    // A plain call finds no place either while the two tasks hold them.
    let plain = raw(&client, "tools/call", json!({"name": "hold"})).await;
    assert!(plain.is_err_and(|err| err.contains("the server is busy")));

    for _ in 0..200 {
        if running.now.load(Ordering::SeqCst) == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    open.send_replace(true);
    for id in &started {
        let result = raw(&client, "tasks/result", json!({"taskId": id}))
            .await
            .expect("a result");
        assert_eq!(result["content"][0]["text"], "held", "{result}");
    }
    assert_eq!(running.most.load(Ordering::SeqCst), 2);
    // Their places are free again.
    let again = raw(&client, "tools/call", call).await.expect("a task");
    let id = again["task"]["taskId"].clone();
    let result = raw(&client, "tasks/result", json!({"taskId": id}))
        .await
        .expect("a result");
    assert_eq!(result["content"][0]["text"], "held");
    assert_eq!(running.most.load(Ordering::SeqCst), 2);

    client.cancel().await.expect("close");
    server.shutdown().await.expect("shutdown");
}

/// `big`: answers a string of `bytes` `x`s; it may run as a task.
fn big() -> ToolProxy {
    let schema = json!({"type": "object", "properties": {"bytes": {"type": "integer"}}});
    let mut definition = ToolDefinition::new("big", "A long answer", schema);
    definition.options.task = TaskSupport::Optional;
    ToolProxy::from_async_fn(definition, |arguments| async move {
        let bytes = arguments["bytes"].as_u64().unwrap_or(0);
        Ok::<_, String>("x".repeat(usize::try_from(bytes).unwrap_or(0)))
    })
}

/// Runs `big` as a task of `bytes` and waits for it: its id, and its result's text length.
async fn finished_task(client: &super::tasks::RawClient, bytes: u64) -> (Value, usize) {
    let call = json!({"name": "big", "arguments": {"bytes": bytes}, "task": {"ttl": 600_000}});
    let created = raw(client, "tools/call", call).await.expect("a task");
    let id = created["task"]["taskId"].clone();
    let result = raw(client, "tasks/result", json!({"taskId": id}))
        .await
        .expect("a result");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (id, text.len())
}

/// Every session's finished results share one budget (8 MiB here): of twelve 1 MB results,
/// six a session, the eight newest are kept, and the four oldest, all the first session's,
/// expire early with a clear error, their task saying so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_task_results_share_one_byte_budget_and_the_oldest_expire_first() {
    let server = McpServer::new(vec![big()])
        .with_max_task_result_bytes(8 << 20)
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let first = raw_client(&server.url()).await;
    let second = raw_client(&server.url()).await;
    let mut ids = Vec::new();
    for n in 0..12 {
        let client = if n < 6 { &first } else { &second };
        let (id, length) = finished_task(client, 1_000_000).await;
        assert_eq!(length, 1_000_000);
        ids.push((client, id));
    }
    let mut kept = Vec::new();
    for (n, (client, id)) in ids.iter().enumerate() {
        match raw(client, "tasks/result", json!({"taskId": id})).await {
            Ok(result) => {
                let text = result["content"][0]["text"].as_str().unwrap_or_default();
                assert_eq!(text.len(), 1_000_000);
                kept.push(n);
            }
            Err(err) => assert!(
                err.contains(&format!(
                    "the result of task {} expired before its time to live: the server keeps \
                     at most 8388608 bytes of finished task results, and newer ones took its \
                     place",
                    id.as_str().unwrap_or_default()
                )),
                "{n}: {err}"
            ),
        }
    }
    assert_eq!(kept, (4..12).collect::<Vec<_>>());
    let (client, id) = &ids[0];
    let task = raw(client, "tasks/get", json!({"taskId": id}))
        .await
        .expect("the task");
    assert_eq!(task["status"], "completed", "{task}");
    assert!(
        task["statusMessage"]
            .as_str()
            .is_some_and(|message| message.contains("expired before its time to live")),
        "{task}"
    );

    first.cancel().await.expect("close");
    second.cancel().await.expect("close");
    server.shutdown().await.expect("shutdown");
}

/// Resident memory once two sessions hold 256 finished tasks of 1 MB results each.
async fn resident_after_512_results(server: McpServer) -> (Option<u64>, Option<u64>) {
    let before = resident_mb();
    let server = server
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let call = json!({"name": "big", "arguments": {"bytes": 1_000_000}, "task": {}});
    let mut clients = Vec::new();
    for _ in 0..2 {
        let client = raw_client(&server.url()).await;
        for _ in 0..256 {
            raw(&client, "tools/call", call.clone())
                .await
                .expect("a task");
        }
        clients.push(client);
    }
    for client in &clients {
        for _ in 0..600 {
            let list = raw(client, "tasks/list", json!({})).await.expect("tasks");
            let tasks = list["tasks"].as_array().cloned().unwrap_or_default();
            if tasks.iter().all(|task| task["status"] == "completed") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let after = resident_mb();
    for client in clients {
        client.cancel().await.expect("close");
    }
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
