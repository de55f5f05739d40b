//! A sampling request answered by a [`ChatModel`]: the one behaviour of a tool's
//! [`ToolContext::sample`](crate::ToolContext::sample) inside an agent's run and of a server's
//! `sampling/createMessage` to an MCP client built with `sampling_model`.

use super::{ChatModel, ChatOptions, ChatRequest, FinishReason, Message};
use crate::Content;
use crate::context::{Role, SamplingMessage, SamplingReply, SamplingRequest};
use crate::providers::ToolDefinitions;

/// Asks `model` a sampling request: its system prompt, then its messages (text only), no
/// tools, its token bound and temperature; the reply's text comes back, held to the caps once,
/// with MCP's name for why the model stopped. Why there is no reply is the error.
pub(crate) async fn sample(
    model: &dyn ChatModel,
    request: SamplingRequest,
) -> Result<SamplingReply, String> {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    messages.extend(request.system_prompt.map(Message::system));
    for (position, message) in request.messages.into_iter().enumerate() {
        messages.push(chat_message(position, message)?);
    }
    let options = ChatOptions {
        // f32 is the model API's own precision.
        #[allow(clippy::cast_possible_truncation)]
        temperature: request.temperature.map(|t| t as f32),
        max_tokens: Some(request.max_tokens),
        ..ChatOptions::default()
    };
    let chat = ChatRequest::new(&messages, ToolDefinitions::none(), &options);
    let reply = (model.chat(chat).await).map_err(|e| format!("the model failed: {e}"))?;
    let reply = match model.caps_replies() {
        true => reply,
        false => reply.capped_by(&options),
    };
    Ok(SamplingReply {
        role: Role::Assistant,
        content: Content::text(reply.text.unwrap_or_default()),
        model: model.name().to_owned(),
        stop_reason: Some(mcp_stop_reason(&reply.finish)),
    })
}

/// A sampling message as a chat message. A chat model's messages carry text only, so an image,
/// audio or resource message is refused rather than dropped or described: the model would
/// answer as if it had seen it.
fn chat_message(position: usize, message: SamplingMessage) -> Result<Message, String> {
    let text = match message.content {
        Content::Text(text) => text.text,
        other => {
            let kind = match other {
                Content::Image(_) => "an image",
                Content::Audio(_) => "audio",
                Content::Resource(_) => "a resource",
                Content::ResourceLink(_) => "a resource link",
                Content::Text(_) => "text",
            };
            return Err(format!(
                "sampling message {position} is {kind}, and the model is sent text only"
            ));
        }
    };
    Ok(match message.role {
        Role::User => Message::user(text),
        Role::Assistant => Message::assistant(text),
    })
}

/// MCP's name for why the model stopped: its own three, else the provider's reason.
fn mcp_stop_reason(finish: &FinishReason) -> String {
    match finish {
        FinishReason::Stop => "endTurn".into(),
        FinishReason::Length => "maxTokens".into(),
        FinishReason::ToolCalls => "toolUse".into(),
        FinishReason::ContentFilter => "contentFilter".into(),
        FinishReason::Other(reason) => reason.clone(),
    }
}
