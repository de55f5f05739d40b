//! Any set of tools served as an MCP server, over stdio or Streamable HTTP.
//!
//! The protocol is rmcp's; this module only maps tools to MCP and back. Every call goes through
//! a [`Toolbox`], so arguments are coerced and validated exactly as for a local call, the
//! toolbox's limits and hooks apply, a model's mistake comes back as an `isError` result it can
//! read, and a panic is caught there.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ResultType, ServerCapabilities, ServerConfig, Tool,
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
    /// `tools/list`, built once from each tool's [`ToolProxy::to_mcp`], in the toolbox's order.
    listed: Vec<Tool>,
    info: Implementation,
    instructions: Option<String>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("tools", &self.inner.toolbox.len())
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
        let listed = toolbox.iter().map(mcp_tool).collect();
        McpServer {
            inner: Arc::new(ServerInner {
                toolbox,
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
        self.inner.toolbox.tools()
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
        let toolbox = &self.inner.toolbox;
        let Some(tool) = toolbox.get(&request.name) else {
            let unknown = ToolError::UnknownTool {
                name: request.name.to_string(),
                available: toolbox.names().map(str::to_owned).collect(),
            };
            return Err(ErrorData::invalid_params(unknown.to_string(), None));
        };
        let arguments = request.arguments.map_or(Value::Null, Value::Object);
        let result = toolbox.acall(&ToolCall::new(tool.name(), arguments)).await;
        let mut answer: CallToolResult = serde_json::from_value(tool.to_mcp_result(&result))
            .map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
        // rmcp's constructors mark a result complete (SEP-2322), and its handler removes the
        // mark for peers of older protocol versions; a result read from JSON needs it set too.
        answer.result_type = Some(ResultType::COMPLETE);
        Ok(answer)
    }
}

impl From<Toolbox> for McpServer {
    fn from(toolbox: Toolbox) -> Self {
        McpServer::from_toolbox(toolbox)
    }
}

/// A tool as `tools/list` describes it: [`ToolProxy::to_mcp`], in rmcp's type.
fn mcp_tool(tool: &ToolProxy) -> Tool {
    serde_json::from_value(tool.to_mcp()).unwrap_or_else(|err| {
        // Only a parameters schema that is not a JSON object could fail here, and tools are
        // built with object schemas; list the tool without its schema rather than not at all.
        tracing::warn!(tool = tool.name(), error = %err, "tool listed without its schema");
        Tool::new(
            tool.name().to_owned(),
            tool.description().to_owned(),
            Map::from_iter([("type".to_owned(), json!("object"))]),
        )
    })
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
        let index = self.inner.toolbox.index_of(name)?;
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
