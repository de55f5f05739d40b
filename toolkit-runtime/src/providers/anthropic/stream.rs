//! A streamed Messages reply assembled: text deltas appended, `input_json_delta` fragments
//! assembled into each `tool_use` block's input, each capped as it comes.

use std::collections::HashMap;

use serde_json::Value;

use super::API;
use super::call::{tool_use_block, tool_use_start};
use super::reply::stop_reason;
use crate::ToolCall;
use crate::chat::caps::{CappedText, ReplyCaps};
use crate::chat::decode::At;
use crate::chat::{
    ChatOptions, FinishReason, ModelError, ModelReply, RefusedCall, StreamAssembler, StreamDelta,
    Usage,
};
use crate::providers::arguments::call_arguments;

/// A streamed Messages reply, assembled from its events as they arrive (see
/// [`StreamAssembler`]): text deltas appended, `input_json_delta` fragments assembled into each
/// `tool_use` block's input, the text and each input capped as they come. The stream must end
/// with `message_stop`.
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
    deltas: Vec<StreamDelta>,
    /// How many `tool_use` blocks have started: a call's index in the deltas.
    calls: usize,
}

/// A content block still arriving.
#[derive(Debug)]
enum Block {
    Text(CappedText),
    ToolUse {
        id: String,
        name: String,
        json: CappedText,
        /// Its position among the reply's calls, for the deltas.
        call: usize,
    },
    /// A `tool_use` block whose start could not be read; its deltas are dropped.
    Refused(RefusedCall),
    Other,
}

impl StreamAssembler for AnthropicStream {
    fn new(options: &ChatOptions) -> Self {
        AnthropicStream {
            caps: ReplyCaps::of(options),
            ..AnthropicStream::default()
        }
    }

    fn event(&mut self, _event: Option<&str>, data: &str) -> Result<(), ModelError> {
        let data: Value = serde_json::from_str(data).map_err(|e| ModelError::Decode {
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
                Block::ToolUse { id, name, json, .. } => match json.within(caps.arguments) {
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

    fn take_deltas(&mut self) -> Vec<StreamDelta> {
        std::mem::take(&mut self.deltas)
    }
}

impl AnthropicStream {
    fn start(&mut self, root: &At<'_>) -> Result<(), ModelError> {
        let index = root.get("index").count()?;
        let block = root.get("content_block");
        let started = match block.get("type").str()? {
            "text" => {
                let mut text = CappedText::default();
                let start = block.get("text").opt_str()?.unwrap_or_default();
                if !start.is_empty() {
                    self.deltas.push(StreamDelta::Text(start.to_owned()));
                }
                text.push(start, self.caps.text);
                Block::Text(text)
            }
            "tool_use" => {
                let tool_use = tool_use_block(&block);
                match tool_use_start(&tool_use) {
                    Ok((id, name)) => {
                        self.deltas.push(StreamDelta::ToolCall {
                            index: self.calls,
                            id: Some(id.to_owned()),
                            name: Some(name.to_owned()),
                            arguments: String::new(),
                        });
                        self.calls += 1;
                        Block::ToolUse {
                            id: id.to_owned(),
                            name: name.to_owned(),
                            json: CappedText::default(),
                            call: self.calls - 1,
                        }
                    }
                    Err(error) => Block::Refused(tool_use.refuse(error)),
                }
            }
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
                let piece = delta.get("text").str()?;
                self.deltas.push(StreamDelta::Text(piece.to_owned()));
                text.push(piece, self.caps.text)
            }
            (Block::ToolUse { json, call, .. }, "input_json_delta") => {
                let piece = delta.get("partial_json").str()?;
                self.deltas.push(StreamDelta::ToolCall {
                    index: *call,
                    id: None,
                    name: None,
                    arguments: piece.to_owned(),
                });
                json.push(piece, self.caps.arguments)
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
    use crate::providers::__read_arguments as read_arguments;

    /// 40,000 `tool_use` blocks, each given its input after all have started.
    #[test]
    fn forty_thousand_streamed_blocks_assemble_in_linear_time_in_index_order() {
        const BLOCKS: u64 = 40_000;
        let event = |data: Value| data.to_string();
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
        let events: Vec<String> = starts.chain(deltas).chain([stop]).collect();
        let started = std::time::Instant::now();
        let mut stream = AnthropicStream::default();
        for data in events {
            stream.event(None, &data).unwrap();
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
            stream.event(None, &data.to_string()).unwrap();
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
