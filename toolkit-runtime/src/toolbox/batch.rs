//! The calls of one `call_all`, shared by the workers that run them: which call comes next, and
//! where each result goes.
//!
//! The calls are split into chunks that a worker takes whole, so a worker holds the calls it runs
//! and a result can take its call's id and name instead of copying them. A worker hands each
//! chunk back when done with it, or when it stops early (the runtime shut down under it), so the
//! calls are freed on the caller's thread and a call not answered is still there to be answered
//! by name.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use std::time::Duration;

use serde_json::Value;

use crate::call::{CallSpan, Limits, Rendering, ToolProxy};
use crate::error::ToolError;
use crate::{ToolCall, ToolCallResult};

/// What a batch tells as each call's result is final (`BatchRequest::on_finished`): its position,
/// its result, how long it ran.
pub(super) type Finished = dyn Fn(usize, &ToolCallResult, Duration) + Send + Sync;

/// How a call of a batch ended: answered (rendered, through the after-call hooks), or ran with
/// its outcome kept for the caller to merge into state before it is answered.
pub(super) enum Answer {
    Answered(ToolCallResult),
    Ran(Ran),
}

/// A call that ran and is not answered yet: its span, typed outcome, how it renders, and how
/// long it ran.
pub(super) struct Ran {
    pub(super) span: CallSpan,
    pub(super) outcome: Result<Value, ToolError>,
    pub(super) rendering: Rendering,
    pub(super) took: Duration,
}

impl Answer {
    /// The answer to a call with nothing to merge.
    pub(super) fn into_result(self, call: &ToolCall) -> ToolCallResult {
        match self {
            Answer::Answered(result) => result,
            // Only a batch with state keeps outcomes; anyone else never asked for one.
            Answer::Ran(ran) => ToolCallResult::from_outcome(call, ran.outcome),
        }
    }
}

pub(super) struct Batch {
    /// The calls, in order, `chunk` to a chunk; a chunk is empty while a worker holds it.
    chunks: Vec<Mutex<Vec<ToolCall>>>,
    chunk: usize,
    /// The toolbox's tools, each with its limits.
    tools: Vec<(ToolProxy, Limits)>,
    /// The position in `tools` of each call's tool; `None` for an unknown tool, already
    /// answered.
    targets: Vec<Option<usize>>,
    /// Each call's answer, set once.
    results: Vec<OnceLock<Answer>>,
    /// The positions whose outcome is kept rather than answered (`Answer::Ran`); empty for
    /// none.
    kept: Vec<bool>,
    /// The next chunk no worker has taken.
    next: AtomicUsize,
}

impl Batch {
    /// The batch of `calls`, `results` already holding the answers given before any worker runs
    /// (unknown tools, whose `targets` are `None`), taken by workers in chunks sized for
    /// `workers`. The calls at the positions `kept` marks end as `Answer::Ran`.
    pub(super) fn new(
        calls: Vec<ToolCall>,
        tools: Vec<(ToolProxy, Limits)>,
        targets: Vec<Option<usize>>,
        results: Vec<OnceLock<Answer>>,
        kept: Vec<bool>,
        workers: usize,
    ) -> Batch {
        let chunk = chunk_size(calls.len(), workers);
        let mut chunks = Vec::with_capacity(calls.len().div_ceil(chunk));
        let mut calls = calls.into_iter();
        loop {
            let taken: Vec<ToolCall> = calls.by_ref().take(chunk).collect();
            if taken.is_empty() {
                break;
            }
            chunks.push(Mutex::new(taken));
        }
        Batch {
            chunks,
            chunk,
            tools,
            targets,
            results,
            kept,
            next: AtomicUsize::new(0),
        }
    }

