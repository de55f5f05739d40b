//! A `tools/call` that becomes a task. Two wire shapes:
//!
//! - MCP 2026-07-28's Tasks extension (SEP-2663, [`follow_task`]): the client declares the
//!   extension, the server decides to answer a call with a task, and the client polls
//!   `tasks/get` until the result comes inlined, answering its questions with `tasks/update`;
//! - MCP 2025-11-25 tasks ([`call_as_task`]): the server answers a task-augmented call with a
//!   task at once; the client then waits for `tasks/result` while it polls `tasks/get`.
//!
//! Either way the status messages reach the calling tool's context as progress, and the task
//! is cancelled (`tasks/cancel`) when the caller stops waiting.
//!
//! rmcp 3.11 models the later tasks extension (SEP-2663, another wire shape) and drops a
//! tool's `execution.taskSupport` from its listing, so these requests go as custom ones and
//! their answers are read as JSON; a tool is called this way once its server has refused a
//! plain call of it (`-32601`, the spec's answer for a tool that requires a task).

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use rmcp::model::{
    CallToolResult, CancelTaskParams, ClientRequest, CreateTaskResult, CustomRequest, ErrorData,
    GetTaskParams, ServerResult, Task, TaskPayload, UpdateTaskParams,
};
use rmcp::service::ServiceError;
use rmcp::{Peer, RoleClient};
use serde_json::{Map, Value, json};

use super::abandon::Abandon;
use super::failure::CallFailure;
use super::handlers::Handlers;
use super::input_required::answer_all;
use crate::context::ToolContext;

/// How long the server keeps a task's result (asked for; the server may choose another).
const TASK_TTL_MS: u64 = 5 * 60 * 1000;
/// The poll interval when the server suggests none, and the bounds put on the one it suggests.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
const MIN_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(5);

/// The tools of one session that are called as tasks (learned from the server's refusals).
#[derive(Debug, Default)]
pub(super) struct TaskTools(Mutex<HashSet<String>>);

impl TaskTools {
    pub(super) fn contains(&self, name: &str) -> bool {
        self.0.lock().is_ok_and(|names| names.contains(name))
    }

    pub(super) fn insert(&self, name: &str) {
        if let Ok(mut names) = self.0.lock() {
            names.insert(name.to_owned());
        }
    }
}

/// Whether a plain call's answer says the tool must be called as a task: the JSON-RPC error
/// `-32601` the spec gives, or the tool error the TypeScript SDK's servers wrap it in.
pub(super) fn requires_task(answer: &Result<CallToolResult, CallFailure>) -> bool {
    match answer {
        Err(CallFailure::Request(ServiceError::McpError(error))) => error.code.0 == -32601,
        Ok(result) if result.is_error == Some(true) => result.content.iter().any(|block| {
            block
                .as_text()
                .is_some_and(|text| text.text.contains("-32601") && text.text.contains("task"))
        }),
        _ => false,
    }
}

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

/// Calls `name` as a task and waits for its result.
pub(super) async fn call_as_task(
    peer: &Peer<RoleClient>,
    name: &str,
    arguments: Map<String, Value>,
    ctx: &ToolContext,
) -> Result<CallToolResult, ServiceError> {
    let params = json!({"name": name, "arguments": arguments, "task": {"ttl": TASK_TTL_MS}});
    let created = request(peer, "tools/call", params).await?;
    // A server may run the call at once instead, and answer with its result.
    let Some(task) = created.get("task").and_then(task_state) else {
        return read_result(created);
    };
    let abandon = Abandon::notify(cancel_task(peer.clone(), task.id.clone()));
    let result = request(peer, "tasks/result", json!({"taskId": task.id}));
    let answer = tokio::select! {
        answer = result => answer,
        failed = follow(peer, task, ctx) => Err(failed),
    };
    abandon.finished();
    read_result(answer?)
}

/// Polls `tasks/get` until the task ends, its status messages going to `ctx` as progress;
/// returns only when polling fails (the result, awaited beside it, ends the call otherwise).
async fn follow(peer: &Peer<RoleClient>, mut task: TaskState, ctx: &ToolContext) -> ServiceError {
    let mut said = None;
    let mut step = 0.0;
    loop {
        if task.message.is_some() && task.message != said {
            step += 1.0;
            ctx.progress(step, None, task.message.clone().unwrap_or_default());
            said = task.message.clone();
        }
        if task.terminal {
            // `tasks/result` answers now; keep it the one that ends the call.
            std::future::pending::<()>().await;
        }
        tokio::time::sleep(task.poll).await;
        let polled = match request(peer, "tasks/get", json!({"taskId": task.id})).await {
            Ok(polled) => polled,
            Err(err) => return err,
        };
        match task_state(&polled) {
            Some(next) => task = next,
            None => return ServiceError::UnexpectedResponse,
        }
    }
}

/// What a task's JSON says: its id, status message, whether it ended, the poll interval.
struct TaskState {
    id: String,
    message: Option<String>,
    terminal: bool,
    poll: Duration,
}

fn task_state(task: &Value) -> Option<TaskState> {
    let id = task.get("taskId")?.as_str()?.to_owned();
    let status = task
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("working");
    let poll = task
        .get("pollInterval")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL);
    Some(TaskState {
        id,
        message: task
            .get("statusMessage")
            .and_then(Value::as_str)
            .map(str::to_owned),
        terminal: matches!(status, "completed" | "failed" | "cancelled"),
        poll,
    })
}

/// Sends a request the client's rmcp types do not model, and reads its answer as JSON.
async fn request(
    peer: &Peer<RoleClient>,
    method: &str,
    params: Value,
) -> Result<Value, ServiceError> {
    let request = ClientRequest::CustomRequest(CustomRequest::new(method.to_owned(), Some(params)));
    let answer: ServerResult = peer.send_request(request).await?;
    serde_json::to_value(answer).map_err(|_| ServiceError::UnexpectedResponse)
}

fn read_result(value: Value) -> Result<CallToolResult, ServiceError> {
    serde_json::from_value(value).map_err(|_| ServiceError::UnexpectedResponse)
}

/// Tells the server to cancel task `task_id`: its caller stopped waiting.
async fn cancel_task(peer: Peer<RoleClient>, task_id: String) {
    if let Err(err) = request(&peer, "tasks/cancel", json!({"taskId": task_id})).await {
        tracing::debug!(%err, "could not send tasks/cancel");
    }
}
