//! Running calls: one at a time from sync or async code, or a batch concurrently, and the one
//! dispatch core they all go through.
//!
//! Every entry point (`call`, `acall`, `acall_within`, `call_all`, and the calls with state in
//! `with_state`) is a thin door into the core: the tool is looked up once, with its limits; a
//! call with state has its size and depth checked before its arguments are read to fill state
//! in (`Toolbox::stated`); the before-call hooks, the pipeline and the span run in
//! `ToolProxy::traced` (`call/core`); a result with state is merged into it (`Wired::merge`);
//! and the outcome is rendered once and passed through the after-call hooks (`Hooks::report`).
//! Every call ends as a [`ToolCallResult`].

use std::borrow::Cow;
use std::pin::pin;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::task::JoinSet;

use super::Toolbox;
use super::batch::{Answer, Batch, Finished, Ran};
use super::hooks::Hooks;
use super::with_state::Stated;
use crate::call::{CallOrigin, CallSpan, CatchUnwind, Limits, Rendering, ToolProxy};
use crate::context::{CallScope, Data};
use crate::error::ToolError;
use crate::state::AgentState;
use crate::{ToolCall, ToolCallResult};

impl Toolbox {
    /// Runs one call from sync code. An async tool needs
    /// [`allow_async_to_sync`](crate::allow_async_to_sync), as with [`ToolProxy::call`].
    pub fn call(&self, call: &ToolCall) -> ToolCallResult {
        self.dispatch(call, None)
    }

    /// Runs one call from async code.
    pub async fn acall(&self, call: &ToolCall) -> ToolCallResult {
        self.adispatch(call, None, None, self.resolve(&call.name))
            .await
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
        let found = self.resolve(&call.name);
        self.adispatch(call, None, Some(time), found).await
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
        self.call_all_resolved(calls, None, None, self.concurrency)
            .await
    }

    /// A batch without state: each call resolved once, then run by at most `concurrency`
    /// workers.
    pub(super) async fn call_all_resolved(
        &self,
        calls: Vec<ToolCall>,
        time: Option<Duration>,
        finished: Option<Arc<Finished>>,
        concurrency: usize,
    ) -> Vec<ToolCallResult> {
        let targets = calls.iter().map(|call| self.index_of(&call.name)).collect();
        let answers = self
            .run_batch(calls, targets, Vec::new(), time, finished, concurrency)
            .await;
        // Nothing was kept, so every call is answered.
        let nameless = ToolCall::new("", Value::Null);
        answers
            .into_iter()
            .map(|answer| answer.into_result(&nameless))
            .collect()
    }

    /// The batch behind every `call_all`: the calls and their tools' positions (`None`: an
    /// unknown tool), run by at most `concurrency` workers; the outcome of the calls `kept`
    /// marks kept (`Answer::Ran`), the others answered.
    pub(super) async fn run_batch(
        &self,
        calls: Vec<ToolCall>,
        targets: Vec<Option<usize>>,
        kept: Vec<bool>,
        time: Option<Duration>,
        finished: Option<Arc<Finished>>,
        concurrency: usize,
    ) -> Vec<Answer> {
        // Resolved by the caller, as positions in one copy of the tool list: the workers then
        // need none of the toolbox, and no call touches a tool's shared count (cheap calls on
        // two threads would otherwise fight over it).
        let results: Vec<OnceLock<Answer>> = std::iter::repeat_with(OnceLock::new)
            .take(calls.len())
            .collect();
        for (position, ((call, slot), target)) in
            calls.iter().zip(&results).zip(&targets).enumerate()
        {
            if target.is_none() {
                let answer = slot.get_or_init(|| {
                    Answer::Answered(self.unknown(call, self.unknown_tool(&call.name)))
                });
                if let (Some(finished), Answer::Answered(result)) = (&finished, answer) {
                    finished(position, result, Duration::ZERO);
                }
            }
        }
        let tools: Vec<(ToolProxy, Limits)> = self
            .tools
            .iter()
            .map(|tool| {
                let limits = tool.options().limits.over(self.limits).cut_to(time);
                (tool.clone(), limits)
            })
            .collect();
        // A few long-lived workers that each take the next chunk of calls, rather than a task
        // per call: the bound holds by construction, and cheap calls do not pay a spawn and a
        // cross-thread wake-up each.
        let workers = concurrency.min(calls.len());
        let work = Arc::new(Batch::new(calls, tools, targets, results, kept, workers));
        // Outside a task (in a `block_on`) the calling thread would only wait, so it works as
        // one of the workers, on calls its own thread just wrote (with every worker spawned,
        // cheap calls were slower than a loop of `acall`s: docs/performance.md, "call_all").
        // Inside a task it must not: the worker it spawned last waits in its thread's LIFO slot,
        // which no other thread can steal, until the task yields, so with two workers the
        // batch would run on one thread.
        let caller_works = workers > 0 && tokio::task::try_id().is_none();
        // Spawned tasks do not inherit the caller's scope: each worker enters it again.
        let scope = CallScope::current();
        let mut tasks = JoinSet::new();
        for _ in usize::from(caller_works)..workers {
            let worker = Worker {
                work: Arc::clone(&work),
                hooks: Arc::clone(&self.hooks),
                data: self.data.clone(),
                finished: finished.clone(),
            };
            match scope.clone() {
                Some(scope) => tasks.spawn(scope.run(worker.run())),
                None => tasks.spawn(worker.run()),
            };
        }
        if caller_works {
            let worker = Worker {
                work: Arc::clone(&work),
                hooks: Arc::clone(&self.hooks),
                data: self.data.clone(),
                finished,
            };
            worker.run().await;
        }
        // Every panic of a call is caught in the worker; a worker only fails when the runtime
        // shuts down under it (or a `finished` callback panics), and the calls it had not
        // answered are answered below.
        while tasks.join_next().await.is_some() {}
        work.into_results()
    }

