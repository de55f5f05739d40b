//! Tasks across the eras. A 2026-07-28 client with the Tasks extension gets tasks (its wire
//! shape: tests/mcp/tasks_extension.rs); a handshake-era client (2024-11-05 to 2025-11-25) is
//! offered none and calls every tool plainly; toolkit's client calls the task-only tool of the
//! reference server `@modelcontextprotocol/server-everything` (2025-11-25) plainly too, and its
//! refusal is the call's error.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolkit::context::{ElicitationAnswer, ElicitationRequest, Role, SamplingReply};
use toolkit::mcp::{McpClient, McpServer, McpTransport, UrlElicitation};
use toolkit::prelude::*;
use toolkit::{Icon, TaskSupport, ToolDefinition};

use crate::tasks_extension::{on_loopback, request};
use common::mcp::everything_server;

/// With sampling, elicitation and URL elicitation handlers and roots, the client sees the 17
/// tools the reference server offers a client without tasks of its own (the two `-async` ones
/// need the client to run sampling and elicitation as tasks), and calls its
/// `simulate-research-query` (MCP 2025-11-25 `execution.taskSupport: required`) plainly, as
/// it calls every tool of a handshake-era server: the server's refusal is the call's error, a
/// sentence the model reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_servers_task_only_tool_is_called_plainly_and_its_refusal_is_the_error() {
    let Some(program) = everything_server() else {
        eprintln!(
            "skipped: node and npm are needed to run @modelcontextprotocol/server-everything"
        );
        return;
    };
    let client = McpClient::builder(
        McpTransport::stdio(program.to_string_lossy())
            .arg("stdio")
            .inherit_stderr(false),
    )
    .on_sampling(|_| async {
        Ok(SamplingReply {
            role: Role::Assistant,
            content: Content::text("sampled"),
            model: "test".into(),
            stop_reason: None,
        })
    })
    .on_elicit(|_: ElicitationRequest| async { ElicitationAnswer::Decline })
    .on_url_elicit(|request: UrlElicitation| async move {
        match request.url.as_str() {
            "https://example.com/sign-in" => ElicitationAnswer::Accept(json!({})),
            _ => ElicitationAnswer::Decline,
        }
    })
    .roots(["file:///tmp"])
    .connect()
    .await
    .expect("connect");
    // The server registers the tools a client's capabilities allow once it is initialized,
    // and says so with `tools/list_changed`.
    let deadline = Instant::now() + Duration::from_secs(5);
    while client.tools().len() < 17 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut names = client.tool_names();
    names.sort();
    assert_eq!(names.len(), 17, "{names:?}");
    for name in [
        "get-roots-list",
        "trigger-sampling-request",
        "trigger-elicitation-request",
        "trigger-url-elicitation",
    ] {
        assert!(
            names.iter().any(|listed| listed == name),
            "{name}: {names:?}"
        );
    }

    // URL elicitation reaches its handler.
    let url_tool = client
        .tools()
        .into_iter()
        .find(|tool| tool.name() == "trigger-url-elicitation")
        .expect("listed");
    let opened = url_tool
        .acall(json!({"url": "https://example.com/sign-in"}))
        .await
        .expect("an answer");
    assert!(
        opened[0]
            .as_str()
            .is_some_and(|text| text.contains("completed the URL elicitation")),
        "{opened}"
    );

    let research = client
        .tools()
        .into_iter()
        .find(|tool| tool.name() == "simulate-research-query")
        .expect("listed");
    let refused = research
        .acall(json!({"topic": "tasks"}))
        .await
        .expect_err("refused: it runs as a task only");
    let refused = refused.to_string();
    assert!(refused.contains("-32601"), "{refused}");
    assert!(refused.contains("simulate-research-query"), "{refused}");
}

/// Waits a while (a second and a half), then answers; runs as a task only
#[tool(task)]
async fn long_report(topic: String) -> String {
    tokio::time::sleep(Duration::from_millis(1500)).await;
    format!("report on {topic}")
}

pub(crate) fn initialize(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}})
}

/// One JSON-RPC message over HTTP: its answer (from a JSON or an SSE body; `null` for none,
/// a notification's) and the session id.
pub(crate) async fn post(
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> (Value, Option<String>) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .json(body);
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await.expect("answered");
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|id| id.to_str().ok())
        .map(str::to_owned);
    let text = response.text().await.expect("a body");
    let data = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .find(|data| !data.trim().is_empty())
        .unwrap_or(&text);
    let answer = match data.trim() {
        "" => Value::Null,
        data => serde_json::from_str(data).expect("JSON"),
    };
    (answer, session)
}

