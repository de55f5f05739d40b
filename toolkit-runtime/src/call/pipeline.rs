//! The call pipeline, top to bottom, shared by sync and async calls:
//! input -> (size and depth checked) -> JSON object -> validated, or else null-dropped, coerced
//! and validated again -> typed arguments -> the body -> JSON result (bounded).
//! Only the step that runs the body differs between [`ToolProxy::run`] and [`ToolProxy::arun`].

use std::borrow::Cow;
use std::pin::pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::arguments::Arguments;
use super::async_bridge;
use super::coerce;
use super::deadline::{run_with_deadline, with_deadline};
use super::handler::{BoxFuture, Handler, HandlerError, SyncHandler, TypedHandler, TypedInput};
use super::limits::Limits;
use super::nulls::drop_omitted_nulls;
use super::origin::CallOrigin;
use super::panic::{caught, panic_message, polled_catching, run_catching, start_async};
use super::places::ThreadClaim;
use super::problems::describe_value;
use super::proxy::ToolProxy;
use crate::context::{CallScope, ToolContext};
use crate::error::ToolError;

/// Cancels a call's context when the call ends, however it ends (answered, failed, timed out,
/// or dropped by its caller).
struct CancelOnDrop(ToolContext);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

impl ToolProxy {
    /// The sync pipeline for one call, in a context when the tool takes one (made from the
    /// scope the caller runs in, for `origin`). A tool without a context takes the plain
    /// pipeline, paying nothing.
    pub(crate) fn run_call(
        &self,
        input: Cow<'_, Value>,
        limits: &Limits,
        origin: CallOrigin<'_>,
    ) -> Result<Value, ToolError> {
        match self.takes_context() {
            false => self.run(input, limits),
            true => {
                let ctx = self.context_for(origin);
                // Cancelled when the call ends, however it ends: a sync body left running on
                // the pool past its deadline sees it.
                let _cancel_when_done = CancelOnDrop(ctx.clone());
                ctx.enter_sync(|| self.run(input, limits))
            }
        }
    }

    /// The async pipeline for one call; see [`run_call`](Self::run_call). The context is
    /// cancelled when the call ends, is dropped (its caller stopped waiting) or times out.
    pub(crate) async fn arun_call(
        &self,
        input: Cow<'_, Value>,
        limits: &Limits,
        origin: CallOrigin<'_>,
    ) -> Result<Value, ToolError> {
        if !self.takes_context() {
            return self.arun(input, limits).await;
        }
        // Not boxed: a box (and the copy of the whole call's future into it) cost a tool with
        // an unused context a tenth of a call, and inline this path adds only the context and
        // its guard to the future, which overlaps the other path's.
        let ctx = self.context_for(origin);
        let _cancel_when_done = CancelOnDrop(ctx.clone());
        // Pinned here and entered by reference: moved into the task-local's future, the call's
        // whole future was copied twice more, a fifth of a cheap call's time.
        let call = pin!(self.arun(input, limits));
        ctx.enter(call).await
    }

    fn context_for(&self, CallOrigin { call_id, data }: CallOrigin<'_>) -> ToolContext {
        let name = self
            .inner
            .context_name
            .get_or_init(|| Arc::from(self.name()));
        CallScope::current()
            .unwrap_or_default()
            .data_or(data)
            .context_of(Arc::clone(name), call_id)
    }

