//! Remote MCP tools as toolkit tools: one shared session per server, one async [`ToolProxy`] per
//! remote tool.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, RwLock as StdRwLock};
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, Implementation};
use rmcp::service::{NotificationContext, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Map, Value};
use tokio::sync::{RwLock, mpsc};

use crate::schema::{InlineError, inline_refs};
use crate::{ToolAnnotations, ToolDefinition, ToolProxy};

use super::McpError;
use super::sse::SseTransport;

/// Where an MCP server is and how to reach it.
///
/// ```
/// use toolkit::mcp::McpTransport;
///
/// let local = McpTransport::stdio("python3").arg("server.py").env("LOG_LEVEL", "warning");
/// let remote = McpTransport::http("https://mcp.example.com/mcp")
///     .bearer_token("s3cret")
///     .header("x-team", "tools");
/// let legacy = McpTransport::sse("http://127.0.0.1:8000/sse");
/// assert_eq!(local.to_string(), "python3 server.py");
/// assert_eq!(remote.to_string(), "https://mcp.example.com/mcp");
/// assert_eq!(legacy.to_string(), "http://127.0.0.1:8000/sse");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum McpTransport {
    /// A child process speaking MCP on its stdin and stdout.
    Stdio {
        /// The program to run.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to its environment.
        env: BTreeMap<String, String>,
        /// Whether the child's stderr goes to ours (default) or is discarded.
        inherit_stderr: bool,
    },
    /// A server speaking Streamable HTTP at `url`.
    StreamableHttp {
        /// The MCP endpoint.
        url: String,
        /// Sent as `Authorization: Bearer <token>`.
        bearer_token: Option<String>,
        /// Sent with every request.
        headers: BTreeMap<String, String>,
    },
    /// A server speaking the older HTTP+SSE transport; `url` is its event-stream endpoint.
    Sse {
        /// The event-stream endpoint (often `/sse`).
        url: String,
        /// Sent as `Authorization: Bearer <token>`.
        bearer_token: Option<String>,
        /// Sent with every request.
        headers: BTreeMap<String, String>,
    },
}

impl McpTransport {
    /// A server run as a child process.
    pub fn stdio(command: impl Into<String>) -> Self {
        McpTransport::Stdio {
            command: command.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            inherit_stderr: true,
        }
    }

    /// A Streamable HTTP server.
    pub fn http(url: impl Into<String>) -> Self {
        McpTransport::StreamableHttp {
            url: url.into(),
            bearer_token: None,
            headers: BTreeMap::new(),
        }
    }

    /// An HTTP+SSE server.
    pub fn sse(url: impl Into<String>) -> Self {
        McpTransport::Sse {
            url: url.into(),
            bearer_token: None,
            headers: BTreeMap::new(),
        }
    }

    /// Adds an argument to the child process's command line (stdio only; ignored otherwise).
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        if let McpTransport::Stdio { args, .. } = &mut self {
            args.push(arg.into());
        }
        self
    }

    /// Adds arguments to the child process's command line (stdio only).
    pub fn args(mut self, more: impl IntoIterator<Item = impl Into<String>>) -> Self {
        if let McpTransport::Stdio { args, .. } = &mut self {
            args.extend(more.into_iter().map(Into::into));
        }
        self
    }

    /// Sets an environment variable of the child process (stdio only).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let McpTransport::Stdio { env, .. } = &mut self {
            env.insert(key.into(), value.into());
        }
        self
    }

    /// Whether the child's stderr is shown (default) or discarded (stdio only).
    pub fn inherit_stderr(mut self, inherit: bool) -> Self {
        if let McpTransport::Stdio { inherit_stderr, .. } = &mut self {
            *inherit_stderr = inherit;
        }
        self
    }

    /// Authenticates with a bearer token (HTTP transports only).
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        if let McpTransport::StreamableHttp { bearer_token, .. }
        | McpTransport::Sse { bearer_token, .. } = &mut self
        {
            *bearer_token = Some(token.into());
        }
        self
    }

    /// Sends a header with every request (HTTP transports only).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let McpTransport::StreamableHttp { headers, .. } | McpTransport::Sse { headers, .. } =
            &mut self
        {
            headers.insert(name.into(), value.into());
        }
        self
    }

    /// Whether a dropped connection can be opened again with the same settings: true over
    /// HTTP, where the server outlives the connection; false for a child process.
    fn reconnects(&self) -> bool {
        !matches!(self, McpTransport::Stdio { .. })
    }
}

