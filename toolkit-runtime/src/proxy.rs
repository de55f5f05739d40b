//! `ToolProxy`: one callable tool, with its schema, validator and handler.
//!
//! Every call runs the same pipeline, top to bottom, whether sync or async:
//! input -> JSON -> coerce -> validate -> typed arguments -> call -> JSON result.
//! Only the call itself differs between `call` and `acall`. [`Limits`] are checked before the
//! input is parsed and applied to the result; every call runs in a `tracing` span.

use std::any::Any;
use std::borrow::Cow;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tracing::Instrument;

use crate::arguments::Arguments;
use crate::error::ToolError;
use crate::limits::Limits;
use crate::output::HandlerError;
use crate::trace::CallSpan;
use crate::validate::{ArgumentValidator, describe_value};
use crate::{async_bridge, coerce};

/// A boxed, sendable future, as async handlers return.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The body of a sync tool.
pub type SyncHandler = dyn Fn(&mut Arguments) -> Result<Value, HandlerError> + Send + Sync;
/// The body of an async tool.
pub type AsyncHandler = dyn Fn(Arguments) -> BoxFuture<Result<Value, HandlerError>> + Send + Sync;

/// What runs when a tool is called.
#[derive(Clone)]
#[doc(hidden)]
pub enum Handler {
    Sync(Arc<SyncHandler>),
    Async(Arc<AsyncHandler>),
}

/// Hints a client may show or act on (MCP tool annotations); `None` means "not said".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    /// The tool does not change its environment.
    pub read_only: Option<bool>,
    /// The tool may destroy or overwrite data.
    pub destructive: Option<bool>,
    /// Calling the tool twice with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// The tool talks to the world outside (the web, other services).
    pub open_world: Option<bool>,
}

/// Per-tool behaviour that the schema does not describe.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ToolOptions {
    /// Skip lax coercion: arguments must match the schema exactly (`#[tool(strict)]`).
    pub strict: bool,
    /// Run a sync tool on tokio's blocking pool when called through `acall` (`#[tool(blocking)]`).
    pub blocking: bool,
    /// MCP-style hints.
    pub annotations: ToolAnnotations,
    /// The longest a call may take.
    pub timeout: Option<Duration>,
    /// The largest argument payload accepted, in bytes.
    pub max_input_bytes: Option<usize>,
    /// The largest result returned before it is truncated, in bytes.
    pub max_output_bytes: Option<usize>,
    /// How deeply arrays and objects may nest in the arguments (see [`Limits`]).
    pub max_depth: Option<usize>,
}

/// Everything about a tool but its body.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolDefinition {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The JSON Schema of its arguments (an object schema).
    pub parameters: Value,
    /// The JSON Schema of its result, when the result is structured.
    pub output_schema: Option<Value>,
    /// Behaviour beyond the schema.
    pub options: ToolOptions,
}

impl ToolDefinition {
    /// A definition with default options and no output schema.
    ///
    /// ```
    /// use toolkit_runtime::ToolDefinition;
    /// use serde_json::json;
    ///
    /// let def = ToolDefinition::new("echo", "Echo the text", json!({"type": "object"}));
    /// assert_eq!(def.name, "echo");
    /// ```
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        ToolDefinition {
            name: name.into(),
            description: description.into(),
            parameters,
            output_schema: None,
            options: ToolOptions::default(),
        }
    }
}

struct ToolInner {
    definition: ToolDefinition,
    handler: Handler,
    validator: OnceLock<Result<ArgumentValidator, String>>,
}

