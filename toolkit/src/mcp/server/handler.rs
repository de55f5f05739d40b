//! The rmcp [`ServerHandler`] impl of [`McpServer`]: each MCP request rmcp has read, answered
//! from the server's toolbox, catalog and session state. Kept apart from the server's
//! construction and settings (`mod.rs`) because it is the protocol surface, method by method.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, CustomRequest, CustomResult, ErrorCode, GetPromptRequestParams,
    GetPromptResponse, GetTaskParams, GetTaskResult, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams,
    UpdateTaskParams,
};
// Deprecated by rmcp for the revision after MCP 2025-11-25 (SEP-2577); served while clients use it.
#[allow(deprecated)]
use rmcp::model::SetLevelRequestParams;
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::auth::{caller_of, may_use};
use super::input_required::{Ended, Retry};
use super::{McpServer, guard, notifier, rmcp_fixes};

/// Why a call ends as `Cancelled` when its client cancels it.
const CANCELLED: &str = "the client sent notifications/cancelled";

impl ServerHandler for McpServer {
    // `enable_logging`: deprecated by rmcp for the revision after MCP 2025-11-25 (SEP-2577).
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_logging()
            .build();
        self.inner.catalog.declare(&mut capabilities);
        self.declare_tasks(&mut capabilities);
        let config = ServerConfig::new(capabilities).with_server_info(self.inner.info.clone());
        match &self.inner.instructions {
            Some(instructions) => config.with_instructions(instructions.clone()),
            None => config,
        }
    }

    /// The handshake, negotiated by rmcp, without the Tasks extension: it is MCP
    /// 2026-07-28's, and a handshake-era client calls every tool plainly.
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let mut answer = self.negotiate_initialize(&request)?;
        Self::undeclare_tasks(&mut answer.capabilities);
        Ok(answer)
    }

    /// Every tool, or for a caller verified by a token, those whose scopes it holds.
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let listed = match caller_of(&context) {
            None => self.inner.listed.clone(),
            caller => (self.inner.toolbox.iter())
                .zip(&self.inner.listed)
                .filter(|(tool, _)| may_use(caller, tool))
                .map(|(_, listed)| listed.clone())
                .collect(),
        };
        let cached = self.inner.list_caching.of(&context);
        Ok(cached.apply(ListToolsResult::with_all_items(listed)))
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let retry = Retry::new(request.input_responses.take(), request.request_state.take());
        let place = guard::CallPlace::of(&context.extensions);
        let resolved = self.resolve(&request.name, caller_of(&context));
        if let Ok(tool) = &resolved
            && let Some(support) = self.as_task(tool, &context)
        {
            let answer = self.call_as_task(tool, request.arguments, support?, context);
            return answer.await;
        }
        // Not a task (a handshake-era client's call, which has no tasks, a task-only tool's
        // included): a plain call.
        // `notifications/cancelled` cancels `ct`: the call's future is dropped here (a sync
        // tool's context is cancelled with it), its end reported to the toolbox's hooks as
        // `Cancelled`, and rmcp sends no answer for the request.
        let answer = match resolved {
            Err(refused) => Err(refused),
            Ok(tool) => {
                let call = self.tool_call(&tool, request.arguments);
                let ended = tokio::select! {
                    biased;
                    () = context.ct.cancelled() => {
                        let toolbox = &self.inner.toolbox;
                        Ended::Answered(toolbox.cancelled(&tool, &call, CANCELLED))
                    }
                    ended = self.call_in_rounds(&tool, &call, &context, retry) => ended,
                };
                ended.call_response(tool.tool())
            }
        };
        if let Some(place) = place {
            place.release();
        }
        answer
    }

    /// The lowest level of the log messages the tools send this client (`notifications/message`).
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session.set_level(request.level);
        Ok(())
    }

    /// rmcp reads a request whose params do not fit its method's type as a custom request, and
    /// would answer "method not found"; for the methods served here, the params are what is
    /// wrong.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let version = context.protocol_version();
        match rmcp_fixes::params::invalid_params(&request, version.as_ref()) {
            Some(problem) => Err(ErrorData::invalid_params(problem, None)),
            None => Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                request.method,
                None,
            )),
        }
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if !self.stateless {
            self.inner.notifier.join(self.session_id, &context.peer);
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cached = self.inner.list_caching.of(&context);
        self.inner
            .catalog
            .list_resources()
            .map(|list| cached.apply(list))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let cached = self.inner.list_caching.of(&context);
        self.inner
            .catalog
            .list_templates()
            .map(|list| cached.apply(list))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let read = self.inner.catalog.read(&request.uri).await;
        read.map(ReadResourceResponse::from)
    }

    /// Remembers that this session wants `notifications/resources/updated` for the URI.
    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscribe_session(request.uri, &context.peer)
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner
            .notifier
            .unsubscribe(self.session_id, &request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let cached = self.inner.list_caching.of(&context);
        self.inner
            .catalog
            .list_prompts()
            .map(|list| cached.apply(list))
    }

    /// A `subscriptions/listen` stream (MCP 2026-07-28) may ask for every change this server
    /// tells of, within the bounds a session's subscriptions have; rmcp narrows it to what
    /// [`get_info`](Self::get_info) declares and acknowledges it.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(notifier::bounded(requested))
    }

    /// Keeps the stream among the [`ServerNotifier`](super::ServerNotifier)'s until its client
    /// closes it.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let _listening = self.inner.notifier.listen(context.sink().clone());
        context.cancelled().await;
        Ok(())
    }

    async fn get_prompt(
        &self,
        mut request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let retry = Retry::new(request.input_responses.take(), request.request_state.take());
        let args = request.arguments.unwrap_or_default();
        self.fill_prompt(&request.name, args, &context, retry).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.inner.catalog.complete(request).await
    }

    /// The Tasks extension's `tasks/get` (MCP 2026-07-28).
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.task_status(&request, &context)
    }

    /// The Tasks extension's `tasks/update` (MCP 2026-07-28).
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.update_task_of(request, &context)
    }

    /// The Tasks extension's `tasks/cancel` (MCP 2026-07-28).
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.cancel_task_of(&request, &context)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let index = self.inner.toolbox.index_of(name)?;
        self.inner.listed.get(index).cloned()
    }
}
