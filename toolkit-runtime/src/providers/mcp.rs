//! MCP: `tools/list` entries and `tools/call` results. The MCP server serves exactly these, so
//! what a toolbox renders with `definitions(Format::Mcp)` is what an MCP client receives.

use serde_json::{Map, Value, json};

use crate::content::Content;
use crate::{ToolAnnotations, ToolCallResult, ToolProxy};

impl ToolProxy {
    /// The arguments' schema as MCP's `tools/list` sends it: for a `#[tool]` whose parameter
    /// types have definitions, the schema as schemars wrote it, with `$defs` and a `$schema` of
    /// 2020-12 (MCP takes the whole 2020-12 vocabulary); otherwise
    /// [`parameters`](Self::parameters). Every other format reads `parameters`, whose
    /// references are inlined.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Point {
    ///     x: i32,
    /// }
    ///
    /// /// Plot a point
    /// #[tool]
    /// fn plot(at: Point) -> i32 {
    ///     at.x
    /// }
    ///
    /// let tool = plot_tool();
    /// let mcp = tool.mcp_parameters();
    /// assert_eq!(mcp["$schema"], "https://json-schema.org/draft/2020-12/schema");
    /// assert_eq!(mcp["properties"]["at"]["$ref"], "#/$defs/Point");
    /// assert_eq!(tool.parameters()["properties"]["at"]["properties"]["x"]["type"], "integer");
    /// ```
    pub fn mcp_parameters(&self) -> &Value {
        let definition = self.definition();
        definition
            .mcp_parameters
            .as_ref()
            .unwrap_or(&definition.parameters)
    }

    /// The MCP `tools/list` entry: `{"name", "description", "inputSchema"}`, plus `title` and
    /// `icons` when the tool has them, `outputSchema` when the tool returns a structured type,
    /// `annotations` from `#[tool(read_only, destructive, idempotent, open_world)]` and
    /// `execution.taskSupport` (MCP 2025-11-25) for a tool that may or must run as a task.
    pub(super) fn mcp_definition(&self) -> Value {
        let mut tool = Map::new();
        tool.insert("name".into(), self.name().into());
        if let Some(title) = self.title() {
            tool.insert("title".into(), title.into());
        }
        let icons = &self.definition().icons;
        if !icons.is_empty() {
            tool.insert("icons".into(), json!(icons));
        }
        tool.insert("description".into(), self.description().into());
        // MCP takes `$defs` and `$schema`: a `#[tool]` schema is listed as schemars wrote it.
        tool.insert("inputSchema".into(), self.mcp_parameters().clone());
        if let Some(schema) = self.output_schema() {
            tool.insert("outputSchema".into(), schema.clone());
        }
        let mut annotations = Map::new();
        for (key, hint) in annotation_hints(&self.options().annotations) {
            if let Some(hint) = hint {
                annotations.insert(key.into(), hint.into());
            }
        }
        if !annotations.is_empty() {
            tool.insert("annotations".into(), Value::Object(annotations));
        }
        let task = match self.options().task {
            crate::TaskSupport::Optional => Some("optional"),
            crate::TaskSupport::Required => Some("required"),
            _ => None,
        };
        if let Some(task) = task {
            tool.insert("execution".into(), json!({"taskSupport": task}));
        }
        Value::Object(tool)
    }

    /// The MCP `CallToolResult` for a result of this tool, as the MCP server sends it: a
    /// content result's blocks as they are, any other result as one text content block, `structuredContent` when the tool declares an output
    /// schema and the result is an object, and `isError`; an error's text without the `Error: `
    /// prefix, since `isError` already says so. [`McpResult::to_json`] is its JSON; a server
    /// that builds the result in its own types (the MCP server builds rmcp's) reads the parts.
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
    /// let tool = add_tool();
    /// let call = ToolCall::new("add", json!({"a": 1}));
    /// let result = ToolCallResult::from_outcome(&call, tool.call(call.args.clone()));
    /// assert_eq!(
    ///     tool.mcp_result(result).to_json(),
    ///     json!({
    ///         "content": [{"type": "text", "text": "missing required argument \"b\" for add"}],
    ///         "isError": true
    ///     })
    /// );
    ///
    /// let call = ToolCall::new("add", json!({"a": 1, "b": 2}));
    /// let result = ToolCallResult::from_outcome(&call, tool.call(call.args.clone()));
    /// let parts = tool.mcp_result(result);
    /// assert_eq!((parts.text.as_str(), parts.structured, parts.is_error), ("3", None, false));
    /// ```
    pub fn mcp_result(&self, result: ToolCallResult) -> McpResult {
        McpResult::new(result, self.output_schema().is_some())
    }
}

