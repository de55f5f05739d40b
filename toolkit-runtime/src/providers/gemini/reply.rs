//! A `GenerateContentResponse` read: the first candidate's text and `functionCall` parts, its
//! `finishReason`, and `usageMetadata`. One reader serves whole replies and stream chunks.

use serde_json::Value;

use super::API;
use crate::ToolCall;
use crate::chat::decode::At;
use crate::chat::{FinishReason, ModelError, ModelReply, Usage};

/// A whole `GenerateContentResponse` read into a reply. A prompt Gemini blocked
/// (`promptFeedback.blockReason`, no candidates) is a [`ModelError::Decode`] naming the reason.
/// A call Gemini sent without an `id` gets a local one (`gemini-local-` and its position), which
/// a request never sends back.
///
/// ```
/// use toolkit_runtime::chat::FinishReason;
/// use toolkit_runtime::providers::gemini;
/// use toolkit::prelude::*;
///
/// let body = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]},
///     "finishReason": "STOP", "index": 0}],
///     "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1, "totalTokenCount": 4}});
/// let reply = gemini::read_reply(&body).unwrap();
/// assert_eq!((reply.text.as_deref(), reply.finish), (Some("Hi"), FinishReason::Stop));
/// ```
pub fn read_reply(body: &Value) -> Result<ModelReply, ModelError> {
    let mut chunk = read_chunk(body)?;
    super::call_id::name_unnamed(&mut chunk.calls, 0);
    let finish = finish_reason(chunk.finish.as_deref(), !chunk.calls.is_empty());
    Ok(ModelReply {
        text: chunk.text,
        tool_calls: chunk.calls,
        finish,
        usage: chunk.usage,
        refused_calls: Vec::new(),
    })
}

/// What one response (or stream chunk) holds.
pub(super) struct Chunk {
    pub(super) text: Option<String>,
    pub(super) calls: Vec<ToolCall>,
    pub(super) finish: Option<String>,
    pub(super) usage: Option<Usage>,
}

pub(super) fn read_chunk(body: &Value) -> Result<Chunk, ModelError> {
    let root = At::root(API, body);
    if let Some(error) = body.get("error") {
        return Err(root.error(&format!("reports an error: {error}")));
    }
    let candidates = root.get("candidates").items_or_none()?;
    let usage = usage(&root.get("usageMetadata"))?;
    let Some(candidate) = candidates.first() else {
        if let Some(reason) = root.get("promptFeedback").get("blockReason").opt_str()? {
            return Err(root.error(&format!("says the prompt was blocked ({reason})")));
        }
        // A stream's last chunk may carry usage only.
        return Ok(Chunk {
            text: None,
            calls: Vec::new(),
            finish: None,
            usage,
        });
    };
    let mut text: Option<String> = None;
    let mut calls = Vec::new();
    for part in candidate.get("content").get("parts").items_or_none()? {
        // A thought summary is the model's reasoning, not its answer.
        if part.get("thought").raw() == Some(&Value::Bool(true)) {
            continue;
        }
        if let Some(piece) = part.get("text").opt_str()? {
            text.get_or_insert_with(String::new).push_str(piece);
        }
        let call = part.get("functionCall");
        if !call.is_null() {
            let args = call.get("args").raw().cloned().unwrap_or(Value::Null);
            let args = match args {
                Value::Null => Value::Object(Default::default()),
                other => other,
            };
            let mut read = ToolCall::new(call.get("name").str()?, args);
            read.id = call.get("id").opt_str()?.map(str::to_owned);
            calls.push(read);
        }
    }
    Ok(Chunk {
        text,
        calls,
        finish: candidate.get("finishReason").opt_str()?.map(str::to_owned),
        usage,
    })
}

/// `STOP` (or `ToolCalls` when it called functions), `MAX_TOKENS`, the safety reasons, or
/// another reason as Gemini spelled it.
pub(super) fn finish_reason(reason: Option<&str>, calls: bool) -> FinishReason {
    match reason {
        _ if calls => FinishReason::ToolCalls,
        Some("STOP") | None => FinishReason::Stop,
        Some("MAX_TOKENS") => FinishReason::Length,
        Some(
            "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY",
        ) => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

/// `usageMetadata`: the prompt's tokens in, the candidates' and thoughts' tokens out.
fn usage(usage: &At<'_>) -> Result<Option<Usage>, ModelError> {
    if usage.is_null() {
        return Ok(None);
    }
    Ok(Some(Usage {
        input_tokens: usage.get("promptTokenCount").count()?,
        output_tokens: usage.get("candidatesTokenCount").count()?
            + usage.get("thoughtsTokenCount").count()?,
    }))
}
