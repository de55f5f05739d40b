//! A tool's context is cancelled when its call ends early: a sync tool left running on the
//! blocking pool past its deadline sees `is_cancelled()`, and an async tool whose caller stops
//! waiting has its future dropped and its context cancelled.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use toolkit::context::Cancellation;
use toolkit::prelude::*;

/// What the tools saw, for the tests to read after their calls ended.
#[derive(Default)]
struct Watched {
    /// When the sync tool saw its context cancelled.
    seen: Mutex<Option<mpsc::Sender<Instant>>>,
    /// Flipped by the drop guard in the async tool's future.
    dropped: Arc<AtomicBool>,
    /// The async tool's cancellation, kept to look at after the call is gone.
    token: Mutex<Option<Cancellation>>,
}

/// Sets its flag when dropped: the async tool's future holds one.
struct DropGuard(Arc<AtomicBool>);

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

const DEADLINE_MS: u64 = 100;

#[toolset(name = "watched", register = false)]
impl Watched {
    /// Spin until cancelled (at most two seconds), then say when it saw it
    #[tool(timeout_ms = 100)]
    fn spin(&self, ctx: &ToolContext) -> bool {
        let started = Instant::now();
        while !ctx.is_cancelled() && started.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_micros(200));
        }
        let seen = Instant::now();
        if let Some(sender) = self.seen.lock().unwrap().as_ref() {
            let _ = sender.send(seen);
        }
        ctx.is_cancelled()
    }

    /// Wait for an hour, unless dropped first
    #[tool]
    async fn wait(&self, ctx: &ToolContext) -> String {
        let _guard = DropGuard(Arc::clone(&self.dropped));
        *self.token.lock().unwrap() = Some(ctx.cancellation().clone());
        tokio::time::sleep(Duration::from_secs(3600)).await;
        "woke".into()
    }
}

fn watched() -> (Arc<Watched>, Toolbox) {
    let watched = Arc::new(Watched::default());
    let toolbox = Toolbox::builder()
        .toolset_instance(Arc::clone(&watched))
        .build()
        .unwrap();
    (watched, toolbox)
}

/// How long after its deadline a sync tool on the blocking pool saw `is_cancelled()`, from
/// async code and from sync code; the tool checks the flag every 0.2 ms.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_tool_past_its_deadline_sees_its_context_cancelled() {
    let (watched, toolbox) = watched();
    let (sender, seen) = mpsc::channel();
    *watched.seen.lock().unwrap() = Some(sender);
    let call = ToolCall::new("watched_spin", json!({}));

    // The deadline counts from the call's start, the wait for a pool thread included.
    let started = Instant::now();
    let result = toolbox.acall(&call).await;
    assert!(result.is_error, "{}", result.value);
    assert!(
        result.value.to_string().contains("time limit"),
        "{}",
        result.value
    );
    let after_async = seen.recv_timeout(Duration::from_secs(3)).unwrap() - started;

    let toolbox_in_thread = toolbox.clone();
    let started = Instant::now();
    let result = tokio::task::spawn_blocking(move || toolbox_in_thread.call(&call))
        .await
        .unwrap();
    assert!(result.is_error, "{}", result.value);
    let after_sync = seen.recv_timeout(Duration::from_secs(3)).unwrap() - started;

    let deadline = Duration::from_millis(DEADLINE_MS);
    for (how, after) in [("acall", after_async), ("call", after_sync)] {
        let late = after.saturating_sub(deadline);
        println!(
            "{how}: the tool saw its context cancelled {:.2} ms after its {DEADLINE_MS} ms deadline",
            late.as_secs_f64() * 1e3
        );
        assert!(
            after >= deadline,
            "{how}: cancelled before the deadline ({after:?})"
        );
        // A correctness bound with margin for a shared machine, not a timing.
        assert!(
            late < Duration::from_millis(50),
            "{how}: seen {late:?} late"
        );
    }
}

#[tokio::test]
async fn an_async_tool_is_dropped_and_cancelled_when_its_caller_stops_waiting() {
    let (watched, toolbox) = watched();
    let call = ToolCall::new("watched_wait", json!({}));
    let waited = tokio::time::timeout(Duration::from_millis(20), toolbox.acall(&call)).await;
    assert!(waited.is_err(), "the call should still be waiting");
    assert!(
        watched.dropped.load(Ordering::SeqCst),
        "the tool's future was not dropped"
    );
    let token = watched.token.lock().unwrap().clone().expect("the tool ran");
    assert!(
        token.is_cancelled(),
        "the dropped call's context is not cancelled"
    );
}

#[tokio::test]
async fn a_cancelled_scope_cancels_the_calls_in_it() {
    let (watched, toolbox) = watched();
    let scope_token = Cancellation::new();
    let scope = toolkit::context::CallScope::new().cancellation(scope_token.clone());
    let call = ToolCall::new("watched_wait", json!({}));
    let running = tokio::spawn({
        let toolbox = toolbox.clone();
        async move { scope.run(toolbox.acall(&call)).await }
    });
    while watched.token.lock().unwrap().is_none() {
        tokio::task::yield_now().await;
    }
    let token = watched.token.lock().unwrap().clone().unwrap();
    assert!(!token.is_cancelled());
    scope_token.cancel();
    assert!(
        token.is_cancelled(),
        "the call's token is a child of the scope's"
    );
    running.abort();
    let _ = running.await;
    assert!(watched.dropped.load(Ordering::SeqCst));
}
