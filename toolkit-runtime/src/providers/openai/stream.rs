//! A streamed Chat Completion assembled: text deltas appended, tool-call fragments assembled by
//! index, each capped as it comes.

use std::collections::HashMap;

use serde_json::Value;

use super::API;
use super::reply::{finish_reason, usage};
use crate::ToolCall;
use crate::chat::caps::{self, CappedText, ReplyCaps};
use crate::chat::decode::At;
use crate::chat::{
    ChatOptions, FinishReason, ModelError, ModelReply, RefusedCall, StreamAssembler, StreamDelta,
    Usage,
};
use crate::providers::arguments::call_arguments;

/// A streamed Chat Completion, assembled from its events as they arrive (see
/// [`StreamAssembler`]): text deltas appended, tool-call fragments assembled by index, the text
/// and each call's arguments capped as they come. The stream must end with `data: [DONE]`.
#[derive(Debug, Default)]
pub struct OpenAiStream {
    caps: ReplyCaps,
    text: Option<CappedText>,
    /// The calls in the order their first fragment came, and where each index's call is in it:
    /// a reply may hold tens of thousands of calls, so a fragment must not search for its own.
    calls: Vec<PartialCall>,
    slots: HashMap<u64, usize>,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
    done: bool,
    deltas: Vec<StreamDelta>,
}

/// A tool call whose fragments are still arriving.
#[derive(Debug, Default)]
struct PartialCall {
    id: Option<String>,
    name: CappedText,
    arguments: CappedText,
}

/// The longest tool name kept; providers allow 64 characters.
const MAX_NAME_BYTES: usize = 256;

impl StreamAssembler for OpenAiStream {
    fn new(options: &ChatOptions) -> Self {
        OpenAiStream {
            caps: ReplyCaps::of(options),
            ..OpenAiStream::default()
        }
    }

    fn take_deltas(&mut self) -> Vec<StreamDelta> {
        std::mem::take(&mut self.deltas)
    }

    fn event(&mut self, _event: Option<&str>, data: &str) -> Result<(), ModelError> {
        let data = data.trim();
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
        let caps = self.caps;
        let mut tool_calls = Vec::with_capacity(self.calls.len());
        let mut refused_calls = Vec::new();
        for call in self.calls {
            let (name, arguments) = (call.name, call.arguments);
            let (called, refusal) = match (
                name.within(MAX_NAME_BYTES),
                arguments.within(caps.arguments),
            ) {
                (Ok(name), Ok(arguments)) => {
                    (ToolCall::new(name, call_arguments(&arguments)), None)
                }
                (Err(size), _) => (
                    ToolCall::new(caps::UNNAMED, Value::Null),
                    Some(format!(
                        "the tool name is {size} bytes, over the limit of {MAX_NAME_BYTES}"
                    )),
                ),
                (Ok(name), Err(size)) => {
                    (ToolCall::new(name, Value::Null), Some(caps.too_large(size)))
                }
            };
            let called = ToolCall {
                id: call.id,
                ..called
            };
            match refusal {
                None => tool_calls.push(called),
                Some(reason) => refused_calls.push(RefusedCall::new(called, reason)),
            }
        }
        Ok(ModelReply {
            text: self.text.map(|text| text.into_text(caps.text)),
            tool_calls,
            finish: self.finish.unwrap_or(FinishReason::Stop),
            usage: self.usage,
            refused_calls,
        })
    }
}