impl std::fmt::Display for McpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            McpTransport::Stdio { command, args, .. } => {
                f.write_str(command)?;
                args.iter().try_for_each(|arg| write!(f, " {arg}"))
            }
            McpTransport::StreamableHttp { url, .. } | McpTransport::Sse { url, .. } => {
                f.write_str(url)
            }
        }
    }
}

/// How remote tools are named, filtered and called.
#[derive(Debug, Clone)]
struct Options {
    prefix: String,
    allow: Option<HashSet<String>>,
    timeout: Option<Duration>,
    structured: bool,
    reconnect_attempts: u32,
    reconnect_delay: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            prefix: String::new(),
            allow: None,
            timeout: None,
            structured: false,
            reconnect_attempts: 5,
            reconnect_delay: Duration::from_millis(100),
        }
    }
}

/// Configures and opens an [`McpClient`].
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `connect` is awaited"]
pub struct McpClientBuilder {
    transport: McpTransport,
    options: Options,
}

impl McpClientBuilder {
    /// Names every remote tool `<prefix><remote name>` (e.g. `gh_` + `create_issue`).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.options.prefix = prefix.into();
        self
    }

    /// Keeps only these remote tools (named as the server names them, without the prefix).
    pub fn allow(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.options.allow = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Fails a call that takes longer than `timeout`, reconnection included.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.options.timeout = Some(timeout);
        self
    }

    /// Returns a result's `structuredContent`, when the server sends one, instead of its
    /// content items.
    pub fn structured(mut self, structured: bool) -> Self {
        self.options.structured = structured;
        self
    }

    /// After a dropped HTTP connection, tries `attempts` times to reconnect, waiting `delay`
    /// before the first try and twice as long before each next one (default: 5 tries from
    /// 100 ms).
    pub fn reconnect(mut self, attempts: u32, delay: Duration) -> Self {
        self.options.reconnect_attempts = attempts;
        self.options.reconnect_delay = delay;
        self
    }

    /// Connects, initializes the session and lists the server's tools.
    pub async fn connect(self) -> Result<McpClient, McpError> {
        let (changed, mut changes) = mpsc::unbounded_channel();
        let service = open(
            &self.transport,
            Listener {
                changed: changed.clone(),
            },
        )
        .await?;
        let session = Arc::new(Session {
            transport: self.transport,
            reconnect_attempts: self.options.reconnect_attempts,
            reconnect_delay: self.options.reconnect_delay,
            changed,
            connection: RwLock::new(Connection {
                service,
                generation: 0,
            }),
        });
        let catalog = Arc::new(Catalog {
            options: self.options,
            tools: StdRwLock::new(Vec::new()),
        });
        catalog.refresh(&session).await?;
        let (weak_session, weak_catalog) = (Arc::downgrade(&session), Arc::downgrade(&catalog));
        tokio::spawn(async move {
            while changes.recv().await.is_some() {
                let (Some(session), Some(catalog)) =
                    (weak_session.upgrade(), weak_catalog.upgrade())
                else {
                    break;
                };
                if let Err(err) = catalog.refresh(&session).await {
                    tracing::warn!(%err, "could not refresh the MCP tool list");
                }
            }
        });
        Ok(McpClient { session, catalog })
    }
}

/// A live connection to one MCP server, whose tools are [`ToolProxy`]s.
///
/// All proxies share the client's one session; they keep it open after the client itself is
/// dropped. Each remote tool keeps the server's description and input schema (`$ref`s inlined,
/// `required` exactly as the server sent it). A call's result is the single text item as a
/// string, several items as a list (text items as strings, images and resources as their MCP
/// JSON), or `structuredContent` when asked for; `isError` becomes a tool error carrying the
/// server's text.
///
/// ```no_run
/// use toolkit::mcp::{McpClient, McpTransport};
/// use toolkit::prelude::*;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let github = McpClient::builder(
///     McpTransport::http("https://api.example.com/mcp").bearer_token("s3cret"),
/// )
/// .prefix("gh_")
/// .allow(["create_issue", "search_issues"])
/// .timeout(std::time::Duration::from_secs(30))
/// .connect()
/// .await?;
/// let tools: Vec<ToolProxy> = github.tools();
/// let found = tools[0].acall(json!({"query": "label:bug"})).await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpClient {
    session: Arc<Session>,
    catalog: Arc<Catalog>,
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("server", &self.session.transport.to_string())
            .field("tools", &self.tool_names())
            .finish_non_exhaustive()
    }
}

