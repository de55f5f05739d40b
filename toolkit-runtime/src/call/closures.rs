//! Tools whose bodies are closures over the argument map: what `ToolBuilder` and the MCP client
//! build on, and applications with definitions from elsewhere.

use std::fmt::Display;
use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use super::arguments::Arguments;
use super::definition::ToolDefinition;
use super::handler::{BoxFuture, Handler, HandlerError};
use super::output::closure_output;
use super::proxy::{ToolProxy, ToolTraits};
use crate::context::ToolContext;

/// The traits of a closure's body that takes a context.
const CONTEXT: ToolTraits = ToolTraits {
    takes_context: true,
    returns_content: false,
    forwards: false,
};

impl ToolProxy {
    /// A tool from a definition and a sync body over the argument map.
    ///
    /// The body receives the arguments as a JSON object already coerced and validated against
    /// `definition.parameters`, and returns `Result<T, E>` with `T: Serialize` and `E: Display`:
    /// the error's text is what the model reads, as a
    /// [`ToolError::Failed`](crate::ToolError::Failed). A body that fails with a
    /// [`ToolError`](crate::ToolError) keeps its kind (an MCP client's remote tool ends as
    /// [`Cancelled`](crate::ToolError::Cancelled) or [`TimedOut`](crate::ToolError::TimedOut)).
    /// Unlike [`ToolBuilder`](crate::ToolBuilder), nothing about the definition is checked here:
    /// use this for definitions that come from elsewhere as they are (an MCP server's tools).
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::ToolDefinition;
    ///
    /// let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    /// let double = ToolProxy::from_fn(ToolDefinition::new("double", "Double n", schema), |args| {
    ///     Ok::<_, String>(args["n"].as_i64().unwrap_or_default() * 2)
    /// });
    /// assert_eq!(double.dynamic_call(json!({"n": "21"})), json!(42));
    ///
    /// // A typed error keeps its kind.
    /// let stop = ToolProxy::from_fn(ToolDefinition::new("stop", "Stop", json!({})), |_| {
    ///     Err::<(), _>(ToolError::Cancelled { tool: "stop".into(), reason: "told to".into() })
    /// });
    /// let err = stop.call(json!({})).unwrap_err();
    /// assert_eq!(err.kind(), toolkit::ToolErrorKind::Cancelled);
    /// assert_eq!(err.to_string(), "the call to stop was cancelled: told to");
    /// ```
    pub fn from_fn<F, T, E>(definition: ToolDefinition, body: F) -> ToolProxy
    where
        F: Fn(Map<String, Value>) -> Result<T, E> + Send + Sync + 'static,
        T: Serialize,
        E: Display + 'static,
    {
        let handler = move |arguments: &mut Arguments| {
            closure_output(body(std::mem::take(arguments).into_map()))
        };
        ToolProxy::from_parts(
            definition,
            Handler::Sync(Arc::new(handler)),
            ToolTraits::default(),
        )
    }

    /// A tool from a definition and an async body over the argument map; see
    /// [`from_fn`](Self::from_fn).
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::ToolDefinition;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    /// let echo = ToolProxy::from_async_fn(ToolDefinition::new("echo", "Echo", schema), |args| {
    ///     async move { Ok::<_, String>(args["text"].clone()) }
    /// });
    /// assert!(echo.is_async());
    /// assert_eq!(echo.dynamic_acall(json!({"text": "hi"})).await, json!("hi"));
    /// # }
    /// ```
    pub fn from_async_fn<F, Fut, T, E>(definition: ToolDefinition, body: F) -> ToolProxy
    where
        F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<T, E>> + Send + 'static,
        T: Serialize,
        E: Display + 'static,
    {
        let handler = move |arguments: Arguments| {
            let future = body(arguments.into_map());
            let boxed: BoxFuture<'static, Result<Value, HandlerError>> =
                Box::pin(async move { closure_output(future.await) });
            Ok(boxed)
        };
        ToolProxy::from_parts(
            definition,
            Handler::Async(Arc::new(handler)),
            ToolTraits::default(),
        )
    }

