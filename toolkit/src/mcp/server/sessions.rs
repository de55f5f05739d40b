//! The session cap: at most so many sessions open at once, at most so many of them one
//! client's, and a session its client never used after `initialize` closed soon.
//!
//! With the global cap alone, one client opening sessions as fast as it could (1,000 in 0.45 s)
//! locked every other client out until its sessions idled out, five minutes later. Every MCP
//! client sends `notifications/initialized` right after `initialize`, so a session with no
//! second request is abandoned or hostile, and goes after a few seconds; a client that does use
//! its sessions is held to its share.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex as SyncMutex, PoisonError};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use rmcp::model::ErrorCode;
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::SessionId;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio::sync::{Mutex, MutexGuard};

use super::connections::PeerAddr;
use super::rmcp_fixes::envelope::{Screened, jsonrpc_error};

/// The header that names a session.
pub(super) const SESSION_ID: &str = "mcp-session-id";

/// At most `max` sessions open at once, `per_client` of them from one address.
pub(super) struct SessionCap {
    pub(super) manager: Arc<LocalSessionManager>,
    pub(super) max: usize,
    pub(super) per_client: usize,
    /// How long a session may stay without a request after its `initialize`.
    pub(super) unused_timeout: Duration,
    /// Held from the count to the new session's insertion, so concurrent `initialize`s cannot
    /// all pass the same count. An `initialize` is answered from the server's info, at once.
    pub(super) opening: Mutex<()>,
    /// Whose each open session is, and whether it has been used since its `initialize`.
    pub(super) opened: SyncMutex<HashMap<SessionId, Opened>>,
}

pub(super) struct Opened {
    client: IpAddr,
    /// Who opened it, when the server checks tokens: only they may use it.
    principal: Option<String>,
    at: Instant,
    used: bool,
}

/// A place for one new session, held until rmcp has answered its `initialize`.
pub(super) struct Place<'a> {
    cap: &'a SessionCap,
    client: IpAddr,
    principal: Option<String>,
    _opening: MutexGuard<'a, ()>,
}

impl SessionCap {
    pub(super) fn new(
        manager: Arc<LocalSessionManager>,
        max: usize,
        per_client: usize,
        unused_timeout: Duration,
    ) -> Self {
        SessionCap {
            manager,
            max,
            per_client,
            unused_timeout,
            opening: Mutex::new(()),
            opened: SyncMutex::default(),
        }
    }

    /// Notes that the session a request names (if any) has been used; `false` when it was
    /// opened by another caller than `principal`, the verified caller of the request: a session
    /// id that leaked (a log, a proxy) gives no one else the session's stream or its calls.
    pub(super) fn touch(&self, headers: &HeaderMap, principal: Option<&str>) -> bool {
        let Some(id) = headers.get(SESSION_ID).and_then(|id| id.to_str().ok()) else {
            return true;
        };
        let mut opened = self.opened.lock().unwrap_or_else(PoisonError::into_inner);
        match opened.get_mut(id) {
            Some(session) if session.principal.as_deref() != principal => false,
            Some(session) => {
                session.used = true;
                true
            }
            None => true,
        }
    }

    /// A place for one more session from the client `extensions` name; 503 when the server
    /// has no place left, 429 when this client has its share.
    pub(super) async fn place(
        &self,
        initialize: &Screened<'_>,
        extensions: &axum::http::Extensions,
        principal: Option<&str>,
    ) -> Result<Place<'_>, Response> {
        let client = extensions
            .get::<PeerAddr>()
            .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |peer| peer.0.ip());
        let opening = self.opening.lock().await;
        self.close_unused().await;
        let open = self.manager.sessions.read().await.len();
        if open >= self.max {
            return Err(too_many_sessions(initialize, self.max));
        }
        let theirs = {
            let opened = self.opened.lock().unwrap_or_else(PoisonError::into_inner);
            opened
                .values()
                .filter(|session| session.client == client)
                .count()
        };
        if theirs >= self.per_client {
            return Err(too_many_of_theirs(initialize, self.per_client));
        }
        Ok(Place {
            cap: self,
            client,
            principal: principal.map(str::to_owned),
            _opening: opening,
        })
    }

    /// Forgets sessions that have closed, and closes those never used past the timeout.
    async fn close_unused(&self) {
        let open: Vec<SessionId> = self.manager.sessions.read().await.keys().cloned().collect();
        let unused: Vec<SessionId> = {
            let mut opened = self.opened.lock().unwrap_or_else(PoisonError::into_inner);
            opened.retain(|id, _| open.contains(id));
            let unused = opened
                .iter()
                .filter(|(_, session)| !session.used && session.at.elapsed() >= self.unused_timeout)
                .map(|(id, _)| id.clone())
                .collect::<Vec<_>>();
            for id in &unused {
                opened.remove(id);
            }
            unused
        };
        for id in unused {
            tracing::debug!(session = %id, "closing a session never used after initialize");
            if let Err(err) = self.manager.close_session(&id).await {
                tracing::debug!(%err, "could not close an unused session");
            }
        }
    }
}

impl Place<'_> {
    /// Records the session rmcp opened, named in its answer's headers, as this client's.
    pub(super) fn opened(self, answer: &HeaderMap) {
        let Some(id) = answer.get(SESSION_ID).and_then(|id| id.to_str().ok()) else {
            return;
        };
        let mut opened = self
            .cap
            .opened
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        opened.insert(
            SessionId::from(id),
            Opened {
                client: self.client,
                principal: self.principal,
                at: Instant::now(),
                used: false,
            },
        );
    }
}

fn too_many_sessions(message: &Screened, max: usize) -> Response {
    let id = message.id.clone();
    let message = format!(
        "the server has {max} open sessions, its limit; try again later, or end an unused \
         session"
    );
    // Overload, not a bad request: a client may retry.
    jsonrpc_error(
        StatusCode::SERVICE_UNAVAILABLE,
        id,
        ErrorCode(-32000),
        &message,
    )
}

fn too_many_of_theirs(message: &Screened, max: usize) -> Response {
    let id = message.id.clone();
    let message = format!(
        "this client has {max} open sessions, its share of the server; end an unused session, \
         or try again later"
    );
    jsonrpc_error(
        StatusCode::TOO_MANY_REQUESTS,
        id,
        ErrorCode(-32000),
        &message,
    )
}
