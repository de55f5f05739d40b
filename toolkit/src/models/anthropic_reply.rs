//! Messages replies read: a whole response, or a stream whose text deltas are appended and whose
//! `input_json_delta` fragments are assembled into each `tool_use` block's input.

use std::collections::HashMap;

use serde_json::Value;

use super::arguments::call_arguments;
use super::caps::{self, CappedText, ReplyCaps};
use super::decode::At;
use super::http::StreamAssembler;
use super::{FinishReason, ModelError, ModelReply, RefusedCall, Usage};
use crate::ToolCall;
use crate::sse::SseEvent;

/// The API's name in errors.
pub(super) const API: &str = "Anthropic Messages";

/// A whole Messages response read into a reply.
pub(super) fn read_reply(body: &Value) -> Result<ModelReply, ModelError> {
    let root = At::root(API, body);
    let mut text: Option<String> = None;
    let mut tool_calls = Vec::new();
    let mut refused_calls = Vec::new();
    for block in root.get("content").items()? {
        match block.get("type").str()? {
            "text" => text
                .get_or_insert_with(String::new)
                .push_str(block.get("text").str()?),
            "tool_use" => match read_tool_use(&block) {
                Ok(call) => tool_calls.push(call),
                Err(error) => refused_calls.push(refuse(&block, error)),
            },
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

fn read_tool_use(block: &At<'_>) -> Result<ToolCall, ModelError> {
    let input = block.get("input").value()?.clone();
    Ok(ToolCall::new(block.get("name").str()?, input).with_id(block.get("id").str()?))
}

/// A `tool_use` block that cannot be read, refused with what can be read of it.
fn refuse(block: &At<'_>, error: ModelError) -> RefusedCall {
    let id = block.get("id").opt_str().ok().flatten();
    let name = block.get("name").opt_str().ok().flatten();
    caps::malformed(id, name, error)
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

/// The reply so far.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct AnthropicStream {
    /// The blocks in the order they started, and where each stream index's block is in it: a
    /// reply may hold tens of thousands of blocks, so a delta must not search for its own.
    caps: ReplyCaps,
    blocks: Vec<Block>,
    slots: HashMap<u64, usize>,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
    stopped: bool,
}

/// A content block still arriving.
#[derive(Debug)]
enum Block {
    Text(CappedText),
    ToolUse {
        id: String,
        name: String,
        json: CappedText,
    },
    /// A `tool_use` block whose start could not be read; its deltas are dropped.
    Refused(RefusedCall),
    Other,
}

impl StreamAssembler for AnthropicStream {
    fn new(options: &super::ChatOptions) -> Self {
        AnthropicStream {
            caps: ReplyCaps::of(options),
            ..AnthropicStream::default()
        }
    }

    fn event(&mut self, event: SseEvent) -> Result<(), ModelError> {
        let data: Value = serde_json::from_str(&event.data).map_err(|e| ModelError::Decode {
            api: API,
            message: format!("a stream event is not JSON: {e}"),
        })?;
        let root = At::root(API, &data);
        match root.get("type").str()? {
            "message_start" => {
                let usage = root.get("message").get("usage");
                self.usage = Some(Usage {
                    input_tokens: usage.get("input_tokens").count()?,
                    output_tokens: usage.get("output_tokens").count()?,
                });
            }
            "content_block_start" => self.start(&root)?,
            "content_block_delta" => self.delta(&root)?,
            "message_delta" => {
                if let Some(reason) = root.get("delta").get("stop_reason").opt_str()? {
                    self.finish = Some(stop_reason(Some(reason)));
                }
                let output = root.get("usage").get("output_tokens").count()?;
                self.usage.get_or_insert_with(Usage::default).output_tokens = output;
            }
            "message_stop" => self.stopped = true,
            "error" => return Err(root.get("error").error(&format!("reports {data}"))),
            // `ping`, `content_block_stop` and events added later carry nothing to keep.
            _ => {}
        }
        Ok(())
    }

    fn finish(self) -> Result<ModelReply, ModelError> {
        if !self.stopped {
            return Err(ModelError::Truncated(
                "the event stream ended before `message_stop`".into(),
            ));
        }
        let caps = self.caps;
        let mut text: Option<CappedText> = None;
        let mut tool_calls = Vec::new();
        let mut refused_calls = Vec::new();
        for block in self.blocks {
            match block {
                Block::Text(part) => text
                    .get_or_insert_with(CappedText::default)
                    .extend(part, caps.text),
                Block::ToolUse { id, name, json } => match json.within(caps.arguments) {
                    Ok(json) => {
                        let input = call_arguments(&json);
                        tool_calls.push(ToolCall::new(name, input).with_id(id));
                    }
                    Err(size) => refused_calls.push(RefusedCall::new(
                        ToolCall::new(name, Value::Null).with_id(id),
                        caps.too_large(size),
                    )),
                },
                Block::Refused(refused) => refused_calls.push(refused),
                Block::Other => {}
            }
        }
        let text = text.map(|text| text.into_text(caps.text));
        Ok(ModelReply {
            text,
            tool_calls,
            finish: self.finish.unwrap_or(FinishReason::Stop),
            usage: self.usage,
            refused_calls,
        })
    }
}

impl AnthropicStream {
    fn start(&mut self, root: &At<'_>) -> Result<(), ModelError> {
        let index = root.get("index").count()?;
        let block = root.get("content_block");
        let started = match block.get("type").str()? {
            "text" => {
                let mut text = CappedText::default();
                text.push(
                    block.get("text").opt_str()?.unwrap_or_default(),
                    self.caps.text,
                );
                Block::Text(text)
            }
            "tool_use" => match (block.get("id").str(), block.get("name").str()) {
                (Ok(id), Ok(name)) => Block::ToolUse {
                    id: id.to_owned(),
                    name: name.to_owned(),
                    json: CappedText::default(),
                },
                (Err(error), _) | (_, Err(error)) => Block::Refused(refuse(&block, error)),
            },
            _ => Block::Other,
        };
        // A second start of one index keeps the first block as the one its deltas extend.
        let position = self.blocks.len();
        self.blocks.push(started);
        self.slots.entry(index).or_insert(position);
        Ok(())
    }

    fn delta(&mut self, root: &At<'_>) -> Result<(), ModelError> {
        let index = root.get("index").count()?;
        let delta = root.get("delta");
        let position = *self.slots.get(&index).ok_or_else(|| {
            root.get("index")
                .error("names a block that was never started")
        })?;
        match (&mut self.blocks[position], delta.get("type").str()?) {
            (Block::Text(text), "text_delta") => {
                text.push(delta.get("text").str()?, self.caps.text)
            }
            (Block::ToolUse { json, .. }, "input_json_delta") => {
                json.push(delta.get("partial_json").str()?, self.caps.arguments)
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::models::arguments::read_arguments;
    use crate::models::http::assemble_every_split;

    #[test]
    fn a_stream_split_anywhere_assembles_the_same_tool_use() {
        let stream = include_str!("../../../tests/fixtures/models/anthropic_stream.sse");
        let mut reply = assemble_every_split::<AnthropicStream>(stream);
        // The arguments arrive as the model's text; compared as the tool reads them.
        reply.tool_calls = read_arguments(reply.tool_calls);
        assert_eq!(
            reply,
            ModelReply {
                text: Some("Okay, let's check the weather for S\u{e3}o Paulo \u{2600}".into()),
                tool_calls: vec![
                    ToolCall::new("get_weather", json!({"location": "S\u{e3}o Paulo, BR"}))
                        .with_id("toolu_01T1x1fJ34qAmk2tNTrN7Up6")
                ],
                finish: FinishReason::ToolCalls,
                usage: Some(Usage {
                    input_tokens: 472,
                    output_tokens: 89
                }),
                refused_calls: Vec::new(),
            }
        );
    }

    /// 40,000 `tool_use` blocks, each given its input after all have started.
    #[test]
    fn forty_thousand_streamed_blocks_assemble_in_linear_time_in_index_order() {
        const BLOCKS: u64 = 40_000;
        let event = |data: Value| SseEvent {
            event: None,
            data: data.to_string(),
        };
        let starts = (0..BLOCKS).map(|index| {
            event(
                json!({"type": "content_block_start", "index": index, "content_block":
                {"type": "tool_use", "id": format!("t{index}"), "name": "t", "input": {}}}),
            )
        });
        let deltas = (0..BLOCKS).map(|index| {
            event(
                json!({"type": "content_block_delta", "index": index, "delta":
                {"type": "input_json_delta", "partial_json": format!("{{\"n\":{index}}}")}}),
            )
        });
        let stop = event(json!({"type": "message_stop"}));
        let events: Vec<SseEvent> = starts.chain(deltas).chain([stop]).collect();
        let started = std::time::Instant::now();
        let mut stream = AnthropicStream::default();
        for event in events {
            stream.event(event).unwrap();
        }
        let reply = stream.finish().unwrap();
        let elapsed = started.elapsed();
        let expected: Vec<ToolCall> = (0..BLOCKS)
            .map(|n| ToolCall::new("t", json!({"n": n})).with_id(format!("t{n}")))
            .collect();
        assert_eq!(read_arguments(reply.tool_calls), expected);
        // 3.4 s in a test build on a loaded 2-core machine (reading each event's JSON is most
        // of it); searching for each delta's block took 15.6 s there.
        assert!(elapsed < std::time::Duration::from_secs(10), "{elapsed:?}");
    }

    #[test]
    fn a_streamed_tool_use_without_a_name_is_refused_and_the_others_kept() {
        let events = [
            json!({"type": "content_block_start", "index": 0, "content_block":
                {"type": "tool_use", "id": "bad", "input": {}}}),
            json!({"type": "content_block_delta", "index": 0, "delta":
                {"type": "input_json_delta", "partial_json": "{\"n\":1}"}}),
            json!({"type": "content_block_start", "index": 1, "content_block":
                {"type": "tool_use", "id": "good", "name": "t", "input": {}}}),
            json!({"type": "content_block_delta", "index": 1, "delta":
                {"type": "input_json_delta", "partial_json": "{\"n\":2}"}}),
            json!({"type": "message_stop"}),
        ];
        let mut stream = AnthropicStream::default();
        for data in events {
            stream
                .event(SseEvent {
                    event: None,
                    data: data.to_string(),
                })
                .unwrap();
        }
        let reply = stream.finish().unwrap();
        assert_eq!(
            read_arguments(reply.tool_calls),
            [ToolCall::new("t", json!({"n": 2})).with_id("good")]
        );
        assert_eq!(
            reply.refused_calls,
            [RefusedCall::new(
                ToolCall::new("unnamed_call", json!({})).with_id("bad"),
                "`content_block.name` should be a string, got nothing"
            )]
        );
    }
}
