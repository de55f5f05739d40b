//! The one method per type that renders in each provider [`Format`]: a tool's definition, a
//! toolbox's definitions, a call's result.

use serde_json::Value;

use super::Format;
use crate::{ToolCallResult, ToolError, ToolProxy};

impl ToolProxy {
    /// The tool's definition in `format`, rendered once and kept.
    ///
    /// Only [`Format::OpenAiStrict`] can fail: a schema strict mode cannot express (a map with
    /// arbitrary keys, a value of any type, `not`, tuples) is a [`ToolError::UnsupportedSchema`]
    /// naming the place, so it shows up here rather than as a 400 from the API. Every other
    /// format is always `Ok`.
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::providers::Format;
    ///
    /// /// Add two numbers
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let def = add_tool().definition_in(Format::OpenAi).unwrap();
    /// assert_eq!(def["type"], "function");
    /// assert_eq!(def["function"]["name"], "add");
    /// assert_eq!(def["function"]["parameters"]["required"], json!(["a", "b"]));
    ///
    /// let def = add_tool().definition_in(Format::OpenAiResponses).unwrap();
    /// assert_eq!(def["name"], "add");
    /// assert_eq!(def["strict"], true);
    ///
    /// let def = add_tool().definition_in(Format::Anthropic).unwrap();
    /// assert_eq!(def["input_schema"]["type"], "object");
    /// ```
    ///
    /// Strict mode makes every parameter required and optional ones nullable; Gemini spells
    /// types its own way:
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::providers::Format;
    ///
    /// /// Greet someone
    /// #[tool]
    /// fn greet(name: String, title: Option<String>) -> String {
    ///     format!("Hello {}{name}", title.map(|t| t + " ").unwrap_or_default())
    /// }
    ///
    /// let def = greet_tool().definition_in(Format::OpenAiStrict).unwrap();
    /// assert_eq!(def["function"]["strict"], true);
    /// let params = &def["function"]["parameters"];
    /// assert_eq!(params["required"], json!(["name", "title"]));
    /// assert_eq!(params["properties"]["title"]["type"], json!(["string", "null"]));
    ///
    /// let def = greet_tool().definition_in(Format::Gemini).unwrap();
    /// assert_eq!(
    ///     def["parameters"]["properties"]["title"],
    ///     json!({"type": "STRING", "nullable": true})
    /// );
    /// ```
    ///
    /// MCP carries the tool's annotations:
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::providers::Format;
    ///
    /// /// Add two numbers
    /// #[tool(read_only, idempotent)]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let def = add_tool().definition_in(Format::Mcp).unwrap();
    /// assert_eq!(def["annotations"], json!({"readOnlyHint": true, "idempotentHint": true}));
    /// assert!(def.get("outputSchema").is_none());
    /// ```
    pub fn definition_in(&self, format: Format) -> Result<Value, ToolError> {
        self.cached_definition(format, || match format {
            Format::OpenAi => Ok(self.openai_definition()),
            Format::OpenAiStrict => self.openai_strict_definition(),
            Format::OpenAiResponses => Ok(self.openai_responses_definition()),
            Format::Anthropic => Ok(self.anthropic_definition()),
            Format::Gemini => Ok(self.gemini_definition()),
            Format::Mcp => Ok(self.mcp_definition()),
        })
    }
}

impl ToolCallResult {
    /// The result as `format` sends it back to the model.
    ///
    /// | format | rendering |
    /// | --- | --- |
    /// | `OpenAi`, `OpenAiStrict` | `{"role": "tool", "tool_call_id", "content"}` |
    /// | `OpenAiResponses` | `{"type": "function_call_output", "call_id", "output"}` |
    /// | `Anthropic` | `{"type": "tool_result", "tool_use_id", "content", "is_error"}`, for a `user` message |
    /// | `Gemini` | `{"functionResponse": {"id"?, "name", "response": {"output"}`/`{"error"}}}` |
    /// | `Mcp` | `{"content": [text], "structuredContent"?, "isError"}` |
    ///
    /// A content result ([`content`](Self::content)) renders as content: MCP content blocks,
    /// Anthropic `image` and `document` blocks, Responses `input_image` and `input_file` parts,
    /// Gemini `inlineData` parts, and for Chat Completions its text with a line naming each
    /// image, which [`tool_images_message`](crate::providers::openai::tool_images_message)
    /// sends in the user message after (see `docs/providers.md`, "Content results").
    ///
    /// For MCP, without the tool at hand any object counts as structured and an error keeps its
    /// `Error: ` text; [`ToolProxy::mcp_result`] is what the MCP server sends for a tool it
    /// serves.
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::providers::Format;
    ///
    /// let call = ToolCall::new("add", json!({"a": 1, "b": 2})).with_id("call_1");
    /// let result = ToolCallResult::from_outcome(&call, Ok(json!(3)));
    /// assert_eq!(
    ///     result.render(Format::OpenAi),
    ///     json!({"role": "tool", "tool_call_id": "call_1", "content": "3"})
    /// );
    ///
    /// let call = ToolCall::new("add", json!({"a": 1, "b": 2}));
    /// let result = ToolCallResult::from_outcome(&call, Ok(json!(3)));
    /// assert_eq!(
    ///     result.render(Format::Gemini),
    ///     json!({"functionResponse": {"name": "add", "response": {"output": 3}}})
    /// );
    ///
    /// let call = ToolCall::new("stats", json!({}));
    /// let result = ToolCallResult::from_outcome(&call, Ok(json!({"words": 2})));
    /// assert_eq!(
    ///     result.render(Format::Mcp),
    ///     json!({
    ///         "content": [{"type": "text", "text": "{\"words\":2}"}],
    ///         "structuredContent": {"words": 2},
    ///         "isError": false
    ///     })
    /// );
    /// ```
    pub fn render(&self, format: Format) -> Value {
        match format {
            Format::OpenAi | Format::OpenAiStrict => self.openai_message(),
            Format::OpenAiResponses => self.openai_responses_item(),
            Format::Anthropic => self.anthropic_block(),
            Format::Gemini => self.gemini_part(),
            Format::Mcp => self.mcp_result_json(),
        }
    }
}
