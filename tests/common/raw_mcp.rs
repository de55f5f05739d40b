//! What the tests that speak MCP's JSON-RPC by hand share: the handshake's two messages and a
//! server with one `echo` tool.

#![allow(dead_code)]

use serde_json::json;
use toolkit::ToolDefinition;
use toolkit::mcp::McpServer;
use toolkit::prelude::*;

/// An `initialize` request, id 1.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
/// The notice that ends the handshake.
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A server with one tool, `echo`, which answers its `text` argument.
pub fn echo_server() -> McpServer {
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    let echo = ToolProxy::from_fn(ToolDefinition::new("echo", "Echo", schema), |args| {
        Ok::<_, String>(args["text"].clone())
    });
    McpServer::new([echo])
}
