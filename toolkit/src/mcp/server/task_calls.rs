//! What the server answers to task requests: MCP 2026-07-28's Tasks extension (SEP-2663),
//! through rmcp's own task support, from one store ([`Tasks`]) and one runner
//! (`task_runs.rs`): the extension declared in `capabilities.extensions`, a `tools/call`
//! answered with rmcp's `CreateTaskResult` when it becomes a task ([`McpServer::as_task`]), and
//! rmcp's `tasks/get`, `tasks/update` and `tasks/cancel` hooks (which rmcp refuses with
//! `-32021` to a client without the extension). A handshake-era client (2024-11-05 to
//! 2025-11-25) has no tasks: it calls every tool plainly.

use std::sync::Arc;

use axum::http::request::Parts;
use rmcp::model::{
    CancelTaskParams, ClientCapabilities, GetTaskParams, GetTaskResult, JsonObject,
    ServerCapabilities, TASKS_EXTENSION_ID, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};

use super::McpServer;
use super::auth::caller_of;
use super::tasks::Tasks;
use super::without_handshake;
use crate::TaskSupport;
use toolkit_runtime::__private::ToolRef;

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
    pub(super) fn task_store(&self, context: &RequestContext<RoleServer>) -> Arc<Tasks> {
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

    /// How a 2026-07-28 `tools/call` of `tool` may run as a task: `Some(Ok(support))` when
    /// the request declares the Tasks extension and the tool may or must run as one
    /// ([`call_as_task`](Self::call_as_task)), `-32021` when the tool runs as a task only and
    /// the request does not declare it, `None` for a plain call (an older client's, which has
    /// no tasks, or a tool that may run either way called without the extension).
    pub(super) fn as_task(
        &self,
        tool: &ToolRef<'_>,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<TaskSupport, ErrorData>> {
        if !without_handshake(context) {
            return None;
        }
        let declared = (context.client_capabilities()).is_some_and(|caps| caps.supports_tasks());
        match (self.task_support(tool.tool()), declared) {
            (TaskSupport::Forbidden, _) | (TaskSupport::Optional, false) => None,
            (_, false) => Some(Err(ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            ))),
            (support, true) => Some(Ok(support)),
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
}
