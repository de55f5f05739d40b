//! The one rendering step: a call's typed outcome becomes what a model or a wire format reads.
//!
//! Upstream of here a call's outcome stays `Result<Value, ToolError>`, and the limits it ran
//! under say how it is rendered ([`Rendering`]). Only here does an error become `"Error: ..."`
//! text and a result get cut to `max_output_bytes`: the String a model reads from
//! [`ToolProxy::dynamic_call`](crate::ToolProxy::dynamic_call), a
//! [`ToolCallResult`](crate::ToolCallResult), the MCP server's results and every provider format
//! are made by the functions below, and nothing downstream strips a prefix again.

use serde_json::Value;

use super::limits::{Limits, serialized_len_exceeds, truncate};
use crate::error::ToolError;

/// What a model reads before an error's message.
const ERROR_PREFIX: &str = "Error: ";

/// How a call's outcome is rendered: the output bound of the limits the call ran under.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Rendering {
    max_output_bytes: Option<usize>,
}

impl Rendering {
    /// The rendering of a call made under `limits`.
    #[inline]
    pub(crate) fn of(limits: &Limits) -> Self {
        Rendering {
            max_output_bytes: limits.max_output_bytes,
        }
    }

    /// A result cut to `max_output_bytes`, marking the cut: a string result is measured by its
    /// length, any other by its compact JSON, and is then returned as the cut JSON text.
    #[inline]
    pub(crate) fn output(self, value: Value) -> Value {
        let Some(max) = self.max_output_bytes else {
            return value;
        };
        match value {
            Value::String(text) if text.len() > max => Value::String(truncate(text, max)),
            Value::String(_) => value,
            other if !serialized_len_exceeds(&other, max) => other,
            other => Value::String(truncate(other.to_string(), max)),
        }
    }

    /// An error as a model reads it: `"Error: <message>"`, cut to the bound like a result (a
    /// model reads both).
    pub(crate) fn error_text(self, err: &ToolError) -> String {
        self.cut(format!("{ERROR_PREFIX}{err}"))
    }

    /// An error's message alone, cut to the bound, for a format that says "error" on its own
    /// (MCP's `isError`).
    pub(crate) fn error_message(self, err: &ToolError) -> String {
        self.cut(err.to_string())
    }

    fn cut(self, text: String) -> String {
        match self.max_output_bytes {
            Some(max) if text.len() > max => truncate(text, max),
            _ => text,
        }
    }

    /// The outcome as a model reads it: the bounded result, or the error text.
    pub(crate) fn model_value(self, outcome: Result<Value, ToolError>) -> Value {
        self.rendered(outcome).0
    }

    /// The outcome as a model reads it, with the error it rendered (kept for the formats that
    /// word an error their own way).
    #[inline]
    pub(crate) fn rendered(self, outcome: Result<Value, ToolError>) -> (Value, Option<ToolError>) {
        match outcome {
            Ok(value) => (self.output(value), None),
            Err(err) => (Value::String(self.error_text(&err)), Some(err)),
        }
    }

    /// The outcome for a Rust caller: the result bounded, an error kept typed.
    #[inline]
    pub(crate) fn bounded(self, outcome: Result<Value, ToolError>) -> Result<Value, ToolError> {
        outcome.map(|value| self.output(value))
    }
}

// Here, not in `error`, so the prefix has one home and `error` imports nothing from `call`.
impl ToolError {
    /// The `"Error: ..."` string a model reads, as [`ToolProxy::dynamic_call`] returns it.
    ///
    /// ```
    /// use toolkit_runtime::ToolError;
    ///
    /// let err = ToolError::Failed { tool: "db_query".into(), message: "timeout".into() };
    /// assert_eq!(err.to_model_string(), "Error: timeout");
    /// ```
    ///
    /// [`ToolProxy::dynamic_call`]: crate::ToolProxy::dynamic_call
    pub fn to_model_string(&self) -> String {
        Rendering::default().error_text(self)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_error_is_prefixed_before_it_is_cut() {
        let rendering = Rendering::of(&Limits::default().with_max_output_bytes(10));
        let err = ToolError::Failed {
            tool: "t".into(),
            message: "Error: ".repeat(2),
        };
        assert_eq!(rendering.error_text(&err), "Error: Err");
        assert_eq!(rendering.error_message(&err), "Error: Err");
        assert_eq!(rendering.model_value(Err(err)), json!("Error: Err"));
    }
}
