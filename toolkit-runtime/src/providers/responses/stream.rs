//! A streamed Responses reply assembled from its semantic events: text deltas appended,
//! function-call arguments assembled by output item, each capped as it comes.

use std::collections::HashMap;

use serde_json::Value;

use super::API;
use super::reply::{failed, finish_reason, usage};
use crate::ToolCall;
use crate::chat::caps::{CappedText, ReplyCaps};
use crate::chat::decode::At;
use crate::chat::{
    ChatOptions, FinishReason, ModelError, ModelReply, RefusedCall, StreamAssembler, StreamDelta,
    Usage,
};
use crate::providers::arguments::call_arguments;

/// A streamed Responses reply, assembled from its events as they arrive (see
/// [`StreamAssembler`]): `response.output_text.delta` appended to the text,
/// `response.output_item.added` starting a function call and
/// `response.function_call_arguments.delta` extending it, usage and status from
/// `response.completed` (or `response.incomplete`). `response.failed` and `error` are errors,
/// and a stream that ends before its terminal event is cut off.
///
/// ```
/// use toolkit_runtime::chat::{ChatOptions, StreamAssembler};
/// use toolkit_runtime::providers::responses::ResponsesStream;
///
/// let mut stream = ResponsesStream::new(&ChatOptions::default());
/// stream.event(Some("response.output_text.delta"),
///     r#"{"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"Hi"}"#).unwrap();
/// stream.event(Some("response.completed"),
///     r#"{"type":"response.completed","response":{"status":"completed","output":[]}}"#).unwrap();
/// assert_eq!(stream.finish().unwrap().text.as_deref(), Some("Hi"));
/// ```
#[derive(Debug, Default)]
pub struct ResponsesStream {
    /// Whether the terminal event came.
    done: bool,
    deltas: Vec<StreamDelta>,
    caps: ReplyCaps,
    usage: Option<Usage>,
    finish: Option<FinishReason>,
    text: Option<CappedText>,
    calls: Vec<PartialCall>,
    /// Where each output item's call is in `calls`.
    slots: HashMap<u64, usize>,
}

#[derive(Debug, Default)]
struct PartialCall {
    call_id: String,
    name: String,
    arguments: CappedText,
    /// Whether any `arguments.delta` came (else `arguments.done` gives them whole).
    streamed: bool,
}

impl StreamAssembler for ResponsesStream {
    fn new(options: &ChatOptions) -> Self {
        ResponsesStream {
            caps: ReplyCaps::of(options),
            ..ResponsesStream::default()
        }
    }

    fn event(&mut self, _event: Option<&str>, data: &str) -> Result<(), ModelError> {
        let data = serde_json::from_str::<Value>(data).map_err(|e| ModelError::Decode {
            api: API,
            message: format!("a stream event is not JSON: {e}"),
        })?;
        let root = At::root(API, &data);
        match root.get("type").str()? {
            "response.output_text.delta" | "response.refusal.delta" => {
                let piece = root.get("delta").str()?;
                self.deltas.push(StreamDelta::Text(piece.to_owned()));
                let cap = self.caps.text;
                self.text
                    .get_or_insert_with(Default::default)
                    .push(piece, cap);
            }
            "response.output_item.added" => self.added(&root)?,
            "response.function_call_arguments.delta" => {
                let piece = root.get("delta").str()?;
                let index = self.call_at(&root)?;
                let call = &mut self.calls[index];
                call.streamed = true;
                call.arguments.push(piece, self.caps.arguments);
                self.deltas.push(StreamDelta::ToolCall {
                    index,
                    id: None,
                    name: None,
                    arguments: piece.to_owned(),
                });
            }
            "response.function_call_arguments.done" => {
                let index = self.call_at(&root)?;
                let call = &mut self.calls[index];
                if !call.streamed {
                    let whole = root.get("arguments").str()?;
                    call.arguments.push(whole, self.caps.arguments);
                }
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                let response = root.get("response");
                failed(&response)?;
                self.usage = usage(&response.get("usage"))?;
                self.finish = Some(finish_reason(&response, !self.calls.is_empty())?);
                self.done = true;
            }
            "error" => {
                let message = root.get("message").opt_str()?.unwrap_or("no message");
                let code = root.get("code").opt_str()?.unwrap_or("unknown");
                return Err(root.error(&format!("reports an error ({code}): {message}")));
            }
            // `response.created`, `response.in_progress`, content-part and `.done` events
            // repeat what the deltas said.
            _ => {}
        }
        Ok(())
    }

    fn take_deltas(&mut self) -> Vec<StreamDelta> {
        std::mem::take(&mut self.deltas)
    }

    fn finish(self) -> Result<ModelReply, ModelError> {
        if !self.done {
            return Err(ModelError::Truncated(
                "the event stream ended before `response.completed`".into(),
            ));
        }
        let caps = self.caps;
        let mut tool_calls = Vec::with_capacity(self.calls.len());
        let mut refused_calls = Vec::new();
        for call in self.calls {
            match call.arguments.within(caps.arguments) {
                Ok(arguments) => tool_calls.push(
                    ToolCall::new(call.name, call_arguments(&arguments)).with_id(call.call_id),
                ),
                Err(size) => refused_calls.push(RefusedCall::new(
                    ToolCall::new(call.name, Value::Null).with_id(call.call_id),
                    caps.too_large(size),
                )),
            }
        }
        Ok(ModelReply {
            usage: self.usage,
            finish: self.finish.unwrap_or(FinishReason::Stop),
            text: self.text.map(|text| text.into_text(caps.text)),
            tool_calls,
            refused_calls,
        })
    }
}

impl ResponsesStream {
    /// `response.output_item.added`: a `function_call` item starts a call.
    fn added(&mut self, root: &At<'_>) -> Result<(), ModelError> {
        let item = root.get("item");
        if item.get("type").str()? != "function_call" {
            return Ok(());
        }
        let output_index = root.get("output_index").count()?;
        let call = PartialCall {
            call_id: item.get("call_id").str()?.to_owned(),
            name: item.get("name").str()?.to_owned(),
            ..PartialCall::default()
        };
        self.deltas.push(StreamDelta::ToolCall {
            index: self.calls.len(),
            id: Some(call.call_id.clone()),
            name: Some(call.name.clone()),
            arguments: String::new(),
        });
        self.slots.insert(output_index, self.calls.len());
        self.calls.push(call);
        Ok(())
    }

    fn call_at(&self, root: &At<'_>) -> Result<usize, ModelError> {
        let output_index = root.get("output_index").count()?;
        self.slots.get(&output_index).copied().ok_or_else(|| {
            root.get("output_index")
                .error("names a function call that was never added")
        })
    }
}
