//! Running calls: one at a time from sync or async code, or a batch concurrently. Every call
//! goes through the policy hooks, the proxy's pipeline and a span, and always ends as a
//! [`ToolCallResult`].

use std::borrow::Cow;
use std::pin::pin;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::Value;
use tokio::task::JoinSet;
use tracing::Instrument;

use super::Toolbox;
use super::batch::Batch;
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

    /// Runs one call from async code within `time`: its timeout is the shorter of its own and
    /// `time`, so even a sync body runs where the caller can stop waiting for it (as an agent
    /// does at its deadline).
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolkit::prelude::*;
    ///
    /// #[derive(Default)]
    /// struct Slow;
    ///
    /// #[toolset(name = "slow")]
    /// impl Slow {
    ///     /// Sleep
    ///     #[tool]
    ///     fn nap(&self, millis: u64) -> u64 {
    ///         std::thread::sleep(Duration::from_millis(millis));
    ///         millis
    ///     }
    /// }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let toolbox = Toolbox::builder().toolset::<Slow>().build().unwrap();
    /// let call = ToolCall::new("slow_nap", json!({"millis": 2000}));
    /// let result = toolbox.acall_within(&call, Duration::from_millis(50)).await;
    /// assert!(result.is_error);
    /// # });
    /// ```
    pub async fn acall_within(&self, call: &ToolCall, time: Duration) -> ToolCallResult {
        match self.resolve(&call.name) {
            Ok((tool, limits)) => {
                let timeout = limits.timeout.map_or(time, |own| own.min(time));
                let limits = Limits {
                    timeout: Some(timeout),
                    ..limits
                };
                dispatch(tool, limits, &self.hooks, call).await
            }
            Err(unknown) => self.unknown(call, unknown),
        }
    }

    /// Runs calls concurrently, at most [`concurrency`](Self::concurrency) at a time, and
    /// returns their results in the order of `calls`. Each call is independent: one that fails,
    /// panics or times out is an error result and the others run on.
    ///
    /// The calls run on `concurrency` workers, tokio tasks (and the calling thread, when it is
    /// not itself running a task, as in `block_on`), so they spread over a multi-thread
    /// runtime's worker threads; `call_all` must run inside a tokio runtime.
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
        // Resolved up front, as positions in one copy of the tool list: the workers then need
        // none of the toolbox, and no call touches a tool's shared count (cheap calls on two
        // threads would otherwise fight over it).
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
        // A few long-lived workers that each take the next chunk of calls, rather than a task
        // per call: the bound holds by construction, and cheap calls do not pay a spawn and a
        // cross-thread wake-up each.
        let workers = self.concurrency.min(calls.len());
        let work = Arc::new(Batch::new(calls, tools, targets, results, workers));
        // Outside a task (in a `block_on`) the calling thread would only wait, so it works as
        // one of the workers, on calls its own thread just wrote (with every worker spawned,
        // cheap calls were slower than a loop of `acall`s: docs/performance.md, "call_all").
        // Inside a task it must not: the worker it spawned last waits in its thread's LIFO slot,
        // which no other thread can steal, until the task yields, so with two workers the
        // batch would run on one thread.
        let caller_works = workers > 0 && tokio::task::try_id().is_none();
        let mut tasks = JoinSet::new();
        for _ in usize::from(caller_works)..workers {
            tasks.spawn(run_worker(Arc::clone(&work), Arc::clone(&self.hooks)));
        }
        if caller_works {
            run_worker(Arc::clone(&work), Arc::clone(&self.hooks)).await;
        }
        // Every panic is caught in the worker; a worker only fails when the runtime shuts down
        // under it, and the calls it had not answered are answered below.
        while tasks.join_next().await.is_some() {}
        work.into_results()
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

/// One of `call_all`'s workers: takes chunks of the batch until none is left and answers each
/// call in its chunk.
async fn run_worker(work: Arc<Batch>, hooks: Arc<Hooks>) {
    while let Some(mut lease) = work.take() {
        while let Some((call, (tool, limits))) = lease.next_call() {
            let limits = *limits;
            // A panic that escaped everything else still costs only its own call.
            let outcome = CatchUnwind(pin!(run(tool, limits, &hooks, call))).await;
            lease.answer(|call| match outcome {
                Ok((span, outcome)) => {
                    let _entered = span.span.enter();
                    hooks.report_taking(call, outcome, &limits)
                }
                Err(message) => {
                    let panicked = ToolError::Panicked {
                        tool: call.name.clone(),
                        message,
                    };
                    ToolCallResult::from_outcome(call, Err(panicked))
                }
            });
        }
    }
}

/// One call to a known tool, from async code: policy, pipeline, span, report.
async fn dispatch(
    tool: &ToolProxy,
    limits: Limits,
    hooks: &Hooks,
    call: &ToolCall,
) -> ToolCallResult {
    let (span, outcome) = run(tool, limits, hooks, call).await;
    let _entered = span.span.enter();
    hooks.report(call, outcome, &limits)
}

/// Policy and pipeline of one call to a known tool, under the call's span, which is finished and
/// handed back for the report.
async fn run(
    tool: &ToolProxy,
    limits: Limits,
    hooks: &Hooks,
    call: &ToolCall,
) -> (CallSpan, Result<Value, ToolError>) {
    let span = CallSpan::new(&call.name, call.id.as_deref());
    let outcome = async {
        hooks.allow(call, tool)?;
        tool.arun(Cow::Borrowed(&call.args), &limits).await
    }
    .instrument(span.span.clone())
    .await;
    span.finish(&outcome);
    (span, outcome)
}
