//! Every rendering of a toolbox's definitions a model or an MCP client sees, in one JSON object.

// Each test file compiles its own copy of `common`, and uses only part of it.
#![allow(dead_code)]

use serde_json::{Value, json};
use toolkit::Toolbox;

/// `parameters()` of `tool`, the six provider formats and MCP `tools/list`, keyed by name.
pub fn every_format(toolbox: &Toolbox, tool: &str) -> Value {
    json!({
        "parameters": toolbox.get(tool).map(|tool| tool.parameters().clone()),
        "openai": toolbox.to_openai(),
        "openai_strict": toolbox.to_openai_strict().unwrap(),
        "openai_responses": toolbox.to_openai_responses(),
        "anthropic": toolbox.to_anthropic(),
        "gemini": toolbox.to_gemini(),
        "mcp_tools_list": toolbox.to_mcp(),
    })
}
