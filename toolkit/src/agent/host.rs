//! The agent's side of a tool's context: what a tool reports becomes an [`AgentEvent`], a
//! sampling request goes to the agent's model, and an elicitation to the `on_elicit` handler.

use std::sync::Arc;

use tracing::Instrument;

use super::link::RunLink;
use super::{AgentEvent, ElicitFn};
use crate::context::{
    ContextError, ElicitationAnswer, ElicitationRequest, LogLevel, Progress, Role, SamplingMessage,
    SamplingReply, SamplingRequest, ToolHost,
};
use crate::models::{BoxFuture, ChatModel, ChatOptions, ChatRequest, FinishReason, Message};
use crate::providers::ToolDefinitions;
use crate::{Content, ToolContext};

/// The host of one step's tool calls. A step gets its own, so the events it sends carry the
/// step; what it holds is shared with the agent.
pub(super) struct AgentHost {
    pub(super) step: usize,
    pub(super) link: Arc<RunLink>,
    pub(super) model: Arc<dyn ChatModel>,
    pub(super) on_elicit: Option<Arc<ElicitFn>>,
}

impl ToolHost for AgentHost {
    fn progress(&self, ctx: &ToolContext, progress: Progress) {
        self.link.emit(&AgentEvent::ToolProgress {
            step: self.step,
            call_id: ctx.call_id().unwrap_or_default(),
            tool: ctx.tool_name(),
            progress: &progress,
        });
    }

    fn log(&self, ctx: &ToolContext, level: LogLevel, message: &str) {
        self.link.emit(&AgentEvent::ToolLog {
            step: self.step,
            call_id: ctx.call_id().unwrap_or_default(),
            tool: ctx.tool_name(),
            level,
            message,
        });
    }

    fn sample<'a>(
        &'a self,
        ctx: &'a ToolContext,
        request: SamplingRequest,
    ) -> BoxFuture<'a, Result<SamplingReply, ContextError>> {
        let span = tracing::info_span!(
            "agent.sampling",
            tool = ctx.tool_name(),
            model = self.model.name()
        );
        Box::pin(sample(&*self.model, request).instrument(span))
    }

    fn elicit<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        request: ElicitationRequest,
    ) -> BoxFuture<'a, Result<ElicitationAnswer, ContextError>> {
        match &self.on_elicit {
            // Nobody to ask: the user cannot have agreed.
            None => Box::pin(std::future::ready(Ok(ElicitationAnswer::Decline))),
            Some(handler) => {
                let answer = handler(request);
                Box::pin(async move { Ok(answer.await) })
            }
        }
    }
}

/// Asks `model` a tool's sampling request: its messages (text only) after its system prompt,
/// no tools, its token bound and temperature; the reply's text comes back.
async fn sample(
    model: &dyn ChatModel,
    request: SamplingRequest,
) -> Result<SamplingReply, ContextError> {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    messages.extend(request.system_prompt.map(Message::system));
    for (position, message) in request.messages.into_iter().enumerate() {
        messages.push(chat_message(position, message)?);
    }
    let options = ChatOptions {
        temperature: request.temperature.map(|t| t as f32),
        max_tokens: Some(request.max_tokens),
        ..ChatOptions::default()
    };
    let chat = ChatRequest::new(&messages, ToolDefinitions::none(), &options);
    let reply = model
        .chat(chat)
        .await
        .map_err(|e| ContextError::Failed(format!("the agent's model failed: {e}")))?
        .capped_by(&options);
    Ok(SamplingReply {
        role: Role::Assistant,
        content: Content::text(reply.text.unwrap_or_default()),
        model: model.name().to_owned(),
        stop_reason: Some(mcp_stop_reason(&reply.finish)),
    })
}

/// A sampling message as a chat message. The agent's messages carry text only, so an image or
/// audio message is refused rather than dropped: the model would answer without it.
fn chat_message(position: usize, message: SamplingMessage) -> Result<Message, ContextError> {
    let Content::Text(text) = message.content else {
        return Err(ContextError::Failed(format!(
            "sampling message {position} is not text, and the agent's model is sent text only"
        )));
    };
    Ok(match message.role {
        Role::User => Message::user(text.text),
        Role::Assistant => Message::assistant(text.text),
    })
}

/// MCP's name for why the model stopped.
fn mcp_stop_reason(finish: &FinishReason) -> String {
    match finish {
        FinishReason::Stop => "endTurn".into(),
        FinishReason::Length => "maxTokens".into(),
        FinishReason::ToolCalls => "toolUse".into(),
        FinishReason::ContentFilter => "contentFilter".into(),
        FinishReason::Other(reason) => reason.clone(),
    }
}
