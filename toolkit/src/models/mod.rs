//! Chat models an agent talks to: the [`ChatModel`] trait, the provider-neutral messages it
//! takes and the reply it gives, and one HTTP client per model API.
//!
//! The messages, the reply and [`ModelError`] are the runtime's (`toolkit_runtime::chat`), and
//! each API's wire format (request bodies, replies, streams) lives in the runtime's
//! `providers::openai` and `providers::anthropic`: a client here only moves the bytes.
//!
//! - [`ScriptedModel`]: replies from a list or a closure, for tests and examples;
//! - [`Recorder`] / [`Replayer`]: a run's model exchanges saved to JSON and played back;
//! - `OpenAiClient` (feature `openai`): OpenAI-compatible Chat Completions over HTTP;
//! - `OpenAiResponsesClient` (feature `openai`): the OpenAI Responses API over HTTP;
//! - `AnthropicClient` (feature `anthropic`): the Anthropic Messages API over HTTP;
//! - `GeminiClient` (feature `gemini`): the Gemini API over HTTP.

mod record;
pub(crate) mod sampling;
mod scripted;

#[cfg(feature = "anthropic")]
mod anthropic;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod api_key;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod body;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod builder;
#[cfg(feature = "gemini")]
mod gemini;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod http;
#[cfg(feature = "openai")]
mod openai;
#[cfg(feature = "openai")]
mod responses;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod retry;

pub use record::{Exchange, Recorder, Replayer};
pub use scripted::ScriptedModel;
pub use toolkit_runtime::chat::{
    ChatOptions, ChatRequest, FinishReason, Message, ModelError, ModelReply, OutputSchema,
    RefusedCall, StreamDelta, ToolChoice, Usage,
};

#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(feature = "openai", feature = "anthropic", feature = "gemini")))
)]
pub use crate::retry::RetryPolicy;
#[cfg(feature = "anthropic")]
#[cfg_attr(docsrs, doc(cfg(feature = "anthropic")))]
pub use anthropic::{Anthropic, AnthropicClient, AnthropicClientBuilder};
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(feature = "openai", feature = "anthropic", feature = "gemini")))
)]
pub use api_key::ApiKey;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(feature = "openai", feature = "anthropic", feature = "gemini")))
)]
pub use builder::ModelClientBuilder;
#[cfg(feature = "gemini")]
#[cfg_attr(docsrs, doc(cfg(feature = "gemini")))]
pub use gemini::{Gemini, GeminiClient, GeminiClientBuilder};
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(feature = "openai", feature = "anthropic", feature = "gemini")))
)]
pub use http::{ModelClient, WireApi};
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use openai::{OpenAi, OpenAiClient, OpenAiClientBuilder};
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use responses::{OpenAiResponses, OpenAiResponsesClient, OpenAiResponsesClientBuilder};

pub use toolkit_runtime::BoxFuture;

/// A chat model: messages, tools and options in; text and/or tool calls, a finish reason and
/// usage out. Object safe, so an agent holds any model as `Arc<dyn ChatModel>`.
///
/// ```
/// use toolkit::models::{ChatModel, ChatRequest, ModelReply, ScriptedModel};
/// use toolkit::models::{ChatOptions, Message};
/// use toolkit::Toolbox;
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let model: Box<dyn ChatModel> = Box::new(ScriptedModel::new([ModelReply::text("hello")]));
/// let messages = [Message::user("hi")];
/// let toolbox = Toolbox::default();
/// let options = ChatOptions::default();
/// let reply = model.chat(ChatRequest::new(&messages, &toolbox, &options)).await.unwrap();
/// assert_eq!(reply.text.as_deref(), Some("hello"));
/// # });
/// ```
pub trait ChatModel: Send + Sync {
    /// Asks the model for its next reply to `request`.
    fn chat<'a>(
        &'a self,
        request: ChatRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelReply, ModelError>>;

    /// A short name for logs and spans (the model id for a client).
    fn name(&self) -> &str {
        "model"
    }

