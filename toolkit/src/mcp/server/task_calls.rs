//! What the server answers to task requests, in both eras, from one store ([`Tasks`]) and one
//! runner (`task_runs.rs`):
//! - MCP 2026-07-28 (the Tasks extension, SEP-2663) through rmcp's own task support: the
//!   extension declared in `capabilities.extensions`, a `tools/call` answered with rmcp's
//!   `CreateTaskResult` ([`McpServer::call_as_task`]), and rmcp's `tasks/get` and
//!   `tasks/cancel` hooks (which rmcp refuses with `-32021` to a client without the extension);
//! - MCP 2025-11-25, the requests `rmcp_fixes::tasks` renamed: a task-augmented `tools/call`,
//!   `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`, and `tools/list` with each
//!   tool's `execution.taskSupport` (rmcp's tool type has no `execution`).

use std::sync::Arc;

use axum::http::request::Parts;
use rmcp::model::{
    CallToolRequestParams, CancelTaskParams, ClientCapabilities,
    CustomRequest, CustomResult, ErrorCode, GetTaskParams, GetTaskResult,
    JsonObject, ServerCapabilities, TASKS_EXTENSION_ID, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Peer, RoleServer};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::{caller_of, may_use};
use super::rmcp_fixes::tasks::{CALL, LIST_TOOLS, PREFIX};
use super::tasks::{Cancelled, Tasks, legacy};
use super::without_handshake;
use super::McpServer;
use crate::TaskSupport;
use crate::context::Caller;
use crate::providers::Format;
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
    pub(super) fn runs_tasks(&self) -> bool {
        let tools = self.inner.toolbox.iter();
        tools
            .map(|tool| self.task_support(tool))
            .any(|support| support != TaskSupport::Forbidden)
    }

    /// Where `context`'s request keeps its tasks, and the session to tell of their changes:
    /// its session's store, or, for a request over HTTP without a session (MCP 2026-07-28, a
    /// stateless server), its caller's.
    pub(super) fn task_store(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> (Arc<Tasks>, Option<Peer<RoleServer>>) {
        let over_http = context.extensions.get::<Parts>().is_some();
        if over_http && (self.stateless || without_handshake(context)) {
            let principal = caller_of(context).map(|caller| caller.principal.as_str());
            return (self.inner.caller_tasks.of(principal), None);
        }
        (Arc::clone(&self.tasks), Some(context.peer.clone()))
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

    /// How a 2026-07-28 `tools/call` of `tool` may run as a task: `Some(Ok(support))` when
    /// the request declares the Tasks extension and the tool may or must run as one
    /// ([`call_as_task`](Self::call_as_task)), `-32021` when the tool runs as a task only and
    /// the request does not declare it, `None` for a plain call (an older client's, or a tool
    /// that may run either way called without the extension).
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
        let (tasks, _) = self.task_store(context);
        tasks.detailed(&request.task_id).map(GetTaskResult::new)
    }

    /// `tasks/cancel` of the Tasks extension: acknowledged alike whether it cancelled the task
    /// or found it ended; an unknown id is `-32602`.
    pub(super) fn cancel_task_of(
        &self,
        request: &CancelTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let (tasks, _) = self.task_store(context);
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
        let (tasks, _) = self.task_store(context);
        tasks.update(&request.task_id, request.input_responses)
    }

    /// The answer to a renamed request (MCP 2025-11-25), or `None` for a method that is not
    /// one of them.
    pub(super) async fn task_request(
        &self,
        request: &CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Option<Result<CustomResult, ErrorData>> {
        let params = request.params.clone().unwrap_or(Value::Null);
        let task_id = || {
            params["taskId"]
                .as_str()
                .ok_or_else(|| ErrorData::invalid_params("`taskId` must be a string", None))
        };
        let (tasks, _) = self.task_store(&context);
        let answer = match request.method.as_str() {
            CALL => self.legacy_task_call(&params, context),
            LIST_TOOLS => Ok(self.listing(caller_of(&context))),
            method => match method.strip_prefix(PREFIX)? {
                "tasks/get" => task_id()
                    .and_then(|id| tasks.get(id))
                    .map(|task| legacy(&task)),
                "tasks/result" => match task_id() {
                    Ok(id) => tasks.result(id).await,
                    Err(err) => Err(err),
                },
                "tasks/list" => {
                    Ok(json!({"tasks": tasks.list().iter().map(legacy).collect::<Vec<_>>()}))
                }
                "tasks/cancel" => task_id().and_then(|id| legacy_cancel(&tasks, id)),
                _ => return None,
            },
        };
        Some(answer.map(CustomResult))
    }

    /// A `tools/call` with `task` (MCP 2025-11-25): answers `{"task": ...}` at once.
    fn legacy_task_call(
        &self,
        params: &Value,
        context: RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        // Read in place: rmcp parsed the frame into `params` already, and this is its one read.
        let request = CallToolRequestParams::deserialize(params)
            .map_err(|err| ErrorData::invalid_params(format!("tools/call params: {err}"), None))?;
        // An unknown tool, or one the caller may not use, is refused as a plain call of it is,
        // before any task is made; the tool found runs the task, not looked up again.
        let tool = self.resolve(&request.name, caller_of(&context))?;
        if self.task_support(tool.tool()) == TaskSupport::Forbidden {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "{} does not run as a task: call it without `task`",
                    request.name
                ),
                None,
            ));
        }
        // MCP 2025-11-25 tasks are going (branch i36-drop25 removes this path).
        drop((tool, context));
        Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, "2025-11-25 tasks are gone", None))
    }

    /// `tools/list` with each tool's `execution.taskSupport` (rmcp's tool type has no
    /// `execution`): the [`Format::Mcp`] definitions, the server's task setting applied.
    /// The listing, as `list_tools` gives it (only the tools `caller` may use), with each
    /// tool's `execution`.
    fn listing(&self, caller: Option<&Caller>) -> Value {
        let tools: Vec<Value> = self
            .inner
            .toolbox
            .iter()
            .zip(&self.inner.listed)
            .filter(|(tool, _)| may_use(caller, tool))
            .map(|(tool, listed)| {
                let mut entry = tool
                    .definition_in(Format::Mcp)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| serde_json::to_value(listed).unwrap_or(Value::Null));
                let support = match self.task_support(tool) {
                    TaskSupport::Required => Some("required"),
                    TaskSupport::Optional => Some("optional"),
                    _ => None,
                };
                if let Some(support) = support {
                    entry["execution"] = json!({"taskSupport": support});
                }
                entry
            })
            .collect();
        json!({"tools": tools})
    }
}

/// `tasks/cancel` as MCP 2025-11-25 answers it: the task, or an error for one already ended.
fn legacy_cancel(tasks: &Tasks, id: &str) -> Result<Value, ErrorData> {
    match tasks.cancel(id)? {
        Cancelled::Now => tasks.get(id).map(|task| legacy(&task)),
        Cancelled::Already(status) => {
            let status = json!(status);
            let status = status.as_str().unwrap_or("ended");
            let refusal = format!("task {id} cannot be cancelled: it is already {status}");
            Err(ErrorData::invalid_params(refusal, None))
        }
    }
}
