//! A tool's places on tokio's blocking pool: at most `max_threads` of its calls hold a thread at
//! once, so that calls abandoned at their deadline (whose bodies Rust cannot stop) never take
//! every thread of the pool.
//!
//! A call that finds every place taken waits for one, up to `max_thread_wait` (or its deadline,
//! if sooner): under ordinary load places free up in milliseconds, and refusing would turn a
//! busy moment into errors. It is refused at once only when every place is held by a call whose
//! caller stopped waiting (past its deadline, or cancelled): those may never come back.

use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::deadline::{wait_within, within};
use super::limits::Limits;
use crate::error::ToolError;

/// The places of one tool, shared by every clone of its proxy.
#[derive(Debug, Default)]
pub(crate) struct ThreadPlaces(Arc<Shared>);

#[derive(Debug, Default)]
struct Shared {
    /// Calls holding a place, overdue ones included.
    held: AtomicUsize,
    /// Calls holding a place that nobody waits for any more.
    overdue: AtomicUsize,
    /// Told when a place is given back, or when one more becomes overdue.
    freed: Notify,
}

impl ThreadPlaces {
    /// A place for one more call: at once when one is free (no lock, no allocation beyond the
    /// claim's reference count), or after waiting for one, or an error saying why there is none.
    pub(crate) async fn claim(&self, tool: &str, limits: &Limits) -> Claimed {
        if let Some(claim) = self.try_claim(limits.max_threads()) {
            return Ok(claim);
        }
        let began = Instant::now();
        let wait = self.wait_for_place(tool, limits.max_threads());
        within(limits.thread_wait(), wait)
            .await
            .unwrap_or_else(|| Err(self.busy(tool, limits.max_threads(), began.elapsed())))
    }

    /// [`claim`](Self::claim) for a caller outside async code: the thread waits, parked.
    pub(crate) fn claim_blocking(&self, tool: &str, limits: &Limits) -> Claimed {
        if let Some(claim) = self.try_claim(limits.max_threads()) {
            return Ok(claim);
        }
        let began = Instant::now();
        let wait = self.wait_for_place(tool, limits.max_threads());
        wait_within(limits.thread_wait(), wait)
            .unwrap_or_else(|| Err(self.busy(tool, limits.max_threads(), began.elapsed())))
    }

    /// A free place, taken without ever counting past `limit` (so a failed attempt never makes
    /// another caller's attempt fail).
    fn try_claim(&self, limit: usize) -> Option<ThreadClaim> {
        let held = &self.0.held;
        let mut now = held.load(Ordering::Acquire);
        loop {
            if now >= limit {
                return None;
            }
            match held.compare_exchange_weak(now, now + 1, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    return Some(ThreadClaim {
                        shared: Arc::clone(&self.0),
                        watched: None,
                    });
                }
                Err(actual) => now = actual,
            }
        }
    }

    /// Waits until a place is free, or fails once every place is held by an overdue call.
    async fn wait_for_place(&self, tool: &str, limit: usize) -> Claimed {
        loop {
            // Enabled before the attempt, so a place given back in between is not missed.
            let mut freed = pin!(self.0.freed.notified());
            freed.as_mut().enable();
            if let Some(claim) = self.try_claim(limit) {
                return Ok(claim);
            }
            if self.0.overdue.load(Ordering::Acquire) >= limit {
                // The next waiter learns the same from this notice.
                self.0.freed.notify_one();
                return Err(ToolError::Overdue {
                    tool: tool.into(),
                    limit,
                });
            }
            freed.await;
        }
    }

    fn busy(&self, tool: &str, limit: usize, waited: Duration) -> ToolError {
        ToolError::Busy {
            tool: tool.into(),
            limit,
            running: self.0.held.load(Ordering::Acquire),
            overdue: self.0.overdue.load(Ordering::Acquire),
            waited,
        }
    }
}

/// A place, or why the call gets none.
type Claimed = Result<ThreadClaim, ToolError>;

