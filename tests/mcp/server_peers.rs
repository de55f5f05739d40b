//! The MCP HTTP server against peers that hold what others need or read the way the SDKs do:
//! clients that never read their answers, idle sockets past the connection cap, a foreign
//! `Origin`, one client opening session after session, a `tools/call` nested past serde_json's
//! limit, and a client whose writes meet Nagle's algorithm.

use crate::common;

use common::raw_mcp::{INITIALIZE, INITIALIZED, echo_server};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolkit::mcp::{HttpOptions, HttpServerHandle, McpServer};
use toolkit::prelude::*;
use toolkit::{Limits, ToolDefinition};

/// The request head of a `POST /mcp` carrying `length` bytes, with `extra` header lines.
fn head(server: &HttpServerHandle, length: usize, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{extra}Content-Length: {length}\r\n\r\n",
        server.local_addr()
    )
}

/// One HTTP/1.1 answer read off a kept-alive connection: status, headers (lower-cased names)
/// and body, a chunked one de-chunked.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The JSON-RPC message in the body, plain JSON or one SSE `data:` line.
    fn json(&self) -> Value {
        let text = self
            .body
            .lines()
            .find_map(|line| line.strip_prefix("data: ").filter(|data| !data.is_empty()))
            .unwrap_or(&self.body);
        serde_json::from_str(text).unwrap_or_else(|err| panic!("not JSON ({err}): {:?}", self.body))
    }
}

/// Reads one answer; a chunked body is read to its last chunk, so an SSE answer must end (a
/// `POST`'s stream ends once its response is sent).
fn read_answer(stream: &mut TcpStream) -> Answer {
    let mut buffered = Vec::new();
    let mut byte = [0u8; 1];
    while !buffered.ends_with(b"\r\n\r\n") {
        let read = stream.read(&mut byte).expect("read the head");
        assert_eq!(
            read,
            1,
            "connection closed in the head: {:?}",
            String::from_utf8_lossy(&buffered)
        );
        buffered.push(byte[0]);
    }
    let head = String::from_utf8(buffered).expect("an ASCII head");
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let mut answer = Answer {
        status,
        headers,
        body: String::new(),
    };
    if let Some(length) = answer.header("content-length") {
        let mut body = vec![0u8; length.parse().expect("a length")];
        stream.read_exact(&mut body).expect("read the body");
        answer.body = String::from_utf8(body).expect("UTF-8");
    } else if answer.header("transfer-encoding") == Some("chunked") {
        let mut body = Vec::new();
        loop {
            let mut line = Vec::new();
            while !line.ends_with(b"\r\n") {
                stream.read_exact(&mut byte).expect("read a chunk size");
                line.push(byte[0]);
            }
            let size = usize::from_str_radix(std::str::from_utf8(&line).unwrap().trim(), 16)
                .expect("a chunk size");
            let mut chunk = vec![0u8; size + 2];
            stream.read_exact(&mut chunk).expect("read a chunk");
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
        answer.body = String::from_utf8(body).expect("UTF-8");
    }
    answer
}

/// A connection to the server, with a read timeout so a broken server cannot hang the test.
fn connect(server: &HttpServerHandle) -> TcpStream {
    let stream = TcpStream::connect(server.local_addr()).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("set a read timeout");
    stream
}

/// Sends `body` with `extra` header lines in one write and reads the answer.
fn exchange(stream: &mut TcpStream, server: &HttpServerHandle, body: &str, extra: &str) -> Answer {
    let request = head(server, body.len(), extra) + body;
    stream.write_all(request.as_bytes()).expect("send");
    read_answer(stream)
}

/// Opens a session on `stream`: `initialize`, then `notifications/initialized`; its id.
fn open_session(stream: &mut TcpStream, server: &HttpServerHandle) -> String {
    let answer = exchange(stream, server, INITIALIZE, "");
    assert_eq!(answer.status, 200, "{}", answer.body);
    let session = answer
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let extra = format!("Mcp-Session-Id: {session}\r\n");
    let answer = exchange(stream, server, INITIALIZED, &extra);
    assert_eq!(answer.status, 202, "{}", answer.body);
    session
}

fn echo_call(id: usize, text: &str) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text}}
    })
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_written_the_way_the_sdks_write_them_are_not_stalled_by_nagle() {
    let server = echo_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let latencies = tokio::task::spawn_blocking(move || {
        let mut stream = connect(&server);
        // Node's HTTP client turns Nagle off on its side and writes the head and the body
        // separately; the server's answer then comes in pieces (head, SSE event, end).
        stream.set_nodelay(true).expect("TCP_NODELAY");
        let session = open_session(&mut stream, &server);
        let extra = format!("Mcp-Session-Id: {session}\r\n");
        let latencies: Vec<Duration> = (0..20)
            .map(|id| {
                let body = echo_call(id + 2, "hi");
                let began = Instant::now();
                stream
                    .write_all(head(&server, body.len(), &extra).as_bytes())
                    .expect("send the head");
                stream.write_all(body.as_bytes()).expect("send the body");
                let answer = read_answer(&mut stream);
                let took = began.elapsed();
                assert_eq!(answer.json()["result"]["content"][0]["text"], "hi");
                took
            })
            .collect();
        latencies
    })
    .await
    .expect("the client ends");
    let mut sorted = latencies.clone();
    sorted.sort();
    // Each stall is a delayed ACK's 40 ms; a call is otherwise answered in about a millisecond.
    assert!(
        sorted.iter().all(|took| *took < Duration::from_millis(40))
            && sorted[10] < Duration::from_millis(20),
        "{latencies:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_call_nested_past_serde_jsons_limit_gets_a_jsonrpc_parse_error() {
    let server = echo_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let answer = tokio::task::spawn_blocking(move || {
        let mut stream = connect(&server);
        let session = open_session(&mut stream, &server);
        let nested = "[".repeat(200) + &"]".repeat(200);
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{nested}}}}}}}"#
        );
        exchange(&mut stream, &server, &call, &format!("Mcp-Session-Id: {session}\r\n"))
    })
    .await
    .expect("the client ends");
    assert_eq!(
        (answer.status, answer.header("content-type")),
        (400, Some("application/json"))
    );
    let error = answer.json();
    assert_eq!(
        (&error["id"], &error["error"]["code"]),
        (&Value::Null, &json!(-32700)),
        "{error}"
    );
    assert!(
        error["error"]["message"]
            .as_str()
            .is_some_and(|message| message
                .starts_with("Parse error: the body is not JSON (recursion limit exceeded")),
        "{error}"
    );
}

