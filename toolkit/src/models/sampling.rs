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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Image;
    use crate::models::{ModelReply, ScriptedModel};

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        let runtime = tokio::runtime::Builder::new_current_thread().build();
        runtime.expect("a runtime").block_on(future)
    }

    #[test]
    fn a_model_is_asked_the_system_prompt_and_messages_and_its_stop_reason_is_mcps() {
        let model = ScriptedModel::from_fn(|request| {
            let said: Vec<String> = (request.messages.iter())
                .map(|m| serde_json::to_string(m).unwrap_or_default())
                .collect();
            assert_eq!(request.options.max_tokens, Some(64));
            let mut reply = ModelReply::text(format!("{} messages", said.len()));
            reply.finish = FinishReason::Length;
            Ok(reply)
        });
        let request = SamplingRequest::new("Summarise")
            .system("Be brief.")
            .max_tokens(64);
        let reply = block_on(sample(&model, request)).expect("a reply");
        assert_eq!(reply.text(), Some("2 messages"));
        assert_eq!(reply.stop_reason.as_deref(), Some("maxTokens"));
        assert_eq!(reply.model, "scripted");
    }

    #[test]
    fn a_message_a_text_model_cannot_read_is_refused_not_dropped() {
        let model = ScriptedModel::new([ModelReply::text("never")]);
        let request =
            SamplingRequest::new("Look").message(Role::User, Content::Image(Image::png([1, 2])));
        let error = block_on(sample(&model, request)).unwrap_err();
        assert_eq!(
            error,
            "sampling message 1 is an image, and the model is sent text only"
        );
        assert_eq!(model.calls(), 0);
    }
}
