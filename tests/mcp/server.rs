//! toolkit's MCP server, driven by the official Python SDK's client (over stdio and Streamable
//! HTTP, against `examples/mcp_server.rs`) and by rmcp's own client (in process); and every kind
//! of result it sends, checked by the Python SDK's types.

use crate::common;

use common::raw_mcp::INITIALIZE;
use std::io::{Read, Write};
use std::process::{Command, Stdio};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::ServiceError;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolkit::mcp::{HttpOptions, McpServer, rmcp};
use toolkit::prelude::*;
use toolkit::schemars::JsonSchema;

use common::mcp::{example_http_server, example_server, python, root, script};

/// The calls the Python client makes: each tool, a tool error, bad arguments, an unknown tool.
fn python_calls() -> Value {
    json!([
        {"name": "stats_word_count", "arguments": {"text": "one two three"}},
        {"name": "stats_line_count", "arguments": {"text": "a\nb"}},
        {"name": "task_assign", "arguments": {
            "task": {"title": "Ship it", "assignee": "ada"}, "priority": "HIGH", "note": "today"}},
        {"name": "task_assign", "arguments": {
            "task": {"title": " ", "assignee": "ada"}, "priority": "low"}},
        {"name": "stats_word_count", "arguments": {"txt": "typo"}},
        {"name": "stats_word_count", "arguments": {"text": 5}},
        {"name": "nope", "arguments": {}}
    ])
}

