//! The Tasks extension (SEP-2663) for MCP 2026-07-28 clients: raw HTTP requests carrying their
//! version, client and capabilities in `_meta`, as that revision sends every request, to
//! toolkit's server. What older clients see of the same server is tests/mcp/tasks.rs's.

use std::time::Duration;

use serde_json::{Value, json};
use toolkit::context::Caller;
use toolkit::mcp::{HttpOptions, HttpServerHandle, McpServer, StaticTokens};
use toolkit::prelude::*;
use toolkit::{TaskSupport, ToolDefinition};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// `wait`, which runs `ms` milliseconds or until cancelled, with task support `task`.
fn wait(task: TaskSupport) -> ToolProxy {
    let schema = json!({"type": "object", "properties": {"ms": {"type": "integer"}}});
    let mut wait = ToolDefinition::new("wait", "Waits", schema);
    wait.options.task = task;
    ToolProxy::from_async_fn_with_context(wait, |arguments, ctx| async move {
        let ms = arguments.get("ms").and_then(Value::as_u64).unwrap_or(0);
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(ms)) => Ok(format!("waited {ms} ms")),
            () = ctx.cancelled() => Err("cancelled".to_owned()),
        }
    })
}

#[derive(serde::Deserialize, toolkit::schemars::JsonSchema)]
struct Sure {
    confirm: bool,
}

/// `confirm`, which asks the user whether they are sure, then says what they said.
fn confirm() -> ToolProxy {
    let mut confirm = ToolDefinition::new("confirm", "Asks first", json!({"type": "object"}));
    confirm.options.task = TaskSupport::Optional;
    ToolProxy::from_async_fn_with_context(confirm, |_arguments, ctx| async move {
        match ctx.elicit_keyed::<Sure>("sure", "Sure?").await {
            Ok(Elicited::Accepted(Sure { confirm })) => Ok(format!("confirmed: {confirm}")),
            Ok(_) => Ok("declined".to_owned()),
            Err(err) => Err(err.to_string()),
        }
    })
}

async fn serve(task: TaskSupport, options: HttpOptions) -> HttpServerHandle {
    (McpServer::new([wait(task)])
        .spawn_http("127.0.0.1:0", options)
        .await)
        .expect("serve")
}

/// `server` over HTTP on loopback, with the default options.
pub(crate) async fn on_loopback(server: McpServer) -> HttpServerHandle {
    (server
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await)
        .expect("serve")
}

/// One 2026-07-28 request (no session: its `_meta` says who asks and what it can do); the
/// answer's `result`, or its `error`, as JSON. `tasks`: the client declares the extension.
pub(crate) async fn request(
    server: &HttpServerHandle,
    token: Option<&str>,
    method: &str,
    mut params: Value,
    tasks: bool,
) -> Result<Value, Value> {
    let extensions = match tasks {
        true => json!({TASKS: {}}),
        false => json!({}),
    };
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": extensions},
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut post = reqwest::Client::new()
        .post(server.url())
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    // What routing reads (SEP-2243): a tool's name, a task's id.
    if let Some(name) = params["name"].as_str().or(params["taskId"].as_str()) {
        post = post.header("mcp-name", name);
    }
    if let Some(token) = token {
        post = post.bearer_auth(token);
    }
    let text = post.json(&body).send().await.expect("answered");
    let text = text.text().await.expect("a body");
    let data = (text.lines())
        .filter_map(|line| line.strip_prefix("data:"))
        .find(|data| !data.trim().is_empty())
        .unwrap_or(&text);
    let answer: Value = serde_json::from_str(data.trim()).expect("JSON");
    match answer.get("error") {
        Some(error) => Err(error.clone()),
        None => Ok(answer["result"].clone()),
    }
}

