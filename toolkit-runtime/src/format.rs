//! The names of the providers' wire formats. The pipeline keys its caches by them, and
//! [`providers`](crate::providers) renders in each; so the name sits below both.

/// A provider's wire format: what [`ToolProxy::definition_in`], [`Toolbox::definitions`] and
/// [`ToolCallResult::render`] render in.
///
/// [`ToolProxy::definition_in`]: crate::ToolProxy::definition_in
/// [`Toolbox::definitions`]: crate::Toolbox::definitions
/// [`ToolCallResult::render`]: crate::ToolCallResult::render
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
/// let def = add_tool().definition_in(Format::Anthropic).unwrap();
/// assert_eq!(def["input_schema"]["required"], json!(["a", "b"]));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// OpenAI Chat Completions: `{"type": "function", "function": {...}}`; a result is a
    /// `{"role": "tool"}` message.
    OpenAi,
    /// OpenAI Chat Completions in strict mode (`"strict": true`, the parameters rewritten to
    /// the strict subset); the only format a definition can fail in. A result renders as in
    /// [`OpenAi`](Self::OpenAi).
    OpenAiStrict,
    /// The OpenAI Responses API: `{"type": "function", "name", ...}`; a result is a
    /// `function_call_output` item.
    OpenAiResponses,
    /// Anthropic Messages: `{"name", "description", "input_schema"}`; a result is a
    /// `tool_result` block.
    Anthropic,
    /// Gemini: function declarations in its OpenAPI 3.0 schema subset; a result is a
    /// `functionResponse` part.
    Gemini,
    /// MCP: `tools/list` entries and `tools/call` results.
    Mcp,
}

impl Format {
    /// Every format, in declaration order (the index of each is its place in a definition cache).
    pub(crate) const ALL: [Format; 6] = [
        Format::OpenAi,
        Format::OpenAiStrict,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::Gemini,
        Format::Mcp,
    ];
}