    /// The core, from sync code: the tool looked up once, state filled after the limits, then
    /// policy, pipeline and span, a result with state merged, and the outcome rendered and
    /// reported once.
    pub(super) fn dispatch(
        &self,
        call: &ToolCall,
        state: Option<&mut dyn AgentState>,
    ) -> ToolCallResult {
        let (tool, limits) = match self.resolve(&call.name) {
            Ok(found) => found,
            Err(unknown) => return self.unknown(call, unknown),
        };
        let run = |call: &ToolCall| {
            let input = Cow::Borrowed(&call.args);
            tool.traced(input, &limits, self.origin(call), || {
                self.hooks.allow(call, tool)
            })
        };
        let rendering = Rendering::of_tool(&limits, tool);
        match self.stated(tool, &limits, state, call) {
            Stated::Plain => {
                let (span, outcome) = run(call);
                self.hooks.report_in(&span, call, outcome, rendering)
            }
            Stated::Answered(result) => result,
            Stated::Filled(mut wired, filled) => {
                let (span, outcome) = run(&filled);
                let outcome = wired.merge(&span, &filled, outcome);
                self.hooks.report_in(&span, &filled, outcome, rendering)
            }
        }
    }

    /// The core, from async code; see [`dispatch`](Self::dispatch). `found` is the door's one
    /// lookup of the call's tool (`resolve`); `time` caps the call's timeout (`acall_within`).
    pub(super) async fn adispatch(
        &self,
        call: &ToolCall,
        state: Option<&mut dyn AgentState>,
        time: Option<Duration>,
        found: Result<(&ToolProxy, Limits), ToolError>,
    ) -> ToolCallResult {
        let (tool, limits) = match found {
            Ok((tool, limits)) => (tool, limits.cut_to(time)),
            Err(unknown) => return self.unknown(call, unknown),
        };
        // Each path awaits on its own, so a call without state carries nothing of the state
        // path across the await (a call's future is moved whole; its size is its cost), and the
        // rendering is made after it, for the same reason.
        match self.stated(tool, &limits, state, call) {
            Stated::Plain => {
                let (span, outcome) = run(tool, &limits, self.callers(), call).await;
                let rendering = Rendering::of_tool(&limits, tool);
                self.hooks.report_in(&span, call, outcome, rendering)
            }
            Stated::Answered(result) => result,
            Stated::Filled(mut wired, filled) => {
                let (span, outcome) = run(tool, &limits, self.callers(), &filled).await;
                let outcome = wired.merge(&span, &filled, outcome);
                let rendering = Rendering::of_tool(&limits, tool);
                self.hooks.report_in(&span, &filled, outcome, rendering)
            }
        }
    }

