//! The accept loop: each connection served by hyper's HTTP/1 with a timer, so a client that
//! trickles its headers is cut off, with a deadline on its writes, so one that stops reading is
//! too, under a cap on open connections; and all of them shut down gracefully together.
//!
//! `axum::serve` runs hyper without a timer, which turns hyper's header read timeout off: a
//! client sending a byte now and then held its connection (and a task) for as long as it liked.
//! The body has its own deadline in the guard, which reads it whole, and gives it up early when
//! its connection must make room for a newer one (`connections`).

use std::future::Future;
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use super::connections::{Connections, Place, Served};
use super::write_deadline::WriteDeadline;

/// What bounds each connection: how long it may take to send a request's headers, how long
/// the server waits to write to it, and how many may be open at once, from one address and
/// from all.
#[derive(Debug, Clone, Copy)]
pub(super) struct ConnectionLimits {
    pub(super) read_timeout: Duration,
    pub(super) write_timeout: Duration,
    pub(super) max_connections: usize,
    pub(super) max_connections_per_client: usize,
}

/// Serves `router` on every connection `listener` accepts until `shutdown` completes; then
/// stops accepting, lets each connection finish the request it is answering, and returns once
/// all have closed.
pub(super) async fn serve_connections(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
) {
    let (stop, stopping) = watch::channel(false);
    // Every connection holds a receiver; `closed` resolves once the last one is dropped.
    let (open, held) = watch::channel(());
    let connections = Connections::new(limits.max_connections, limits.max_connections_per_client);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        match accepted {
            Ok((stream, peer)) => {
                let Some(place) = connections.admit(peer.ip()) else {
                    // Every connection (or every one of this address's) is answering a request:
                    // close this one at once rather than run out of file descriptors.
                    tracing::debug!(%peer, "connection cap reached; closing a new connection");
                    continue;
                };
                // Answers are written in several pieces (headers, then body, then SSE events);
                // with Nagle's algorithm on, a piece waits for the ACK of the last one, which a
                // client delaying its ACKs holds back 40 ms.
                if let Err(err) = stream.set_nodelay(true) {
                    tracing::debug!(%err, "could not set TCP_NODELAY");
                }
                let connection = Connection {
                    router: router.clone(),
                    limits,
                    peer,
                    place,
                    stopping: stopping.clone(),
                    held: held.clone(),
                };
                tokio::spawn(connection.serve(stream));
            }
            Err(err) => accept_failed(err).await,
        }
    }
    drop(listener);
    stop.send_replace(true);
    drop(held);
    open.closed().await;
}

/// One accepted connection and what it needs to be served and stopped.
struct Connection {
    router: Router,
    limits: ConnectionLimits,
    peer: SocketAddr,
    /// Its place under the connection cap, freed when the connection ends.
    place: Place,
    stopping: watch::Receiver<bool>,
    /// Dropped when the connection ends.
    held: watch::Receiver<()>,
}

impl Connection {
    async fn serve(mut self, stream: TcpStream) {
        let mut builder = http1::Builder::new();
        // Also bounds how long an idle keep-alive connection waits for its next request.
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(self.limits.read_timeout);
        let service = Served::new(self.router, self.peer, self.place.tracked.clone());
        let io = WriteDeadline::new(stream, self.limits.write_timeout);
        let connection = builder.serve_connection(TokioIo::new(io), service);
        let mut connection = std::pin::pin!(connection);
        tokio::select! {
            _ = connection.as_mut() => {}
            () = stopped(&mut self.stopping) => {
                // Finish the request being answered, then close; an idle connection closes now.
                connection.as_mut().graceful_shutdown();
                let _ = connection.await;
            }
            () = self.place.evicted() => {
                // A newer connection needs the place; a request that came in meanwhile is
                // still answered.
                connection.as_mut().graceful_shutdown();
                let _ = connection.await;
            }
        }
        drop(self.held);
    }
}

/// Resolves once the server stops (or is gone).
async fn stopped(stopping: &mut watch::Receiver<bool>) {
    // The guard the wait returns is not `Send`: drop it here, not across the shutdown.
    let _ = stopping.wait_for(|stop| *stop).await.map(drop);
}

/// A failed accept: a connection reset before we took it concerns its client only; anything
/// else (out of file descriptors, say) is given a second to pass instead of a busy loop.
async fn accept_failed(err: std::io::Error) {
    if matches!(
        err.kind(),
        ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset | ErrorKind::ConnectionRefused
    ) {
        return;
    }
    tracing::warn!(%err, "could not accept a connection");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
