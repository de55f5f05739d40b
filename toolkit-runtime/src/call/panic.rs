//! Panics in a tool's body become errors: `catch_unwind` for sync bodies, a wrapper future for
//! async ones.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::Value;

use super::handler::{BoxFuture, HandlerError};

pub(crate) fn run_catching(
    body: impl FnOnce() -> Result<Value, HandlerError>,
) -> Result<Value, HandlerError> {
    catch_unwind(AssertUnwindSafe(body))
        .unwrap_or_else(|payload| Err(HandlerError::Panicked(panic_message(&*payload))))
}

/// The text a panic carried, for the error a model reads.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "the panic carried no message".to_owned()
    }
}

/// Turns a panic while polling an async tool into an error, as `catch_unwind` does for sync ones.
pub(crate) struct CatchUnwind(pub(crate) BoxFuture<Result<Value, HandlerError>>);

impl Future for CatchUnwind {
    type Output = Result<Value, HandlerError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(poll) => poll,
            Err(payload) => Poll::Ready(Err(HandlerError::Panicked(panic_message(&*payload)))),
        }
    }
}
