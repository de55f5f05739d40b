//! `prompts/get` of a prompt that may ask the client ([`PromptProxy::from_context_fn`]): its
//! body gets a context as a tool's does, and for a client of MCP 2026-07-28 a question ends
//! its run with `input_required`, answered by the retried `prompts/get` through the same
//! rounds as a `tools/call`'s ([`input_required`](super::input_required)).

use rmcp::model::GetPromptResponse;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Map, Value};
use toolkit_runtime::PromptProxy;

use super::McpServer;
use super::catalog::Offerings;
use super::host;
use super::input_required::Retry;
use crate::ToolCall;

impl McpServer {
    /// `prompts/get` of the prompt `name` with `args`, `retry` the answers and state a
    /// 2026-07-28 client sent back.
    pub(super) async fn fill_prompt(
        &self,
        name: &str,
        args: Map<String, Value>,
        context: &RequestContext<RoleServer>,
        retry: Retry,
    ) -> Result<GetPromptResponse, ErrorData> {
        let prompt = self.inner.catalog.prompt(name)?;
        if !prompt.takes_context() {
            return prompt_answer(prompt, prompt.get(args).await);
        }
        // The state is bound as a call's is, under a name no tool has.
        let call = ToolCall::new(format!("prompts/get {name}"), Value::Object(args.clone()));
        let rounds = retry.rounds(&self.inner.request_state, context, &call)?;
        let filled = prompt.get(args);
        let (session, data) = (&self.session, &self.inner.data);
        let Some(rounds) = rounds else {
            let messages = host::run_call(context, session, data, name, None, filled).await;
            return prompt_answer(prompt, messages);
        };
        match host::run_rounds(context, session, data, name, &rounds, filled).await {
            None => rounds.ended().map(GetPromptResponse::from),
            Some(messages) => match rounds.required(name, messages.is_err()) {
                Some(refused) => Err(refused),
                None => prompt_answer(prompt, messages),
            },
        }
    }
}

fn prompt_answer(
    prompt: &PromptProxy,
    messages: Result<Vec<toolkit_runtime::PromptMessage>, toolkit_runtime::RequestError>,
) -> Result<GetPromptResponse, ErrorData> {
    Offerings::prompt_result(prompt, messages).map(GetPromptResponse::from)
}