/// One tool a model can call: its name, description, argument schema and body.
///
/// Proxies are made by `#[toolset]` (`MyToolset::to_tools()`), are cheap to clone (one `Arc`),
/// `Send + Sync`, and build their schema once.
///
/// ```
/// use toolkit::prelude::*;
///
/// #[derive(Default)]
/// struct TextStatsToolset;
///
/// #[toolset(name = "stats")]
/// impl TextStatsToolset {
///     /// Count whitespace-separated words
///     #[tool]
///     fn word_count(&self, text: String) -> usize {
///         text.split_whitespace().count()
///     }
/// }
///
/// let tool = TextStatsToolset::to_tools().remove(0);
/// assert_eq!(tool.name(), "stats_word_count");
/// assert_eq!(tool.dynamic_call(json!({"text": "one two"})), json!(2));
/// assert_eq!(tool.dynamic_call(r#"{"text": "a b c"}"#), json!(3));
/// assert_eq!(
///     tool.dynamic_call(json!({})),
///     json!(r#"Error: missing required argument "text" for stats_word_count"#)
/// );
/// ```
#[derive(Clone)]
pub struct ToolProxy {
    inner: Arc<ToolInner>,
}

impl std::fmt::Debug for ToolProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolProxy")
            .field("name", &self.name())
            .field("is_async", &self.is_async())
            .finish_non_exhaustive()
    }
}

impl ToolProxy {
    /// Builds a proxy from a definition and a handler.
    #[doc(hidden)]
    pub fn from_parts(definition: ToolDefinition, handler: Handler) -> Self {
        ToolProxy {
            inner: Arc::new(ToolInner {
                definition,
                handler,
                validator: OnceLock::new(),
            }),
        }
    }

    /// The name the model calls this tool by.
    pub fn name(&self) -> &str {
        &self.inner.definition.name
    }

    /// What the tool does, as the model reads it.
    pub fn description(&self) -> &str {
        &self.inner.definition.description
    }

    /// The JSON Schema of the arguments: an object schema, self-contained.
    pub fn parameters(&self) -> &Value {
        &self.inner.definition.parameters
    }

    /// The JSON Schema of the result, when the tool returns a structured type.
    pub fn output_schema(&self) -> Option<&Value> {
        self.inner.definition.output_schema.as_ref()
    }

    /// The tool's options (strictness, limits, annotations).
    pub fn options(&self) -> &ToolOptions {
        &self.inner.definition.options
    }

    /// The whole definition.
    pub fn definition(&self) -> &ToolDefinition {
        &self.inner.definition
    }

    /// Whether the tool's body is async (call it with [`acall`](Self::acall)).
    pub fn is_async(&self) -> bool {
        matches!(self.inner.handler, Handler::Async(_))
    }

    /// `{"name", "description", "parameters"}`.
    pub fn schema(&self) -> Value {
        json!({
            "name": self.name(),
            "description": self.description(),
            "parameters": self.parameters(),
        })
    }

    /// Calls the tool with a JSON object of arguments, or a string holding one.
    ///
    /// An async tool is an error here unless the call runs inside
    /// [`allow_async_to_sync`](crate::allow_async_to_sync). The tool's own limits apply, over
    /// [`Limits::default()`]; a sync tool with a timeout runs on a blocking-pool thread so the
    /// deadline can be kept (see [`Limits`]).
    pub fn call(&self, args: impl Into<Value>) -> Result<Value, ToolError> {
        let limits = Limits::default().for_tool(self.options());
        let span = CallSpan::new(self.name(), None);
        let result = span
            .span
            .in_scope(|| self.run(Cow::Owned(args.into()), &limits));
        span.finish(&result);
        result
    }

    /// Like [`call`](Self::call), but never fails: the result as JSON, or
    /// `"Error: <message>"` as a JSON string a model can read.
    pub fn dynamic_call(&self, args: impl Into<Value>) -> Value {
        into_model_value(self.call(args))
    }

    /// Calls the tool from async code. Sync tools run inline, or on tokio's blocking pool when
    /// marked `#[tool(blocking)]` or given a timeout. An async tool is cancelled at its deadline.
    pub async fn acall(&self, args: impl Into<Value>) -> Result<Value, ToolError> {
        let limits = Limits::default().for_tool(self.options());
        let span = CallSpan::new(self.name(), None);
        let result = self
            .arun(Cow::Owned(args.into()), &limits)
            .instrument(span.span.clone())
            .await;
        span.finish(&result);
        result
    }

