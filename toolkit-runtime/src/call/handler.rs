//! What runs when a tool is called: a sync or async body over typed arguments, and what such a
//! body can report besides a result.

use std::sync::Arc;

use serde_json::Value;

pub use crate::future::BoxFuture;

use super::arguments::Arguments;
use crate::error::{ArgumentProblem, ToolError};
use crate::state::AgentState;

/// The body of a sync tool.
pub(super) type SyncHandler = dyn Fn(&mut Arguments) -> Result<Value, HandlerError> + Send + Sync;
/// The body of an async tool: its future, or the error taking its arguments met before it could
/// start (a `Result` rather than a ready future, so that a body can take its arguments with `?`
/// without a closure of its own).
pub(super) type AsyncHandler = dyn Fn(Arguments) -> Result<BoxFuture<'static, Result<Value, HandlerError>>, HandlerError>
    + Send
    + Sync;

/// What runs when a tool is called.
#[derive(Clone)]
#[doc(hidden)]
pub enum Handler {
    Sync(Arc<SyncHandler>),
    Async(Arc<AsyncHandler>),
}

/// A `#[tool]` method's sync body on the typed fast path (see `typed`): `None` sends the call
/// down the full pipeline.
pub(super) type TypedSync =
    dyn Fn(TypedInput<'_>) -> Option<Result<Value, HandlerError>> + Send + Sync;
/// A `#[tool]` method's async body on the typed fast path.
pub(super) type TypedAsync =
    dyn Fn(TypedInput<'_>) -> Option<BoxFuture<'static, Result<Value, HandlerError>>> + Send + Sync;

/// A `#[tool]` method's body on the typed fast path.
#[derive(Clone)]
#[doc(hidden)]
pub enum TypedHandler {
    Sync(Arc<TypedSync>),
    Async(Arc<TypedAsync>),
}

/// A `#[toolset(state = T)]` method's sync body on the typed fast path with state: its
/// state-filled parameters read from the fields of the state, and on success its result merged
/// into its key, and returned as JSON. `None` sends the call down the JSON path, having changed
/// nothing.
pub(super) type TypedStateSync = dyn Fn(&mut dyn AgentState, TypedInput<'_>) -> Option<Result<Value, HandlerError>>
    + Send
    + Sync;

/// A call's arguments as the fast path reads them.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum TypedInput<'a> {
    /// JSON text, as a model sends it.
    Text(&'a str),
    /// A JSON object built by the caller.
    Value(&'a Value),
}

/// What a tool's body produced, before the proxy attaches the tool's name.
#[derive(Debug)]
#[doc(hidden)]
pub enum HandlerError {
    Argument(ArgumentProblem),
    Failed(String),
    /// A typed error of the body's own (a closure tool's `Err(ToolError)`), kept as it is.
    /// Boxed: every call's future carries a `HandlerError`'s room, and this one is rare.
    Tool(Box<ToolError>),
    Unserializable(String),
    Panicked(String),
}

impl From<ArgumentProblem> for HandlerError {
    fn from(problem: ArgumentProblem) -> Self {
        HandlerError::Argument(problem)
    }
}
