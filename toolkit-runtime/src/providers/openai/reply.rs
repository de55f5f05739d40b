//! A whole Chat Completions reply read: text, tool calls (each read by `call`), the finish
//! reason and usage.

use serde_json::Value;

use super::API;
use super::call::{chat_completions_call, read_chat_completions_call};
use crate::chat::decode::At;
use crate::chat::{FinishReason, ModelError, ModelReply, Usage};

/// A whole Chat Completion read into a reply; a call that cannot be read is refused (kept in
/// [`ModelReply::refused_calls`] with why), and the others are kept. A body that is not a Chat
/// Completion is a [`ModelError::Decode`] naming the field.
///
/// The reply is not capped; [`ModelReply::capped_by`] caps it.
///
/// ```
/// use toolkit_runtime::chat::FinishReason;
/// use toolkit_runtime::providers::openai;
/// use toolkit::prelude::*;
///
/// let body = json!({"choices": [{"message": {"role": "assistant", "content": "Hi"},
///     "finish_reason": "stop"}]});
/// let reply = openai::read_reply(&body).unwrap();
/// assert_eq!((reply.text.as_deref(), reply.finish), (Some("Hi"), FinishReason::Stop));
/// let error = openai::read_reply(&json!({"choices": []})).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "the response body is not a valid OpenAI Chat Completions response: `choices` is empty"
/// );
/// ```
pub fn read_reply(body: &Value) -> Result<ModelReply, ModelError> {
    let root = At::root(API, body);
    let choices = root.get("choices").items()?;
    let choice = choices
        .first()
        .ok_or_else(|| root.get("choices").error("is empty"))?;
    let message = choice.get("message");
    message.value()?;
    let mut tool_calls = Vec::new();
    let mut refused_calls = Vec::new();
    for call in message.get("tool_calls").items_or_none()? {
        let call = chat_completions_call(&call);
        match read_chat_completions_call(&call) {
            Ok(read) => tool_calls.push(read),
            Err(error) => refused_calls.push(call.refuse(error)),
        }
    }
    Ok(ModelReply {
        text: message.get("content").opt_str()?.map(str::to_owned),
        tool_calls,
        finish: finish_reason(choice.get("finish_reason").opt_str()?),
        usage: usage(&root.get("usage"))?,
        refused_calls,
    })
}

pub(super) fn finish_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        Some("stop") | None => FinishReason::Stop,
        Some("tool_calls" | "function_call") => FinishReason::ToolCalls,
        Some("length") => FinishReason::Length,
        Some("content_filter") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

pub(super) fn usage(usage: &At<'_>) -> Result<Option<Usage>, ModelError> {
    if usage.is_null() {
        return Ok(None);
    }
    Ok(Some(Usage {
        input_tokens: usage.get("prompt_tokens").count()?,
        output_tokens: usage.get("completion_tokens").count()?,
    }))
}
