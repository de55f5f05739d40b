//! One server, both eras of MCP: clients of 2025-06-18 and 2025-11-25 open a session with
//! `initialize`, clients of 2026-07-28 send their version and capabilities with every request,
//! over Streamable HTTP (stateful and stateless) and stdio. Spoken as raw JSON-RPC, so that
//! what is asserted is what is on the wire.

use crate::common;

use std::time::Duration;

use common::raw_mcp::echo_server;
use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolkit::mcp::{HttpOptions, HttpServerHandle, McpServer};
use toolkit::prelude::*;

const MODERN: &str = "2026-07-28";

/// The `_meta` every 2026-07-28 request carries.
fn meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": "eras", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// A 2026-07-28 request: `params` with the per-request `_meta`.
fn modern(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta(MODERN);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// An HTTP answer: its status, session header and the one JSON-RPC message it carried (read
/// from a JSON body or from the last `data:` line of an SSE stream).
struct Answer {
    status: StatusCode,
    session: Option<String>,
    message: Value,
    /// Every message of an SSE stream, in order (the notifications before the answer).
    stream: Vec<Value>,
}

async fn post(server: &HttpServerHandle, body: &Value, headers: &[(&str, &str)]) -> Answer {
    let mut request = reqwest::Client::new()
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .timeout(Duration::from_secs(30))
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status();
    let session = (response.headers().get("mcp-session-id"))
        .map(|id| id.to_str().expect("an ASCII session id").to_owned());
    let text = response.text().await.expect("a body");
    let stream: Vec<Value> = (text.lines().filter_map(|l| l.strip_prefix("data:")))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect();
    let message = match stream.last() {
        Some(last) => last.clone(),
        None => serde_json::from_str(&text).unwrap_or(Value::Null),
    };
    Answer {
        status,
        session,
        message,
        stream,
    }
}

/// The `echo` server over HTTP, with sessions for handshake-era clients.
async fn echo_http() -> HttpServerHandle {
    let server = echo_server().spawn_http("127.0.0.1:0", HttpOptions::default());
    server.await.expect("the server starts")
}

/// Asserts that `answer` is the JSON-RPC error `code` to request `id`, with HTTP `status`.
fn assert_refused(answer: &Answer, status: StatusCode, code: i64, id: u64) {
    let error = (&answer.message["error"]["code"], &answer.message["id"]);
    assert_eq!(
        (answer.status, error),
        (status, (&json!(code), &json!(id))),
        "{}",
        answer.message
    );
}

/// A 2026-07-28 request over HTTP with the headers that revision asks for.
async fn post_modern(server: &HttpServerHandle, body: &Value) -> Answer {
    let method = body["method"].as_str().expect("a method").to_owned();
    let mut headers = vec![("mcp-protocol-version", MODERN), ("mcp-method", &method)];
    let name = body["params"]["name"].as_str().map(str::to_owned);
    if let Some(name) = &name {
        headers.push(("mcp-name", name));
    }
    post(server, body, &headers).await
}

/// A handshake-era client's `echo` call: `initialize` at `version`, then the call in its
/// session; the call's result.
async fn call_as_handshake_client(
    server: &HttpServerHandle,
    version: &str,
    stateless: bool,
) -> Value {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "eras", "version": "1"}}});
    let opened = post(server, &initialize, &[]).await;
    assert_eq!(opened.status, StatusCode::OK, "{}", opened.message);
    assert_eq!(opened.message["result"]["protocolVersion"], version);
    assert_eq!(opened.session.is_none(), stateless);
    let session = opened.session.unwrap_or_default();
    let mut headers = vec![("mcp-protocol-version", version)];
    if !stateless {
        headers.push(("mcp-session-id", &session));
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        post(server, &initialized, &headers).await;
    }
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": version}}});
    post(server, &call, &headers).await.message
}

