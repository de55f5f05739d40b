//! A remote server's progress and log notifications, handed to the contexts of the calls they
//! belong to.
//!
//! They are read off the transport itself ([`Tap`]), in the order the server sent them, before
//! rmcp sees them: rmcp hands each notification to its handler in a task of its own, so two
//! progress notifications could be handled out of order, and the last one after the call's
//! result (measured against an rmcp server on loopback: through rmcp's `on_progress`, 14 and 17
//! of 20 calls of 100 notifications each saw them out of order, and up to 7 of the 2,000 came
//! after `call_tool` returned). Read here, every notification the server sent before its answer
//! reaches the call's context, in order, before the call returns (0 of 20 out of order:
//! `tests/mcp/client_context.rs`).

// rmcp marks MCP's logging deprecated (SEP-2577, a protocol revision after the ones servers
// speak today); servers still send it.
#![allow(deprecated)]

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::model::{
    JsonRpcMessage, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
    ServerNotification,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::{IntoTransport, Transport};
use rmcp::{Peer, RoleClient};
use serde_json::Value;

use crate::context::{LogLevel, ToolContext};

/// The most progress notifications kept for a token no call has claimed yet: one can arrive
/// before the call that sent the token has registered it (over HTTP the answer stream starts
/// while the request is still being sent). Past this, the oldest are dropped, so a server
/// sending progress for tokens nobody holds costs a bounded amount.
const MAX_EARLY: usize = 64;

/// Where the notifications of one connection go: the contexts of its calls in flight, each
/// with the progress token it sent.
#[derive(Default)]
pub(super) struct Routes {
    inner: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    calls: HashMap<u64, Call>,
    next: u64,
    early: VecDeque<ProgressNotificationParam>,
}

/// One call in flight: its context, and its progress token once it was sent.
struct Call {
    token: Option<ProgressToken>,
    ctx: ToolContext,
}

impl Routes {
    fn lock(&self) -> MutexGuard<'_, Table> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A call about to be sent, whose notifications go to `ctx` until the returned route is
    /// dropped. Opened before the request leaves, so a log message the server sends at once
    /// finds it.
    pub(super) fn open(self: &Arc<Self>, ctx: ToolContext) -> Route {
        let mut inner = self.lock();
        let id = inner.next;
        inner.next += 1;
        inner.calls.insert(id, Call { token: None, ctx });
        Route {
            routes: Arc::clone(self),
            id,
        }
    }

    /// The call `id` sent `token`: its progress goes to its context, what came before first.
    fn claim(&self, id: u64, token: ProgressToken) {
        let mut inner = self.lock();
        let inner = &mut *inner;
        let Some(call) = inner.calls.get_mut(&id) else {
            return;
        };
        // Handed over under the lock, so a notification read meanwhile waits its turn.
        let (mine, others): (Vec<_>, Vec<_>) = inner
            .early
            .drain(..)
            .partition(|early| early.progress_token == token);
        inner.early = others.into();
        for early in mine {
            forward_progress(&call.ctx, early);
        }
        call.token = Some(token);
    }

    /// Hands one notification from the server to the call it concerns.
    fn notice(&self, notification: &ServerNotification) {
        match notification {
            ServerNotification::ProgressNotification(progress) => {
                self.progress(progress.params.clone());
            }
            ServerNotification::LoggingMessageNotification(message) => self.log(&message.params),
            _ => {}
        }
    }

    fn progress(&self, progress: ProgressNotificationParam) {
        let mut inner = self.lock();
        // Forwarded under the lock: notifications are read one at a time, and a call
        // registering meanwhile hands over its early ones first, so the order holds.
        let token = Some(&progress.progress_token);
        match inner
            .calls
            .values()
            .find(|call| call.token.as_ref() == token)
        {
            Some(call) => forward_progress(&call.ctx, progress),
            None => {
                if inner.early.len() == MAX_EARLY {
                    inner.early.pop_front();
                }
                inner.early.push_back(progress);
            }
        }
    }

    /// MCP's log messages name no request: one goes to every call in flight on the connection
    /// (there is usually one), or only to `tracing` when none is.
    fn log(&self, message: &LoggingMessageNotificationParam) {
        let level = log_level(message);
        let text = match (&message.data, &message.logger) {
            (Value::String(text), None) => text.clone(),
            (Value::String(text), Some(logger)) => format!("[{logger}] {text}"),
            (data, None) => data.to_string(),
            (data, Some(logger)) => format!("[{logger}] {data}"),
        };
        let inner = self.lock();
        if inner.calls.is_empty() {
            tracing::info!(level = level.as_str(), "MCP server log: {text}");
        }
        for call in inner.calls.values() {
            call.ctx.log(level, &text);
        }
    }
}

/// Passes a remote progress notification on as the calling tool's own progress.
fn forward_progress(ctx: &ToolContext, progress: ProgressNotificationParam) {
    ctx.progress(
        progress.progress,
        progress.total,
        progress.message.unwrap_or_default(),
    );
}

/// A log message's level as the runtime names it; MCP's eight levels are the runtime's, so
/// the names match (an unknown one reads as `info`).
fn log_level(message: &LoggingMessageNotificationParam) -> LogLevel {
    serde_json::to_value(message.level)
        .ok()
        .and_then(|level| serde_json::from_value(level).ok())
        .unwrap_or(LogLevel::Info)
}

/// A call's place among the calls in flight, given up when dropped.
pub(super) struct Route {
    routes: Arc<Routes>,
    id: u64,
}

impl Route {
    /// The call was sent with `token`.
    pub(super) fn claim(&self, token: ProgressToken) {
        self.routes.claim(self.id, token);
    }
}

impl Drop for Route {
    fn drop(&mut self) {
        self.routes.lock().calls.remove(&self.id);
    }
}

/// A client transport that hands the server's progress and log notifications to [`Routes`] as
/// it reads them, and passes every message on unchanged.
pub(super) struct Tap<T> {
    inner: T,
    routes: Arc<Routes>,
}

/// `transport`, tapped for `routes`.
pub(super) fn tap<T, E, A>(
    transport: T,
    routes: &Arc<Routes>,
) -> Tap<impl Transport<RoleClient, Error = E> + 'static>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    Tap {
        inner: transport.into_transport(),
        routes: Arc::clone(routes),
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Tap<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        if let JsonRpcMessage::Notification(notification) = &message {
            self.routes.notice(&notification.notification);
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// Asks the server for log messages at `level` and above (`logging/setLevel`), if it declared
/// logging; a server that refuses is only noted, as a server that never logs costs nothing.
pub(super) async fn ask_for_logs(peer: &Peer<RoleClient>, level: LogLevel) {
    let declared = peer
        .peer_info()
        .is_some_and(|info| info.capabilities.logging.is_some());
    if !declared {
        return;
    }
    let params = match serde_json::from_value(serde_json::json!({"level": level.as_str()})) {
        Ok(params) => params,
        Err(err) => return tracing::debug!(%err, "no logging/setLevel request"),
    };
    if let Err(err) = peer.set_level(params).await {
        tracing::warn!(%err, "the MCP server refused logging/setLevel");
    }
}
