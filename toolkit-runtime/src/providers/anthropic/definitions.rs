//! Anthropic Messages: tool definitions and `tool_result` blocks.

use serde_json::{Value, json};

use crate::providers::content::anthropic_blocks;
use crate::{ToolCallResult, ToolProxy};

impl ToolProxy {
    /// The Anthropic Messages definition: `{"name", "description", "input_schema"}`.
    pub(crate) fn anthropic_definition(&self) -> Value {
        json!({
            "name": self.name(),
            "description": self.description(),
            "input_schema": self.parameters(),
        })
    }
}

impl ToolCallResult {
    /// The Anthropic content block: `{"type": "tool_result", "tool_use_id", "content",
    /// "is_error"}`; it goes in a `user` message. `content` is the result's text, or for a
    /// content result its blocks: `text`, `image` and `document` ones.
    pub(crate) fn anthropic_block(&self) -> Value {
        let content = match self.content() {
            Some(output) => Value::Array(anthropic_blocks(&output)),
            None => Value::String(self.text()),
        };
        json!({
            "type": "tool_result",
            "tool_use_id": self.id(),
            "content": content,
            "is_error": self.is_error,
        })
    }
}
