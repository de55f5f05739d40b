//! OpenAI: Chat Completions and Responses API tool definitions, and tool messages.

use serde_json::{Value, json};

use crate::call::drop_omitted_nulls;
use crate::providers::content::{chat_text, responses_parts};
use crate::providers::strict::strict_schema;
use crate::{ToolCallResult, ToolError, ToolProxy};

impl ToolProxy {
    /// The OpenAI Chat Completions definition:
    /// `{"type": "function", "function": {"name", "description", "parameters"}}`.
    pub(crate) fn openai_definition(&self) -> Value {
        json!({
            "type": "function",
            "function": {
                "name": self.name(),
                "description": self.description(),
                "parameters": self.parameters(),
            }
        })
    }

    /// The OpenAI Chat Completions definition in strict mode (`"strict": true`).
    ///
    /// The parameters are rewritten to the strict-mode subset: `additionalProperties: false` on
    /// every object, every property in `required`, optional parameters made nullable (the model
    /// sends `null` to leave one out), keywords strict mode rejects (`minLength`, `default`, ...)
    /// moved into the description. What cannot be expressed at all is the error.
    pub(crate) fn openai_strict_definition(&self) -> Result<Value, ToolError> {
        let parameters = self.strict_parameters()?;
        Ok(json!({
            "type": "function",
            "function": {
                "name": self.name(),
                "description": self.description(),
                "parameters": parameters,
                "strict": true,
            }
        }))
    }

    /// The parameters schema rewritten for OpenAI strict mode (see
    /// [`Format::OpenAiStrict`](crate::providers::Format::OpenAiStrict)).
    pub fn strict_parameters(&self) -> Result<Value, ToolError> {
        strict_schema(self.parameters()).map_err(|(path, message)| ToolError::UnsupportedSchema {
            tool: self.name().to_owned(),
            target: "OpenAI strict mode".into(),
            path,
            message,
        })
    }

    /// Removes the `null`s a strict-mode model sends for parameters it leaves out, where the
    /// parameter's own schema does not accept `null` (an `#[arg(default)]` parameter), so the
    /// call takes the default instead of failing validation. Nested objects are walked too.
    ///
    /// Strict mode makes every optional parameter nullable and required, so `null` is how the
    /// model says "not given". Every call already does this; use it to see or log the arguments
    /// as the tool will read them.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Page through results
    /// #[tool]
    /// fn page(#[arg(default = 10)] size: u32) -> u32 {
    ///     size
    /// }
    ///
    /// let tool = page_tool();
    /// let args = tool.without_strict_nulls(json!({"size": null}));
    /// assert_eq!(args, json!({}));
    /// assert_eq!(tool.dynamic_call(args), json!(10));
    /// ```
    pub fn without_strict_nulls(&self, mut args: Value) -> Value {
        if let Value::Object(map) = &mut args {
            drop_omitted_nulls(map, self.parameters());
        }
        args
    }

    /// The OpenAI Responses API definition:
    /// `{"type": "function", "name", "description", "parameters", "strict"}`.
    ///
    /// The Responses API defaults to strict mode, so the definition is strict whenever the
    /// schema converts, and says `"strict": false` with the plain schema otherwise.
    pub(crate) fn openai_responses_definition(&self) -> Value {
        let (parameters, strict) = match self.strict_parameters() {
            Ok(parameters) => (parameters, true),
            Err(_) => (self.parameters().clone(), false),
        };
        json!({
            "type": "function",
            "name": self.name(),
            "description": self.description(),
            "parameters": parameters,
            "strict": strict,
        })
    }
}

impl ToolCallResult {
    /// The OpenAI Chat Completions message: `{"role": "tool", "tool_call_id", "content"}`.
    /// A tool message carries text only: a content result's text blocks, and a note for each
    /// image, which [`tool_images_message`](crate::providers::openai::tool_images_message)
    /// sends in the user message after the tool results.
    pub(crate) fn openai_message(&self) -> Value {
        let text = match self.content() {
            Some(output) => chat_text(&output),
            None => self.text(),
        };
        json!({"role": "tool", "tool_call_id": self.id(), "content": text})
    }

    /// The OpenAI Responses API input item: `{"type": "function_call_output", "call_id",
    /// "output"}`; `output` is the result's text, or for a content result an array of
    /// `input_text`, `input_image` and `input_file` parts.
    pub(crate) fn openai_responses_item(&self) -> Value {
        let output = match self.content() {
            Some(output) => Value::Array(responses_parts(&output)),
            None => Value::String(self.text()),
        };
        json!({"type": "function_call_output", "call_id": self.id(), "output": output})
    }
}
