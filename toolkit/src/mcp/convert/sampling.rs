//! Sampling both ways: a server's `sampling/createMessage` as the runtime's request and the
//! runtime's reply as MCP's result (the client), and a tool's request as rmcp's and the
//! client's answer as the runtime's reply (the server).

// Sampling is deprecated by rmcp for the revision after MCP 2025-11-25 (SEP-2577); converted
// while clients use it.
#![allow(deprecated)]

use rmcp::model::{CreateMessageRequestParams, CreateMessageResult};
use serde_json::{Value, json};

use crate::Content;
use crate::context::{ContextError, Role, SamplingMessage, SamplingReply, SamplingRequest};

/// The token bound of a request that names none (MCP requires one; the runtime's default).
const DEFAULT_MAX_TOKENS: u32 = 1024;

/// A server's `sampling/createMessage` as the runtime's request. Read through JSON, so every
/// shape the protocol allows (one content block or a list) is read the same way.
pub(in crate::mcp) fn sampling_request(params: &CreateMessageRequestParams) -> SamplingRequest {
    let value = serde_json::to_value(params).unwrap_or(Value::Null);
    let messages = value["messages"]
        .as_array()
        .map(|messages| messages.iter().map(sampling_message).collect())
        .unwrap_or_default();
    let text = |key: &str| value[key].as_str().map(str::to_owned);
    SamplingRequest {
        messages,
        system_prompt: text("systemPrompt"),
        max_tokens: value["maxTokens"]
            .as_u64()
            .and_then(|max| u32::try_from(max).ok())
            .unwrap_or(DEFAULT_MAX_TOKENS),
        temperature: value["temperature"].as_f64(),
        stop_sequences: serde_json::from_value(value["stopSequences"].clone()).unwrap_or_default(),
        model_preferences: value
            .get("modelPreferences")
            .filter(|preferences| !preferences.is_null())
            .cloned(),
        key: None,
    }
}

/// One message; a list of blocks becomes one block (the runtime's messages hold one): the
/// block itself when there is one, else the text of all of them.
fn sampling_message(message: &Value) -> SamplingMessage {
    let role = match message["role"].as_str() {
        Some("assistant") => Role::Assistant,
        _ => Role::User,
    };
    let content = match &message["content"] {
        Value::Array(blocks) if blocks.len() == 1 => Content::from_value(blocks[0].clone()),
        Value::Array(blocks) => {
            let texts: Vec<String> = blocks
                .iter()
                .map(|block| match Content::from_value(block.clone()) {
                    Content::Text(text) => text.text,
                    _ => block.to_string(),
                })
                .collect();
            Content::text(texts.join("\n"))
        }
        block => Content::from_value(block.clone()),
    };
    SamplingMessage { role, content }
}

/// The runtime's reply as MCP's `CreateMessageResult`.
pub(in crate::mcp) fn create_message_result(
    reply: SamplingReply,
) -> Result<CreateMessageResult, String> {
    let result = json!({
        "model": reply.model,
        "stopReason": reply.stop_reason,
        "role": reply.role,
        "content": reply.content,
    });
    serde_json::from_value(result).map_err(|err| format!("the sampling reply is not valid: {err}"))
}

/// One of our request types as rmcp's, through their shared JSON form.
pub(in crate::mcp) fn rmcp_request<T: serde::de::DeserializeOwned>(
    value: &impl serde::Serialize,
) -> Result<T, ContextError> {
    serde_json::to_value(value)
        .and_then(serde_json::from_value)
        .map_err(|err| ContextError::Failed(format!("the request cannot be sent over MCP: {err}")))
}

/// A client's `sampling/createMessage` answer as the runtime's reply.
pub(in crate::mcp) fn sampling_reply(
    result: CreateMessageResult,
) -> Result<SamplingReply, ContextError> {
    let mut value = serde_json::to_value(&result)
        .map_err(|err| ContextError::InvalidAnswer(err.to_string()))?;
    // A client may answer with several content blocks (SEP-1577); a reply carries the first.
    if let Some(Value::Array(blocks)) = value.get_mut("content") {
        let first = blocks
            .drain(..)
            .next()
            .unwrap_or_else(|| json!({"type": "text", "text": ""}));
        value["content"] = first;
    }
    serde_json::from_value(value).map_err(|err| ContextError::InvalidAnswer(err.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sampling_request_is_read_whatever_the_shape_of_its_content() {
        let params: CreateMessageRequestParams = serde_json::from_value(json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "hi"}},
                {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
                {"role": "user", "content": [{"type": "image", "data": "AQID", "mimeType": "image/png"}]}
            ],
            "systemPrompt": "Be brief.",
            "maxTokens": 50,
            "temperature": 0.5,
            "stopSequences": ["END"]
        }))
        .unwrap();
        let request = sampling_request(&params);
        assert_eq!(request.system_prompt.as_deref(), Some("Be brief."));
        assert_eq!((request.max_tokens, request.temperature), (50, Some(0.5)));
        assert_eq!(request.stop_sequences, ["END"]);
        assert_eq!(request.messages[0].content, Content::text("hi"));
        assert_eq!(request.messages[1].role, Role::Assistant);
        assert_eq!(request.messages[1].content, Content::text("a\nb"));
        assert_eq!(
            request.messages[2].content,
            Content::Image(crate::Image::png([1, 2, 3]))
        );
    }

    #[test]
    fn a_reply_becomes_a_create_message_result() {
        let reply = SamplingReply {
            role: Role::Assistant,
            content: Content::text("done"),
            model: "m".into(),
            stop_reason: Some("endTurn".into()),
        };
        let result = serde_json::to_value(create_message_result(reply).unwrap()).unwrap();
        assert_eq!(
            result,
            json!({"model": "m", "stopReason": "endTurn", "role": "assistant",
                   "content": {"type": "text", "text": "done"}})
        );
    }
}