/// An MCP `tools/call` result: its content blocks, the structured content, and whether it is
/// an error ([`ToolProxy::mcp_result`]).
///
/// A tool that returns JSON has one text block (`text`); a tool that returns content
/// ([`ToolCallResult::content`]) has its blocks as they are (text, image, audio, resource,
/// resource link), and its [`ToolOutput::structured_content`](crate::ToolOutput::structured_content) as `structuredContent`.
///
/// ```
/// use toolkit::prelude::*;
///
/// /// Draw a chart
/// #[tool]
/// fn chart() -> ToolOutput {
///     ToolOutput::new().with("two bars").with(Image::png([1, 2, 3])).structured(json!({"bars": 2}))
/// }
///
/// let tool = chart_tool();
/// let toolbox = Toolbox::builder().tool(tool.clone()).build().unwrap();
/// let result = toolbox.call(&ToolCall::new("chart", json!({})));
/// assert_eq!(
///     tool.mcp_result(result).to_json(),
///     json!({
///         "content": [
///             {"type": "text", "text": "two bars"},
///             {"type": "image", "data": "AQID", "mimeType": "image/png"}
///         ],
///         "structuredContent": {"bars": 2},
///         "isError": false
///     })
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpResult {
    /// The result as text: the one text block of a JSON result or of an error (the error's
    /// message), or a content result's text ([`ToolOutput::to_text`](crate::ToolOutput::to_text)).
    pub text: String,
    /// The content blocks, as `content` sends them.
    pub content: Vec<Content>,
    /// `structuredContent`: a successful object result when the receiver expects one, or a
    /// content result's structured content.
    pub structured: Option<Value>,
    /// `isError`.
    pub is_error: bool,
}

impl McpResult {
    /// Structured content only for a successful object result, and only when `structured` says
    /// the receiver expects it; a content result carries its own.
    fn new(result: ToolCallResult, structured: bool) -> Self {
        if let Some(output) = result.content() {
            return McpResult {
                text: output.to_text(),
                content: output.content,
                structured: output.structured_content,
                is_error: false,
            };
        }
        // `isError` says it failed: the error's own message, from the typed error.
        let text = result.error_message().unwrap_or_else(|| result.text());
        let structured =
            (structured && !result.is_error && result.value.is_object()).then_some(result.value);
        McpResult {
            content: vec![Content::text(text.clone())],
            text,
            structured,
            is_error: result.is_error,
        }
    }

    /// `{"content": [...], "structuredContent"?, "isError"}`.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        let content = serde_json::to_value(&self.content).unwrap_or_else(|_| json!([]));
        out.insert("content".into(), content);
        if let Some(structured) = &self.structured {
            out.insert("structuredContent".into(), structured.clone());
        }
        out.insert("isError".into(), self.is_error.into());
        Value::Object(out)
    }
}

impl ToolCallResult {
    /// The MCP `CallToolResult` without the tool at hand: any object counts as structured. An
    /// error reads as [`ToolProxy::mcp_result`] words it, as the MCP server sends it.
    pub(super) fn mcp_result_json(&self) -> Value {
        McpResult::new(self.clone(), true).to_json()
    }
}

/// MCP's annotation keys, each with the hint it carries.
pub(crate) fn annotation_hints(hints: &ToolAnnotations) -> [(&'static str, Option<bool>); 4] {
    [
        ("readOnlyHint", hints.read_only),
        ("destructiveHint", hints.destructive),
        ("idempotentHint", hints.idempotent),
        ("openWorldHint", hints.open_world),
    ]
}

/// The hints an MCP `annotations` object gives (other keys are ignored).
pub(crate) fn annotations_from_mcp(annotations: &Value) -> ToolAnnotations {
    let hint = |key: &str| annotations.get(key).and_then(Value::as_bool);
    ToolAnnotations {
        read_only: hint("readOnlyHint"),
        destructive: hint("destructiveHint"),
        idempotent: hint("idempotentHint"),
        open_world: hint("openWorldHint"),
    }
}
