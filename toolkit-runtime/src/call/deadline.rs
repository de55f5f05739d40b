//! Deadlines. An async body is dropped at its deadline. A sync body runs on a blocking-pool
//! thread that the caller stops waiting for: Rust cannot stop a thread, so the body runs on to
//! its end, its result dropped, and the thread holds one of the tool's places (`places`) until
//! then.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use serde_json::Value;

use super::async_bridge::fallback_runtime;
use crate::error::ToolError;

/// Awaits `future`, giving up at `timeout`; dropping it there cancels an async body.
pub(crate) async fn with_deadline<F: Future>(
    tool: &str,
    future: F,
    timeout: Option<Duration>,
) -> Result<F::Output, ToolError> {
    let Some(timeout) = timeout else {
        return Ok(future.await);
    };
    within(timeout, future)
        .await
        .ok_or_else(|| ToolError::TimedOut {
            tool: tool.into(),
            timeout,
        })
}

/// Awaits `future` for at most `timeout`: its output, or `None` when the time ran out first
/// (the future is then dropped, which cancels it). toolkit's one deadline on a future, used by
/// every tool call with a timeout, by the MCP client's calls and its connection.
///
/// Unlike `tokio::time::timeout`, it keeps the deadline on any runtime: one built without timers
/// (where `tokio::time` panics) borrows the timer of toolkit's fallback runtime.
///
/// ```
/// use std::time::Duration;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// // A runtime without timers: `tokio::time::timeout` would panic here.
/// let never = std::future::pending::<()>();
/// assert_eq!(toolkit_runtime::within(Duration::from_millis(10), never).await, None);
/// assert_eq!(toolkit_runtime::within(Duration::from_secs(1), async { 7 }).await, Some(7));
/// # });
/// ```
pub async fn within<F: Future>(timeout: Duration, future: F) -> Option<F::Output> {
    let local = tokio::runtime::Handle::try_current()
        .ok()
        .and_then(|_| catch_unwind(AssertUnwindSafe(|| tokio::time::sleep(timeout))).ok());
    match local {
        Some(sleep) => tokio::select! {
            biased;
            output = future => Some(output),
            () = sleep => None,
        },
        None => {
            // The sleep is made on the fallback runtime: making it here would need this one's
            // timer.
            let sleep = fallback_runtime().spawn(async move { tokio::time::sleep(timeout).await });
            let mut sleep = AbortOnDrop(sleep);
            tokio::select! {
                biased;
                output = future => Some(output),
                _ = &mut sleep.0 => None,
            }
        }
    }
}

/// The fallback runtime's timer, stopped when the call no longer needs it.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Runs `job` on a blocking-pool thread and waits for it for `left` of the call's `timeout`. At
/// the deadline the caller gets its error and the thread runs on to the end of the job, its
/// result dropped.
pub(crate) fn run_with_deadline(
    tool: &str,
    timeout: Duration,
    left: Duration,
    job: impl FnOnce() -> Result<Value, ToolError> + Send + 'static,
) -> Result<Value, ToolError> {
    let (sender, receiver) = std::sync::mpsc::sync_channel(1);
    let job = move || {
        // The caller may have stopped waiting; then nobody needs the result.
        let _ = sender.send(job());
    };
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => drop(handle.spawn_blocking(job)),
        Err(_) => drop(fallback_runtime().spawn_blocking(job)),
    }
    match receiver.recv_timeout(left) {
        Ok(result) => result,
        Err(RecvTimeoutError::Timeout) => Err(ToolError::TimedOut {
            tool: tool.into(),
            timeout,
        }),
        Err(RecvTimeoutError::Disconnected) => Err(ToolError::Failed {
            tool: tool.into(),
            message: "the tool's thread stopped before it answered".into(),
        }),
    }
}
