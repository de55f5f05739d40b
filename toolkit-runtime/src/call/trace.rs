//! The `tracing` span every tool call runs in, and the one core every call goes through inside
//! it, whatever its door (a proxy's `call`/`acall`, a toolbox's calls and batches, with state or
//! not, the MCP server, an agent): the caller's policy (a toolbox's before-call hooks), then the
//! call's steps in the tool's context when it takes one. The core hands back the span, finished,
//! and the typed outcome: merging into state and rendering are the caller's next steps, once
//! each.
//!
//! One span per call, named `tool_call`, with the fields `tool`, `call_id` (when the call came
//! through a [`Toolbox`](crate::Toolbox) with a provider id), and, recorded when the call ends,
//! `outcome` (`ok`, or the kind of error such as `timed_out`) and `duration_us`; and the
//! attributes of OpenTelemetry's GenAI `execute_tool` span: `gen_ai.operation.name`,
//! `gen_ai.tool.name`, `gen_ai.tool.call.id` and `gen_ai.tool.type`.

use std::borrow::Cow;
use std::pin::pin;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use tracing::field::Empty;
use tracing::{Instrument, Span};

use super::limits::Limits;
use super::origin::CallOrigin;
use super::proxy::ToolProxy;
use crate::context::{CallScope, ToolContext};
use crate::error::ToolError;

/// A call's span and when the call began.
pub(crate) struct CallSpan {
    pub(crate) span: Span,
    /// `None` when no subscriber wants the span: then the clock is not read at all.
    started: Option<Instant>,
}

impl CallSpan {
    pub(crate) fn new(tool: &str, call_id: Option<&str>) -> Self {
        // The GenAI conventions' `execute_tool` attributes, next to the older `tool`/`call_id`.
        let span = tracing::info_span!(
            "tool_call",
            tool,
            call_id,
            outcome = Empty,
            duration_us = Empty,
            otel.name = Empty,
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = tool,
            gen_ai.tool.call.id = call_id,
            gen_ai.tool.type = "function",
        );
        let started = (!span.is_disabled()).then(|| {
            span.record("otel.name", format!("execute_tool {tool}"));
            Instant::now()
        });
        CallSpan { span, started }
    }

    /// Runs `body`, a call's policy and pipeline, in this span, and finishes the span with the
    /// outcome, which stays typed: rendering is the caller's. Every entry point goes through this
    /// or [`arun`](Self::arun): a `Toolbox`'s calls, batches and calls with state, and the
    /// proxy's own.
    #[inline]
    pub(crate) fn run(
        self,
        body: impl FnOnce() -> Result<Value, ToolError>,
    ) -> (Self, Result<Value, ToolError>) {
        let outcome = self.span.in_scope(body);
        self.finish(&outcome);
        (self, outcome)
    }

    /// [`run`](Self::run) from async code. `body` makes the call's future here, inside this
    /// one: a future passed in as an argument would be stored twice in this one's state (once
    /// as the argument, once while awaited), and that copy is the bulk of a call's cost.
    #[inline]
    pub(crate) async fn arun<F>(self, body: impl FnOnce() -> F) -> (Self, Result<Value, ToolError>)
    where
        F: Future<Output = Result<Value, ToolError>>,
    {
        let outcome = body().instrument(self.span.clone()).await;
        self.finish(&outcome);
        (self, outcome)
    }

    /// Records how the call ended.
    pub(crate) fn finish(&self, result: &Result<Value, ToolError>) {
        let Some(started) = self.started else {
            return;
        };
        let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.span.record("duration_us", micros);
        self.span.record("outcome", outcome(result));
        if let Err(err) = result {
            self.span
                .in_scope(|| tracing::debug!(error = %err, "tool call failed"));
        }
    }
}

/// A short, stable name for how a call ended, for dashboards and filters: `ok`, or the error's
/// [`kind`](ToolError::kind).
pub(crate) fn outcome(result: &Result<Value, ToolError>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(err) => err.kind().as_str(),
    }
}

impl ToolProxy {
    /// One call from sync code: `allow` (the caller's policy), then the steps, in a span.
    #[inline]
    pub(crate) fn traced(
        &self,
        input: Cow<'_, Value>,
        limits: &Limits,
        origin: CallOrigin<'_>,
        allow: impl FnOnce() -> Result<(), ToolError>,
    ) -> (CallSpan, Result<Value, ToolError>) {
        CallSpan::new(self.name(), origin.call_id).run(|| {
            allow()?;
            if !self.takes_context() {
                return self.run(input, limits);
            }
            let ctx = self.context_for(origin);
            // Cancelled when the call ends, however it ends: a sync body left running on the
            // pool past its deadline sees it.
            let _cancel_when_done = ctx.cancel_on_drop();
            ctx.enter_sync(|| self.run(input, limits))
        })
    }

    /// One call from async code; see [`traced`](Self::traced). The context is cancelled when
    /// the call ends, is dropped (its caller stopped waiting) or times out. Not an `async fn`:
    /// it hands back the span's future itself, one layer less to build and move per call.
    #[inline]
    pub(crate) fn atraced<'a>(
        &'a self,
        input: Cow<'a, Value>,
        limits: &'a Limits,
        origin: CallOrigin<'a>,
        allow: impl FnOnce() -> Result<(), ToolError> + Send + 'a,
    ) -> impl Future<Output = (CallSpan, Result<Value, ToolError>)> + Send + 'a {
        CallSpan::new(self.name(), origin.call_id).arun(move || async move {
            allow()?;
            if !self.takes_context() {
                return self.arun(input, limits).await;
            }
            // Not boxed: a box (and the copy of the whole call's future into it) cost a tool
            // with an unused context a tenth of a call, and inline this path adds only the
            // context and its guard to the future, which overlaps the other path's.
            let ctx = self.context_for(origin);
            let _cancel_when_done = ctx.cancel_on_drop();
            // Pinned here and entered by reference: moved into the task-local's future, the
            // call's whole future was copied twice more, a fifth of a cheap call's time.
            let call = pin!(self.arun(input, limits));
            ctx.enter(call).await
        })
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
}
