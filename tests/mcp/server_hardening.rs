//! The MCP HTTP server under the requests an attacker or a careless client sends: slow sync
//! tools next to unauthenticated requests, large and malformed bodies, params of the wrong type,
//! session ends, too many sessions, idle sessions, request ids reused within a session, and
//! stateless serving.

use crate::common;

use common::raw_mcp::{INITIALIZE, INITIALIZED};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientRequest, CustomRequest};
use rmcp::service::ServiceError;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolkit::ToolDefinition;
use toolkit::mcp::{HttpOptions, HttpServerHandle, McpServer, rmcp};
use toolkit::prelude::*;

/// An HTTP answer: status, the session header if any, and the body.
struct Answer {
    status: StatusCode,
    session: Option<String>,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|err| panic!("not JSON ({err}): {:?}", self.body))
    }
}

/// Sends one request to the MCP endpoint as an MCP client would shape it.
async fn send(
    server: &HttpServerHandle,
    method: reqwest::Method,
    session: Option<&str>,
    body: impl Into<reqwest::Body>,
) -> Answer {
    send_with(server, method, session, body, &[]).await
}

/// [`send`] with more headers.
async fn send_with(
    server: &HttpServerHandle,
    method: reqwest::Method,
    session: Option<&str>,
    body: impl Into<reqwest::Body>,
    headers: &[(&str, &str)],
) -> Answer {
    let mut request = reqwest::Client::new()
        .request(method, server.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .timeout(Duration::from_secs(30))
        .body(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await.expect("an HTTP answer");
    let status = response.status();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|value| value.to_str().expect("ASCII").to_owned());
    let body = response.text().await.expect("the body");
    Answer {
        status,
        session,
        body,
    }
}

async fn post(server: &HttpServerHandle, session: Option<&str>, body: &str) -> Answer {
    send(server, reqwest::Method::POST, session, body.to_owned()).await
}

/// Opens a session with a raw `initialize`; its id.
async fn open_session(server: &HttpServerHandle) -> String {
    let answer = post(server, None, INITIALIZE).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    answer.session.expect("a session id")
}

async fn end_session(server: &HttpServerHandle, session: &str) -> StatusCode {
    send(server, reqwest::Method::DELETE, Some(session), "")
        .await
        .status
}

fn schema() -> Value {
    json!({"type": "object", "properties": {"text": {"type": "string"}}})
}

fn echo_server() -> McpServer {
    let echo = ToolProxy::from_fn(ToolDefinition::new("echo", "Echo", schema()), |args| {
        Ok::<_, String>(args["text"].clone())
    });
    McpServer::new([echo])
}

/// A door the test opens: calls wait at it, and the test sees how many are waiting.
#[derive(Default)]
struct Gate {
    state: Mutex<(usize, bool)>,
    changed: Condvar,
}

impl Gate {
    /// Waits until the test opens the gate (or 30 s, so a broken server cannot hang the test).
    fn pass(&self) {
        let mut state = self.state.lock().unwrap();
        state.0 += 1;
        self.changed.notify_all();
        let _ = self
            .changed
            .wait_timeout_while(state, Duration::from_secs(30), |(_, open)| !*open)
            .unwrap();
    }

    /// How many calls are waiting, once `count` are or 30 s have passed.
    fn waiting(&self, count: usize) -> usize {
        let state = self.state.lock().unwrap();
        let (state, _) = self
            .changed
            .wait_timeout_while(state, Duration::from_secs(30), |(waiting, _)| {
                *waiting < count
            })
            .unwrap();
        state.0
    }

    fn open(&self) {
        self.state.lock().unwrap().1 = true;
        self.changed.notify_all();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unauthenticated_request_is_answered_while_slow_sync_tools_run() {
    let gate = Arc::new(Gate::default());
    let slow = {
        let gate = Arc::clone(&gate);
        let definition = ToolDefinition::new("slow", "Wait at the gate", schema());
        ToolProxy::from_fn(definition, move |_| {
            gate.pass();
            Ok::<_, String>("done")
        })
    };
    let server = McpServer::new([slow])
        .spawn_http("127.0.0.1:0", HttpOptions::default().bearer_token("s3cret"))
        .await
        .expect("serve");
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(server.url()).auth_header("s3cret"),
    );
    let client = ().serve(transport).await.expect("initialize");
    // Four sync calls on a server with two async workers: inline, they would hold both.
    let calls: Vec<_> = (0..4)
        .map(|_| {
            let peer = client.peer().clone();
            tokio::spawn(async move { peer.call_tool(CallToolRequestParams::new("slow")).await })
        })
        .collect();
    let waiting = {
        let gate = Arc::clone(&gate);
        tokio::task::spawn_blocking(move || gate.waiting(4))
            .await
            .unwrap()
    };
    assert_eq!(waiting, 4, "the sync calls did not all start");

    // All four are still running: the gate is shut until the 401 has come back.
    let refused = post(&server, None, INITIALIZE).await;
    assert_eq!(
        (refused.status, refused.body.as_str()),
        (StatusCode::UNAUTHORIZED, "missing bearer token")
    );

    gate.open();
    for call in calls {
        let result = call.await.unwrap().expect("tools/call");
        assert_eq!(result.is_error, Some(false));
        assert_eq!(result.content[0].as_text().unwrap().text, "done");
    }
    client.cancel().await.expect("close the client");
    server.shutdown().await.expect("graceful shutdown");
}

/// An `initialize` whose body is `bytes` long, padded in the client's name.
fn initialize_of_size(bytes: usize) -> String {
    let empty = INITIALIZE.replace(r#""name":"raw""#, r#""name":"""#);
    let padding = "x".repeat(bytes - empty.len());
    empty.replace(r#""name":"""#, &format!(r#""name":"{padding}""#))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_limit_above_4_mib_is_honoured() {
    const MIB: usize = 1024 * 1024;
    let server = echo_server()
        .spawn_http(
            "127.0.0.1:0",
            HttpOptions::default().max_body_bytes(8 * MIB),
        )
        .await
        .expect("serve");
    for size in [6 * MIB, 8 * MIB] {
        let answer = post(&server, None, &initialize_of_size(size)).await;
        assert_eq!(
            answer.status,
            StatusCode::OK,
            "{size} bytes: {}",
            answer.body
        );
    }
    // Over the limit, only the declared length is sent: the answer comes before any body.
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        server.local_addr(),
        8 * MIB + 1
    );
    let mut stream = tokio::net::TcpStream::connect(server.local_addr())
        .await
        .expect("connect");
    stream.write_all(head.as_bytes()).await.expect("send");
    let mut answer = vec![0; 1024];
    let read = stream.read(&mut answer).await.expect("an answer");
    let answer = String::from_utf8_lossy(&answer[..read]);
    assert!(
        answer.starts_with("HTTP/1.1 413 ")
            && answer.ends_with("the request body is larger than 8388608 bytes"),
        "{answer}"
    );
    server.shutdown().await.expect("graceful shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_is_not_json_gets_a_jsonrpc_parse_error() {
    let server = echo_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let answer = post(&server, None, r#"{"jsonrpc": "2.0", "id": 1, "method": "#).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer.json(),
        json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {
                "code": -32700,
                "message": "Parse error: the body is not JSON (EOF while parsing a value at line 1 column 38)"
            }
        })
    );
    server.shutdown().await.expect("graceful shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_that_is_not_jsonrpc_gets_an_invalid_request_error() {
    let server = echo_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let message =
        "Invalid Request: the body is not a JSON-RPC 2.0 request, notification or response";
    for (body, id) in [
        (r#"{"jsonrpc":"2.0","id":7,"method":42}"#, json!(7)),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, json!(null)),
        (r#""initialize""#, json!(null)),
    ] {
        let answer = post(&server, None, body).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(
            answer.json(),
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32600, "message": message}}),
            "{body}"
        );
    }
    server.shutdown().await.expect("graceful shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_call_arguments_of_the_wrong_type_get_invalid_params() {
    let server = echo_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(server.url()))
            .await
            .expect("initialize");
    let cases = [
        (
            json!({"name": "echo", "arguments": "{\"text\": \"hi\"}"}),
            "invalid params for tools/call: `arguments` must be a JSON object, not a string",
        ),
        (
            json!({"name": 5, "arguments": {}}),
            "invalid params for tools/call: `name` must be the tool's name, a string",
        ),
        (
            json!({"name": "echo", "arguments": ["hi"]}),
            "invalid params for tools/call: `arguments` must be a JSON object, not an array",
        ),
    ];
    for (params, expected) in cases {
        let request = CustomRequest::new("tools/call", Some(params.clone()));
        match client
            .send_request(ClientRequest::CustomRequest(request))
            .await
        {
            Err(ServiceError::McpError(error)) => {
                assert_eq!((error.code.0, error.message.as_ref()), (-32602, expected));
            }
            other => panic!("expected invalid params for {params}, got {other:?}"),
        }
    }
    // A method the server does not serve is still "method not found".
    let unknown = CustomRequest::new("tools/frobnicate", None);
    match client
        .send_request(ClientRequest::CustomRequest(unknown))
        .await
    {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code.0, -32601),
        other => panic!("expected method not found, got {other:?}"),
    }
    client.cancel().await.expect("close the client");
    server.shutdown().await.expect("graceful shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ending_a_session_answers_204_and_the_session_is_gone() {
    let server = echo_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let session = open_session(&server).await;
    assert_eq!(end_session(&server, &session).await, StatusCode::NO_CONTENT);
    let after = post(
        &server,
        Some(&session),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    )
    .await;
    assert_eq!(after.status, StatusCode::NOT_FOUND);
    server.shutdown().await.expect("graceful shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_over_the_cap_gets_503_until_one_ends() {
    let server = echo_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default().max_sessions(2))
        .await
        .expect("serve");
    let first = open_session(&server).await;
    let _second = open_session(&server).await;
    let refused = post(&server, None, INITIALIZE).await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.session, None);
    assert_eq!(
        refused.json(),
        json!({
            "jsonrpc": "2.0",
            "id": 1,
            "error": {
                "code": -32000,
                "message": "the server has 2 open sessions, its limit; try again later, or end an unused session"
            }
        })
    );
    assert_eq!(end_session(&server, &first).await, StatusCode::NO_CONTENT);
    open_session(&server).await;
    server.shutdown().await.expect("graceful shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_session_is_closed_and_frees_its_place() {
    let options = HttpOptions::default()
        .max_sessions(1)
        .session_idle_timeout(Duration::from_millis(200));
    let server = echo_server()
        .spawn_http("127.0.0.1:0", options)
        .await
        .expect("serve");
    let idle = open_session(&server).await;
    // The place frees up once the session has idled out: wait for that, within reason.
    let mut answer = post(&server, None, INITIALIZE).await;
    for _ in 0..100 {
        if answer.status != StatusCode::SERVICE_UNAVAILABLE {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        answer = post(&server, None, INITIALIZE).await;
    }
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let gone = post(
        &server,
        Some(&idle),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    )
    .await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    server.shutdown().await.expect("graceful shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_server_answers_tool_calls_without_a_session() {
    let server = echo_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default().stateless(true))
        .await
        .expect("serve");
    for (id, text) in [(1, "one"), (2, "two")] {
        let call = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}}
        });
        let answer = post(&server, None, &call.to_string()).await;
        assert_eq!(
            (answer.status, answer.session.as_deref()),
            (StatusCode::OK, None)
        );
        assert_eq!(
            answer.json(),
            json!({
                "jsonrpc": "2.0",
                "id": id,
                "result": {"content": [{"type": "text", "text": text}], "isError": false}
            })
        );
    }
    server.shutdown().await.expect("graceful shutdown");
}