    /// Like [`acall`](Self::acall), but never fails (the `"Error: ..."` contract).
    pub async fn dynamic_acall(&self, args: impl Into<Value>) -> Value {
        into_model_value(self.acall(args).await)
    }

    /// The same tool with changed options (limits, strictness, annotations), for tools whose
    /// `#[tool]` attribute the caller does not control.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolkit::prelude::*;
    ///
    /// #[derive(Default)]
    /// struct Echo;
    ///
    /// #[toolset]
    /// impl Echo {
    ///     /// Repeat the text
    ///     #[tool]
    ///     fn say(&self, text: String) -> String {
    ///         text
    ///     }
    /// }
    ///
    /// let say = Echo::to_tools().remove(0).with_options(|o| o.max_output_bytes = Some(50));
    /// let long = say.dynamic_call(json!({"text": "a".repeat(100)}));
    /// assert_eq!(long, json!("aaa... [output truncated: showing 3 of 100 bytes]"));
    /// ```
    pub fn with_options(self, change: impl FnOnce(&mut ToolOptions)) -> ToolProxy {
        let mut definition = self.inner.definition.clone();
        change(&mut definition.options);
        ToolProxy::from_parts(definition, self.inner.handler.clone())
    }

    /// The sync pipeline under the given limits, without a span of its own.
    pub(crate) fn run(&self, input: Cow<'_, Value>, limits: &Limits) -> Result<Value, ToolError> {
        let mut arguments = self.prepare(input, limits)?;
        let result = match &self.inner.handler {
            Handler::Sync(handler) => match limits.timeout {
                None => run_catching(|| handler(&mut arguments)),
                Some(timeout) => run_with_deadline(self.name(), handler, arguments, timeout)?,
            },
            Handler::Async(handler) => {
                let future = CatchUnwind(handler(arguments));
                let deadline = with_deadline(self.name(), future, limits.timeout);
                async_bridge::block_on(self.name(), deadline)??
            }
        };
        self.finish(result, limits)
    }

    /// The async pipeline under the given limits, without a span of its own.
    pub(crate) async fn arun(
        &self,
        input: Cow<'_, Value>,
        limits: &Limits,
    ) -> Result<Value, ToolError> {
        let mut arguments = self.prepare(input, limits)?;
        let result = match &self.inner.handler {
            // A deadline can only be kept for a sync body that runs on a thread of its own.
            Handler::Sync(handler) if self.options().blocking || limits.timeout.is_some() => {
                let handler = Arc::clone(handler);
                let task = tokio::task::spawn_blocking(move || handler(&mut arguments));
                match with_deadline(self.name(), task, limits.timeout).await? {
                    Ok(result) => result,
                    Err(join) if join.is_panic() => {
                        Err(HandlerError::Panicked(panic_message(&*join.into_panic())))
                    }
                    Err(join) => Err(HandlerError::Failed(join.to_string())),
                }
            }
            Handler::Sync(handler) => run_catching(|| handler(&mut arguments)),
            Handler::Async(handler) => {
                let future = CatchUnwind(handler(arguments));
                with_deadline(self.name(), future, limits.timeout).await?
            }
        };
        self.finish(result, limits)
    }

