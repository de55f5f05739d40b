//! The steps of one call, written once: the typed fast path when it reads the input, else
//! input -> (size and depth checked) -> JSON object -> validated, or else null-dropped, coerced
//! and validated again -> typed arguments -> the body; then the body's outcome as the tool's
//! typed result.
//!
//! And where they run, chosen once per call from the tool's options and the call's limits: on
//! the caller's thread or task, on tokio's blocking pool, or off the caller's thread under a
//! deadline. The steps are the same everywhere, the typed fast path included; only where they
//! run, and how long the caller waits, differ. A deadline drops an async body. A sync body runs
//! on a blocking-pool thread that the caller stops waiting for: Rust cannot stop a thread, so
//! the body runs on to its end, its result dropped, and the thread holds one of the tool's
//! places (`places`) until then.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::arguments::Arguments;
use super::async_bridge::{self, fallback_runtime};
use super::coerce;
use super::deadline::{wait_within, within};
use super::handler::{BoxFuture, Handler, HandlerError, TypedHandler, TypedInput};
use super::limits::Limits;
use super::nulls::drop_omitted_nulls;
use super::panic::{caught, panic_message, polled_catching, run_catching, start_async};
use super::places::ThreadClaim;
use super::problems::describe_value;
use super::proxy::ToolProxy;
use crate::context::ToolContext;
use crate::error::ToolError;

/// A call whose steps have run up to its body: a sync body's outcome, or an async body's future
/// (awaited where the call's placement says).
enum Begun {
    Done(Result<Value, HandlerError>),
    Started(BoxFuture<'static, Result<Value, HandlerError>>),
}

impl ToolProxy {
    /// Every step of a call up to its body's outcome (a sync tool) or its body's started future
    /// (an async tool): the typed fast path when the tool has one and it reads the input, else
    /// the checks and the JSON body. `checked`: the input's size and depth were measured already.
    fn begin(
        &self,
        input: Cow<'_, Value>,
        limits: &Limits,
        checked: bool,
    ) -> Result<Begun, ToolError> {
        let checked = match self.start_typed(&input, limits, checked)? {
            Some(Typed::Begun(begun)) => {
                #[cfg(feature = "__test_hooks")]
                fast_path_taken(self.name());
                return Ok(begun);
            }
            declined => checked || declined.is_some(),
        };
        let arguments = self.prepare(input, limits, checked)?;
        Ok(match &self.inner.handler {
            Handler::Sync(handler) => {
                let mut arguments = arguments;
                Begun::Done(run_catching(|| handler(&mut arguments)))
            }
            Handler::Async(handler) => Begun::Started(start_async(&**handler, arguments)),
        })
    }

    /// A begun call's outcome, for a sync caller: an async body is driven to its end here (which
    /// [`allow_async_to_sync`](crate::allow_async_to_sync) must allow).
    fn settle(&self, begun: Begun) -> Result<Value, ToolError> {
        match begun {
            Begun::Done(result) => self.finish(result),
            Begun::Started(future) => self.finish(async_bridge::block_on(self.name(), future)?),
        }
    }

    /// The typed fast path, when the tool has one and the input is JSON text or an object: the
    /// input's size and depth checked as `prepare` checks them (unless `checked`), then read
    /// straight into the parameters' types and the body run (`Done`) or started (`Started`).
    /// `Declined` (input checked) or `None` (not checked) means the full pipeline decides: the
    /// input is anything the types alone cannot read.
    fn start_typed(
        &self,
        input: &Value,
        limits: &Limits,
        checked: bool,
    ) -> Result<Option<Typed>, ToolError> {
        let Some(body) = self.typed_body() else {
            return Ok(None);
        };
        let typed_input = match input {
            Value::String(text) if !text.trim().is_empty() => TypedInput::Text(text),
            Value::Object(_) => TypedInput::Value(input),
            _ => return Ok(None),
        };
        if !checked {
            limits.check_input(self.name(), input)?;
        }
        // Panics are caught as the full pipeline catches them (`panic`).
        Ok(match body {
            TypedHandler::Sync(body) => match caught(|| body(typed_input)) {
                Ok(read) => {
                    Some(read.map_or(Typed::Declined, |ran| Typed::Begun(Begun::Done(ran))))
                }
                Err(panicked) => Some(Typed::Begun(Begun::Done(Err(panicked)))),
            },
            TypedHandler::Async(body) => match caught(|| body(typed_input)) {
                Ok(read) => Some(read.map_or(Typed::Declined, |future| {
                    Typed::Begun(Begun::Started(polled_catching(future)))
                })),
                Err(panicked) => Some(Typed::Begun(Begun::Done(Err(panicked)))),
            },
        })
    }

