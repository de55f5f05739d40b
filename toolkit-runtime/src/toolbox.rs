//! `Toolbox`: the tools an agent may call, keyed by name, and the dispatch of a model's calls
//! to them, one at a time or concurrently, under limits and the application's own policy.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use tokio::task::JoinSet;
use tracing::Instrument;

use crate::calls::{ToolCall, ToolCallResult};
use crate::error::ToolError;
use crate::limits::Limits;
use crate::proxy::{ToolProxy, panic_message};
use crate::toolset::Toolset;
use crate::trace::CallSpan;

/// A before-call hook: `Err(reason)` refuses the call, and the model reads the reason.
type BeforeHook = dyn Fn(&ToolCall, &ToolProxy) -> Result<(), String> + Send + Sync;
/// An after-call hook: sees, and may rewrite, every result.
type AfterHook = dyn Fn(&ToolCall, &mut ToolCallResult) + Send + Sync;

/// The tools an agent may call, in order and keyed by name, and the dispatch of calls to them.
///
/// Build one from any mix of toolsets and single tools; a name defined twice is an error that
/// names both sources. [`call`](Self::call), [`acall`](Self::acall) and
/// [`call_all`](Self::call_all) always return a [`ToolCallResult`]: an unknown tool, invalid
/// arguments, a panic or a timeout are error results the model reads, never an `Err` or a panic
/// the agent loop must handle.
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
/// let toolbox = Toolbox::builder().toolset::<TextStatsToolset>().build().unwrap();
/// let result = toolbox.call(&ToolCall::new("stats_word_count", json!({"text": "a b"})));
/// assert_eq!((result.value, result.is_error), (json!(2), false));
///
/// let wrong = toolbox.call(&ToolCall::new("stats_char_count", json!({})).with_id("c1"));
/// assert_eq!(wrong.call_id.as_deref(), Some("c1"));
/// assert_eq!(
///     wrong.value,
///     json!("Error: Unknown tool: stats_char_count. Available: stats_word_count")
/// );
/// ```
#[derive(Clone)]
pub struct Toolbox {
    entries: Vec<Entry>,
    index: HashMap<String, usize>,
    limits: Limits,
    concurrency: usize,
    hooks: Arc<Hooks>,
}

#[derive(Clone)]
struct Entry {
    tool: ToolProxy,
    source: Source,
}

/// Where a tool came from, to name both sides of a duplicate.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    Toolset {
        name: &'static str,
        rust_type: &'static str,
    },
    Group(String),
    Single,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Toolset { name, rust_type } => write!(f, "toolset \"{name}\" ({rust_type})"),
            Source::Group(label) => write!(f, "\"{label}\""),
            Source::Single => f.write_str("a tool added on its own"),
        }
    }
}

#[derive(Default)]
struct Hooks {
    before: Vec<Box<BeforeHook>>,
    after: Vec<Box<AfterHook>>,
}

/// Why a toolbox could not be built, merged or narrowed.
///
/// ```
/// use toolkit::prelude::*;
///
/// #[derive(Default)]
/// struct Stats;
///
/// #[toolset(name = "stats")]
/// impl Stats {
///     /// Count words
///     #[tool]
///     fn word_count(&self, text: String) -> usize {
///         text.split_whitespace().count()
///     }
/// }
///
/// let err = Toolbox::builder()
///     .tools("local copy", Stats::to_tools())
///     .tools("remote copy", Stats::to_tools())
///     .build()
///     .unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "tool \"stats_word_count\" is defined twice: by \"local copy\" and by \"remote copy\""
/// );
/// // A toolset names itself and its Rust type: `toolset "stats" (my_crate::Stats)`.
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolboxError {
    /// Two tools have the same name; `first` and `second` say where each came from.
    #[error("tool \"{name}\" is defined twice: by {first} and by {second}")]
    DuplicateTool {
        name: String,
        first: String,
        second: String,
    },
    /// [`Toolbox::select`] named tools the toolbox does not hold.
    #[error("no tool named {} in this toolbox; it holds: {}", quoted(missing), available.join(", "))]
    UnknownTools {
        missing: Vec<String>,
        available: Vec<String>,
    },
}