    /// A tool from a definition and a sync body over the argument map and the call's
    /// [`ToolContext`](crate::ToolContext); see [`from_fn`](Self::from_fn).
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::ToolDefinition;
    ///
    /// let schema = json!({"type": "object", "properties": {}});
    /// let who = ToolProxy::from_fn_with_context(ToolDefinition::new("who", "Who am I", schema), |_, ctx| {
    ///     Ok::<_, String>(ctx.tool_name().to_owned())
    /// });
    /// assert!(who.takes_context());
    /// assert_eq!(who.dynamic_call(json!({})), json!("who"));
    /// ```
    pub fn from_fn_with_context<F, T, E>(definition: ToolDefinition, body: F) -> ToolProxy
    where
        F: Fn(Map<String, Value>, ToolContext) -> Result<T, E> + Send + Sync + 'static,
        T: Serialize,
        E: Display + 'static,
    {
        let name = definition.name.clone();
        let handler = move |arguments: &mut Arguments| {
            let ctx = ToolContext::current(&name);
            closure_output(body(std::mem::take(arguments).into_map(), ctx))
        };
        ToolProxy::from_parts(definition, Handler::Sync(Arc::new(handler)), CONTEXT)
    }

    /// A tool from a definition and an async body over the argument map and the call's
    /// [`ToolContext`](crate::ToolContext); see [`from_async_fn`](Self::from_async_fn).
    pub fn from_async_fn_with_context<F, Fut, T, E>(
        definition: ToolDefinition,
        body: F,
    ) -> ToolProxy
    where
        F: Fn(Map<String, Value>, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<T, E>> + Send + 'static,
        T: Serialize,
        E: Display + 'static,
    {
        let name = definition.name.clone();
        let handler = move |arguments: Arguments| {
            // Read now, while the proxy's context is current; the future may run elsewhere.
            let future = body(arguments.into_map(), ToolContext::current(&name));
            let boxed: BoxFuture<'static, Result<Value, HandlerError>> =
                Box::pin(async move { closure_output(future.await) });
            Ok(boxed)
        };
        ToolProxy::from_parts(definition, Handler::Async(Arc::new(handler)), CONTEXT)
    }

    /// The same tool, its results read as content blocks: a string is text, and an MCP content
    /// object, an array of them or a whole `{"content": [...]}` is rendered block by block in
    /// every format. What `#[tool]` decides from the return type, for a closure's body.
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::ToolDefinition;
    ///
    /// let schema = json!({"type": "object", "properties": {}});
    /// let chart = ToolProxy::from_fn(ToolDefinition::new("chart", "A chart", schema), |_| {
    ///     Ok::<_, String>(Image::png([1, 2, 3]))
    /// })
    /// .returning_content();
    /// assert!(chart.returns_content());
    /// ```
    pub fn returning_content(self) -> ToolProxy {
        let traits = ToolTraits {
            returns_content: true,
            ..self.inner.traits
        };
        rebuilt(self, traits)
    }
}

/// `tool` with other traits.
pub(super) fn rebuilt(tool: ToolProxy, traits: ToolTraits) -> ToolProxy {
    let (handler, typed) = (tool.inner.handler.clone(), tool.inner.typed.clone());
    let (definition, state) = (tool.inner.definition.clone(), tool.inner.state.clone());
    ToolProxy::build(definition, handler, typed, state, traits)
}

impl ToolProxy {
    /// The same tool, its successful results read as [`Forwarded`]: the model reads their
    /// `value`, and a [`ToolCallResult`](crate::ToolCallResult) keeps their `result` for an MCP
    /// server serving the tool ([`ToolCallResult::forwarded`](crate::ToolCallResult::forwarded)).
    #[doc(hidden)]
    pub fn forwarding(self) -> ToolProxy {
        let traits = ToolTraits {
            forwards: true,
            ..self.inner.traits
        };
        rebuilt(self, traits)
    }
}