/// The threads two sync tools ran on: one marked `inline`, one not.
#[derive(Default)]
struct Threads {
    seen: Mutex<Vec<(&'static str, std::thread::ThreadId)>>,
}

static THREADS: std::sync::LazyLock<Threads> = std::sync::LazyLock::new(Threads::default);

#[derive(Default)]
struct Placement;

#[toolset(name = "placement")]
impl Placement {
    /// Answer at once
    #[tool(inline)]
    fn quick(&self) -> &'static str {
        let thread = std::thread::current().id();
        THREADS.seen.lock().unwrap().push(("quick", thread));
        "quick"
    }

    /// Answer, perhaps slowly
    #[tool]
    fn plain(&self) -> &'static str {
        let thread = std::thread::current().id();
        THREADS.seen.lock().unwrap().push(("plain", thread));
        "plain"
    }
}

#[tokio::test]
async fn a_sync_tool_marked_inline_runs_on_the_async_worker_and_others_on_the_blocking_pool() {
    // On a current-thread runtime the test's own thread is the only async worker.
    let worker = std::thread::current().id();
    let server = McpServer::new(Placement::to_tools())
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let transport = StreamableHttpClientTransport::from_uri(server.url());
    let client = ().serve(transport).await.expect("initialize");
    for name in ["placement_quick", "placement_plain"] {
        let result = client
            .peer()
            .call_tool(CallToolRequestParams::new(name))
            .await
            .expect("tools/call");
        assert_eq!(result.is_error, Some(false), "{name}");
    }
    let seen = THREADS.seen.lock().unwrap().clone();
    let on_worker: Vec<_> = seen
        .iter()
        .map(|(tool, thread)| (*tool, *thread == worker))
        .collect();
    assert_eq!(on_worker, [("quick", true), ("plain", false)]);
    client.cancel().await.expect("close the client");
    server.shutdown().await.expect("graceful shutdown");
}

