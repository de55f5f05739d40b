//! What a request left behind tells the server: a call or task the caller stopped waiting for
//! (dropped, timed out, its context cancelled) is cancelled there too, so the server does not
//! keep working for no one.

use std::future::Future;

use tokio::task::AbortHandle;
use tokio_util::sync::{CancellationToken, DropGuard};

/// Sends its notice if dropped before [`finished`](Self::finished): tokio-util's [`DropGuard`]
/// cancels a token, and a task waiting on that token sends the notice, since sending is async
/// and `drop` is not.
pub(super) struct Abandon {
    guard: Option<DropGuard>,
    watcher: Option<AbortHandle>,
}

impl Abandon {
    /// A guard that runs `notice` if dropped first. Without a runtime (it is shutting down)
    /// there is no connection left to send the notice on, so none is armed.
    pub(super) fn notify(notice: impl Future<Output = ()> + Send + 'static) -> Self {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return Abandon {
                guard: None,
                watcher: None,
            };
        };
        let abandoned = CancellationToken::new();
        let waited = abandoned.clone();
        let watcher = runtime.spawn(async move {
            waited.cancelled().await;
            notice.await;
        });
        Abandon {
            guard: Some(abandoned.drop_guard()),
            watcher: Some(watcher.abort_handle()),
        }
    }

    /// The answer came: nothing to tell the server.
    pub(super) fn finished(self) {
        if let Some(guard) = self.guard {
            guard.disarm();
        }
        if let Some(watcher) = self.watcher {
            watcher.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::Abandon;

    fn counting(sent: &Arc<AtomicUsize>) -> Abandon {
        let sent = Arc::clone(sent);
        Abandon::notify(async move {
            sent.fetch_add(1, Ordering::SeqCst);
        })
    }

    #[tokio::test]
    async fn a_dropped_guard_sends_its_notice_and_a_finished_one_does_not() {
        let sent = Arc::new(AtomicUsize::new(0));
        counting(&sent).finished();
        drop(counting(&sent));
        for _ in 0..100 {
            if sent.load(Ordering::SeqCst) > 0 {
                break;
            }
            tokio::task::yield_now().await;
        }
        // The finished guard's watcher was aborted: a few more turns give it no chance to send.
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        assert_eq!(sent.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn without_a_runtime_no_notice_is_armed() {
        let sent = Arc::new(AtomicUsize::new(0));
        drop(counting(&sent));
        assert_eq!(sent.load(Ordering::SeqCst), 0);
    }
}
