//! Where a tool's context sends what it reports and asks: the MCP server's client, the agent's
//! run, or nobody.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ToolContext;
use super::error::ContextError;
use super::sampling::{SamplingReply, SamplingRequest};
use crate::future::BoxFuture;

/// How far a call has come, as a tool reports it with [`ToolContext::progress`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// The work done so far; it only grows.
    pub done: f64,
    /// The whole work, when known.
    pub total: Option<f64>,
    /// What is happening now.
    pub message: Option<String>,
}

/// The level of a log message, MCP's (RFC 5424's) eight levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Ordinary information.
    Info,
    /// Normal but significant.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// The level's name as MCP writes it (`"warning"`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

/// A request for a value from the user, as [`ToolContext::elicit`] sends it: a message and the
/// JSON Schema of the answer (a flat object of primitives and enums).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationRequest {
    /// What the user is asked.
    pub message: String,
    /// The schema of the answer.
    pub requested_schema: Value,
    /// The name this question goes by in an MCP 2026-07-28 `input_required` result (its key in
    /// `inputRequests`): [`ToolContext::elicit_keyed`]'s key, or `None` to name it by its place
    /// among the call's questions (`ask-0`, `ask-1`, ...). Never sent as part of the request.
    #[serde(skip)]
    pub key: Option<String>,
}

/// The user's answer to an [`ElicitationRequest`], before it is read as the tool's type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", content = "content", rename_all = "lowercase")]
pub enum ElicitationAnswer {
    /// The user answered with this object.
    Accept(Value),
    /// The user said no.
    Decline,
    /// The user dismissed the question.
    Cancel,
}

/// A root the client gives its tools, as [`ToolContext::roots`] reads it: a place (a
/// `file://` URI) the tool may work in, and its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    /// Where: a `file://` URI.
    pub uri: String,
    /// What the client calls it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// What a tool's context reports to and asks of: an MCP server's client, an agent's run, or an
/// application's own. Progress and logs also go to `tracing` whatever the host does with them.
///
/// Every method has a default: a host takes only what it can serve, and `sample`/`elicit`
/// without an implementation answer [`ContextError::Unavailable`].
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use toolkit::context::{CallScope, LogLevel, Progress, ToolHost};
/// use toolkit::prelude::*;
///
/// #[derive(Default)]
/// struct Recorder(Mutex<Vec<String>>);
///
/// impl ToolHost for Recorder {
///     fn progress(&self, ctx: &ToolContext, progress: Progress) {
///         self.0.lock().unwrap().push(format!("{}: {}", ctx.tool_name(), progress.done));
///     }
/// }
///
/// let recorder = Arc::new(Recorder::default());
/// let scope = CallScope::new().host(recorder.clone());
/// let ctx = scope.context_for("index", Some("call_1"));
/// ctx.progress(1.0, Some(2.0), "half way");
/// assert_eq!(*recorder.0.lock().unwrap(), ["index: 1"]);
/// ```
pub trait ToolHost: Send + Sync + 'static {
    /// Takes a progress report.
    fn progress(&self, ctx: &ToolContext, progress: Progress) {
        let _ = (ctx, progress);
    }

    /// Takes a log message.
    fn log(&self, ctx: &ToolContext, level: LogLevel, message: &str) {
        let _ = (ctx, level, message);
    }

    /// Asks a model for a message.
    fn sample<'a>(
        &'a self,
        ctx: &'a ToolContext,
        request: SamplingRequest,
    ) -> BoxFuture<'a, Result<SamplingReply, ContextError>> {
        let _ = request;
        Box::pin(async move { Err(ContextError::unavailable("sampling", ctx.tool_name())) })
    }

    /// How many times this call's client has answered questions before this run of the tool:
    /// 0 but where the call is re-run with the answers to an MCP 2026-07-28 `input_required`
    /// result ([`ToolContext::round`]).
    fn round(&self, ctx: &ToolContext) -> u32 {
        let _ = ctx;
        0
    }

    /// Asks the client for its roots; `key` names the question as
    /// [`ElicitationRequest::key`] does.
    fn roots<'a>(
        &'a self,
        ctx: &'a ToolContext,
        key: Option<String>,
    ) -> BoxFuture<'a, Result<Vec<Root>, ContextError>> {
        let _ = key;
        Box::pin(async move { Err(ContextError::unavailable("roots", ctx.tool_name())) })
    }

    /// Asks the user for a value.
    fn elicit<'a>(
        &'a self,
        ctx: &'a ToolContext,
        request: ElicitationRequest,
    ) -> BoxFuture<'a, Result<ElicitationAnswer, ContextError>> {
        let _ = request;
        Box::pin(async move { Err(ContextError::unavailable("elicitation", ctx.tool_name())) })
    }
}
