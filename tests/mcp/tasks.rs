//! MCP tasks (2025-11-25), titles and protocol versions: toolkit's client against the
//! reference server `@modelcontextprotocol/server-everything`, and against toolkit's own
//! server.

use crate::common;

use std::time::{Duration, Instant};

use serde_json::json;
use toolkit::context::{ElicitationAnswer, ElicitationRequest, Role, SamplingReply};
use toolkit::mcp::{McpClient, McpTransport, UrlElicitation};
use toolkit::prelude::*;

use common::mcp::everything_server;

/// With sampling, elicitation and URL elicitation handlers and roots,
/// the client sees the 17 tools the reference server offers a client without tasks of its own
/// (the two `-async` ones need the client to run sampling and elicitation as tasks), and calls
/// its
/// task-augmented `simulate-research-query` (execution.taskSupport `required`): the call
/// becomes a task the client waits for (the server takes four one-second stages).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_servers_task_tool_is_called_as_a_task() {
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
    let began = Instant::now();
    let report = research
        .acall(json!({"topic": "tasks"}))
        .await
        .expect("the task's result");
    let report = report.as_str().unwrap_or_default().to_owned();
    assert!(report.contains("# Research Report: tasks"), "{report}");
    eprintln!("simulate-research-query: {:?}", began.elapsed());
}

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;
use toolkit::mcp::rmcp::model::{ClientRequest, CustomRequest};
use toolkit::mcp::rmcp::service::RunningService;
use toolkit::mcp::rmcp::transport::StreamableHttpClientTransport;
use toolkit::mcp::rmcp::{RoleClient, ServiceExt};
use toolkit::mcp::{HttpOptions, McpServer};
use toolkit::{Icon, TaskSupport, ToolDefinition};

/// `wait`: runs until its context is cancelled (then records it) or `ms` pass, reporting
/// progress; `quick` answers at once. `wait` may run as a task (`task`).
fn tools(task: TaskSupport, cancelled: &Arc<AtomicBool>) -> Vec<ToolProxy> {
    let schema = json!({"type": "object", "properties": {"ms": {"type": "integer"}}});
    let mut wait = ToolDefinition::new("wait", "Waits", schema);
    wait.options.task = task;
    wait.title = Some("Wait a while".into());
    let mut icon = Icon::new("data:image/png;base64,iVBORw0KGgo=");
    icon.mime_type = Some("image/png".into());
    wait.icons = vec![icon];
    let cancelled = Arc::clone(cancelled);
    let wait = ToolProxy::from_async_fn_with_context(wait, move |arguments, ctx| {
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
    });
    let quick = ToolDefinition::new("quick", "Answers at once", json!({"type": "object"}));
    let quick = ToolProxy::from_async_fn(quick, |_| async { Ok::<_, String>("quick") });
    vec![wait, quick]
}

async fn serve(task: TaskSupport, cancelled: &Arc<AtomicBool>) -> toolkit::mcp::HttpServerHandle {
    McpServer::new(tools(task, cancelled))
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve")
}

pub(crate) type RawClient = RunningService<RoleClient, ()>;

pub(crate) async fn raw_client(url: &str) -> RawClient {
    ().serve(StreamableHttpClientTransport::from_uri(url.to_owned()))
        .await
        .expect("initialize")
}

/// A request rmcp's client types do not model, its answer as JSON (or the error's message).
pub(crate) async fn raw(client: &RawClient, method: &str, params: Value) -> Result<Value, String> {
    let request = ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)));
    match client.send_request(request).await {
        Ok(answer) => Ok(serde_json::to_value(answer).expect("JSON")),
        Err(err) => Err(err.to_string()),
    }
}

async fn start(client: &RawClient, ms: u64) -> String {
    let created = raw(
        client,
        "tools/call",
        json!({"name": "wait", "arguments": {"ms": ms}, "task": {"ttl": 60_000}}),
    )
    .await
    .expect("a task");
    assert_eq!(created["task"]["status"], "working", "{created}");
    created["task"]["taskId"]
        .as_str()
        .expect("an id")
        .to_owned()
}

