//! The end of a server process: the signal that asks it to stop.

/// Resolves when this process is asked to stop: `SIGINT` (Ctrl-C) or `SIGTERM` on Unix, Ctrl-C
/// elsewhere. Pass it as [`serve_http`](crate::mcp::McpServer::serve_http)'s `shutdown`;
/// [`serve_stdio`](crate::mcp::McpServer::serve_stdio) waits for it itself.
///
/// Ending on it, rather than dying of it, lets the process run its destructors: a proxy's
/// [`McpClient`](crate::mcp::McpClient) kills the stdio server it started. Once listened
/// for, these signals no longer end the process by themselves, for as long as it runs (as
/// with any `tokio::signal` listener): a program that goes on after serving must exit on its
/// own. Where a listener cannot be set up (a process without signals), this never resolves,
/// and serving ends as it would without it.
///
/// Call it within a Tokio runtime, as a server runs in.
///
/// ```no_run
/// use toolkit::mcp::{HttpOptions, McpServer, shutdown_signal};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
/// McpServer::new(Vec::new())
///     .serve_http(listener, HttpOptions::default(), shutdown_signal())
///     .await?;
/// # Ok(()) }
/// ```
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    // Listening from the call, not the first poll: a signal sent while a server is still
    // starting (before its `select!` polls this) must not kill the process.
    #[cfg(unix)]
    let listeners = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        )
    };
    async move {
        #[cfg(unix)]
        if let (Ok(mut interrupt), Ok(mut terminate)) = listeners {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
            return;
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_ok() {
            return;
        }
        tracing::warn!("no signal listener: serving ends only when its client leaves");
        std::future::pending::<()>().await;
    }
}
