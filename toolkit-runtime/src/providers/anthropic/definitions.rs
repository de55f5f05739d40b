//! Anthropic Messages: tool definitions and `tool_result` blocks.

use serde_json::{Value, json};

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
    /// "is_error"}`; it goes in a `user` message.
    pub(crate) fn anthropic_block(&self) -> Value {
        json!({
            "type": "tool_result",
            "tool_use_id": self.id(),
            "content": self.text(),
            "is_error": self.is_error,
        })
    }
}
