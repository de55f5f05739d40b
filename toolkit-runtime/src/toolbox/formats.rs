//! A whole toolbox in each provider's format.

use serde_json::Value;

use super::Toolbox;
use crate::ToolError;
use crate::providers::{Format, ToolDefinitions};

impl Toolbox {
    /// Every tool of the toolbox in `format`: the array (or, for Gemini, the one
    /// `{"functionDeclarations": [...]}` object) a request carries. Only
    /// [`Format::OpenAiStrict`] can fail, with the first tool that cannot be converted.
    ///
    /// Each format is rendered once and kept: asking again, for every request of an agent's
    /// run, costs a lookup. Merging, removing or selecting tools gives a toolbox that renders
    /// afresh.
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
    /// let toolbox = Toolbox::builder().tool(add_tool()).build().unwrap();
    /// let openai = toolbox.definitions(Format::OpenAi).unwrap();
    /// assert_eq!(openai[0]["function"]["name"], "add");
    /// let anthropic = toolbox.definitions(Format::Anthropic).unwrap();
    /// assert_eq!(anthropic[0]["input_schema"]["required"], json!(["a", "b"]));
    /// let gemini = toolbox.definitions(Format::Gemini).unwrap();
    /// assert_eq!(gemini["functionDeclarations"][0]["name"], "add");
    /// // Kept: the same rendering, not a copy of it.
    /// assert!(std::ptr::eq(openai, toolbox.definitions(Format::OpenAi).unwrap()));
    /// ```
    pub fn definitions(&self, format: Format) -> Result<&Value, ToolError> {
        self.definitions.render(format)
    }

    /// The toolbox's tools as a model request offers them, with the renderings it keeps.
    pub fn offered(&self) -> &ToolDefinitions {
        &self.definitions
    }

    /// Starts the renderings afresh, after the tools changed.
    pub(super) fn renew_definitions(&mut self) {
        self.definitions = std::sync::Arc::new(ToolDefinitions::new(self.tools.clone()));
    }
}

impl<'a> From<&'a Toolbox> for &'a ToolDefinitions {
    fn from(toolbox: &'a Toolbox) -> Self {
        toolbox.offered()
    }
}
