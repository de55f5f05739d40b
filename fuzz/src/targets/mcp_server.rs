//! The MCP server over an in-memory stdio pair, fed any frames after a valid handshake. The
//! input is the frames, one per line.
//!
//! Invariants: nothing panics and the session ends once the client closes; every line the
//! server writes is JSON; and every frame that is a JSON-RPC request with an id of its own gets
//! exactly one answer with that id (within seconds, whatever came before it).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use toolkit::builtin::TextProcessingToolset;
use toolkit::mcp::McpServer;
use toolkit::{ToolBuilder, ToolProxy, Toolset};

use super::input::runtime;

/// The id of the handshake's `initialize`, which fuzzed frames may reuse.
const INIT_ID: &str = "fuzz-init";
/// How long the answers to the fuzzed requests may take, on a loaded machine.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

fn tools() -> Vec<ToolProxy> {
    static TOOLS: OnceLock<Vec<ToolProxy>> = OnceLock::new();
    TOOLS
        .get_or_init(|| {
            let mut tools = Arc::new(TextProcessingToolset::new()).into_tools();
            let echo = ToolBuilder::new("echo")
                .description("Echo the text")
                .parameters(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
                .build(|args| Ok::<_, String>(args["text"].clone()))
                .unwrap_or_else(|err| panic!("the echo tool does not build: {err}"));
            tools.push(echo.with_options(|o| o.limits.timeout = Some(Duration::from_secs(1))));
            tools
        })
        .clone()
}

pub fn run(data: &[u8]) {
    let frames: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
    let expected = expected_ids(&frames);
    let answers = runtime().block_on(async {
        tokio::time::timeout(Duration::from_secs(20), session(&frames, &expected))
            .await
            .unwrap_or_else(|_| panic!("the session did not end within 20 s"))
    });
    let mut counts: HashMap<String, usize> = HashMap::new();
    for answer in &answers {
        if let Some(id) = answer.get("id").filter(|id| !id.is_null()) {
            *counts.entry(id.to_string()).or_default() += 1;
        }
    }
    for id in &expected {
        let count = counts.get(id).copied().unwrap_or(0);
        assert_eq!(count, 1, "request {id} got {count} answers");
    }
}

/// Runs one session; returns every line the server wrote, each parsed as JSON.
async fn session(frames: &[&[u8]], expected: &HashSet<String>) -> Vec<Value> {
    let (client, server_end) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_end);
    let served = tokio::spawn(McpServer::new(tools()).serve_io(server_read, server_write));
    let (client_read, mut client_write) = tokio::io::split(client);
    let (sender, mut received) = mpsc::unbounded_channel();
    let reader = tokio::spawn(async move {
        let mut lines = BufReader::new(client_read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let answer: Value = serde_json::from_str(&line).unwrap_or_else(|err| {
                panic!("the server wrote a line that is not JSON ({err}): {line}")
            });
            if sender.send(answer).is_err() {
                break;
            }
        }
    });
    let handshake = [
        json!({"jsonrpc": "2.0", "id": INIT_ID, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    let mut input = Vec::new();
    for message in handshake {
        input.extend(message.to_string().into_bytes());
        input.push(b'\n');
    }
    for frame in frames {
        input.extend_from_slice(frame);
        input.push(b'\n');
    }
    let writing = tokio::spawn(async move {
        let _ = client_write.write_all(&input).await;
        client_write
    });
    // Collect answers until every expected id has one, then close and take the rest.
    let mut answers = Vec::new();
    let mut waiting: HashSet<String> = expected.clone();
    let deadline = tokio::time::Instant::now() + ANSWER_WITHIN;
    while !waiting.is_empty() {
        match tokio::time::timeout_at(deadline, received.recv()).await {
            Ok(Some(answer)) => {
                if let Some(id) = answer.get("id") {
                    waiting.remove(&id.to_string());
                }
                answers.push(answer);
            }
            Ok(None) | Err(_) => break,
        }
    }
    if let Ok(mut client_write) = writing.await {
        let _ = client_write.shutdown().await;
    }
    while let Some(answer) = received.recv().await {
        answers.push(answer);
    }
    if let Err(err) = reader.await {
        std::panic::resume_unwind(err.into_panic());
    }
    // The session may end with an error (a client that never initialized properly); it must end.
    let _ = served.await;
    answers
}

/// The ids (as JSON text) of the frames that are JSON-RPC requests with an id no other frame
/// uses and that no cancellation names: each of these must be answered exactly once.
fn expected_ids(frames: &[&[u8]]) -> HashSet<String> {
    let mut uses: BTreeMap<String, usize> = BTreeMap::new();
    let mut cancelled = HashSet::new();
    let mut requests = Vec::new();
    for frame in frames {
        let Ok(Value::Object(message)) = serde_json::from_slice::<Value>(frame) else {
            continue;
        };
        if let Some(id) = message.get("id") {
            *uses.entry(id.to_string()).or_default() += 1;
        }
        if let Some(named) = message.get("params").and_then(|p| p.get("requestId")) {
            cancelled.insert(named.to_string());
        }
        let id = match message.get("id") {
            Some(id @ Value::String(_)) => id,
            Some(id @ Value::Number(n)) if n.is_i64() => id,
            _ => continue,
        };
        // A frame naming a field twice is answered too, but maybe without its id (`null`).
        let once = frame.windows(4).filter(|w| w == b"\"id\"").count() == 1;
        let is_request = message.get("jsonrpc") == Some(&json!("2.0"))
            && message.get("method").is_some_and(Value::is_string)
            && message.get("params").is_none_or(Value::is_object);
        if once && is_request {
            requests.push(id.to_string());
        }
    }
    requests
        .into_iter()
        .filter(|id| uses.get(id) == Some(&1) && !cancelled.contains(id))
        .filter(|id| id != &json!(INIT_ID).to_string())
        .collect()
}
