//! The one session with a server: the live connection, reopened over HTTP when it drops, and
//! the requests sent through it.

use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult, Implementation, PaginatedRequestParams};
use rmcp::service::{RunningService, ServiceError};
use serde_json::{Map, Value};
use tokio::sync::{Mutex, RwLock, watch};

use super::Authorizer;
use super::call;
use super::failure::CallFailure;
use super::handlers::Handlers;
use super::listener::Listener;
use super::listing::{self, ListingError, ListingLimits, MAX_TOOL_PAGES, Tally};
use super::notices::{self, Routes};
use super::opening::{Opened, open};
use super::oversize::{answer_too_large, is_too_large};
use super::stdio::ChildGroup;
use super::subscriptions;
use super::transport::McpTransport;
use super::version::spoken_version;
use crate::context::ToolContext;
use crate::mcp::McpError;
use crate::retry::RetryPolicy;

/// How often, and how patiently, a connection is opened and a dropped HTTP connection reopened.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reconnect {
    /// How many times to try (`max_retries`), and the wait before each try: from
    /// `initial_backoff`, doubling up to 10 s, with jitter, so the clients of a restarted
    /// server do not all come back at once.
    pub(super) backoff: RetryPolicy,
    /// How long one attempt to connect and initialize may take.
    pub(super) connect_timeout: Duration,
}

impl Default for Reconnect {
    fn default() -> Self {
        Reconnect {
            backoff: RetryPolicy {
                max_retries: 5,
                initial_backoff: Duration::from_millis(100),
                max_delay: MAX_RECONNECT_DELAY,
            },
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
        }
    }
}

/// How long connecting (and the `initialize` handshake) may take unless told otherwise.
pub(super) const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest wait between two reconnection attempts.
const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(10);

/// The one session with a server, reopened over HTTP when the connection drops.
pub(super) struct Session {
    transport: McpTransport,
    reconnect: Reconnect,
    /// The longest message read from the server.
    max_message_bytes: usize,
    /// What one listing of tools may hold, screened in the transport.
    listing: ListingLimits,
    /// The server's OAuth authorization, kept across reconnections.
    oauth: Option<Arc<Authorizer>>,
    /// Told when the server's tool list may have changed.
    changed: Arc<watch::Sender<()>>,
    /// What the client answers when the server asks (each new connection gets them).
    handlers: Handlers,
    connection: RwLock<Connection>,
    /// Held by the one caller reopening the connection; the connection itself is locked only
    /// to swap in the new one, so calls are never queued behind a sleep or a slow connect.
    reopening: Mutex<()>,
}

struct Connection {
    service: RunningService<RoleClient, Listener>,
    /// Where the server's progress and log notifications go.
    routes: Arc<Routes>,
    /// A stdio server's process group, killed when the connection goes.
    _child: Option<ChildGroup>,
    /// Counts reconnections, so callers that saw the same drop reconnect only once.
    generation: u64,
}

/// Notices that the server's tool list may have changed: `tools/list_changed`, or a new
/// session after a reconnection. Notices coalesce: a flood of them costs one refresh at a time,
/// not one per notice.
pub(super) type ToolListChanges = watch::Receiver<()>;

impl Session {
    /// Connects and initializes a session.
    pub(super) async fn open(
        transport: McpTransport,
        reconnect: Reconnect,
        max_message_bytes: usize,
        listing: ListingLimits,
        handlers: Handlers,
        oauth: Option<Arc<Authorizer>>,
    ) -> Result<(Arc<Session>, ToolListChanges), McpError> {
        let (changed, changes) = watch::channel(());
        let changed = Arc::new(changed);
        let listener = Listener {
            changed: Arc::clone(&changed),
            handlers: handlers.clone(),
        };
        let routes = Arc::new(Routes::default());
        let opened = open_within(
            &transport,
            listener,
            &routes,
            reconnect.connect_timeout,
            max_message_bytes,
            listing,
            oauth.as_ref(),
        )
        .await?;
        let session = Arc::new(Session {
            transport,
            reconnect,
            max_message_bytes,
            listing,
            oauth,
            changed,
            handlers,
            connection: RwLock::new(Connection {
                service: opened.service,
                routes,
                _child: opened.child,
                generation: 0,
            }),
            reopening: Mutex::new(()),
        });
        Ok((session, changes))
    }

    /// What the client answers when the server asks.
    pub(super) fn handlers(&self) -> &Handlers {
        &self.handlers
    }

    /// Where the server is.
    pub(super) fn transport(&self) -> &McpTransport {
        &self.transport
    }

    /// The name and version the server gave when the current session opened.
    pub(super) async fn server_info(&self) -> Option<Implementation> {
        let connection = self.connection.read().await;
        connection
            .service
            .peer_info()
            .and_then(|info| info.server_info.clone())
    }

