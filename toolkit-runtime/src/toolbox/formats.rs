//! A whole toolbox in each provider's format.

use serde_json::Value;

use super::Toolbox;
use crate::ToolError;
use crate::providers::{
    anthropic_tools, gemini_tools, mcp_tools, openai_responses_tools, openai_strict_tools,
    openai_tools,
};

/// Every tool of a toolbox in each provider's format: the array (or, for Gemini, the one
/// `{"functionDeclarations": [...]}` object) a request carries.
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
/// let toolbox = Toolbox::builder().tool(add_tool()).build().unwrap();
/// assert_eq!(toolbox.to_openai()[0]["function"]["name"], "add");
/// assert_eq!(toolbox.to_anthropic()[0]["input_schema"]["required"], json!(["a", "b"]));
/// assert_eq!(toolbox.to_gemini()["functionDeclarations"][0]["name"], "add");
/// ```
impl Toolbox {
    /// OpenAI Chat Completions `tools`.
    pub fn to_openai(&self) -> Value {
        openai_tools(self.tools())
    }

    /// OpenAI Chat Completions `tools` in strict mode, or the first tool that cannot be.
    pub fn to_openai_strict(&self) -> Result<Value, ToolError> {
        openai_strict_tools(self.tools())
    }

    /// OpenAI Responses API `tools`.
    pub fn to_openai_responses(&self) -> Value {
        openai_responses_tools(self.tools())
    }

    /// Anthropic Messages `tools`.
    pub fn to_anthropic(&self) -> Value {
        anthropic_tools(self.tools())
    }

    /// Gemini: one `{"functionDeclarations": [...]}` object.
    pub fn to_gemini(&self) -> Value {
        gemini_tools(self.tools())
    }

    /// MCP `tools/list` entries.
    pub fn to_mcp(&self) -> Value {
        mcp_tools(self.tools())
    }
}
