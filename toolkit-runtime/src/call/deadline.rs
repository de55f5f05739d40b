//! toolkit's deadlines: on a future awaited in async code ([`within`], on any runtime), and on
//! a future a sync caller waits for on its own thread (`wait_until`).

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use super::async_bridge::fallback_runtime;

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

/// Polls `future` on this thread, parked between wake-ups, for at most `time`: its output, or
/// `None` when the time ran out first. The deadline of a sync caller, which has no runtime of its
/// own to wait in.
pub(crate) fn wait_within<F: Future>(time: Duration, future: F) -> Option<F::Output> {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    // A time past the clock's end (`Duration::MAX`) is no deadline.
    let until = Instant::now().checked_add(time);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return Some(output);
        }
        match until {
            None => std::thread::park(),
            Some(until) => {
                let left = until.checked_duration_since(Instant::now())?;
                if left.is_zero() {
                    return None;
                }
                std::thread::park_timeout(left);
            }
        }
    }
}