    /// The revision the current session speaks.
    pub(super) async fn protocol_version(&self) -> Option<String> {
        let connection = self.connection.read().await;
        let info = connection.service.peer_info()?;
        Some(info.protocol_version.to_string())
    }

    /// What the server said it offers when the current session opened.
    pub(super) async fn capabilities(&self) -> Option<rmcp::model::ServerCapabilities> {
        let connection = self.connection.read().await;
        let info = connection.service.peer_info()?;
        Some(info.capabilities.clone())
    }

    pub(super) async fn peer(&self) -> Current {
        let connection = self.connection.read().await;
        Current {
            peer: connection.service.peer().clone(),
            routes: Arc::clone(&connection.routes),
            generation: connection.generation,
            closed: connection.service.is_closed(),
        }
    }

    /// Every tool the server lists, within `limits`.
    pub(super) async fn list_tools(
        &self,
        limits: &ListingLimits,
    ) -> Result<Vec<rmcp::model::Tool>, McpError> {
        let Current {
            peer,
            generation,
            closed,
            ..
        } = self.peer().await;
        if !closed {
            match self.list_pages(&peer, limits).await {
                Err(Listing::Failed(err))
                    if self.transport.reconnects() && is_connection_error(&err) => {}
                other => return other.map_err(|err| self.listing_failed(err)),
            }
        }
        self.reconnect(generation).await?;
        let peer = self.peer().await.peer;
        self.list_pages(&peer, limits)
            .await
            .map_err(|err| self.listing_failed(err))
    }

    /// Every page of `tools/list`, up to [`MAX_TOOL_PAGES`], each counted against `limits`
    /// as it arrives.
    async fn list_pages(
        &self,
        peer: &rmcp::Peer<RoleClient>,
        limits: &ListingLimits,
    ) -> Result<Vec<rmcp::model::Tool>, Listing> {
        let mut tools = Vec::new();
        let mut tally = Tally::default();
        let mut cursor = None;
        for _ in 0..MAX_TOOL_PAGES {
            let params =
                cursor.map(|cursor| PaginatedRequestParams::default().with_cursor(Some(cursor)));
            let page = peer.list_tools(params).await.map_err(Listing::Failed)?;
            tally.add(&page.tools, limits).map_err(Listing::Refused)?;
            tools.extend(page.tools);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return Ok(tools),
            }
        }
        Err(Listing::Refused(ListingError::Endless))
    }

    fn listing_failed(&self, err: Listing) -> McpError {
        match err {
            Listing::Failed(err) => match listing::refused(&err) {
                // A page refused in its text, before rmcp read it: said as a refusal here is.
                Some(message) => McpError::Request {
                    server: self.transport.to_string(),
                    request: "tools/list".into(),
                    message,
                },
                None => self.failed("tools/list", err),
            },
            Listing::Refused(err) => McpError::Request {
                server: self.transport.to_string(),
                request: "tools/list".into(),
                message: err.to_string(),
            },
        }
    }

    /// Calls a tool. After a transport error the call is sent once more, after reconnecting,
    /// when it cannot have reached the server (the connection was closed, or refused) or when
    /// the tool is `idempotent` (its `idempotentHint`): running it twice does no harm. Any other
    /// call is never repeated: it fails, saying it may have run. The server's progress for
    /// the call goes to `ctx`, and its log messages meanwhile.
    pub(super) async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        idempotent: bool,
        ctx: &ToolContext,
    ) -> Result<CallToolResult, String> {
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        let current = self.peer().await;
        let generation = current.generation;
        if !current.closed {
            let first = self.call_once(&current, params.clone(), ctx);
            match first.await {
                // The server ran the call and answered: sending it again would run it again.
                Err(CallFailure::Request(err)) if is_too_large(&err) => {
                    return Err(self.call_failed(name, err.into()));
                }
                Err(CallFailure::Request(err))
                    if self.transport.reconnects() && is_connection_error(&err) =>
                {
                    if !idempotent && !never_sent(&err) {
                        return Err(format!(
                            "the connection to the MCP server failed during the call to {name} \
                             ({err}); it was not sent again because the tool is not marked \
                             idempotent, so it may or may not have run"
                        ));
                    }
                }
                other => return other.map_err(|err| self.call_failed(name, err)),
            }
        }
        self.reconnect(generation)
            .await
            .map_err(|err| err.to_string())?;
        let current = self.peer().await;
        self.call_once(&current, params, ctx)
            .await
            .map_err(|err| self.call_failed(name, err))
    }

    /// One call through `current` (a 2026-07-28 server may make it a task, followed to its
    /// end by `call::call_tool`).
    async fn call_once(
        &self,
        current: &Current,
        params: CallToolRequestParams,
        ctx: &ToolContext,
    ) -> Result<CallToolResult, CallFailure> {
        let (peer, routes) = (&current.peer, &current.routes);
        call::call_tool(peer, routes, &self.handlers, params, ctx).await
    }

    /// Opens a new session unless another caller already replaced `generation`. Only the
    /// swap holds the connection's lock: calls go on (and fail fast on the closed connection,
    /// or wait for this reconnection through `reopening`) while it sleeps and connects.
    pub(super) async fn reconnect(&self, generation: u64) -> Result<(), McpError> {
        let _reopening = self.reopening.lock().await;
        if self.connection.read().await.generation != generation {
            return Ok(());
        }
        if !self.transport.reconnects() {
            return Err(self.disconnected());
        }
        let mut last = None;
        for attempt in 0..self.reconnect.backoff.max_retries.max(1) {
            tokio::time::sleep(self.reconnect.backoff.delay(attempt, None)).await;
            let listener = Listener {
                changed: Arc::clone(&self.changed),
                handlers: self.handlers.clone(),
            };
            let routes = Arc::new(Routes::default());
            let opening = open_within(
                &self.transport,
                listener,
                &routes,
                self.reconnect.connect_timeout,
                self.max_message_bytes,
                self.listing,
                self.oauth.as_ref(),
            );
            match opening.await {
                Ok(opened) => {
                    let mut connection = self.connection.write().await;
                    connection.service = opened.service;
                    connection.routes = routes;
                    connection._child = opened.child;
                    connection.generation += 1;
                    // The new session may list different tools.
                    self.changed.send_replace(());
                    return Ok(());
                }
                Err(err) => last = Some(err),
            }
        }
        Err(last.unwrap_or_else(|| self.disconnected()))
    }

    fn disconnected(&self) -> McpError {
        McpError::Disconnected {
            server: self.transport.to_string(),
        }
    }

    pub(super) fn failed(&self, what: &str, err: ServiceError) -> McpError {
        McpError::Request {
            server: self.transport.to_string(),
            request: what.to_owned(),
            message: err.to_string(),
        }
    }
}

