//! Chat Completions replies read: a whole response, or a stream whose text deltas are appended
//! and whose tool-call fragments are assembled by index.

use serde_json::Value;

use super::decode::At;
use super::http::StreamAssembler;
use super::sse::SseEvent;
use super::{FinishReason, ModelError, ModelReply, Usage};
use crate::ToolCall;
use crate::providers::parse::repair_arguments;

/// The API's name in errors.
pub(super) const API: &str = "OpenAI Chat Completions";

/// A whole Chat Completion read into a reply.
pub(super) fn read_reply(body: &Value) -> Result<ModelReply, ModelError> {
    let root = At::root(API, body);
    let choices = root.get("choices").items()?;
    let choice = choices
        .first()
        .ok_or_else(|| root.get("choices").error("is empty"))?;
    let message = choice.get("message");
    message.value()?;
    let mut tool_calls = Vec::new();
    for call in message.get("tool_calls").items_or_none()? {
        let function = call.get("function");
        let arguments = function.get("arguments");
        let args = match arguments.value()? {
            Value::String(text) => repair_arguments(text),
            other => other.clone(),
        };
        let id = call.get("id").opt_str()?;
        let mut call = ToolCall::new(function.get("name").str()?, args);
        call.id = id.map(str::to_owned);
        tool_calls.push(call);
    }
    Ok(ModelReply {
        text: message.get("content").opt_str()?.map(str::to_owned),
        tool_calls,
        finish: finish_reason(choice.get("finish_reason").opt_str()?),
        usage: usage(&root.get("usage"))?,
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

/// The reply so far.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct OpenAiStream {
    text: Option<String>,
    calls: Vec<PartialCall>,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
    done: bool,
}

/// A tool call whose fragments are still arriving.
#[derive(Debug, Default)]
struct PartialCall {
    index: u64,
    id: Option<String>,
    name: String,
    arguments: String,
}

impl StreamAssembler for OpenAiStream {
    fn event(&mut self, event: SseEvent) -> Result<(), ModelError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| ModelError::Decode {
            api: API,
            message: format!("a stream chunk is not JSON: {e}"),
        })?;
        let root = At::root(API, &chunk);
        if let Some(error) = chunk.get("error") {
            return Err(root.error(&format!("reports an error: {error}")));
        }
        if let Some(usage) = usage(&root.get("usage"))? {
            self.usage = Some(usage);
        }
        for choice in root.get("choices").items_or_none()? {
            self.delta(&choice.get("delta"))?;
            if let Some(reason) = choice.get("finish_reason").opt_str()? {
                self.finish = Some(finish_reason(Some(reason)));
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<ModelReply, ModelError> {
        if !self.done {
            return Err(ModelError::Truncated(
                "the event stream ended before `data: [DONE]`".into(),
            ));
        }
        let tool_calls = self
            .calls
            .into_iter()
            .map(|call| ToolCall {
                id: call.id,
                name: call.name,
                args: repair_arguments(&call.arguments),
            })
            .collect();
        Ok(ModelReply {
            text: self.text,
            tool_calls,
            finish: self.finish.unwrap_or(FinishReason::Stop),
            usage: self.usage,
        })
    }
}

impl OpenAiStream {
    fn delta(&mut self, delta: &At<'_>) -> Result<(), ModelError> {
        if let Some(text) = delta.get("content").opt_str()? {
            self.text.get_or_insert_with(String::new).push_str(text);
        }
        for fragment in delta.get("tool_calls").items_or_none()? {
            let index = fragment.get("index").count()?;
            let position = match self.calls.iter().position(|c| c.index == index) {
                Some(position) => position,
                None => {
                    self.calls.push(PartialCall {
                        index,
                        ..PartialCall::default()
                    });
                    self.calls.len() - 1
                }
            };
            let call = &mut self.calls[position];
            if let Some(id) = fragment.get("id").opt_str()? {
                call.id = Some(id.to_owned());
            }
            let function = fragment.get("function");
            if let Some(name) = function.get("name").opt_str()? {
                call.name.push_str(name);
            }
            if let Some(arguments) = function.get("arguments").opt_str()? {
                call.arguments.push_str(arguments);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::models::sse::assemble_every_split;

    #[test]
    fn a_stream_split_anywhere_assembles_the_same_calls() {
        let stream = include_str!("../../../tests/fixtures/models/openai_stream.sse");
        let reply = assemble_every_split::<OpenAiStream>(stream);
        assert_eq!(
            reply,
            ModelReply {
                text: Some("Checking the caf\u{e9} \u{2615} ".into()),
                tool_calls: vec![
                    ToolCall::new("get_current_weather", json!({"location": "S\u{e3}o Paulo"}))
                        .with_id("call_DdmO9pD3xa9XTPNJ32zg2hcA"),
                    ToolCall::new("get_time", json!({})).with_id("call_2"),
                ],
                finish: FinishReason::ToolCalls,
                usage: Some(Usage {
                    input_tokens: 82,
                    output_tokens: 27
                }),
            }
        );
    }

    #[test]
    fn a_stream_without_done_is_truncated() {
        let mut stream = OpenAiStream::default();
        stream
            .event(SseEvent {
                event: None,
                data: r#"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#.into(),
            })
            .unwrap();
        assert_eq!(
            stream.finish().unwrap_err().to_string(),
            "the response body was cut off: the event stream ended before `data: [DONE]`"
        );
    }
}
