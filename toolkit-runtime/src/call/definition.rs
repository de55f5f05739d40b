//! Everything about a tool but its body: name, description, schemas and options.

use super::limits::Limits;

use serde_json::Value;

use crate::format::Format;

/// Hints a client may show or act on (MCP tool annotations); `None` means "not said".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    /// The tool does not change its environment.
    pub read_only: Option<bool>,
    /// The tool may destroy or overwrite data.
    pub destructive: Option<bool>,
    /// Calling the tool twice with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// The tool talks to the world outside (the web, other services).
    pub open_world: Option<bool>,
}

/// Per-tool behaviour that the schema does not describe.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ToolOptions {
    /// Skip lax coercion: arguments must match the schema exactly (`#[tool(strict)]`).
    pub strict: bool,
    /// Run a sync tool on tokio's blocking pool when called through `acall` (`#[tool(blocking)]`),
    /// its arguments checked there too.
    pub blocking: bool,
    /// The sync body returns at once, in microseconds (`#[tool(inline)]`): where sync tools
    /// are moved off the async workers so that a slow one cannot stall them (the MCP server
    /// does this), this one runs on the worker instead, without a hop to the blocking pool. A
    /// body marked `inline` that does block stalls every task of its worker meanwhile.
    pub inline: bool,
    /// MCP-style hints.
    pub annotations: ToolAnnotations,
    /// The tool's own limits (`#[tool(timeout_ms = 500, max_output_bytes = 10_000)]`): each
    /// one set wins over the toolbox's (see [`Limits`](crate::Limits)).
    pub limits: Limits,
    /// Check every call against the schema, even where the parameters' types already enforce
    /// all it says. Only for argument types whose `Deserialize` accepts more than their
    /// `JsonSchema` describes (a serde `alias`, `deserialize_with`, a hand-written impl): for
    /// every other type the outcome of a call is the same either way, only slower.
    pub always_validate: bool,
    /// The OAuth scopes a caller must hold to see and call the tool over MCP
    /// (`#[tool(scopes = ["repo:write"])]`): a caller without one does not find it in
    /// `tools/list`, and a call is refused with 403 `insufficient_scope`. Empty: anyone the
    /// server lets in. Local calls do not check scopes.
    pub scopes: Vec<String>,
    /// Whether the tool's MCP calls may, or must, become tasks a client polls
    /// (`#[tool(task)]`, `#[tool(task = "optional")]`; see [`TaskSupport`]).
    pub task: TaskSupport,
    /// A person must approve each call before it runs (`#[tool(needs_approval)]`): an agent
    /// asks its approval handler, or pauses the run with the call pending
    /// (see `toolkit::agent::ApprovalPolicy`). Only agents read it; a direct call runs.
    pub needs_approval: bool,
}

/// Whether a tool's MCP calls become tasks: a call answered at once with a task the client
/// then polls, answers questions of and may cancel, for tools that take long or wait on a
/// person.
///
/// Tasks are MCP 2026-07-28's Tasks extension (SEP-2663), for clients that declare it. A
/// 2026-07-28 client without the extension calling a [`Required`](TaskSupport::Required) tool
/// is refused (`-32021`, the capability it lacks); a handshake-era client (MCP 2024-11-05 to
/// 2025-11-25) is offered no tasks and calls every tool plainly, waiting for its result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Calls return their result directly (MCP's default).
    #[default]
    Forbidden,
    /// A call of a client with the Tasks extension becomes a task when it has not answered
    /// within the server's task window, or when it asks its client something; a quick call
    /// answers plainly (`#[tool(task = "optional")]`).
    Optional,
    /// Every call of a client with the Tasks extension is a task from its start
    /// (`#[tool(task)]`).
    Required,
}

/// An icon a client may show for a tool (MCP 2025-11-25 `Icon`): `#[tool(icon = "...")]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// An `https:` or `data:` URI of the image.
    pub src: String,
    /// Its media type, e.g. `image/png`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes in the form `48x48`, or `any` for a scalable image.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
}

impl Icon {
    /// An icon at `src`, with no media type or sizes.
    ///
    /// ```
    /// use toolkit_runtime::Icon;
    ///
    /// let icon = Icon::new("https://example.com/icon.png");
    /// assert_eq!(icon.src, "https://example.com/icon.png");
    /// ```
    pub fn new(src: impl Into<String>) -> Self {
        Icon {
            src: src.into(),
            mime_type: None,
            sizes: Vec::new(),
        }
    }
}

/// Everything about a tool but its body.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolDefinition {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// A name for people (MCP's `title`), when it has one: what a client shows instead of
    /// `name`. Tools listed by an MCP server keep theirs through a proxy.
    pub title: Option<String>,
    /// Icons a client may show for it (MCP's `icons`).
    pub icons: Vec<Icon>,
    /// The JSON Schema of its arguments (an object schema).
    pub parameters: Value,
    /// The JSON Schema of its result, when the result is structured.
    pub output_schema: Option<Value>,
    /// Behaviour beyond the schema.
    pub options: ToolOptions,
    /// The arguments' schema as MCP lists it, when it differs from `parameters`: a `#[tool]`
    /// whose parameter types have definitions keeps them (`$defs`, `$schema`) there, while
    /// `parameters` has them inlined for the providers and the validator.
    pub(crate) mcp_parameters: Option<Value>,
}

impl ToolDefinition {
    /// A definition with default options and no output schema.
    ///
    /// ```
    /// use toolkit_runtime::ToolDefinition;
    /// use serde_json::json;
    ///
    /// let def = ToolDefinition::new("echo", "Echo the text", json!({"type": "object"}));
    /// assert_eq!(def.name, "echo");
    /// ```
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        ToolDefinition {
            name: name.into(),
            description: description.into(),
            title: None,
            icons: Vec::new(),
            parameters,
            output_schema: None,
            options: ToolOptions::default(),
            mcp_parameters: None,
        }
    }
}

/// Why a name fails [`is_valid_tool_name`], as the errors of the builders that check it say.
pub(crate) const TOOL_NAME_RULE: &str = "the name must be 1 to 64 letters, digits, `_` or `-` \
     (^[a-zA-Z0-9_-]{1,64}$), as model providers require";

// The rule the macros check names with too: one function, in toolset-syntax.
pub use toolkit_syntax::is_valid_tool_name;

/// One rendering per provider [`Format`], made on first use and kept (on a proxy, and for a
/// whole toolbox): a request carries them every time, and the strict rewrite costs more than a
/// call.
#[derive(Debug, Default)]
pub(crate) struct DefinitionCache(
    [std::sync::OnceLock<Result<Value, crate::ToolError>>; Format::ALL.len()],
);

impl DefinitionCache {
    /// The rendering in `format`, made by `render` the first time.
    pub(crate) fn get(
        &self,
        format: Format,
        render: impl FnOnce() -> Result<Value, crate::ToolError>,
    ) -> Result<&Value, crate::ToolError> {
        self.0[format as usize]
            .get_or_init(render)
            .as_ref()
            .map_err(Clone::clone)
    }
}
