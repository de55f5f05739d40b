//! What runs when a tool is called: a sync or async body over typed arguments, and what such a
//! body can report besides a result.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use super::arguments::Arguments;
use crate::error::ArgumentProblem;

/// A boxed, sendable future, as async handlers return.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The body of a sync tool.
pub type SyncHandler = dyn Fn(&mut Arguments) -> Result<Value, HandlerError> + Send + Sync;
/// The body of an async tool.
pub type AsyncHandler = dyn Fn(Arguments) -> BoxFuture<Result<Value, HandlerError>> + Send + Sync;

/// What runs when a tool is called.
#[derive(Clone)]
#[doc(hidden)]
pub enum Handler {
    Sync(Arc<SyncHandler>),
    Async(Arc<AsyncHandler>),
}

/// What a tool's body produced, before the proxy attaches the tool's name.
#[derive(Debug)]
#[doc(hidden)]
pub enum HandlerError {
    Argument(ArgumentProblem),
    Failed(String),
    Unserializable(String),
    Panicked(String),
}

impl From<ArgumentProblem> for HandlerError {
    fn from(problem: ArgumentProblem) -> Self {
        HandlerError::Argument(problem)
    }
}
