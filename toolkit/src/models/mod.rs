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
//! - `AnthropicClient` (feature `anthropic`): the Anthropic Messages API over HTTP.

mod record;
mod scripted;

#[cfg(feature = "anthropic")]
mod anthropic;
#[cfg(any(feature = "openai", feature = "anthropic"))]
mod api_key;
#[cfg(any(feature = "openai", feature = "anthropic"))]
mod body;
#[cfg(any(feature = "openai", feature = "anthropic"))]
mod builder;
#[cfg(any(feature = "openai", feature = "anthropic"))]
mod http;
#[cfg(feature = "openai")]
mod openai;
#[cfg(any(feature = "openai", feature = "anthropic"))]
mod retry;

pub use record::{Exchange, Recorder, Replayer};
pub use scripted::ScriptedModel;
pub use toolkit_runtime::chat::{
    ChatOptions, ChatRequest, FinishReason, Message, ModelError, ModelReply, OutputSchema,
    RefusedCall, ToolChoice, Usage,
};

#[cfg(feature = "anthropic")]
#[cfg_attr(docsrs, doc(cfg(feature = "anthropic")))]
pub use anthropic::{Anthropic, AnthropicClient, AnthropicClientBuilder};
#[cfg(any(feature = "openai", feature = "anthropic"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "openai", feature = "anthropic"))))]
pub use api_key::ApiKey;
#[cfg(any(feature = "openai", feature = "anthropic"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "openai", feature = "anthropic"))))]
pub use builder::ModelClientBuilder;
#[cfg(any(feature = "openai", feature = "anthropic"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "openai", feature = "anthropic"))))]
pub use http::{ModelClient, WireApi};
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use openai::{OpenAi, OpenAiClient, OpenAiClientBuilder};
#[cfg(any(feature = "openai", feature = "anthropic"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "openai", feature = "anthropic"))))]
pub use retry::RetryPolicy;

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
}