impl Session {
    /// What a failed call says to the model.
    fn call_failed(&self, name: &str, err: CallFailure) -> String {
        match err {
            CallFailure::Request(err) if is_too_large(&err) => {
                answer_too_large(self.max_message_bytes)
            }
            CallFailure::Request(err) => call_failed(name, err),
            CallFailure::Unanswered(message) => message,
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

/// Why listing tools stopped.
enum Listing {
    Failed(ServiceError),
    Refused(ListingError),
}

/// [`open`] within `timeout`: a server that accepts the connection and then says nothing (or
/// never names its SSE endpoint) cannot hold the caller forever.
async fn open_within(
    transport: &McpTransport,
    listener: Listener,
    routes: &Arc<Routes>,
    timeout: Duration,
    max_message_bytes: usize,
    listing: ListingLimits,
    oauth: Option<&Arc<Authorizer>>,
) -> Result<Opened<Listener>, McpError> {
    let log_level = listener.handlers.log_level;
    let changed = Arc::clone(&listener.changed);
    let opening = async {
        let opened = open(
            transport,
            listener,
            routes,
            max_message_bytes,
            listing,
            oauth,
        )
        .await?;
        spoken_version(&opened.service, transport)?;
        if let Some(info) = opened.service.peer_info()
            && subscriptions::needed(&info.protocol_version, &info.capabilities)
        {
            subscriptions::follow_tool_list(opened.service.peer().clone(), changed);
        }
        // Asked again of every new session: a level is the session's.
        if let Some(level) = log_level {
            notices::ask_for_logs(opened.service.peer(), level).await;
        }
        Ok(opened)
    };
    toolkit_runtime::within(timeout, opening)
        .await
        .unwrap_or_else(|| {
            Err(McpError::Connect {
                server: transport.to_string(),
                message: format!("no answer within {} ms", timeout.as_millis()),
            })
        })
}

/// Errors after which the request never reached a live server.
pub(super) fn is_connection_error(err: &ServiceError) -> bool {
    matches!(
        err,
        ServiceError::TransportClosed | ServiceError::TransportSend(_)
    )
}

/// Whether a transport error says the request never left: the connection was refused.
fn never_sent(err: &ServiceError) -> bool {
    let ServiceError::TransportSend(error) = err else {
        return false;
    };
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error.error.as_ref());
    while let Some(current) = source {
        if current
            .downcast_ref::<reqwest::Error>()
            .is_some_and(reqwest::Error::is_connect)
        {
            return true;
        }
        source = current.source();
    }
    false
}

/// The connection a call goes through, as it was when the call began.
pub(super) struct Current {
    pub(super) peer: rmcp::Peer<RoleClient>,
    routes: Arc<Routes>,
    pub(super) generation: u64,
    pub(super) closed: bool,
}
