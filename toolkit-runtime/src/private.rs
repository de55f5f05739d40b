//! What generated code uses: `#[toolset]` and `#[tool]` expand to paths under
//! `toolkit::__private`, never to what the user imported. Not a public API: it changes without
//! notice.

pub use crate::call::Arguments;
pub use crate::call::{
    BoxFuture, DefaultHidden, DefaultShown, DefaultValue, Field, FieldReaders, FieldsProbe,
    Handler, HandlerError, HasFields, HasOutputSchema, NoFields, NoOutputSchema, OutputSchemaProbe,
    ParseFields, TypedHandler, TypedInput, output, output_ref, result_output,
};
pub use crate::registry::ToolsetRegistration;
pub use crate::schema::build::{ParamSpec, param_schema, param_schema_option, parameters_schema};
pub use crate::state::typed::*;
pub use crate::state::{AgentState, MergeRule, StateError, StateKey, StateWiring, merge_list_into};
pub use crate::toolset::{DefaultProbe, NoDefault, ViaDefault, toolset_registration};
pub use crate::{
    ToolAnnotations, ToolArgument, ToolDefinition, ToolErrorMessage, ToolOptions, ToolOutput,
    ToolProxy, Toolset,
};

use std::sync::Arc;

use serde_json::Value;

/// A `#[tool]` method, as the macro describes it.
pub struct MethodTool {
    pub name: &'static str,
    pub description: &'static str,
    /// Constant data: the macro writes the list as a promoted `&'static` slice, so it costs
    /// no code per tool.
    pub params: &'static [ParamSpec],
    pub output_schema: fn() -> Option<Value>,
    pub options: ToolOptions,
}

impl MethodTool {
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name.to_owned(),
            description: self.description.to_owned(),
            title: None,
            parameters: parameters_schema(self.params),
            // MCP requires an output schema to describe an object.
            output_schema: (self.output_schema)()
                .filter(|schema| schema.get("type").and_then(Value::as_str) == Some("object")),
            options: self.options.clone(),
        }
    }

    /// A proxy whose body is sync: `finish` turns the parameters, read by `readers` from the
    /// call's JSON (the fast path) or taken from validated arguments (the full pipeline), into
    /// the call; on the fast path `None` leaves the call to the full pipeline, which words the
    /// error. `readers` is `None` only when a parameter type cannot be read, which the
    /// parameter's schema function has already reported as a compile error.
    pub fn sync<S, T>(self, readers: Option<FieldReaders<S>>, finish: T) -> ToolProxy
    where
        S: 'static,
        T: Fn(S) -> Option<Result<Value, HandlerError>> + Clone + Send + Sync + 'static,
    {
        let Some(readers) = readers else {
            return self.unreadable();
        };
        let (params, names) = (self.params, self.param_names());
        let taken = finish.clone();
        let body = move |arguments: &mut Arguments| {
            taken((readers.take)(arguments, params)?).unwrap_or_else(|| Err(unpacked_none()))
        };
        let typed = move |input: TypedInput<'_>| finish((readers.parse)(input, &names)?);
        ToolProxy::build(
            self.definition(),
            Handler::Sync(Arc::new(body)),
            Some(TypedHandler::Sync(Arc::new(typed))),
            None,
        )
    }

    /// A proxy whose body is async; see [`sync`](Self::sync).
    pub fn asynchronous<S, T>(self, readers: Option<FieldReaders<S>>, finish: T) -> ToolProxy
    where
        S: 'static,
        T: Fn(S) -> Option<BoxFuture<Result<Value, HandlerError>>> + Clone + Send + Sync + 'static,
    {
        let Some(readers) = readers else {
            return self.unreadable();
        };
        let (params, names) = (self.params, self.param_names());
        let taken = finish.clone();
        let body = move |mut arguments: Arguments| {
            taken((readers.take)(&mut arguments, params)?).ok_or_else(unpacked_none)
        };
        let typed = move |input: TypedInput<'_>| finish((readers.parse)(input, &names)?);
        ToolProxy::build(
            self.definition(),
            Handler::Async(Arc::new(body)),
            Some(TypedHandler::Async(Arc::new(typed))),
            None,
        )
    }

    /// A tool whose parameters cannot be read: never built, since the parameter's schema
    /// function fails to compile first; it only gives that error nothing to cascade into.
    fn unreadable(self) -> ToolProxy {
        let body = |_: &mut Arguments| Err(unpacked_none());
        ToolProxy::build(self.definition(), Handler::Sync(Arc::new(body)), None, None)
    }

    fn param_names(&self) -> Vec<&'static str> {
        self.params.iter().map(|param| param.name).collect()
    }
}

/// What `finish` returning `None` for validated arguments would mean: a required parameter
/// absent, which `FieldSet::take` reports as missing before `finish` runs.
fn unpacked_none() -> HandlerError {
    HandlerError::Failed("the tool's arguments could not be unpacked".into())
}

/// A `#[toolset]` tool wired to its `#[toolset(state = ...)]` keys.
pub fn wire_state(tool: ToolProxy, wiring: StateWiring) -> ToolProxy {
    match tool.with_state(wiring) {
        Ok(wired) => wired,
        // The macro wires only parameters the method has, so this is unreachable; the tool is
        // still better unwired than a panic in `to_tools`.
        Err(_) => tool,
    }
}

/// A `#[toolset(state = ...)]` tool, already wired, given its typed body with state: `parser`
/// reads the parameters the model sends (`names`), and `body` fills the others from the state's
/// fields, calls the method and merges its result (see `call::stateful`). Without a parser (a
/// parameter type serde cannot read) the tool keeps the JSON path alone.
pub fn wire_state_typed<S, F>(
    tool: ToolProxy,
    parser: Option<ParseFields<S>>,
    names: &'static [&'static str],
    body: F,
) -> ToolProxy
where
    S: 'static,
    F: Fn(&mut dyn AgentState, S) -> Option<Result<Value, HandlerError>> + Send + Sync + 'static,
{
    match parser {
        Some(parse) => tool.with_typed_state(Arc::new(move |state, input| {
            body(state, parse(input, names)?)
        })),
        None => tool,
    }
}