/// The status and JSON-RPC error code a raw `initialize` gets with `extra` header lines.
fn initialize_with(server: &HttpServerHandle, extra: &str) -> (u16, Value) {
    let mut stream = connect(server);
    let answer = exchange(&mut stream, server, INITIALIZE, extra);
    let code = match answer.status {
        200 => Value::Null,
        _ => answer.json()["error"]["code"].clone(),
    };
    (answer.status, code)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_origin_gets_403_with_a_jsonrpc_error_and_a_local_one_passes() {
    let server = echo_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let answers = tokio::task::spawn_blocking(move || {
        let mut stream = connect(&server);
        let foreign = exchange(
            &mut stream,
            &server,
            INITIALIZE,
            "Origin: http://evil.example\r\n",
        );
        let others = [
            "Origin: http://localhost:5173\r\n",
            "Origin: https://127.0.0.1\r\n",
            "",
        ]
        .map(|origin| initialize_with(&server, origin).0);
        (
            foreign.status,
            foreign.header("content-type").map(str::to_owned),
            foreign.json(),
            others,
        )
    })
    .await
    .expect("the client ends");
    assert_eq!(
        answers,
        (
            403,
            Some("application/json".to_owned()),
            json!({
                "jsonrpc": "2.0",
                "id": 1,
                "error": {"code": -32000, "message": "Forbidden: Origin header is not allowed"}
            }),
            [200, 200, 200]
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_allowed_origins_can_be_configured() {
    let options = HttpOptions::default().allowed_origins(["https://app.example.com:443"]);
    let server = echo_server()
        .spawn_http("127.0.0.1:0", options)
        .await
        .expect("serve");
    let statuses = tokio::task::spawn_blocking(move || {
        [
            "Origin: https://app.example.com\r\n",
            "Origin: http://localhost:5173\r\n",
        ]
        .map(|origin| initialize_with(&server, origin))
    })
    .await
    .expect("the client ends");
    assert_eq!(statuses, [(200, Value::Null), (403, json!(-32000))]);
}

/// `echo`, and `big`, whose answer (16 MB) is more than loopback's socket buffers hold, so a
/// client that does not read it leaves the server waiting to write; served with room for it.
fn big_answer_server() -> McpServer {
    let schema = json!({"type": "object", "properties": {}});
    let big = ToolProxy::from_fn(ToolDefinition::new("big", "A big answer", schema), |_| {
        Ok::<_, String>(Value::String("x".repeat(16 << 20)))
    });
    let mut tools = echo_server().tools().to_vec();
    tools.push(big);
    let toolbox = Toolbox::builder()
        .tools("test", tools)
        .limits(Limits::default().with_max_output_bytes(32 << 20))
        .build()
        .expect("a toolbox");
    McpServer::from_toolbox(toolbox)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_never_read_their_answers_hold_no_call_place_and_are_cut_off_at_the_write_timeout()
 {
    let options = HttpOptions::default()
        .max_concurrent_calls(2)
        .write_timeout(Duration::from_millis(500));
    let server = big_answer_server()
        .spawn_http("127.0.0.1:0", options)
        .await
        .expect("serve");
    let (texts, cut) = tokio::task::spawn_blocking(move || {
        // As many clients as there are call places, each asking for the big answer and reading
        // none of it.
        let mut silent: Vec<TcpStream> = (0..2)
            .map(|id| {
                let mut stream = connect(&server);
                let session = open_session(&mut stream, &server);
                let call = json!({"jsonrpc": "2.0", "id": 10 + id, "method": "tools/call",
                    "params": {"name": "big", "arguments": {}}})
                .to_string();
                let extra = format!("Mcp-Session-Id: {session}\r\n");
                let request = head(&server, call.len(), &extra) + &call;
                stream.write_all(request.as_bytes()).expect("send");
                stream
            })
            .collect();
        std::thread::sleep(Duration::from_millis(200));
        let mut other = connect(&server);
        let session = open_session(&mut other, &server);
        let extra = format!("Mcp-Session-Id: {session}\r\n");
        let texts: Vec<Value> = (0..5)
            .map(|id| {
                let answer = exchange(&mut other, &server, &echo_call(id + 2, "hi"), &extra);
                answer.json()["result"]["content"][0]["text"].clone()
            })
            .collect();
        // Three times the write timeout: each silent connection must be closed by now, its
        // answer cut short, and what was sent before (the socket buffers' worth) then ends.
        std::thread::sleep(Duration::from_millis(1500));
        let cut: Vec<bool> = silent
            .iter_mut()
            .map(|stream| {
                let mut received = Vec::new();
                let ended = stream.read_to_end(&mut received).is_ok();
                ended && received.len() < 16 << 20
            })
            .collect();
        (texts, cut)
    })
    .await
    .expect("the clients end");
    assert_eq!(texts, vec![json!("hi"); 5]);
    assert_eq!(cut, [true, true]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_served_tools_answer_is_cut_at_one_mib_unless_its_toolbox_says_otherwise() {
    let schema = json!({"type": "object", "properties": {}});
    let big = ToolProxy::from_fn(ToolDefinition::new("big", "A big answer", schema), |_| {
        Ok::<_, String>(Value::String("x".repeat(4 << 20)))
    });
    let server = McpServer::new([big])
        .spawn_http("127.0.0.1:0", HttpOptions::default().stateless(true))
        .await
        .expect("serve");
    let text = tokio::task::spawn_blocking(move || {
        let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}"#;
        let answer = exchange(&mut connect(&server), &server, call, "");
        answer.json()["result"]["content"][0]["text"]
            .as_str()
            .expect("a text")
            .to_owned()
    })
    .await
    .expect("the client ends");
    assert_eq!(text.len(), toolkit::mcp::DEFAULT_MAX_OUTPUT_BYTES);
    assert!(
        text.ends_with(&format!(" of {} bytes]", 4 << 20)),
        "{}",
        &text[text.len() - 80..]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sockets_past_the_connection_cap_make_room_and_a_real_request_is_answered_at_once() {
    let server = echo_server()
        .spawn_http(
            "127.0.0.1:0",
            // All from one address here: its share is the whole cap.
            HttpOptions::default()
                .max_connections(8)
                .max_connections_per_client(8),
        )
        .await
        .expect("serve");
    let (closed, answered, took) = tokio::task::spawn_blocking(move || {
        // Twenty sockets that send nothing; the read timeout (30 s) would not close them yet.
        let mut idle: Vec<TcpStream> = (0..20).map(|_| connect(&server)).collect();
        std::thread::sleep(Duration::from_millis(200));
        let began = Instant::now();
        let answered = exchange(&mut connect(&server), &server, INITIALIZE, "").status;
        let took = began.elapsed();
        // The oldest idle sockets made room for the newer ones: closed by the server (EOF),
        // the newest still open.
        let closed: Vec<bool> = idle
            .iter_mut()
            .map(|stream| {
                stream
                    .set_read_timeout(Some(Duration::from_millis(300)))
                    .expect("set a read timeout");
                matches!(stream.read(&mut [0u8; 1]), Ok(0))
            })
            .collect();
        (closed, answered, took)
    })
    .await
    .expect("the client ends");
    assert_eq!(answered, 200);
    // Answered in about a millisecond; 2 s is far from the 30 s the idle sockets would last.
    assert!(took < Duration::from_secs(2), "took {took:?}");
    let expected: Vec<bool> = (0..20).map(|index| index < 13).collect();
    assert_eq!(closed, expected);
}

/// A connection from another loopback address (`127.0.0.N`), which the server counts as
/// another client. std cannot choose a connection's source address; tokio's `TcpSocket` can.
fn connect_from(server: &HttpServerHandle, last_octet: u8) -> TcpStream {
    let source = std::net::SocketAddr::from(([127, 0, 0, last_octet], 0));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .expect("a runtime");
    let stream = runtime
        .block_on(async {
            let socket = tokio::net::TcpSocket::new_v4()?;
            socket.bind(source)?;
            socket.connect(server.local_addr()).await?.into_std()
        })
        .expect("connect");
    stream.set_nonblocking(false).expect("blocking");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("set a read timeout");
    stream
}

/// The status of a raw `initialize` from `127.0.0.N`, and its session id if one was opened.
fn initialize_from(server: &HttpServerHandle, last_octet: u8) -> (u16, Option<String>) {
    let answer = exchange(
        &mut connect_from(server, last_octet),
        server,
        INITIALIZE,
        "",
    );
    (
        answer.status,
        answer.header("mcp-session-id").map(str::to_owned),
    )
}

/// A connection from `127.0.0.N` that sends a request's head and the first bytes of its body,
/// then nothing more: a client trickling its body, at its slowest.
fn trickler(server: &HttpServerHandle, last_octet: u8) -> TcpStream {
    let mut stream = connect_from(server, last_octet);
    let started = head(server, INITIALIZE.len(), "") + &INITIALIZE[..10];
    stream.write_all(started.as_bytes()).expect("send the head");
    stream
}

/// The status the server answered on `stream` within 300 ms, if any; `None` too when it
/// closed the connection without an answer.
fn answered(stream: &mut TcpStream) -> Option<(u16, String)> {
    stream
        .set_read_timeout(Some(Duration::from_millis(300)))
        .expect("set a read timeout");
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    while let Ok(read @ 1..) = stream.read(&mut buffer) {
        answer.extend_from_slice(&buffer[..read]);
    }
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text.split(' ').nth(1)?.parse().ok()?;
    let body = text.split_once("\r\n\r\n")?.1.to_owned();
    Some((status, body))
}

/// Whether a fresh `initialize` from `127.0.0.N` is answered, and how long it took.
fn fresh_client(server: &HttpServerHandle, last_octet: u8) -> (Option<u16>, Duration) {
    let began = Instant::now();
    let mut stream = connect_from(server, last_octet);
    let request = head(server, INITIALIZE.len(), "") + INITIALIZE;
    let _ = stream.write_all(request.as_bytes());
    let status = answered(&mut stream).map(|(status, _)| status);
    (status, began.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_trickling_their_bodies_from_one_address_get_its_share_and_another_is_served_at_once()
 {
    // Half the cap at most, 4 here, unless told otherwise.
    let server = echo_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default().max_connections(8))
        .await
        .expect("serve");
    let (held, fresh, took) = tokio::task::spawn_blocking(move || {
        let mut tricklers: Vec<TcpStream> = (0..8).map(|_| trickler(&server, 2)).collect();
        std::thread::sleep(Duration::from_millis(200));
        let (fresh, took) = fresh_client(&server, 3);
        // The tricklers past the address's share were closed at once, unanswered; the others
        // still wait for their bodies.
        let held = tricklers
            .iter_mut()
            .map(|stream| {
                stream
                    .set_read_timeout(Some(Duration::from_millis(300)))
                    .expect("set a read timeout");
                // Closed unread, a connection is reset rather than ended.
                let waiting = stream.read(&mut [0u8; 1]).map_err(|err| err.kind());
                matches!(
                    waiting,
                    Err(std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)
                )
            })
            .filter(|waiting| *waiting)
            .count();
        (held, fresh, took)
    })
    .await
    .expect("the clients end");
    eprintln!(
        "figure: 8 body tricklers from one address, {held} held; another address answered {fresh:?} in {took:?}"
    );
    assert_eq!((held, fresh), (4, Some(200)));
    // Answered in milliseconds; before, the tricklers held every place until the read timeout
    // (30 s) and the new client was closed unanswered.
    assert!(took < Duration::from_secs(2), "took {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_connection_cap_a_body_arriving_for_over_a_second_makes_room_with_408() {
    let options = HttpOptions::default()
        .max_connections(8)
        .max_connections_per_client(8);
    let server = echo_server()
        .spawn_http("127.0.0.1:0", options)
        .await
        .expect("serve");
    let (early, fresh, took, answers) = tokio::task::spawn_blocking(move || {
        let mut tricklers: Vec<TcpStream> = (0..8)
            .map(|_| {
                // Apart, so that which body began first is not a race.
                std::thread::sleep(Duration::from_millis(20));
                trickler(&server, 2)
            })
            .collect();
        std::thread::sleep(Duration::from_millis(200));
        // Within the first second a body is given its chance: the newcomer is refused.
        let early = fresh_client(&server, 2).0;
        std::thread::sleep(Duration::from_millis(1200));
        let (fresh, took) = fresh_client(&server, 2);
        let answers: Vec<Option<(u16, String)>> = tricklers.iter_mut().map(answered).collect();
        (early, fresh, took, answers)
    })
    .await
    .expect("the clients end");
    eprintln!(
        "figure: at the cap of 8 body tricklers, a new client answered {fresh:?} in {took:?}"
    );
    assert_eq!((early, fresh), (None, Some(200)));
    assert!(took < Duration::from_secs(2), "took {took:?}");
    // The body that began first made room, answered 408; the others still wait for theirs.
    let mut expected = vec![None; 8];
    expected[0] = Some((
        408,
        "the request body did not arrive within 1000 ms, and the server needed the connection \
         for another client"
            .to_owned(),
    ));
    assert_eq!(answers, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_opening_session_after_session_is_held_to_its_share_and_others_still_get_in() {
    let options = HttpOptions::default()
        .max_sessions(10)
        .max_sessions_per_client(3);
    let server = echo_server()
        .spawn_http("127.0.0.1:0", options)
        .await
        .expect("serve");
    let (greedy, refusal, other) = tokio::task::spawn_blocking(move || {
        let greedy: Vec<u16> = (0..3).map(|_| initialize_from(&server, 2).0).collect();
        let refusal = exchange(&mut connect_from(&server, 2), &server, INITIALIZE, "");
        let other = initialize_from(&server, 3).0;
        (greedy, (refusal.status, refusal.json()), other)
    })
    .await
    .expect("the clients end");
    assert_eq!(greedy, [200, 200, 200]);
    assert_eq!(
        refusal,
        (
            429,
            json!({
                "jsonrpc": "2.0",
                "id": 1,
                "error": {
                    "code": -32000,
                    "message": "this client has 3 open sessions, its share of the server; end an unused session, or try again later"
                }
            })
        )
    );
    assert_eq!(other, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_never_used_after_initialize_make_room_soon_and_used_ones_stay() {
    let options = HttpOptions::default()
        .max_sessions(2)
        .unused_session_timeout(Duration::from_millis(300));
    let server = echo_server()
        .spawn_http("127.0.0.1:0", options)
        .await
        .expect("serve");
    let statuses = tokio::task::spawn_blocking(move || {
        let mut used = connect(&server);
        let kept = open_session(&mut used, &server);
        let (_, abandoned) = initialize_from(&server, 1);
        let abandoned = abandoned.expect("a session id");
        let full = initialize_from(&server, 1).0;
        std::thread::sleep(Duration::from_millis(500));
        let room = initialize_from(&server, 1).0;
        let list = r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#;
        let [kept, abandoned] = [kept, abandoned].map(|session| {
            let extra = format!("Mcp-Session-Id: {session}\r\n");
            exchange(&mut connect(&server), &server, list, &extra).status
        });
        (full, room, kept, abandoned)
    })
    .await
    .expect("the clients end");
    // Full at once; after the unused session's 300 ms, its place goes to a new one, while the
    // session in use stays open and the abandoned one is gone (404).
    assert_eq!(statuses, (503, 200, 200, 404));
}
