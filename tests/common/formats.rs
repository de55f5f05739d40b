//! Every rendering of a toolbox's definitions a model or an MCP client sees, in one JSON object.

// Each test file compiles its own copy of `common`, and uses only part of it.
#![allow(dead_code)]

use serde_json::{Value, json};
use toolkit::Toolbox;
use toolkit::providers::Format;

/// `parameters()` of `tool`, the six provider formats and MCP `tools/list`, keyed by name.
pub fn every_format(toolbox: &Toolbox, tool: &str) -> Value {
    json!({
        "parameters": toolbox.get(tool).map(|tool| tool.parameters().clone()),
        "openai": toolbox.definitions(Format::OpenAi).unwrap(),
        "openai_strict": toolbox.definitions(Format::OpenAiStrict).unwrap(),
        "openai_responses": toolbox.definitions(Format::OpenAiResponses).unwrap(),
        "anthropic": toolbox.definitions(Format::Anthropic).unwrap(),
        "gemini": toolbox.definitions(Format::Gemini).unwrap(),
        "mcp_tools_list": toolbox.definitions(Format::Mcp).unwrap(),
    })
}
