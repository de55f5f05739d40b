//! Tools made at run time from a closure: a remote API whose schema arrives as JSON, a tool per
//! row of a config file.
//!
//! Every part of the definition can be set or overridden field by field, and the result is an
//! ordinary [`ToolProxy`]: the same coercion, validation, panic catching and `"Error: ..."`
//! contract as a `#[tool]`.

use std::fmt::Display;
use std::future::Future;

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::call::ArgumentValidator;
use crate::context::ToolContext;
use crate::providers::annotations_from_mcp;
use crate::{
    ToolAnnotations, ToolDefinition, ToolError, ToolOptions, ToolProxy, is_valid_tool_name,
};

/// Builds a [`ToolProxy`] from a closure over the argument map.
///
/// The closure receives the arguments as a JSON object that has already been coerced and
/// validated against the parameters schema, and returns `Result<T, E>` with `T: Serialize`
/// and `E: Display` (the error text is what the model reads).
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::ToolBuilder;
///
/// let tool = ToolBuilder::new("weather")
///     .description("Current weather for a city")
///     .parameters(json!({
///         "type": "object",
///         "properties": {"city": {"type": "string"}, "celsius": {"type": "boolean"}},
///         "required": ["city"]
///     }))
///     .arg_description("city", "City name, e.g. Paris")
///     .build(|args| {
///         let city = args["city"].as_str().unwrap_or_default();
///         Ok::<_, String>(format!("Sunny in {city}"))
///     })
///     .unwrap();
///
/// assert_eq!(tool.parameters()["properties"]["city"]["description"], "City name, e.g. Paris");
/// assert_eq!(tool.dynamic_call(json!({"city": "Paris"})), json!("Sunny in Paris"));
/// assert_eq!(
///     tool.dynamic_call(json!({})),
///     json!(r#"Error: missing required argument "city" for weather"#)
/// );
/// ```
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `build` or `build_async`"]
pub struct ToolBuilder {
    name: String,
    description: String,
    parameters: Value,
    arg_descriptions: Vec<(String, String)>,
    output_schema: Option<Value>,
    options: ToolOptions,
}

impl ToolBuilder {
    /// A tool named `name`, taking no arguments until [`parameters`](Self::parameters) says
    /// otherwise.
    pub fn new(name: impl Into<String>) -> Self {
        ToolBuilder {
            name: name.into(),
            description: String::new(),
            parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
            arg_descriptions: Vec::new(),
            output_schema: None,
            options: ToolOptions::default(),
        }
    }

    /// Starts from a definition in any provider's shape: `{"name", "description",
    /// "parameters"}`, OpenAI's `{"type": "function", "function": {...}}`, Anthropic's
    /// `input_schema`, or an MCP tool (`inputSchema`, `outputSchema`, `annotations`).
    /// Each field can then be overridden.
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::ToolBuilder;
    ///
    /// let remote = json!({
    ///     "name": "lookup",
    ///     "description": "Look a word up",
    ///     "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}
    /// });
    /// let tool = ToolBuilder::from_definition(&remote)
    ///     .unwrap()
    ///     .name("dictionary_lookup")
    ///     .build(|args| Ok::<_, String>(args["word"].clone()))
    ///     .unwrap();
    /// assert_eq!(tool.name(), "dictionary_lookup");
    /// assert_eq!(tool.description(), "Look a word up");
    /// assert_eq!(tool.dynamic_call(json!({"word": "tool"})), json!("tool"));
    /// ```
    pub fn from_definition(definition: &Value) -> Result<Self, ToolError> {
        let inner = match definition.get("function") {
            Some(function @ Value::Object(_)) => function,
            _ => definition,
        };
        let name = inner.get("name").and_then(Value::as_str).ok_or_else(|| {
            ToolError::InvalidDefinition {
                tool: String::new(),
                message: "the definition has no \"name\"".into(),
            }
        })?;
        let mut builder = ToolBuilder::new(name);
        if let Some(description) = inner.get("description").and_then(Value::as_str) {
            builder.description = description.to_owned();
        }
        let parameters = ["parameters", "input_schema", "inputSchema"]
            .iter()
            .find_map(|key| inner.get(*key));
        if let Some(parameters) = parameters {
            builder.parameters = parameters.clone();
        }
        builder.output_schema = inner.get("outputSchema").cloned();
        if let Some(annotations) = inner.get("annotations") {
            builder.options.annotations = annotations_from_mcp(annotations);
        }
        Ok(builder)
    }

    /// The name the model calls the tool by (`^[a-zA-Z0-9_-]{1,64}$`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// What the tool does, for the model.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// The JSON Schema of the arguments: an object schema.
    pub fn parameters(mut self, schema: Value) -> Self {
        self.parameters = schema;
        self
    }

    /// The description of one argument, replacing the one in the schema.
    pub fn arg_description(
        mut self,
        arg: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        self.arg_descriptions.push((arg.into(), description.into()));
        self
    }

    /// The JSON Schema of the result (MCP `outputSchema`).
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Options beyond the schema: strictness, limits, annotations.
    pub fn options(mut self, options: ToolOptions) -> Self {
        self.options = options;
        self
    }

