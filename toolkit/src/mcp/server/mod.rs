//! Any set of tools served as an MCP server, over stdio or Streamable HTTP (`http`).
//!
//! The protocol is rmcp's; this module only maps tools to MCP and back. Every call goes through
//! a [`Toolbox`], so arguments are coerced and validated exactly as for a local call, the
//! toolbox's limits and hooks apply, a model's mistake comes back as an `isError` result it can
//! read, and a panic is caught there. Sync tools run on tokio's blocking pool, so a slow one
//! never holds the async workers that answer every other request; those marked `inline`
//! (`#[tool(inline)]`: they return at once) run on the workers, without the hop.

mod auth;
mod bearer;
mod caching;
mod catalog;
mod connections;
mod guard;
mod handler;
mod host;
mod http;
mod input_required;
#[cfg(feature = "oauth")]
mod jwks;
#[cfg(feature = "oauth")]
mod jwt;
mod listen;
mod notifier;
mod options;
mod prompt_calls;
mod request_ids;
mod request_state;
mod rmcp_fixes;
mod sessions;
mod settings;
mod signal;
mod stdio;
mod task_calls;
mod task_input;
mod task_results;
mod task_runs;
mod tasks;
mod tools;
mod write_deadline;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{Implementation, JsonObject, Tool};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServiceExt};
use serde_json::Value;

use crate::context::{Caller, Data};
use crate::{TaskSupport, ToolCall, ToolCallResult, ToolError, ToolProxy, Toolbox};
use toolkit_runtime::__private::ToolRef;

use super::McpError;
use super::convert::mcp_tool;
use auth::may_use;
pub use auth::{ProtectedResource, StaticTokens, TokenRejection, TokenVerifier};
use catalog::Offerings;
pub use http::HttpServerHandle;
use input_required::{Ended, Retry};
#[cfg(feature = "oauth")]
pub use jwt::JwtVerifier;
pub use notifier::ServerNotifier;
pub use options::{DEFAULT_MAX_BODY_BYTES, HttpOptions};
pub use request_state::{KeyTooShort, RequestStateOptions};
pub use signal::shutdown_signal;
use task_input::Asker;
use tools::for_serving;

/// Serves a set of tools over MCP.
///
/// `tools/list` gives each tool's name, description, `inputSchema` (its
/// [`parameters`](ToolProxy::parameters)), `outputSchema` (for tools returning a structured
/// object) and annotations. `tools/call` runs [`Toolbox::acall`]: bad arguments, a tool's own
/// error or a panic come back as an `isError` result with the message a model can act on; an
/// unknown tool name is a JSON-RPC error (`-32602`), as are `tools/call` params rmcp cannot read
/// (`arguments` that are not an object, say). A remote tool (from an
/// [`McpClient`](crate::mcp::McpClient)) answers with the remote server's result itself, as
/// that server sent it, unless a hook or a bound of the toolbox changed the outcome: a proxy
/// keeps the content blocks, `structuredContent` and `_meta` its tools' output schemas promise.
///
/// Sync tools run on tokio's blocking pool, never on the async workers that answer every other
/// request: at most [`Limits::max_threads`](crate::Limits::max_threads) calls of one tool at
/// once, and one more waits for a place, up to
/// [`Limits::max_thread_wait`](crate::Limits::max_thread_wait) (a "busy" error result after
/// that, or at once when every place is held by a call past its time limit). A sync tool
/// marked [`inline`](crate::ToolOptions::inline) (`#[tool(inline)]`), one whose body returns in
/// microseconds, runs on the worker instead: the hop to a pool thread and back would cost more
/// than the body.
///
/// A tool's answer is cut at [`DEFAULT_MAX_OUTPUT_BYTES`](super::DEFAULT_MAX_OUTPUT_BYTES)
/// (1 MiB) unless the tool or the toolbox sets its own
/// [`max_output_bytes`](crate::Limits::max_output_bytes).
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
    /// What the client of one session set (its log level); each session served gets its own.
    session: Arc<host::SessionState>,
    /// This session's number, for its resource subscriptions.
    session_id: u64,
    /// Whether this instance answers one request of a stateless HTTP server: no session, so
    /// nothing to subscribe.
    stateless: bool,
    /// The tasks of one session, as `session`.
    tasks: Arc<tasks::Tasks>,
}

