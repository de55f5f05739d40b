//! Tool definitions, tool calls and tool results in each provider's wire format.
//!
//! A tool is provider-neutral: its parameters are one self-contained JSON Schema. The boundary
//! with each API is where that schema must change shape: OpenAI's strict mode wants every
//! property required and optional ones nullable; Gemini accepts only an OpenAPI 3.0 subset. Those
//! conversions live here, one file per provider, and a schema that cannot be converted is an
//! error at conversion time, not a 400 from the provider.
//!
//! One [`Format`] names each provider; one method per type renders in it:
//! [`ToolProxy::definition_in`](crate::ToolProxy::definition_in),
//! [`Toolbox::definitions`](crate::Toolbox::definitions) (kept for the toolbox's life) and
//! [`ToolCallResult::render`](crate::ToolCallResult::render).
//!
//! | provider | format | converter |
//! | --- | --- | --- |
//! | OpenAI Chat Completions | [`Format::OpenAi`], [`Format::OpenAiStrict`] | `strict` |
//! | OpenAI Responses | [`Format::OpenAiResponses`] | `strict` |
//! | Anthropic Messages | [`Format::Anthropic`] | none |
//! | Gemini | [`Format::Gemini`] | `gemini` |
//! | MCP | [`Format::Mcp`], and [`ToolProxy::mcp_result`](crate::ToolProxy::mcp_result) for a served tool | none |
//!
//! Calls come in through [`ToolCalls::parse`](crate::ToolCalls::parse) (`parse`), which reads
//! every provider's shape and repairs argument strings ([`repair_arguments`]).
//!
//! OpenAI and Anthropic, whose conversations the built-in clients speak, keep their whole wire
//! format in one folder each: definitions and results, the request body built from a
//! [`ChatRequest`](crate::chat::ChatRequest), the reader of a tool call (strict for a reply,
//! lenient for `ToolCalls::parse`), the whole reply and the streamed one ([`openai`],
//! [`anthropic`]). An HTTP client only moves their bytes.

pub mod anthropic;
mod arguments;
mod content;
pub mod gemini;
mod mcp;
mod notes;
pub mod openai;
pub(crate) mod parse;
mod render;
mod repair;
pub mod responses;
mod strict;

pub use crate::definitions::ToolDefinitions;
pub use crate::format::Format;
pub use gemini::{GEMINI_KEYWORDS, gemini_schema};
pub use mcp::McpResult;
pub(crate) use mcp::annotations_from_mcp;
pub use repair::repair_arguments;

#[cfg(any(test, feature = "__test_hooks"))]
#[doc(hidden)]
pub use arguments::__read_arguments;
