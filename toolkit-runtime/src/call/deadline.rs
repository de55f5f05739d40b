//! Deadlines: an async body is dropped at its deadline; a sync body runs on a blocking-pool
//! thread that the caller stops waiting for.

use std::future::Future;
use std::sync::Arc;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use serde_json::Value;

use super::arguments::Arguments;
use super::async_bridge;
use super::handler::{HandlerError, SyncHandler};
use super::panic::run_catching;
use crate::error::ToolError;

/// Awaits `future`, giving up at `timeout`; dropping it there cancels an async body.
pub(crate) async fn with_deadline<F: Future>(
    tool: &str,
    future: F,
    timeout: Option<Duration>,
) -> Result<F::Output, ToolError> {
    match timeout {
        None => Ok(future.await),
        Some(timeout) => {
            tokio::time::timeout(timeout, future)
                .await
                .map_err(|_| ToolError::TimedOut {
                    tool: tool.into(),
                    timeout,
                })
        }
    }
}

/// Runs a sync body on a blocking-pool thread and waits for it until `timeout`. At the deadline
/// the caller gets its error and the thread runs on to the end of the body, its result dropped.
pub(crate) fn run_with_deadline(
    tool: &str,
    handler: &Arc<SyncHandler>,
    mut arguments: Arguments,
    timeout: Duration,
) -> Result<Result<Value, HandlerError>, ToolError> {
    let handler = Arc::clone(handler);
    let (sender, receiver) = std::sync::mpsc::sync_channel(1);
    let job = move || {
        // The caller may have stopped waiting; then nobody needs the result.
        let _ = sender.send(run_catching(|| handler(&mut arguments)));
    };
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => drop(handle.spawn_blocking(job)),
        Err(_) => drop(async_bridge::fallback_runtime().spawn_blocking(job)),
    }
    match receiver.recv_timeout(timeout) {
        Ok(result) => Ok(result),
        Err(RecvTimeoutError::Timeout) => Err(ToolError::TimedOut {
            tool: tool.into(),
            timeout,
        }),
        Err(RecvTimeoutError::Disconnected) => Ok(Err(HandlerError::Failed(
            "the tool's thread stopped before it answered".into(),
        ))),
    }
}