/// The next session's number.
static SESSIONS: AtomicU64 = AtomicU64::new(1);

struct ServerInner {
    /// Calls go through the toolbox, so its limits and policy hooks apply to MCP clients too.
    toolbox: Toolbox,
    /// `tools/list`, built once from each tool's [`Format::Mcp`] definition, in the toolbox's order.
    listed: Vec<Tool>,
    info: Implementation,
    instructions: Option<String>,
    /// What the tools read with `ctx.data::<T>()`, over the toolbox's own.
    data: Data,
    /// Resources, templates and prompts.
    catalog: Offerings,
    /// The sessions to notify of changes, shared by every session of this server.
    notifier: ServerNotifier,
    /// How tools that do not say run: as tasks or not ([`McpServer::with_tasks`]).
    tasks: TaskSupport,
    /// The bytes of finished task results kept, every session's together
    /// ([`McpServer::with_max_task_result_bytes`]).
    task_results: Arc<tasks::ResultBudget>,
    /// How long MCP 2026-07-28 clients may keep the lists ([`McpServer::with_list_ttl`]).
    list_caching: caching::ListCaching,
    /// How long a call that may run as a task runs before it becomes one
    /// ([`McpServer::with_task_after`]).
    task_after: std::time::Duration,
    /// The tasks of requests without a session, by caller.
    caller_tasks: tasks::CallerTasks,
    /// What seals the `requestState` of multi-round calls ([`McpServer::with_request_state`]).
    request_state: Arc<request_state::Sealer>,
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
    /// How many bytes of finished task results a server keeps unless
    /// [`with_max_task_result_bytes`](Self::with_max_task_result_bytes) says otherwise: 64 MiB,
    /// 64 results of the longest answer a tool gives by default
    /// ([`DEFAULT_MAX_OUTPUT_BYTES`](super::DEFAULT_MAX_OUTPUT_BYTES)), thousands of ordinary
    /// ones.
    pub const DEFAULT_MAX_TASK_RESULT_BYTES: usize = 64 << 20;

    /// How long an MCP 2026-07-28 client may keep a list unless
    /// [`with_list_ttl`](Self::with_list_ttl) says otherwise: one minute.
    pub const DEFAULT_LIST_TTL: std::time::Duration = std::time::Duration::from_secs(60);

    /// How long an MCP 2026-07-28 call of a tool that may run as a task runs before it becomes
    /// one, unless [`with_task_after`](Self::with_task_after) says otherwise: half a second.
    pub const DEFAULT_TASK_AFTER: std::time::Duration = std::time::Duration::from_millis(500);

    /// A server for these tools, with the default [`Toolbox`] limits. When two tools share a
    /// name, the first one wins (toolkit's one duplicate-name rule,
    /// [`first_of_each_name`](toolkit_runtime::first_of_each_name)); this constructor cannot fail,
    /// so it warns where a [`Toolbox`] would refuse. Build the toolbox yourself and use
    /// [`from_toolbox`](Self::from_toolbox) to be refused instead.
    pub fn new(tools: impl IntoIterator<Item = ToolProxy>) -> Self {
        let (unique, taken) = toolkit_runtime::first_of_each_name(tools, ToolProxy::name);
        for clash in &taken {
            tracing::warn!(
                tool = clash.second.name(),
                "two tools share a name; serving the first"
            );
        }
        let toolbox = Toolbox::builder()
            .tools("MCP server", unique)
            .build()
            .expect("duplicate names were left out");
        Self::from_toolbox(toolbox)
    }

