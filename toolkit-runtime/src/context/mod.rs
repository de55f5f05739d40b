//! What a tool can reach while it runs: progress, logs, cancellation, who is calling, the
//! application's data, and questions to a model (sampling) or the user (elicitation).
//!
//! A `#[tool]` method takes it as a parameter, `ctx: &ToolContext`, in any position; it is
//! hidden from every schema. Whoever makes the call (the MCP server, the agent, an application
//! through [`CallScope::run`]) gives the tools a [`CallScope`]: the
//! [`ToolHost`] that takes what they report and answers what they ask, the request they serve,
//! the data, and a cancellation token. Where nothing listens (a plain `dynamic_call`), progress
//! and logs go to `tracing`, and `sample` and `elicit` say what is missing. A tool without
//! `ctx` pays for none of it: its context is made only when a tool asks for one.
//!
//! ```
//! use toolkit::prelude::*;
//!
//! #[derive(Default)]
//! struct Indexer;
//!
//! #[toolset(name = "index")]
//! impl Indexer {
//!     /// Index some files
//!     #[tool]
//!     async fn files(&self, ctx: &ToolContext, count: u32) -> String {
//!         for done in 0..count {
//!             if ctx.is_cancelled() {
//!                 return format!("stopped after {done}");
//!             }
//!             ctx.progress(f64::from(done + 1), Some(f64::from(count)), "indexing");
//!         }
//!         format!("indexed {count} files")
//!     }
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let toolbox = Toolbox::builder().toolset::<Indexer>().build().unwrap();
//! let schema = toolbox.get("index_files").unwrap().parameters().clone();
//! assert!(schema["properties"].get("ctx").is_none());
//! let result = toolbox.acall(&ToolCall::new("index_files", json!({"count": 3}))).await;
//! assert_eq!(result.value, json!("indexed 3 files"));
//! # });
//! ```

mod ask;
mod call_id;
mod caller;
mod elicit;
mod error;
mod host;
mod sampling;
#[cfg(test)]
mod tests;

use std::fmt;

use call_id::CallId;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use tokio_util::sync::CancellationToken;

pub use ask::Elicited;
pub use caller::{Caller, Data, RequestInfo};
pub use error::ContextError;
pub use host::{ElicitationAnswer, ElicitationRequest, LogLevel, Progress, Root, ToolHost};
pub use sampling::{Role, SamplingMessage, SamplingReply, SamplingRequest};

/// Re-exported so a host can cancel the calls it scopes.
pub use tokio_util::sync::CancellationToken as Cancellation;

/// What a caller gives the tools it calls: the host that listens, the request they serve, the
/// application's data, and the token that cancels them. Cheap to clone.
///
/// ```
/// use toolkit::context::{CallScope, Data};
///
/// let scope = CallScope::new().data(Data::new().with(42_u32));
/// let ctx = scope.context_for("answer", None);
/// assert_eq!(ctx.data::<u32>(), Some(&42));
/// assert!(!ctx.is_cancelled());
/// ```
#[derive(Clone, Default)]
pub struct CallScope {
    host: Option<Arc<dyn ToolHost>>,
    request: Option<Arc<RequestInfo>>,
    data: Data,
    cancellation: Option<CancellationToken>,
}

impl CallScope {
    /// A scope where nothing listens.
    pub fn new() -> Self {
        Self::default()
    }

    /// The scope with a host that takes progress and logs and answers sampling and
    /// elicitation.
    pub fn host(mut self, host: Arc<dyn ToolHost>) -> Self {
        self.host = Some(host);
        self
    }

    /// The scope with the request its calls serve.
    pub fn request(mut self, request: RequestInfo) -> Self {
        self.request = Some(Arc::new(request));
        self
    }

    /// The scope with application data.
    pub fn data(mut self, data: Data) -> Self {
        self.data = data;
        self
    }

    /// The scope's data with `fallback`'s added where it has none of their type (a toolbox's
    /// data under a server's).
    pub fn data_or(mut self, fallback: &Data) -> Self {
        self.data = self.data.or(fallback);
        self
    }