impl McpClient {
    /// Starts configuring a connection.
    pub fn builder(transport: McpTransport) -> McpClientBuilder {
        McpClientBuilder {
            transport,
            options: Options::default(),
        }
    }

    /// Connects with default options: no prefix, every tool, no timeout.
    pub async fn connect(transport: McpTransport) -> Result<McpClient, McpError> {
        Self::builder(transport).connect().await
    }

    /// The server's tools as proxies, as last listed (the list refreshes itself when the server
    /// announces `tools/list_changed`).
    pub fn tools(&self) -> Vec<ToolProxy> {
        self.catalog.snapshot()
    }

    /// The names of [`tools`](Self::tools).
    pub fn tool_names(&self) -> Vec<String> {
        self.catalog
            .snapshot()
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect()
    }

    /// Lists the server's tools again.
    pub async fn refresh(&self) -> Result<Vec<ToolProxy>, McpError> {
        self.catalog.refresh(&self.session).await?;
        Ok(self.tools())
    }

    /// The name and version the server gave when the session opened.
    pub async fn server_info(&self) -> Option<Implementation> {
        let connection = self.session.connection.read().await;
        connection
            .service
            .peer_info()
            .and_then(|info| info.server_info.clone())
    }
}

/// The tools of one server, as the options filter and name them.
struct Catalog {
    options: Options,
    tools: StdRwLock<Vec<ToolProxy>>,
}