    /// A server for a toolbox: its limits and before/after hooks apply to every MCP call.
    pub fn from_toolbox(toolbox: Toolbox) -> Self {
        let toolbox = for_serving(toolbox);
        let listed = toolbox.iter().map(mcp_tool).collect();
        McpServer {
            inner: Arc::new(ServerInner {
                toolbox,
                listed,
                info: Implementation::new("toolkit", env!("CARGO_PKG_VERSION")),
                instructions: None,
                data: Data::new(),
                catalog: Offerings::default(),
                notifier: ServerNotifier::default(),
                tasks: TaskSupport::Forbidden,
                task_results: Arc::new(tasks::ResultBudget::new(
                    Self::DEFAULT_MAX_TASK_RESULT_BYTES,
                )),
                list_caching: caching::ListCaching {
                    ttl: Self::DEFAULT_LIST_TTL,
                },
                task_after: Self::DEFAULT_TASK_AFTER,
                caller_tasks: tasks::CallerTasks::default(),
                request_state: Arc::new(request_state::Sealer::new(&RequestStateOptions::new())),
            }),
            session: Arc::default(),
            tasks: Arc::default(),
            session_id: 0,
            stateless: false,
        }
    }

    /// The same server for a new session: what a client sets (its log level) and the tasks it
    /// starts are its own.
    fn for_session(&self) -> Self {
        McpServer {
            inner: Arc::clone(&self.inner),
            session: Arc::default(),
            tasks: Arc::default(),
            session_id: SESSIONS.fetch_add(1, Ordering::Relaxed),
            stateless: false,
        }
    }

    /// The same server for a task's run in the background: the session's own, except that it
    /// does not hold the session's tasks (their store goes with the session, and cancels them).
    fn for_task(&self) -> Self {
        McpServer {
            tasks: Arc::default(),
            ..self.clone()
        }
    }

    /// The same server for one request of a stateless HTTP server.
    fn for_stateless_request(&self) -> Self {
        McpServer {
            stateless: true,
            ..self.for_session()
        }
    }

    /// The tools served, in order.
    pub fn tools(&self) -> &[ToolProxy] {
        self.inner.toolbox.tools()
    }

    /// Serves one client over this process's stdin and stdout until it disconnects, or until
    /// the process is asked to stop ([`shutdown_signal`]: `SIGINT` or `SIGTERM`), then
    /// returns `Ok`, so that `main` ends and runs its destructors (a proxy's client kills the
    /// stdio server it started).
    ///
    /// ```no_run
    /// use toolkit::mcp::McpServer;
    ///
    /// # async fn run() -> Result<(), toolkit::mcp::McpError> {
    /// McpServer::new(Vec::new()).serve_stdio().await?;
    /// # Ok(()) }
    /// ```
    pub async fn serve_stdio(self) -> Result<(), McpError> {
        let write = tokio::io::stdout();
        (self.serve_io_until(stdio::stdin(), write, shutdown_signal())).await
    }