fn quoted(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("\"{name}\"")).collect();
    quoted.join(", ")
}

/// Collects tools, limits, a concurrency bound and hooks, then checks names once in
/// [`build`](Self::build).
#[must_use]
pub struct ToolboxBuilder {
    entries: Vec<Entry>,
    limits: Limits,
    concurrency: usize,
    hooks: Hooks,
}

impl ToolboxBuilder {
    /// Adds every tool of a toolset that has a `Default` instance.
    pub fn toolset<T: Toolset + Default>(self) -> Self {
        self.toolset_instance(Arc::new(T::default()))
    }

    /// Adds every tool of a configured toolset instance (which its tools share).
    pub fn toolset_instance<T: Toolset>(mut self, instance: Arc<T>) -> Self {
        let source = Source::Toolset {
            name: T::NAME,
            rust_type: std::any::type_name::<T>(),
        };
        self.entries
            .extend(instance.into_tools().into_iter().map(|tool| Entry {
                tool,
                source: source.clone(),
            }));
        self
    }

    /// Adds one tool.
    pub fn tool(mut self, tool: ToolProxy) -> Self {
        self.entries.push(Entry {
            tool,
            source: Source::Single,
        });
        self
    }

    /// Adds tools from elsewhere (an MCP server, tools built at run time) under a label that a
    /// duplicate-name error will quote.
    pub fn tools(
        mut self,
        label: impl Into<String>,
        tools: impl IntoIterator<Item = ToolProxy>,
    ) -> Self {
        let source = Source::Group(label.into());
        self.entries.extend(tools.into_iter().map(|tool| Entry {
            tool,
            source: source.clone(),
        }));
        self
    }

    /// The default limits of every call; a tool's own settings win over them.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// How many calls [`Toolbox::call_all`] runs at once (default 16; 0 counts as 1).
    pub fn concurrency(mut self, limit: usize) -> Self {
        self.concurrency = limit.max(1);
        self
    }

    /// Adds a policy check run before every call to a known tool. `Err(reason)` refuses the
    /// call: the tool does not run and the result is the error
    /// `the call to <tool> was refused: <reason>`. Hooks run in the order added; the first
    /// refusal wins. A panicking hook becomes that call's error result.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// #[derive(Default)]
    /// struct Files;
    ///
    /// #[toolset(name = "files")]
    /// impl Files {
    ///     /// Delete a file
    ///     #[tool(destructive)]
    ///     fn delete(&self, path: String) -> String {
    ///         format!("deleted {path}")
    ///     }
    /// }
    ///
    /// let toolbox = Toolbox::builder()
    ///     .toolset::<Files>()
    ///     .before_call(|_call, tool| match tool.options().annotations.destructive {
    ///         Some(true) => Err("destructive tools need a human's approval".into()),
    ///         _ => Ok(()),
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let result = toolbox.call(&ToolCall::new("files_delete", json!({"path": "/etc"})));
    /// assert_eq!(
    ///     result.value,
    ///     json!("Error: the call to files_delete was refused: destructive tools need a human's approval")
    /// );
    /// ```
    pub fn before_call(
        mut self,
        hook: impl Fn(&ToolCall, &ToolProxy) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.hooks.before.push(Box::new(hook));
        self
    }

    /// Adds a hook run after every call, including refused calls and unknown tools: for audit
    /// logs, or to rewrite a result (redaction). Hooks run in the order added.
    pub fn after_call(
        mut self,
        hook: impl Fn(&ToolCall, &mut ToolCallResult) + Send + Sync + 'static,
    ) -> Self {
        self.hooks.after.push(Box::new(hook));
        self
    }

    /// The toolbox, or the first name defined twice.
    pub fn build(self) -> Result<Toolbox, ToolboxError> {
        let mut toolbox = Toolbox {
            entries: Vec::with_capacity(self.entries.len()),
            index: HashMap::with_capacity(self.entries.len()),
            limits: self.limits,
            concurrency: self.concurrency,
            hooks: Arc::new(self.hooks),
        };
        toolbox.extend(self.entries)?;
        Ok(toolbox)
    }
}

