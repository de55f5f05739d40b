//! The peer `scripts/peers` measures toolkit's MCP server against: the `task_assign` tool of
//! `examples/mcp_server.rs`, served by rmcp alone (a hand-written `ServerHandler`, serde for the
//! arguments, schemars for the schema), over rmcp's Streamable HTTP service with its defaults.
//!
//! ```text
//! cargo run --release --example rmcp_plain_server -- 127.0.0.1:8001
//! ```
//!
//! It is what a person writes with rmcp and no tool framework; the throughput of
//! `examples/mcp_server.rs` should be at least this server's.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    High,
}

/// A task to file.
#[derive(Deserialize, JsonSchema)]
struct Task {
    /// A short title
    title: String,
    /// Who does it
    assignee: String,
}

#[derive(Deserialize, JsonSchema)]
struct AssignArgs {
    /// the task to file
    task: Task,
    /// how urgent it is
    priority: Priority,
    /// an optional note for the assignee
    note: Option<String>,
}

#[derive(Clone)]
struct Plain {
    tools: Arc<Vec<Tool>>,
}

impl Plain {
    fn new() -> Plain {
        let schema = serde_json::to_value(schemars::schema_for!(AssignArgs))
            .ok()
            .and_then(|schema| match schema {
                Value::Object(map) => Some(map),
                _ => None,
            })
            .unwrap_or_default();
        let tool = Tool::new(
            "task_assign",
            "File a task with a priority.",
            Arc::new(schema),
        );
        Plain {
            tools: Arc::new(vec![tool]),
        }
    }
}

fn assign(arguments: Option<Map<String, Value>>) -> Result<String, String> {
    let args: AssignArgs = serde_json::from_value(Value::Object(arguments.unwrap_or_default()))
        .map_err(|err| err.to_string())?;
    if args.task.title.trim().is_empty() {
        return Err("the task title is empty".into());
    }
    let note = args.note.map(|n| format!(" ({n})")).unwrap_or_default();
    Ok(format!(
        "{} -> {} [{:?}]{note}",
        args.task.title, args.task.assignee, args.priority
    ))
}

impl ServerHandler for Plain {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "task_assign" {
            return Err(ErrorData::invalid_params("unknown tool", None));
        }
        let result = match assign(request.arguments) {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        };
        Ok(CallToolResponse::from(result))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .ok_or("usage: rmcp_plain_server ADDR")?;
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let plain = Plain::new();
    let service: StreamableHttpService<Plain, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(plain.clone()),
        Arc::default(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    eprintln!("serving task_assign at http://{addr}/mcp");
    axum::serve(listener, router).await?;
    Ok(())
}
