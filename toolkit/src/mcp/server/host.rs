//! What a served tool's context reports and asks, sent to the MCP client that called it:
//! `notifications/progress`, `notifications/message`, `sampling/createMessage` and
//! `elicitation/create`, through rmcp's peer.
//!
//! [`ToolContext::progress`] and [`ToolContext::log`] are sync (a sync tool calls them on a pool
//! thread), so they only queue their notification. The call's own future sends the queue in
//! order, beside the tool ([`run_call`]), and finishes sending it before the call returns: every
//! notification of a call reaches the transport before its result, and in the order the tool
//! made them.
//!
//! The queue is bounded ([`Queue`]), since a tool may report far faster than a client reads:
//! a newer progress replaces the one still waiting (the client wants where the call is, not
//! where it was), and past [`MAX_QUEUED_LOGS`] waiting log messages (or
//! [`MAX_QUEUED_LOG_BYTES`] of them) a log message is dropped and counted, the count sent as
//! one warning in its place. Unbounded, a tool reporting progress a million times held 448 MB,
//! and its result waited behind all of it.

// rmcp 3.11 marks logging and sampling deprecated for the protocol revision after 2025-11-25
// (SEP-2577); the revisions clients speak today have both, and the issue asks for both.
#![allow(deprecated)]

use std::collections::VecDeque;
use std::future::Future;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    ClientResult, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequest, ElicitRequestParams, ElicitResult, InputRequest, ListRootsRequest,
    ListRootsResult, LoggingLevel, LoggingMessageNotification, LoggingMessageNotificationParam,
    ProgressNotification, ProgressNotificationParam, ProgressToken, ServerNotification,
    ServerRequest,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{RoleServer, ServiceError};
use serde_json::{Value, json};
use tokio::sync::Notify;
use toolkit_runtime::BoxFuture;
use toolkit_runtime::context::{
    CallScope, Caller, ContextError, Data, ElicitationAnswer, ElicitationRequest, LogLevel,
    Progress, RequestInfo, Root, SamplingReply, SamplingRequest, ToolContext, ToolHost,
};

use super::input_required::{Rounds, declares};
use super::sessions::SESSION_ID;
use super::task_input::Asker;
use super::without_handshake;
use crate::mcp::convert::{elicitation_answer, rmcp_request, sampling_reply};

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
    /// The lowest level this request's client asked logs for in its `_meta`
    /// (`io.modelcontextprotocol/logLevel`, MCP 2026-07-28: none without it); `Err` for an
    /// older client, whose session's level counts.
    request_log_level: Result<Option<LogLevel>, ()>,
    queue: Arc<Outbox>,
    /// For a client of 2026-07-28: who answers what the body asks, the next round of the call
    /// ([`Rounds`]) or `tasks/update` of its task.
    asker: Option<Asker>,
}

/// The most log messages of one call waiting to be sent; one more is dropped and counted.
pub(super) const MAX_QUEUED_LOGS: usize = 1024;
/// The most bytes of log messages of one call waiting to be sent.
pub(super) const MAX_QUEUED_LOG_BYTES: usize = 1 << 20;

/// A call's notifications waiting to be sent, and what wakes their sender.
#[derive(Default)]
struct Outbox {
    queue: Mutex<Queue>,
    ready: Notify,
}

/// A call's notifications waiting to be sent, in order, bounded: at most one progress,
/// [`MAX_QUEUED_LOGS`] log messages and one count of those dropped.
#[derive(Default)]
struct Queue {
    waiting: VecDeque<Waiting>,
    /// The newest progress not yet sent; it goes at the place of [`Waiting::Progress`].
    progress: Option<ProgressNotificationParam>,
    logs: usize,
    log_bytes: usize,
    /// Log messages dropped since the last count was queued; counted at [`Waiting::Dropped`].
    dropped: usize,
    /// The call has answered: a notification after its result would break the protocol's
    /// order, so one is dropped.
    closed: bool,
}

enum Waiting {
    Progress,
    Log(LoggingMessageNotificationParam, usize),
    Dropped,
}

impl Outbox {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn progress(&self, progress: ProgressNotificationParam) {
        let mut queue = self.lock();
        if queue.closed {
            return;
        }
        if queue.progress.replace(progress).is_none() {
            queue.waiting.push_back(Waiting::Progress);
            self.ready.notify_one();
        }
    }

    fn log(&self, log: LoggingMessageNotificationParam, bytes: usize) {
        let mut queue = self.lock();
        if queue.closed {
            return;
        }
        if queue.logs < MAX_QUEUED_LOGS && queue.log_bytes + bytes <= MAX_QUEUED_LOG_BYTES {
            queue.logs += 1;
            queue.log_bytes += bytes;
            queue.waiting.push_back(Waiting::Log(log, bytes));
        } else {
            queue.dropped += 1;
            if queue.dropped > 1 {
                return;
            }
            queue.waiting.push_back(Waiting::Dropped);
        }
        self.ready.notify_one();
    }

    fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_one();
    }

    /// The next notification to send, `Ok(None)` when none waits yet, `Err(())` when none
    /// waits and the call has answered.
    fn next(&self, logger: &str) -> Result<Option<ServerNotification>, ()> {
        let mut queue = self.lock();
        let Some(waiting) = queue.waiting.pop_front() else {
            return match queue.closed {
                true => Err(()),
                false => Ok(None),
            };
        };
        let notification = match waiting {
            Waiting::Progress => queue.progress.take().map(|progress| {
                ServerNotification::ProgressNotification(ProgressNotification::new(progress))
            }),
            Waiting::Log(log, bytes) => {
                queue.logs -= 1;
                queue.log_bytes -= bytes;
                Some(ServerNotification::LoggingMessageNotification(
                    LoggingMessageNotification::new(log),
                ))
            }
            Waiting::Dropped => {
                let dropped = std::mem::take(&mut queue.dropped);
                let text = format!(
                    "{dropped} log messages of this call were dropped: more than \
                     {MAX_QUEUED_LOGS} (or {MAX_QUEUED_LOG_BYTES} bytes) were waiting to be sent"
                );
                let mut params =
                    LoggingMessageNotificationParam::new(LoggingLevel::Warning, json!(text));
                params.logger = Some(logger.to_owned());
                Some(ServerNotification::LoggingMessageNotification(
                    LoggingMessageNotification::new(params),
                ))
            }
        };
        Ok(notification)
    }
}

impl McpHost {
    fn client_declared(&self, what: &'static str, tool: &str) -> Result<(), ContextError> {
        let (declared, where_) = match &self.asker {
            Some(asker) => (asker.declares(what), "this request's `_meta`"),
            None => {
                let info = self.peer.peer_info();
                let capabilities = info.as_ref().map(|info| &info.capabilities);
                (declares(capabilities, what), "its `initialize`")
            }
        };
        match declared {
            true => Ok(()),
            false => Err(ContextError::Unavailable {
                what,
                tool: tool.to_owned(),
                why: format!("the MCP client did not declare the `{what}` capability in {where_}"),
            }),
        }
    }
}

/// `answer`, read as `T`: what the check of an answer to a stateless question runs.
fn reads_as<T: serde::de::DeserializeOwned>(answer: &Value) -> Result<T, String> {
    T::deserialize(answer).map_err(|err| err.to_string())
}

