//! A whole Responses reply read: the `output` items (messages, function calls), the status
//! and usage.

use serde_json::Value;

use super::API;
use crate::ToolCall;
use crate::chat::decode::At;
use crate::chat::{FinishReason, ModelError, ModelReply, RefusedCall, Usage};
use crate::providers::arguments::call_arguments;

/// A whole response object read into a reply: the text of its `message` items' `output_text`
/// (and `refusal`) parts, its `function_call` items as calls (paired by `call_id`), the finish
/// reason from `status` and `incomplete_details`, and `usage`. A `failed` response, or one
/// with an `error`, is a [`ModelError::Decode`] carrying the provider's message; a call that
/// cannot be read is refused.
///
/// ```
/// use toolkit_runtime::chat::FinishReason;
/// use toolkit_runtime::providers::responses;
/// use toolkit::prelude::*;
///
/// let body = json!({"status": "completed", "output": [{"type": "message", "role": "assistant",
///     "content": [{"type": "output_text", "text": "Hi", "annotations": []}]}],
///     "usage": {"input_tokens": 3, "output_tokens": 1, "total_tokens": 4}});
/// let reply = responses::read_reply(&body).unwrap();
/// assert_eq!((reply.text.as_deref(), reply.finish), (Some("Hi"), FinishReason::Stop));
/// ```
pub fn read_reply(body: &Value) -> Result<ModelReply, ModelError> {
    let root = At::root(API, body);
    failed(&root)?;
    let mut text: Option<String> = None;
    let mut tool_calls = Vec::new();
    let mut refused_calls = Vec::new();
    for item in root.get("output").items()? {
        match item.get("type").str()? {
            "message" => {
                for part in item.get("content").items_or_none()? {
                    let piece = match part.get("type").str()? {
                        "output_text" => part.get("text").str()?,
                        "refusal" => part.get("refusal").str()?,
                        _ => continue,
                    };
                    text.get_or_insert_with(String::new).push_str(piece);
                }
            }
            "function_call" => match function_call(&item) {
                Ok(call) => tool_calls.push(call),
                Err(error) => {
                    let name = item
                        .get("name")
                        .opt_str()
                        .ok()
                        .flatten()
                        .unwrap_or("unnamed_call");
                    let mut call = ToolCall::new(name, Value::Null);
                    call.id = item
                        .get("call_id")
                        .opt_str()
                        .ok()
                        .flatten()
                        .map(str::to_owned);
                    refused_calls.push(RefusedCall::new(call, error.to_string()));
                }
            },
            // Reasoning, web search and other built-in tools' items carry nothing to keep.
            _ => {}
        }
    }
    let finish = finish_reason(&root, !tool_calls.is_empty() || !refused_calls.is_empty())?;
    Ok(ModelReply {
        text,
        tool_calls,
        finish,
        usage: usage(&root.get("usage"))?,
        refused_calls,
    })
}

/// A `function_call` item: `call_id`, `name` and `arguments` (JSON text).
fn function_call(item: &At<'_>) -> Result<ToolCall, ModelError> {
    let arguments = call_arguments(item.get("arguments").str()?);
    let mut call = ToolCall::new(item.get("name").str()?, arguments);
    call.id = Some(item.get("call_id").str()?.to_owned());
    Ok(call)
}

/// The error of a `failed` response (or any response with an `error`), as the provider
/// phrased it.
pub(super) fn failed(response: &At<'_>) -> Result<(), ModelError> {
    let error = response.get("error");
    if error.is_null() && response.get("status").opt_str()? != Some("failed") {
        return Ok(());
    }
    let message = error
        .get("message")
        .opt_str()
        .ok()
        .flatten()
        .unwrap_or("no message");
    let code = error
        .get("code")
        .opt_str()
        .ok()
        .flatten()
        .unwrap_or("unknown");
    Err(response.error(&format!("reports a failed response ({code}): {message}")))
}

/// `completed` is `Stop` (or `ToolCalls` when it asked for calls); `incomplete` says why in
/// `incomplete_details.reason`.
pub(super) fn finish_reason(response: &At<'_>, calls: bool) -> Result<FinishReason, ModelError> {
    let status = response.get("status").opt_str()?;
    Ok(match status {
        Some("incomplete") => match response.get("incomplete_details").get("reason").opt_str()? {
            Some("max_output_tokens") => FinishReason::Length,
            Some("content_filter") => FinishReason::ContentFilter,
            other => FinishReason::Other(other.unwrap_or("incomplete").to_owned()),
        },
        _ if calls => FinishReason::ToolCalls,
        Some("completed") | None => FinishReason::Stop,
        Some(other) => FinishReason::Other(other.to_owned()),
    })
}

pub(super) fn usage(usage: &At<'_>) -> Result<Option<Usage>, ModelError> {
    if usage.is_null() {
        return Ok(None);
    }
    Ok(Some(Usage {
        input_tokens: usage.get("input_tokens").count()?,
        output_tokens: usage.get("output_tokens").count()?,
    }))
}
