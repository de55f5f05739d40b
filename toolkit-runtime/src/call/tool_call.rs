//! Provider-neutral tool calls and their results.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::render::Rendering;
use crate::error::ToolError;

/// One call a model asked for: an optional provider call id, a tool name and its arguments.
///
/// ```
/// use toolkit::prelude::*;
///
/// let call = ToolCall::new("stats_word_count", json!({"text": "one two"})).with_id("call_1");
/// assert_eq!(call.id.as_deref(), Some("call_1"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call, used to pair the result with it.
    pub id: Option<String>,
    /// The tool the model chose.
    pub name: String,
    /// The arguments: a JSON object, or a string holding one.
    pub args: Value,
}

impl ToolCall {
    /// A call without an id.
    pub fn new(name: impl Into<String>, args: Value) -> Self {
        ToolCall {
            id: None,
            name: name.into(),
            args,
        }
    }

    /// The same call with a provider id.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }
}

/// The outcome of one [`ToolCall`], paired to it by id and name, as a model reads it.
///
/// `value` is the tool's JSON result, or the `"Error: ..."` string when `is_error` is set: the
/// one rendering step made it from the call's typed outcome, cut to the output bound the call
/// ran under. The typed error stays with it ([`error`](Self::error)), so a format that words
/// errors its own way (MCP's `isError`) reads the error, not the text.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::ToolErrorKind;
///
/// let call = ToolCall::new("db_query", json!({})).with_id("call_7");
/// let result = ToolCallResult::from_outcome(&call, Err(ToolError::Failed {
///     tool: "db_query".into(),
///     message: "connection refused".into(),
/// }));
/// assert_eq!(result.call_id.as_deref(), Some("call_7"));
/// assert!(result.is_error());
/// assert_eq!(result.model_value(), &json!("Error: connection refused"));
/// assert_eq!(result.error().map(ToolError::kind), Some(ToolErrorKind::Failed));
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolCallResult {
    /// The id of the call this answers.
    pub call_id: Option<String>,
    /// The tool that was called.
    pub name: String,
    /// The result, or the error text for the model.
    pub value: Value,
    /// Whether the call failed.
    pub is_error: bool,
    /// The error `value` was rendered from, when the call failed. Boxed: a result is moved
    /// through every layer of a call, and most results are not errors.
    #[serde(skip)]
    error: Option<Box<ToolError>>,
    /// How `value` was rendered: the output bound the call ran under.
    #[serde(skip)]
    rendering: Rendering,
}

/// Results are equal when a model reads them the same: the typed error behind an error text is
/// not compared.
impl PartialEq for ToolCallResult {
    fn eq(&self, other: &Self) -> bool {
        (&self.call_id, &self.name, &self.value, self.is_error)
            == (&other.call_id, &other.name, &other.value, other.is_error)
    }
}

impl ToolCallResult {
    /// Pairs an outcome with the call it answers, rendered without an output bound.
    pub fn from_outcome(call: &ToolCall, outcome: Result<Value, ToolError>) -> Self {
        Self::rendered(call, outcome, Rendering::default())
    }

    /// A result already rendered for a model, such as one read back from a conversation.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// let result = ToolCallResult::new(Some("call_1".into()), "add", json!("Error: no"), true);
    /// assert_eq!(result.text(), "Error: no");
    /// assert!(result.error().is_none());
    /// ```
    pub fn new(
        call_id: Option<String>,
        name: impl Into<String>,
        value: Value,
        is_error: bool,
    ) -> Self {
        ToolCallResult {
            call_id,
            name: name.into(),
            value,
            is_error,
            error: None,
            rendering: Rendering::default(),
        }
    }

    /// Pairs an outcome with the call it answers, rendered under `rendering`.
    #[inline]
    pub(crate) fn rendered(
        call: &ToolCall,
        outcome: Result<Value, ToolError>,
        rendering: Rendering,
    ) -> Self {
        Self::answering(call.id.clone(), call.name.clone(), outcome, rendering)
    }

    /// [`rendered`](Self::rendered) for a call not read again: its id and name move into the
    /// result, and only its arguments are left.
    pub(crate) fn rendered_taking(
        call: &mut ToolCall,
        outcome: Result<Value, ToolError>,
        rendering: Rendering,
    ) -> Self {
        let (call_id, name) = (call.id.take(), std::mem::take(&mut call.name));
        Self::answering(call_id, name, outcome, rendering)
    }

    #[inline]
    fn answering(
        call_id: Option<String>,
        name: String,
        outcome: Result<Value, ToolError>,
        rendering: Rendering,
    ) -> Self {
        let (value, error) = rendering.rendered(outcome);
        ToolCallResult {
            call_id,
            name,
            is_error: error.is_some(),
            value,
            error: error.map(Box::new),
            rendering,
        }
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// The value a model reads: the result, or the `"Error: ..."` text.
    pub fn model_value(&self) -> &Value {
        &self.value
    }

    /// The error the call failed with, when the result was rendered from one.
    pub fn error(&self) -> Option<&ToolError> {
        self.error.as_deref().filter(|_| self.is_error)
    }

    /// The result as text: a string result as it is, anything else as compact JSON.
    pub fn text(&self) -> String {
        match &self.value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }

    /// The error's message without the `Error: ` prefix, cut to the bound the call ran under,
    /// for a format that says "error" on its own; `None` for a success, or for an error text
    /// not rendered from a typed error here (read back, or rewritten by an after-call hook).
    pub(crate) fn error_message(&self) -> Option<String> {
        let err = self.error()?;
        let unchanged = matches!(&self.value, Value::String(text)
            if *text == self.rendering.error_text(err));
        unchanged.then(|| self.rendering.error_message(err))
    }

    /// The call id, or `""` for a call that had none (the provider formats need a string).
    pub(crate) fn id(&self) -> &str {
        self.call_id.as_deref().unwrap_or_default()
    }
}
