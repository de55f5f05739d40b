//! The one session with a server: the live connection, reopened over HTTP when it drops, and
//! the requests sent through it.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, Implementation};
use rmcp::service::{NotificationContext, RunningService, ServiceError};
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Map, Value};
use tokio::sync::{RwLock, mpsc};

use super::transport::{McpTransport, open};
use crate::mcp::McpError;

/// How often, and how patiently, a dropped HTTP connection is reopened.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reconnect {
    /// How many times to try.
    pub(super) attempts: u32,
    /// The wait before the first try; each next wait is twice as long, up to 10 s.
    pub(super) delay: Duration,
}

impl Default for Reconnect {
    fn default() -> Self {
        Reconnect {
            attempts: 5,
            delay: Duration::from_millis(100),
        }
    }
}

/// The longest wait between two reconnection attempts.
const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(10);

/// The one session with a server, reopened over HTTP when the connection drops.
pub(super) struct Session {
    transport: McpTransport,
    reconnect: Reconnect,
    /// Told when the server's tool list may have changed.
    changed: mpsc::UnboundedSender<()>,
    connection: RwLock<Connection>,
}

struct Connection {
    service: RunningService<RoleClient, Listener>,
    /// Counts reconnections, so callers that saw the same drop reconnect only once.
    generation: u64,
}

/// Notices that the server's tool list may have changed: `tools/list_changed`, or a new
/// session after a reconnection.
pub(super) type ToolListChanges = mpsc::UnboundedReceiver<()>;

impl Session {
    /// Connects and initializes a session.
    pub(super) async fn open(
        transport: McpTransport,
        reconnect: Reconnect,
    ) -> Result<(Arc<Session>, ToolListChanges), McpError> {
        let (changed, changes) = mpsc::unbounded_channel();
        let service = open(
            &transport,
            Listener {
                changed: changed.clone(),
            },
        )
        .await?;
        let session = Arc::new(Session {
            transport,
            reconnect,
            changed,
            connection: RwLock::new(Connection {
                service,
                generation: 0,
            }),
        });
        Ok((session, changes))
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

    async fn peer(&self) -> (rmcp::Peer<RoleClient>, u64, bool) {
        let connection = self.connection.read().await;
        (
            connection.service.peer().clone(),
            connection.generation,
            connection.service.is_closed(),
        )
    }

    pub(super) async fn list_tools(&self) -> Result<Vec<rmcp::model::Tool>, McpError> {
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
    pub(super) async fn call_tool(
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
            return Err(self.disconnected());
        }
        let mut delay = self.reconnect.delay;
        let mut last = None;
        for _ in 0..self.reconnect.attempts.max(1) {
            tokio::time::sleep(delay).await;
            delay = delay.saturating_mul(2).min(MAX_RECONNECT_DELAY);
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
        Err(last.unwrap_or_else(|| self.disconnected()))
    }

    fn disconnected(&self) -> McpError {
        McpError::Disconnected {
            server: self.transport.to_string(),
        }
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