impl Default for Toolbox {
    fn default() -> Self {
        Toolbox {
            entries: Vec::new(),
            index: HashMap::new(),
            limits: Limits::default(),
            concurrency: Toolbox::DEFAULT_CONCURRENCY,
            hooks: Arc::default(),
        }
    }
}

impl fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field("tools", &self.names().collect::<Vec<_>>())
            .field("limits", &self.limits)
            .field("concurrency", &self.concurrency)
            .finish_non_exhaustive()
    }
}

impl Toolbox {
    /// How many calls [`call_all`](Self::call_all) runs at once unless told otherwise.
    pub const DEFAULT_CONCURRENCY: usize = 16;

    /// An empty builder with default limits, a concurrency of 16 and no hooks.
    pub fn builder() -> ToolboxBuilder {
        ToolboxBuilder {
            entries: Vec::new(),
            limits: Limits::default(),
            concurrency: Toolbox::DEFAULT_CONCURRENCY,
            hooks: Hooks::default(),
        }
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&ToolProxy> {
        self.index.get(name).map(|&i| &self.entries[i].tool)
    }

    /// The tools, in the order they were added.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &ToolProxy> {
        self.entries.iter().map(|entry| &entry.tool)
    }

    /// The tool names, in order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.iter().map(ToolProxy::name)
    }

    /// How many tools it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds no tools.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The default limits of a call; a tool's own settings win over them.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// How many calls [`call_all`](Self::call_all) runs at once.
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// Takes a tool out, keeping the order of the rest.
    pub fn remove(&mut self, name: &str) -> Option<ToolProxy> {
        let position = self.index.remove(name)?;
        let entry = self.entries.remove(position);
        for index in self.index.values_mut() {
            if *index > position {
                *index -= 1;
            }
        }
        Some(entry.tool)
    }

    /// Adds `other`'s tools after this one's. Limits, concurrency and hooks stay this toolbox's.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// #[derive(Default)]
    /// struct Stats;
    ///
    /// #[toolset(name = "stats")]
    /// impl Stats {
    ///     /// Count words
    ///     #[tool]
    ///     fn words(&self, text: String) -> usize {
    ///         text.split_whitespace().count()
    ///     }
    /// }
    ///
    /// let words = Stats::to_tools().remove(0);
    /// let base = Toolbox::builder().tools("base", Stats::to_tools()).build().unwrap();
    /// let extra = Toolbox::builder().tool(words).build().unwrap();
    /// assert_eq!(
    ///     base.clone().merge(extra).unwrap_err().to_string(),
    ///     "tool \"stats_words\" is defined twice: by \"base\" and by a tool added on its own"
    /// );
    /// let empty = Toolbox::builder().build().unwrap();
    /// assert_eq!(base.merge(empty).unwrap().names().collect::<Vec<_>>(), ["stats_words"]);
    /// ```
    pub fn merge(mut self, other: Toolbox) -> Result<Toolbox, ToolboxError> {
        self.extend(other.entries)?;
        Ok(self)
    }

    /// A toolbox of just the named tools, in this toolbox's order, with its limits and hooks:
    /// to offer an agent a subset. Naming a tool it does not hold is an error.
    pub fn select<I>(&self, names: I) -> Result<Toolbox, ToolboxError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut wanted = vec![false; self.entries.len()];
        let mut missing = Vec::new();
        for name in names {
            match self.index.get(name.as_ref()) {
                Some(&i) => wanted[i] = true,
                None => missing.push(name.as_ref().to_owned()),
            }
        }
        if !missing.is_empty() {
            return Err(ToolboxError::UnknownTools {
                missing,
                available: self.names().map(str::to_owned).collect(),
            });
        }
        let mut subset = Toolbox {
            entries: Vec::new(),
            index: HashMap::new(),
            limits: self.limits,
            concurrency: self.concurrency,
            hooks: Arc::clone(&self.hooks),
        };
        let chosen = self.entries.iter().zip(wanted).filter(|(_, keep)| *keep);
        subset.extend(chosen.map(|(entry, _)| entry.clone()).collect())?;
        Ok(subset)
    }

    /// Runs one call from sync code. An async tool needs
    /// [`allow_async_to_sync`](crate::allow_async_to_sync), as with [`ToolProxy::call`].
    pub fn call(&self, call: &ToolCall) -> ToolCallResult {
        let span = CallSpan::new(&call.name, call.id.as_deref());
        let outcome = span.span.in_scope(|| {
            let (tool, limits) = self.resolve(&call.name)?;
            self.hooks.allow(call, tool)?;
            tool.run(Cow::Borrowed(&call.args), &limits)
        });
        span.finish(&outcome);
        let _entered = span.span.enter();
        self.hooks.report(call, outcome)
    }

    /// Runs one call from async code.
    pub async fn acall(&self, call: &ToolCall) -> ToolCallResult {
        match self.resolve(&call.name) {
            Ok((tool, limits)) => dispatch(tool, limits, &self.hooks, call).await,
            Err(unknown) => self.unknown(call, unknown),
        }
    }

    /// Runs calls concurrently, at most [`concurrency`](Self::concurrency) at a time, and
    /// returns their results in the order of `calls`. Each call is independent: one that fails,
    /// panics or times out is an error result and the others run on.
    ///
    /// The calls run on `concurrency` tokio tasks, so they spread over a multi-thread runtime's
    /// worker threads; `call_all` must run inside a tokio runtime.
    ///
    /// ```
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
    /// let toolbox = Toolbox::builder().toolset::<Maths>().concurrency(4).build().unwrap();
    /// let calls = (0..10).map(|n| ToolCall::new("maths_double", json!({"n": n}))).collect();
    /// let results = toolbox.call_all(calls).await;
    /// let values: Vec<_> = results.iter().map(|r| r.value.clone()).collect();
    /// assert_eq!(values, (0..10).map(|n| json!(n * 2)).collect::<Vec<_>>());
    /// # });
    /// ```
    pub async fn call_all(&self, calls: Vec<ToolCall>) -> Vec<ToolCallResult> {
        let mut results: Vec<Option<ToolCallResult>> = vec![None; calls.len()];
        // Resolved up front, so that the tasks need none of the toolbox but the tools they run.
        let mut targets = Vec::with_capacity(calls.len());
        for (position, call) in calls.iter().enumerate() {
            match self.resolve(&call.name) {
                Ok((tool, limits)) => targets.push(Some((tool.clone(), limits))),
                Err(unknown) => {
                    results[position] = Some(self.unknown(call, unknown));
                    targets.push(None);
                }
            }
        }
        let work = Arc::new(Batch {
            calls,
            targets,
            next: AtomicUsize::new(0),
        });
        // A few long-lived workers that each take the next call, rather than a task per call:
        // the bound holds by construction, and cheap calls do not pay a spawn and a cross-thread
        // wake-up each.
        let workers = self.concurrency.min(work.calls.len());
        let mut tasks = JoinSet::new();
        for _ in 0..workers {
            let work = Arc::clone(&work);
            let hooks = Arc::clone(&self.hooks);
            tasks.spawn(async move {
                let mut done = Vec::new();
                while let Some((position, call, (tool, limits))) = work.claim() {
                    done.push((position, dispatch(tool, *limits, &hooks, call).await));
                }
                done
            });
        }
        while let Some(joined) = tasks.join_next().await {
            // Tool and hook panics are caught inside `dispatch`; a worker only fails when the
            // runtime shuts down under it, and its unfinished calls are answered below.
            for (position, result) in joined.into_iter().flatten() {
                results[position] = Some(result);
            }
        }
        results
            .into_iter()
            .zip(work.calls.iter())
            .map(|(result, call)| {
                result.unwrap_or_else(|| {
                    let failure = ToolError::Failed {
                        tool: call.name.clone(),
                        message: "the call could not complete: the async runtime shut down".into(),
                    };
                    ToolCallResult::from_outcome(call, Err(failure))
                })
            })
            .collect()
    }

    /// The tool called `name` and its limits, or the error the model reads.
    fn resolve(&self, name: &str) -> Result<(&ToolProxy, Limits), ToolError> {
        match self.get(name) {
            Some(tool) => Ok((tool, self.limits.for_tool(tool.options()))),
            None => Err(ToolError::UnknownTool {
                name: name.to_owned(),
                available: self.names().map(str::to_owned).collect(),
            }),
        }
    }

    fn unknown(&self, call: &ToolCall, unknown: ToolError) -> ToolCallResult {
        let span = CallSpan::new(&call.name, call.id.as_deref());
        let outcome = Err(unknown);
        span.finish(&outcome);
        let _entered = span.span.enter();
        self.hooks.report(call, outcome)
    }

    fn extend(&mut self, entries: Vec<Entry>) -> Result<(), ToolboxError> {
        for entry in entries {
            let name = entry.tool.name();
            if let Some(&existing) = self.index.get(name) {
                return Err(ToolboxError::DuplicateTool {
                    name: name.to_owned(),
                    first: self.entries[existing].source.to_string(),
                    second: entry.source.to_string(),
                });
            }
            self.index.insert(name.to_owned(), self.entries.len());
            self.entries.push(entry);
        }
        Ok(())
    }
}

