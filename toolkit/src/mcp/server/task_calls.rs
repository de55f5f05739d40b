//! What the server answers to task requests: MCP 2026-07-28's Tasks extension (SEP-2663),
//! through rmcp's own task support, from one store ([`Tasks`]) and one runner
//! ([`McpServer::start_task`]): the extension declared in `capabilities.extensions`, a
//! `tools/call` answered with rmcp's `CreateTaskResult` ([`McpServer::call_as_task`]), and
//! rmcp's `tasks/get`, `tasks/update` and `tasks/cancel` hooks (which rmcp refuses with
//! `-32021` to a client without the extension). A handshake-era client (2024-11-05 to
//! 2025-11-25) has no tasks: it calls every tool plainly.

use std::sync::Arc;

use axum::http::request::Parts;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities,
    CreateTaskResult, GetTaskParams, GetTaskResult, JsonObject, ServerCapabilities,
    TASKS_EXTENSION_ID, Task, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};

use super::auth::caller_of;
use super::task_input::Asker;
use super::tasks::{Outcome, Tasks};
use super::without_handshake;
use super::{McpServer, guard};
use crate::TaskSupport;
use crate::mcp::convert::call_result;
use toolkit_runtime::__private::ToolRef;

/// How long a cancelled task's tool may take to stop before its future is dropped.
const CANCEL_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

impl McpServer {
    /// Whether `tool` may (or must) run as a task: its own setting, else the server's.
    pub(super) fn task_support(&self, tool: &crate::ToolProxy) -> TaskSupport {
        match tool.options().task {
            TaskSupport::Forbidden => self.inner.tasks,
            own => own,
        }
    }

    /// Whether any tool may run as a task: only then are task requests taken from rmcp.
    fn runs_tasks(&self) -> bool {
        let tools = self.inner.toolbox.iter();
        tools
            .map(|tool| self.task_support(tool))
            .any(|support| support != TaskSupport::Forbidden)
    }

    /// Where `context`'s request keeps its tasks: for a request over HTTP (which has no
    /// session in MCP 2026-07-28), its caller's store; over stdio, its connection's.
    fn task_store(&self, context: &RequestContext<RoleServer>) -> Arc<Tasks> {
        let over_http = context.extensions.get::<Parts>().is_some();
        if over_http && (self.stateless || without_handshake(context)) {
            let principal = caller_of(context).map(|caller| caller.principal.as_str());
            return self.inner.caller_tasks.of(principal);
        }
        Arc::clone(&self.tasks)
    }

    /// The Tasks extension in the server's capabilities (`capabilities.extensions`), when a
    /// tool runs as a task: rmcp then lets `tasks/get` and `tasks/cancel` through to
    /// [`task_status`](Self::task_status) and [`cancel_task_of`](Self::cancel_task_of).
    pub(super) fn declare_tasks(&self, capabilities: &mut ServerCapabilities) {
        if self.runs_tasks() {
            let extensions = capabilities.extensions.get_or_insert_with(Default::default);
            extensions.insert(TASKS_EXTENSION_ID.to_owned(), JsonObject::new());
        }
    }

    /// The capabilities of an `initialize` answer: the Tasks extension left out, it being
    /// 2026-07-28's, and a handshake-era client calling every tool plainly.
    pub(super) fn undeclare_tasks(capabilities: &mut ServerCapabilities) {
        if let Some(extensions) = &mut capabilities.extensions {
            extensions.remove(TASKS_EXTENSION_ID);
            if extensions.is_empty() {
                capabilities.extensions = None;
            }
        }
    }