    /// input -> (size and depth checked, unless `checked` says the fast path already did) ->
    /// JSON object -> validated arguments, repaired first (omitted-nulls dropped, coerced) only
    /// when the schema rejects them as sent.
    fn prepare(
        &self,
        input: Cow<'_, Value>,
        limits: &Limits,
        checked: bool,
    ) -> Result<Arguments, ToolError> {
        let tool = self.name();
        if !checked {
            limits.check_input(tool, &input)?;
        }
        let mut arguments = arguments_object(tool, input)?;
        let parameters = self.checked_parameters();
        let validator = self.validator()?;
        let too_complex = || ToolError::TooComplex { tool: tool.into() };
        if !validator.within_budget(&arguments) {
            return Err(too_complex());
        }
        // Every repair below only ever turns an invalid value into a valid one, so arguments the
        // schema accepts as sent (the common case) skip them: one validation, no extra walks.
        if !validator.accepts(&mut arguments) {
            // Even a strict tool takes `null` as "not given" for a defaulted parameter: that is
            // what OpenAI strict mode, whose schemas we advertise, makes the model send.
            drop_omitted_nulls(&mut arguments, parameters);
            if !self.options().strict {
                coerce::coerce_arguments(&mut arguments, parameters);
                // Coercion parses arrays and objects sent as JSON text: check them as the input
                // was checked.
                let coerced = Value::Object(std::mem::take(&mut arguments));
                limits.check_depth(tool, &coerced)?;
                if let Value::Object(map) = coerced {
                    arguments = map;
                }
                if !validator.within_budget(&arguments) {
                    return Err(too_complex());
                }
            }
            let problems = validator.problems(parameters, &mut arguments);
            if !problems.is_empty() {
                return Err(ToolError::InvalidArguments {
                    tool: tool.into(),
                    problems,
                });
            }
        }
        Ok(Arguments::new(arguments))
    }

    /// The body's outcome as the tool's typed result, the tool's name attached to a failure.
    pub(super) fn finish(&self, result: Result<Value, HandlerError>) -> Result<Value, ToolError> {
        let failure = match result {
            // Cut to `max_output_bytes` where it is rendered (`render`), not here.
            Ok(value) => return Ok(value),
            Err(failure) => failure,
        };
        let tool = self.name().to_owned();
        match failure {
            HandlerError::Argument(problem) => Err(ToolError::InvalidArguments {
                tool,
                problems: vec![problem],
            }),
            HandlerError::Failed(message) => Err(ToolError::Failed { tool, message }),
            HandlerError::Tool(error) => Err(*error),
            HandlerError::Unserializable(message) => {
                Err(ToolError::UnserializableResult { tool, message })
            }
            HandlerError::Panicked(message) => Err(ToolError::Panicked { tool, message }),
        }
    }
}

/// Where a call's steps run.
#[derive(Clone, Copy)]
enum Placement {
    /// Where the caller runs.
    Inline,
    /// On tokio's blocking pool, holding one of the tool's places: a sync tool marked
    /// `blocking`, whose body must not stall the async workers. Its input is checked there too:
    /// a check is CPU work.
    Pool,
    /// Off the caller's thread, with the caller waiting at most this long: the input read and
    /// (for a sync tool) the body run on the blocking pool, an async body awaited until then.
    Deadline(Duration),
}

impl ToolProxy {
    /// The one place a call's placement is chosen.
    fn placement(&self, limits: &Limits) -> Placement {
        match (limits.timeout, &self.inner.handler) {
            (Some(timeout), _) => Placement::Deadline(timeout),
            (None, Handler::Sync(_)) if self.options().blocking => Placement::Pool,
            (None, _) => Placement::Inline,
        }
    }

