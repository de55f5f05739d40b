//! A task-only tool through a proxy: the reference server's `simulate-research-query`
//! (MCP 2025-11-25 `execution.taskSupport: required`), served by `McpServer::proxy`. It lost its
//! task support there, ran as a plain call, and its result carried the upstream task's id.

use std::time::Duration;

use serde_json::{Value, json};
use toolkit::mcp::{HttpOptions, HttpServerHandle, McpServer};

use crate::proxy::{reference_client, reference_server};
use crate::tasks::{initialize, post};
use crate::tasks_extension::request;

const TOOL: &str = "simulate-research-query";

/// The ids of every task a JSON answer names (`taskId`, anywhere in it).
fn task_ids(value: &Value, ids: &mut Vec<String>) {
    match value {
        Value::Object(members) => {
            for (key, member) in members {
                match (key.as_str(), member.as_str()) {
                    ("taskId", Some(id)) => ids.push(id.to_owned()),
                    _ => task_ids(member, ids),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| task_ids(item, ids)),
        _ => {}
    }
}

/// The report's text, and that the answer names no task but `ours`.
fn report_of(answer: &Value, ours: &str) -> String {
    let mut ids = Vec::new();
    task_ids(answer, &mut ids);
    assert!(
        ids.iter().all(|id| id == ours),
        "{ids:?} besides {ours}: {answer}"
    );
    let text = answer["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("# Research Report: tasks"), "{answer}");
    text.to_owned()
}

/// A 2025-11-25 client of the proxy: the listing says `required`, a plain call is refused
/// (`-32601`), and a task-augmented one is a task of the proxy's whose result is the report.
async fn as_a_2025_client(proxy: &HttpServerHandle) {
    let url = proxy.url();
    let (_, session) = post(&url, None, &initialize("2025-11-25")).await;
    let session = session.as_deref();
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (listed, _) = post(&url, session, &list).await;
    let tools = listed["result"]["tools"].as_array().expect("tools");
    let tool = tools
        .iter()
        .find(|tool| tool["name"] == TOOL)
        .expect("listed");
    assert_eq!(
        tool["execution"],
        json!({"taskSupport": "required"}),
        "{tool}"
    );
    assert!(tool["_meta"].get("toolkit/taskSupport").is_none(), "{tool}");

    let arguments = json!({"topic": "tasks"});
    let plain = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": TOOL, "arguments": arguments}});
    let (refused, _) = post(&url, session, &plain).await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");

    let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": TOOL, "arguments": arguments, "task": {"ttl": 60_000}}});
    let (created, _) = post(&url, session, &call).await;
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .expect("a task");
    let result = json!({"jsonrpc": "2.0", "id": 5, "method": "tasks/result",
        "params": {"taskId": id}});
    let (answer, _) = post(&url, session, &result).await;
    report_of(&answer["result"], id);
}

/// A 2026-07-28 client of the proxy: `-32021` without the Tasks extension; with it, a task
/// whose `tasks/get` inlines the report once it has ended.
async fn as_a_2026_client(proxy: &HttpServerHandle) {
    let call = json!({"name": TOOL, "arguments": {"topic": "tasks"}});
    let refused = request(proxy, None, "tools/call", call.clone(), false).await;
    assert_eq!(refused.expect_err("refused")["code"], -32021);

    let created = request(proxy, None, "tools/call", call, true).await;
    let created = created.expect("a task");
    let id = created["taskId"].as_str().expect("a task id").to_owned();
    // The research takes a few seconds: 60 s bounds a hang, not the speed.
    for _ in 0..600 {
        let got = request(proxy, None, "tasks/get", json!({"taskId": id}), true).await;
        let got = got.expect("the task");
        if got["status"] != "working" {
            assert_eq!(got["status"], "completed", "{got}");
            report_of(&got["result"], &id);
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("task {id} did not end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_only_tool_stays_task_only_through_a_proxy_for_2025_and_2026_clients() {
    let Some(program) = reference_server() else {
        return;
    };
    let remote = reference_client(&program).await;
    let proxy = McpServer::proxy(&remote).await.expect("the remote server");
    let proxy = (proxy
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await)
        .expect("serve");
    as_a_2025_client(&proxy).await;
    as_a_2026_client(&proxy).await;
    proxy.shutdown().await.expect("shutdown");
}
