//! Running calls: one at a time from sync or async code, or a batch concurrently. Every call
//! goes through the policy hooks, the proxy's pipeline and a span, and always ends as a
//! [`ToolCallResult`].

use std::borrow::Cow;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use tokio::task::JoinSet;
use tracing::Instrument;

use super::Toolbox;
use super::hooks::Hooks;
use crate::call::{CallSpan, CatchUnwind, Limits, ToolProxy};
use crate::error::ToolError;
use crate::{ToolCall, ToolCallResult};

impl Toolbox {
    /// Runs one call from sync code. An async tool needs
    /// [`allow_async_to_sync`](crate::allow_async_to_sync), as with [`ToolProxy::call`].
    pub fn call(&self, call: &ToolCall) -> ToolCallResult {
        let span = CallSpan::new(&call.name, call.id.as_deref());
        let limits = self.limits_for(&call.name);
        let outcome = span.span.in_scope(|| {
            let (tool, limits) = self.resolve(&call.name)?;
            self.hooks.allow(call, tool)?;
            tool.run(Cow::Borrowed(&call.args), &limits)
        });
        span.finish(&outcome);
        let _entered = span.span.enter();
        self.hooks.report(call, outcome, &limits)
    }

    /// Runs one call from async code.
    pub async fn acall(&self, call: &ToolCall) -> ToolCallResult {
        match self.resolve(&call.name) {
            Ok((tool, limits)) => dispatch(tool, limits, &self.hooks, call).await,
            Err(unknown) => self.unknown(call, unknown),
        }
    }

    /// Runs calls concurrently, at most [`concurrency`](Self::concurrency) at a time, and
    /// returns their results in the order of `calls`. Each call is independent: one that fails,
    /// panics or times out is an error result and the others run on.
    ///
    /// The calls run on `concurrency` tokio tasks, so they spread over a multi-thread runtime's
    /// worker threads; `call_all` must run inside a tokio runtime.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// #[derive(Default)]
    /// struct Maths;
    ///
    /// #[toolset(name = "maths")]
    /// impl Maths {
    ///     /// Double a number
    ///     #[tool]
    ///     async fn double(&self, n: i64) -> i64 {
    ///         n * 2
    ///     }
    /// }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let toolbox = Toolbox::builder().toolset::<Maths>().concurrency(4).build().unwrap();
    /// let calls = (0..10).map(|n| ToolCall::new("maths_double", json!({"n": n}))).collect();
    /// let results = toolbox.call_all(calls).await;
    /// let values: Vec<_> = results.iter().map(|r| r.value.clone()).collect();
    /// assert_eq!(values, (0..10).map(|n| json!(n * 2)).collect::<Vec<_>>());
    /// # });
    /// ```
    pub async fn call_all(&self, calls: Vec<ToolCall>) -> Vec<ToolCallResult> {
        // Resolved up front, as positions in one copy of the tool list: the tasks then need none
        // of the toolbox, and no call touches a tool's shared count (cheap calls on two threads
        // would otherwise fight over it).
        let results: Vec<OnceLock<ToolCallResult>> = std::iter::repeat_with(OnceLock::new)
            .take(calls.len())
            .collect();
        let mut targets = Vec::with_capacity(calls.len());
        for (call, slot) in calls.iter().zip(&results) {
            let target = self.index_of(&call.name);
            if target.is_none() {
                let _ = slot.set(self.unknown(call, self.unknown_tool(&call.name)));
            }
            targets.push(target);
        }
        let tools: Vec<(ToolProxy, Limits)> = self
            .tools
            .iter()
            .map(|tool| (tool.clone(), self.limits.for_tool(tool.options())))
            .collect();
        let work = Arc::new(Batch {
            calls,
            tools,
            targets,
            results,
            next: AtomicUsize::new(0),
        });
        // A few long-lived workers that each take the next call, rather than a task per call:
        // the bound holds by construction, and cheap calls do not pay a spawn and a cross-thread
        // wake-up each. Each result goes straight to its call's slot: cheap calls finish without
        // yielding, so one worker may run most of the batch, and results gathered per worker
        // would be copied again and again as its list grew.
        let workers = self.concurrency.min(work.calls.len());
        let chunk = Batch::chunk(work.calls.len(), workers);
        let mut tasks = JoinSet::new();
        for _ in 0..workers {
            let work = Arc::clone(&work);
            let hooks = Arc::clone(&self.hooks);
            tasks.spawn(async move {
                let mut claimed = 0..0;
                while let Some((position, call, (tool, limits))) = work.claim(&mut claimed, chunk) {
                    // A panic that escaped everything else still costs only its own call.
                    let call_future = pin!(dispatch(tool, *limits, &hooks, call));
                    let result = CatchUnwind(call_future).await.unwrap_or_else(|message| {
                        let panicked = ToolError::Panicked {
                            tool: call.name.clone(),
                            message,
                        };
                        ToolCallResult::from_outcome(call, Err(panicked))
                    });
                    // Each position is claimed once, so its slot is empty.
                    let _ = work.results[position].set(result);
                }
            });
        }
        // Every panic is caught above; a worker only fails when the runtime shuts down under it,
        // and its unfinished calls are answered below.
        while tasks.join_next().await.is_some() {}
        let Batch { calls, results, .. } = match Arc::try_unwrap(work) {
            Ok(work) => work,
            // The workers are joined, so theirs were the only other handles.
            Err(shared) => return shared.answers(),
        };
        results
            .into_iter()
            .zip(&calls)
            .map(|(slot, call)| slot.into_inner().unwrap_or_else(|| shut_down(call)))
            .collect()
    }