#[derive(Default)]
struct Served;

#[toolset(name = "served")]
impl Served {
    /// Say it louder
    #[tool]
    fn shout(&self, text: String) -> String {
        text.to_uppercase()
    }
}

#[tokio::test]
async fn a_sync_tool_served_over_mcp_takes_the_typed_fast_path_on_the_blocking_pool() {
    let server = McpServer::new(Served::to_tools())
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let transport = StreamableHttpClientTransport::from_uri(server.url());
    let client = ().serve(transport).await.expect("initialize");
    let before = toolkit::__fast_path_calls("served_shout");
    let arguments = json!({"text": "hi"}).as_object().cloned().unwrap();
    let result = client
        .peer()
        .call_tool(CallToolRequestParams::new("served_shout").with_arguments(arguments))
        .await
        .expect("tools/call");
    assert_eq!(result.is_error, Some(false));
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("HI")
    );
    // Read straight into `String` by the typed reader, on the blocking pool, where the server
    // moves every sync tool (before, such calls took the full JSON pipeline).
    assert_eq!(toolkit::__fast_path_calls("served_shout") - before, 1);
    client.cancel().await.expect("close the client");
    server.shutdown().await.expect("graceful shutdown");
}

/// The JSON-RPC message of an answer: plain JSON, or the first SSE event with data.
fn message(answer: &Answer) -> Value {
    let data = (answer.body.lines())
        .find_map(|line| line.strip_prefix("data: ").filter(|data| !data.is_empty()))
        .unwrap_or(&answer.body);
    serde_json::from_str(data).unwrap_or_else(|err| panic!("not JSON ({err}): {:?}", answer.body))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_reusing_an_id_in_a_session_get_invalid_request_and_the_first_completes() {
    let slow = ToolProxy::from_fn(
        ToolDefinition::new("slow", "Take a while", schema()),
        |_| {
            std::thread::sleep(Duration::from_millis(500));
            Ok::<_, String>("done")
        },
    );
    let server = McpServer::new([slow])
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let session = open_session(&server).await;
    let initialized = post(&server, Some(&session), INITIALIZED).await;
    assert_eq!(initialized.status, StatusCode::ACCEPTED);
    let call =
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#;
    let began = Instant::now();
    let calls = futures::future::join_all((0..4).map(|_| post(&server, Some(&session), call)));
    // Before, all four were still waiting at 45 s.
    let answers = tokio::time::timeout(Duration::from_secs(10), calls)
        .await
        .expect("every call answered within 10 s");
    let took = began.elapsed();
    let (results, refusals): (Vec<Value>, Vec<Value>) = (answers.iter())
        .map(|answer| {
            assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
            message(answer)
        })
        .partition(|message| message.get("result").is_some());
    assert_eq!(
        results,
        [json!({"jsonrpc": "2.0", "id": 1,
                "result": {"content": [{"type": "text", "text": "done"}], "isError": false}})]
    );
    let refusal = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message":
        "Invalid Request: the id 1 is already used by a request of this session that has not \
         been answered; give each request its own id"}});
    assert_eq!(refusals, vec![refusal; 3]);
    eprintln!(
        "figure: 4 concurrent calls with id 1: {} result, {} refused, all in {took:?}",
        results.len(),
        refusals.len()
    );
    assert!(took < Duration::from_secs(5), "took {took:?}");
    // Once answered, the id is free again.
    let again = post(&server, Some(&session), call).await;
    assert_eq!(message(&again)["result"]["content"][0]["text"], "done");
    server.shutdown().await.expect("graceful shutdown");
}

