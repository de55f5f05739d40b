//! When an MCP 2026-07-28 `tools/call` becomes a task (the Tasks extension, SEP-2663, where
//! the server decides), for a client that declared the extension:
//! - a tool that runs as a task only ([`TaskSupport::Required`]) answers with its task at once;
//! - a tool that may run as a task ([`TaskSupport::Optional`]) runs as a plain call would, and
//!   becomes a task when it is still running after the server's task window
//!   ([`McpServer::with_task_after`]) or asks its client something, whichever comes first. A
//!   quick call then costs its client no polling, and a slow one, or one waiting on a person,
//!   holds no request open.
//!
//! Once a task, what the tool asks waits for `tasks/update` (`task_input.rs`).
//!
//! A tool that panics in a task ends it `failed` with an internal error: the extension keeps
//! `failed` for "protocol-level errors (server crash, internal failure)", and a tool's own
//! error is a `completed` task whose result has `isError`, as in a plain call.

use std::sync::{Arc, Weak};

use rmcp::model::{CallToolResponse, CreateTaskResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use tokio::sync::oneshot;

use super::task_input::Asker;
use super::tasks::{Created, Outcome, Tasks};
use super::{McpServer, guard};
use crate::mcp::convert::call_result;
use crate::{TaskSupport, ToolCallResult, ToolError};
use toolkit_runtime::__private::ToolRef;

/// How long a cancelled task's tool may take to stop before its future is dropped.
const CANCEL_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

impl McpServer {
    /// A 2026-07-28 `tools/call` of `tool` (`support`: it may or must run as a task) from a
    /// client that declared the Tasks extension: its result, or its task.
    pub(super) async fn call_as_task(
        &self,
        tool: &ToolRef<'_>,
        arguments: Option<JsonObject>,
        support: TaskSupport,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let store = self.task_store(&context);
        let created = store.create(None)?;
        let (id, input) = (created.id.clone(), Arc::clone(&created.input));
        let request = context.ct.clone();
        let tasks = Arc::downgrade(&store);
        if support != TaskSupport::Optional {
            // A task at once: the run's result is the task's, however soon it comes.
            self.run_task(tool, arguments, (tasks, created), context, None);
        } else {
            let (answer, mut ended) = oneshot::channel();
            self.run_task(tool, arguments, (tasks, created), context, Some(answer));
            tokio::select! {
                biased;
                () = request.cancelled() => {
                    // rmcp sends no answer to a cancelled request; the tool is stopped as a
                    // cancelled task's is.
                    let _ = store.cancel(&id);
                    store.discard(&id);
                    return Err(ErrorData::internal_error("the call was cancelled", None));
                }
                early = &mut ended => return self.answered_early(&store, &id, tool, early),
                () = input.asked() => {}
                () = tokio::time::sleep(self.inner.task_after) => {}
            }
            // From here the run's result is the task's; one that came just now is taken here.
            ended.close();
            if let Ok(result) = ended.try_recv() {
                return self.answered_early(&store, &id, tool, Ok(result));
            }
        }
        let task = store.detailed(&id)?.task;
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }

    /// The call's answer when its run ended before it became a task (`Err`: the run was
    /// stopped): the task is forgotten, no client having been told of it.
    fn answered_early(
        &self,
        store: &Tasks,
        id: &str,
        tool: &ToolRef<'_>,
        ended: Result<ToolCallResult, oneshot::error::RecvError>,
    ) -> Result<CallToolResponse, ErrorData> {
        store.discard(id);
        let result =
            ended.map_err(|_| ErrorData::internal_error("the call stopped unanswered", None))?;
        Ok(CallToolResponse::from(call_result(tool.tool(), result)))
    }

    /// Runs `tool` with `arguments` in the background as `task`, the task created in its
    /// store (held weakly: the session's end drops the store, which cancels the run): its
    /// result goes to `answer` while the call waits on it, else into the task.
    fn run_task(
        &self,
        tool: &ToolRef<'_>,
        arguments: Option<JsonObject>,
        task: (Weak<Tasks>, Created),
        context: RequestContext<RoleServer>,
        answer: Option<oneshot::Sender<ToolCallResult>>,
    ) {
        let (tasks, created) = task;
        let tool = tool.clone().into_owned();
        let task_id = created.id;
        let call = self.tool_call(&tool, arguments);
        let mut context = context;
        context.ct = created.cancel;
        let server = self.for_task();
        // The call's place under the HTTP server's call cap, held until its tool returns: a
        // task is a call that answers early, not one the cap does not count.
        let place = guard::CallPlace::of(&context.extensions);
        // What the tool asks waits for `tasks/update` of its task.
        let capabilities = context.client_capabilities().map(Arc::new);
        let asker = Some(Asker::Task(created.input, capabilities));
        tokio::spawn(async move {
            let run = server.call(&tool, &call, &context, asker);
            tokio::pin!(run);
            let result = tokio::select! {
                result = &mut run => Some(result),
                () = context.ct.cancelled() => {
                    // Cancelled: the tool sees it in its context, and has a moment to stop;
                    // past it, the call is dropped, and reported so.
                    if toolkit_runtime::within(CANCEL_GRACE, run).await.is_none() {
                        let toolbox = &server.inner.toolbox;
                        toolbox.cancelled(&tool, &call, "its task was cancelled");
                    }
                    None
                }
            };
            if let Some(place) = place {
                place.release();
            }
            // The call took its answer, or it became a task that keeps it.
            let Some(result) = result else { return };
            let unanswered = match answer {
                Some(answer) => answer.send(result).err(),
                None => Some(result),
            };
            if let Some(result) = unanswered
                && let Some(tasks) = tasks.upgrade()
            {
                tasks.finish(&task_id, server.outcome(&tool, result));
            }
        });
    }

    /// How a task whose tool returned `result` ended: `completed` with the result (an
    /// `isError` one included), kept as its JSON under the results' byte budget, or `failed`
    /// when the tool panicked.
    fn outcome(&self, tool: &ToolRef<'_>, result: ToolCallResult) -> Outcome {
        if let Some(ToolError::Panicked { message, .. }) = result.error() {
            let message = format!("{} panicked: {message}", tool.tool().name());
            return Outcome::Error(ErrorData::internal_error(message, None));
        }
        // Kept as its JSON: the budget counts what is held, and bytes hold less than a tree.
        match serde_json::to_vec(&call_result(tool.tool(), result)) {
            Ok(json) => Outcome::Result(self.inner.task_results.keep(json)),
            Err(err) => Outcome::Error(ErrorData::internal_error(err.to_string(), None)),
        }
    }
}