    /// A call's steps from sync code, where its placement puts them.
    pub(super) fn run(&self, input: Cow<'_, Value>, limits: &Limits) -> Result<Value, ToolError> {
        match (self.placement(limits), &self.inner.handler) {
            // The caller's own thread is no async worker: a blocking tool runs on it as it is.
            (Placement::Inline | Placement::Pool, _) => {
                self.settle(self.begin(input, limits, false)?)
            }
            (Placement::Deadline(timeout), Handler::Sync(_)) => {
                self.run_sync_with_deadline(input, limits, timeout)
            }
            (Placement::Deadline(_), Handler::Async(_)) => {
                async_bridge::block_on(self.name(), self.arun(input, limits))?
            }
        }
    }

    /// A call's steps from async code, where its placement puts them.
    pub(super) async fn arun(
        &self,
        input: Cow<'_, Value>,
        limits: &Limits,
    ) -> Result<Value, ToolError> {
        match self.placement(limits) {
            Placement::Inline => match self.begin(input, limits, false)? {
                Begun::Done(result) => self.finish(result),
                Begun::Started(future) => self.finish(future.await),
            },
            // Boxed: the pool costs a hop anyway, and inline its waits would make every call's
            // future (moved whole at each layer of a call) several times larger.
            Placement::Pool => Box::pin(self.arun_off_thread(input, limits, None)).await,
            Placement::Deadline(timeout) => {
                Box::pin(self.arun_off_thread(input, limits, Some(timeout))).await
            }
        }
    }

    /// A call's steps on the blocking pool, an async body then awaited here; the caller waits
    /// at most `timeout`, the wait for a place on the pool included.
    async fn arun_off_thread(
        &self,
        input: Cow<'_, Value>,
        limits: &Limits,
        timeout: Option<Duration>,
    ) -> Result<Value, ToolError> {
        let began = Instant::now();
        // A borrowed input is measured before it is copied for the pool thread: one linear scan
        // bounds the copy.
        let checked = matches!(input, Cow::Borrowed(_));
        if checked {
            limits.check_input(self.name(), &input)?;
        }
        let mut claim = self.inner.threads.claim(self.name(), limits).await?;
        // Dropped with this future, at the deadline or when the caller gives up: the place then
        // counts as overdue until the thread gives it back.
        let _watch = claim.watch();
        let job = self.pool_job(claim, input.into_owned(), *limits, checked);
        let steps = async {
            match tokio::task::spawn_blocking(job).await {
                Ok(Ok(Begun::Done(result))) => self.finish(result),
                Ok(Ok(Begun::Started(future))) => self.finish(future.await),
                Ok(Err(refused)) => Err(refused),
                Err(join) => self.finish(Err(join_failure(join))),
            }
        };
        let Some(timeout) = timeout else {
            return steps.await;
        };
        within(timeout.saturating_sub(began.elapsed()), steps)
            .await
            .unwrap_or_else(|| Err(self.timed_out(timeout)))
    }

    /// A sync tool's call with a deadline, from sync code: its steps on a blocking-pool thread,
    /// waited for without a runtime of the caller's.
    fn run_sync_with_deadline(
        &self,
        input: Cow<'_, Value>,
        limits: &Limits,
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        let began = Instant::now();
        let mut claim = self.inner.threads.claim_blocking(self.name(), limits)?;
        // Held until the answer comes or the deadline passes.
        let _watch = claim.watch();
        let job = self.pool_job(claim, input.into_owned(), *limits, false);
        let task = match tokio::runtime::Handle::try_current() {
            Ok(handle) => handle.spawn_blocking(job),
            Err(_) => fallback_runtime().spawn_blocking(job),
        };
        // Dropping the handle at the deadline detaches the job: it runs on to its end.
        match wait_within(timeout.saturating_sub(began.elapsed()), task) {
            Some(Ok(begun)) => self.settle(begun?),
            Some(Err(join)) => self.finish(Err(join_failure(join))),
            None => Err(self.timed_out(timeout)),
        }
    }