/// Start, poll, list, result, cancel, and isolation between sessions, through the protocol
/// itself; the server declares the capability and lists `execution.taskSupport`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_runs_as_a_task_that_is_polled_listed_cancelled_and_kept_to_its_session() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = serve(TaskSupport::Optional, &cancelled).await;
    let url = server.url();
    let client = raw_client(&url).await;
    let listed = raw(&client, "tools/list", json!({})).await.expect("tools");
    assert_eq!(listed["tools"][0]["title"], "Wait a while");
    assert_eq!(listed["tools"][0]["icons"][0]["mimeType"], "image/png");

    // A quick task: polled until it completes, then its result, tied to it.
    let id = start(&client, 50).await;
    let result = raw(&client, "tasks/result", json!({"taskId": id}))
        .await
        .expect("result");
    assert_eq!(result["content"][0]["text"], "waited 50 ms", "{result}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id
    );
    let task = raw(&client, "tasks/get", json!({"taskId": id}))
        .await
        .expect("task");
    assert_eq!(task["status"], "completed", "{task}");
    assert!(
        task["createdAt"]
            .as_str()
            .is_some_and(|at| at.ends_with('Z')),
        "{task}"
    );

    // A long one: listed while it works, cancelled (its context too), then not again.
    let long = start(&client, 30_000).await;
    let list = raw(&client, "tasks/list", json!({})).await.expect("list");
    let statuses: Vec<&Value> = list["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|t| &t["status"])
        .collect();
    assert_eq!(statuses, [&json!("completed"), &json!("working")], "{list}");
    let task = raw(&client, "tasks/cancel", json!({"taskId": long}))
        .await
        .expect("cancel");
    assert_eq!(task["status"], "cancelled", "{task}");
    let deadline = Instant::now() + Duration::from_secs(2);
    while !cancelled.load(Ordering::SeqCst) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        cancelled.load(Ordering::SeqCst),
        "the tool's context was cancelled"
    );
    let again = raw(&client, "tasks/cancel", json!({"taskId": long})).await;
    assert!(again.is_err_and(|err| err.contains("already cancelled")));
    let result = raw(&client, "tasks/result", json!({"taskId": long})).await;
    assert!(result.is_err_and(|err| err.contains("was cancelled")));

    // Another session sees none of them.
    let other = raw_client(&url).await;
    let list = raw(&other, "tasks/list", json!({})).await.expect("list");
    assert_eq!(list["tasks"], json!([]));
    let get = raw(&other, "tasks/get", json!({"taskId": id})).await;
    assert!(get.is_err_and(|err| err.contains("no task")));

    // Bad input: an unknown task, a tool that does not run as a task.
    let get = raw(&client, "tasks/get", json!({"taskId": "nope"})).await;
    assert!(get.is_err_and(|err| err.contains("no task nope")));
    let get = raw(&client, "tasks/get", json!({"taskId": 7})).await;
    assert!(get.is_err_and(|err| err.contains("`taskId` must be a string")));
    let nameless = raw(&client, "tools/call", json!({"task": {}})).await;
    assert!(nameless.is_err_and(|err| err.contains("tools/call params")));
    let unknown = raw(&client, "tools/call", json!({"name": "nope", "task": {}})).await;
    assert!(unknown.is_err_and(|err| err.contains("Unknown tool: nope. Available: ")));
    let quick = raw(&client, "tools/call", json!({"name": "quick", "task": {}})).await;
    assert!(quick.is_err_and(|err| err.contains("does not run as a task")));

    client.cancel().await.expect("close");
    other.cancel().await.expect("close");
    server.shutdown().await.expect("shutdown");
}

/// A tool that runs as a task only: a plain call is refused, and toolkit's client then calls
/// it as a task, keeping its title and icons; dropping the call cancels the task.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toolkits_client_calls_a_required_task_tool_of_toolkits_server() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = serve(TaskSupport::Required, &cancelled).await;
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
        .acall(json!({"ms": 20}))
        .await
        .expect("the task's result");
    assert_eq!(answer, json!("waited 20 ms"));

    // Dropped while it runs: the task, and the tool's context with it, are cancelled.
    let call = wait.acall(json!({"ms": 30_000}));
    assert!(
        tokio::time::timeout(Duration::from_millis(300), call)
            .await
            .is_err()
    );
    let deadline = Instant::now() + Duration::from_secs(2);
    while !cancelled.load(Ordering::SeqCst) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        cancelled.load(Ordering::SeqCst),
        "the dropped call's task was cancelled"
    );
    server.shutdown().await.expect("shutdown");
}

/// Clients speaking 2025-06-18 and 2025-11-25 get their version back; one asking for a
/// version the server does not know gets 2025-11-25, the newest with `initialize`. A server
/// whose tools may run as tasks declares the capability (rmcp's types drop it, so it is read
/// here off the wire).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_protocol_version_is_negotiated() {
    let cancelled = Arc::new(AtomicBool::new(false));
    let server = serve(TaskSupport::Optional, &cancelled).await;
    for (asked, answered) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
    ] {
        let (answer, session) = post(&server.url(), None, &initialize(asked)).await;
        assert_eq!(
            answer["result"]["protocolVersion"], answered,
            "{asked}: {answer}"
        );
        let tasks = &answer["result"]["capabilities"]["tasks"];
        assert_eq!(tasks["requests"]["tools"]["call"], json!({}), "{answer}");
        // The listing says which tools run as tasks.
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        let (listed, _) = post(&server.url(), session.as_deref(), &list).await;
        let tools = &listed["result"]["tools"];
        assert_eq!(tools[0]["execution"]["taskSupport"], "optional", "{listed}");
        assert!(tools[1].get("execution").is_none(), "{listed}");
    }
    server.shutdown().await.expect("shutdown");
}

pub(crate) fn initialize(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}})
}

/// One JSON-RPC request over HTTP: its answer (from a JSON or an SSE body) and the session id.
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
    (serde_json::from_str(data.trim()).expect("JSON"), session)
}
