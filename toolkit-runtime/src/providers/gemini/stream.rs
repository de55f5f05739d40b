//! A streamed `generateContent` reply (`:streamGenerateContent?alt=sse`): each event is a
//! whole `GenerateContentResponse` holding the next piece.

use super::reply::{finish_reason, read_chunk};
use crate::ToolCall;
use crate::chat::caps::{CappedText, ReplyCaps};
use crate::chat::{ChatOptions, ModelError, ModelReply, StreamAssembler, StreamDelta, Usage};

/// A streamed Gemini reply, assembled from its chunks as they arrive (see
/// [`StreamAssembler`]): text appended and capped, each `functionCall` part (Gemini sends a
/// call whole) kept, the last `usageMetadata` kept. The stream has no end marker: a chunk with
/// a `finishReason` ends it, and a stream without one was cut off.
///
/// ```
/// use toolkit_runtime::chat::{ChatOptions, StreamAssembler};
/// use toolkit_runtime::providers::gemini::GeminiStream;
///
/// let mut stream = GeminiStream::new(&ChatOptions::default());
/// stream.event(None, r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]}}]}"#).unwrap();
/// stream.event(None, r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"!"}]},"finishReason":"STOP"}]}"#).unwrap();
/// assert_eq!(stream.finish().unwrap().text.as_deref(), Some("Hi!"));
/// ```
#[derive(Debug, Default)]
pub struct GeminiStream {
    caps: ReplyCaps,
    text: Option<CappedText>,
    calls: Vec<ToolCall>,
    finish: Option<String>,
    usage: Option<Usage>,
    deltas: Vec<StreamDelta>,
}

impl StreamAssembler for GeminiStream {
    fn new(options: &ChatOptions) -> Self {
        GeminiStream {
            caps: ReplyCaps::of(options),
            ..GeminiStream::default()
        }
    }

    fn event(&mut self, _event: Option<&str>, data: &str) -> Result<(), ModelError> {
        let body: serde_json::Value =
            serde_json::from_str(data).map_err(|e| ModelError::Decode {
                api: super::API,
                message: format!("a stream chunk is not JSON: {e}"),
            })?;
        let mut chunk = read_chunk(&body)?;
        super::call_id::name_unnamed(&mut chunk.calls, self.calls.len());
        if let Some(text) = chunk.text {
            let cap = self.caps.text;
            self.text
                .get_or_insert_with(Default::default)
                .push(&text, cap);
            self.deltas.push(StreamDelta::Text(text));
        }
        for call in chunk.calls {
            self.deltas.push(StreamDelta::ToolCall {
                index: self.calls.len(),
                id: call.id.clone(),
                name: Some(call.name.clone()),
                arguments: call.args.to_string(),
            });
            self.calls.push(call);
        }
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        if chunk.finish.is_some() {
            self.finish = chunk.finish;
        }
        Ok(())
    }

    fn finish(self) -> Result<ModelReply, ModelError> {
        let Some(reason) = self.finish else {
            return Err(ModelError::Truncated(
                "the event stream ended before a chunk with a `finishReason`".into(),
            ));
        };
        let reply = ModelReply {
            finish: finish_reason(Some(&reason), !self.calls.is_empty()),
            text: self.text.map(|text| text.into_text(self.caps.text)),
            tool_calls: self.calls,
            usage: self.usage,
            refused_calls: Vec::new(),
        };
        // A call's arguments arrive as a value: the caps of a whole reply hold them. The text
        // was capped as it came, so it is not capped again.
        Ok(reply.capped_by(&ChatOptions {
            max_text_bytes: usize::MAX,
            max_argument_bytes: self.caps.arguments,
            ..ChatOptions::default()
        }))
    }

    fn take_deltas(&mut self) -> Vec<StreamDelta> {
        std::mem::take(&mut self.deltas)
    }
}
