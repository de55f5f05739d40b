//! Serving over Streamable HTTP: the options, the handle of a server running in the
//! background, and the guard (bearer token, body limit) every request passes before rmcp sees it.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::McpServer;
use crate::mcp::McpError;

/// The largest request body [`HttpOptions`] accepts unless told otherwise: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

impl McpServer {
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
