//! What the server answers to the task requests `rmcp_fixes::tasks` renamed: a
//! task-augmented `tools/call` starts the tool in the background ([`Tasks`]), and `tasks/*`
//! read, await, list and cancel the session's tasks; `tools/list`, when a tool may run as a
//! task, lists each tool with its `execution.taskSupport`.

use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, CustomRequest, CustomResult, ErrorCode};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::{caller_of, may_use};
use super::rmcp_fixes::tasks::{CALL, LIST_TOOLS, PREFIX};
use super::tasks::Outcome;
use super::{McpServer, guard};
use crate::TaskSupport;
use crate::context::Caller;
use crate::mcp::convert::call_result;
use crate::providers::Format;

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
    pub(super) fn runs_tasks(&self) -> bool {
        let tools = self.inner.toolbox.iter();
        tools
            .map(|tool| self.task_support(tool))
            .any(|support| support != TaskSupport::Forbidden)
    }

    /// The answer to a renamed request, or `None` for a method that is not one of them.
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
        let tasks = &self.tasks;
        let answer = match request.method.as_str() {
            CALL => self.start_task(&params, context),
            LIST_TOOLS => Ok(self.listing(caller_of(&context))),
            method => match method.strip_prefix(PREFIX)? {
                "tasks/get" => task_id().and_then(|id| tasks.get(id)),
                "tasks/result" => match task_id() {
                    Ok(id) => tasks.result(id).await,
                    Err(err) => Err(err),
                },
                "tasks/list" => Ok(tasks.list()),
                "tasks/cancel" => task_id().and_then(|id| tasks.cancel(id)),
                _ => return None,
            },
        };
        Some(answer.map(CustomResult))
    }

    /// A `tools/call` with `task`: answers `{"task": ...}` at once, the tool running meanwhile
    /// with a context that `tasks/cancel` (or the session's end) cancels.
    fn start_task(
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
        let tool = tool.into_owned();
        let ttl = params["task"]["ttl"].as_u64();
        let created = self.tasks.create(ttl, context.peer.clone())?;
        let mut context = context;
        context.ct = created.cancel.clone();
        // The task holds its session's store weakly: when the session ends, the store goes and
        // cancels its running tasks.
        let tasks = Arc::downgrade(&self.tasks);
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
        tokio::spawn(async move {
            let tool_call = server.tool_call(&tool, request.arguments);
            let call = server.call(&tool, &tool_call, &context);
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
        Ok(json!({"task": created.task}))
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
