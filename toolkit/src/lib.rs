//! Turn ordinary Rust methods into tools a language model can call.
//!
//! `#[toolset]` on an `impl` block and `#[tool]` on its methods generate, at compile time, one
//! [`ToolProxy`] per exported method: its name, description, JSON Schema (from the Rust
//! signature, via schemars) and the code that turns a model's JSON into typed arguments.
//!
//! ```
//! use toolkit::prelude::*;
//!
//! #[derive(Default)]
//! struct TextStatsToolset;
//!
//! #[toolset(name = "stats")]
//! impl TextStatsToolset {
//!     /// Count whitespace-separated words
//!     #[tool]
//!     fn word_count(&self, text: String) -> usize {
//!         text.split_whitespace().count()
//!     }
//!
//!     #[tool(description = "Count lines")]
//!     fn line_count(&self, text: String) -> usize {
//!         text.lines().count()
//!     }
//!
//!     fn helper(&self) {} // no #[tool]: not exported
//! }
//!
//! let tools: Vec<ToolProxy> = TextStatsToolset::to_tools();
//! assert_eq!(
//!     tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
//!     ["stats_word_count", "stats_line_count"]
//! );
//! assert_eq!(tools[0].dynamic_call(json!({"text": "one two"})), json!(2));
//! ```
//!
//! See `docs/` in the repository for the type mapping and the design.

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// Generated code names `::toolkit::...`; this makes that path resolve inside this crate too.
extern crate self as toolkit;

pub mod builtin;
pub mod integrations;

pub use toolkit_macros::{prompt, resource, tool, toolset};
#[cfg(feature = "__test_hooks")]
#[doc(hidden)]
pub use toolkit_runtime::__fast_path_calls;
pub use toolkit_runtime::{
    ArgumentProblem, Icon, TaskSupport, ToolAnnotations, ToolArgument, ToolCall, ToolCallResult,
    ToolDefinition, ToolError, ToolErrorKind, ToolErrorMessage, ToolOptions, ToolProxy, ToolReturn,
    Toolset, allow_async_to_sync, async_to_sync_allowed, is_valid_tool_name, registry, schema,
};
pub use toolkit_runtime::{
    Audio, Content, Elicited, Image, IsContent, Resource, ResourceContents, ResourceLink, Text,
    ToolContext, ToolOutput, context,
};
pub use toolkit_runtime::{BatchRequest, Limits, Toolbox, ToolboxBuilder, ToolboxError};
pub use toolkit_runtime::{
    PromptMessage, PromptProxy, RequestError, ResourceProxy, ResourceTemplateProxy, completion,
    prompts, resources,
};
pub use toolkit_runtime::{ToolBuilder, ToolCalls, providers};

pub mod state {
    //! Agent state: keys that tools read their hidden parameters from and write their results to.
    //!
    //! A typed state derives [`AgentState`](macro@AgentState); tools built at run time use a
    //! [`DynamicState`]. A tool is wired with `#[toolset(state = T)]` and `#[arg(from_state)]` /
    //! `#[tool(outputs_to_state(...))]`, checked at compile time, or with
    //! [`ToolProxy::with_state`](crate::ToolProxy::with_state) and a [`StateWiring`] at run time.
    //! The rest of this page is the repository's `docs/state.md`.
    //!
    //! ```
    //! use toolkit::prelude::*;
    //! use serde::{Deserialize, Serialize};
    //!
    //! #[derive(AgentState, Default, Serialize, Deserialize)]
    //! struct Research {
    //!     repository: String,
    //!     documents: Vec<String>, // a list written to it is concatenated, one item appended
    //! }
    //!
    //! let mut state = Research::default();
    //! state.merge("documents", json!(["a", "b"])).unwrap();
    //! state.merge("documents", json!("c")).unwrap();
    //! assert_eq!(state.documents, ["a", "b", "c"]);
    //! assert!(state.merge("owner", json!("x")).is_err()); // no such key
    //! ```
    //!
    // The long form, where the module is (axum's way); `toolkit/docs` links to the workspace's
    // `docs/`, so the page is packaged with the crate.
    #![doc = include_str!("../docs/state.md")]

    pub use toolkit_macros::AgentState;
    pub use toolkit_runtime::state::*;
}

#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod mcp;
#[cfg(any(
    feature = "openai",
    feature = "anthropic",
    feature = "gemini",
    feature = "mcp"
))]
mod sse;
// One retry policy, with jitter, for the model clients and the MCP client's reconnections;
// public (as `toolkit::models::RetryPolicy`) only with a model client.
#[cfg(any(
    feature = "openai",
    feature = "anthropic",
    feature = "gemini",
    feature = "mcp"
))]
#[cfg_attr(
    not(any(feature = "openai", feature = "anthropic", feature = "gemini")),
    allow(unreachable_pub, dead_code)
)]
mod retry;
// The model clients' key redaction and the MCP client's transport names.
#[cfg(any(
    feature = "openai",
    feature = "anthropic",
    feature = "gemini",
    feature = "mcp"
))]
mod url_credentials;

#[cfg(feature = "agent")]
#[cfg_attr(docsrs, doc(cfg(feature = "agent")))]
pub mod agent;
#[cfg(feature = "restate")]
#[cfg_attr(docsrs, doc(cfg(feature = "restate")))]
pub mod durable;
#[cfg(feature = "agent")]
#[cfg_attr(docsrs, doc(cfg(feature = "agent")))]
pub mod models;

// docs/context.md's examples, compiled as doctests so the page cannot drift from the API.
#[cfg(doctest)]
#[allow(dead_code)]
#[doc = include_str!("../docs/context.md")]
struct ContextGuide;

/// schemars, re-exported so users derive `JsonSchema` with the major version toolkit uses.
pub use schemars;
/// serde_json, re-exported for `json!` and `Value`.
pub use serde_json;

/// Everything agent setup names: `use toolkit::prelude::*;`.
pub mod prelude {
    pub use crate::state::AgentState;
    pub use crate::{
        Audio, Content, Elicited, Image, PromptMessage, Resource, ResourceLink, ToolBuilder,
        ToolCall, ToolCallResult, ToolCalls, ToolContext, ToolError, ToolOutput, ToolProxy,
        Toolbox, Toolset, prompt, resource, tool, toolset,
    };
    pub use serde_json::{Value, json};
}

/// What generated code uses, exported as `__private_<version>` (see `build.rs`).
mod private {
    pub use ::inventory;
    pub use ::schemars;
    pub use ::serde;
    pub use ::serde_json;
    pub use ::std;
    pub use toolkit_runtime::__private::*;
}
include!(concat!(env!("OUT_DIR"), "/private.rs"));