#[tokio::test]
async fn clients_of_2025_06_18_2025_11_25_and_2026_07_28_call_the_same_server() {
    for stateless in [false, true] {
        let options = HttpOptions::default().stateless(stateless);
        let server = echo_server()
            .spawn_http("127.0.0.1:0", options)
            .await
            .unwrap();
        for version in ["2025-06-18", "2025-11-25"] {
            let answer = call_as_handshake_client(&server, version, stateless).await;
            // No `resultType`: that field is 2026-07-28's.
            assert_eq!(
                answer["result"],
                json!({"content": [{"type": "text", "text": version}], "isError": false}),
                "stateless: {stateless}"
            );
        }
        let call = modern(
            3,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": MODERN}}),
        );
        let answer = post_modern(&server, &call).await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(answer.session, None, "a 2026-07-28 client gets no session");
        assert_eq!(
            answer.message["result"],
            json!({"content": [{"type": "text", "text": MODERN}], "isError": false,
                "resultType": "complete"}),
            "stateless: {stateless}"
        );
        server.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn discover_names_both_eras_and_refuses_a_request_without_its_meta() {
    let server = echo_http().await;
    let discovered = post_modern(&server, &modern(1, "server/discover", json!({}))).await;
    let result = &discovered.message["result"];
    let versions = result["supportedVersions"].as_array().expect("versions");
    for version in ["2025-06-18", "2025-11-25", MODERN] {
        assert!(
            versions.contains(&json!(version)),
            "{version} in {versions:?}"
        );
    }
    assert!(result["capabilities"]["tools"].is_object(), "{result}");
    assert_eq!(result["resultType"], "complete");

    let bare = json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {}});
    let refused = post(&server, &bare, &[("mcp-protocol-version", MODERN)]).await;
    assert_refused(&refused, StatusCode::BAD_REQUEST, -32602, 2);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_version_the_server_does_not_speak_is_refused_with_400_and_32022() {
    let server = echo_http().await;
    let mut body = modern(7, "tools/list", json!({}));
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let headers = [
        ("mcp-protocol-version", "2099-01-01"),
        ("mcp-method", "tools/list"),
    ];
    let refused = post(&server, &body, &headers).await;
    assert_refused(&refused, StatusCode::BAD_REQUEST, -32022, 7);
    assert_eq!(refused.message["error"]["data"]["requested"], "2099-01-01");
    let supported = &refused.message["error"]["data"]["supported"];
    assert!(
        supported
            .as_array()
            .is_some_and(|v| v.contains(&json!(MODERN))),
        "{supported}"
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn get_and_delete_from_a_2026_client_are_405_on_a_server_with_sessions() {
    let server = echo_http().await;
    let client = reqwest::Client::new();
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let answer = client
            .request(method.clone(), server.url())
            .header("accept", "text/event-stream")
            .header("mcp-protocol-version", MODERN)
            .timeout(Duration::from_secs(30))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), StatusCode::METHOD_NOT_ALLOWED, "{method}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_mcp_method_header_that_contradicts_the_body_is_refused() {
    let server = echo_http().await;
    let call = modern(
        4,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
    );
    // A method the body does not call, then a tool it does not name.
    for (method, name) in [("tools/list", "echo"), ("tools/call", "other")] {
        let headers = [
            ("mcp-protocol-version", MODERN),
            ("mcp-method", method),
            ("mcp-name", name),
        ];
        let refused = post(&server, &call, &headers).await;
        assert_refused(&refused, StatusCode::BAD_REQUEST, -32020, 4);
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn initialize_from_a_2026_client_is_a_method_it_no_longer_has() {
    let server = echo_http().await;
    let refused = post_modern(&server, &modern(5, "initialize", json!({}))).await;
    assert_refused(&refused, StatusCode::NOT_FOUND, -32601, 5);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn lists_carry_their_ttl_and_cache_scope_for_2026_clients_only() {
    let server = echo_server().with_list_ttl(Duration::from_secs(300));
    let server = server.spawn_http("127.0.0.1:0", HttpOptions::default().stateless(true));
    let server = server.await.unwrap();
    let listed = post_modern(&server, &modern(1, "tools/list", json!({})))
        .await
        .message;
    assert_eq!(listed["result"]["ttlMs"], 300_000);
    assert_eq!(listed["result"]["cacheScope"], "public");
    assert_eq!(listed["result"]["resultType"], "complete");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let legacy = post(&server, &list, &[("mcp-protocol-version", "2025-11-25")]).await;
    let fields = legacy.message["result"]
        .as_object()
        .expect("a result")
        .clone();
    assert_eq!(fields.keys().collect::<Vec<_>>(), ["tools"]);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_listen_stream_is_acknowledged_and_hears_only_the_changes_it_asked_for() {
    let server = echo_server();
    let notifier = server.notifier();
    let server = server
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .unwrap();
    let listen = modern(
        9,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    );
    let response = reqwest::Client::new()
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "subscriptions/listen")
        .body(listen.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut events = response.bytes_stream();
    let mut seen: Vec<Value> = Vec::new();
    let mut text = String::new();
    // Bounded: the acknowledgment, then the one change it asked for.
    for round in 0..50 {
        if seen
            .iter()
            .any(|m| m["method"] == "notifications/tools/list_changed")
        {
            break;
        }
        if round > 0 && seen.len() == 1 {
            // Acknowledged: the prompts change is not asked for, the tools change is.
            notifier.prompts_changed().await;
            notifier.tools_changed().await;
        }
        let chunk = tokio::time::timeout(Duration::from_secs(10), events.next()).await;
        let chunk = chunk
            .expect("an event in time")
            .expect("more stream")
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
        seen = (text.lines().filter_map(|l| l.strip_prefix("data:")))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect();
    }
    let methods: Vec<&str> = seen.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(
        methods,
        [
            "notifications/subscriptions/acknowledged",
            "notifications/tools/list_changed"
        ]
    );
    for message in &seen {
        assert_eq!(
            message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            9
        );
    }
    // An open listen stream does not hold the server's shutdown.
    let stopped = tokio::time::timeout(Duration::from_secs(10), server.shutdown()).await;
    stopped.expect("shut down in time").unwrap();
    drop(events);
}

#[derive(Default)]
struct Chatty;

#[toolset(name = "chatty")]
impl Chatty {
    /// Logs one line
    #[tool]
    async fn speak(&self, ctx: &ToolContext) -> String {
        ctx.info("said");
        "done".to_owned()
    }
}

#[tokio::test]
async fn a_2026_call_hears_logs_only_from_the_level_its_own_meta_names() {
    let server = McpServer::new(Chatty::to_tools());
    let server = server
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .unwrap();
    let logs_of = |answer: &Answer| -> Vec<Value> {
        (answer.stream.iter())
            .filter(|message| message["method"] == "notifications/message")
            .map(|message| message["params"]["data"].clone())
            .collect()
    };
    let call = modern(
        1,
        "tools/call",
        json!({"name": "chatty_speak", "arguments": {}}),
    );
    let silent = post_modern(&server, &call).await;
    assert_eq!(silent.message["result"]["content"][0]["text"], "done");
    assert_eq!(logs_of(&silent), Vec::<Value>::new());
    let mut call = call;
    call["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    assert_eq!(logs_of(&post_modern(&server, &call).await), [json!("said")]);
    call["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!("error");
    assert_eq!(
        logs_of(&post_modern(&server, &call).await),
        Vec::<Value>::new()
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn stdio_serves_a_2026_client_without_initialize() {
    let (client, server_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    let served = tokio::spawn(echo_server().serve_io(read, write));
    let (from_server, mut to_server) = tokio::io::split(client);
    let mut lines = BufReader::new(from_server).lines();
    let requests = [
        modern(1, "server/discover", json!({})),
        modern(
            2,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        ),
        modern(3, "initialize", json!({})),
    ];
    let mut answers = Vec::new();
    for request in requests {
        to_server
            .write_all(format!("{request}\n").as_bytes())
            .await
            .unwrap();
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line()).await;
        let line = line.expect("an answer in time").unwrap().expect("a line");
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    let versions = &answers[0]["result"]["supportedVersions"];
    assert!(
        versions
            .as_array()
            .is_some_and(|v| v.contains(&json!(MODERN))),
        "{versions}"
    );
    assert_eq!(
        answers[1]["result"],
        json!({"content": [{"type": "text", "text": "hi"}], "isError": false,
            "resultType": "complete"})
    );
    assert_eq!(answers[2]["error"]["code"], -32601);
    // The end of input ends the connection, and `serve_io` returns.
    to_server.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), served)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}
