//! The runtime behind `toolkit`: tool proxies, schemas, validation, dispatch and the registry.
//!
//! Users depend on the `toolkit` facade, which re-exports everything here together with the
//! `#[toolset]` macros; this crate has no macros of its own.
//!
//! The modules, bottom to top (a module uses only those above it in this list):
//! - `error`, `error_kind`, `bounds`: the error type and its kinds, the bounds on tool types;
//! - `future`, `content`, [`context`]: the boxed future, results that are more than JSON, and
//!   what a tool reaches while it runs;
//! - `format`, `names`: the names of the providers' formats, the one rule for a tool name
//!   claimed twice;
//! - [`schema`]: schemas from Rust types, the one `$ref` inliner, schema keywords;
//! - [`state`]: agent state, merge rules and how a tool is wired to state;
//! - `call`: [`ToolProxy`] and the pipeline every call goes through;
//! - `definitions`: the tools a model request offers, rendered once per format
//!   ([`providers::ToolDefinitions`]);
//! - [`chat`]: the provider-neutral conversation: messages, requests, replies, [`chat::ModelError`];
//! - [`providers`]: definitions, calls and results in each provider's wire format;
//! - `toolbox`: [`Toolbox`], dispatch by name under limits and hooks;
//! - [`completion`], [`resources`], [`prompts`]: what an MCP server offers beside tools;
//! - `builder`, `toolset`, [`registry`]: tools made at run time, toolsets, and the registry;
//! - `__private` (`private.rs`): what generated code uses.

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod bounds;
mod builder;
mod call;
pub mod chat;
pub mod completion;
mod content;
pub mod context;
mod definitions;
mod error;
mod error_kind;
mod format;
mod future;
// Used by generated code. Not public API (serde keeps its `__private` the same way).
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;
mod names;
pub mod prompts;
pub mod providers;
pub mod registry;
pub mod resources;
pub mod schema;
pub mod state;
mod toolbox;
mod toolset;

pub use bounds::{ToolArgument, ToolErrorMessage, ToolReturn};
pub use builder::ToolBuilder;
#[cfg(feature = "__test_hooks")]
#[doc(hidden)]
pub use call::__fast_path_calls;
pub use call::{
    BoxFuture, Icon, Limits, TaskSupport, ToolAnnotations, ToolDefinition, ToolOptions, ToolProxy,
    allow_async_to_sync, async_to_sync_allowed, is_valid_tool_name, within,
};
pub use call::{ToolCall, ToolCallResult};
pub use content::{
    Audio, Content, Image, IsContent, Resource, ResourceContents, ResourceLink, Text, ToolOutput,
};
pub use context::{Elicited, ToolContext};
pub use error::{ArgumentProblem, ToolError};
pub use error_kind::ToolErrorKind;
pub use names::{NameTaken, first_of_each_name};
pub use prompts::{PromptMessage, PromptProxy};
pub use providers::parse::ToolCalls;
pub use resources::{RequestError, ResourceProxy, ResourceTemplateProxy};
pub use toolbox::{BatchRequest, Toolbox, ToolboxBuilder, ToolboxError};
pub use toolset::Toolset;
