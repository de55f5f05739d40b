//! The handle an application keeps to tell connected clients that something changed:
//! `notifications/resources/updated` to the sessions subscribed to a URI, and the
//! `list_changed` notifications to every session.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::RoleServer;
use rmcp::model::{ResourceUpdatedNotificationParam, SubscriptionFilter};
use rmcp::service::{Peer, SubscriptionSink};

/// The most URIs one session may be subscribed to at once: a template matches endless URIs, so
/// without a bound a client could grow the server's memory one subscription at a time.
pub(super) const MAX_SUBSCRIPTIONS: usize = 1024;

/// The longest URI a session may subscribe to, in bytes. HTTP asks every party to take
/// request lines of at least 8,000 octets (RFC 9110, section 4.1), so a URI any client or
/// proxy can carry fits; a template accepts URIs up to the body limit, and without this bound
/// 200 subscriptions to 2 MiB URIs held 510 MB.
pub(super) const MAX_URI_BYTES: usize = 8 * 1024;

/// The most bytes of URIs one session's subscriptions may hold together: 1,024 URIs of 1 KiB,
/// or 128 of the longest.
pub(super) const MAX_SUBSCRIPTION_BYTES: usize = 1 << 20;

/// Tells the clients of an [`McpServer`](super::McpServer) that something changed; get it
/// with [`McpServer::notifier`](super::McpServer::notifier) and keep it. Cheap to clone; every
/// clone reaches the same sessions.
///
/// A client hears of a resource's change only while it is subscribed to its URI
/// (`resources/subscribe`); the `list_changed` notifications go to every session that has
/// initialized. Sessions that have closed are forgotten on the next send.
///
/// ```
/// use toolkit::mcp::McpServer;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = McpServer::new(Vec::new());
/// let notifier = server.notifier();
/// // later, when config://app changes:
/// assert_eq!(notifier.resource_updated("config://app").await, 0); // no one subscribed yet
/// # }
/// ```
#[derive(Clone, Default)]
pub struct ServerNotifier {
    sessions: Arc<Mutex<Vec<Subscriber>>>,
    /// The open `subscriptions/listen` streams of MCP 2026-07-28 clients; each sink sends only
    /// what its client asked for, tagged with its subscription id (rmcp's filter).
    listeners: Arc<Mutex<Vec<(u64, SubscriptionSink)>>>,
}

/// One session: how to reach it, and the URIs it is subscribed to.
struct Subscriber {
    id: u64,
    peer: Peer<RoleServer>,
    subscriptions: HashSet<String>,
    /// The bytes of the URIs in `subscriptions`.
    bytes: usize,
}

/// Why a subscription was refused.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// The URI is longer than [`MAX_URI_BYTES`].
    UriLength { bytes: usize },
    /// The session holds [`MAX_SUBSCRIPTIONS`] URIs already.
    Count,
    /// The session's URIs would pass [`MAX_SUBSCRIPTION_BYTES`] together.
    Bytes { held: usize },
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::UriLength { bytes } => write!(
                f,
                "the URI is {bytes} bytes long; a subscription's URI may be at most \
                 {MAX_URI_BYTES} bytes"
            ),
            Refused::Count => write!(
                f,
                "this session is subscribed to {MAX_SUBSCRIPTIONS} resources already, \
                 the most it may be"
            ),
            Refused::Bytes { held } => write!(
                f,
                "this session's subscriptions hold {held} bytes of URIs already, and may hold \
                 at most {MAX_SUBSCRIPTION_BYTES}; unsubscribe from some first"
            ),
        }
    }
}

impl std::fmt::Debug for ServerNotifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sessions = self.lock().len();
        f.debug_struct("ServerNotifier")
            .field("sessions", &sessions)
            .finish()
    }
}

impl ServerNotifier {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Subscriber>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Remembers session `id` and how to reach it.
    pub(super) fn join(&self, id: u64, peer: &Peer<RoleServer>) {
        let mut sessions = self.lock();
        sessions.retain(|session| !session.peer.is_transport_closed());
        if !sessions.iter().any(|session| session.id == id) {
            sessions.push(Subscriber {
                id,
                peer: peer.clone(),
                subscriptions: HashSet::new(),
                bytes: 0,
            });
        }
    }

    /// Subscribes session `id` to `uri`, unless the URI is too long or the session holds too
    /// many (or too many bytes of) URIs already; subscribing again to one it holds is fine.
    pub(super) fn subscribe(
        &self,
        id: u64,
        peer: &Peer<RoleServer>,
        uri: String,
    ) -> Result<(), Refused> {
        if uri.len() > MAX_URI_BYTES {
            return Err(Refused::UriLength { bytes: uri.len() });
        }
        self.join(id, peer);
        let mut sessions = self.lock();
        let Some(session) = sessions.iter_mut().find(|session| session.id == id) else {
            return Ok(());
        };
        if session.subscriptions.contains(&uri) {
            return Ok(());
        }
        if session.subscriptions.len() >= MAX_SUBSCRIPTIONS {
            return Err(Refused::Count);
        }
        if session.bytes + uri.len() > MAX_SUBSCRIPTION_BYTES {
            return Err(Refused::Bytes {
                held: session.bytes,
            });
        }
        session.bytes += uri.len();
        session.subscriptions.insert(uri);
        Ok(())
    }

