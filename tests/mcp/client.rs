//! toolkit's MCP client bridge against a server made with the official Python SDK
//! (`tests/mcp/python_server.py`), over stdio, Streamable HTTP and HTTP+SSE.

use crate::common;

use std::time::{Duration, Instant};

use serde_json::json;
use toolkit::ToolProxy;
use toolkit::mcp::{McpClient, McpTransport};

use common::mcp::{python, python_server, script};

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn stdio() -> McpTransport {
    McpTransport::stdio(python())
        .arg(script("python_server.py"))
        .arg("stdio")
        .inherit_stderr(false)
}

fn tool(tools: &[ToolProxy], name: &str) -> ToolProxy {
    tools
        .iter()
        .find(|tool| tool.name() == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
        .clone()
}

/// Everything the bridge promises, checked the same way over every transport.
async fn exercise(transport: McpTransport) {
    let client = McpClient::builder(transport)
        .prefix("py_")
        .connect()
        .await
        .expect("connect");
    let server = client
        .server_info()
        .await
        .expect("the server said who it is");
    assert_eq!(server.name, "python-test-server");
    let tools = client.tools();
    assert_eq!(
        client.tool_names(),
        [
            "py_add",
            "py_greet",
            "py_pixel",
            "py_chart",
            "py_fail",
            "py_mirror",
            "py_grow",
            "py_sleep"
        ]
    );

    let greet = tool(&tools, "py_greet");
    assert!(greet.is_async());
    assert_eq!(
        greet.description(),
        "Greet someone; greeting and punctuation are optional."
    );
    assert_eq!(greet.parameters()["required"], json!(["name"]));
    assert_eq!(
        greet.acall(json!({"name": "Ada"})).await.unwrap(),
        json!("Hello, Ada!")
    );
    assert_eq!(
        greet
            .acall(json!({"name": "Ada", "greeting": "Hi", "punctuation": "?"}))
            .await
            .unwrap(),
        json!("Hi, Ada?")
    );

    let add = tool(&tools, "py_add");
    assert_eq!(add.parameters()["required"], json!(["a", "b"]));
    assert_eq!(
        add.acall(json!({"a": 2, "b": 3})).await.unwrap(),
        json!("5")
    );
    assert_eq!(
        add.dynamic_acall(json!({"a": 2})).await,
        json!(r#"Error: missing required argument "b" for py_add"#)
    );

    assert_eq!(
        tool(&tools, "py_pixel").acall(json!({})).await.unwrap(),
        json!({"type": "image", "data": PNG, "mimeType": "image/png"})
    );
    assert_eq!(
        tool(&tools, "py_chart")
            .acall(json!({"title": "sales"}))
            .await
            .unwrap(),
        json!(["chart: sales", {"type": "image", "data": PNG, "mimeType": "image/png"}])
    );
    assert_eq!(
        tool(&tools, "py_fail")
            .dynamic_acall(json!({"reason": "no"}))
            .await,
        json!("Error: Error executing tool fail: refused: no")
    );

    // The $ref to the Point model is inlined.
    let mirror = tool(&tools, "py_mirror");
    assert_eq!(
        mirror.parameters()["properties"]["point"]["properties"]["x"]["type"],
        json!("integer")
    );
    assert!(!mirror.parameters().to_string().contains("$ref"));
    assert_eq!(
        mirror
            .acall(json!({"point": {"x": 1, "y": 2}}))
            .await
            .unwrap(),
        json!("{\n  \"x\": 2,\n  \"y\": 1\n}")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_server_tools_work_over_stdio() {
    exercise(stdio()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_server_tools_work_over_streamable_http() {
    let port = common::mcp::free_port();
    let _server = python_server("streamable-http", port);
    exercise(McpTransport::http(format!("http://127.0.0.1:{port}/mcp"))).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_server_tools_work_over_sse() {
    let port = common::mcp::free_port();
    let _server = python_server("sse", port);
    exercise(McpTransport::sse(format!("http://127.0.0.1:{port}/sse"))).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_content_is_returned_when_asked_for() {
    let client = McpClient::builder(stdio())
        .structured(true)
        .allow(["mirror", "add"])
        .connect()
        .await
        .expect("connect");
    assert_eq!(client.tool_names(), ["add", "mirror"]);
    let tools = client.tools();
    assert_eq!(
        tool(&tools, "mirror")
            .acall(json!({"point": {"x": 1, "y": 2}}))
            .await
            .unwrap(),
        json!({"x": 2, "y": 1})
    );
    assert_eq!(
        tool(&tools, "add")
            .acall(json!({"a": 1, "b": 1}))
            .await
            .unwrap(),
        json!({"result": 2})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_call_fails_after_the_timeout_and_the_session_stays_usable() {
    let client = McpClient::builder(stdio())
        .timeout(Duration::from_millis(300))
        .connect()
        .await
        .expect("connect");
    let tools = client.tools();
    assert_eq!(
        tool(&tools, "sleep")
            .dynamic_acall(json!({"seconds": 30}))
            .await,
        json!(
            "Error: tool sleep did not finish within its time limit of 300 ms and the call was \
             abandoned; try a smaller request or a different approach"
        )
    );
    assert_eq!(
        tool(&tools, "add")
            .acall(json!({"a": 1, "b": 1}))
            .await
            .unwrap(),
        json!("2")
    );
}

/// Polls `client.tool_names()` until `name` shows up (the refresh runs in the background).
async fn wait_for_tool(client: &McpClient, name: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !client.tool_names().iter().any(|tool| tool == name) {
        assert!(
            Instant::now() < deadline,
            "{name} never appeared: {:?}",
            client.tool_names()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_list_refreshes_on_list_changed() {
    let client = McpClient::connect(stdio()).await.expect("connect");
    assert!(!client.tool_names().contains(&"late".to_owned()));
    let grow = tool(&client.tools(), "grow");
    assert_eq!(grow.acall(json!({})).await.unwrap(), json!("grown"));
    wait_for_tool(&client, "late").await;
    assert_eq!(
        tool(&client.tools(), "late")
            .acall(json!({}))
            .await
            .unwrap(),
        json!("late tool")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_reconnects_after_the_http_server_restarts() {
    let port = common::mcp::free_port();
    let mut server = python_server("streamable-http", port);
    let client = McpClient::builder(McpTransport::http(format!("http://127.0.0.1:{port}/mcp")))
        .reconnect(8, Duration::from_millis(100))
        .connect()
        .await
        .expect("connect");
    let add = tool(&client.tools(), "add");
    assert_eq!(
        add.acall(json!({"a": 1, "b": 2})).await.unwrap(),
        json!("3")
    );

    server.stop();
    let _server = python_server("streamable-http", port);
    assert_eq!(
        add.acall(json!({"a": 2, "b": 2})).await.unwrap(),
        json!("4")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_proxies_keep_the_session_after_the_client_is_dropped() {
    let client = McpClient::connect(stdio()).await.expect("connect");
    let add = tool(&client.tools(), "add");
    drop(client);
    assert_eq!(
        add.acall(json!({"a": 20, "b": 22})).await.unwrap(),
        json!("42")
    );
}
