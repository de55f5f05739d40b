//! Serving over Streamable HTTP: rmcp's service configured from [`HttpOptions`], behind the
//! guard every request passes first, and the handle of a server running in the background.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::McpServer;
use super::bearer::{Bearer, metadata_document};
use super::guard::{Guard, guard_request};
use super::listen::{ConnectionLimits, serve_connections};
use super::options::HttpOptions;
use super::sessions::SessionCap;
use crate::mcp::McpError;

impl McpServer {
    /// Serves MCP over Streamable HTTP at `options.path` on `listener`, until `shutdown`
    /// completes; then stops accepting, closes the open sessions and lets in-flight requests
    /// finish.
    ///
    /// Every request passes a guard before the protocol sees it, and what it refuses reaches no
    /// tool:
    ///
    /// | request | answer |
    /// |---|---|
    /// | without a token, or one the [verifier](HttpOptions::token_verifier) refuses | 401, `WWW-Authenticate: Bearer resource_metadata="..."` (with `error="invalid_token"` for a refused one) |
    /// | a token the verifier cannot check now (its issuer's keys are out of reach) | 503 |
    /// | a session id used with the token of another caller than the one who opened it | 404, as for an unknown session |
    /// | a `tools/call` of a tool whose [scopes](crate::ToolOptions::scopes) the caller lacks | 403, `WWW-Authenticate: Bearer error="insufficient_scope", scope="..."`, JSON-RPC error `-32000` |
    /// | a `Host` not [allowed](HttpOptions::allowed_hosts), or an `Origin` not [allowed](HttpOptions::allowed_origins) | 403, JSON-RPC error `-32000` |
    /// | headers not all sent within [`read_timeout`](HttpOptions::read_timeout) | none: the connection is closed |
    /// | a body not all sent within [`read_timeout`](HttpOptions::read_timeout) of its headers | 408, then the connection is closed |
    /// | a connection over [`max_connections`](HttpOptions::max_connections), or over [`max_connections_per_client`](HttpOptions::max_connections_per_client) from one address | the oldest idle connection is closed, else one whose body has been arriving for over a second (408), else the new one |
    /// | a body over [`max_body_bytes`](HttpOptions::max_body_bytes) | 413 |
    /// | a JSON `POST` whose body is not JSON | 400, JSON-RPC error `-32700`, `id: null` |
    /// | a body that is JSON but not a JSON-RPC message | 400, JSON-RPC error `-32600` |
    /// | an `initialize` over [`max_sessions`](HttpOptions::max_sessions) | 503, JSON-RPC error `-32000` |
    /// | an `initialize` over [`max_sessions_per_client`](HttpOptions::max_sessions_per_client) from one address | 429, JSON-RPC error `-32000` |
    /// | a `tools/call`, one that becomes a task or not, over [`max_concurrent_calls`](HttpOptions::max_concurrent_calls) | 200, JSON-RPC error `-32000` (busy) |
    /// | a session `DELETE` | 204 once the session is closed |
    pub async fn serve_http(
        self,
        listener: TcpListener,
        options: HttpOptions,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), McpError> {
        let bearer = self.bearer(&options)?;
        let max_connections_per_client = options.connections_per_client();
        let mut config = StreamableHttpServerConfig::default()
            // The guard has read the body within this limit already; rmcp's own (4 MiB unless
            // told) must not be a second, lower one.
            .with_max_request_body_bytes(options.max_body_bytes)
            .with_legacy_session_mode(!options.stateless)
            .with_json_response(options.stateless);
        if let Some(hosts) = options.allowed_hosts {
            config = config.with_allowed_hosts(hosts);
        }
        let origins = options.allowed_origins.unwrap_or_else(|| {
            HttpOptions::LOOPBACK_ORIGINS
                .iter()
                .map(|origin| (*origin).to_owned())
                .collect()
        });
        // rmcp checks `Origin` only when the list is not empty: an empty one accepts any.
        config = config.with_allowed_origins(origins);
        let sessions = config.cancellation_token.clone();
        let mut manager = LocalSessionManager::default();
        manager.session_config.keep_alive = Some(options.session_idle_timeout);
        let manager = Arc::new(manager);
        let server = self.clone();
        let stateless = options.stateless;
        let service: StreamableHttpService<McpServer, LocalSessionManager> =
            StreamableHttpService::new(
                move || match stateless {
                    true => Ok(server.for_stateless_request()),
                    false => Ok(server.for_session()),
                },
                Arc::clone(&manager),
                config,
            );
        let guard = Arc::new(Guard {
            bearer: bearer.clone(),
            max_body_bytes: options.max_body_bytes,
            read_timeout: options.read_timeout,
            calls: Arc::new(tokio::sync::Semaphore::new(options.max_concurrent_calls)),
            max_calls: options.max_concurrent_calls,
            request_ids: Arc::default(),
            sessions: (!options.stateless).then(|| {
                SessionCap::new(
                    manager,
                    options.max_sessions,
                    options.max_sessions_per_client,
                    options.unused_session_timeout,
                )
            }),
        });
        let router = axum::Router::new()
            .nest_service(&options.path, service)
            .layer(axum::middleware::from_fn_with_state(guard, guard_request));
        let router = with_metadata(router, bearer);
        let max_connections = options.max_connections.max(1);
        let limits = ConnectionLimits {
            read_timeout: options.read_timeout,
            write_timeout: options.write_timeout,
            max_connections,
            max_connections_per_client,
        };
        serve_connections(listener, router, limits, async move {
            shutdown.await;
            // Open SSE streams would otherwise hold the graceful shutdown forever.
            sessions.cancel();
        })
        .await;
        Ok(())
    }

    /// The guard's token check, when `options` ask for one; each scoped tool with its scopes.
    fn bearer(&self, options: &HttpOptions) -> Result<Option<Arc<Bearer>>, McpError> {
        let Some(verifier) = options.verifier().map_err(McpError::Serve)? else {
            return Ok(None);
        };
        let tool_scopes = (self.tools().iter())
            .filter(|tool| !tool.options().scopes.is_empty())
            .map(|tool| (tool.name().to_owned(), tool.options().scopes.clone()))
            .collect();
        Ok(Some(Arc::new(Bearer::new(
            verifier,
            &options.protected_resource,
            &options.path,
            tool_scopes,
        ))))
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
}

/// The router with the protected resource metadata routes, when tokens are checked. They are
/// added after the guard's layer, so they are served without a token: the metadata is what a
/// client without one reads to find where to get one.
fn with_metadata(router: axum::Router, bearer: Option<Arc<Bearer>>) -> axum::Router {
    let Some(bearer) = bearer else {
        return router;
    };
    let document = axum::routing::get(metadata_document).with_state(Arc::clone(&bearer));
    bearer
        .metadata_paths()
        .iter()
        .fold(router, |router, path| router.route(path, document.clone()))
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
