//! A whole Messages reply read: text blocks joined, `tool_use` blocks read by `call`, the stop
//! reason and usage.

use serde_json::Value;

use super::API;
use super::call::{read_tool_use, tool_use_block};
use crate::chat::decode::At;
use crate::chat::{FinishReason, ModelError, ModelReply, Usage};

/// A whole Messages response read into a reply; a `tool_use` block that cannot be read is
/// refused (kept in [`ModelReply::refused_calls`] with why), and the others are kept. A body
/// that is not a Messages response is a [`ModelError::Decode`] naming the field.
///
/// The reply is not capped; [`ModelReply::capped_by`] caps it.
///
/// ```
/// use toolkit_runtime::chat::FinishReason;
/// use toolkit_runtime::providers::anthropic;
/// use toolkit::prelude::*;
///
/// let body = json!({"content": [{"type": "tool_use", "id": "t1", "name": "add",
///     "input": {"a": 1}}], "stop_reason": "tool_use"});
/// let reply = anthropic::read_reply(&body).unwrap();
/// assert_eq!(reply.tool_calls, [ToolCall::new("add", json!({"a": 1})).with_id("t1")]);
/// assert_eq!(reply.finish, FinishReason::ToolCalls);
/// ```
pub fn read_reply(body: &Value) -> Result<ModelReply, ModelError> {
    let root = At::root(API, body);
    let mut text: Option<String> = None;
    let mut tool_calls = Vec::new();
    let mut refused_calls = Vec::new();
    for block in root.get("content").items()? {
        match block.get("type").str()? {
            "text" => text
                .get_or_insert_with(String::new)
                .push_str(block.get("text").str()?),
            "tool_use" => {
                let tool_use = tool_use_block(&block);
                match read_tool_use(&tool_use) {
                    Ok(call) => tool_calls.push(call),
                    Err(error) => refused_calls.push(tool_use.refuse(error)),
                }
            }
            // Thinking and other blocks carry nothing the loop acts on.
            _ => {}
        }
    }
    let usage = root.get("usage");
    Ok(ModelReply {
        text,
        tool_calls,
        finish: stop_reason(root.get("stop_reason").opt_str()?),
        usage: match usage.is_null() {
            true => None,
            false => Some(Usage {
                input_tokens: usage.get("input_tokens").count()?,
                output_tokens: usage.get("output_tokens").count()?,
            }),
        },
        refused_calls,
    })
}

pub(super) fn stop_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        Some("end_turn" | "stop_sequence") | None => FinishReason::Stop,
        Some("tool_use") => FinishReason::ToolCalls,
        Some("max_tokens") => FinishReason::Length,
        Some("refusal") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}