    /// Whether the provider can hold the answer to a JSON Schema itself
    /// ([`ChatOptions::output`]): OpenAI's `response_format`, Gemini's `responseSchema`. An
    /// agent asked for a typed answer uses it when `true`, and a final tool the model must call
    /// otherwise.
    fn native_output(&self) -> bool {
        false
    }

    /// Whether the model holds its replies to the request's caps itself
    /// ([`ChatOptions::max_text_bytes`], [`ChatOptions::max_argument_bytes`]), as the HTTP
    /// clients do as they read. An agent (and the sampler) caps the reply of a model that
    /// does not, so each reply is capped once.
    fn caps_replies(&self) -> bool {
        false
    }

    /// The provider, as OpenTelemetry's GenAI conventions name it for `gen_ai.provider.name`
    /// (`openai`, `anthropic`, `gcp.gemini`); `None` when it is none of theirs.
    fn provider_name(&self) -> Option<&str> {
        None
    }

    /// Asks the model for its next reply as [`chat`](Self::chat) does, passing each piece of
    /// it to `deltas` as it arrives: text and tool-call fragments ([`StreamDelta`]), for an
    /// agent's streamed run (`agent.run(..).stream()`). The HTTP clients stream (whatever their `streaming` setting)
    /// and pass their stream parsers' deltas on; this default asks [`chat`](Self::chat) and
    /// passes the whole reply as one text delta and one delta per call.
    ///
    /// A client that retries after part of a stream came passes that part again: the deltas
    /// are for showing, the returned reply is the one to keep.
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use toolkit::models::{ChatModel, ChatOptions, ChatRequest, Message, ModelReply};
    /// use toolkit::models::{ScriptedModel, StreamDelta};
    /// use toolkit::Toolbox;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let model = ScriptedModel::new([ModelReply::text("hello")]);
    /// let (messages, toolbox, options) = ([Message::user("hi")], Toolbox::default(), ChatOptions::default());
    /// let seen = Mutex::new(Vec::new());
    /// let sink = |delta: StreamDelta| seen.lock().unwrap().push(delta);
    /// let reply = model
    ///     .chat_stream(ChatRequest::new(&messages, &toolbox, &options), &sink)
    ///     .await
    ///     .unwrap();
    /// assert_eq!(reply.text.as_deref(), Some("hello"));
    /// assert_eq!(*seen.lock().unwrap(), [StreamDelta::Text("hello".into())]);
    /// # });
    /// ```
    fn chat_stream<'a>(
        &'a self,
        request: ChatRequest<'a>,
        deltas: &'a DeltaSink<'a>,
    ) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(async move {
            let reply = self.chat(request).await?;
            whole_reply_deltas(&reply, deltas);
            Ok(reply)
        })
    }
}

/// Where [`ChatModel::chat_stream`] passes the pieces of a reply.
pub type DeltaSink<'a> = dyn Fn(StreamDelta) + Send + Sync + 'a;

/// A whole reply as deltas: its text as one, and one per call with its whole arguments.
fn whole_reply_deltas(reply: &ModelReply, deltas: &DeltaSink<'_>) {
    if let Some(text) = reply.text.as_ref().filter(|text| !text.is_empty()) {
        deltas(StreamDelta::Text(text.clone()));
    }
    for (index, call) in reply.tool_calls.iter().enumerate() {
        let arguments = match &call.args {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        deltas(StreamDelta::ToolCall {
            index,
            id: call.id.clone(),
            name: Some(call.name.clone()),
            arguments,
        });
    }
}

impl<M: ChatModel + ?Sized> ChatModel for std::sync::Arc<M> {
    fn chat<'a>(
        &'a self,
        request: ChatRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        (**self).chat(request)
    }

    fn name(&self) -> &str {
        (**self).name()
    }

    fn native_output(&self) -> bool {
        (**self).native_output()
    }

    fn caps_replies(&self) -> bool {
        (**self).caps_replies()
    }

    fn provider_name(&self) -> Option<&str> {
        (**self).provider_name()
    }

    fn chat_stream<'a>(
        &'a self,
        request: ChatRequest<'a>,
        deltas: &'a DeltaSink<'a>,
    ) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        (**self).chat_stream(request, deltas)
    }
}
