//! The rmcp [`ServerHandler`] impl of [`McpServer`]: each MCP request rmcp has read, answered
//! from the server's toolbox, catalog and session state. Kept apart from the server's
//! construction and settings (`mod.rs`) because it is the protocol surface, method by method.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, CustomRequest,
    CustomResult, ErrorCode, GetPromptRequestParams, GetPromptResponse, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, Tool, UnsubscribeRequestParams,
};
// Deprecated by rmcp for the revision after MCP 2025-11-25 (SEP-2577); served while clients use it.
#[allow(deprecated)]
use rmcp::model::SetLevelRequestParams;
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::auth::{caller_of, may_use};
use super::input_required::{Ended, Retry};
use super::{McpServer, guard, rmcp_fixes};
use crate::TaskSupport;

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
        let config = ServerConfig::new(capabilities).with_server_info(self.inner.info.clone());
        match &self.inner.instructions {
            Some(instructions) => config.with_instructions(instructions.clone()),
            None => config,
        }
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
        Ok(ListToolsResult::with_all_items(listed))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let retry = Retry::new(request.input_responses, request.request_state);
        let place = guard::CallPlace::of(&context.extensions);
        let resolved = self
            .resolve(&request.name, caller_of(&context))
            .and_then(|tool| match self.task_support(tool.tool()) {
                // The spec's answer to a plain call of a tool that runs as a task only.
                TaskSupport::Required => Err(ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    format!("{} runs as a task only: call it with `task`", request.name),
                    None,
                )),
                _ => Ok(tool),
            });
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
        if let Some(answer) = self.task_request(&request, context).await {
            return answer;
        }
        match rmcp_fixes::params::invalid_params(&request) {
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
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.inner.catalog.list_resources()
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.inner.catalog.list_templates()
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
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.inner.catalog.list_prompts()
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let catalog = &self.inner.catalog;
        let got = catalog.get_prompt(&request.name, request.arguments).await;
        got.map(GetPromptResponse::from)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.inner.catalog.complete(request).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let index = self.inner.toolbox.index_of(name)?;
        self.inner.listed.get(index).cloned()
    }
}
