//! A `tools/call` that a 2026-07-28 server made a task (the Tasks extension, SEP-2663): the
//! client declares the extension, the server decides to answer a call with a task, and the
//! client polls `tasks/get` until the result comes inlined, answering its questions with
//! `tasks/update`. The status messages reach the calling tool's context as progress, and the
//! task is cancelled (`tasks/cancel`) when the caller stops waiting.
//!
//! MCP 2025-11-25 tasks are not spoken: a handshake-era server's tool that requires a task is
//! called plainly, and its refusal (`-32601`) is the call's error.

use std::time::Duration;

use rmcp::model::{
    CallToolResult, CancelTaskParams, CreateTaskResult, ErrorData, GetTaskParams, Task,
    TaskPayload, UpdateTaskParams,
};
use rmcp::service::ServiceError;
use rmcp::{Peer, RoleClient};
use serde_json::Value;

use super::abandon::Abandon;
use super::failure::CallFailure;
use super::handlers::Handlers;
use super::input_required::answer_all;
use crate::context::ToolContext;

/// The poll interval when the server suggests none, and the bounds put on the one it suggests.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
const MIN_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(5);

/// Follows the task a 2026-07-28 server made of a call until it ends: polled with `tasks/get`
/// at the interval the server suggests (bounded), its status messages reported to `ctx` as
/// progress, its questions answered through `handlers` and sent with `tasks/update`, and
/// cancelled on the server if the caller stops waiting.
pub(super) async fn follow_task(
    peer: &Peer<RoleClient>,
    handlers: &Handlers,
    created: CreateTaskResult,
    ctx: &ToolContext,
) -> Result<CallToolResult, CallFailure> {
    let id = created.task.task_id.clone();
    let abandon = Abandon::notify(cancel_extension_task(peer.clone(), id.clone()));
    let answer = poll_task(peer, handlers, created.task, ctx).await;
    abandon.finished();
    answer
}

async fn poll_task(
    peer: &Peer<RoleClient>,
    handlers: &Handlers,
    mut task: Task,
    ctx: &ToolContext,
) -> Result<CallToolResult, CallFailure> {
    let (mut said, mut step) = (None, 0.0);
    // The server decides which calls become tasks, short ones too: the first poll comes soon,
    // and the waits double up to the interval the server suggests.
    let mut wait = MIN_POLL;
    loop {
        if task.status_message.is_some() && task.status_message != said {
            step += 1.0;
            ctx.progress(step, None, task.status_message.clone().unwrap_or_default());
            said = task.status_message.clone();
        }
        let suggested = task
            .poll_interval_ms
            .map_or(DEFAULT_POLL, Duration::from_millis)
            .clamp(MIN_POLL, MAX_POLL);
        tokio::time::sleep(wait.min(suggested)).await;
        wait = wait.saturating_mul(2);
        let polled = peer
            .get_task(GetTaskParams::new(task.task_id.clone()))
            .await?;
        match polled.task.payload {
            TaskPayload::Completed { result } => {
                return serde_json::from_value(Value::Object(result))
                    .map_err(|_| ServiceError::UnexpectedResponse.into());
            }
            TaskPayload::Failed { error } => {
                let error: ErrorData = serde_json::from_value(Value::Object(error))
                    .map_err(|_| ServiceError::UnexpectedResponse)?;
                return Err(ServiceError::McpError(error).into());
            }
            TaskPayload::Cancelled => {
                return Err(CallFailure::Unanswered(format!(
                    "the MCP server cancelled task {}",
                    task.task_id
                )));
            }
            TaskPayload::InputRequired { input_requests } => {
                let answers = answer_all(handlers, input_requests, ctx.cancellation())
                    .await
                    .map_err(|err| CallFailure::Unanswered(err.message.into_owned()))?;
                let update = UpdateTaskParams::new(task.task_id.clone(), answers);
                peer.update_task(update).await?;
            }
            // Working; or a status rmcp adds later, polled again until it ends.
            _ => {}
        }
        task = polled.task.task;
    }
}

/// Tells a 2026-07-28 server to cancel task `task_id`: its caller stopped waiting.
async fn cancel_extension_task(peer: Peer<RoleClient>, task_id: String) {
    if let Err(err) = peer.cancel_task(CancelTaskParams::new(task_id)).await {
        tracing::debug!(%err, "could not send tasks/cancel");
    }
}
