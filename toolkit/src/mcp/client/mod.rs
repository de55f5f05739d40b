//! Remote MCP tools as toolkit tools: one shared session per server, one async [`ToolProxy`] per
//! remote tool.
//!
//! - `transport`: where a server is ([`McpTransport`]) and how each transport is opened;
//! - `sse`: the older HTTP+SSE transport, which rmcp no longer ships;
//! - `session`: the live connection, reconnection, and the requests sent through it;
//! - `listener`: the client side of each connection, answering what the server asks;
//! - `remote_tool`: one remote tool as a [`ToolProxy`], and its results as values;
//! - `builder`: [`McpClientBuilder`], the settings a client is opened with;
//! - here: the client a caller holds, its options, and the catalog of its tools.

mod abandon;
mod builder;
mod call;
mod failure;
mod handlers;
mod http;
mod input_required;
mod listener;
mod listing;
mod notices;
#[cfg(feature = "oauth")]
mod oauth;
mod offered;
mod opening;
mod oversize;
mod proxy;
mod remote_tool;
mod session;
mod sse;
mod stdio;
mod subscriptions;
mod task_call;
mod transport;
mod url_elicitation;
mod version;

use std::collections::HashSet;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crate::ToolProxy;

use super::McpError;
pub use builder::McpClientBuilder;
use handlers::Handlers;
pub use handlers::{ElicitationHandler, SamplingHandler};
use listing::ListingLimits;
pub use listing::{DEFAULT_MAX_LISTING_BYTES, DEFAULT_MAX_SCHEMA_BYTES, DEFAULT_MAX_TOOLS};
#[cfg(feature = "oauth")]
use oauth::Authorizer;
#[cfg(feature = "oauth")]
pub use oauth::{
    DEFAULT_MAX_STEP_UPS, InMemoryTokenStore, JwtSigningAlgorithm, LocalhostCallback,
    OAuthCallback, OAuthConfig, OAuthTokens, RedirectHandler, TokenStore,
};
pub use offered::CompletionRef;
use remote_tool::remote_tool;
use session::{Reconnect, Session, ToolListChanges};
#[cfg(feature = "__test_hooks")]
#[doc(hidden)]
pub use sse::{EventStreamRead as __EventStreamRead, read_event_stream as __read_event_stream};
pub use transport::{DEFAULT_MAX_MESSAGE_BYTES, McpTransport};
pub use url_elicitation::{UrlElicitation, UrlElicitationHandler};

/// Without the `oauth` feature there is no authorization: the session's `Option` of it is
/// always `None`.
#[cfg(not(feature = "oauth"))]
enum Authorizer {}

/// How remote tools are named, filtered and called.
#[derive(Debug, Clone)]
struct Options {
    prefix: String,
    allow: Option<HashSet<String>>,
    timeout: Duration,
    structured: bool,
    reconnect: Reconnect,
    max_message_bytes: usize,
    max_output_bytes: usize,
    listing: ListingLimits,
    handlers: Handlers,
    #[cfg(feature = "oauth")]
    oauth: Option<OAuthConfig>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            prefix: String::new(),
            allow: None,
            timeout: DEFAULT_CALL_TIMEOUT,
            structured: false,
            reconnect: Reconnect::default(),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_output_bytes: super::DEFAULT_MAX_OUTPUT_BYTES,
            listing: ListingLimits::default(),
            handlers: Handlers::default(),
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }
}

