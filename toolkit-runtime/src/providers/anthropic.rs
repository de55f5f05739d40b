//! Anthropic Messages: tool definitions and `tool_result` blocks.

use crate::call::DefinitionFormat;
use serde_json::{Value, json};

use crate::{ToolCallResult, ToolProxy};

impl ToolProxy {
    /// The Anthropic Messages definition: `{"name", "description", "input_schema"}`.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Add two numbers
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let def = add_tool().to_anthropic();
    /// assert_eq!(def["input_schema"]["type"], "object");
    /// ```
    pub fn to_anthropic(&self) -> Value {
        self.rendered(DefinitionFormat::Anthropic, || {
            json!({
                "name": self.name(),
                "description": self.description(),
                "input_schema": self.parameters(),
            })
        })
    }
}

impl ToolCallResult {
    /// The Anthropic content block: `{"type": "tool_result", "tool_use_id", "content",
    /// "is_error"}`; it goes in a `user` message.
    pub fn to_anthropic(&self) -> Value {
        json!({
            "type": "tool_result",
            "tool_use_id": self.id(),
            "content": self.text(),
            "is_error": self.is_error,
        })
    }
}
