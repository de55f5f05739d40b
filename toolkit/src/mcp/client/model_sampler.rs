//! A [`ChatModel`] answering a server's sampling requests.

use std::sync::Arc;

use super::handlers::SamplingHandler;
use crate::Content;
use crate::context::{Role, SamplingReply, SamplingRequest};
use crate::models::{ChatModel, ChatOptions, ChatRequest, FinishReason, Message};
use crate::providers::ToolDefinitions;
use toolkit_runtime::BoxFuture;

/// Samples with a chat model: the request's messages as its conversation (a non-text block as
/// a note naming it, since the model's messages carry text), no tools, the request's token
/// bound and temperature.
pub(super) struct ModelSampler(pub(super) Arc<dyn ChatModel>);

impl SamplingHandler for ModelSampler {
    fn sample(&self, request: SamplingRequest) -> BoxFuture<'_, Result<SamplingReply, String>> {
        Box::pin(async move {
            let messages = messages(&request);
            let options = ChatOptions {
                max_tokens: Some(request.max_tokens),
                // f32 is the model API's own precision.
                #[allow(clippy::cast_possible_truncation)]
                temperature: request.temperature.map(|temperature| temperature as f32),
                ..ChatOptions::default()
            };
            let chat = ChatRequest::new(&messages, ToolDefinitions::none(), &options);
            let reply = self.0.chat(chat).await.map_err(|err| err.to_string())?;
            let stop_reason = match reply.finish {
                FinishReason::Stop => "endTurn",
                FinishReason::Length => "maxTokens",
                FinishReason::ToolCalls => "toolUse",
                FinishReason::ContentFilter | FinishReason::Other(_) => "other",
            };
            Ok(SamplingReply {
                role: Role::Assistant,
                content: Content::text(reply.text.unwrap_or_default()),
                model: self.0.name().to_owned(),
                stop_reason: Some(stop_reason.to_owned()),
            })
        })
    }
}

/// The request as a conversation.
fn messages(request: &SamplingRequest) -> Vec<Message> {
    let system = request.system_prompt.iter().map(Message::system);
    let said = request.messages.iter().map(|message| {
        let text = match &message.content {
            Content::Text(text) => text.text.clone(),
            other => note(other),
        };
        match message.role {
            Role::User => Message::user(text),
            Role::Assistant => Message::assistant(text),
        }
    });
    system.chain(said).collect()
}

/// What stands in for a block a text conversation cannot carry.
fn note(content: &Content) -> String {
    match content {
        Content::Image(image) => format!("[an image, {}]", image.mime_type),
        Content::Audio(audio) => format!("[audio, {}]", audio.mime_type),
        Content::Resource(resource) => format!("[the resource {}]", resource.resource.uri),
        Content::ResourceLink(link) => format!("[a link to {}]", link.uri),
        Content::Text(text) => text.text.clone(),
    }
}
