//! A streamed reply, assembled from its server-sent events as they arrive.

use super::{ChatOptions, ModelError, ModelReply};

/// Builds a reply from the events of a stream, fed as they arrive: each provider's stream
/// format implements it ([`OpenAiStream`](crate::providers::openai::OpenAiStream),
/// [`AnthropicStream`](crate::providers::anthropic::AnthropicStream)).
///
/// It takes the two fields of a server-sent event that carry a reply, so any SSE parser can
/// feed it.
///
/// ```
/// use toolkit_runtime::chat::{ChatOptions, StreamAssembler};
/// use toolkit_runtime::providers::openai::OpenAiStream;
///
/// let mut stream = OpenAiStream::new(&ChatOptions::default());
/// stream.event(None, r#"{"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#).unwrap();
/// stream.event(None, "[DONE]").unwrap();
/// assert_eq!(stream.finish().unwrap().text.as_deref(), Some("Hi"));
/// ```
pub trait StreamAssembler: Send {
    /// An assembler under the caps of `options` (text and arguments kept).
    fn new(options: &ChatOptions) -> Self;
    /// Takes one server-sent event: its `event:` name, if any, and its data.
    fn event(&mut self, event: Option<&str>, data: &str) -> Result<(), ModelError>;
    /// The reply, or why the stream was incomplete.
    fn finish(self) -> Result<ModelReply, ModelError>;
}
