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
    /// The pieces of the reply the events fed since the last call brought, for a caller that
    /// shows the reply as it arrives (an agent's streamed run). An assembler that keeps none
    /// returns none: the whole reply still comes from [`finish`](Self::finish).
    fn take_deltas(&mut self) -> Vec<StreamDelta> {
        Vec::new()
    }
}

/// A piece of a reply as it streams in: the events a UI shows before the reply is whole.
///
/// ```
/// use toolkit_runtime::chat::{ChatOptions, StreamAssembler, StreamDelta};
/// use toolkit_runtime::providers::openai::OpenAiStream;
///
/// let mut stream = OpenAiStream::new(&ChatOptions::default());
/// stream.event(None, r#"{"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#).unwrap();
/// assert_eq!(stream.take_deltas(), [StreamDelta::Text("Hi".into())]);
/// assert_eq!(stream.take_deltas(), []);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StreamDelta {
    /// More of the reply's text.
    Text(String),
    /// More of one tool call: its id and name when this fragment names them, and the next
    /// piece of its arguments' JSON text.
    ToolCall {
        /// The call's position in the reply, from 0.
        index: usize,
        /// The provider's id for the call, when this fragment carries it.
        id: Option<String>,
        /// The tool, when this fragment names it.
        name: Option<String>,
        /// The next piece of the arguments (may be empty).
        arguments: String,
    },
}
