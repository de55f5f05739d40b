//! The byte budget of finished task results, every session's and caller's together: past it,
//! the oldest results are dropped before their time to live is over, and
//! `tasks/get` answers that the result expired. Without it, a session's 256 tasks of 1 MiB
//! results, times the sessions, were all held until their TTL (512 such tasks took a server
//! from 19 to 559 MB).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use serde_json::Value;

/// The bytes of finished task results the server keeps, every session's together; past it, the
/// oldest results are dropped early. Keeping the newest serves the clients still waiting for
/// theirs; refusing new results instead would throw away work just done to keep results whose
/// clients have likely read them already.
pub(super) struct ResultBudget {
    limit: usize,
    used: AtomicUsize,
    order: Mutex<Order>,
}

/// The results kept, oldest first; those their task's TTL dropped since are dead entries.
#[derive(Default)]
struct Order {
    kept: VecDeque<Weak<Kept>>,
    /// The length at which the dead entries are swept out next.
    sweep_at: usize,
}

/// A finished task's result as JSON, while the [`ResultBudget`] keeps it.
pub(super) struct Kept {
    json: Mutex<Option<Vec<u8>>>,
    budget: Arc<ResultBudget>,
}

impl ResultBudget {
    /// A budget of `limit` bytes.
    pub(super) fn new(limit: usize) -> Self {
        ResultBudget {
            limit,
            used: AtomicUsize::new(0),
            order: Mutex::default(),
        }
    }

    /// The bytes of results kept now.
    fn used(&self) -> usize {
        self.used.load(Ordering::SeqCst)
    }

    /// Keeps `json`, dropping the oldest results kept (`json` itself, when it alone is over the
    /// limit) until the budget holds.
    pub(super) fn keep(self: &Arc<Self>, json: Vec<u8>) -> Arc<Kept> {
        let bytes = json.len();
        let kept = Arc::new(Kept {
            json: Mutex::new(Some(json)),
            budget: Arc::clone(self),
        });
        let mut order = self.order.lock().unwrap_or_else(PoisonError::into_inner);
        self.used.fetch_add(bytes, Ordering::SeqCst);
        order.kept.push_back(Arc::downgrade(&kept));
        while self.used() > self.limit {
            let Some(oldest) = order.kept.pop_front() else {
                break;
            };
            if let Some(oldest) = oldest.upgrade() {
                oldest.expire();
            }
        }
        // Sweeping when the queue has doubled since the last sweep keeps it within twice the
        // results kept, at a constant cost per result.
        if order.kept.len() >= order.sweep_at {
            order.kept.retain(|kept| kept.strong_count() > 0);
            order.sweep_at = (2 * order.kept.len()).max(64);
        }
        kept
    }
}

impl Kept {
    /// The budget's limit, in bytes, for a message saying why a result was dropped.
    pub(super) fn limit(&self) -> usize {
        self.budget.limit
    }

    /// The result, unless the budget dropped it.
    pub(super) fn value(&self) -> Option<Result<Value, serde_json::Error>> {
        let json = self.json.lock().unwrap_or_else(PoisonError::into_inner);
        json.as_deref().map(serde_json::from_slice)
    }

    pub(super) fn expired(&self) -> bool {
        self.json
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
    }

    /// Drops the result, giving its bytes back to the budget.
    fn expire(&self) {
        let json = self
            .json
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(json) = json {
            self.budget.used.fetch_sub(json.len(), Ordering::SeqCst);
        }
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        self.expire();
    }
}
