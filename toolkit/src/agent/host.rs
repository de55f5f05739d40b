//! The agent's side of a tool's context: what a tool reports becomes an [`AgentEvent`], a
//! sampling request goes to the agent's model, and an elicitation to the `on_elicit` handler.

use std::sync::Arc;

use tracing::Instrument;

use super::link::RunLink;
use super::{AgentEvent, ElicitFn};
use crate::ToolContext;
use crate::context::{
    ContextError, ElicitationAnswer, ElicitationRequest, LogLevel, Progress, SamplingReply,
    SamplingRequest, ToolHost,
};
use crate::models::sampling::sample;
use crate::models::{BoxFuture, ChatModel};

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
        if self.link.listens() {
            self.link.emit(AgentEvent::ToolProgress {
                step: self.step,
                call_id: ctx.call_id().unwrap_or_default().to_owned(),
                tool: ctx.tool_name().to_owned(),
                progress,
            });
        }
    }

    fn log(&self, ctx: &ToolContext, level: LogLevel, message: &str) {
        if self.link.listens() {
            self.link.emit(AgentEvent::ToolLog {
                step: self.step,
                call_id: ctx.call_id().unwrap_or_default().to_owned(),
                tool: ctx.tool_name().to_owned(),
                level,
                message: message.to_owned(),
            });
        }
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
        let asked = async move {
            let reply = sample(&*self.model, request).await;
            reply.map_err(|e| ContextError::Failed(format!("the agent's sampling failed: {e}")))
        };
        Box::pin(asked.instrument(span))
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