    /// The tool called `name` and its limits, or the error the model reads.
    fn resolve(&self, name: &str) -> Result<(&ToolProxy, Limits), ToolError> {
        match self.get(name) {
            Some(tool) => Ok((tool, self.limits.for_tool(tool.options()))),
            None => Err(self.unknown_tool(name)),
        }
    }

    /// The error for a call to a tool the toolbox does not hold.
    fn unknown_tool(&self, name: &str) -> ToolError {
        let available: Vec<String> = self.names().map(str::to_owned).collect();
        if name.trim().is_empty() {
            // `ToolCalls::parse` keeps a call without a usable name in a batch, named "".
            return ToolError::InvalidCall {
                message: format!(
                    "a call names no tool; send \"name\" with one of: {}",
                    available.join(", ")
                ),
            };
        }
        ToolError::UnknownTool {
            name: name.to_owned(),
            available,
        }
    }

    /// The limits of a call to `name`: the tool's own over the toolbox's, or the toolbox's for a
    /// name it does not hold.
    fn limits_for(&self, name: &str) -> Limits {
        match self.get(name) {
            Some(tool) => self.limits.for_tool(tool.options()),
            None => self.limits,
        }
    }

    fn unknown(&self, call: &ToolCall, unknown: ToolError) -> ToolCallResult {
        let span = CallSpan::new(&call.name, call.id.as_deref());
        let outcome = Err(unknown);
        span.finish(&outcome);
        let _entered = span.span.enter();
        self.hooks.report(call, outcome, &self.limits)
    }
}

/// The calls of one `call_all`, shared by its workers.
struct Batch {
    calls: Vec<ToolCall>,
    /// The toolbox's tools, each with its limits.
    tools: Vec<(ToolProxy, Limits)>,
    /// The position in `tools` of each call's tool; `None` for an unknown tool, already
    /// answered.
    targets: Vec<Option<usize>>,
    /// Each call's result, set once by the worker that ran it.
    results: Vec<OnceLock<ToolCallResult>>,
    next: AtomicUsize,
}

impl Batch {
    /// The results as they stand, copied: for a batch still shared.
    fn answers(&self) -> Vec<ToolCallResult> {
        self.results
            .iter()
            .zip(&self.calls)
            .map(|(slot, call)| slot.get().cloned().unwrap_or_else(|| shut_down(call)))
            .collect()
    }

    /// How many calls a worker takes at a time: several, so that workers of cheap calls do not
    /// contend for the counter at every call, but few enough (one sixteenth of a worker's share,
    /// at most 32) that slow calls still spread evenly.
    fn chunk(calls: usize, workers: usize) -> usize {
        (calls / (workers.max(1) * 16)).clamp(1, 32)
    }

    /// The next call to a known tool that no worker has taken yet: from the worker's `claimed`
    /// range, refilled with the next `chunk` positions when it runs out.
    fn claim(
        &self,
        claimed: &mut std::ops::Range<usize>,
        chunk: usize,
    ) -> Option<(usize, &ToolCall, &(ToolProxy, Limits))> {
        loop {
            let position = match claimed.next() {
                Some(position) => position,
                None => {
                    let start = self.next.fetch_add(chunk, Ordering::Relaxed);
                    if start >= self.calls.len() {
                        return None;
                    }
                    *claimed = start..(start + chunk).min(self.calls.len());
                    continue;
                }
            };
            if let Some(index) = self.targets[position] {
                return Some((position, &self.calls[position], &self.tools[index]));
            }
        }
    }
}

/// The answer to a call whose worker stopped before running it: the runtime shut down.
fn shut_down(call: &ToolCall) -> ToolCallResult {
    let failure = ToolError::Failed {
        tool: call.name.clone(),
        message: "the call could not complete: the async runtime shut down".into(),
    };
    ToolCallResult::from_outcome(call, Err(failure))
}

/// One call to a known tool, from async code: policy, pipeline, span, report.
async fn dispatch(
    tool: &ToolProxy,
    limits: Limits,
    hooks: &Hooks,
    call: &ToolCall,
) -> ToolCallResult {
    let span = CallSpan::new(&call.name, call.id.as_deref());
    let outcome = async {
        hooks.allow(call, tool)?;
        tool.arun(Cow::Borrowed(&call.args), &limits).await
    }
    .instrument(span.span.clone())
    .await;
    span.finish(&outcome);
    let _entered = span.span.enter();
    hooks.report(call, outcome, &limits)
}