    /// Serves one client over any byte stream pair (a socket, a pipe, an in-memory duplex).
    ///
    /// Every request with an id gets an answer: a line that is not UTF-8 or not JSON gets a
    /// JSON-RPC parse error (`-32700`, id `null`), and a request naming a field twice gets an
    /// invalid-request error (`-32600`, with its id when that is not the repeated field).
    pub async fn serve_io<R, W>(self, read: R, write: W) -> Result<(), McpError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        self.serve_io_until(read, write, std::future::pending())
            .await
    }

    /// [`serve_io`](Self::serve_io) until the client disconnects or `shutdown` resolves.
    async fn serve_io_until<R, W>(
        self,
        read: R,
        write: W,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), McpError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let (pipe, screened) = stdio::Screened::start(read, write);
        let served = match self.for_session().serve(pipe).await {
            Ok(running) => {
                let stop = running.cancellation_token();
                let waiting = running.waiting();
                tokio::pin!(waiting);
                // Stopped, rmcp's loop still ends as it does when the client leaves: waited for.
                let ended = tokio::select! {
                    ended = &mut waiting => ended,
                    () = shutdown => {
                        stop.cancel();
                        waiting.await
                    }
                };
                ended.map(drop).map_err(|err| err.to_string())
            }
            Err(err) => Err(err.to_string()),
        };
        screened.finish().await;
        served.map_err(McpError::Serve)
    }

    /// The tool a `tools/call` names, if `caller` may use it: looked up once, for the checks
    /// made before the call and for the call itself. An unknown tool, or one the caller may not
    /// use, is a JSON-RPC error (`-32602`) naming the tools it may use.
    fn resolve(&self, name: &str, caller: Option<&Caller>) -> Result<ToolRef<'_>, ErrorData> {
        let toolbox = &self.inner.toolbox;
        // The HTTP guard has answered 403 already; this keeps a tool the caller may not use
        // out of reach whatever the way in, and its name out of the list of others.
        if let Some(tool) = toolbox.lookup(name)
            && may_use(caller, tool.tool())
        {
            return Ok(tool);
        }
        let unknown = ToolError::UnknownTool {
            name: name.to_owned(),
            available: (toolbox.iter())
                .filter(|tool| may_use(caller, tool))
                .map(|tool| tool.name().to_owned())
                .collect(),
        };
        Err(ErrorData::invalid_params(unknown.to_string(), None))
    }

    /// A `tools/call` of `tool` ([`resolve`](Self::resolve)d) with its arguments, as the
    /// toolbox takes it.
    fn tool_call(&self, tool: &ToolRef<'_>, arguments: Option<JsonObject>) -> ToolCall {
        ToolCall::new(
            tool.tool().name(),
            arguments.map_or(Value::Null, Value::Object),
        )
    }

    /// Runs `call` of `tool` ([`resolve`](Self::resolve)d) through the toolbox: the result,
    /// for [`call_result`] to answer in rmcp's types.
    async fn call(
        &self,
        tool: &ToolRef<'_>,
        call: &ToolCall,
        context: &RequestContext<RoleServer>,
        asker: Option<Asker>,
    ) -> ToolCallResult {
        let called = self.inner.toolbox.acall_tool(tool, call);
        let name = tool.tool().name();
        // Only a tool that takes a context pays for one: the scope, its host, the queue.
        match tool.tool().takes_context() {
            true => {
                let (session, data) = (&self.session, &self.inner.data);
                host::run_call(context, session, data, name, asker, called).await
            }
            false => called.await,
        }
    }

    /// [`call`](Self::call) of a `tools/call` that may be a round of a multi-round call: for a
    /// client of 2026-07-28, a question the tool asks ends its run ([`input_required`]).
    async fn call_in_rounds(
        &self,
        tool: &ToolRef<'_>,
        call: &ToolCall,
        context: &RequestContext<RoleServer>,
        retry: Retry,
    ) -> Ended {
        let rounds = match tool.tool().takes_context() {
            true => retry.rounds(&self.inner.request_state, context, call),
            false => Ok(None),
        };
        let rounds = match rounds {
            Ok(Some(rounds)) => rounds,
            Ok(None) => return Ended::Answered(Self::call(self, tool, call, context, None).await),
            Err(refused) => return Ended::Refused(refused),
        };
        let called = self.inner.toolbox.acall_tool(tool, call);
        let (session, data, name) = (&self.session, &self.inner.data, tool.tool().name());
        match host::run_rounds(context, session, data, name, &rounds, called).await {
            Some(output) => rounds.answered(output),
            None => Ended::Asked(rounds),
        }
    }
}

impl From<Vec<ToolProxy>> for McpServer {
    fn from(tools: Vec<ToolProxy>) -> Self {
        McpServer::new(tools)
    }
}

impl From<Toolbox> for McpServer {
    fn from(toolbox: Toolbox) -> Self {
        McpServer::from_toolbox(toolbox)
    }
}

/// Whether `context`'s request is of a revision without a handshake (MCP 2026-07-28 on),
/// answered as that revision asks: it names its version in its own `_meta` (a handshake-era
/// request's version is its session's).
fn without_handshake(context: &RequestContext<RoleServer>) -> bool {
    (context.protocol_version()).is_some_and(|version| !version.has_initialize())
}