/// How long a remote call may take unless told otherwise ([`McpClientBuilder::timeout`]).
///
/// A server that never answers (it crashed mid-call, dropped an answer, or lost it to a
/// bound) would otherwise hold the call, and the agent step waiting on it, forever. A minute
/// is long for a tool a model waits on, and short against an agent run; a slower tool needs
/// its own setting.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// A live connection to one MCP server, whose tools are [`ToolProxy`]s.
///
/// All proxies share the client's one session; they keep it open after the client itself is
/// dropped (a stdio server is killed, with its process group, when the last of them goes).
/// Each remote tool keeps the server's title, description, annotations, output schema and
/// input schema (`$ref`s inlined, `required` exactly as the server sent it). A call's result
/// is the single text item as a string, several items as a list (text items as strings,
/// images, audio and resources as their MCP JSON), or `structuredContent` when asked for (or
/// beside content other than text, as the whole `{"content", "structuredContent"}`); `isError`
/// becomes a tool error carrying the server's text. The tools return content
/// ([`ToolProxy::returns_content`]): [`ToolOutput::from_value`](crate::ToolOutput::from_value)
/// reads each block back as an [`Image`](crate::Image), [`Audio`](crate::Audio), ... and every
/// format renders it as one.
///
/// Each tool takes a [`ToolContext`](crate::context::ToolContext): the server's progress for a
/// call, and its log messages meanwhile, reach the calling tool's context (an agent's events,
/// or the client of an MCP server serving the tool), in the order the server sent them and
/// before the result; a call that is dropped, times out or whose context is cancelled is
/// cancelled on the server (`notifications/cancelled`). The server's `sampling/createMessage`
/// and `elicitation/create` are answered by [`McpClientBuilder::sampling_model`] (or
/// [`on_sampling`](McpClientBuilder::on_sampling)) and [`McpClientBuilder::on_elicit`]; the
/// client declares each capability only when given its handler (and `roots`, answered with
/// none, always: some servers offer tools only to a client declaring it). A call a 2026-07-28
/// server makes a task (the Tasks extension, which the client declares) is followed to its
/// end: the client polls the task, its status messages reaching the context as progress, and
/// cancels it when the call is dropped. MCP 2025-11-25 tasks are not spoken: an older server's
/// tool that requires a task is called plainly, and its refusal is the call's error. Served
/// again by an [`McpServer`](crate::mcp::McpServer), a remote tool answers with the remote
/// result itself, unchanged, unless the toolbox changed the outcome (a hook, or
/// `max_output_bytes`).
///
/// Everything a server sends is bounded: each message ([`max_message_bytes`], an answer over
/// it fails its call at once), each call ([`timeout`], 60 s), each result handed on
/// ([`max_output_bytes`]), each listing ([`max_tools`], [`max_listing_bytes`]) and each schema
/// ([`max_schema_bytes`]). No redirect takes a request, its headers or its body to another
/// origin (HTTP+SSE follows none; Streamable HTTP, rmcp's, only same-origin 307 and 308).
///
/// [`max_message_bytes`]: McpClientBuilder::max_message_bytes
/// [`timeout`]: McpClientBuilder::timeout
/// [`max_output_bytes`]: McpClientBuilder::max_output_bytes
/// [`max_tools`]: McpClientBuilder::max_tools
/// [`max_listing_bytes`]: McpClientBuilder::max_listing_bytes
/// [`max_schema_bytes`]: McpClientBuilder::max_schema_bytes
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
            .field("server", &self.session.transport().to_string())
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

    /// Connects with default options: no prefix, every tool, the default bounds.
    pub async fn connect(transport: McpTransport) -> Result<McpClient, McpError> {
        Self::builder(transport).connect().await
    }

    /// The server's tools as proxies, as last listed (the list refreshes itself when the server
    /// announces `tools/list_changed`, at most twice a second however many notices come).
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

    /// Who the server said it is when the session opened (`serverInfo`); `None` before a
    /// session is open.
    ///
    /// ```no_run
    /// use toolkit::mcp::{McpClient, McpTransport};
    ///
    /// # async fn run() -> Result<(), toolkit::mcp::McpError> {
    /// let client = McpClient::connect(McpTransport::http("http://127.0.0.1:8000/mcp")).await?;
    /// if let Some(server) = client.server_info().await {
    ///     println!("{} {}", server.name, server.version);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn server_info(&self) -> Option<ServerInfo> {
        let info = self.session.server_info().await?;
        Some(ServerInfo {
            name: info.name,
            version: info.version,
            title: info.title,
        })
    }

    /// The MCP revision the current session speaks (`"2026-07-28"` when the server answered
    /// `server/discover`, the version `initialize` agreed on otherwise); `None` before a
    /// session is open.
    ///
    /// ```no_run
    /// use toolkit::mcp::{McpClient, McpTransport};
    ///
    /// # async fn run() -> Result<(), toolkit::mcp::McpError> {
    /// let client = McpClient::connect(McpTransport::http("http://127.0.0.1:8000/mcp")).await?;
    /// println!("speaking MCP {:?}", client.protocol_version().await);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn protocol_version(&self) -> Option<String> {
        self.session.protocol_version().await
    }
}

/// Who an MCP server says it is (MCP's `serverInfo`, from its `initialize` answer).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerInfo {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// A name for people, when it gave one.
    pub title: Option<String>,
}

/// The shortest time between two refreshes of the tool list prompted by the server.
const MIN_REFRESH_INTERVAL: Duration = Duration::from_millis(500);

/// The tools of one server, as the options filter and name them.
struct Catalog {
    options: Options,
    tools: RwLock<Vec<ToolProxy>>,
}

impl Catalog {
    fn snapshot(&self) -> Vec<ToolProxy> {
        match self.tools.read() {
            Ok(tools) => tools.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    async fn refresh(&self, session: &Arc<Session>) -> Result<(), McpError> {
        let remote = session.list_tools(&self.options.listing).await?;
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
                remote_tool(session, options, tool)
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

    /// Lists the tools again whenever the session says they changed, for as long as both the
    /// catalog and the session are in use.
    fn follow(catalog: &Arc<Catalog>, session: &Arc<Session>, mut changes: ToolListChanges) {
        changes.mark_unchanged();
        let (weak_session, weak_catalog) = (Arc::downgrade(session), Arc::downgrade(catalog));
        tokio::spawn(async move {
            // `changed` wakes once for any number of notices since the last refresh.
            while changes.changed().await.is_ok() {
                let (Some(session), Some(catalog)) =
                    (weak_session.upgrade(), weak_catalog.upgrade())
                else {
                    break;
                };
                if let Err(err) = catalog.refresh(&session).await {
                    tracing::warn!(%err, "could not refresh the MCP tool list");
                }
                drop((session, catalog));
                // Coalescing alone bounds the queue, not the pace: a server sending notices one
                // by one, each after our refresh, would still get a refresh per notice.
                tokio::time::sleep(MIN_REFRESH_INTERVAL).await;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that never answers cannot hold a call past a minute unless the caller says so.
    #[test]
    fn a_call_has_a_timeout_and_a_result_a_bound_by_default() {
        let builder = McpClient::builder(McpTransport::stdio("server"));
        assert_eq!(builder.options.timeout, Duration::from_secs(60));
        assert_eq!(builder.options.max_output_bytes, 1 << 20);
        assert_eq!(builder.options.max_message_bytes, 16 << 20);
    }
}
