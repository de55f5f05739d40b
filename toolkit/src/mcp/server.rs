//! Any set of tools served as an MCP server, over stdio or Streamable HTTP.
//!
//! The protocol is rmcp's; this module only maps tools to MCP and back. Every call goes through
//! a [`Toolbox`], so arguments are coerced and validated exactly as for a local call, the
//! toolbox's limits and hooks apply, a model's mistake comes back as an `isError` result it can
//! read, and a panic is caught there.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::{ToolCall, ToolError, ToolProxy, Toolbox};

use super::McpError;

/// The largest request body [`HttpOptions`] accepts unless told otherwise: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Serves a set of tools over MCP.
///
/// `tools/list` gives each tool's name, description, `inputSchema` (its
/// [`parameters`](ToolProxy::parameters)), `outputSchema` (for tools returning a structured
/// object) and annotations. `tools/call` runs [`Toolbox::acall`]: bad arguments, a tool's own
/// error or a panic come back as an `isError` result with the message a model can act on; an
/// unknown tool name is a JSON-RPC error (`-32602`).
///
/// ```no_run
/// use toolkit::mcp::McpServer;
/// use toolkit::prelude::*;
///
/// #[derive(Default)]
/// struct TextStatsToolset;
///
/// #[toolset(name = "stats")]
/// impl TextStatsToolset {
///     /// Count whitespace-separated words
///     #[tool]
///     fn word_count(&self, text: String) -> usize {
///         text.split_whitespace().count()
///     }
/// }
///
/// # async fn run() -> Result<(), toolkit::mcp::McpError> {
/// McpServer::new(TextStatsToolset::to_tools()).serve_stdio().await
/// # }
/// ```
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<ServerInner>,
}

struct ServerInner {
    /// Calls go through the toolbox, so its limits and policy hooks apply to MCP clients too.
    toolbox: Toolbox,
    tools: Vec<ToolProxy>,
    by_name: HashMap<String, usize>,
    listed: Vec<Tool>,
    info: Implementation,
    instructions: Option<String>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("tools", &self.inner.tools.len())
            .field("name", &self.inner.info.name)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server for these tools, with the default [`Toolbox`] limits. When two tools share a
    /// name, the first one wins.
    pub fn new(tools: impl IntoIterator<Item = ToolProxy>) -> Self {
        let mut seen = std::collections::HashSet::new();
        let unique = tools.into_iter().filter(|tool| {
            let first = seen.insert(tool.name().to_owned());
            if !first {
                tracing::warn!(
                    tool = tool.name(),
                    "two tools share a name; serving the first"
                );
            }
            first
        });
        let toolbox = Toolbox::builder()
            .tools("MCP server", unique)
            .build()
            .expect("duplicate names were filtered out");
        Self::from_toolbox(toolbox)
    }

    /// A server for a toolbox: its limits and before/after hooks apply to every MCP call.
    pub fn from_toolbox(toolbox: Toolbox) -> Self {
        Self::build(
            toolbox,
            Implementation::new("toolkit", env!("CARGO_PKG_VERSION")),
            None,
        )
    }

    fn build(toolbox: Toolbox, info: Implementation, instructions: Option<String>) -> Self {
        let kept: Vec<ToolProxy> = toolbox.iter().cloned().collect();
        let by_name = kept
            .iter()
            .enumerate()
            .map(|(index, tool)| (tool.name().to_owned(), index))
            .collect();
        let listed = kept.iter().map(mcp_tool).collect();
        McpServer {
            inner: Arc::new(ServerInner {
                toolbox,
                tools: kept,
                by_name,
                listed,
                info,
                instructions,
            }),
        }
    }

    /// The name and version the server gives in its `initialize` answer (default: `toolkit`).
    pub fn with_name(self, name: impl Into<String>, version: impl Into<String>) -> Self {
        let inner = &self.inner;
        Self::build(
            inner.toolbox.clone(),
            Implementation::new(name, version),
            inner.instructions.clone(),
        )
    }

    /// Instructions the server gives clients in its `initialize` answer.
    pub fn with_instructions(self, instructions: impl Into<String>) -> Self {
        let inner = &self.inner;
        Self::build(
            inner.toolbox.clone(),
            inner.info.clone(),
            Some(instructions.into()),
        )
    }

    /// The tools served, in order.
    pub fn tools(&self) -> &[ToolProxy] {
        &self.inner.tools
    }

