//! The provider-neutral conversation: messages, the request a model answers, and its reply.

use serde::{Deserialize, Serialize};

use crate::definitions::ToolDefinitions;
use crate::{ToolCall, ToolCallResult};

/// One message of a conversation, in no provider's format; each client translates it.
///
/// ```
/// use toolkit_runtime::chat::Message;
/// use toolkit::prelude::*;
///
/// let asked = Message::assistant_calls(None, vec![ToolCall::new("add", json!({})).with_id("c1")]);
/// let Message::Assistant { tool_calls, .. } = &asked else { unreachable!() };
/// assert_eq!(tool_calls[0].id.as_deref(), Some("c1"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// Instructions for the model.
    System {
        /// The instructions.
        content: String,
    },
    /// What the user (or the loop, for an observation) says.
    User {
        /// The text.
        content: String,
    },
    /// What the model replied: text, tool calls, or both.
    Assistant {
        /// The text, if any.
        content: Option<String>,
        /// The calls it asked for, each with an id its result is paired by.
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call, paired with it by `result.call_id`.
    Tool {
        /// The result the model reads.
        result: ToolCallResult,
    },
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message::System {
            content: content.into(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message::User {
            content: content.into(),
        }
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message::Assistant {
            content: Some(content.into()),
            tool_calls: Vec::new(),
        }
    }

    /// An assistant message with tool calls (and optional text).
    pub fn assistant_calls(content: Option<String>, tool_calls: Vec<ToolCall>) -> Self {
        Message::Assistant {
            content,
            tool_calls,
        }
    }
}

/// Which tools the model may or must call.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides (the providers' default).
    #[default]
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call.
    Required,
    /// This tool.
    Tool(String),
}

/// Options of one model call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatOptions {
    /// Sampling temperature, if set.
    pub temperature: Option<f32>,
    /// The most tokens the reply may have, if set.
    pub max_tokens: Option<u32>,
    /// Which tools the model may or must call.
    pub tool_choice: ToolChoice,
    /// Whether one reply may hold several tool calls.
    pub parallel_tool_calls: bool,
    /// The most bytes of text a reply keeps; past it the text is cut, with a note saying so
    /// (default [`DEFAULT_MAX_TEXT_BYTES`](Self::DEFAULT_MAX_TEXT_BYTES)).
    #[serde(default = "ChatOptions::default_max_text_bytes")]
    pub max_text_bytes: usize,
    /// The most bytes one tool call's arguments may take; a call past it is refused, kept in
    /// [`ModelReply::refused_calls`] without its arguments (default
    /// [`DEFAULT_MAX_ARGUMENT_BYTES`](Self::DEFAULT_MAX_ARGUMENT_BYTES)).
    #[serde(default = "ChatOptions::default_max_argument_bytes")]
    pub max_argument_bytes: usize,
    /// The shape the final answer must have, for a model that can be held to it natively
    /// (OpenAI `response_format` / Responses `text.format` with a strict `json_schema`, Gemini
    /// `responseSchema`): set by an agent built with `output::<T>()` on a model whose
    /// `ChatModel::native_output` says it can. `None`: free text.
    #[serde(default)]
    pub output: Option<OutputSchema>,
}

/// A JSON Schema the model's answer must follow (see [`ChatOptions::output`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputSchema {
    /// A name for the schema (OpenAI requires one: `^[a-zA-Z0-9_-]{1,64}$`).
    pub name: String,
    /// The schema itself, as schemars wrote it for the answer's type.
    pub schema: serde_json::Value,
    /// Ask the provider to enforce it exactly (OpenAI's `strict: true`).
    pub strict: bool,
}

impl Default for ChatOptions {
    fn default() -> Self {
        ChatOptions {
            temperature: None,
            max_tokens: None,
            tool_choice: ToolChoice::Auto,
            parallel_tool_calls: true,
            max_text_bytes: Self::DEFAULT_MAX_TEXT_BYTES,
            max_argument_bytes: Self::DEFAULT_MAX_ARGUMENT_BYTES,
            output: None,
        }
    }
}

impl ChatOptions {
    /// 2 MiB: four times the longest answer today's models write (128k tokens of about four
    /// bytes each is 512 KiB).
    pub const DEFAULT_MAX_TEXT_BYTES: usize = 2 << 20;
    /// 1 MiB, the most a toolbox accepts by default
    /// ([`Limits::DEFAULT_MAX_INPUT_BYTES`](crate::Limits::DEFAULT_MAX_INPUT_BYTES)): larger
    /// arguments could never run, and would go back to the server with every later request.
    pub const DEFAULT_MAX_ARGUMENT_BYTES: usize = 1 << 20;

    fn default_max_text_bytes() -> usize {
        Self::DEFAULT_MAX_TEXT_BYTES
    }

    fn default_max_argument_bytes() -> usize {
        Self::DEFAULT_MAX_ARGUMENT_BYTES
    }
}

/// What a model is asked: the conversation so far, the tools it may call, and options.
#[derive(Debug, Clone, Copy)]
pub struct ChatRequest<'a> {
    /// The conversation so far.
    pub messages: &'a [Message],
    /// The definitions of the tools the model may call (none are sent when it is empty).
    pub tools: &'a ToolDefinitions,
    /// Options of this call.
    pub options: &'a ChatOptions,
}

