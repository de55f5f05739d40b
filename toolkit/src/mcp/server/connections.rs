//! The connection cap: at most so many connections open at once, below the process's file
//! descriptor limit, and when the cap is reached the oldest idle connection makes room for the
//! new one, as nginx reuses its idle keep-alive connections when it runs out.
//!
//! Without a cap, a client opening more sockets than the process may hold file descriptors
//! made `accept` fail for everyone until its sockets timed out. Refusing the newcomer at the
//! cap would hand the server to whoever opened sockets first; waiting for a place would hold a
//! real request behind idle ones. A connection with no request in flight costs its client
//! nothing to lose (HTTP clients open a new one), so that is the one closed.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::Router;
use axum::body::{Body, Bytes};
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::service::Service;
use hyper_util::service::TowerToHyperService;
use tokio::sync::Notify;
use toolkit_runtime::BoxFuture;

/// The address a request came from, in its extensions: whose sessions it counts against.
#[derive(Debug, Clone, Copy)]
pub(super) struct PeerAddr(pub(super) SocketAddr);

/// The open connections, oldest first.
pub(super) struct Connections {
    max: usize,
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    next: u64,
    by_age: BTreeMap<u64, Arc<Tracked>>,
}

/// What the cap knows of one connection.
#[derive(Default)]
pub(super) struct Tracked {
    /// Requests whose answer has not been sent in full.
    in_flight: AtomicUsize,
    /// Told when the connection must make room for a newer one.
    evicted: Notify,
}

/// A connection's place under the cap; dropped when the connection ends.
pub(super) struct Place {
    connections: Arc<Connections>,
    id: u64,
    pub(super) tracked: Arc<Tracked>,
}

impl Connections {
    pub(super) fn new(max: usize) -> Arc<Self> {
        Arc::new(Connections {
            max,
            open: Mutex::default(),
        })
    }

    /// A place for a new connection; at the cap, the oldest idle connection is told to close to
    /// make room. `None` when every connection is answering a request: the server is as busy
    /// as it may be, and the newcomer is closed at once.
    pub(super) fn admit(self: &Arc<Self>) -> Option<Place> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if open.by_age.len() >= self.max {
            let idle = open
                .by_age
                .iter()
                .find(|(_, tracked)| tracked.in_flight.load(Ordering::Acquire) == 0)
                .map(|(id, _)| *id)?;
            if let Some(tracked) = open.by_age.remove(&idle) {
                tracked.evicted.notify_one();
            }
        }
        let id = open.next;
        open.next += 1;
        let tracked = Arc::new(Tracked::default());
        open.by_age.insert(id, Arc::clone(&tracked));
        Some(Place {
            connections: Arc::clone(self),
            id,
            tracked,
        })
    }
}

impl Place {
    /// Resolves once a newer connection needs this one's place.
    pub(super) async fn evicted(&self) {
        self.tracked.evicted.notified().await;
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut open = self
            .connections
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        open.by_age.remove(&self.id);
    }
}

/// The router as one connection serves it: each request tagged with the peer's address and
/// counted in flight until its answer's body has been sent or dropped.
#[derive(Clone)]
pub(super) struct Served {
    router: TowerToHyperService<Router>,
    peer: SocketAddr,
    tracked: Arc<Tracked>,
}

impl Served {
    pub(super) fn new(router: Router, peer: SocketAddr, tracked: Arc<Tracked>) -> Self {
        Served {
            router: TowerToHyperService::new(router),
            peer,
            tracked,
        }
    }
}

impl Service<hyper::Request<Incoming>> for Served {
    type Response = hyper::Response<CountedBody>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Self::Response, Infallible>>;

    fn call(&self, mut request: hyper::Request<Incoming>) -> Self::Future {
        request.extensions_mut().insert(PeerAddr(self.peer));
        let busy = InFlight::start(&self.tracked);
        let answer = self.router.call(request);
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|body| CountedBody { body, _busy: busy }))
        })
    }
}

/// One request in flight on a connection, until dropped.
struct InFlight(Arc<Tracked>);

impl InFlight {
    fn start(tracked: &Arc<Tracked>) -> Self {
        tracked.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(Arc::clone(tracked))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// An answer's body, its request counted in flight until hyper is done with it.
pub(super) struct CountedBody {
    body: Body,
    _busy: InFlight,
}

impl hyper::body::Body for CountedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        hyper::body::Body::poll_frame(Pin::new(&mut self.body), cx)
    }

    fn is_end_stream(&self) -> bool {
        hyper::body::Body::is_end_stream(&self.body)
    }

    fn size_hint(&self) -> SizeHint {
        hyper::body::Body::size_hint(&self.body)
    }
}

/// Three quarters of the soft limit on open files, leaving the rest to what tools and sessions
/// open; 768 (three quarters of the common 1,024) where the limit cannot be read.
pub(super) fn default_max_connections() -> usize {
    const FALLBACK: usize = 768;
    // A limit in the millions (or none) says nothing about what the machine can serve: a
    // million connections is already far past it.
    const CEILING: usize = 1 << 20;
    #[cfg(unix)]
    {
        use nix::sys::resource::{Resource, getrlimit};
        match getrlimit(Resource::RLIMIT_NOFILE) {
            Ok((soft, _)) => {
                let soft = usize::try_from(soft).unwrap_or(usize::MAX);
                (soft - soft / 4).clamp(1, CEILING)
            }
            Err(_) => FALLBACK,
        }
    }
    #[cfg(not(unix))]
    {
        FALLBACK
    }
}
