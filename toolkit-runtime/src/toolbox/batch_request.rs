//! A batch of calls with its settings: the one request behind every way to run several calls
//! at once with more than [`Toolbox::call_all`]'s defaults (a time limit, a report as each call
//! ends, state, one call at a time), as an agent runs a reply's calls.

use std::future::IntoFuture;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::Toolbox;
use super::batch::Finished;
use crate::call::{Limits, ToolProxy};
use crate::future::BoxFuture;
use crate::state::AgentState;
use crate::{ToolCall, ToolCallResult};

/// A batch of calls to run, made by [`Toolbox::batch`]; `.await` it for the results, in the
/// order of the calls.
///
/// Each call is independent: one that fails, panics or times out is an error result and the
/// others run on. The settings combine freely:
///
/// - [`within`](Self::within): each call's timeout is the shorter of its own and what is left
///   of this time, which counts from the start of the batch;
/// - [`on_finished`](Self::on_finished): told about each call as its result is final, with its
///   position, its result and how long it ran (on the worker that ran it);
/// - [`state`](Self::state): as [`Toolbox::call_all_with_state`]: a call that reads a key an
///   earlier call writes runs after it, and results are merged into state in call order before
///   they are rendered;
/// - [`one_at_a_time`](Self::one_at_a_time): the calls run one after another, in order.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use std::time::{Duration, Instant};
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
/// let toolbox = Toolbox::builder().toolset::<Maths>().build().unwrap();
/// let calls = (0..3).map(|n| ToolCall::new("maths_double", json!({"n": n}))).collect();
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let log = Arc::clone(&seen);
/// let results = toolbox
///     .batch(calls)
///     .within(Duration::from_secs(5))
///     .on_finished(move |position, result, _took| {
///         log.lock().unwrap().push((position, result.value.clone()));
///     })
///     .await;
/// assert_eq!(results[2].value, json!(4));
/// seen.lock().unwrap().sort_by_key(|(position, _)| *position);
/// assert_eq!(seen.lock().unwrap()[1], (1, json!(2)));
/// # });
/// ```
#[must_use = "a batch runs when it is awaited"]
pub struct BatchRequest<'a> {
    toolbox: &'a Toolbox,
    calls: Vec<ToolCall>,
    state: Option<&'a mut dyn AgentState>,
    time: Option<Duration>,
    finished: Option<Arc<Finished>>,
    one_at_a_time: bool,
}

impl Toolbox {
    /// A batch of `calls` to run with settings; see [`BatchRequest`].
    pub fn batch(&self, calls: Vec<ToolCall>) -> BatchRequest<'_> {
        BatchRequest {
            toolbox: self,
            calls,
            state: None,
            time: None,
            finished: None,
            one_at_a_time: false,
        }
    }
}

impl<'a> BatchRequest<'a> {
    /// Runs the calls with `state`: state-filled parameters read from it, results merged into it.
    pub fn state(mut self, state: &'a mut dyn AgentState) -> Self {
        self.state = Some(state);
        self
    }

    /// Runs the calls within `time` (`None`: no limit beyond the calls' own).
    pub fn within(mut self, time: impl Into<Option<Duration>>) -> Self {
        self.time = time.into();
        self
    }

    /// Tells `finished` about each call as its result is final: its position in the batch, its
    /// result, and how long it ran.
    pub fn on_finished(
        mut self,
        finished: impl Fn(usize, &ToolCallResult, Duration) + Send + Sync + 'static,
    ) -> Self {
        self.finished = Some(Arc::new(finished));
        self
    }

    /// Runs the calls one after another, in order, when `yes` (an agent with parallel tool
    /// calls off).
    pub fn one_at_a_time(mut self, yes: bool) -> Self {
        self.one_at_a_time = yes;
        self
    }

    /// Runs the batch: what `.await` does, without boxing the batch's future (`IntoFuture`
    /// needs a type it can name), for a caller that awaits it inside a future of its own.
    pub async fn run(self) -> Vec<ToolCallResult> {
        let BatchRequest {
            toolbox,
            calls,
            state,
            time,
            finished,
            one_at_a_time,
        } = self;
        // One call (an agent's step, most often) needs no workers: the core answers it here,
        // where that cannot keep the caller from being dropped meanwhile.
        if let [call] = calls.as_slice()
            && let Ok((tool, limits)) = toolbox.resolve(&call.name)
            && answers_in_place(tool, &limits.cut_to(time))
        {
            let started = finished.as_ref().map(|_| Instant::now());
            let found = Ok((tool, limits));
            let result = toolbox.adispatch(call, state, time, found).await;
            if let (Some(finished), Some(started)) = (finished, started) {
                finished(0, &result, started.elapsed());
            }
            return vec![result];
        }
        let concurrency = if one_at_a_time {
            1
        } else {
            toolbox.concurrency
        };
        match state {
            None => {
                toolbox
                    .call_all_resolved(calls, time, finished, concurrency)
                    .await
            }
            Some(state) => {
                toolbox
                    .run_with_state(state, calls, time, finished, concurrency)
                    .await
            }
        }
    }
}

impl<'a> IntoFuture for BatchRequest<'a> {
    type Output = Vec<ToolCallResult>;
    type IntoFuture = BoxFuture<'a, Vec<ToolCallResult>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.run())
    }
}

/// Whether a call may run in the caller's own task: outside any task (a `block_on`, which
/// nothing drops meanwhile), or where the call does not hold the task's thread (an async tool, or
/// one its placement runs off the caller's thread). A sync body run in the caller's task would
/// keep that task from being dropped (an agent's run its caller stops) until the body returns,
/// and so keep the body from seeing its cancellation; a worker task runs it instead.
fn answers_in_place(tool: &ToolProxy, limits: &Limits) -> bool {
    tokio::task::try_id().is_none()
        || tool.is_async()
        || limits.timeout.is_some()
        || tool.options().blocking
}