/// Clients speaking 2025-06-18 and 2025-11-25 get their version back; one asking for a
/// version the server does not know gets 2025-11-25, the newest with `initialize`. None of
/// them is offered tasks (no `tasks` capability, no Tasks extension, no `execution` on a
/// tool), and each calls the `#[tool(task)]` tool plainly and waits for its result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_client_sees_no_tasks_and_calls_a_task_only_tool_plainly() {
    let server = on_loopback(McpServer::new([long_report_tool()])).await;
    let url = server.url();
    for (asked, answered) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
    ] {
        let (answer, session) = post(&url, None, &initialize(asked)).await;
        let result = &answer["result"];
        assert_eq!(result["protocolVersion"], answered, "{asked}: {answer}");
        let capabilities = &result["capabilities"];
        assert!(capabilities.get("tasks").is_none(), "{answer}");
        assert!(capabilities.get("extensions").is_none(), "{answer}");
        assert!(capabilities.get("tools").is_some(), "{answer}");
        let session = session.as_deref();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        post(&url, session, &initialized).await;
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        let (listed, _) = post(&url, session, &list).await;
        let tool = &listed["result"]["tools"][0];
        assert_eq!(tool["name"], "long_report", "{listed}");
        assert!(tool.get("execution").is_none(), "{listed}");
        let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "long_report", "arguments": {"topic": asked}}});
        let (called, _) = post(&url, session, &call).await;
        assert_eq!(
            called["result"]["content"],
            json!([{"type": "text", "text": format!("report on {asked}")}]),
            "{called}"
        );
        assert!(called["result"].get("taskId").is_none(), "{called}");
    }
    server.shutdown().await.expect("shutdown");
}

/// `wait`: runs until its context is cancelled (then records it) or `ms` pass, reporting
/// progress; it runs as a task only. Titled and with an icon.
fn wait(cancelled: &Arc<AtomicBool>) -> ToolProxy {
    let schema = json!({"type": "object", "properties": {"ms": {"type": "integer"}}});
    let mut wait = ToolDefinition::new("wait", "Waits", schema);
    wait.options.task = TaskSupport::Required;
    wait.title = Some("Wait a while".into());
    let mut icon = Icon::new("data:image/png;base64,iVBORw0KGgo=");
    icon.mime_type = Some("image/png".into());
    wait.icons = vec![icon];
    let cancelled = Arc::clone(cancelled);
    ToolProxy::from_async_fn_with_context(wait, move |arguments, ctx| {
        let cancelled = Arc::clone(&cancelled);
        async move {
            let ms = arguments.get("ms").and_then(Value::as_u64).unwrap_or(0);
            ctx.progress(1.0, None, "waiting");
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(ms)) => Ok(format!("waited {ms} ms")),
                () = ctx.cancelled() => {
                    cancelled.store(true, Ordering::SeqCst);
                    Err("cancelled".to_owned())
                }
            }
        }
    })
}

/// Waits (bounded) until `flag` is set; whether it was.
async fn set_soon(flag: &AtomicBool) -> bool {
    for _ in 0..200 {
        if flag.load(Ordering::SeqCst) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    flag.load(Ordering::SeqCst)
}

/// `tasks/cancel` of a 2026-07-28 task reaches its tool: the tool's context is cancelled, and
/// the task reads `cancelled`. A call of a tool the server does not have makes no task.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_2026_task_cancels_its_tools_context() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = on_loopback(McpServer::new([wait(&cancelled)])).await;
    let call = json!({"name": "wait", "arguments": {"ms": 30_000}});
    let created = request(&server, None, "tools/call", call, true).await;
    let created = created.expect("a task");
    let id = created["taskId"].as_str().expect("an id").to_owned();
    let ack = request(&server, None, "tasks/cancel", json!({"taskId": id}), true).await;
    assert_eq!(ack.expect("an ack"), json!({"resultType": "complete"}));
    assert!(
        set_soon(&cancelled).await,
        "the tool's context was cancelled"
    );
    let task = request(&server, None, "tasks/get", json!({"taskId": id}), true).await;
    assert_eq!(task.expect("the task")["status"], "cancelled");

    let unknown = json!({"name": "nope", "arguments": {}});
    let unknown = request(&server, None, "tools/call", unknown, true).await;
    let unknown = unknown.expect_err("no such tool");
    let message = unknown["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("Unknown tool: nope. Available: wait"),
        "{unknown}"
    );
    server.shutdown().await.expect("shutdown");
}

/// toolkit's client (2026-07-28, the Tasks extension declared) against toolkit's server: a
/// task-only tool keeps its title and icons, its task is followed to its result, and dropping
/// the call cancels the task and the tool's context with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toolkits_client_follows_a_task_of_toolkits_server_and_dropping_the_call_cancels_it() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = on_loopback(McpServer::new([wait(&cancelled)])).await;
    let client = McpClient::connect(McpTransport::http(server.url()))
        .await
        .expect("connect");
    let wait = client
        .tools()
        .into_iter()
        .find(|tool| tool.name() == "wait")
        .expect("listed");
    assert_eq!(wait.title(), Some("Wait a while"));
    assert_eq!(
        wait.definition().icons[0].mime_type.as_deref(),
        Some("image/png")
    );
    let answer = wait
        .acall(json!({"ms": 1200}))
        .await
        .expect("the task's result");
    assert_eq!(answer, json!("waited 1200 ms"));

    // Dropped while it runs: the task, and the tool's context with it, are cancelled.
    let call = wait.acall(json!({"ms": 30_000}));
    assert!(
        tokio::time::timeout(Duration::from_millis(1500), call)
            .await
            .is_err()
    );
    assert!(
        set_soon(&cancelled).await,
        "the dropped call's task was cancelled"
    );
    server.shutdown().await.expect("shutdown");
}