    /// The sync pipeline under the given limits, without a span of its own.
    pub(crate) fn run(&self, input: Cow<'_, Value>, limits: &Limits) -> Result<Value, ToolError> {
        match (&self.inner.handler, limits.timeout) {
            (Handler::Sync(handler), None) => {
                let checked = match self.start_typed(&input, limits)? {
                    Some(Typed::Done(result)) => return self.finish(result),
                    declined => declined.is_some(),
                };
                let mut arguments = self.prepare(input, limits, checked)?;
                self.finish(run_catching(|| handler(&mut arguments)))
            }
            (Handler::Sync(handler), Some(timeout)) => {
                let began = Instant::now();
                let mut claim = self.inner.threads.claim_blocking(self.name(), limits)?;
                // Held until the answer comes or the deadline passes.
                let _watch = claim.watch();
                let job = self.blocking_job(claim, handler, input.into_owned(), *limits, false);
                let left = timeout.saturating_sub(began.elapsed());
                run_with_deadline(self.name(), timeout, left, job)
            }
            (Handler::Async(handler), None) => {
                let checked = match self.start_typed(&input, limits)? {
                    Some(Typed::Started(future)) => {
                        let result = async_bridge::block_on(self.name(), future)?;
                        return self.finish(result);
                    }
                    declined => declined.is_some(),
                };
                let arguments = self.prepare(input, limits, checked)?;
                let result =
                    async_bridge::block_on(self.name(), start_async(&**handler, arguments))?;
                self.finish(result)
            }
            (Handler::Async(_), Some(_)) => {
                async_bridge::block_on(self.name(), self.arun(input, limits))?
            }
        }
    }

    /// The async pipeline under the given limits, without a span of its own.
    pub(crate) async fn arun(
        &self,
        input: Cow<'_, Value>,
        limits: &Limits,
    ) -> Result<Value, ToolError> {
        // The two paths through the blocking pool are boxed: they cost a pool hop anyway, and
        // inline their waits would make every call's future (moved whole at each layer of a
        // call) several times larger.
        if let Some(timeout) = limits.timeout {
            return Box::pin(self.arun_with_deadline(input, limits, timeout)).await;
        }
        match &self.inner.handler {
            // The whole call, its argument check included, runs on the pool: a check is CPU
            // work, and on the async workers it would stall every other task.
            Handler::Sync(handler) if self.options().blocking => {
                let checked = matches!(input, Cow::Borrowed(_));
                if checked {
                    // Measured before it is copied for the pool thread: one linear scan.
                    limits.check_input(self.name(), &input)?;
                }
                Box::pin(async {
                    let claim = self.inner.threads.claim(self.name(), limits).await?;
                    let input = input.into_owned();
                    let job = self.blocking_job(claim, handler, input, *limits, checked);
                    tokio::task::spawn_blocking(job)
                        .await
                        .unwrap_or_else(|join| self.finish(Err(join_failure(join))))
                })
                .await
            }
            Handler::Sync(handler) => {
                let checked = match self.start_typed(&input, limits)? {
                    Some(Typed::Done(result)) => return self.finish(result),
                    declined => declined.is_some(),
                };
                let mut arguments = self.prepare(input, limits, checked)?;
                self.finish(run_catching(|| handler(&mut arguments)))
            }
            Handler::Async(handler) => {
                let checked = match self.start_typed(&input, limits)? {
                    Some(Typed::Done(result)) => return self.finish(result),
                    Some(Typed::Started(future)) => return self.finish(future.await),
                    declined => declined.is_some(),
                };
                let arguments = self.prepare(input, limits, checked)?;
                self.finish(start_async(&**handler, arguments).await)
            }
        }
    }

    /// A call with a deadline, which must cover every step: the arguments are checked on a
    /// blocking-pool thread (a check is CPU work the deadline could not interrupt), and a sync
    /// body runs there too. The wait for a place on the pool counts against the deadline.
    async fn arun_with_deadline(
        &self,
        input: Cow<'_, Value>,
        limits: &Limits,
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        let began = Instant::now();
        let mut claim = self.inner.threads.claim(self.name(), limits).await?;
        // Dropped with this future, at the deadline or when the caller gives up: the place then
        // counts as overdue until the thread gives it back.
        let _watch = claim.watch();
        let call = self.arun_off_thread(claim, input, limits);
        let left = timeout.saturating_sub(began.elapsed());
        with_deadline(self.name(), call, Some(left))
            .await
            .map_err(|_| ToolError::TimedOut {
                tool: self.name().into(),
                timeout,
            })?
    }

