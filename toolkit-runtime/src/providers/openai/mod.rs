//! The OpenAI wire formats: Chat Completions (and the Responses API's definitions and results),
//! in one place.
//!
//! | concept | where |
//! | --- | --- |
//! | tool definitions, tool messages | `definitions` ([`Format::OpenAi`](super::Format::OpenAi), [`Format::OpenAiStrict`](super::Format::OpenAiStrict), [`Format::OpenAiResponses`](super::Format::OpenAiResponses)) |
//! | the request body | [`request_body`] |
//! | a tool result's images, sent in a user message after the tool messages | `tool_images` |
//! | a tool call: its parts, read strictly for a reply (leniently by [`ToolCalls::parse`](crate::ToolCalls::parse)) | `call` |
//! | a whole reply | [`read_reply`] |
//! | a streamed reply | [`OpenAiStream`] |
//!
//! An HTTP client (the facade's `OpenAiClient`) only moves the bytes these build and read.

mod call;
mod definitions;
mod reply;
mod request;
mod stream;
mod tool_images;

pub(crate) use call::chat_completions_call;
pub use reply::read_reply;
pub use request::request_body;
pub use stream::OpenAiStream;

/// The API's name in errors: "OpenAI Chat Completions".
pub const API: &str = "OpenAI Chat Completions";
