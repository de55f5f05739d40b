//! OpenAI: Chat Completions and Responses API tool definitions, and tool messages.

use crate::call::DefinitionFormat;
use serde_json::{Value, json};

use super::strict::strict_schema;
use crate::call::drop_omitted_nulls;
use crate::{ToolCallResult, ToolError, ToolProxy};

impl ToolProxy {
    /// The OpenAI Chat Completions definition:
    /// `{"type": "function", "function": {"name", "description", "parameters"}}`.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Add two numbers
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let def = add_tool().to_openai();
    /// assert_eq!(def["type"], "function");
    /// assert_eq!(def["function"]["name"], "add");
    /// assert_eq!(def["function"]["parameters"]["required"], json!(["a", "b"]));
    /// ```
    pub fn to_openai(&self) -> Value {
        self.rendered(DefinitionFormat::OpenAi, || {
            json!({
                "type": "function",
                "function": {
                    "name": self.name(),
                    "description": self.description(),
                    "parameters": self.parameters(),
                }
            })
        })
    }

    /// The OpenAI Chat Completions definition in strict mode (`"strict": true`).
    ///
    /// The parameters are rewritten to the strict-mode subset: `additionalProperties: false` on
    /// every object, every property in `required`, optional parameters made nullable (the model
    /// sends `null` to leave one out), keywords strict mode rejects (`minLength`, `default`, ...)
    /// moved into the description. What cannot be expressed at all (a map with arbitrary keys,
    /// a value of any type, `not`, tuples) is an error naming the place, so it shows up here
    /// rather than as a 400 from the API.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Greet someone
    /// #[tool]
    /// fn greet(name: String, title: Option<String>) -> String {
    ///     format!("Hello {}{name}", title.map(|t| t + " ").unwrap_or_default())
    /// }
    ///
    /// let def = greet_tool().to_openai_strict().unwrap();
    /// assert_eq!(def["function"]["strict"], true);
    /// let params = &def["function"]["parameters"];
    /// assert_eq!(params["required"], json!(["name", "title"]));
    /// assert_eq!(params["properties"]["title"]["type"], json!(["string", "null"]));
    /// ```
    pub fn to_openai_strict(&self) -> Result<Value, ToolError> {
        self.definition_in(DefinitionFormat::OpenAiStrict, || {
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
        })
    }

    /// The parameters schema rewritten for OpenAI strict mode (see
    /// [`to_openai_strict`](Self::to_openai_strict)).
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
    /// schema converts (see [`to_openai_strict`](Self::to_openai_strict)), and says
    /// `"strict": false` with the plain schema otherwise.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Add two numbers
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let def = add_tool().to_openai_responses();
    /// assert_eq!(def["name"], "add");
    /// assert_eq!(def["strict"], true);
    /// ```
    pub fn to_openai_responses(&self) -> Value {
        self.rendered(DefinitionFormat::OpenAiResponses, || {
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
        })
    }
}

impl ToolCallResult {
    /// The OpenAI Chat Completions message: `{"role": "tool", "tool_call_id", "content"}`.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// let call = ToolCall::new("add", json!({"a": 1, "b": 2})).with_id("call_1");
    /// let result = ToolCallResult::from_outcome(&call, Ok(json!(3)));
    /// assert_eq!(
    ///     result.to_openai(),
    ///     json!({"role": "tool", "tool_call_id": "call_1", "content": "3"})
    /// );
    /// ```
    pub fn to_openai(&self) -> Value {
        json!({"role": "tool", "tool_call_id": self.id(), "content": self.text()})
    }

    /// The OpenAI Responses API input item: `{"type": "function_call_output", "call_id",
    /// "output"}`.
    pub fn to_openai_responses(&self) -> Value {
        json!({"type": "function_call_output", "call_id": self.id(), "output": self.text()})
    }
}