/// `tasks/get` until the task has ended (bounded).
pub(crate) async fn ended(server: &HttpServerHandle, token: Option<&str>, id: &str) -> Value {
    for _ in 0..200 {
        let got = request(server, token, "tasks/get", json!({"taskId": id}), true).await;
        let got = got.expect("the task");
        if got["status"] != "working" {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {id} did not end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_call_with_the_extension_becomes_a_task_whose_result_tasks_get_inlines() {
    let server = serve(TaskSupport::Required, HttpOptions::default()).await;
    let call = json!({"name": "wait", "arguments": {"ms": 20}});
    let created = request(&server, None, "tools/call", call, true).await;
    let created = created.expect("a task");
    assert_eq!(created["resultType"], "task", "{created}");
    assert_eq!(created["status"], "working", "{created}");
    assert_eq!(created["ttlMs"], 300_000, "{created}");
    assert_eq!(created["pollIntervalMs"], 250, "{created}");
    for legacy in ["task", "ttl", "pollInterval", "result"] {
        assert!(created.get(legacy).is_none(), "{legacy}: {created}");
    }
    let id = created["taskId"].as_str().expect("an id");
    let done = ended(&server, None, id).await;
    assert_eq!(done["resultType"], "complete", "{done}");
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "waited 20 ms"}])
    );
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert!(done["result"].get("_meta").is_none(), "{done}");
    // The 2025-11-25 methods the extension removed are unknown to a 2026-07-28 client.
    for removed in ["tasks/result", "tasks/list"] {
        let refused = request(&server, None, removed, json!({"taskId": id}), true).await;
        assert_eq!(refused.expect_err(removed)["code"], -32601);
    }
    server.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_task_is_cancelled_with_an_empty_ack_and_cancelling_it_again_acks_alike() {
    let server = serve(TaskSupport::Optional, HttpOptions::default()).await;
    let call = json!({"name": "wait", "arguments": {"ms": 60_000}});
    let created = request(&server, None, "tools/call", call, true).await;
    let id = created.expect("a task")["taskId"]
        .as_str()
        .expect("an id")
        .to_owned();
    // Answers to questions the task never asked are acknowledged and ignored.
    let update = json!({"taskId": id, "inputResponses": {"nobody": {"action": "decline"}}});
    let ack = request(&server, None, "tasks/update", update, true).await;
    assert_eq!(ack.expect("an ack"), json!({"resultType": "complete"}));
    for _ in 0..2 {
        let ack = request(&server, None, "tasks/cancel", json!({"taskId": id}), true).await;
        assert_eq!(ack.expect("an ack"), json!({"resultType": "complete"}));
    }
    let cancelled = ended(&server, None, &id).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert!(cancelled.get("result").is_none(), "{cancelled}");
    let unknown = request(&server, None, "tasks/get", json!({"taskId": "nope"}), true).await;
    assert_eq!(unknown.expect_err("unknown")["code"], -32602);
    let unknown = request(
        &server,
        None,
        "tasks/cancel",
        json!({"taskId": "nope"}),
        true,
    )
    .await;
    assert_eq!(unknown.expect_err("unknown")["code"], -32602);
    server.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_client_without_the_extension_gets_32021_for_a_task_only_tool_and_tasks_requests() {
    let server = serve(TaskSupport::Required, HttpOptions::default()).await;
    let call = json!({"name": "wait", "arguments": {"ms": 0}});
    let refused = request(&server, None, "tools/call", call, false).await;
    let refused = refused.expect_err("refused");
    assert_eq!(refused["code"], -32021, "{refused}");
    assert_eq!(
        refused["data"]["requiredCapabilities"],
        json!({"extensions": {TASKS: {}}})
    );
    let get = request(&server, None, "tasks/get", json!({"taskId": "x"}), false).await;
    assert_eq!(get.expect_err("refused")["code"], -32021);
    server.shutdown().await.expect("shutdown");

    // A tool that may run either way runs plainly for such a client.
    let server = serve(TaskSupport::Optional, HttpOptions::default()).await;
    let call = json!({"name": "wait", "arguments": {"ms": 0}});
    let plain = request(&server, None, "tools/call", call, false).await;
    let plain = plain.expect("a plain result");
    assert_eq!(plain["content"][0]["text"], "waited 0 ms", "{plain}");
    assert!(plain.get("taskId").is_none(), "{plain}");
    server.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_task_is_reached_only_by_the_caller_that_started_it() {
    let tokens = StaticTokens::new()
        .token("token-ann", Caller::new("ann"))
        .token("token-bob", Caller::new("bob"));
    let server = serve(
        TaskSupport::Optional,
        HttpOptions::default().token_verifier(tokens),
    )
    .await;
    let call = json!({"name": "wait", "arguments": {"ms": 60_000}});
    let created = request(&server, Some("token-ann"), "tools/call", call, true).await;
    let id = created.expect("a task")["taskId"]
        .as_str()
        .expect("an id")
        .to_owned();
    let params = json!({"taskId": id});
    let as_bob = request(
        &server,
        Some("token-bob"),
        "tasks/get",
        params.clone(),
        true,
    )
    .await;
    assert_eq!(as_bob.expect_err("not bob's")["code"], -32602);
    let as_bob = request(
        &server,
        Some("token-bob"),
        "tasks/cancel",
        params.clone(),
        true,
    )
    .await;
    assert_eq!(as_bob.expect_err("not bob's")["code"], -32602);
    let as_ann = request(&server, Some("token-ann"), "tasks/get", params, true).await;
    assert_eq!(as_ann.expect("ann's")["status"], "working");
    server.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_task_that_asks_shows_input_required_on_tasks_get_until_tasks_update_answers_it() {
    // A window no call outlasts: the call becomes a task because it asks.
    let server =
        on_loopback(McpServer::new([confirm()]).with_task_after(Duration::from_secs(600))).await;
    let call = json!({"name": "confirm", "arguments": {}});
    let created = request(&server, None, "tools/call", call, true).await;
    let created = created.expect("a task");
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().expect("an id").to_owned();
    let get = || request(&server, None, "tasks/get", json!({"taskId": id}), true);
    let mut asking = get().await.expect("the task");
    for _ in 0..200 {
        if asking["status"] == "input_required" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        asking = get().await.expect("the task");
    }
    assert_eq!(asking["status"], "input_required", "{asking}");
    let question = &asking["inputRequests"]["sure"];
    assert_eq!(question["method"], "elicitation/create", "{asking}");
    assert_eq!(question["params"]["message"], "Sure?", "{asking}");
    // A key no question waits under is acknowledged and changes nothing.
    let stray = json!({"taskId": id, "inputResponses": {"other": {"action": "decline"}}});
    let ack = request(&server, None, "tasks/update", stray, true).await;
    assert_eq!(ack.expect("an ack"), json!({"resultType": "complete"}));
    assert_eq!(get().await.expect("the task")["status"], "input_required");
    let answer = json!({"action": "accept", "content": {"confirm": true}});
    let update = json!({"taskId": id, "inputResponses": {"sure": answer}});
    let ack = request(&server, None, "tasks/update", update, true).await;
    assert_eq!(ack.expect("an ack"), json!({"resultType": "complete"}));
    let done = ended(&server, None, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "confirmed: true"}])
    );
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_may_run_as_a_task_and_answers_within_the_window_is_a_plain_result() {
    let server = serve(TaskSupport::Optional, HttpOptions::default()).await;
    let call = json!({"name": "wait", "arguments": {"ms": 0}});
    let answer = request(&server, None, "tools/call", call, true).await;
    let answer = answer.expect("a result");
    assert_eq!(answer["resultType"], "complete", "{answer}");
    assert!(answer.get("taskId").is_none(), "{answer}");
    assert_eq!(
        answer["content"],
        json!([{"type": "text", "text": "waited 0 ms"}])
    );
    server.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_may_run_as_a_task_becomes_one_when_it_outlasts_the_window() {
    let server = McpServer::new([wait(TaskSupport::Optional)])
        .with_task_after(Duration::from_millis(50))
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let call = json!({"name": "wait", "arguments": {"ms": 400}});
    let created = request(&server, None, "tools/call", call, true).await;
    let created = created.expect("a task");
    assert_eq!(created["resultType"], "task", "{created}");
    assert_eq!(created["status"], "working", "{created}");
    let id = created["taskId"].as_str().expect("an id");
    let done = ended(&server, None, id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "waited 400 ms"}])
    );
    server.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_tool_panics_ends_failed_with_an_internal_error_and_no_result() {
    let mut definition = ToolDefinition::new("boom", "Panics", json!({"type": "object"}));
    definition.options.task = TaskSupport::Required;
    let boom = ToolProxy::from_async_fn(definition, |_arguments| async move {
        if std::hint::black_box(true) {
            panic!("the disk caught fire");
        }
        Ok::<_, String>("unreachable".to_owned())
    });
    let server = McpServer::new([boom])
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let call = json!({"name": "boom", "arguments": {}});
    let created = request(&server, None, "tools/call", call, true).await;
    let id = created.expect("a task")["taskId"]
        .as_str()
        .expect("an id")
        .to_owned();
    let failed = ended(&server, None, &id).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    let message = failed["error"]["message"].as_str().expect("a message");
    assert!(
        message.contains("boom panicked: the disk caught fire"),
        "{failed}"
    );
    assert!(failed.get("result").is_none(), "{failed}");
    server.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_only_tool_that_answers_at_once_still_ends_its_task_completed() {
    // The tool's result may come before its call has answered with the task: it is the task's.
    let mut instant = ToolDefinition::new("instant", "Answers", json!({"type": "object"}));
    instant.options.task = TaskSupport::Required;
    let instant = ToolProxy::from_fn(instant, |_arguments| Ok::<_, String>("done".to_owned()));
    let server = on_loopback(McpServer::new([instant])).await;
    for _ in 0..20 {
        let call = json!({"name": "instant", "arguments": {}});
        let created = request(&server, None, "tools/call", call, true).await;
        let created = created.expect("a task");
        let id = created["taskId"].as_str().expect("an id");
        let done = ended(&server, None, id).await;
        assert_eq!(done["status"], "completed", "{done}");
        let text = json!([{"type": "text", "text": "done"}]);
        assert_eq!(done["result"]["content"], text, "{done}");
    }
    server.shutdown().await.expect("shutdown");
}