    /// MCP hints (`read_only`, `destructive`, `idempotent`, `open_world`).
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.options.annotations = annotations;
        self
    }

    /// Builds a tool whose body is the sync closure `body`.
    ///
    /// Fails when the name is not one providers accept, the description is empty, the
    /// parameters are not an object schema that compiles, or an argument description names
    /// no parameter.
    pub fn build<F, T, E>(self, body: F) -> Result<ToolProxy, ToolError>
    where
        F: Fn(Map<String, Value>) -> Result<T, E> + Send + Sync + 'static,
        T: Serialize,
        E: Display + 'static,
    {
        Ok(ToolProxy::from_fn(self.definition()?, body))
    }

    /// Builds a tool whose body is the async closure `body`.
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::ToolBuilder;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let tool = ToolBuilder::new("echo")
    ///     .description("Echo the text")
    ///     .parameters(json!({"type": "object", "properties": {"text": {"type": "string"}}}))
    ///     .build_async(|args| async move { Ok::<_, String>(args["text"].clone()) })
    ///     .unwrap();
    /// assert!(tool.is_async());
    /// assert_eq!(tool.dynamic_acall(json!({"text": "hi"})).await, json!("hi"));
    /// # }
    /// ```
    pub fn build_async<F, Fut, T, E>(self, body: F) -> Result<ToolProxy, ToolError>
    where
        F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<T, E>> + Send + 'static,
        T: Serialize,
        E: Display + 'static,
    {
        Ok(ToolProxy::from_async_fn(self.definition()?, body))
    }

    /// Builds a tool whose body is the sync closure `body`, given the call's
    /// [`ToolContext`](crate::ToolContext) (progress, logs, cancellation, the caller, data).
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// let tool = ToolBuilder::new("cancellable")
    ///     .description("Says whether it was cancelled")
    ///     .build_with_context(|_args, ctx| Ok::<_, String>(ctx.is_cancelled()))
    ///     .unwrap();
    /// assert!(tool.takes_context());
    /// assert_eq!(tool.dynamic_call(json!({})), json!(false));
    /// ```
    pub fn build_with_context<F, T, E>(self, body: F) -> Result<ToolProxy, ToolError>
    where
        F: Fn(Map<String, Value>, ToolContext) -> Result<T, E> + Send + Sync + 'static,
        T: Serialize,
        E: Display + 'static,
    {
        Ok(ToolProxy::from_fn_with_context(self.definition()?, body))
    }

    /// Builds a tool whose body is the async closure `body`, given the call's
    /// [`ToolContext`](crate::ToolContext).
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let tool = ToolBuilder::new("report")
    ///     .description("Reports progress")
    ///     .build_async_with_context(|_args, ctx| async move {
    ///         ctx.progress(1.0, Some(1.0), "done");
    ///         Ok::<_, String>("ok")
    ///     })
    ///     .unwrap();
    /// assert_eq!(tool.dynamic_acall(json!({})).await, json!("ok"));
    /// # }
    /// ```
    pub fn build_async_with_context<F, Fut, T, E>(self, body: F) -> Result<ToolProxy, ToolError>
    where
        F: Fn(Map<String, Value>, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<T, E>> + Send + 'static,
        T: Serialize,
        E: Display + 'static,
    {
        Ok(ToolProxy::from_async_fn_with_context(
            self.definition()?,
            body,
        ))
    }

    fn definition(self) -> Result<ToolDefinition, ToolError> {
        let name = self.name;
        let fail = |message: String| ToolError::InvalidDefinition {
            tool: name.clone(),
            message,
        };
        if !is_valid_tool_name(&name) {
            return Err(fail(crate::call::TOOL_NAME_RULE.into()));
        }
        if self.description.trim().is_empty() {
            return Err(fail(
                "it has no description; the model reads it to decide when to call the tool".into(),
            ));
        }
        let mut parameters = self.parameters;
        let Some(schema) = parameters.as_object_mut() else {
            return Err(fail("the parameters schema must be a JSON object".into()));
        };
        match schema.get("type") {
            None => {
                schema.insert("type".into(), "object".into());
            }
            Some(Value::String(t)) if t == "object" => {}
            Some(other) => {
                return Err(fail(format!(
                    "the parameters schema must describe an object of named arguments, not {other}"
                )));
            }
        }
        let properties = schema
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(properties) = properties else {
            return Err(fail(
                "the parameters' \"properties\" must be an object".into(),
            ));
        };
        for (arg, description) in self.arg_descriptions {
            let Some(property) = properties.get_mut(&arg) else {
                let known: Vec<&str> = properties.keys().map(String::as_str).collect();
                return Err(fail(format!(
                    "there is no parameter named \"{arg}\" to describe; parameters: {}",
                    if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    }
                )));
            };
            match property {
                Value::Object(property) => {
                    property.insert("description".into(), Value::String(description));
                }
                // `true` (any value) described: the same schema with words.
                other => *other = json!({"description": description}),
            }
        }
        if let Err(message) = ArgumentValidator::new(&parameters) {
            return Err(fail(format!("the parameters schema is invalid: {message}")));
        }
        let mut definition = ToolDefinition::new(name, self.description, parameters);
        definition.output_schema = self.output_schema;
        definition.options = self.options;
        Ok(definition)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describing_an_argument_that_does_not_exist_names_the_real_ones() {
        let err = ToolBuilder::new("t")
            .description("d")
            .parameters(json!({"properties": {"a": {"type": "string"}}}))
            .arg_description("b", "?")
            .build(|_| Ok::<_, String>(()))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "tool t cannot be built: there is no parameter named \"b\" to describe; parameters: a"
        );
    }

    #[test]
    fn a_name_providers_reject_is_an_error_at_build_time() {
        let err = ToolBuilder::new("get weather")
            .description("d")
            .build(|_| Ok::<_, String>(()))
            .unwrap_err();
        assert!(matches!(err, ToolError::InvalidDefinition { .. }), "{err}");
    }
}
