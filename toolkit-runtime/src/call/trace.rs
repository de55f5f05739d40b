//! The `tracing` span every tool call runs in.
//!
//! One span per call, named `tool_call`, with the fields `tool`, `call_id` (when the call came
//! through a [`Toolbox`](crate::Toolbox) with a provider id), and, recorded when the call ends,
//! `outcome` (`ok`, or the kind of error such as `timed_out`) and `duration_us`; and the
//! attributes of OpenTelemetry's GenAI `execute_tool` span: `gen_ai.operation.name`,
//! `gen_ai.tool.name`, `gen_ai.tool.call.id` and `gen_ai.tool.type`.

use std::time::Instant;

use serde_json::Value;
use tracing::field::Empty;
use tracing::{Instrument, Span};

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