    /// The scope under a cancellation token: cancelling it cancels every call in the scope.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = Some(token);
        self
    }

    /// The scope's data.
    pub fn data_ref(&self) -> &Data {
        &self.data
    }

    /// Runs `future` in this scope: the tools it calls that take a context get one made from
    /// it. A batch carries the scope into the tasks it spawns.
    ///
    /// ```
    /// use toolkit::context::{CallScope, Data};
    /// use toolkit::prelude::*;
    ///
    /// let tool = ToolBuilder::new("port")
    ///     .description("The configured port")
    ///     .build_with_context(|_args, ctx| Ok::<_, String>(ctx.data::<u16>().copied()))
    ///     .unwrap();
    /// let toolbox = Toolbox::builder().tool(tool).build().unwrap();
    /// let scope = CallScope::new().data(Data::new().with(8080_u16));
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let result = scope.run(toolbox.acall(&ToolCall::new("port", json!({})))).await;
    /// assert_eq!(result.value, json!(8080));
    /// # });
    /// ```
    pub async fn run<F: Future>(self, future: F) -> F::Output {
        SCOPE.scope(self, future).await
    }

    /// Runs `body` in this scope, from sync code; see [`run`](Self::run).
    pub fn run_sync<R>(self, body: impl FnOnce() -> R) -> R {
        SCOPE.sync_scope(self, body)
    }

    /// The scope the running code was given by [`run`](Self::run), if any.
    pub fn current() -> Option<CallScope> {
        SCOPE.try_with(Clone::clone).ok()
    }

    /// The context of one call to `tool` in this scope. Its cancellation is a child of the
    /// scope's: cancelling the call (its deadline) leaves the scope's other calls running.
    pub fn context_for(&self, tool: &str, call_id: Option<&str>) -> ToolContext {
        self.clone().context_of(Arc::from(tool), call_id)
    }

    /// [`context_for`](Self::context_for) with the tool's name already shared (a proxy keeps
    /// it so), and the scope moved in: one allocation, and a second for a call id.
    pub(crate) fn context_of(self, tool: Arc<str>, call_id: Option<&str>) -> ToolContext {
        ToolContext {
            inner: Arc::new(Inner {
                tool,
                call_id: CallId::new(call_id),
                state: AtomicU8::new(0),
                cancellation: OnceLock::new(),
                scope: self,
            }),
        }
    }
}

impl fmt::Debug for CallScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallScope")
            .field("host", &self.host.is_some())
            .field("request", &self.request)
            .field("data", &self.data)
            .finish()
    }
}

/// What a tool can reach while it runs; see the [module documentation](self). Cheap to clone:
/// a clone is the same context.
#[derive(Clone)]
pub struct ToolContext {
    inner: Arc<Inner>,
}

const CANCELLED: u8 = 1;
const HAS_TOKEN: u8 = 2;

struct Inner {
    tool: Arc<str>,
    call_id: CallId,
    /// `CANCELLED` once the call was cancelled (or ended), and `HAS_TOKEN` once a token
    /// was made. The flag, and not the token, is the truth: a token is made only when a tool
    /// asks for one, since most never do and making one (and cancelling it at the end of every
    /// call) cost a tool with an unused context about a tenth of a call. Both bits change by
    /// read-modify-writes of this one atomic, so they are ordered: whichever of `cancel` and
    /// the token's making comes second sees the other and cancels the token.
    state: AtomicU8,
    /// The call's token, made on first use (`cancelled()`, `cancellation()`) and cancelled with
    /// the flag.
    cancellation: OnceLock<CancellationToken>,
    scope: CallScope,
}

/// Cancels a call's context when dropped ([`ToolContext::cancel_on_drop`]).
pub(crate) struct CancelOnDrop(ToolContext);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

tokio::task_local! {
    /// The scope a caller runs its calls in (`CallScope::run`).
    static SCOPE: CallScope;
    /// The context of the call whose body is running: set by the proxy around a body that asks
    /// for one, and read by generated code, so a context never travels through a tool that
    /// does not take one.
    static CURRENT: ToolContext;
}

impl ToolContext {
    /// A context where nothing listens, for a call made directly.
    pub fn detached(tool: &str) -> Self {
        CallScope::new().context_for(tool, None)
    }

    /// The context of the running call, or a detached one for `tool` when none was set (the
    /// body was called outside a proxy). Used by generated code.
    #[doc(hidden)]
    pub fn current(tool: &str) -> Self {
        CURRENT
            .try_with(Clone::clone)
            .unwrap_or_else(|_| Self::detached(tool))
    }

    /// The context of the running call, if a proxy set one.
    pub(crate) fn try_current() -> Option<Self> {
        CURRENT.try_with(Clone::clone).ok()
    }

    /// Runs `future` with this context as the current one. Not an `async fn`, which would
    /// store the future twice in its own.
    pub(crate) fn enter<F: Future>(self, future: F) -> impl Future<Output = F::Output> {
        CURRENT.scope(self, future)
    }