/// Runs `tests/mcp/python_client.py` with `args` and returns its report.
fn python_client(args: &[&str]) -> Value {
    let mut child = Command::new(python())
        .arg(script("python_client.py"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the Python client");
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin
        .write_all(python_calls().to_string().as_bytes())
        .expect("send the calls");
    drop(stdin);
    let output = child
        .wait_with_output()
        .expect("the Python client finishes");
    assert!(
        output.status.success(),
        "the Python client failed: {output:?}"
    );
    serde_json::from_slice(&output.stdout).expect("the report is JSON")
}

/// The report, as the golden file `tests/fixtures/mcp_python_client.json` holds it, for the
/// quickstart tools (the example may serve more: those are left out of the comparison).
fn assert_matches_golden(report: &Value) {
    let mut report = report.clone();
    let quickstart = ["stats_word_count", "stats_line_count", "task_assign"];
    if let Some(Value::Array(tools)) = report.get_mut("tools") {
        tools.retain(|tool| quickstart.contains(&tool["name"].as_str().unwrap_or_default()));
    }
    if let Some(message) = report.pointer_mut("/calls/6/error/message") {
        let text = message.as_str().unwrap_or_default();
        assert!(
            text.starts_with(
                "Unknown tool: nope. Available: stats_word_count, stats_line_count, task_assign"
            ),
            "{text}"
        );
        *message = json!("Unknown tool: nope. Available: ...");
    }
    let report = &report;
    let path = root().join("tests/fixtures/mcp_python_client.json");
    if std::env::var_os("TOOLKIT_BLESS").is_some() {
        let pretty = serde_json::to_string_pretty(report).expect("JSON");
        std::fs::write(&path, pretty + "\n").expect("write the golden file");
    }
    let golden: Value = serde_json::from_str(
        &std::fs::read_to_string(&path)
            .expect("the golden file exists (TOOLKIT_BLESS=1 writes it)"),
    )
    .expect("the golden file is JSON");
    assert_eq!(report, &golden);
}

#[test]
fn the_python_client_uses_our_server_over_stdio() {
    let server = example_server();
    let report = python_client(&["stdio", &server, "--stdio"]);
    assert_matches_golden(&report);
}

#[test]
fn the_python_client_uses_our_server_over_streamable_http_with_a_token() {
    let (_server, url) = example_http_server(Some("s3cret"));
    let report = python_client(&["http", &url, "s3cret"]);
    assert_matches_golden(&report);
}

/// Sends one raw HTTP/1.1 request and returns the status code.
fn http_status(addr: std::net::SocketAddr, headers: &str, body: &str) -> u16 {
    http_status_with_host(addr, &format!("Host: {addr}\r\n{headers}"), body)
}

/// Like [`http_status`], with the `Host` header (and any others) given in `headers`.
fn http_status_with_host(addr: std::net::SocketAddr, headers: &str, body: &str) -> u16 {
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    let request = format!(
        "POST /mcp HTTP/1.1\r\n{headers}Content-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("send");
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {response:?}"))
}

#[derive(Default)]
struct Probe;

/// Where a probe points.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Reading {
    /// The measured value
    value: f64,
    /// Its unit
    unit: String,
}

#[toolset(name = "probe")]
impl Probe {
    /// Read the sensor.
    #[tool(read_only, idempotent, open_world = false)]
    fn read(&self, sensor: String) -> Reading {
        Reading {
            value: sensor.len() as f64,
            unit: "chars".into(),
        }
    }

    /// Blow up.
    #[tool(destructive)]
    fn explode(&self) -> String {
        panic!("the probe exploded")
    }

    /// Echo asynchronously.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }
}

fn probe_server() -> McpServer {
    McpServer::new(Probe::to_tools())
}

fn text(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect()
}

/// Everything the rmcp client sees of the probe server, whatever the transport.
async fn exercise_with_rmcp(client: &rmcp::service::RunningService<rmcp::RoleClient, ()>) {
    let tools = client.list_all_tools().await.expect("tools/list");
    let listed: Vec<Value> = tools
        .iter()
        .map(|tool| serde_json::to_value(tool).expect("JSON"))
        .collect();
    assert_eq!(
        listed[0],
        json!({
            "name": "probe_read",
            "description": "Read the sensor.",
            "inputSchema": {
                "type": "object",
                "properties": {"sensor": {"type": "string"}},
                "required": ["sensor"],
                "additionalProperties": false
            },
            "outputSchema": {
                "type": "object",
                "description": "Where a probe points.",
                "properties": {
                    "value": {"type": "number", "description": "The measured value"},
                    "unit": {"type": "string", "description": "Its unit"}
                },
                "required": ["value", "unit"]
            },
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        })
    );
    assert_eq!(listed[1]["annotations"], json!({"destructiveHint": true}));
    assert_eq!(listed[2].get("annotations"), None);

    let call = |name: &str, arguments: Value| {
        let params = CallToolRequestParams::new(name.to_owned())
            .with_arguments(arguments.as_object().cloned().unwrap_or_default());
        client.call_tool(params)
    };

    let read = call("probe_read", json!({"sensor": "abc"})).await.unwrap();
    assert_eq!(read.is_error, Some(false));
    assert_eq!(
        read.structured_content,
        Some(json!({"value": 3.0, "unit": "chars"}))
    );
    assert_eq!(text(&read), [r#"{"value":3.0,"unit":"chars"}"#]);

    let panicked = call("probe_explode", json!({})).await.unwrap();
    assert_eq!(panicked.is_error, Some(true));
    assert_eq!(
        text(&panicked),
        ["tool probe_explode panicked: the probe exploded"]
    );

    let bad = call("probe_read", json!({"sensr": "abc"})).await.unwrap();
    assert_eq!(bad.is_error, Some(true));
    assert_eq!(
        text(&bad),
        ["unknown argument \"sensr\" for probe_read (did you mean \"sensor\"?)"]
    );

    match call("probe_missing", json!({})).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code.0, -32602);
            assert_eq!(
                error.message,
                "Unknown tool: probe_missing. Available: probe_read, probe_explode, probe_echo"
            );
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }

    // The server survived the panic.
    let echo = call("probe_echo", json!({"text": "still here"}))
        .await
        .unwrap();
    assert_eq!(text(&echo), ["still here"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_uses_our_server_in_process() {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_io);
    let server = tokio::spawn(probe_server().serve_io(read, write));
    let client = ().serve(client_io).await.expect("initialize");
    exercise_with_rmcp(&client).await;
    client.cancel().await.expect("close the client");
    server
        .await
        .expect("the server task")
        .expect("the server ends cleanly");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_client_uses_our_server_over_streamable_http_with_a_token() {
    let server = probe_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default().bearer_token("s3cret"))
        .await
        .expect("serve");
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(server.url()).auth_header("s3cret"),
    );
    let client = ().serve(transport).await.expect("initialize");
    exercise_with_rmcp(&client).await;
    client.cancel().await.expect("close the client");
    server.shutdown().await.expect("graceful shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_the_token_gets_401_and_reaches_no_tool() {
    let server = probe_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default().bearer_token("s3cret"))
        .await
        .expect("serve");
    let addr = server.local_addr();
    let statuses = tokio::task::spawn_blocking(move || {
        [
            http_status(addr, "", INITIALIZE),
            http_status(addr, "Authorization: Bearer wrong\r\n", INITIALIZE),
            http_status(addr, "Authorization: Bearer s3cret\r\n", INITIALIZE),
        ]
    })
    .await
    .unwrap();
    assert_eq!(statuses, [401, 401, 200]);

    // The rmcp client without the token cannot even initialize.
    let transport = StreamableHttpClientTransport::from_uri(server.url());
    assert!(().serve(transport).await.is_err());
    server.shutdown().await.expect("graceful shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_gets_413() {
    let server = probe_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default().max_body_bytes(1024))
        .await
        .expect("serve");
    let addr = server.local_addr();
    let padded = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"{}","version":"1"}}}}}}"#,
        "x".repeat(2000)
    );
    let statuses = tokio::task::spawn_blocking(move || {
        [
            http_status(addr, "", &padded),
            http_status(addr, "", INITIALIZE),
        ]
    })
    .await
    .unwrap();
    assert_eq!(statuses, [413, 200]);
    server.shutdown().await.expect("graceful shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_open_sessions_and_frees_the_port() {
    let server = probe_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let addr = server.local_addr();
    let transport = StreamableHttpClientTransport::from_uri(server.url());
    let client = ().serve(transport).await.expect("initialize");
    assert_eq!(client.list_all_tools().await.expect("tools/list").len(), 3);
    server.shutdown().await.expect("graceful shutdown");
    assert!(std::net::TcpStream::connect(addr).is_err());
    drop(client);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_uses_our_server_over_http_with_a_token_and_headers() {
    use toolkit::mcp::{McpClient, McpTransport};

    let server = probe_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default().bearer_token("s3cret"))
        .await
        .expect("serve");
    let refused = McpClient::connect(McpTransport::http(server.url())).await;
    assert!(refused.is_err());

    let client = McpClient::builder(
        McpTransport::http(server.url())
            .bearer_token("s3cret")
            .header("x-team", "tools"),
    )
    .prefix("remote_")
    .structured(true)
    .connect()
    .await
    .expect("connect with the token");
    assert_eq!(
        client.tool_names(),
        [
            "remote_probe_read",
            "remote_probe_explode",
            "remote_probe_echo"
        ]
    );
    let tools = client.tools();
    assert_eq!(
        tools[0].parameters(),
        &json!({
            "type": "object",
            "properties": {"sensor": {"type": "string"}},
            "required": ["sensor"],
            "additionalProperties": false
        })
    );
    assert!(tools[0].options().annotations.read_only == Some(true));
    assert_eq!(
        tools[0].acall(json!({"sensor": "abcd"})).await.unwrap(),
        json!({"value": 4.0, "unit": "chars"})
    );
    assert_eq!(
        tools[1].dynamic_acall(json!({})).await,
        json!("Error: tool probe_explode panicked: the probe exploded")
    );
    drop((client, tools));
    server.shutdown().await.expect("graceful shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_for_another_host_is_refused_unless_allowed() {
    let strict = probe_server()
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let open = probe_server()
        .spawn_http(
            "127.0.0.1:0",
            HttpOptions::default().allowed_hosts(["mcp.example.com"]),
        )
        .await
        .expect("serve");
    let (strict_addr, open_addr) = (strict.local_addr(), open.local_addr());
    let statuses = tokio::task::spawn_blocking(move || {
        let host = "Host: mcp.example.com\r\n";
        [
            http_status_with_host(strict_addr, host, INITIALIZE),
            http_status_with_host(open_addr, host, INITIALIZE),
        ]
    })
    .await
    .unwrap();
    assert_eq!(statuses, [403, 200]);
    strict.shutdown().await.expect("graceful shutdown");
    open.shutdown().await.expect("graceful shutdown");
}

/// The first bytes of a PNG, base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUg==";

#[derive(Default)]
struct Contents;

#[toolset(name = "content")]
impl Contents {
    /// Plain text
    #[tool]
    fn text(&self) -> String {
        "plain".into()
    }

    /// An image
    #[tool]
    fn image(&self) -> Image {
        Image::from_base64(PNG, "image/png")
    }

    /// A recording
    #[tool]
    fn audio(&self) -> Audio {
        Audio::from_base64("UklGRg==", "audio/wav")
    }

    /// Embedded resources, text and bytes, and a link to one
    #[tool]
    fn resources(&self) -> Vec<Content> {
        vec![
            Resource::text("file:///r/notes.txt", "text/plain", "two notes").into(),
            Resource::bytes("file:///r/report.pdf", "application/pdf", b"%PDF-1.7").into(),
            ResourceLink::new("file:///r/data.csv", "data.csv")
                .description("the numbers")
                .mime_type("text/csv")
                .into(),
        ]
    }

    /// Blocks with structured content beside them
    #[tool]
    fn mixed(&self) -> ToolOutput {
        ToolOutput::new()
            .with("Sales by month")
            .with(Image::from_base64(PNG, "image/png"))
            .structured(json!({"months": 2}))
    }

    /// A typed answer, with an output schema
    #[tool]
    fn typed(&self) -> Reading {
        Reading {
            value: 1.5,
            unit: "m".into(),
        }
    }

    /// Fail
    #[tool]
    fn fail(&self) -> Result<String, String> {
        Err("it broke".into())
    }
}

#[test]
fn every_content_kind_we_send_is_valid_for_the_python_sdks_types_with_no_extra_key() {
    let server = McpServer::new(Contents::to_tools());
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let server = runtime
        .block_on(server.spawn_http("127.0.0.1:0", HttpOptions::default()))
        .expect("serve");
    let names = [
        "text",
        "image",
        "audio",
        "resources",
        "mixed",
        "typed",
        "fail",
    ];
    let calls: Vec<Value> = names
        .iter()
        .map(|name| json!({"name": format!("content_{name}")}))
        .collect();
    let mut child = Command::new(python())
        .arg(script("python_content_check.py"))
        .arg(server.url())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the Python check");
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin
        .write_all(Value::from(calls).to_string().as_bytes())
        .expect("send the calls");
    drop(stdin);
    let output = child.wait_with_output().expect("the Python check ends");
    assert!(
        output.status.success(),
        "the Python check failed: {output:?}"
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("the report is JSON");
    let report = report.as_array().expect("a list");
    assert_eq!(report.len(), names.len(), "{report:#?}");
    let problems: Vec<(&Value, &Value)> = (report.iter())
        .map(|entry| (&entry["name"], &entry["problems"]))
        .filter(|(_, problems)| problems != &&json!([]))
        .collect();
    assert_eq!(problems, Vec::<(&Value, &Value)>::new(), "{report:#?}");
    // Each kind was sent.
    let kinds: std::collections::BTreeSet<String> = (report.iter())
        .flat_map(|entry| {
            entry["result"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|block| block["type"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        ["audio", "image", "resource", "resource_link", "text"]
    );
    let structured = (report.iter())
        .filter(|entry| entry["result"].get("structuredContent").is_some())
        .count();
    assert_eq!(structured, 2);
    let failed = (report.iter())
        .filter(|entry| entry["result"]["isError"] == json!(true))
        .count();
    assert_eq!(failed, 1);
    eprintln!(
        "figure: {} results (5 content kinds, structuredContent, isError) checked \
         by mcp {}'s CallToolResult: 0 refused, 0 extra keys",
        report.len(),
        common::mcp::MCP_VERSION
    );
    runtime
        .block_on(server.shutdown())
        .expect("graceful shutdown");
}