impl ToolHost for McpHost {
    fn progress(&self, _ctx: &ToolContext, progress: Progress) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let mut params = ProgressNotificationParam::new(token.clone(), progress.done);
        params.total = progress.total;
        params.message = progress.message;
        self.queue.progress(params);
    }

    fn log(&self, ctx: &ToolContext, level: LogLevel, message: &str) {
        let wanted = match self.request_log_level {
            Ok(floor) => floor.is_some_and(|floor| level_rank(level) >= level_rank(floor)),
            Err(()) => self.session.wants(level),
        };
        if !wanted {
            return;
        }
        let mut params = LoggingMessageNotificationParam::new(to_rmcp_level(level), json!(message));
        params.logger = Some(ctx.tool_name().to_owned());
        self.queue.log(params, message.len());
    }

    fn round(&self, _ctx: &ToolContext) -> u32 {
        self.asker.as_ref().map_or(0, Asker::round)
    }

    fn roots<'a>(
        &'a self,
        ctx: &'a ToolContext,
        key: Option<String>,
    ) -> BoxFuture<'a, Result<Vec<Root>, ContextError>> {
        Box::pin(async move {
            self.client_declared("roots", ctx.tool_name())?;
            let listed: ListRootsResult = match &self.asker {
                None => self.peer.list_roots().await.map_err(failed)?,
                Some(asker) => {
                    let question = InputRequest::ListRoots(ListRootsRequest::default());
                    let check = |answer: &Value| reads_as::<ListRootsResult>(answer).map(drop);
                    let answer = asker.ask(key, question, check).await?;
                    reads_as(&answer).map_err(ContextError::InvalidAnswer)?
                }
            };
            let roots = listed.roots.into_iter();
            Ok(roots
                .map(|root| Root {
                    uri: root.uri,
                    name: root.name,
                })
                .collect())
        })
    }

    fn sample<'a>(
        &'a self,
        ctx: &'a ToolContext,
        request: SamplingRequest,
    ) -> BoxFuture<'a, Result<SamplingReply, ContextError>> {
        Box::pin(async move {
            self.client_declared("sampling", ctx.tool_name())?;
            let key = request.key.clone();
            let params: CreateMessageRequestParams = rmcp_request(&request)?;
            let Some(asker) = &self.asker else {
                let result = self.peer.create_message(params).await.map_err(failed)?;
                return sampling_reply(result);
            };
            let question = InputRequest::CreateMessage(CreateMessageRequest::new(params));
            let check = |answer: &Value| reads_as::<CreateMessageResult>(answer).map(drop);
            let answer = asker.ask(key, question, check).await?;
            sampling_reply(reads_as(&answer).map_err(ContextError::InvalidAnswer)?)
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
            if let Some(asker) = &self.asker {
                let question = InputRequest::Elicitation(ElicitRequest::new(params));
                let check = |answer: &Value| reads_as::<ElicitResult>(answer).map(drop);
                let answer = asker.ask(request.key, question, check).await?;
                let answer = reads_as(&answer).map_err(ContextError::InvalidAnswer)?;
                return Ok(elicitation_answer(answer));
            }
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

fn failed(err: ServiceError) -> ContextError {
    match err {
        ServiceError::Cancelled { .. } => ContextError::Cancelled,
        other => ContextError::Failed(format!("the MCP client answered with an error: {other}")),
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
/// its notifications sent in order beside it, all of them before this returns. `logger`: the
/// tool's name, which the count of dropped log messages gives as its logger.
pub(super) async fn run_call<F: Future>(
    context: &RequestContext<RoleServer>,
    session: &Arc<SessionState>,
    data: &Data,
    logger: &str,
    asker: Option<Asker>,
    call: F,
) -> F::Output {
    let stop = std::future::pending::<std::convert::Infallible>();
    match run_scoped(context, session, data, logger, asker, stop, call).await {
        Ok(output) => output,
        Err(never) => match never {},
    }
}

/// [`run_call`] for a client of 2026-07-28: a question not answered yet ends the run, `None`.
pub(super) async fn run_rounds<F: Future>(
    context: &RequestContext<RoleServer>,
    session: &Arc<SessionState>,
    data: &Data,
    logger: &str,
    rounds: &Arc<Rounds>,
    call: F,
) -> Option<F::Output> {
    let stop = rounds.asked();
    let asker = Some(Asker::Rounds(Arc::clone(rounds)));
    let ran = run_scoped(context, session, data, logger, asker, stop, call);
    ran.await.ok()
}

/// The log level a client of 2026-07-28 asked for in the request's `_meta` (none: no logs, as
/// the revision says); `Err` for an older client.
fn request_log_level(context: &RequestContext<RoleServer>) -> Result<Option<LogLevel>, ()> {
    match without_handshake(context) {
        true => Ok(context.meta.log_level().map(from_rmcp_level)),
        false => Err(()),
    }
}

/// Runs `call` as [`run_call`] says, what it asks answered by `asker` (by the session without
/// one), until it returns or `stop` resolves first.
pub(super) async fn run_scoped<F: Future, S: Future>(
    context: &RequestContext<RoleServer>,
    session: &Arc<SessionState>,
    data: &Data,
    logger: &str,
    asker: Option<Asker>,
    stop: S,
    call: F,
) -> Result<F::Output, S::Output> {
    let queue = Arc::new(Outbox::default());
    let host = Arc::new(McpHost {
        peer: context.peer.clone(),
        progress_token: context.meta.get_progress_token(),
        session: Arc::clone(session),
        request_log_level: request_log_level(context),
        queue: Arc::clone(&queue),
        asker,
    });
    let scope = CallScope::new()
        .host(host)
        .request(request_info(context))
        .data(data.clone())
        .cancellation(context.ct.clone());
    let called = async {
        // Biased: questions awaited together (`join!`) are all asked within one poll of the
        // body, before `stop` ends the run for them.
        let output = tokio::select! {
            biased;
            output = scope.run(call) => Ok(output),
            stopped = stop => Err(stopped),
        };
        // Closing the queue ends `send_in_order` once it has sent what was queued.
        queue.close();
        output
    };
    let (output, ()) = tokio::join!(called, send_in_order(&context.peer, &queue, logger));
    output
}

/// Sends each queued notification once the one before it has reached the transport, so they
/// keep their order on the wire.
async fn send_in_order(peer: &Peer<RoleServer>, queue: &Outbox, logger: &str) {
    loop {
        let notification = match queue.next(logger) {
            Ok(Some(notification)) => notification,
            Ok(None) => {
                queue.ready.notified().await;
                continue;
            }
            Err(()) => return,
        };
        if let Err(err) = peer.send_notification(notification).await {
            tracing::debug!(error = %err, "a tool's notification was not sent");
        }
    }
}
