//! What generated code uses: `#[toolset]` and `#[tool]` expand to paths under
//! `toolkit::__private`, never to what the user imported. Not a public API: it changes without
//! notice.

pub use crate::call::{
    BoxFuture, DefaultHidden, DefaultShown, DefaultValue, Field, FieldsProbe, Handler,
    HandlerError, HasFields, HasOutputSchema, NoFields, NoOutputSchema, OutputSchemaProbe,
    TypedHandler, TypedInput, output, result_output,
};
pub use crate::registry::{DefaultProbe, NoDefault, ToolsetRegistration, ViaDefault};
pub use crate::schema::{ParamSpec, param_schema, param_schema_option, parameters_schema};
pub use crate::{
    Arguments, ToolAnnotations, ToolArgument, ToolDefinition, ToolErrorMessage, ToolOptions,
    ToolOutput, ToolProxy, Toolset,
};

use std::sync::Arc;

use serde_json::Value;

/// A `#[tool]` method, as the macro describes it.
pub struct MethodTool {
    pub name: &'static str,
    pub description: &'static str,
    pub params: Vec<ParamSpec>,
    pub output_schema: fn() -> Option<Value>,
    pub options: ToolOptions,
}

impl MethodTool {
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name.to_owned(),
            description: self.description.to_owned(),
            parameters: parameters_schema(&self.params),
            // MCP requires an output schema to describe an object.
            output_schema: (self.output_schema)()
                .filter(|schema| schema.get("type").and_then(Value::as_str) == Some("object")),
            options: self.options.clone(),
        }
    }

    /// A proxy whose body is sync, with the same body on the typed fast path when every
    /// parameter type can be read there.
    pub fn sync<F, T>(self, body: F, typed: Option<T>) -> ToolProxy
    where
        F: Fn(&mut Arguments) -> Result<Value, HandlerError> + Send + Sync + 'static,
        T: Fn(TypedInput<'_>) -> Option<Result<Value, HandlerError>> + Send + Sync + 'static,
    {
        let typed = typed.map(|typed| TypedHandler::Sync(Arc::new(typed)));
        ToolProxy::with_typed(self.definition(), Handler::Sync(Arc::new(body)), typed)
    }

    /// A proxy whose body is async; see [`sync`](Self::sync).
    pub fn asynchronous<F, T>(self, body: F, typed: Option<T>) -> ToolProxy
    where
        F: Fn(Arguments) -> BoxFuture<Result<Value, HandlerError>> + Send + Sync + 'static,
        T: Fn(TypedInput<'_>) -> Option<BoxFuture<Result<Value, HandlerError>>>
            + Send
            + Sync
            + 'static,
    {
        let typed = typed.map(|typed| TypedHandler::Async(Arc::new(typed)));
        ToolProxy::with_typed(self.definition(), Handler::Async(Arc::new(body)), typed)
    }
}