impl OpenAiStream {
    fn delta(&mut self, delta: &At<'_>) -> Result<(), ModelError> {
        if let Some(text) = delta.get("content").opt_str()? {
            let cap = self.caps.text;
            self.deltas.push(StreamDelta::Text(text.to_owned()));
            self.text
                .get_or_insert_with(Default::default)
                .push(text, cap);
        }
        for fragment in delta.get("tool_calls").items_or_none()? {
            let index = fragment.get("index").count()?;
            let calls = &mut self.calls;
            let position = *self.slots.entry(index).or_insert_with(|| {
                calls.push(PartialCall::default());
                calls.len() - 1
            });
            let call = &mut calls[position];
            let id = fragment.get("id").opt_str()?;
            if let Some(id) = id {
                call.id = Some(id.to_owned());
            }
            let function = fragment.get("function");
            let name = function.get("name").opt_str()?;
            if let Some(name) = name {
                call.name.push(name, MAX_NAME_BYTES);
            }
            let arguments = function.get("arguments").opt_str()?;
            if let Some(arguments) = arguments {
                call.arguments.push(arguments, self.caps.arguments);
            }
            self.deltas.push(StreamDelta::ToolCall {
                index: position,
                id: id.map(str::to_owned),
                name: name.map(str::to_owned),
                arguments: arguments.unwrap_or_default().to_owned(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::providers::__read_arguments as read_arguments;

    /// 40,000 calls, each in two fragments (name, then arguments) after all have started.
    #[test]
    fn forty_thousand_streamed_calls_assemble_in_linear_time_in_index_order() {
        const CALLS: u64 = 40_000;
        // A thousand fragments a chunk, so reading JSON costs little next to assembling.
        let chunks = |fragment: fn(u64) -> Value| {
            let all: Vec<Value> = (0..CALLS).map(fragment).collect();
            all.chunks(1000)
                .map(|fragments| {
                    json!({"choices": [{"index": 0, "delta": {"tool_calls": fragments}}]})
                        .to_string()
                })
                .collect::<Vec<_>>()
        };
        let starts = chunks(|index| {
            json!({"index": index, "id": format!("c{index}"),
                "function": {"name": "t", "arguments": ""}})
        });
        let arguments = chunks(
            |index| json!({"index": index, "function": {"arguments": format!("{{\"n\":{index}}}")}}),
        );
        let done = "[DONE]".to_owned();
        let events: Vec<String> = starts.into_iter().chain(arguments).chain([done]).collect();
        let started = std::time::Instant::now();
        let mut stream = OpenAiStream::default();
        for data in events {
            stream.event(None, &data).unwrap();
        }
        let reply = stream.finish().unwrap();
        let elapsed = started.elapsed();
        let expected: Vec<ToolCall> = (0..CALLS)
            .map(|n| ToolCall::new("t", json!({"n": n})).with_id(format!("c{n}")))
            .collect();
        assert_eq!(read_arguments(reply.tool_calls), expected);
        // 1.8 s in a test build on a loaded 2-core machine; searching for each fragment's call
        // took 15.2 s there.
        assert!(elapsed < std::time::Duration::from_secs(10), "{elapsed:?}");
    }

    #[test]
    fn streamed_names_and_arguments_over_their_caps_are_refused_without_being_kept() {
        let options = ChatOptions {
            max_argument_bytes: 8,
            ..Default::default()
        };
        let mut stream = OpenAiStream::new(&options);
        let long_name = "n".repeat(300);
        let chunks = [
            json!({"index": 0, "id": "named", "function": {"name": long_name, "arguments": "{}"}}),
            json!({"index": 1, "id": "large", "function": {"name": "t", "arguments": "{\"n\":"}}),
            json!({"index": 1, "function": {"arguments": "12345}"}}),
        ];
        for fragment in chunks {
            let chunk = json!({"choices": [{"index": 0, "delta": {"tool_calls": [fragment]}}]});
            stream.event(None, &chunk.to_string()).unwrap();
        }
        stream.event(None, "[DONE]").unwrap();
        let reply = stream.finish().unwrap();
        assert_eq!(reply.tool_calls, []);
        assert_eq!(
            reply.refused_calls,
            [
                RefusedCall::new(
                    ToolCall::new("unnamed_call", json!({})).with_id("named"),
                    "the tool name is 300 bytes, over the limit of 256"
                ),
                RefusedCall::new(
                    ToolCall::new("t", json!({})).with_id("large"),
                    "the arguments are 11 bytes, over the limit of 8; send smaller arguments"
                ),
            ]
        );
    }

    #[test]
    fn a_stream_without_done_is_truncated() {
        let mut stream = OpenAiStream::default();
        stream
            .event(
                None,
                r#"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#,
            )
            .unwrap();
        assert_eq!(
            stream.finish().unwrap_err().to_string(),
            "the response body was cut off: the event stream ended before `data: [DONE]`"
        );
    }
}
