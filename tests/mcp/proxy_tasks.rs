//! Task-only tools through a proxy (`McpServer::proxy`). A remote 2026-07-28 server's task is
//! followed by the proxy's client; the proxy answers its own clients with the result, or, for a
//! 2026-07-28 client with the Tasks extension, with a task of its own, naming no upstream task. The reference server's `simulate-research-query` (MCP
//! 2025-11-25 `execution.taskSupport: required`) is called plainly, as every tool of a
//! handshake-era server is: its refusal reaches the proxy's client as the call's error.

use std::time::Duration;

use serde_json::{Value, json};
use toolkit::mcp::{McpClient, McpServer, McpTransport};
use toolkit::prelude::*;

use crate::proxy::{reference_client, reference_server};
use crate::tasks::{initialize, post};
use crate::tasks_extension::{ended, on_loopback, request};

/// Researches a topic for a second and a half; runs as a task only
#[tool(task)]
async fn research(topic: String) -> String {
    tokio::time::sleep(Duration::from_millis(1500)).await;
    format!("# Research Report: {topic}")
}

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

/// A 2025-11-25 session with `url`: its id.
async fn session_2025(url: &str) -> Option<String> {
    let (_, session) = post(url, None, &initialize("2025-11-25")).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(url, session.as_deref(), &initialized).await;
    session
}

/// A plain `tools/call` of `tool` from a 2025-11-25 client: the answer.
async fn call_2025(url: &str, session: Option<&str>, tool: &str) -> Value {
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": tool, "arguments": {"topic": "tasks"}}});
    post(url, session, &call).await.0
}

/// A 2026-07-28 server whose task-only tool the proxy's client (the Tasks extension declared)
/// follows as a task: a 2025-11-25 client of the proxy and a 2026-07-28 one without the
/// extension get the report as a plain result, and one with it a task of the proxy's; no
/// upstream task id reaches any of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_2026_task_reaches_the_proxys_clients_as_a_result_or_a_task_of_the_proxys() {
    let upstream = on_loopback(McpServer::new([research_tool()])).await;
    let remote = McpClient::connect(McpTransport::http(upstream.url()))
        .await
        .expect("connect");
    let proxy = McpServer::proxy(&remote).await.expect("the remote server");
    let proxy = on_loopback(proxy).await;
    let report = json!([{"type": "text", "text": "# Research Report: tasks"}]);

    let url = proxy.url();
    let session = session_2025(&url).await;
    let answer = call_2025(&url, session.as_deref(), "research").await;
    assert_eq!(answer["result"]["content"], report, "{answer}");
    let mut ids = Vec::new();
    task_ids(&answer, &mut ids);
    assert_eq!(ids, Vec::<String>::new(), "{answer}");

    let call = json!({"name": "research", "arguments": {"topic": "tasks"}});
    let answer = request(&proxy, None, "tools/call", call.clone(), false).await;
    let answer = answer.expect("the report");
    assert_eq!(answer["content"], report, "{answer}");
    let mut ids = Vec::new();
    task_ids(&answer, &mut ids);
    assert_eq!(ids, Vec::<String>::new(), "{answer}");

    // With the extension, the long call becomes the proxy's own task, whose result names none.
    let created = request(&proxy, None, "tools/call", call, true).await;
    let created = created.expect("a task of the proxy");
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().expect("an id");
    let done = ended(&proxy, None, id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"], report, "{done}");
    let mut ids = Vec::new();
    task_ids(&done["result"], &mut ids);
    assert_eq!(ids, Vec::<String>::new(), "{done}");
    proxy.shutdown().await.expect("shutdown");
    upstream.shutdown().await.expect("shutdown");
}

/// The reference server's task-only tool through a proxy: listed as any tool (no `execution`,
/// no `_meta` of toolkit's), called plainly upstream, and its refusal is the answer each client
/// of the proxy gets, as a tool error the model reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_only_tool_of_a_2025_server_is_refused_through_a_proxy_as_the_calls_error() {
    const TOOL: &str = "simulate-research-query";
    let Some(program) = reference_server() else {
        return;
    };
    let remote = reference_client(&program).await;
    let proxy = McpServer::proxy(&remote).await.expect("the remote server");
    let proxy = on_loopback(proxy).await;
    let url = proxy.url();
    let session = session_2025(&url).await;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (listed, _) = post(&url, session.as_deref(), &list).await;
    let tools = listed["result"]["tools"].as_array().expect("tools");
    let tool = tools
        .iter()
        .find(|tool| tool["name"] == TOOL)
        .expect("listed");
    assert!(tool.get("execution").is_none(), "{tool}");
    assert!(tool.get("_meta").is_none(), "{tool}");

    let answer = call_2025(&url, session.as_deref(), TOOL).await;
    let refused = |answer: &Value| {
        let result = &answer["content"][0]["text"];
        assert_eq!(answer["isError"], true, "{answer}");
        assert!(
            result.as_str().is_some_and(|text| text.contains("-32601")),
            "{answer}"
        );
    };
    refused(&answer["result"]);
    let call = json!({"name": TOOL, "arguments": {"topic": "tasks"}});
    let answer = request(&proxy, None, "tools/call", call, true).await;
    refused(&answer.expect("a tool error"));
    proxy.shutdown().await.expect("shutdown");
}
