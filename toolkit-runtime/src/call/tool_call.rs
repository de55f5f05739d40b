//! Provider-neutral tool calls and their results.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::render::{Behind, Rendering};
use crate::content::ToolOutput;
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
    /// What `value` was rendered from: the error, when the call failed
    /// ([`error`](Self::error)), or a forwarding tool's remote result
    /// ([`forwarded`](Self::forwarded)). Boxed: a result is moved through every layer of a
    /// call, and most results keep neither.
    #[serde(skip)]
    behind: Option<Box<Behind>>,
    /// How `value` was rendered: the output bound the call ran under, and whether it is
    /// content. Only the latter is kept when a result is written out (`"is_content": true`), so
    /// a conversation read back still renders its images as images.
    #[serde(
        rename = "is_content",
        default,
        skip_serializing_if = "is_json",
        with = "content_flag"
    )]
    rendering: Rendering,
}

fn is_json(rendering: &Rendering) -> bool {
    !rendering.is_content()
}

/// `rendering` written as whether the result is content.
mod content_flag {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::Rendering;

    pub(super) fn serialize<S: Serializer>(r: &Rendering, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(r.is_content())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Rendering, D::Error> {
        let content = bool::deserialize(d)?;
        Ok(match content {
            true => Rendering::content(),
            false => Rendering::default(),
        })
    }
}

/// Results are equal when a model reads them the same: the typed error behind an error text is
/// not compared, whether the result is content is.
impl PartialEq for ToolCallResult {
    fn eq(&self, other: &Self) -> bool {
        let content = self.rendering.is_content();
        (
            &self.call_id,
            &self.name,
            &self.value,
            self.is_error,
            content,
        ) == (
            &other.call_id,
            &other.name,
            &other.value,
            other.is_error,
            other.rendering.is_content(),
        )
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
            behind: None,
            rendering: Rendering::default(),
        }
    }

    /// A successful result that is content blocks, such as a remote tool's image: every format
    /// renders it as content ([`content`](Self::content)).
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// let call = ToolCall::new("chart", json!({})).with_id("call_1");
    /// let result = ToolCallResult::from_content(&call, ToolOutput::new().with(Image::png([1, 2, 3])));
    /// assert_eq!(result.value, json!({"content": [{"type": "image", "data": "AQID", "mimeType": "image/png"}]}));
    /// assert_eq!(result.text(), "[image (image/png), 3 bytes]");
    /// ```
    pub fn from_content(call: &ToolCall, output: ToolOutput) -> Self {
        let value = serde_json::to_value(&output).unwrap_or(Value::Null);
        Self::rendered(call, Ok(value), Rendering::content())
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
        let (value, behind) = rendering.rendered_keeping(outcome);
        ToolCallResult {
            call_id,
            name,
            is_error: matches!(behind.as_deref(), Some(Behind::Error(_))),
            value,
            behind,
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

    /// The remote server's own result, when the tool forwards one (an MCP client's remote
    /// tool) and nothing changed this result since it was rendered: no hook rewrote it, no
    /// bound cut it. An MCP server serving the tool answers with it.
    #[doc(hidden)]
    pub fn forwarded(&self) -> Option<&Value> {
        match self.behind.as_deref() {
            Some(Behind::Forwarded { result, rendered }) if !self.is_error => {
                (self.value == *rendered).then_some(result)
            }
            _ => None,
        }
    }

    /// The error the call failed with, when the result was rendered from one.
    pub fn error(&self) -> Option<&ToolError> {
        match self.behind.as_deref() {
            Some(Behind::Error(error)) if self.is_error => Some(error),
            _ => None,
        }
    }

    /// The result's content blocks, when the tool returns content ([`Image`](crate::Image),
    /// [`ToolOutput`], ...; [`ToolProxy::returns_content`](crate::ToolProxy::returns_content))
    /// and the call succeeded: `None` for a tool that returns JSON, whatever its JSON looks
    /// like. The MCP server, the agent and the integrations read a result's content here.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Draw a chart
    /// #[tool]
    /// fn chart() -> Image {
    ///     Image::png([1, 2, 3])
    /// }
    ///
    /// let toolbox = Toolbox::builder().tool(chart_tool()).build().unwrap();
    /// let result = toolbox.call(&ToolCall::new("chart", json!({})));
    /// let output = result.content().unwrap();
    /// assert_eq!(output.content, vec![Content::Image(Image::png([1, 2, 3]))]);
    /// ```
    pub fn content(&self) -> Option<ToolOutput> {
        let content = self.rendering.is_content() && !self.is_error;
        content.then(|| ToolOutput::from_value(self.value.clone()))
    }

    /// The result as text: a string result as it is, anything else as compact JSON. A content
    /// result is its text blocks, and a line naming each other block
    /// ([`ToolOutput::to_text`]).
    pub fn text(&self) -> String {
        if let Some(output) = self.content() {
            return output.to_text();
        }
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::call::{Limits, ToolDefinition, ToolProxy};

    /// A forwarding tool whose model value is `text` and whose remote result is `{"n": 1}`.
    fn forwarder(text: &'static str) -> ToolProxy {
        let definition = ToolDefinition::new("remote", "Forwards", json!({"type": "object"}));
        ToolProxy::from_fn(definition, move |_| {
            Ok::<_, String>(json!({"value": text, "result": {"n": 1}}))
        })
        .forwarding()
    }

    fn answer(tool: &ToolProxy, limits: Limits) -> ToolCallResult {
        let call = ToolCall::new("remote", json!({}));
        // The pipeline's outcome, as the toolbox renders it (`call` would render it already).
        let outcome = tool.run(std::borrow::Cow::Owned(json!({})), &limits);
        ToolCallResult::rendered(&call, outcome, Rendering::of_tool(&limits, tool))
    }

    #[test]
    fn a_forwarded_result_is_kept_beside_the_value_the_model_reads() {
        let result = answer(&forwarder("hi"), Limits::default());
        assert_eq!(result.value, json!("hi"));
        assert_eq!(result.forwarded(), Some(&json!({"n": 1})));
    }

    #[test]
    fn a_forwarded_result_is_dropped_when_the_bound_cuts_or_a_hook_rewrites_the_value() {
        let cut = answer(
            &forwarder("a long answer"),
            Limits::default().with_max_output_bytes(4),
        );
        assert_ne!(cut.value, json!("a long answer"));
        assert_eq!(cut.forwarded(), None);
        let mut rewritten = answer(&forwarder("hi"), Limits::default());
        rewritten.value = json!("changed");
        assert_eq!(rewritten.forwarded(), None);
    }
}
