//! Tool definitions, tool calls and tool results in each provider's wire format.
//!
//! A tool is provider-neutral: its parameters are one self-contained JSON Schema. The boundary
//! with each API is where that schema must change shape: OpenAI's strict mode wants every
//! property required and optional ones nullable; Gemini accepts only an OpenAPI 3.0 subset. Those
//! conversions live here, one file per provider, and a schema that cannot be converted is an
//! error at conversion time, not a 400 from the provider.
//!
//! | provider | definition | result | converter |
//! | --- | --- | --- | --- |
//! | OpenAI Chat Completions | [`ToolProxy::to_openai`], [`ToolProxy::to_openai_strict`] | [`ToolCallResult::to_openai`](crate::ToolCallResult::to_openai) | `strict` |
//! | OpenAI Responses | [`ToolProxy::to_openai_responses`] | [`ToolCallResult::to_openai_responses`](crate::ToolCallResult::to_openai_responses) | `strict` |
//! | Anthropic Messages | [`ToolProxy::to_anthropic`] | [`ToolCallResult::to_anthropic`](crate::ToolCallResult::to_anthropic) | none |
//! | Gemini | [`ToolProxy::to_gemini`] | [`ToolCallResult::to_gemini`](crate::ToolCallResult::to_gemini) | `gemini` |
//! | MCP | [`ToolProxy::to_mcp`] | [`ToolCallResult::to_mcp`](crate::ToolCallResult::to_mcp), [`ToolProxy::to_mcp_result`] | none |
//!
//! Calls come in through [`ToolCalls::parse`](crate::ToolCalls::parse) (`parse`), which reads
//! every provider's shape and repairs argument strings (`repair`).

mod anthropic;
mod gemini;
mod mcp;
mod notes;
mod openai;
pub mod parse;
mod repair;
mod strict;

pub use gemini::{GEMINI_KEYWORDS, gemini_schema};
pub use mcp::McpResult;
pub(crate) use mcp::annotations_from_mcp;

use serde_json::{Value, json};

use crate::ToolProxy;
use crate::error::ToolError;

/// The `tools` array of an OpenAI Chat Completions request.
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
/// let tools = toolkit::formats::openai_tools(&[add_tool()]);
/// assert_eq!(tools[0]["function"]["name"], "add");
/// ```
pub fn openai_tools(tools: &[ToolProxy]) -> Value {
    tools.iter().map(ToolProxy::to_openai).collect()
}

/// The `tools` array of an OpenAI Chat Completions request in strict mode; the first tool that
/// cannot be converted is the error.
pub fn openai_strict_tools(tools: &[ToolProxy]) -> Result<Value, ToolError> {
    tools
        .iter()
        .map(ToolProxy::to_openai_strict)
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// The `tools` array of an OpenAI Responses API request.
pub fn openai_responses_tools(tools: &[ToolProxy]) -> Value {
    tools.iter().map(ToolProxy::to_openai_responses).collect()
}

/// The `tools` array of an Anthropic Messages request.
pub fn anthropic_tools(tools: &[ToolProxy]) -> Value {
    tools.iter().map(ToolProxy::to_anthropic).collect()
}

/// One Gemini tool, `{"functionDeclarations": [...]}`, declaring every tool given.
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
/// let tool = toolkit::formats::gemini_tools(&[add_tool()]);
/// assert_eq!(tool["functionDeclarations"][0]["name"], "add");
/// ```
pub fn gemini_tools(tools: &[ToolProxy]) -> Value {
    let declarations: Vec<Value> = tools.iter().map(ToolProxy::to_gemini).collect();
    json!({ "functionDeclarations": declarations })
}

/// The `tools` array of an MCP `tools/list` result.
pub fn mcp_tools(tools: &[ToolProxy]) -> Value {
    tools.iter().map(ToolProxy::to_mcp).collect()
}
