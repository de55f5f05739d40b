//! `ToolboxBuilder`: tools from toolsets, single tools and groups, with limits, a concurrency bound
//! and hooks; names are checked once, in `build`.

use std::sync::Arc;

use super::hooks::Hooks;
use super::{Entry, Source, Toolbox, ToolboxError};
use crate::call::{Limits, ToolProxy};
use crate::context::Data;
use crate::{ToolCall, ToolCallResult, Toolset};

/// Collects tools, limits, a concurrency bound and hooks, then checks names once in
/// [`build`](Self::build).
#[must_use]
pub struct ToolboxBuilder {
    entries: Vec<Entry>,
    limits: Limits,
    concurrency: usize,
    hooks: Hooks,
    data: Data,
}

impl Toolbox {
    /// An empty builder with default limits, a concurrency of 16 and no hooks.
    pub fn builder() -> ToolboxBuilder {
        ToolboxBuilder {
            entries: Vec::new(),
            limits: Limits::default(),
            concurrency: Toolbox::DEFAULT_CONCURRENCY,
            hooks: Hooks::default(),
            data: Data::default(),
        }
    }
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

    /// Typed application data for tools that take a context: `ctx.data::<T>()` (what Pydantic
    /// AI calls deps). A scope's own data, given by an MCP server or an agent, wins over it.
    ///
    /// ```
    /// use toolkit::context::Data;
    /// use toolkit::prelude::*;
    ///
    /// struct Greeting(&'static str);
    ///
    /// #[derive(Default)]
    /// struct Greeter;
    ///
    /// #[toolset(name = "greet")]
    /// impl Greeter {
    ///     /// Greet someone
    ///     #[tool]
    ///     fn hello(&self, ctx: &ToolContext, name: String) -> String {
    ///         let greeting = ctx.data::<Greeting>().map_or("Hello", |g| g.0);
    ///         format!("{greeting}, {name}")
    ///     }
    /// }
    ///
    /// let toolbox = Toolbox::builder()
    ///     .toolset::<Greeter>()
    ///     .data(Data::new().with(Greeting("Bonjour")))
    ///     .build()
    ///     .unwrap();
    /// let result = toolbox.call(&ToolCall::new("greet_hello", json!({"name": "Ada"})));
    /// assert_eq!(result.value, json!("Bonjour, Ada"));
    /// ```
    pub fn data(mut self, data: Data) -> Self {
        self.data = data;
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
        let mut toolbox = Toolbox::empty(self.limits, self.concurrency, Arc::new(self.hooks));
        toolbox.data = self.data;
        toolbox.extend(self.entries)?;
        Ok(toolbox)
    }
}