impl Catalog {
    fn snapshot(&self) -> Vec<ToolProxy> {
        match self.tools.read() {
            Ok(tools) => tools.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    async fn refresh(&self, session: &Arc<Session>) -> Result<(), McpError> {
        let remote = session.list_tools().await?;
        let options = &self.options;
        let tools: Vec<ToolProxy> = remote
            .into_iter()
            .filter(|tool| {
                options
                    .allow
                    .as_ref()
                    .is_none_or(|allow| allow.contains(tool.name.as_ref()))
            })
            .filter_map(|tool| {
                let name = tool.name.to_string();
                remote_proxy(session, options, tool)
                    .inspect_err(|err| {
                        // One broken or hostile schema costs that tool, not the connection.
                        tracing::warn!(tool = %name, error = %err, "remote tool left out");
                    })
                    .ok()
            })
            .collect();
        match self.tools.write() {
            Ok(mut slot) => *slot = tools,
            Err(poisoned) => *poisoned.into_inner() = tools,
        }
        Ok(())
    }
}

/// One remote tool as an async proxy that calls through the shared session.
fn remote_proxy(
    session: &Arc<Session>,
    options: &Options,
    tool: rmcp::model::Tool,
) -> Result<ToolProxy, InlineError> {
    let remote_name = tool.name.to_string();
    let mut definition = ToolDefinition::new(
        format!("{}{}", options.prefix, remote_name),
        tool.description.as_deref().unwrap_or_default(),
        inline_refs(&Value::Object((*tool.input_schema).clone()))?,
    );
    definition.output_schema = tool
        .output_schema
        .as_ref()
        .map(|schema| Value::Object((**schema).clone()));
    if let Some(hints) = &tool.annotations {
        definition.options.annotations = ToolAnnotations {
            read_only: hints.read_only_hint,
            destructive: hints.destructive_hint,
            idempotent: hints.idempotent_hint,
            open_world: hints.open_world_hint,
        };
    }
    // The per-call timeout is kept below, around the request, where its error can say that
    // the server did not answer; a pipeline deadline too would race it with a vaguer message.
    let session = Arc::clone(session);
    let timeout = options.timeout;
    let structured = options.structured;
    Ok(ToolProxy::from_async_fn(definition, move |arguments| {
        let session = Arc::clone(&session);
        let name = remote_name.clone();
        async move {
            let call = async {
                let result = session.call_tool(&name, arguments).await?;
                into_value(result, structured)
            };
            match timeout {
                Some(limit) => tokio::time::timeout(limit, call).await.unwrap_or_else(|_| {
                    Err(format!(
                        "the MCP server did not answer within {} ms",
                        limit.as_millis()
                    ))
                }),
                None => call.await,
            }
        }
    }))
}

/// A call result as the model reads it.
fn into_value(result: CallToolResult, structured: bool) -> Result<Value, String> {
    let items: Vec<Value> = result
        .content
        .iter()
        .map(|block| match serde_json::to_value(block) {
            Ok(Value::Object(item)) if item.get("type").and_then(Value::as_str) == Some("text") => {
                item.get("text").cloned().unwrap_or(Value::Null)
            }
            Ok(other) => other,
            Err(err) => Value::String(format!("<content that could not be read: {err}>")),
        })
        .collect();
    if result.is_error == Some(true) {
        let message = items
            .iter()
            .map(|item| match item {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        return Err(message);
    }
    if (structured || items.is_empty())
        && let Some(value) = result.structured_content
    {
        return Ok(value);
    }
    let mut items = items;
    Ok(match items.len() {
        0 => Value::Null,
        1 => items.remove(0),
        _ => Value::Array(items),
    })
}

/// The one session with a server, reopened over HTTP when the connection drops.
struct Session {
    transport: McpTransport,
    reconnect_attempts: u32,
    reconnect_delay: Duration,
    changed: mpsc::UnboundedSender<()>,
    connection: RwLock<Connection>,
}

struct Connection {
    service: RunningService<RoleClient, Listener>,
    generation: u64,
}

impl Session {
    async fn peer(&self) -> (rmcp::Peer<RoleClient>, u64, bool) {
        let connection = self.connection.read().await;
        (
            connection.service.peer().clone(),
            connection.generation,
            connection.service.is_closed(),
        )
    }

    async fn list_tools(&self) -> Result<Vec<rmcp::model::Tool>, McpError> {
        let (peer, generation, closed) = self.peer().await;
        if !closed {
            match peer.list_all_tools().await {
                Err(err) if self.transport.reconnects() && is_connection_error(&err) => {}
                other => return other.map_err(|err| self.failed("tools/list", err)),
            }
        }
        self.reconnect(generation).await?;
        let (peer, _, _) = self.peer().await;
        peer.list_all_tools()
            .await
            .map_err(|err| self.failed("tools/list", err))
    }

    /// Calls a tool. A call that could not reach the server (the connection had dropped) is
    /// sent once more after reconnecting; one the server may have received is never repeated.
    async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, String> {
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        let (peer, generation, closed) = self.peer().await;
        if !closed {
            match peer.call_tool(params.clone()).await {
                Err(err) if self.transport.reconnects() && is_connection_error(&err) => {}
                other => return other.map_err(|err| call_failed(name, err)),
            }
        }
        self.reconnect(generation)
            .await
            .map_err(|err| err.to_string())?;
        let (peer, _, _) = self.peer().await;
        peer.call_tool(params)
            .await
            .map_err(|err| call_failed(name, err))
    }

    /// Opens a new session unless another caller already replaced `generation`.
    async fn reconnect(&self, generation: u64) -> Result<(), McpError> {
        let mut connection = self.connection.write().await;
        if connection.generation != generation {
            return Ok(());
        }
        if !self.transport.reconnects() {
            return Err(McpError::Disconnected {
                server: self.transport.to_string(),
            });
        }
        let mut delay = self.reconnect_delay;
        let mut last = None;
        for _ in 0..self.reconnect_attempts.max(1) {
            tokio::time::sleep(delay).await;
            delay = delay.saturating_mul(2).min(Duration::from_secs(10));
            let listener = Listener {
                changed: self.changed.clone(),
            };
            match open(&self.transport, listener).await {
                Ok(service) => {
                    connection.service = service;
                    connection.generation += 1;
                    // The new session may list different tools.
                    let _ = self.changed.send(());
                    return Ok(());
                }
                Err(err) => last = Some(err),
            }
        }
        Err(last.unwrap_or(McpError::Disconnected {
            server: self.transport.to_string(),
        }))
    }

    fn failed(&self, what: &str, err: ServiceError) -> McpError {
        McpError::Request {
            server: self.transport.to_string(),
            request: what.to_owned(),
            message: err.to_string(),
        }
    }
}

fn call_failed(name: &str, err: ServiceError) -> String {
    match err {
        // The server's own JSON-RPC error (e.g. an unknown tool): its message is for the model.
        ServiceError::McpError(error) => error.message.into_owned(),
        other => format!("the MCP call to {name} failed: {other}"),
    }
}

/// Errors after which the request never reached a live server.
fn is_connection_error(err: &ServiceError) -> bool {
    matches!(
        err,
        ServiceError::TransportClosed | ServiceError::TransportSend(_)
    )
}

/// Opens a session: connect, `initialize`, `notifications/initialized`.
async fn open(
    transport: &McpTransport,
    listener: Listener,
) -> Result<RunningService<RoleClient, Listener>, McpError> {
    let server = transport.to_string();
    let initialize = |err: rmcp::service::ClientInitializeError| McpError::Connect {
        server: server.clone(),
        message: err.to_string(),
    };
    match transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            inherit_stderr,
        } => {
            let mut process = tokio::process::Command::new(command);
            process.args(args).envs(env);
            let stderr = if *inherit_stderr {
                std::process::Stdio::inherit()
            } else {
                std::process::Stdio::null()
            };
            let (child, _) = TokioChildProcess::builder(process)
                .stderr(stderr)
                .spawn()
                .map_err(|source| McpError::Spawn {
                    command: server.clone(),
                    source,
                })?;
            listener.serve(child).await.map_err(initialize)
        }
        McpTransport::StreamableHttp {
            url,
            bearer_token,
            headers,
        } => {
            let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                .custom_headers(header_pairs(headers)?.into_iter().collect());
            if let Some(token) = bearer_token {
                config = config.auth_header(token.clone());
            }
            let http = StreamableHttpClientTransport::from_config(config);
            listener.serve(http).await.map_err(initialize)
        }
        McpTransport::Sse {
            url,
            bearer_token,
            headers,
        } => {
            let mut headers: HeaderMap = header_pairs(headers)?.into_iter().collect();
            if let Some(token) = bearer_token {
                let value = HeaderValue::try_from(format!("Bearer {token}")).map_err(|err| {
                    McpError::InvalidHeader {
                        name: AUTHORIZATION.to_string(),
                        message: err.to_string(),
                    }
                })?;
                headers.insert(AUTHORIZATION, value);
            }
            let sse =
                SseTransport::connect(url, headers)
                    .await
                    .map_err(|err| McpError::Connect {
                        server: server.clone(),
                        message: err.to_string(),
                    })?;
            listener.serve(sse).await.map_err(initialize)
        }
    }
}

fn header_pairs(
    headers: &BTreeMap<String, String>,
) -> Result<Vec<(HeaderName, HeaderValue)>, McpError> {
    headers
        .iter()
        .map(|(name, value)| {
            let invalid = |message: String| McpError::InvalidHeader {
                name: name.clone(),
                message,
            };
            Ok((
                HeaderName::try_from(name.as_str()).map_err(|err| invalid(err.to_string()))?,
                HeaderValue::try_from(value.as_str()).map_err(|err| invalid(err.to_string()))?,
            ))
        })
        .collect()
}

/// The client side of the session: says who we are and hears `tools/list_changed`.
struct Listener {
    changed: mpsc::UnboundedSender<()>,
}

impl ClientHandler for Listener {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changed.send(());
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            Default::default(),
            Implementation::new("toolkit", env!("CARGO_PKG_VERSION")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(value: Value) -> CallToolResult {
        serde_json::from_value(value).expect("a CallToolResult")
    }

    #[test]
    fn one_text_item_is_a_string_and_several_are_a_list_with_images_kept() {
        let one = result(json!({"content": [{"type": "text", "text": "hi"}]}));
        assert_eq!(into_value(one, false).unwrap(), json!("hi"));
        let mixed = result(json!({"content": [
            {"type": "text", "text": "a chart"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
        ]}));
        assert_eq!(
            into_value(mixed, false).unwrap(),
            json!(["a chart", {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}])
        );
    }

    #[test]
    fn is_error_becomes_a_tool_error_with_the_server_text() {
        let failed =
            result(json!({"isError": true, "content": [{"type": "text", "text": "no such repo"}]}));
        match into_value(failed, false) {
            Err(message) => assert_eq!(message, "no such repo"),
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn structured_content_is_returned_only_when_asked_for() {
        let value = json!({"content": [{"type": "text", "text": "{\"n\":1}"}], "structuredContent": {"n": 1}});
        assert_eq!(
            into_value(result(value.clone()), false).unwrap(),
            json!("{\"n\":1}")
        );
        assert_eq!(into_value(result(value), true).unwrap(), json!({"n": 1}));
    }
}
