//! The connection cap: at most so many connections open at once, below the process's file
//! descriptor limit, and at most a share of them from one address; when a cap is reached, the
//! oldest idle connection makes room for the new one, as nginx reuses its idle keep-alive
//! connections when it runs out, else the one whose request body has been arriving longest.
//!
//! Without a cap, a client opening more sockets than the process may hold file descriptors
//! made `accept` fail for everyone until its sockets timed out. Refusing the newcomer at the
//! cap would hand the server to whoever opened sockets first; waiting for a place would hold a
//! real request behind idle ones. A connection with no request in flight costs its client
//! nothing to lose (HTTP clients open a new one), so that is the one closed.
//!
//! Idle connections alone were not enough: 50 connections each sending a body a byte a second
//! have a request in flight, and kept a server with `max_connections(50)` refusing every new
//! client until the read timeout (30 s) cut them, then again as they reconnected. So one
//! address holds at most [`max_connections_per_client`](super::HttpOptions::max_connections_per_client)
//! connections, and a request whose body has been arriving for over [`BODY_GRACE`] has done no
//! work yet: it gets 408 (in the guard, which reads bodies) and its place goes to the newcomer.

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::service::Service;
use hyper_util::service::TowerToHyperService;
use tokio::sync::watch;
use toolkit_runtime::BoxFuture;

/// How long a request body may have been arriving before, at a cap, its connection may be
/// closed for a newer one: far longer than a body takes on any working link at its first
/// bytes, far shorter than the read timeout a trickling client would otherwise hold out.
pub(super) const BODY_GRACE: Duration = Duration::from_secs(1);

/// The address a request came from, in its extensions: whose sessions it counts against.
#[derive(Debug, Clone, Copy)]
pub(super) struct PeerAddr(pub(super) SocketAddr);

/// The open connections, oldest first.
pub(super) struct Connections {
    max: usize,
    /// How many of them one address may hold.
    per_client: usize,
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    next: u64,
    by_age: BTreeMap<u64, Arc<Tracked>>,
    /// How many connections each address holds.
    by_client: HashMap<IpAddr, usize>,
}

/// What the cap knows of one connection.
pub(super) struct Tracked {
    client: IpAddr,
    /// Requests whose answer has not been sent in full.
    in_flight: AtomicUsize,
    /// Since when the request being read has been sending its body, while it does.
    receiving_since: Mutex<Option<Instant>>,
    /// Set when the connection must make room for a newer one.
    evicted: watch::Sender<bool>,
}

impl Tracked {
    fn new(client: IpAddr) -> Self {
        Tracked {
            client,
            in_flight: AtomicUsize::new(0),
            receiving_since: Mutex::new(None),
            evicted: watch::Sender::new(false),
        }
    }

    fn idle(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) == 0
    }

    /// Since when its body has been arriving, if it has been for over [`BODY_GRACE`].
    fn receiving_too_long(&self) -> Option<Instant> {
        let since = *self
            .receiving_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        since.filter(|since| since.elapsed() >= BODY_GRACE)
    }

    /// Resolves once the connection must make room for a newer one.
    async fn evicted(&self) {
        let mut evicted = self.evicted.subscribe();
        // An error means the sender is gone, which it cannot be while `self` lives.
        let _ = evicted.wait_for(|evicted| *evicted).await.map(drop);
    }
}

/// A connection's place under the cap; dropped when the connection ends.
pub(super) struct Place {
    connections: Arc<Connections>,
    id: u64,
    pub(super) tracked: Arc<Tracked>,
}

impl Connections {
    /// At most `max` connections, `per_client` of them from one address.
    pub(super) fn new(max: usize, per_client: usize) -> Arc<Self> {
        Arc::new(Connections {
            max,
            per_client,
            open: Mutex::default(),
        })
    }

    /// A place for a new connection from `client`. At its address's cap, then at the server's,
    /// a connection is told to close to make room ([`Open::make_room`]). `None` when none may:
    /// the server (or this address's share) is as busy as it may be, and the newcomer is closed
    /// at once.
    pub(super) fn admit(self: &Arc<Self>, client: IpAddr) -> Option<Place> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if open.by_client.get(&client).copied().unwrap_or(0) >= self.per_client {
            open.make_room(|tracked| tracked.client == client)?;
        }
        if open.by_age.len() >= self.max {
            open.make_room(|_| true)?;
        }
        let id = open.next;
        open.next += 1;
        let tracked = Arc::new(Tracked::new(client));
        open.by_age.insert(id, Arc::clone(&tracked));
        *open.by_client.entry(client).or_default() += 1;
        Some(Place {
            connections: Arc::clone(self),
            id,
            tracked,
        })
    }
}

impl Open {
    /// Tells one of the connections `among` selects to close: the oldest idle one, else the
    /// one whose request body has been arriving longest, past [`BODY_GRACE`]. `None` when every
    /// one is answering a request it has read.
    fn make_room(&mut self, among: impl Fn(&Tracked) -> bool) -> Option<()> {
        let candidates = || self.by_age.iter().filter(|(_, tracked)| among(tracked));
        let idle = candidates()
            .find(|(_, tracked)| tracked.idle())
            .map(|(id, _)| *id);
        let chosen = idle.or_else(|| {
            candidates()
                .filter_map(|(id, tracked)| Some((tracked.receiving_too_long()?, *id)))
                .min()
                .map(|(_, id)| id)
        })?;
        if let Some(tracked) = self.remove(chosen) {
            tracked.evicted.send_replace(true);
        }
        Some(())
    }

    fn remove(&mut self, id: u64) -> Option<Arc<Tracked>> {
        let tracked = self.by_age.remove(&id)?;
        if let Some(count) = self.by_client.get_mut(&tracked.client) {
            *count -= 1;
            if *count == 0 {
                self.by_client.remove(&tracked.client);
            }
        }
        Some(tracked)
    }
}

impl Place {
    /// Resolves once a newer connection needs this one's place.
    pub(super) async fn evicted(&self) {
        self.tracked.evicted().await;
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut open = self
            .connections
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        open.remove(self.id);
    }
}

/// The connection a request came over, in its extensions: the guard, which reads the body,
/// marks it receiving meanwhile, and gives the body up when the connection must make room.
#[derive(Clone)]
pub(super) struct Arrival(Arc<Tracked>);

impl Arrival {
    /// Marks the connection as receiving a request body until the returned value is dropped.
    pub(super) fn receiving(&self) -> Receiving {
        *self
            .0
            .receiving_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
        Receiving(Arc::clone(&self.0))
    }

    /// Resolves once a newer connection needs this one's place.
    pub(super) async fn evicted(&self) {
        self.0.evicted().await;
    }
}

/// A request body being received ([`Arrival::receiving`]).
pub(super) struct Receiving(Arc<Tracked>);

impl Drop for Receiving {
    fn drop(&mut self) {
        *self
            .0
            .receiving_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = None;
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
        (request.extensions_mut()).insert(Arrival(Arc::clone(&self.tracked)));
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