    /// Serves one client over this process's stdin and stdout until it disconnects.
    pub async fn serve_stdio(self) -> Result<(), McpError> {
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|err| McpError::Serve(err.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|err| McpError::Serve(err.to_string()))?;
        Ok(())
    }

    /// Serves one client over any byte stream pair (a socket, a pipe, an in-memory duplex).
    pub async fn serve_io<R, W>(self, read: R, write: W) -> Result<(), McpError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let running = self
            .serve((read, write))
            .await
            .map_err(|err| McpError::Serve(err.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|err| McpError::Serve(err.to_string()))?;
        Ok(())
    }

    /// Serves MCP over Streamable HTTP at `options.path` on `listener`, until `shutdown`
    /// completes; then stops accepting, closes the open sessions and lets in-flight requests
    /// finish.
    pub async fn serve_http(
        self,
        listener: TcpListener,
        options: HttpOptions,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), McpError> {
        let mut config = StreamableHttpServerConfig::default();
        if let Some(hosts) = options.allowed_hosts {
            config = config.with_allowed_hosts(hosts);
        }
        let sessions = config.cancellation_token.clone();
        let server = self.clone();
        let service: StreamableHttpService<McpServer, LocalSessionManager> =
            StreamableHttpService::new(move || Ok(server.clone()), Default::default(), config);
        let guard = Arc::new(Guard {
            bearer: options.bearer_token.map(|token| format!("Bearer {token}")),
            max_body_bytes: options.max_body_bytes,
        });
        let router = axum::Router::new()
            .nest_service(&options.path, service)
            .layer(axum::middleware::from_fn_with_state(guard, guard_request));
        let result = axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                // Open SSE streams would otherwise hold the graceful shutdown forever.
                sessions.cancel();
            })
            .await;
        result.map_err(|err| McpError::Serve(err.to_string()))
    }

    /// Binds `addr` and serves MCP over Streamable HTTP in the background; the handle tells the
    /// bound address (useful with port 0) and shuts the server down.
    ///
    /// ```no_run
    /// # async fn run(tools: Vec<toolkit::ToolProxy>) -> Result<(), toolkit::mcp::McpError> {
    /// use toolkit::mcp::{HttpOptions, McpServer};
    ///
    /// let server = McpServer::new(tools)
    ///     .spawn_http("127.0.0.1:0", HttpOptions::default().bearer_token("s3cret"))
    ///     .await?;
    /// println!("serving on http://{}/mcp", server.local_addr());
    /// server.shutdown().await?;
    /// # Ok(()) }
    /// ```
    pub async fn spawn_http(
        self,
        addr: impl tokio::net::ToSocketAddrs,
        options: HttpOptions,
    ) -> Result<HttpServerHandle, McpError> {
        let listener = TcpListener::bind(addr).await.map_err(McpError::Io)?;
        let local_addr = listener.local_addr().map_err(McpError::Io)?;
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(self.serve_http(listener, options, async move {
            let _ = stopped.await;
        }));
        Ok(HttpServerHandle {
            local_addr,
            stop: Some(stop),
            task,
        })
    }

    async fn call(&self, request: CallToolRequestParams) -> Result<CallToolResult, ErrorData> {
        let Some(&index) = self.inner.by_name.get(request.name.as_ref()) else {
            let unknown = ToolError::UnknownTool {
                name: request.name.to_string(),
                available: self.inner.tools.iter().map(|t| t.name().into()).collect(),
            };
            return Err(ErrorData::invalid_params(unknown.to_string(), None));
        };
        let tool = &self.inner.tools[index];
        let arguments = request.arguments.map_or(Value::Null, Value::Object);
        let call = ToolCall::new(tool.name(), arguments);
        let result = self.inner.toolbox.acall(&call).await;
        Ok(if result.is_error {
            // MCP flags errors with `isError`; the text need not say "Error: " again.
            let text = match result.value {
                Value::String(text) => text
                    .strip_prefix("Error: ")
                    .map(str::to_owned)
                    .unwrap_or(text),
                other => other.to_string(),
            };
            CallToolResult::error(vec![ContentBlock::text(text)])
        } else {
            success(tool, result.value)
        })
    }
}

impl From<Toolbox> for McpServer {
    fn from(toolbox: Toolbox) -> Self {
        McpServer::from_toolbox(toolbox)
    }
}

/// A successful result: the value as text, plus `structuredContent` when the tool declares an
/// output schema (MCP requires both for structured tools).
fn success(tool: &ToolProxy, value: Value) -> CallToolResult {
    let text = match &value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    if tool.output_schema().is_some() && value.is_object() {
        result.structured_content = Some(value);
    }
    result
}