    /// The steps of a call with a deadline, on the place `claim` holds.
    async fn arun_off_thread(
        &self,
        claim: ThreadClaim,
        input: Cow<'_, Value>,
        limits: &Limits,
    ) -> Result<Value, ToolError> {
        let (input, owned_limits) = (input.into_owned(), *limits);
        match &self.inner.handler {
            Handler::Sync(handler) => {
                let job = self.blocking_job(claim, handler, input, owned_limits, false);
                let task = tokio::task::spawn_blocking(job);
                task.await
                    .unwrap_or_else(|join| self.finish(Err(join_failure(join))))
            }
            Handler::Async(handler) => {
                let this = self.clone();
                let task = tokio::task::spawn_blocking(move || {
                    let _claim = claim;
                    this.prepare(Cow::Owned(input), &owned_limits, false)
                });
                let arguments = match task.await {
                    Ok(prepared) => prepared?,
                    Err(join) => return self.finish(Err(join_failure(join))),
                };
                let result = start_async(&**handler, arguments).await;
                self.finish(result)
            }
        }
    }

    /// The whole call of a sync tool, arguments checked and body run, as a job for a
    /// blocking-pool thread that holds `claim`, one of the tool's `max_threads` places, until
    /// the body ends, deadline or not. `checked`: the input's size and depth were checked.
    fn blocking_job(
        &self,
        claim: ThreadClaim,
        handler: &Arc<SyncHandler>,
        input: Value,
        limits: Limits,
        checked: bool,
    ) -> impl FnOnce() -> Result<Value, ToolError> + Send + 'static {
        let (this, handler) = (self.clone(), Arc::clone(handler));
        // The pool thread has no task-local context of its own: the body's is carried over.
        let ctx = ToolContext::try_current().filter(|_| self.takes_context());
        move || {
            let _claim = claim;
            let run = || {
                let mut arguments = this.prepare(Cow::Owned(input), &limits, checked)?;
                this.finish(run_catching(|| handler(&mut arguments)))
            };
            match ctx {
                Some(ctx) => ctx.enter_sync(run),
                None => run(),
            }
        }
    }

    /// The typed fast path, when the tool has one and the input is JSON text or an object: the
    /// input's size and depth checked as `prepare` checks them, then read straight into the
    /// parameters' types and the body run inline (`Done`) or started (`Started`). `Declined`
    /// (input checked) or `None` (not checked) means the full pipeline decides: the input is
    /// anything the types alone cannot read, or the body must run on the blocking pool.
    fn start_typed(&self, input: &Value, limits: &Limits) -> Result<Option<Typed>, ToolError> {
        let Some(body) = self.typed_body() else {
            return Ok(None);
        };
        let typed_input = match input {
            Value::String(text) if !text.trim().is_empty() => TypedInput::Text(text),
            Value::Object(_) => TypedInput::Value(input),
            _ => return Ok(None),
        };
        if matches!(body, TypedHandler::Sync(_)) && self.options().blocking {
            return Ok(None);
        }
        limits.check_input(self.name(), input)?;
        // Panics are caught as the full pipeline catches them (`panic`).
        Ok(match body {
            TypedHandler::Sync(body) => match caught(|| body(typed_input)) {
                Ok(read) => Some(read.map_or(Typed::Declined, Typed::Done)),
                Err(panicked) => Some(Typed::Done(Err(panicked))),
            },
            TypedHandler::Async(body) => match caught(|| body(typed_input)) {
                Ok(read) => Some(read.map_or(Typed::Declined, |future| {
                    Typed::Started(polled_catching(future))
                })),
                Err(panicked) => Some(Typed::Done(Err(panicked))),
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

/// A call on the typed fast path: its body's result, or its body's future, or declined after
/// its input was checked (the full pipeline then does not check it again).
enum Typed {
    Done(Result<Value, HandlerError>),
    Started(BoxFuture<'static, Result<Value, HandlerError>>),
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

/// What a blocking-pool task that did not return says: it panicked, or the runtime shut down.
fn join_failure(join: tokio::task::JoinError) -> HandlerError {
    if join.is_panic() {
        HandlerError::Panicked(panic_message(&*join.into_panic()))
    } else {
        HandlerError::Failed("the call could not complete: the async runtime shut down".into())
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
