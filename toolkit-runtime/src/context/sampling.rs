//! Asking a model for a message from inside a tool: MCP's `sampling/createMessage`, or the
//! agent's own model.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::Content;

/// Who speaks a [`SamplingMessage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
}

/// One message of a [`SamplingRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who speaks it.
    pub role: Role,
    /// What it says: text, an image or audio.
    pub content: Content,
}

/// What a tool asks a model, as MCP's `sampling/createMessage` carries it.
///
/// ```
/// use toolkit::context::SamplingRequest;
///
/// let request = SamplingRequest::new("Summarise: ...").system("Be brief.").max_tokens(200);
/// assert_eq!(request.max_tokens, 200);
/// assert_eq!(request.messages.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingRequest {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// The system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The most tokens the answer may have.
    pub max_tokens: u32,
    /// The sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Where the model stops.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    /// MCP's model preferences (hints, cost, speed, intelligence), passed as they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<Value>,
    /// The name this question goes by in an MCP 2026-07-28 `input_required` result (its key in
    /// `inputRequests`); `None` names it by its place among the call's questions (`ask-0`,
    /// `ask-1`, ...). Never sent as part of the request.
    #[serde(skip)]
    pub key: Option<String>,
}

impl SamplingRequest {
    /// One user message, answered in at most 1,024 tokens.
    pub fn new(prompt: impl Into<String>) -> Self {
        SamplingRequest {
            messages: vec![SamplingMessage {
                role: Role::User,
                content: Content::text(prompt),
            }],
            system_prompt: None,
            max_tokens: 1024,
            temperature: None,
            stop_sequences: Vec::new(),
            model_preferences: None,
            key: None,
        }
    }

    /// The request with a system prompt.
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// The request with a token bound.
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// The request with a temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// The request named `key` where a question needs a name: the key of its entry in an MCP
    /// 2026-07-28 `input_required` result ([`ToolContext::sample`](super::ToolContext::sample)).
    ///
    /// ```
    /// use toolkit::context::SamplingRequest;
    ///
    /// let request = SamplingRequest::new("What is the capital of France?").key("capital");
    /// assert_eq!(request.key.as_deref(), Some("capital"));
    /// ```
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// The request with one more message.
    pub fn message(mut self, role: Role, content: impl Into<Content>) -> Self {
        self.messages.push(SamplingMessage {
            role,
            content: content.into(),
        });
        self
    }
}

impl From<&str> for SamplingRequest {
    fn from(prompt: &str) -> Self {
        SamplingRequest::new(prompt)
    }
}

impl From<String> for SamplingRequest {
    fn from(prompt: String) -> Self {
        SamplingRequest::new(prompt)
    }
}

/// A model's answer to a [`SamplingRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingReply {
    /// Who spoke: the model.
    pub role: Role,
    /// What it said.
    pub content: Content,
    /// The model that answered.
    pub model: String,
    /// Why it stopped (`"endTurn"`, `"maxTokens"`, ...), when said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl SamplingReply {
    /// The answer's text, when it is text.
    pub fn text(&self) -> Option<&str> {
        self.content.as_text()
    }
}
