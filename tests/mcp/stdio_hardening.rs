//! The MCP server over stdio (`McpServer::serve_io`) fed frames rmcp alone would drop without an
//! answer: every request gets exactly one reply, and a valid frame passes through untouched.

use crate::common;

use common::raw_mcp::{INITIALIZE, INITIALIZED, echo_server};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Sends each frame as one line after the handshake, and returns the replies to them, in order.
async fn replies_to(frames: &[&[u8]], expected: usize) -> Vec<Value> {
    let (client, server) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server);
    let serving = tokio::spawn(echo_server().serve_io(read, write));
    let (from_server, mut to_server) = tokio::io::split(client);
    let mut lines = BufReader::new(from_server).lines();
    let mut next = async || {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("a reply within 10 s")
            .expect("readable")
            .expect("a line");
        serde_json::from_str::<Value>(&line).expect("a JSON reply")
    };
    to_server
        .write_all(format!("{INITIALIZE}\n").as_bytes())
        .await
        .unwrap();
    assert_eq!(next().await["id"], 1);
    to_server
        .write_all(format!("{INITIALIZED}\n").as_bytes())
        .await
        .unwrap();
    for frame in frames {
        to_server.write_all(frame).await.unwrap();
        to_server.write_all(b"\n").await.unwrap();
    }
    let mut replies = Vec::new();
    for _ in 0..expected {
        replies.push(next().await);
    }
    // The client's end closes once both its halves are gone.
    drop((to_server, lines));
    serving
        .await
        .expect("the server task")
        .expect("a clean end");
    replies
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_that_is_not_utf8_gets_a_parse_error_and_the_next_call_still_runs() {
    let replies = replies_to(
        &[
            b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"\xff\xfe\"}}}",
            br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"fine"}}}"#,
        ],
        2,
    )
    .await;
    assert_eq!(
        replies[0],
        error(Value::Null, -32700, "Parse error: the message is not UTF-8")
    );
    assert_eq!(replies[1]["id"], 3);
    assert_eq!(replies[1]["result"]["content"][0]["text"], "fine");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_with_a_repeated_field_gets_invalid_request_with_its_id_when_readable() {
    let replies = replies_to(
        &[
            br#"{"jsonrpc":"2.0","id":4,"id":5,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#,
            br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","name":"echo","arguments":{}}}"#,
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","#,
        ],
        3,
    )
    .await;
    assert_eq!(
        replies[0],
        error(
            Value::Null,
            -32600,
            "Invalid Request: the field `id` appears more than once"
        )
    );
    assert_eq!(
        replies[1],
        error(
            json!(6),
            -32600,
            "Invalid Request: the field `name` appears more than once"
        )
    );
    assert_eq!(
        replies[2],
        error(
            Value::Null,
            -32700,
            "Parse error: the message is not JSON (EOF while parsing a value at line 1 column 46)"
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_valid_frame_passes_through_unchanged_with_repeated_keys_inside_arguments() {
    let replies = replies_to(
        &[br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","text":"b"}}}"#],
        1,
    )
    .await;
    assert_eq!(replies[0]["id"], 8);
    assert_eq!(replies[0]["result"]["content"][0]["text"], "b");
}
