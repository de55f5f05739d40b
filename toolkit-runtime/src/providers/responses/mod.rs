//! The OpenAI Responses API wire format (`POST {base}/responses`): the request body, a whole
//! reply and a streamed one. Tool definitions and `function_call_output` items are
//! [`Format::OpenAiResponses`](super::Format::OpenAiResponses)'s (`providers::openai`).
//!
//! The shapes are those of OpenAI's API reference, "Responses" (create a response, the
//! response object) and "Streaming events" (`response.output_text.delta`,
//! `response.function_call_arguments.delta`, `response.completed`, `error`, ...):
//! <https://platform.openai.com/docs/api-reference/responses>.
//!
//! | concept | where |
//! | --- | --- |
//! | the request body | [`request_body`] |
//! | a whole reply | [`read_reply`] |
//! | a streamed reply | [`ResponsesStream`] |

mod reply;
mod request;
mod stream;

pub use reply::read_reply;
pub use request::request_body;
pub use stream::ResponsesStream;

/// The API's name in errors: "OpenAI Responses".
pub const API: &str = "OpenAI Responses";
