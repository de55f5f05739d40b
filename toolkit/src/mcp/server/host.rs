//! What a served tool's context reports and asks, sent to the MCP client that called it:
//! `notifications/progress`, `notifications/message`, `sampling/createMessage` and
//! `elicitation/create`, through rmcp's peer.
//!
//! [`ToolContext::progress`] and [`ToolContext::log`] are sync (a sync tool calls them on a pool
//! thread), so they only queue their notification. The call's own future sends the queue in
//! order, beside the tool ([`run_call`]), and finishes sending it before the call returns: every
//! notification of a call reaches the transport before its result, and in the order the tool
//! made them.

// rmcp 3.11 marks logging and sampling deprecated for the protocol revision after 2025-11-25
// (SEP-2577); the revisions clients speak today have both, and the issue asks for both.
#![allow(deprecated)]

use std::future::Future;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    ClientResult, CreateMessageRequestParams, CreateMessageResult, ElicitRequest,
    ElicitRequestParams, ElicitResult, ElicitationAction, LoggingLevel, LoggingMessageNotification,
    LoggingMessageNotificationParam, ProgressNotification, ProgressNotificationParam,
    ProgressToken, ServerNotification, ServerRequest,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{RoleServer, ServiceError};
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use toolkit_runtime::BoxFuture;
use toolkit_runtime::context::{
    CallScope, Caller, ContextError, Data, ElicitationAnswer, ElicitationRequest, LogLevel,
    Progress, RequestInfo, SamplingReply, SamplingRequest, ToolContext, ToolHost,
};

use super::sessions::SESSION_ID;

/// What one session (one client) set: the lowest log level it wants.
#[derive(Debug)]
pub(super) struct SessionState {
    log_level: AtomicU8,
}

impl Default for SessionState {
    /// Every level until the client sets one. The specification leaves the default to the
    /// server ("the server MAY decide which messages to send automatically"); the official
    /// TypeScript and Python SDKs send every message until `logging/setLevel`, and a client
    /// that wants fewer says so.
    fn default() -> Self {
        SessionState {
            log_level: AtomicU8::new(level_rank(LogLevel::Debug)),
        }
    }
}

impl SessionState {
    pub(super) fn set_level(&self, level: LoggingLevel) {
        self.log_level
            .store(level_rank(from_rmcp_level(level)), Ordering::Relaxed);
    }

    fn wants(&self, level: LogLevel) -> bool {
        level_rank(level) >= self.log_level.load(Ordering::Relaxed)
    }
}

fn level_rank(level: LogLevel) -> u8 {
    level as u8
}

fn from_rmcp_level(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

fn to_rmcp_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        _ => LoggingLevel::Emergency,
    }
}

/// The [`ToolHost`] of one served `tools/call`.
pub(super) struct McpHost {
    peer: Peer<RoleServer>,
    /// The request's `_meta.progressToken`: progress is sent only when the client asked for it.
    progress_token: Option<ProgressToken>,
    session: Arc<SessionState>,
    /// The call's notifications, in order; `None` once the call has answered (a notification
    /// after the result would break the protocol's order, so it is dropped).
    queue: Mutex<Option<UnboundedSender<ServerNotification>>>,
}

impl McpHost {
    fn push(&self, notification: ServerNotification) {
        let queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(queue) = queue.as_ref() {
            let _ = queue.send(notification);
        }
    }

    fn close(&self) {
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }

    fn client_declared(&self, what: &'static str, tool: &str) -> Result<(), ContextError> {
        let info = self.peer.peer_info();
        let capabilities = info.as_ref().map(|info| &info.capabilities);
        let declared = match what {
            "sampling" => capabilities.is_some_and(|c| c.sampling.is_some()),
            _ => capabilities.is_some_and(|c| c.elicitation.is_some()),
        };
        match declared {
            true => Ok(()),
            false => Err(ContextError::Unavailable {
                what,
                tool: tool.to_owned(),
                why: format!(
                    "the MCP client did not declare the `{what}` capability in its `initialize`"
                ),
            }),
        }
    }
}

