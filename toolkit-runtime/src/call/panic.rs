//! Panics in a tool's body become errors: `catch_unwind` around a sync body, around the call that
//! makes an async body's future, and around every poll of that future.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::Value;

use super::arguments::Arguments;
use super::handler::{AsyncHandler, BoxFuture, HandlerError};

/// Runs `body`; a panic is its error.
pub(crate) fn caught<T>(body: impl FnOnce() -> T) -> Result<T, HandlerError> {
    catch_unwind(AssertUnwindSafe(body))
        .map_err(|payload| HandlerError::Panicked(panic_message(&*payload)))
}

/// Runs a sync body; a panic is its error.
pub(crate) fn run_catching(
    body: impl FnOnce() -> Result<Value, HandlerError>,
) -> Result<Value, HandlerError> {
    caught(body).and_then(|result| result)
}

/// An async body's future, made and polled so that no panic escapes: a closure may panic while
/// making its future (`args["n"].as_i64().unwrap()` before `async move`), or the future while
/// it is polled.
pub(crate) fn start_async(
    handler: &AsyncHandler,
    arguments: Arguments,
) -> BoxFuture<'static, Result<Value, HandlerError>> {
    match caught(|| handler(arguments)) {
        Ok(Ok(future)) => polled_catching(future),
        Ok(Err(failure)) | Err(failure) => Box::pin(std::future::ready(Err(failure))),
    }
}

/// A body's future whose panics, while it is polled, become its error.
pub(crate) fn polled_catching(
    future: BoxFuture<'static, Result<Value, HandlerError>>,
) -> BoxFuture<'static, Result<Value, HandlerError>> {
    Box::pin(async move {
        CatchUnwind(future)
            .await
            .unwrap_or_else(|message| Err(HandlerError::Panicked(message)))
    })
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

/// A future whose panics, while it is polled, become `Err(message)`: what `catch_unwind` is to a
/// closure.
pub(crate) struct CatchUnwind<F>(pub(crate) F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(&mut *future).poll(cx))) {
            Ok(poll) => poll.map(Ok),
            Err(payload) => Poll::Ready(Err(panic_message(&*payload))),
        }
    }
}
