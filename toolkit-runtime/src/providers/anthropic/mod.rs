//! The Anthropic Messages wire format, in one place.
//!
//! | concept | where |
//! | --- | --- |
//! | tool definitions, `tool_result` blocks | `definitions` ([`Format::Anthropic`](super::Format::Anthropic)) |
//! | the request body | [`request_body`] |
//! | a `tool_use` block: its parts, read strictly for a reply (leniently by [`ToolCalls::parse`](crate::ToolCalls::parse)) | `call` |
//! | a whole reply | [`read_reply`] |
//! | a streamed reply | [`AnthropicStream`] |
//!
//! An HTTP client (the facade's `AnthropicClient`) only moves the bytes these build and read.

mod call;
mod definitions;
mod reply;
mod request;
mod stream;

pub(crate) use call::tool_use_block;
pub use reply::read_reply;
pub use request::request_body;
pub use stream::AnthropicStream;

/// The API's name in errors: "Anthropic Messages".
pub const API: &str = "Anthropic Messages";