impl ToolHost for McpHost {
    fn progress(&self, _ctx: &ToolContext, progress: Progress) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let mut params = ProgressNotificationParam::new(token.clone(), progress.done);
        params.total = progress.total;
        params.message = progress.message;
        self.push(ServerNotification::ProgressNotification(
            ProgressNotification::new(params),
        ));
    }

    fn log(&self, ctx: &ToolContext, level: LogLevel, message: &str) {
        if !self.session.wants(level) {
            return;
        }
        let mut params = LoggingMessageNotificationParam::new(to_rmcp_level(level), json!(message));
        params.logger = Some(ctx.tool_name().to_owned());
        self.push(ServerNotification::LoggingMessageNotification(
            LoggingMessageNotification::new(params),
        ));
    }

    fn sample<'a>(
        &'a self,
        ctx: &'a ToolContext,
        request: SamplingRequest,
    ) -> BoxFuture<'a, Result<SamplingReply, ContextError>> {
        Box::pin(async move {
            self.client_declared("sampling", ctx.tool_name())?;
            let params: CreateMessageRequestParams = convert(&request)?;
            let result = self.peer.create_message(params).await.map_err(failed)?;
            sampling_reply(result)
        })
    }

    fn elicit<'a>(
        &'a self,
        ctx: &'a ToolContext,
        request: ElicitationRequest,
    ) -> BoxFuture<'a, Result<ElicitationAnswer, ContextError>> {
        Box::pin(async move {
            self.client_declared("elicitation", ctx.tool_name())?;
            let wire = json!({
                "mode": "form",
                "message": request.message,
                "requestedSchema": request.requested_schema,
            });
            let params: ElicitRequestParams = serde_json::from_value(wire)
                .map_err(|err| ContextError::UnsupportedSchema(err.to_string()))?;
            let asked = ServerRequest::ElicitRequest(ElicitRequest::new(params));
            match self.peer.send_request(asked).await.map_err(failed)? {
                ClientResult::ElicitResult(answer) => Ok(elicitation_answer(answer)),
                _ => Err(ContextError::Failed(
                    "the client answered `elicitation/create` with another result".to_owned(),
                )),
            }
        })
    }
}

/// One of our request types as rmcp's, through their shared JSON form.
fn convert<T: serde::de::DeserializeOwned>(
    value: &impl serde::Serialize,
) -> Result<T, ContextError> {
    serde_json::to_value(value)
        .and_then(serde_json::from_value)
        .map_err(|err| ContextError::Failed(format!("the request cannot be sent over MCP: {err}")))
}

fn failed(err: ServiceError) -> ContextError {
    match err {
        ServiceError::Cancelled { .. } => ContextError::Cancelled,
        other => ContextError::Failed(format!("the MCP client answered with an error: {other}")),
    }
}

fn sampling_reply(result: CreateMessageResult) -> Result<SamplingReply, ContextError> {
    let mut value = serde_json::to_value(&result)
        .map_err(|err| ContextError::InvalidAnswer(err.to_string()))?;
    // A client may answer with several content blocks (SEP-1577); a reply carries the first.
    if let Some(Value::Array(blocks)) = value.get_mut("content") {
        let first = blocks
            .drain(..)
            .next()
            .unwrap_or_else(|| json!({"type": "text", "text": ""}));
        value["content"] = first;
    }
    serde_json::from_value(value).map_err(|err| ContextError::InvalidAnswer(err.to_string()))
}

fn elicitation_answer(answer: ElicitResult) -> ElicitationAnswer {
    match answer.action {
        ElicitationAction::Accept => {
            ElicitationAnswer::Accept(answer.content.unwrap_or_else(|| json!({})))
        }
        ElicitationAction::Decline => ElicitationAnswer::Decline,
        _ => ElicitationAnswer::Cancel,
    }
}

/// The request a call came with, as its tool reads it: the HTTP request's headers, its session
/// id and the caller the guard verified (none over stdio).
fn request_info(context: &RequestContext<RoleServer>) -> RequestInfo {
    let Some(parts) = context.extensions.get::<axum::http::request::Parts>() else {
        return RequestInfo::default();
    };
    RequestInfo {
        session_id: parts
            .headers
            .get(SESSION_ID)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned),
        headers: parts.headers.clone(),
        caller: parts.extensions.get::<Caller>().cloned(),
    }
}

/// Runs `call` (a tool that takes a context) in a [`CallScope`] whose host is the client:
/// its notifications sent in order beside it, all of them before this returns.
pub(super) async fn run_call<F: Future>(
    context: &RequestContext<RoleServer>,
    session: &Arc<SessionState>,
    data: &Data,
    call: F,
) -> F::Output {
    let (queue, queued) = unbounded_channel();
    let host = Arc::new(McpHost {
        peer: context.peer.clone(),
        progress_token: context.meta.get_progress_token(),
        session: Arc::clone(session),
        queue: Mutex::new(Some(queue)),
    });
    let scope = CallScope::new()
        .host(host.clone())
        .request(request_info(context))
        .data(data.clone())
        .cancellation(context.ct.clone());
    let called = async {
        let output = scope.run(call).await;
        // Closing the queue ends `send_in_order` once it has sent what was queued.
        host.close();
        output
    };
    let (output, ()) = tokio::join!(called, send_in_order(&context.peer, queued));
    output
}

/// Sends each queued notification once the one before it has reached the transport, so they
/// keep their order on the wire.
async fn send_in_order(peer: &Peer<RoleServer>, mut queued: UnboundedReceiver<ServerNotification>) {
    while let Some(notification) = queued.recv().await {
        if let Err(err) = peer.send_notification(notification).await {
            tracing::debug!(error = %err, "a tool's notification was not sent");
        }
    }
}