    /// A 2026-07-28 `tools/call` of `tool` (looked up once, by `call_tool`) that runs as a
    /// task: a task when the request declares the Tasks extension (the server decides, the
    /// client sends no `task`), else `-32021` for a tool that runs as a task only. `None`: a
    /// plain call (an older client's, which has no tasks, or a tool that may run either
    /// way called by a client without the extension).
    pub(super) fn call_as_task(
        &self,
        tool: &ToolRef<'_>,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<CallToolResponse, ErrorData>> {
        if !without_handshake(context) {
            return None;
        }
        let declared = (context.client_capabilities()).is_some_and(|caps| caps.supports_tasks());
        match (self.task_support(tool.tool()), declared) {
            (TaskSupport::Forbidden, _) | (TaskSupport::Optional, false) => None,
            (_, false) => Some(Err(ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            ))),
            (_, true) => {
                let (tool, arguments) = (tool.clone(), request.arguments.clone());
                let started = self.start_task(tool, arguments, None, context.clone());
                Some(started.map(|task| CallToolResponse::Task(CreateTaskResult::new(task))))
            }
        }
    }

    /// `tasks/get` of the Tasks extension: the task, its result or error inlined once ended.
    pub(super) fn task_status(
        &self,
        request: &GetTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let tasks = self.task_store(context);
        tasks.detailed(&request.task_id).map(GetTaskResult::new)
    }

    /// `tasks/cancel` of the Tasks extension: acknowledged alike whether it cancelled the task
    /// or found it ended; an unknown id is `-32602`.
    pub(super) fn cancel_task_of(
        &self,
        request: &CancelTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let tasks = self.task_store(context);
        tasks.cancel(&request.task_id).map(drop)
    }

    /// `tasks/update` of the Tasks extension: acknowledged for a task of the caller's, its
    /// `inputResponses` given to the questions its body waits on ([`TaskInput`]); a key no
    /// question waits under is ignored, as the extension says.
    pub(super) fn update_task_of(
        &self,
        request: UpdateTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let tasks = self.task_store(context);
        tasks.update(&request.task_id, request.input_responses)
    }

    /// Starts `tool` as a task of the request's store, kept `ttl_ms` (bounded), running
    /// meanwhile with a context that `tasks/cancel` (or its store's end) cancels; the task as
    /// created.
    fn start_task(
        &self,
        tool: ToolRef<'_>,
        arguments: Option<JsonObject>,
        ttl_ms: Option<u64>,
        context: RequestContext<RoleServer>,
    ) -> Result<Task, ErrorData> {
        let tool = tool.into_owned();
        let store = self.task_store(&context);
        let created = store.create(ttl_ms)?;
        let mut context = context;
        context.ct = created.cancel.clone();
        // The task holds its store weakly: when the session ends, the store goes and cancels
        // its running tasks.
        let tasks = Arc::downgrade(&store);
        let server = McpServer {
            inner: Arc::clone(&self.inner),
            session: Arc::clone(&self.session),
            tasks: Arc::default(),
            session_id: self.session_id,
            stateless: self.stateless,
        };
        let id = created.id;
        // The call's place under the HTTP server's call cap, held by the task until its tool
        // returns: a task is a call that answers early, not one the cap does not count.
        let place = guard::CallPlace::of(&context.extensions);
        // A 2026-07-28 task's questions wait for `tasks/update`, not on a session.
        let input = without_handshake(&context).then(|| {
            let capabilities = context.client_capabilities().map(Arc::new);
            Asker::Task(Arc::clone(&created.input), capabilities)
        });
        tokio::spawn(async move {
            let tool_call = server.tool_call(&tool, arguments);
            let call = server.call(&tool, &tool_call, &context, input);
            tokio::pin!(call);
            let answer = tokio::select! {
                answer = &mut call => answer,
                () = context.ct.cancelled() => {
                    // Cancelled: the tool sees it in its context, and has a moment to stop;
                    // past it, the call is dropped, and reported so.
                    if toolkit_runtime::within(CANCEL_GRACE, call).await.is_none() {
                        let toolbox = &server.inner.toolbox;
                        toolbox.cancelled(&tool, &tool_call, "its task was cancelled");
                    }
                    if let Some(place) = place {
                        place.release();
                    }
                    return;
                }
            };
            if let Some(place) = place {
                place.release();
            }
            // Kept as its JSON: the budget counts what is held, and bytes hold less than a tree.
            let answer = call_result(tool.tool(), answer);
            let outcome = match serde_json::to_vec(&answer) {
                Ok(json) => Outcome::Result(server.inner.task_results.keep(json)),
                Err(err) => Outcome::Error(ErrorData::internal_error(err.to_string(), None)),
            };
            if let Some(tasks) = tasks.upgrade() {
                tasks.finish(&id, outcome);
            }
        });
        Ok(created.task)
    }
}
