//! `ToolProxy`: one callable tool, with its schema, validator and handler.
//!
//! Every call runs the same pipeline, top to bottom, whether sync or async:
//! input -> JSON -> coerce -> validate -> typed arguments -> call -> JSON result.
//! Only the call itself differs between `call` and `acall`.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::arguments::Arguments;
use crate::error::ToolError;
use crate::output::HandlerError;
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
    /// [`allow_async_to_sync`](crate::allow_async_to_sync).
    pub fn call(&self, args: impl Into<Value>) -> Result<Value, ToolError> {
        let mut arguments = self.prepare(args.into())?;
        let result = match &self.inner.handler {
            Handler::Sync(handler) => run_catching(|| handler(&mut arguments)),
            Handler::Async(handler) => {
                let future = handler(arguments);
                async_bridge::block_on(self.name(), CatchUnwind(future))?
            }
        };
        self.finish(result)
    }

    /// Like [`call`](Self::call), but never fails: the result as JSON, or
    /// `"Error: <message>"` as a JSON string a model can read.
    pub fn dynamic_call(&self, args: impl Into<Value>) -> Value {
        into_model_value(self.call(args))
    }

    /// Calls the tool from async code. Sync tools run inline, or on tokio's blocking pool when
    /// marked `#[tool(blocking)]`.
    pub async fn acall(&self, args: impl Into<Value>) -> Result<Value, ToolError> {
        let mut arguments = self.prepare(args.into())?;
        let result = match &self.inner.handler {
            Handler::Sync(handler) if self.options().blocking => {
                let handler = Arc::clone(handler);
                match tokio::task::spawn_blocking(move || handler(&mut arguments)).await {
                    Ok(result) => result,
                    Err(join) if join.is_panic() => {
                        Err(HandlerError::Panicked(panic_message(&*join.into_panic())))
                    }
                    Err(join) => Err(HandlerError::Failed(join.to_string())),
                }
            }
            Handler::Sync(handler) => run_catching(|| handler(&mut arguments)),
            Handler::Async(handler) => CatchUnwind(handler(arguments)).await,
        };
        self.finish(result)
    }

    /// Like [`acall`](Self::acall), but never fails (the `"Error: ..."` contract).
    pub async fn dynamic_acall(&self, args: impl Into<Value>) -> Value {
        into_model_value(self.acall(args).await)
    }

    /// input -> JSON object -> coerced -> validated arguments.
    fn prepare(&self, input: Value) -> Result<Arguments, ToolError> {
        let tool = self.name();
        let value = match input {
            Value::String(text) => parse_arguments(tool, &text)?,
            other => other,
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
        if !self.options().strict {
            coerce::coerce_arguments(&mut arguments, parameters);
        }
        let validator = self
            .inner
            .validator
            .get_or_init(|| ArgumentValidator::new(parameters))
            .as_ref()
            .map_err(|message| ToolError::InvalidSchema {
                tool: tool.into(),
                message: message.clone(),
            })?;
        let problems = validator.problems(parameters, &mut arguments);
        if !problems.is_empty() {
            return Err(ToolError::InvalidArguments {
                tool: tool.into(),
                problems,
            });
        }
        Ok(Arguments::new(arguments))
    }

    fn finish(&self, result: Result<Value, HandlerError>) -> Result<Value, ToolError> {
        let tool = self.name().to_owned();
        result.map_err(|err| match err {
            HandlerError::Argument(problem) => ToolError::InvalidArguments {
                tool,
                problems: vec![problem],
            },
            HandlerError::Failed(message) => ToolError::Failed { tool, message },
            HandlerError::Unserializable(message) => {
                ToolError::UnserializableResult { tool, message }
            }
            HandlerError::Panicked(message) => ToolError::Panicked { tool, message },
        })
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