/// One call's place, given back when the call's thread is done with it.
pub(crate) struct ThreadClaim {
    shared: Arc<Shared>,
    /// Shared with the caller's [`Watch`], for calls whose caller may stop waiting.
    watched: Option<Arc<AtomicU8>>,
}

const RUNNING: u8 = 0;
const DONE: u8 = 1;
const OVERDUE: u8 = 2;

impl ThreadClaim {
    /// A watch for the caller to hold while it waits for the call: dropped before the call is
    /// done (the caller gave up at its deadline, or was cancelled), it marks this place overdue
    /// until the call's thread gives it back.
    pub(crate) fn watch(&mut self) -> Watch {
        let state = Arc::new(AtomicU8::new(RUNNING));
        self.watched = Some(Arc::clone(&state));
        Watch {
            shared: Arc::clone(&self.shared),
            state,
        }
    }
}

impl Drop for ThreadClaim {
    fn drop(&mut self) {
        if let Some(state) = &self.watched
            && state.swap(DONE, Ordering::AcqRel) == OVERDUE
        {
            self.shared.overdue.fetch_sub(1, Ordering::AcqRel);
        }
        self.shared.held.fetch_sub(1, Ordering::AcqRel);
        // Stores a permit when nobody waits: no lock on the common path.
        self.shared.freed.notify_one();
    }
}

/// The caller's side of a watched [`ThreadClaim`].
pub(crate) struct Watch {
    shared: Arc<Shared>,
    state: Arc<AtomicU8>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        // Counted first, so that the claim's drop, racing this one, never takes the count
        // below zero.
        self.shared.overdue.fetch_add(1, Ordering::AcqRel);
        let marked =
            self.state
                .compare_exchange(RUNNING, OVERDUE, Ordering::AcqRel, Ordering::Acquire);
        match marked {
            // Waiters may now all be waiting on overdue calls: let one look.
            Ok(_) => self.shared.freed.notify_one(),
            Err(_) => {
                self.shared.overdue.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(places: usize, wait_ms: u64) -> Limits {
        Limits::default()
            .with_max_threads(places)
            .with_max_thread_wait(Duration::from_millis(wait_ms))
    }

    #[test]
    fn a_call_waits_for_a_place_given_back_while_it_waits() {
        let places = Arc::new(ThreadPlaces::default());
        let held = places.claim_blocking("t", &limits(1, 10)).unwrap();
        let giver = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            drop(held);
        });
        let began = Instant::now();
        let claim = places.claim_blocking("t", &limits(1, 10_000));
        assert!(claim.is_ok(), "{:?}", claim.err());
        assert!(began.elapsed() < Duration::from_secs(5));
        giver.join().unwrap();
    }

    #[test]
    fn a_call_that_waited_in_vain_says_how_long_and_for_what() {
        let places = ThreadPlaces::default();
        let _held = places.claim_blocking("t", &limits(1, 10)).unwrap();
        let Err(ToolError::Busy {
            limit,
            running,
            overdue,
            waited,
            ..
        }) = places.claim_blocking("t", &limits(1, 30))
        else {
            panic!("expected Busy");
        };
        assert_eq!((limit, running, overdue), (1, 1, 0));
        assert!(waited >= Duration::from_millis(30), "{waited:?}");
    }

    #[test]
    fn places_held_by_abandoned_calls_refuse_at_once() {
        let places = ThreadPlaces::default();
        let mut held = places.claim_blocking("t", &limits(1, 10)).unwrap();
        drop(held.watch());
        let began = Instant::now();
        let refused = places.claim_blocking("t", &limits(1, 10_000));
        assert!(
            matches!(refused, Err(ToolError::Overdue { limit: 1, .. })),
            "{:?}",
            refused.err()
        );
        assert!(began.elapsed() < Duration::from_secs(5));
        // Given back, the place is free and no longer overdue.
        drop(held);
        let mut again = places.claim_blocking("t", &limits(1, 10)).unwrap();
        let watch = again.watch();
        drop(again);
        drop(watch);
        assert_eq!(places.0.overdue.load(Ordering::Acquire), 0);
        assert_eq!(places.0.held.load(Ordering::Acquire), 0);
    }
}