    /// Where a call of this toolbox comes from, for the context of a tool that takes one.
    fn origin<'a>(&'a self, call: &'a ToolCall) -> CallOrigin<'a> {
        CallOrigin {
            call_id: call.id.as_deref(),
            data: &self.data,
        }
    }

    /// What every call of this toolbox runs with besides the tool: its hooks and data.
    fn callers(&self) -> Callers<'_> {
        Callers {
            hooks: &self.hooks,
            data: &self.data,
        }
    }

    /// The tool called `name` and its limits, or the error the model reads.
    pub(super) fn resolve(&self, name: &str) -> Result<(&ToolProxy, Limits), ToolError> {
        match self.get(name) {
            Some(tool) => Ok((tool, tool.options().limits.over(self.limits))),
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

    /// The answer to a call to a tool the toolbox does not hold.
    fn unknown(&self, call: &ToolCall, unknown: ToolError) -> ToolCallResult {
        self.refuse(call, unknown, &self.limits)
    }

    /// The answer to a call refused before it ran, in a span of its own like every call, through
    /// the rendering step and the after-call hooks.
    pub(super) fn refuse(
        &self,
        call: &ToolCall,
        err: ToolError,
        limits: &Limits,
    ) -> ToolCallResult {
        let span = CallSpan::new(&call.name, call.id.as_deref());
        let outcome = Err(err);
        span.finish(&outcome);
        self.hooks
            .report_in(&span, call, outcome, Rendering::of(limits))
    }
}

/// One of `call_all`'s workers: takes chunks of the batch until none is left and answers each
/// call in its chunk, telling `finished` about each.
struct Worker {
    work: Arc<Batch>,
    hooks: Arc<Hooks>,
    data: Data,
    finished: Option<Arc<Finished>>,
}

impl Worker {
    async fn run(self) {
        let Worker {
            work,
            hooks,
            data,
            finished,
        } = self;
        run_worker(work, &hooks, &data, finished).await;
    }
}

async fn run_worker(work: Arc<Batch>, hooks: &Hooks, data: &Data, finished: Option<Arc<Finished>>) {
    let callers = Callers { hooks, data };
    while let Some(mut lease) = work.take() {
        while let Some((call, (tool, limits), kept)) = lease.next_call() {
            let limits = *limits;
            let rendering = Rendering::of_tool(&limits, tool);
            let started = (finished.is_some() || kept).then(Instant::now);
            // A panic that escaped everything else still costs only its own call.
            let ran = CatchUnwind(pin!(run(tool, &limits, callers, call))).await;
            let (position, answer) = lease.answer(|call| match ran {
                Ok((span, outcome)) if kept => Answer::Ran(Ran {
                    span,
                    outcome,
                    rendering,
                    took: started.map(|at| at.elapsed()).unwrap_or_default(),
                }),
                Ok((span, outcome)) => {
                    let _entered = span.span.enter();
                    Answer::Answered(hooks.report_taking(call, outcome, rendering))
                }
                Err(message) => {
                    let panicked = ToolError::Panicked {
                        tool: call.name.clone(),
                        message,
                    };
                    // Answered like every call: rendered, and through the after-call hooks.
                    let result = hooks.report_taking(call, Err(panicked), Rendering::of(&limits));
                    Answer::Answered(result)
                }
            });
            if let (Some(finished), Some(started), Answer::Answered(result)) =
                (&finished, started, answer)
            {
                finished(position, result, started.elapsed());
            }
        }
    }
}

/// What every call of a toolbox runs with besides the tool: the hooks, and the data tools read
/// through their context.
#[derive(Clone, Copy)]
struct Callers<'a> {
    hooks: &'a Hooks,
    data: &'a Data,
}

/// Policy and pipeline of one call to a known tool, under the call's span, which is finished and
/// handed back for the report.
#[inline]
fn run<'a>(
    tool: &'a ToolProxy,
    limits: &'a Limits,
    callers: Callers<'a>,
    call: &'a ToolCall,
) -> impl Future<Output = (CallSpan, Result<Value, ToolError>)> + Send + 'a {
    let origin = CallOrigin {
        call_id: call.id.as_deref(),
        data: callers.data,
    };
    let allow = move || callers.hooks.allow(call, tool);
    tool.atraced(Cow::Borrowed(&call.args), limits, origin, allow)
}
