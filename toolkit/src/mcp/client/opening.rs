//! How a session with a server opens: connect, then `server/discover` (MCP 2026-07-28), or
//! `initialize` for an older server, on each kind of transport.

use std::sync::Arc;

use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};

use super::Authorizer;
use super::http::McpHttp;
use super::listing::ListingLimits;
use super::notices::{Routes, tap};
use super::sse::SseTransport;
use super::stdio::{self, ChildGroup};
use super::transport::{McpTransport, http_config, sse_headers};
use super::version::lifecycle;
use crate::mcp::McpError;

/// A session opened by [`open`], and the stdio server's process group when there is one: kept
/// as long as the session, so the server goes with it.
pub(super) struct Opened<H: ClientHandler> {
    pub(super) service: RunningService<RoleClient, H>,
    pub(super) child: Option<ChildGroup>,
}

/// Opens a session with `handler` on our side: connect, then `server/discover` (MCP
/// 2026-07-28), or `initialize` and `notifications/initialized` for an older server (and
/// always over HTTP+SSE, which 2026-07-28 deprecates). No message from the server may be longer than
/// `max_message_bytes`; over stdio, SSE and Streamable HTTP's event streams, a page of tools is
/// screened against `listing` in its text, before rmcp parses it (rmcp's Streamable HTTP client
/// parses a JSON body itself). With `oauth`, Streamable HTTP requests are authorized through it
/// (the other transports refuse it).
pub(super) async fn open<H: ClientHandler + Clone>(
    transport: &McpTransport,
    handler: H,
    routes: &Arc<Routes>,
    max_message_bytes: usize,
    listing: ListingLimits,
    oauth: Option<&Arc<Authorizer>>,
) -> Result<Opened<H>, McpError> {
    let server = transport.to_string();
    if oauth.is_some() && !matches!(transport, McpTransport::StreamableHttp { .. }) {
        return Err(McpError::Connect {
            server,
            message: "OAuth is for Streamable HTTP servers only".to_owned(),
        });
    }
    let opening = Opening {
        transport,
        routes,
        max_message_bytes,
        listing,
        oauth,
    };
    match opening.open(handler.clone(), lifecycle()).await {
        Err(Failed::Initialize(err)) if initialize_instead(&err) => opening
            .open(handler, ClientLifecycleMode::Initialize)
            .await
            .map_err(|failed| failed.into_error(&server)),
        other => other.map_err(|failed| failed.into_error(&server)),
    }
}

/// Whether `server/discover` failed in a way that says the server is older, where rmcp 3.11
/// does not fall back to `initialize` itself (it does on a JSON-RPC error): the server
/// answered with a result of another kind (a 2025-era server may answer a method it does not
/// know with `{}`, as the conformance suite's do), or named only versions that have the
/// `initialize` handshake (an rmcp server limited to 2025-11-25 does).
fn initialize_instead(err: &ClientInitializeError) -> bool {
    match err {
        ClientInitializeError::ExpectedInitResult(Some(_)) => true,
        ClientInitializeError::NoCompatibleProtocolVersion {
            server_supported, ..
        } => server_supported.iter().any(ProtocolVersion::has_initialize),
        _ => false,
    }
}

/// Why a session did not open.
enum Failed {
    // Boxed: rmcp's error is large (clippy: large_enum_variant).
    Initialize(Box<ClientInitializeError>),
    Other(McpError),
}

impl Failed {
    fn into_error(self, server: &str) -> McpError {
        match self {
            Failed::Initialize(err) => McpError::Connect {
                server: server.to_owned(),
                message: err.to_string(),
            },
            Failed::Other(err) => err,
        }
    }
}

/// What one attempt to open a session needs.
struct Opening<'a> {
    transport: &'a McpTransport,
    routes: &'a Arc<Routes>,
    max_message_bytes: usize,
    listing: ListingLimits,
    oauth: Option<&'a Arc<Authorizer>>,
}

impl Opening<'_> {
    async fn open<H: ClientHandler>(
        &self,
        handler: H,
        lifecycle: ClientLifecycleMode,
    ) -> Result<Opened<H>, Failed> {
        let (routes, max_message_bytes, listing) =
            (self.routes, self.max_message_bytes, self.listing);
        let server = self.transport.to_string();
        match self.transport {
            McpTransport::Stdio {
                command,
                args,
                env,
                inherit_stderr,
            } => {
                let child = Child {
                    command,
                    args,
                    env,
                    inherit_stderr: *inherit_stderr,
                };
                self.open_stdio(handler, lifecycle, child).await
            }
            McpTransport::StreamableHttp {
                url,
                bearer_token,
                headers,
            } => {
                let config = http_config(url, bearer_token.as_deref(), headers, max_message_bytes)
                    .map_err(Failed::Other)?;
                let client = McpHttp::new(self.oauth, listing);
                let http = StreamableHttpClientTransport::with_client(client, config);
                let service = handler
                    .serve_with_lifecycle(tap(http, routes), lifecycle)
                    .await
                    .map_err(|err| Failed::Initialize(Box::new(err)))?;
                Ok(Opened {
                    service,
                    child: None,
                })
            }
            // HTTP+SSE is the older transport (deprecated by 2026-07-28): `initialize` only.
            McpTransport::Sse {
                url,
                bearer_token,
                headers,
            } => {
                let headers =
                    sse_headers(bearer_token.as_deref(), headers).map_err(Failed::Other)?;
                let sse = SseTransport::connect(url, headers, max_message_bytes, listing)
                    .await
                    .map_err(|err| {
                        Failed::Other(McpError::Connect {
                            server,
                            message: err.to_string(),
                        })
                    })?;
                let service = handler
                    .serve(tap(sse, routes))
                    .await
                    .map_err(|err| Failed::Initialize(Box::new(err)))?;
                Ok(Opened {
                    service,
                    child: None,
                })
            }
        }
    }
}

impl Opening<'_> {
    /// A child process, started for this attempt, in its own process group.
    async fn open_stdio<H: ClientHandler>(
        &self,
        handler: H,
        lifecycle: ClientLifecycleMode,
        child: Child<'_>,
    ) -> Result<Opened<H>, Failed> {
        let spawned = stdio::spawn(
            child.command,
            child.args,
            child.env,
            child.inherit_stderr,
            self.max_message_bytes,
            self.listing,
        )
        .map_err(|source| {
            Failed::Other(McpError::Spawn {
                command: self.transport.to_string(),
                source,
            })
        })?;
        // Held across `serve`, so a server that fails the handshake is killed too.
        let group = spawned.group;
        let io = tap((spawned.stdout, spawned.stdin), self.routes);
        let service = handler
            .serve_with_lifecycle(io, lifecycle)
            .await
            .map_err(|err| Failed::Initialize(Box::new(err)))?;
        Ok(Opened {
            service,
            child: Some(group),
        })
    }
}

/// The child process a stdio transport names.
struct Child<'a> {
    command: &'a str,
    args: &'a [String],
    env: &'a std::collections::BTreeMap<String, String>,
    inherit_stderr: bool,
}