/// `POST`s `body` with the bearer token `s3cret`, in `session` if any.
async fn post_with_token(server: &HttpServerHandle, session: Option<&str>, body: &str) -> Answer {
    let token = [("authorization", "Bearer s3cret")];
    send_with(
        server,
        reqwest::Method::POST,
        session,
        body.to_owned(),
        &token,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_naming_its_tool_twice_is_refused_alike_for_a_hidden_tool_and_a_missing_one() {
    let mut hidden = ToolDefinition::new("hidden", "Needs a scope", schema());
    hidden.options.scopes = vec!["admin".to_owned()];
    let hidden = ToolProxy::from_fn(hidden, |_| Ok::<_, String>("secret"));
    let options = HttpOptions::default()
        .bearer_token("s3cret")
        .bearer_caller(toolkit::context::Caller::new("user").scopes(["read"]));
    let server = McpServer::new([hidden])
        .spawn_http("127.0.0.1:0", options)
        .await
        .expect("serve");
    let opened = post_with_token(&server, None, INITIALIZE).await;
    let session = opened.session.expect("a session id");
    post_with_token(&server, Some(&session), INITIALIZED).await;
    let call = |first: &str, second: &str, arguments: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"{first}",{arguments}"name":"{second}"}}}}"#
        )
    };
    let arguments = r#""arguments":{},"#;
    let mut answers = Vec::new();
    for body in [
        call("missing", "hidden", arguments),
        call("hidden", "missing", arguments),
        call("missing", "hidden", ""),
        call("hidden", "missing", ""),
    ] {
        let answer = post_with_token(&server, Some(&session), &body).await;
        answers.push((answer.status, message(&answer)));
    }
    // What a call naming its tool twice gets over stdio too: nothing about the tool.
    let refused = (
        StatusCode::BAD_REQUEST,
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32600, "message":
            "Invalid Request: the field `name` appears more than once"}}),
    );
    assert_eq!(answers, vec![refused; 4]);
    server.shutdown().await.expect("graceful shutdown");
}
