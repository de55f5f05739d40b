//! Provider-neutral tool calls and their results.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// The outcome of one [`ToolCall`], paired to it by id and name.
///
/// `value` is the tool's JSON result, or the `"Error: ..."` string when `is_error` is set.
///
/// ```
/// use toolkit::prelude::*;
///
/// let call = ToolCall::new("db_query", json!({})).with_id("call_7");
/// let result = ToolCallResult::from_outcome(&call, Err(ToolError::Failed {
///     tool: "db_query".into(),
///     message: "connection refused".into(),
/// }));
/// assert_eq!(result.call_id.as_deref(), Some("call_7"));
/// assert!(result.is_error);
/// assert_eq!(result.value, json!("Error: connection refused"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallResult {
    /// The id of the call this answers.
    pub call_id: Option<String>,
    /// The tool that was called.
    pub name: String,
    /// The result, or the error text for the model.
    pub value: Value,
    /// Whether the call failed.
    pub is_error: bool,
}

impl ToolCallResult {
    /// Pairs an outcome with the call it answers.
    pub fn from_outcome(call: &ToolCall, outcome: Result<Value, crate::ToolError>) -> Self {
        let (value, is_error) = Self::value_of(outcome);
        ToolCallResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            value,
            is_error,
        }
    }

    /// [`from_outcome`](Self::from_outcome) for a call not read again: its id and name move into
    /// the result, and only its arguments are left.
    pub(crate) fn from_outcome_taking(
        call: &mut ToolCall,
        outcome: Result<Value, crate::ToolError>,
    ) -> Self {
        let (value, is_error) = Self::value_of(outcome);
        ToolCallResult {
            call_id: call.id.take(),
            name: std::mem::take(&mut call.name),
            value,
            is_error,
        }
    }

    fn value_of(outcome: Result<Value, crate::ToolError>) -> (Value, bool) {
        match outcome {
            Ok(value) => (value, false),
            Err(err) => (Value::String(err.to_model_string()), true),
        }
    }

    /// The result as text: a string result as it is, anything else as compact JSON.
    pub fn text(&self) -> String {
        match &self.value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }

    /// The call id, or `""` for a call that had none (the provider formats need a string).
    pub(crate) fn id(&self) -> &str {
        self.call_id.as_deref().unwrap_or_default()
    }
}