/// A tool as `tools/list` describes it.
fn mcp_tool(tool: &ToolProxy) -> Tool {
    let input_schema = match tool.parameters() {
        Value::Object(schema) => schema.clone(),
        _ => Map::from_iter([("type".to_owned(), json!("object"))]),
    };
    let mut described = Tool::new(
        tool.name().to_owned(),
        tool.description().to_owned(),
        input_schema,
    );
    if let Some(Value::Object(schema)) = tool.output_schema() {
        described = described.with_raw_output_schema(Arc::new(schema.clone()));
    }
    let hints = tool.options().annotations;
    let annotations = [
        ("readOnlyHint", hints.read_only),
        ("destructiveHint", hints.destructive),
        ("idempotentHint", hints.idempotent),
        ("openWorldHint", hints.open_world),
    ]
    .into_iter()
    .filter_map(|(key, hint)| Some((key.to_owned(), Value::Bool(hint?))))
    .collect::<Map<_, _>>();
    if !annotations.is_empty() {
        // rmcp's annotation type is non-exhaustive; its serde form is the protocol's.
        if let Ok(annotations) = serde_json::from_value(Value::Object(annotations)) {
            described = described.with_annotations(annotations);
        }
    }
    described
}

impl From<Vec<ToolProxy>> for McpServer {
    fn from(tools: Vec<ToolProxy>) -> Self {
        McpServer::new(tools)
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(self.inner.info.clone());
        match &self.inner.instructions {
            Some(instructions) => config.with_instructions(instructions.clone()),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.inner.listed.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request).await.map(CallToolResponse::from)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let index = *self.inner.by_name.get(name)?;
        self.inner.listed.get(index).cloned()
    }
}

/// How the Streamable HTTP server guards its endpoint.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The path MCP is served at (default `/mcp`).
    pub path: String,
    /// When set, every request must carry `Authorization: Bearer <token>`; others get 401 and
    /// reach no tool.
    pub bearer_token: Option<String>,
    /// The largest request body accepted; larger ones get 413 (default
    /// [`DEFAULT_MAX_BODY_BYTES`]).
    pub max_body_bytes: usize,
    /// The `Host` names accepted, against DNS rebinding (default: rmcp's `localhost`,
    /// `127.0.0.1`, `::1`); set it to serve under a public name. An empty list accepts any host.
    pub allowed_hosts: Option<Vec<String>>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".to_owned(),
            bearer_token: None,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            allowed_hosts: None,
        }
    }
}

impl HttpOptions {
    /// Requires `Authorization: Bearer <token>` on every request.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }

    /// Sets the largest request body accepted, in bytes.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Accepts requests whose `Host` is one of `hosts` (e.g. `["mcp.example.com"]`); an empty
    /// list accepts any host.
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Serves MCP at `path` instead of `/mcp`.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }
}

/// A Streamable HTTP server running in the background (see [`McpServer::spawn_http`]).
#[derive(Debug)]
pub struct HttpServerHandle {
    local_addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), McpError>>,
}

impl HttpServerHandle {
    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The MCP endpoint's URL, `http://<addr>/mcp` for the default path.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.local_addr)
    }

    /// Stops accepting connections, closes open sessions and waits for the server to finish.
    pub async fn shutdown(mut self) -> Result<(), McpError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match (&mut self.task).await {
            Ok(result) => result,
            Err(join) => Err(McpError::Serve(join.to_string())),
        }
    }
}

impl Drop for HttpServerHandle {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

struct Guard {
    bearer: Option<String>,
    max_body_bytes: usize,
}

/// Bearer auth, then the body limit, before rmcp sees the request.
async fn guard_request(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    if let Some(expected) = &guard.bearer {
        let sent = request
            .headers()
            .get(header::AUTHORIZATION)
            .map(|value| value.as_bytes());
        if !sent.is_some_and(|sent| constant_time_eq(sent, expected.as_bytes())) {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                "missing or wrong bearer token",
            )
                .into_response();
        }
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<usize>().ok());
    if declared.is_some_and(|length| length > guard.max_body_bytes) {
        return too_large(guard.max_body_bytes);
    }
    // A chunked body declares no length: read it up to the limit (MCP messages are small JSON).
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, guard.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(_) => return too_large(guard.max_body_bytes),
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

fn too_large(limit: usize) -> Response {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the request body is larger than {limit} bytes"),
    )
        .into_response()
}

/// Compares without an early exit, so response timing does not reveal how much of a guessed
/// token was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
