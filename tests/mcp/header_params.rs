//! Header parameters (MCP 2026-07-28, SEP-2243): `#[arg(header = "Region")]` lists the
//! argument with `x-mcp-header` in MCP's schema only, and toolkit's HTTP server refuses a
//! 2026-07-28 call whose `Mcp-Param-Region` header disagrees with the argument (rmcp's check,
//! reading the schema toolkit lists).

use serde_json::{Value, json};
use toolkit::mcp::{HttpOptions, HttpServerHandle, McpServer};
use toolkit::prelude::*;
use toolkit::providers::Format;

#[derive(Default)]
struct Router;

#[toolset(name = "router")]
impl Router {
    /// Sends a message to a region.
    #[tool]
    fn send(&self, #[arg(header = "Region")] region: String, text: String) -> String {
        format!("{text} -> {region}")
    }
}

async fn serve() -> HttpServerHandle {
    McpServer::new(Router::to_tools())
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve")
}

/// A 2026-07-28 `tools/call` of `send` with `region` in the body and `header` as
/// `Mcp-Param-Region` (none when `None`): the HTTP status and the JSON-RPC answer.
async fn call(server: &HttpServerHandle, region: &str, header: Option<&str>) -> (u16, Value) {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "router_send", "arguments": {"region": region, "text": "hi"}, "_meta": meta}});
    let mut post = reqwest::Client::new()
        .post(server.url())
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "router_send");
    if let Some(header) = header {
        post = post.header("mcp-param-region", header);
    }
    let response = post.json(&body).send().await.expect("answered");
    let status = response.status().as_u16();
    let text = response.text().await.expect("a body");
    let data = (text.lines())
        .filter_map(|line| line.strip_prefix("data:"))
        .find(|data| !data.trim().is_empty())
        .unwrap_or(&text);
    (status, serde_json::from_str(data.trim()).expect("JSON"))
}

#[test]
fn a_header_argument_carries_x_mcp_header_in_the_mcp_schema_only() {
    let tools = Router::to_tools();
    let mcp = tools[0].definition_in(Format::Mcp).expect("MCP");
    assert_eq!(
        mcp["inputSchema"]["properties"]["region"],
        json!({"type": "string", "x-mcp-header": "Region"})
    );
    assert_eq!(
        mcp["inputSchema"]["properties"]["text"],
        json!({"type": "string"})
    );
    let openai = tools[0].definition_in(Format::OpenAi).expect("OpenAI");
    let region = &openai["function"]["parameters"]["properties"]["region"];
    assert_eq!(*region, json!({"type": "string"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_that_matches_its_argument_is_accepted() {
    let server = serve().await;
    let (status, answer) = call(&server, "eu-west", Some("eu-west")).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "hi -> eu-west");
    // Base64, as a client sends a value that is not plain ASCII.
    let (status, answer) = call(&server, "Zürich", Some("=?base64?WsO8cmljaA==?=")).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "hi -> Zürich");
    server.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_that_is_missing_or_disagrees_is_refused_with_400_and_32020() {
    let server = serve().await;
    for (header, reason) in [
        (None, "missing Mcp-Param-Region header for `region`"),
        (
            Some("us-east"),
            "Mcp-Param-Region header `us-east` does not match body value `eu-west`",
        ),
        (
            Some("=?base64?ZXUtd2VzdA?="),
            "Mcp-Param-Region header is not valid Base64",
        ),
    ] {
        let (status, answer) = call(&server, "eu-west", header).await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32020, "message": reason}})
        );
    }
    server.shutdown().await.expect("shutdown");
}