    /// A call's steps up to its body's outcome or future, as a job for a blocking-pool thread
    /// that holds `claim`, one of the tool's `max_threads` places, until the job ends, deadline
    /// or not. `checked`: the input's size and depth were measured already.
    fn pool_job(
        &self,
        claim: ThreadClaim,
        input: Value,
        limits: Limits,
        checked: bool,
    ) -> impl FnOnce() -> Result<Begun, ToolError> + Send + 'static {
        let this = self.clone();
        // The pool thread has no task-local context of its own: the body's is carried over.
        let ctx = ToolContext::try_current().filter(|_| self.takes_context());
        move || {
            let _claim = claim;
            let steps = || this.begin(Cow::Owned(input), &limits, checked);
            match ctx {
                Some(ctx) => ctx.enter_sync(steps),
                None => steps(),
            }
        }
    }

    fn timed_out(&self, timeout: Duration) -> ToolError {
        ToolError::TimedOut {
            tool: self.name().into(),
            timeout,
        }
    }
}

/// What a blocking-pool task that did not return says: it panicked, or the runtime shut down.
fn join_failure(join: tokio::task::JoinError) -> HandlerError {
    if join.is_panic() {
        HandlerError::Panicked(panic_message(&*join.into_panic()))
    } else {
        HandlerError::Failed("the call could not complete: the async runtime shut down".into())
    }
}

/// A call on the typed fast path: begun, or declined after its input was checked (the full
/// pipeline then does not check it again).
enum Typed {
    Begun(Begun),
    Declined,
}

/// The arguments as a JSON object: parsed when sent as text; `null` is no arguments.
fn arguments_object(tool: &str, input: Cow<'_, Value>) -> Result<Map<String, Value>, ToolError> {
    let value = match input {
        Cow::Borrowed(Value::String(text)) => parse_arguments(tool, text)?,
        Cow::Owned(Value::String(text)) => parse_arguments(tool, &text)?,
        // Cloned only now that it is known to be small and shallow.
        other => other.into_owned(),
    };
    match value {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        other => Err(ToolError::NotAnObject {
            tool: tool.into(),
            got: describe_value(&other),
        }),
    }
}

fn parse_arguments(tool: &str, text: &str) -> Result<Value, ToolError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(text).map_err(|err| ToolError::InvalidJson {
        tool: tool.into(),
        message: err.to_string(),
    })
}

/// How many calls of each tool (by name) took the typed fast path in this process: for tests
/// that check where a call ran. Not public API: only with the `__test_hooks` feature.
#[cfg(feature = "__test_hooks")]
static FAST_PATH_CALLS: std::sync::Mutex<Vec<(String, usize)>> = std::sync::Mutex::new(Vec::new());

#[cfg(feature = "__test_hooks")]
fn fast_path_taken(tool: &str) {
    let mut counts = FAST_PATH_CALLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match counts.iter_mut().find(|(name, _)| name == tool) {
        Some((_, count)) => *count += 1,
        None => counts.push((tool.to_owned(), 1)),
    }
}

/// How many calls of the tool called `tool` took the typed fast path so far in this process.
/// Not public API: only with the `__test_hooks` feature.
#[cfg(feature = "__test_hooks")]
#[doc(hidden)]
pub fn __fast_path_calls(tool: &str) -> usize {
    let counts = FAST_PATH_CALLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    counts
        .iter()
        .find(|(name, _)| name == tool)
        .map_or(0, |(_, count)| *count)
}