impl<'a> ChatRequest<'a> {
    /// A request from its parts; `tools` is a [`ToolDefinitions`], or a `&Toolbox` whose tools
    /// it offers.
    pub fn new(
        messages: &'a [Message],
        tools: impl Into<&'a ToolDefinitions>,
        options: &'a ChatOptions,
    ) -> Self {
        ChatRequest {
            messages,
            tools: tools.into(),
            options,
        }
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// It finished its answer.
    Stop,
    /// It asked for tool calls.
    ToolCalls,
    /// It hit the token limit.
    Length,
    /// A content filter stopped it.
    ContentFilter,
    /// Another reason, as the provider spelled it.
    Other(String),
}

/// Tokens a model call used, when the model reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens read (prompt).
    pub input_tokens: u64,
    /// Tokens written (completion).
    pub output_tokens: u64,
}

impl Usage {
    /// Both counts added together, at most `u64::MAX`.
    pub fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }
}

/// Adds counts saturating: a model server (or a resume token) may report any count, and a sum
/// that wrapped would turn a huge bill into a small one.
impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
    }
}

/// A model's reply: text and/or tool calls, why it stopped, and usage.
///
/// ```
/// use toolkit_runtime::chat::{FinishReason, ModelReply};
/// use toolkit::prelude::*;
///
/// let reply = ModelReply::calls([ToolCall::new("add", json!({"a": 1}))]);
/// assert_eq!(reply.finish, FinishReason::ToolCalls);
/// assert_eq!(ModelReply::text("4").text.as_deref(), Some("4"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelReply {
    /// The text, if any.
    pub text: Option<String>,
    /// The tool calls, in the order the model gave them.
    pub tool_calls: Vec<ToolCall>,
    /// Why the model stopped.
    pub finish: FinishReason,
    /// Tokens used, when reported.
    pub usage: Option<Usage>,
    /// Calls that cannot run as sent (malformed, or with arguments over
    /// [`ChatOptions::max_argument_bytes`]); an agent answers each with an error result.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused_calls: Vec<RefusedCall>,
}

/// A tool call that cannot run as the model sent it, and why.
///
/// ```
/// use toolkit_runtime::chat::RefusedCall;
/// use toolkit::prelude::*;
///
/// let refused = RefusedCall::new(
///     ToolCall::new("search", json!({})).with_id("c1"),
///     "the arguments are 52428800 bytes, over the limit of 1048576",
/// );
/// let result = refused.answer();
/// assert!(result.is_error);
/// assert_eq!(result.call_id.as_deref(), Some("c1"));
/// assert_eq!(
///     result.value,
///     json!("Error: could not read a tool call: the arguments are 52428800 bytes, over the limit of 1048576")
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefusedCall {
    /// The call as far as it could be read: its id and name, and no arguments (`{}`), which is
    /// how it goes back to the server in the history.
    pub call: ToolCall,
    /// Why it cannot run, phrased for the model.
    pub reason: String,
}

impl RefusedCall {
    /// A refused call; its arguments are dropped, so they are never echoed.
    pub fn new(mut call: ToolCall, reason: impl Into<String>) -> Self {
        call.args = serde_json::Value::Object(serde_json::Map::new());
        RefusedCall {
            call,
            reason: reason.into(),
        }
    }

    /// The error result that answers it.
    pub fn answer(&self) -> ToolCallResult {
        let error = crate::ToolError::InvalidCall {
            message: self.reason.clone(),
        };
        ToolCallResult::from_outcome(&self.call, Err(error))
    }
}

impl ModelReply {
    /// A text-only reply that finished normally.
    pub fn text(text: impl Into<String>) -> Self {
        ModelReply {
            text: Some(text.into()),
            tool_calls: Vec::new(),
            finish: FinishReason::Stop,
            usage: None,
            refused_calls: Vec::new(),
        }
    }

    /// A reply asking for `calls`.
    pub fn calls(calls: impl IntoIterator<Item = ToolCall>) -> Self {
        ModelReply {
            text: None,
            tool_calls: calls.into_iter().collect(),
            finish: FinishReason::ToolCalls,
            usage: None,
            refused_calls: Vec::new(),
        }
    }

    /// The same reply under the caps of `options`: its text past
    /// [`max_text_bytes`](ChatOptions::max_text_bytes) cut with a note, and calls whose
    /// arguments are over [`max_argument_bytes`](ChatOptions::max_argument_bytes) moved to its
    /// refused calls. A streamed reply is capped as it is assembled; this caps a whole one.
    ///
    /// ```
    /// use toolkit_runtime::chat::{ChatOptions, ModelReply};
    ///
    /// let options = ChatOptions { max_text_bytes: 100, ..ChatOptions::default() };
    /// let reply = ModelReply::text("x".repeat(200)).capped_by(&options);
    /// assert!(reply.text.unwrap().ends_with("[cut: the reply's text is 200 bytes, over the limit of 100]"));
    /// ```
    pub fn capped_by(self, options: &ChatOptions) -> ModelReply {
        super::caps::ReplyCaps::of(options).bound(self)
    }

    /// The same reply with usage.
    pub fn with_usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.usage = Some(Usage {
            input_tokens,
            output_tokens,
        });
        self
    }
}