/// The calls of one `call_all`, shared by its workers.
struct Batch {
    calls: Vec<ToolCall>,
    /// The tool and limits of each call; `None` for an unknown tool, already answered.
    targets: Vec<Option<(ToolProxy, Limits)>>,
    next: AtomicUsize,
}

impl Batch {
    /// The next call to a known tool that no worker has taken yet.
    fn claim(&self) -> Option<(usize, &ToolCall, &(ToolProxy, Limits))> {
        loop {
            let position = self.next.fetch_add(1, Ordering::Relaxed);
            let call = self.calls.get(position)?;
            if let Some(target) = &self.targets[position] {
                return Some((position, call, target));
            }
        }
    }
}

impl<'a> IntoIterator for &'a Toolbox {
    type Item = &'a ToolProxy;
    type IntoIter = Box<dyn ExactSizeIterator<Item = &'a ToolProxy> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

/// One call to a known tool, from async code: policy, pipeline, span, report.
async fn dispatch(
    tool: &ToolProxy,
    limits: Limits,
    hooks: &Hooks,
    call: &ToolCall,
) -> ToolCallResult {
    let span = CallSpan::new(&call.name, call.id.as_deref());
    let outcome = async {
        hooks.allow(call, tool)?;
        tool.arun(Cow::Borrowed(&call.args), &limits).await
    }
    .instrument(span.span.clone())
    .await;
    span.finish(&outcome);
    let _entered = span.span.enter();
    hooks.report(call, outcome)
}

impl Hooks {
    /// Runs the before-call hooks; the first refusal (or panic) stops the call.
    fn allow(&self, call: &ToolCall, tool: &ToolProxy) -> Result<(), ToolError> {
        for hook in &self.before {
            match catch_unwind(AssertUnwindSafe(|| hook(call, tool))) {
                Ok(Ok(())) => {}
                Ok(Err(reason)) => {
                    return Err(ToolError::Rejected {
                        tool: call.name.clone(),
                        reason,
                    });
                }
                Err(payload) => {
                    return Err(ToolError::Panicked {
                        tool: call.name.clone(),
                        message: format!(
                            "the before-call hook panicked: {}",
                            panic_message(&*payload)
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    /// Turns an outcome into the result the model reads, passing it through the after-call
    /// hooks. A hook that panics leaves the result as the hooks before it made it.
    fn report(&self, call: &ToolCall, outcome: Result<Value, ToolError>) -> ToolCallResult {
        let mut result = ToolCallResult::from_outcome(call, outcome);
        for hook in &self.after {
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| hook(call, &mut result))) {
                tracing::error!(
                    panic = %panic_message(&*payload),
                    "an after-call hook panicked"
                );
            }
        }
        result
    }
}
