//! Running an async tool from sync code: off by default, allowed only inside an explicit scope.
//!
//! Driving a future to completion from a thread that is itself running async code can deadlock,
//! so this is an opt-in, given as a closure scope, and the one place where it cannot work (a
//! current-thread tokio runtime, whose only thread would block on itself) is a clear error
//! instead of a hang.

use std::cell::Cell;
use std::future::Future;
use std::sync::OnceLock;

use tokio::runtime::{Handle, Runtime, RuntimeFlavor};

use crate::error::ToolError;

thread_local! {
    static ALLOWED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `body` with async-to-sync conversion allowed: inside it, [`ToolProxy::call`] and
/// [`ToolProxy::dynamic_call`] may run async tools to completion.
///
/// It works outside any runtime and inside a multi-thread tokio runtime (through
/// `block_in_place`). Inside a current-thread runtime the call returns
/// [`ToolError::AsyncConversionUnavailable`] rather than deadlocking; use `acall` there.
///
/// ```
/// use toolkit::prelude::*;
///
/// #[derive(Default)]
/// struct Clock;
///
/// #[toolset]
/// impl Clock {
///     /// Wait a moment, then answer
///     #[tool]
///     async fn tick(&self) -> &'static str {
///         "tock"
///     }
/// }
///
/// let tick = Clock::to_tools().remove(0);
/// assert!(tick.call(json!({})).is_err());
/// let answer = toolkit::allow_async_to_sync(|| tick.call(json!({})));
/// assert_eq!(answer.unwrap(), json!("tock"));
/// ```
///
/// [`ToolProxy::call`]: crate::ToolProxy::call
/// [`ToolProxy::dynamic_call`]: crate::ToolProxy::dynamic_call
pub fn allow_async_to_sync<R>(body: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            ALLOWED.with(|allowed| allowed.set(self.0));
        }
    }
    let _restore = Restore(ALLOWED.with(|allowed| allowed.replace(true)));
    body()
}

/// Whether the current thread is inside [`allow_async_to_sync`].
pub fn async_to_sync_allowed() -> bool {
    ALLOWED.with(Cell::get)
}

pub(crate) fn block_on<F: Future>(tool: &str, future: F) -> Result<F::Output, ToolError> {
    if !async_to_sync_allowed() {
        return Err(ToolError::AsyncToolCalledSync { tool: tool.into() });
    }
    match Handle::try_current() {
        Err(_) => Ok(fallback_runtime().block_on(future)),
        Ok(handle) => match handle.runtime_flavor() {
            RuntimeFlavor::MultiThread => {
                Ok(tokio::task::block_in_place(|| handle.block_on(future)))
            }
            _ => Err(ToolError::AsyncConversionUnavailable {
                tool: tool.into(),
                reason: "this thread runs a current-thread tokio runtime, which would deadlock \
                         waiting on itself; call acall instead"
                    .into(),
            }),
        },
    }
}

/// One small runtime, made on first use, for async tools called from plain sync code.
pub(crate) fn fallback_runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("toolkit-async-to-sync")
            .enable_all()
            .build()
            .expect("the operating system refused to start the toolkit's fallback runtime thread")
    })
}
