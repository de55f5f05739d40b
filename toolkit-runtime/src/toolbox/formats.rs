//! A whole toolbox in each provider's format.

use serde_json::Value;

use super::Toolbox;
use crate::ToolError;
use crate::call::DefinitionFormat;
use crate::call::ToolProxy;
use crate::providers::{
    anthropic_tools, gemini_tools, mcp_tools, openai_responses_tools, openai_strict_tools,
    openai_tools,
};

/// Every tool of a toolbox in each provider's format: the array (or, for Gemini, the one
/// `{"functionDeclarations": [...]}` object) a request carries.
///
/// Each is rendered once and kept: asking again, for every request of an agent's run, costs a
/// lookup. Merging, removing or selecting tools gives a toolbox that renders afresh.
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
/// // Kept: the same rendering, not a copy of it.
/// assert!(std::ptr::eq(toolbox.to_openai(), toolbox.to_openai()));
/// ```
impl Toolbox {
    /// OpenAI Chat Completions `tools`.
    pub fn to_openai(&self) -> &Value {
        self.rendered(DefinitionFormat::OpenAi, openai_tools)
    }

    /// OpenAI Chat Completions `tools` in strict mode, or the first tool that cannot be.
    pub fn to_openai_strict(&self) -> Result<&Value, ToolError> {
        let tools = self.tools();
        self.definitions.get(DefinitionFormat::OpenAiStrict, || {
            openai_strict_tools(tools)
        })
    }

    /// OpenAI Responses API `tools`.
    pub fn to_openai_responses(&self) -> &Value {
        self.rendered(DefinitionFormat::OpenAiResponses, openai_responses_tools)
    }

    /// Anthropic Messages `tools`.
    pub fn to_anthropic(&self) -> &Value {
        self.rendered(DefinitionFormat::Anthropic, anthropic_tools)
    }

    /// Gemini: one `{"functionDeclarations": [...]}` object.
    pub fn to_gemini(&self) -> &Value {
        self.rendered(DefinitionFormat::Gemini, gemini_tools)
    }

    /// MCP `tools/list` entries.
    pub fn to_mcp(&self) -> &Value {
        self.rendered(DefinitionFormat::Mcp, mcp_tools)
    }
}

impl Toolbox {
    fn rendered(&self, format: DefinitionFormat, render: fn(&[ToolProxy]) -> Value) -> &Value {
        let tools = self.tools();
        match self.definitions.get(format, || Ok(render(tools))) {
            Ok(rendered) => rendered,
            // `render` cannot fail, so neither can the lookup.
            Err(_) => &Value::Null,
        }
    }
}
