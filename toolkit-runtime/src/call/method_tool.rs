//! `MethodTool`: the adapter between the call pipeline and the code `#[tool]` generates. The
//! macro describes a method (name, parameters, options) and hands over two bodies, one over
//! validated arguments (the full pipeline) and one over the call's JSON (the typed fast path);
//! this builds the [`ToolProxy`] that runs them.

use std::sync::Arc;

use serde_json::Value;

use super::arguments::Arguments;
use super::definition::{Icon, ToolDefinition, ToolOptions};
use super::handler::{BoxFuture, Handler, HandlerError, TypedHandler, TypedInput};
use super::proxy::{ToolProxy, ToolTraits};
use super::typed::FieldReaders;
use crate::schema::build::{ParamSpec, parameters_schemas};

/// A `#[tool]` method, as the macro describes it.
pub struct MethodTool {
    /// The tool's name, as the model calls it.
    pub name: &'static str,
    /// `#[tool(title = "...")]`: the name a client shows people.
    pub title: Option<&'static str>,
    /// The method's doc comment, as the model reads it.
    pub description: &'static str,
    /// `#[tool(icon = "...")]`: the icons' URIs.
    pub icons: &'static [&'static str],
    /// Constant data: the macro writes the list as a promoted `&'static` slice, so it costs
    /// no code per tool.
    pub params: &'static [ParamSpec],
    /// The return type's schema, when it has one.
    pub output_schema: fn() -> Option<Value>,
    /// The `#[tool(...)]` options.
    pub options: ToolOptions,
    /// Whether the method takes `ctx: &ToolContext`.
    pub takes_context: bool,
    /// Whether the method returns content blocks (`Image`, `ToolOutput`, ...), found by
    /// autoref specialization on the return type (`ContentProbe`).
    pub returns_content: fn() -> bool,
}

impl MethodTool {
    fn definition(&self) -> ToolDefinition {
        let (parameters, mcp_parameters) = parameters_schemas(self.params);
        ToolDefinition {
            name: self.name.to_owned(),
            description: self.description.to_owned(),
            title: self.title.map(str::to_owned),
            icons: self.icons.iter().copied().map(Icon::new).collect(),
            parameters,
            mcp_parameters,
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
            self.traits(),
        )
    }

    /// A proxy whose body is async; see [`sync`](Self::sync).
    pub fn asynchronous<S, T>(self, readers: Option<FieldReaders<S>>, finish: T) -> ToolProxy
    where
        S: 'static,
        T: Fn(S) -> Option<BoxFuture<'static, Result<Value, HandlerError>>>
            + Clone
            + Send
            + Sync
            + 'static,
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
            self.traits(),
        )
    }

    /// A tool whose parameters cannot be read: never built, since the parameter's schema
    /// function fails to compile first; it only gives that error nothing to cascade into.
    fn unreadable(self) -> ToolProxy {
        let body = |_: &mut Arguments| Err(unpacked_none());
        let traits = self.traits();
        ToolProxy::build(
            self.definition(),
            Handler::Sync(Arc::new(body)),
            None,
            None,
            traits,
        )
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits {
            takes_context: self.takes_context,
            returns_content: (self.returns_content)(),
            forwards: false,
        }
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