    /// input -> (size and depth checked) -> JSON object -> coerced -> validated arguments.
    fn prepare(&self, input: Cow<'_, Value>, limits: &Limits) -> Result<Arguments, ToolError> {
        let tool = self.name();
        limits.check_input(tool, &input)?;
        let value = match input {
            Cow::Borrowed(Value::String(text)) => parse_arguments(tool, text)?,
            Cow::Owned(Value::String(text)) => parse_arguments(tool, &text)?,
            // Cloned only now that it is known to be small and shallow.
            other => other.into_owned(),
        };
        let mut arguments = match value {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(ToolError::NotAnObject {
                    tool: tool.into(),
                    got: describe_value(&other),
                });
            }
        };
        let parameters = self.parameters();
        let validator = self
            .inner
            .validator
            .get_or_init(|| ArgumentValidator::new(parameters))
            .as_ref()
            .map_err(|message| ToolError::InvalidSchema {
                tool: tool.into(),
                message: message.clone(),
            })?;
        // Every repair below only ever turns an invalid value into a valid one, so arguments the
        // schema accepts as sent (the common case) skip them: one validation, no extra walks.
        if !validator.accepts(&mut arguments) {
            // Even a strict tool takes `null` as "not given" for a defaulted parameter: that is
            // what OpenAI strict mode, whose schemas we advertise, makes the model send.
            crate::formats::drop_omitted_nulls(&mut arguments, parameters);
            if !self.options().strict {
                coerce::coerce_arguments(&mut arguments, parameters);
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

    fn finish(
        &self,
        result: Result<Value, HandlerError>,
        limits: &Limits,
    ) -> Result<Value, ToolError> {
        let tool = self.name().to_owned();
        match result {
            Ok(value) => Ok(limits.bound_output(value)),
            Err(HandlerError::Argument(problem)) => Err(ToolError::InvalidArguments {
                tool,
                problems: vec![problem],
            }),
            Err(HandlerError::Failed(message)) => Err(ToolError::Failed { tool, message }),
            Err(HandlerError::Unserializable(message)) => {
                Err(ToolError::UnserializableResult { tool, message })
            }
            Err(HandlerError::Panicked(message)) => Err(ToolError::Panicked { tool, message }),
        }
    }
}

/// Awaits `future`, giving up at `timeout`; dropping it there cancels an async body.
async fn with_deadline<F: Future>(
    tool: &str,
    future: F,
    timeout: Option<Duration>,
) -> Result<F::Output, ToolError> {
    match timeout {
        None => Ok(future.await),
        Some(timeout) => {
            tokio::time::timeout(timeout, future)
                .await
                .map_err(|_| ToolError::TimedOut {
                    tool: tool.into(),
                    timeout,
                })
        }
    }
}

/// Runs a sync body on a blocking-pool thread and waits for it until `timeout`. At the deadline
/// the caller gets its error and the thread runs on to the end of the body, its result dropped.
fn run_with_deadline(
    tool: &str,
    handler: &Arc<SyncHandler>,
    mut arguments: Arguments,
    timeout: Duration,
) -> Result<Result<Value, HandlerError>, ToolError> {
    let handler = Arc::clone(handler);
    let (sender, receiver) = std::sync::mpsc::sync_channel(1);
    let job = move || {
        // The caller may have stopped waiting; then nobody needs the result.
        let _ = sender.send(run_catching(|| handler(&mut arguments)));
    };
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => drop(handle.spawn_blocking(job)),
        Err(_) => drop(async_bridge::fallback_runtime().spawn_blocking(job)),
    }
    match receiver.recv_timeout(timeout) {
        Ok(result) => Ok(result),
        Err(RecvTimeoutError::Timeout) => Err(ToolError::TimedOut {
            tool: tool.into(),
            timeout,
        }),
        Err(RecvTimeoutError::Disconnected) => Ok(Err(HandlerError::Failed(
            "the tool's thread stopped before it answered".into(),
        ))),
    }
}

fn into_model_value(result: Result<Value, ToolError>) -> Value {
    match result {
        Ok(value) => value,
        Err(err) => Value::String(err.to_model_string()),
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

fn run_catching(body: impl FnOnce() -> Result<Value, HandlerError>) -> Result<Value, HandlerError> {
    catch_unwind(AssertUnwindSafe(body))
        .unwrap_or_else(|payload| Err(HandlerError::Panicked(panic_message(&*payload))))
}

pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "the panic carried no message".to_owned()
    }
}

/// Turns a panic while polling an async tool into an error, as `catch_unwind` does for sync ones.
pub(crate) struct CatchUnwind(pub(crate) BoxFuture<Result<Value, HandlerError>>);

impl Future for CatchUnwind {
    type Output = Result<Value, HandlerError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(poll) => poll,
            Err(payload) => Poll::Ready(Err(HandlerError::Panicked(panic_message(&*payload)))),
        }
    }
}