    /// Runs `body` with this context as the current one.
    pub(crate) fn enter_sync<R>(self, body: impl FnOnce() -> R) -> R {
        CURRENT.sync_scope(self, body)
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &str {
        &self.inner.tool
    }

    /// The id of the call, when the caller gave one.
    pub fn call_id(&self) -> Option<&str> {
        self.inner.call_id.as_str()
    }

    /// The request this call serves, when it came over MCP.
    pub fn request(&self) -> Option<&RequestInfo> {
        self.inner.scope.request.as_deref()
    }

    /// The MCP session id, for a call to a stateful MCP server.
    pub fn session_id(&self) -> Option<&str> {
        self.request()?.session_id.as_deref()
    }

    /// The HTTP request's headers, for a call over MCP's HTTP transport.
    pub fn headers(&self) -> Option<&http::HeaderMap> {
        self.request().map(|request| &request.headers)
    }

    /// The verified caller, when the server checks tokens.
    pub fn caller(&self) -> Option<&Caller> {
        self.request()?.caller.as_ref()
    }

    /// The application's value of type `T`, given when the toolbox, the server or the agent was
    /// built.
    pub fn data<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.inner.scope.data.get::<T>()
    }

    /// Reports progress: `done` of `total` (when known), with a message. Also logged to
    /// `tracing` at debug level.
    pub fn progress(&self, done: f64, total: Option<f64>, message: impl Into<String>) {
        let message = message.into();
        tracing::debug!(
            tool = self.tool_name(),
            done,
            total,
            message,
            "tool progress"
        );
        if let Some(host) = &self.inner.scope.host {
            let message = (!message.is_empty()).then_some(message);
            host.progress(
                self,
                Progress {
                    done,
                    total,
                    message,
                },
            );
        }
    }

    /// Logs a message to the caller (MCP's `notifications/message`, an agent's events) and to
    /// `tracing`.
    pub fn log(&self, level: LogLevel, message: impl AsRef<str>) {
        let message = message.as_ref();
        let tool = self.tool_name();
        match level {
            LogLevel::Debug => tracing::debug!(tool, "{message}"),
            LogLevel::Info | LogLevel::Notice => tracing::info!(tool, "{message}"),
            LogLevel::Warning => tracing::warn!(tool, "{message}"),
            _ => tracing::error!(tool, "{message}"),
        }
        if let Some(host) = &self.inner.scope.host {
            host.log(self, level, message);
        }
    }

    /// Logs at [`LogLevel::Info`].
    pub fn info(&self, message: impl AsRef<str>) {
        self.log(LogLevel::Info, message);
    }

    /// Logs at [`LogLevel::Warning`].
    pub fn warning(&self, message: impl AsRef<str>) {
        self.log(LogLevel::Warning, message);
    }

    /// Whether the call was cancelled: by the client, by its deadline, or because its caller
    /// stopped waiting. A sync tool checks this; an async tool's future is also dropped.
    pub fn is_cancelled(&self) -> bool {
        let inner = &*self.inner;
        inner.state.load(Ordering::Acquire) & CANCELLED != 0
            || inner
                .cancellation
                .get()
                .is_some_and(CancellationToken::is_cancelled)
            || (inner.scope.cancellation.as_ref()).is_some_and(CancellationToken::is_cancelled)
    }

    /// Resolves when the call is cancelled.
    pub async fn cancelled(&self) {
        self.cancellation().cancelled().await;
    }

    /// A guard that cancels the call when dropped, however the call ends (answered, failed,
    /// timed out, or dropped by its caller). Not tokio-util's `DropGuard`: that needs the token,
    /// which a context makes only when a tool asks for it (see `Inner::state`).
    pub(crate) fn cancel_on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(self.clone())
    }

    /// Cancels the call: its `is_cancelled` turns true and `cancelled()` resolves.
    pub fn cancel(&self) {
        let before = self.inner.state.fetch_or(CANCELLED, Ordering::AcqRel);
        if before & HAS_TOKEN != 0
            && let Some(token) = self.inner.cancellation.get()
        {
            token.cancel();
        }
    }

    /// The call's cancellation token, to hand to work the tool starts.
    pub fn cancellation(&self) -> &CancellationToken {
        let inner = &*self.inner;
        let token = inner
            .cancellation
            .get_or_init(|| match &inner.scope.cancellation {
                Some(parent) => parent.child_token(),
                None => CancellationToken::new(),
            });
        if inner.state.fetch_or(HAS_TOKEN, Ordering::AcqRel) & CANCELLED != 0 {
            token.cancel();
        }
        token
    }

    /// The scope this call runs in, for a tool that calls further tools in it.
    pub fn scope(&self) -> &CallScope {
        &self.inner.scope
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("tool", &self.inner.tool)
            .field("call_id", &self.call_id())
            .field("cancelled", &self.is_cancelled())
            .field("scope", &self.inner.scope)
            .finish()
    }
}