    pub(super) fn unsubscribe(&self, id: u64, uri: &str) {
        if let Some(session) = self.lock().iter_mut().find(|session| session.id == id)
            && session.subscriptions.remove(uri)
        {
            session.bytes -= uri.len();
        }
    }

    /// The open sessions `choose` picks; closed ones are forgotten.
    fn peers(&self, choose: impl Fn(&Subscriber) -> bool) -> Vec<Peer<RoleServer>> {
        let mut sessions = self.lock();
        sessions.retain(|session| !session.peer.is_transport_closed());
        sessions
            .iter()
            .filter(|session| choose(session))
            .map(|session| session.peer.clone())
            .collect()
    }

    /// Sends `notifications/resources/updated` for `uri` to every session subscribed to it, and
    /// every `subscriptions/listen` stream that asked for it; the number it reached.
    pub async fn resource_updated(&self, uri: &str) -> usize {
        let peers = self.peers(|session| session.subscriptions.contains(uri));
        let mut sent = 0;
        for peer in peers {
            let param = ResourceUpdatedNotificationParam::new(uri);
            sent += usize::from(peer.notify_resource_updated(param).await.is_ok());
        }
        for sink in self.sinks() {
            sent += usize::from(sink.notify_resource_updated(uri).await.is_ok());
        }
        sent
    }

    /// Sends `notifications/resources/list_changed` to every session and every listen stream
    /// that asked for it; the number it reached.
    pub async fn resources_changed(&self) -> usize {
        let mut sent = 0;
        for peer in self.peers(|_| true) {
            sent += usize::from(peer.notify_resource_list_changed().await.is_ok());
        }
        for sink in self.sinks() {
            sent += usize::from(sink.notify_resource_list_changed().await.is_ok());
        }
        sent
    }

    /// Sends `notifications/prompts/list_changed` to every session and every listen stream
    /// that asked for it; the number it reached.
    pub async fn prompts_changed(&self) -> usize {
        let mut sent = 0;
        for peer in self.peers(|_| true) {
            sent += usize::from(peer.notify_prompt_list_changed().await.is_ok());
        }
        for sink in self.sinks() {
            sent += usize::from(sink.notify_prompt_list_changed().await.is_ok());
        }
        sent
    }

    /// Sends `notifications/tools/list_changed` to every session and every listen stream that
    /// asked for it; the number it reached.
    pub async fn tools_changed(&self) -> usize {
        let mut sent = 0;
        for peer in self.peers(|_| true) {
            sent += usize::from(peer.notify_tool_list_changed().await.is_ok());
        }
        for sink in self.sinks() {
            sent += usize::from(sink.notify_tool_list_changed().await.is_ok());
        }
        sent
    }

    /// Keeps `sink` (one `subscriptions/listen` stream) until the returned guard drops.
    pub(super) fn listen(&self, sink: SubscriptionSink) -> Listening {
        // Not the request's id: two clients may both call their listen request `1`.
        static STREAMS: AtomicU64 = AtomicU64::new(1);
        let id = STREAMS.fetch_add(1, Ordering::Relaxed);
        self.listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((id, sink));
        Listening {
            listeners: Arc::clone(&self.listeners),
            id,
        }
    }

    fn sinks(&self) -> Vec<SubscriptionSink> {
        let listeners = self.listeners.lock();
        let listeners = listeners.unwrap_or_else(PoisonError::into_inner);
        listeners.iter().map(|(_, sink)| sink.clone()).collect()
    }
}

/// What a listen stream may ask for: every kind of change, and its first
/// [`MAX_SUBSCRIPTIONS`] resource URIs no longer than [`MAX_URI_BYTES`], at most
/// [`MAX_SUBSCRIPTION_BYTES`] of them together, the bounds a session's subscriptions have.
/// rmcp narrows this further to what the server declared.
pub(super) fn bounded(requested: &SubscriptionFilter) -> SubscriptionFilter {
    let mut accepted = requested.clone();
    if let Some(uris) = &mut accepted.resource_subscriptions {
        let mut bytes = 0;
        uris.retain(|uri| uri.len() <= MAX_URI_BYTES);
        uris.truncate(MAX_SUBSCRIPTIONS);
        uris.retain(|uri| {
            bytes += uri.len();
            bytes <= MAX_SUBSCRIPTION_BYTES
        });
    }
    accepted
}

/// A listen stream's place among the notifier's; it leaves when this drops (the stream ended).
pub(super) struct Listening {
    listeners: Arc<Mutex<Vec<(u64, SubscriptionSink)>>>,
    id: u64,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let mut listeners = self
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        listeners.retain(|(id, _)| *id != self.id);
    }
}
