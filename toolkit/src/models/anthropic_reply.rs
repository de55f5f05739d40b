//! Messages replies read: a whole response, or a stream whose text deltas are appended and whose
//! `input_json_delta` fragments are assembled into each `tool_use` block's input.

use serde_json::Value;

use super::decode::At;
use super::http::StreamAssembler;
use super::sse::SseEvent;
use super::{FinishReason, ModelError, ModelReply, Usage};
use crate::ToolCall;
use crate::providers::parse::repair_arguments;

/// The API's name in errors.
pub(super) const API: &str = "Anthropic Messages";

/// A whole Messages response read into a reply.
pub(super) fn read_reply(body: &Value) -> Result<ModelReply, ModelError> {
    let root = At::root(API, body);
    let mut text: Option<String> = None;
    let mut tool_calls = Vec::new();
    for block in root.get("content").items()? {
        match block.get("type").str()? {
            "text" => text
                .get_or_insert_with(String::new)
                .push_str(block.get("text").str()?),
            "tool_use" => tool_calls.push(
                ToolCall::new(
                    block.get("name").str()?,
                    block.get("input").value()?.clone(),
                )
                .with_id(block.get("id").str()?),
            ),
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

/// The reply so far.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct AnthropicStream {
    blocks: Vec<Block>,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
    stopped: bool,
}

/// A content block still arriving, by its stream index.
#[derive(Debug)]
enum Block {
    Text {
        index: u64,
        text: String,
    },
    ToolUse {
        index: u64,
        id: String,
        name: String,
        json: String,
    },
    Other {
        index: u64,
    },
}

impl Block {
    fn index(&self) -> u64 {
        match self {
            Block::Text { index, .. } | Block::ToolUse { index, .. } | Block::Other { index } => {
                *index
            }
        }
    }
}

impl StreamAssembler for AnthropicStream {
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
        let mut text: Option<String> = None;
        let mut tool_calls = Vec::new();
        for block in self.blocks {
            match block {
                Block::Text { text: part, .. } => {
                    text.get_or_insert_with(String::new).push_str(&part)
                }
                Block::ToolUse { id, name, json, .. } => {
                    let input = match json.trim().is_empty() {
                        true => Value::Object(serde_json::Map::new()),
                        false => repair_arguments(&json),
                    };
                    tool_calls.push(ToolCall::new(name, input).with_id(id));
                }
                Block::Other { .. } => {}
            }
        }
        Ok(ModelReply {
            text,
            tool_calls,
            finish: self.finish.unwrap_or(FinishReason::Stop),
            usage: self.usage,
        })
    }
}

impl AnthropicStream {
    fn start(&mut self, root: &At<'_>) -> Result<(), ModelError> {
        let index = root.get("index").count()?;
        let block = root.get("content_block");
        self.blocks.push(match block.get("type").str()? {
            "text" => Block::Text {
                index,
                text: block.get("text").opt_str()?.unwrap_or_default().to_owned(),
            },
            "tool_use" => Block::ToolUse {
                index,
                id: block.get("id").str()?.to_owned(),
                name: block.get("name").str()?.to_owned(),
                json: String::new(),
            },
            _ => Block::Other { index },
        });
        Ok(())
    }

    fn delta(&mut self, root: &At<'_>) -> Result<(), ModelError> {
        let index = root.get("index").count()?;
        let delta = root.get("delta");
        let block = self
            .blocks
            .iter_mut()
            .find(|block| block.index() == index)
            .ok_or_else(|| {
                root.get("index")
                    .error("names a block that was never started")
            })?;
        match (block, delta.get("type").str()?) {
            (Block::Text { text, .. }, "text_delta") => text.push_str(delta.get("text").str()?),
            (Block::ToolUse { json, .. }, "input_json_delta") => {
                json.push_str(delta.get("partial_json").str()?)
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
    use crate::models::sse::assemble_every_split;

    #[test]
    fn a_stream_split_anywhere_assembles_the_same_tool_use() {
        let stream = include_str!("../../../tests/fixtures/models/anthropic_stream.sse");
        let reply = assemble_every_split::<AnthropicStream>(stream);
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
            }
        );
    }
}