    /// The next chunk no worker has taken, as a lease that hands back what it did not finish.
    pub(super) fn take(&self) -> Option<Lease<'_>> {
        let index = self.next.fetch_add(1, Ordering::Relaxed);
        let home = self.chunks.get(index)?;
        let mut calls = home.lock().unwrap_or_else(PoisonError::into_inner);
        Some(Lease {
            calls: std::mem::take(&mut *calls),
            done: 0,
            first: index * self.chunk,
            batch: self,
            home,
        })
    }

    /// Records the answer of the call at `position` and returns it; each position is answered
    /// once.
    fn record(&self, position: usize, answer: Answer) -> &Answer {
        self.results[position].get_or_init(|| answer)
    }

    /// Every call's answer, in order, once the workers are done. A call no worker finished
    /// (the runtime shut down under it) is answered as such, by the name its worker handed back.
    pub(super) fn into_results(self: Arc<Self>) -> Vec<Answer> {
        match Arc::try_unwrap(self) {
            Ok(mut batch) => std::mem::take(&mut batch.results)
                .into_iter()
                .enumerate()
                .map(|(position, slot)| {
                    slot.into_inner()
                        .unwrap_or_else(|| batch.unanswered(position))
                })
                .collect(),
            // A worker still holds the batch (none does once joined): copies, then.
            Err(shared) => (0..shared.results.len())
                .map(|position| match shared.results[position].get() {
                    Some(Answer::Answered(result)) => Answer::Answered(result.clone()),
                    _ => shared.unanswered(position),
                })
                .collect(),
        }
    }

    /// The answer to the call at `position`, which no worker answered.
    fn unanswered(&self, position: usize) -> Answer {
        let calls = self.chunks[position / self.chunk]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let call = calls.get(position % self.chunk);
        // Every lease hands back the calls it did not answer when dropped, so the call is
        // there; a nameless answer would only mark a lease never dropped.
        Answer::Answered(shut_down(call.unwrap_or(&ToolCall::new("", Value::Null))))
    }
}

/// A worker's hold on one chunk of calls, which it runs one after another.
pub(super) struct Lease<'b> {
    calls: Vec<ToolCall>,
    /// How many of `calls` are answered (and given up).
    done: usize,
    /// The position in the batch of `calls[0]`.
    first: usize,
    batch: &'b Batch,
    home: &'b Mutex<Vec<ToolCall>>,
}

impl<'b> Lease<'b> {
    /// The next call to run, with its tool and limits, and whether its outcome is kept rather
    /// than answered: calls to unknown tools, already answered, are passed over.
    pub(super) fn next_call(&mut self) -> Option<(&ToolCall, &(ToolProxy, Limits), bool)> {
        loop {
            let call = self.calls.get(self.done)?;
            let position = self.first + self.done;
            match self.batch.targets[position] {
                Some(tool) => {
                    let kept = self.batch.kept.get(position).copied().unwrap_or(false);
                    return Some((call, &self.batch.tools[tool], kept));
                }
                None => self.done += 1,
            }
        }
    }

    /// Answers the call [`next_call`](Self::next_call) gave: `answer` turns it into its answer
    /// and may take its id and name for it (the call is not read again). Returns the call's
    /// position in the batch and its answer.
    pub(super) fn answer(
        &mut self,
        answer: impl FnOnce(&mut ToolCall) -> Answer,
    ) -> (usize, &'b Answer) {
        let result = answer(&mut self.calls[self.done]);
        let position = self.first + self.done;
        self.done += 1;
        (position, self.batch.record(position, result))
    }
}

impl Drop for Lease<'_> {
    /// Hands the calls back, answered or not: the caller's thread, which allocated them, frees
    /// them (freeing on another thread makes two workers queue for the allocator's lock), and a
    /// call not answered (the worker stopped early) is still there to be answered by name.
    fn drop(&mut self) {
        let mut calls = self.home.lock().unwrap_or_else(PoisonError::into_inner);
        *calls = std::mem::take(&mut self.calls);
    }
}

/// How many calls a worker takes at a time: several, so that workers of cheap calls do not
/// contend for the counter at every call (and a batch is not cut into a great many chunks,
/// which measured slower: docs/performance.md, "call_all"), but few enough (a fourth of a
/// worker's share, at most 32) that slow calls still spread evenly.
fn chunk_size(calls: usize, workers: usize) -> usize {
    (calls / (workers.max(1) * 4)).clamp(1, 32)
}

/// The answer to a call whose worker stopped before running it: the runtime shut down.
fn shut_down(call: &ToolCall) -> ToolCallResult {
    let failure = ToolError::Failed {
        tool: call.name.clone(),
        message: "the call could not complete: the async runtime shut down".into(),
    };
    ToolCallResult::from_outcome(call, Err(failure))
}
