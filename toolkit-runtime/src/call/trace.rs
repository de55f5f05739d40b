//! The `tracing` span every tool call runs in.
//!
//! One span per call, named `tool_call`, with the fields `tool`, `call_id` (when the call came
//! through a [`Toolbox`](crate::Toolbox) with a provider id), and, recorded when the call ends,
//! `outcome` (`ok`, or the kind of error such as `timed_out`) and `duration_us`.

use std::borrow::Cow;
use std::time::Instant;

use serde_json::Value;
use tracing::field::Empty;
use tracing::{Instrument, Span};

use super::limits::Limits;
use super::proxy::ToolProxy;
use crate::error::ToolError;

impl ToolProxy {
    /// One call of this tool in its span, the sequence every entry point goes through (a
    /// `Toolbox`'s calls, batches and calls with state, and the proxy's own): `allow` (the
    /// toolbox's before-call policy; nothing for a call on the proxy), then the pipeline, and the
    /// span finished with the outcome. The outcome is still typed: rendering is the caller's.
    #[inline]
    pub(crate) fn traced(
        &self,
        call_id: Option<&str>,
        input: Cow<'_, Value>,
        limits: &Limits,
        allow: impl FnOnce() -> Result<(), ToolError>,
    ) -> (CallSpan, Result<Value, ToolError>) {
        let span = CallSpan::new(self.name(), call_id);
        let outcome = span.span.in_scope(|| {
            allow()?;
            self.run(input, limits)
        });
        span.finish(&outcome);
        (span, outcome)
    }

    /// [`traced`](Self::traced) from async code.
    #[inline]
    pub(crate) async fn atraced(
        &self,
        call_id: Option<&str>,
        input: Cow<'_, Value>,
        limits: &Limits,
        allow: impl FnOnce() -> Result<(), ToolError>,
    ) -> (CallSpan, Result<Value, ToolError>) {
        let span = CallSpan::new(self.name(), call_id);
        let outcome = async {
            allow()?;
            self.arun(input, limits).await
        }
        .instrument(span.span.clone())
        .await;
        span.finish(&outcome);
        (span, outcome)
    }
}

/// A call's span and when the call began.
pub(crate) struct CallSpan {
    pub(crate) span: Span,
    /// `None` when no subscriber wants the span: then the clock is not read at all.
    started: Option<Instant>,
}

impl CallSpan {
    pub(crate) fn new(tool: &str, call_id: Option<&str>) -> Self {
        let span = tracing::info_span!(
            "tool_call",
            tool,
            call_id,
            outcome = Empty,
            duration_us = Empty
        );
        let started = (!span.is_disabled()).then(Instant::now);
        CallSpan { span, started }
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
