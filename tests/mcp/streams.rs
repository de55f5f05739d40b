//! The client's resumption of a cut Streamable HTTP stream (SEP-1699): a loopback server
//! answers `tools/call` with an SSE stream that carries only a priming event (`id`, `retry`)
//! and ends; the client must wait the `retry` interval, then resume with `GET` and
//! `Last-Event-ID`, on which the server sends the answer.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures::StreamExt;
use serde_json::{Value, json};
use toolkit::mcp::{McpClient, McpTransport};

/// The server's `retry`, in milliseconds.
const RETRY_MS: u64 = 500;

#[derive(Default)]
struct Seen {
    /// The version `initialize` answers with (default 2025-11-25).
    version: Option<&'static str>,
    pending: Option<Value>,
    cut_at: Option<Instant>,
    /// When each `GET` with `Last-Event-ID` came, and the id it named.
    resumed: Vec<(Instant, String)>,
}

type Shared = Arc<Mutex<Seen>>;

fn sse(events: String, end: bool) -> Response {
    let first = futures::stream::iter([Ok::<_, std::io::Error>(events)]);
    let body = match end {
        true => Body::from_stream(first),
        false => Body::from_stream(first.chain(futures::stream::pending())),
    };
    let headers = [
        (header::CONTENT_TYPE, "text/event-stream"),
        (header::HeaderName::from_static("mcp-session-id"), "s1"),
    ];
    (headers, body).into_response()
}

fn json_answer(id: &Value, result: Value) -> Response {
    let headers = [
        (header::CONTENT_TYPE, "application/json"),
        (header::HeaderName::from_static("mcp-session-id"), "s1"),
    ];
    let body = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    (headers, body).into_response()
}

async fn on_post(seen: Shared, body: String) -> Response {
    let Ok(message) = serde_json::from_str::<Value>(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let id = message["id"].clone();
    let version = seen.lock().expect("lock").version.unwrap_or("2025-11-25");
    match message["method"].as_str().unwrap_or_default() {
        "initialize" => json_answer(
            &id,
            json!({"protocolVersion": version, "capabilities": {"tools": {}},
                   "serverInfo": {"name": "cuts-streams", "version": "1"}}),
        ),
        "tools/list" => json_answer(
            &id,
            json!({"tools": [{"name": "slow", "inputSchema": {"type": "object"}}]}),
        ),
        "tools/call" => {
            let mut seen = seen.lock().expect("lock");
            seen.pending = Some(id);
            seen.cut_at = Some(Instant::now());
            sse(format!("id: e1\nretry: {RETRY_MS}\ndata: \n\n"), true)
        }
        _ if id.is_null() => StatusCode::ACCEPTED.into_response(),
        _ => json_answer(&id, json!({})),
    }
}

async fn on_get(seen: Shared, headers: HeaderMap) -> Response {
    let mut seen = seen.lock().expect("lock");
    let priming = format!("id: g1\nretry: {RETRY_MS}\ndata: \n\n");
    let Some(last) = headers.get("last-event-id").and_then(|id| id.to_str().ok()) else {
        return sse(priming, false);
    };
    seen.resumed.push((Instant::now(), last.to_owned()));
    match seen.pending.take() {
        Some(id) => {
            let answer = json!({"jsonrpc": "2.0", "id": id,
                "result": {"content": [{"type": "text", "text": "resumed"}]}});
            sse(
                format!("{priming}event: message\nid: e2\ndata: {answer}\n\n"),
                false,
            )
        }
        None => sse(priming, false),
    }
}

/// The loopback server, and its URL.
async fn start(seen: &Shared) -> (tokio::task::JoinHandle<std::io::Result<()>>, String) {
    let (posted, got) = (Arc::clone(seen), Arc::clone(seen));
    let app = Router::new().route(
        "/mcp",
        post(move |body: String| on_post(Arc::clone(&posted), body))
            .get(move |headers: HeaderMap| on_get(Arc::clone(&got), headers)),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
    (
        tokio::spawn(async move { axum::serve(listener, app).await }),
        url,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_stream_is_resumed_after_its_retry_with_last_event_id() {
    let seen = Shared::default();
    let (server, url) = start(&seen).await;
    let client = McpClient::connect(McpTransport::http(url))
        .await
        .expect("connect");
    let slow = client.tools().into_iter().next().expect("one tool");
    let answer = slow
        .acall(json!({}))
        .await
        .expect("the answer, after resuming");
    assert_eq!(answer, json!("resumed"));

    let seen = seen.lock().expect("lock");
    let cut_at = seen.cut_at.expect("the call's stream was cut");
    let (resumed_at, last) = seen.resumed.first().expect("resumed with Last-Event-ID");
    assert_eq!(last, "e1");
    let waited = resumed_at.duration_since(cut_at);
    assert!(
        waited >= Duration::from_millis(RETRY_MS - 50),
        "resumed after {waited:?}, before the server's retry of {RETRY_MS} ms"
    );
    server.abort();
}

/// A server answering `initialize` with a version the client does not speak is refused, with
/// an error naming both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_speaking_an_unknown_version_is_refused() {
    let seen = Shared::default();
    seen.lock().expect("lock").version = Some("2030-01-01");
    let (server, url) = start(&seen).await;
    let refused = McpClient::connect(McpTransport::http(url)).await;
    let message = refused.expect_err("refused").to_string();
    assert!(message.contains("speaks MCP 2030-01-01"), "{message}");
    assert!(message.contains("2025-06-18, 2025-11-25"), "{message}");
    server.abort();
}
