//! `ToolProxy`: one callable tool, with its definition, validator and body.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};

use super::definition::{DefinitionCache, ToolDefinition, ToolOptions};
use super::handler::{Handler, TypedHandler, TypedStateSync};
use super::limits::Limits;
use super::origin::CallOrigin;
use super::places::ThreadPlaces;
use super::render::Rendering;
use super::validate::ArgumentValidator;
use crate::error::ToolError;
use crate::format::Format;
use crate::state::StateWiring;

pub(super) struct ToolInner {
    pub(super) definition: ToolDefinition,
    pub(super) handler: Handler,
    /// Compiled on the first call and shared by every clone.
    validator: OnceLock<Result<ArgumentValidator, String>>,
    /// The calls holding a blocking-pool thread, bounded by `Limits::max_threads`.
    pub(super) threads: ThreadPlaces,
    /// The body on the typed fast path, for `#[tool]` methods whose parameters serde can read.
    pub(super) typed: Option<TypedHandler>,
    /// Whether calls may take the fast path: decided once, from the schema, on the first call.
    fast: OnceLock<bool>,
    /// The definition in each provider's format, rendered on first use.
    definitions: DefinitionCache,
    /// How the tool reads and writes state, with the full parameter schema that calls are
    /// validated against (`definition.parameters` hides the state-filled parameters).
    pub(super) state: Option<StateBinding>,
    /// What the body takes and returns besides JSON.
    pub(super) traits: ToolTraits,
    /// The name every context of a call to this tool shares, made on the first such call.
    pub(super) context_name: OnceLock<Arc<str>>,
}

/// What a tool's body takes and returns besides JSON: whether it reads a [`ToolContext`]
/// (made for its calls only then) and whether its result is content blocks (rendered as such).
///
/// [`ToolContext`]: crate::ToolContext
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ToolTraits {
    pub(crate) takes_context: bool,
    pub(crate) returns_content: bool,
    pub(crate) forwards: bool,
}

/// How a tool is wired to state: the wiring, the full parameter schema calls are validated
/// against, and the typed body with state, for tools made by `#[toolset(state = T)]`.
#[derive(Clone)]
pub(crate) struct StateBinding {
    pub(crate) wiring: StateWiring,
    pub(crate) parameters: Value,
    pub(crate) typed: Option<Arc<TypedStateSync>>,
}

impl StateBinding {
    pub(crate) fn new(wiring: StateWiring, parameters: Value) -> Self {
        StateBinding {
            wiring,
            parameters,
            typed: None,
        }
    }
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
    pub(super) inner: Arc<ToolInner>,
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
    /// Builds a proxy from a definition and a handler, with no typed fast path: what the
    /// closure constructors use (`#[tool]` methods get theirs from `MethodTool`, through
    /// [`build`](Self::build)).
    pub(crate) fn from_parts(
        definition: ToolDefinition,
        handler: Handler,
        traits: ToolTraits,
    ) -> Self {
        ToolProxy::build(definition, handler, None, None, traits)
    }

    /// Builds a proxy with everything it can have: a body on the typed fast path (what
    /// `#[tool]` methods get) and a state wiring with the full parameter schema.
    pub(crate) fn build(
        definition: ToolDefinition,
        handler: Handler,
        typed: Option<TypedHandler>,
        state: Option<StateBinding>,
        traits: ToolTraits,
    ) -> Self {
        ToolProxy {
            inner: Arc::new(ToolInner {
                definition,
                handler,
                validator: OnceLock::new(),
                threads: ThreadPlaces::default(),
                typed,
                fast: OnceLock::new(),
                definitions: DefinitionCache::default(),
                state,
                traits,
                context_name: OnceLock::new(),
            }),
        }
    }

    /// The definition in `format`, rendered by `render` on first use and kept.
    pub(crate) fn cached_definition(
        &self,
        format: Format,
        render: impl FnOnce() -> Result<Value, ToolError>,
    ) -> Result<Value, ToolError> {
        self.inner.definitions.get(format, render).cloned()
    }

    /// The fast-path body, when calls of this tool may take it: the schema must compile (else
    /// every call reports it), be free of unions whose checks are budgeted, and say nothing the
    /// parameters' types do not enforce.
    pub(super) fn typed_body(&self) -> Option<&TypedHandler> {
        let typed = self.inner.typed.as_ref()?;
        let fast = *self.inner.fast.get_or_init(|| self.may_take_fast_path());
        fast.then_some(typed)
    }

    /// Whether calls of this tool may take the typed fast path: decided once, on the first call.
    fn may_take_fast_path(&self) -> bool {
        !self.options().always_validate
            && self.validator().is_ok_and(|v| !v.is_budgeted())
            && crate::schema::implied_by_types(self.checked_parameters())
    }

    /// The limits of a call made on the proxy itself: the tool's own, over the defaults.
    fn limits(&self) -> Limits {
        self.options().limits
    }

    /// The compiled validator of the parameters schema, or why the schema does not compile.
    pub(super) fn validator(&self) -> Result<&ArgumentValidator, ToolError> {
        self.inner
            .validator
            .get_or_init(|| self.compile_validator())
            .as_ref()
            .map_err(|message| ToolError::InvalidSchema {
                tool: self.name().into(),
                message: message.clone(),
            })
    }

    /// The parameters schema compiled: once, on the first call that needs it.
    fn compile_validator(&self) -> Result<ArgumentValidator, String> {
        ArgumentValidator::new(self.checked_parameters())
    }

    /// Whether calls of this tool take the typed fast path (for tests that compare it with the
    /// full pipeline). Not public API: only with the `__test_hooks` feature.
    #[cfg(feature = "__test_hooks")]
    #[doc(hidden)]
    pub fn __takes_fast_path(&self) -> bool {
        self.typed_body().is_some()
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

    /// The schema calls are validated against: [`parameters`](Self::parameters) with the
    /// state-filled parameters put back.
    pub(crate) fn checked_parameters(&self) -> &Value {
        match &self.inner.state {
            Some(binding) => &binding.parameters,
            None => &self.inner.definition.parameters,
        }
    }

    /// How the tool reads and writes state, when it was given a wiring.
    pub fn state_wiring(&self) -> Option<&StateWiring> {
        self.inner.state.as_ref().map(|binding| &binding.wiring)
    }

    /// The same tool wired to state: parameters filled from state keys, results merged into keys.
    ///
    /// The state-filled parameters disappear from [`parameters`](Self::parameters) and so from
    /// every provider format and MCP `tools/list`; calls are still validated against the full
    /// schema, after [`Toolbox::call_with_state`](crate::Toolbox::call_with_state) filled them.
    /// A wiring that names a parameter the tool does not have is an error.
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::ToolDefinition;
    /// use toolkit::state::StateWiring;
    ///
    /// let schema = json!({"type": "object", "properties": {
    ///     "repository": {"type": "string"}, "query": {"type": "string"}},
    ///     "required": ["repository", "query"]});
    /// let search = ToolProxy::from_fn(ToolDefinition::new("search", "Search", schema), |args| {
    ///     Ok::<_, String>(format!("{} in {}", args["query"], args["repository"]))
    /// });
    /// let search = search.with_state(StateWiring::new().input("repository")).unwrap();
    /// assert_eq!(search.parameters()["required"], json!(["query"]));
    /// ```
    pub fn with_state(&self, wiring: StateWiring) -> Result<ToolProxy, ToolError> {
        let full = self.checked_parameters().clone();
        let properties = full.get("properties").and_then(Value::as_object);
        if let Some(missing) = wiring
            .parameters()
            .find(|p| !properties.is_some_and(|props| props.contains_key(*p)))
        {
            return Err(ToolError::InvalidDefinition {
                tool: self.name().into(),
                message: format!("the state wiring fills \"{missing}\", which is not a parameter"),
            });
        }
        let mut definition = self.inner.definition.clone();
        definition.parameters = wiring.hide(&full);
        definition.mcp_parameters = definition.mcp_parameters.map(|mcp| wiring.hide(&mcp));
        let (handler, typed) = (self.inner.handler.clone(), self.inner.typed.clone());
        Ok(ToolProxy::build(
            definition,
            handler,
            typed,
            Some(StateBinding::new(wiring, full)),
            self.inner.traits,
        ))
    }

    /// Whether the tool's body reads a [`ToolContext`](crate::ToolContext).
    pub fn takes_context(&self) -> bool {
        self.inner.traits.takes_context
    }

    /// Whether the tool returns content blocks ([`Image`](crate::Image), [`ToolOutput`](crate::ToolOutput),
    /// ...) rather than JSON: every format renders its result as content.
    pub fn returns_content(&self) -> bool {
        self.inner.traits.returns_content
    }

    /// Whether the tool forwards another server's results
    /// ([`forwarding`](Self::forwarding)).
    #[doc(hidden)]
    pub fn forwards(&self) -> bool {
        self.inner.traits.forwards
    }

    /// A name for people (MCP's `title`), when the tool has one.
    pub fn title(&self) -> Option<&str> {
        self.inner.definition.title.as_deref()
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
        let limits = self.limits();
        let input = Cow::Owned(args.into());
        let (_, outcome) = self.traced(input, &limits, CallOrigin::direct(), || Ok(()));
        Rendering::of_tool(&limits, self).bounded(outcome)
    }

    /// Like [`call`](Self::call), but never fails: the result as JSON, or
    /// `"Error: <message>"` as a JSON string a model can read.
    pub fn dynamic_call(&self, args: impl Into<Value>) -> Value {
        let limits = self.limits();
        let input = Cow::Owned(args.into());
        let (_, outcome) = self.traced(input, &limits, CallOrigin::direct(), || Ok(()));
        Rendering::of_tool(&limits, self).model_value(outcome)
    }

    /// Calls the tool from async code. Sync tools run inline, or on tokio's blocking pool when
    /// marked `#[tool(blocking)]` or given a timeout. An async tool is cancelled at its deadline.
    pub async fn acall(&self, args: impl Into<Value>) -> Result<Value, ToolError> {
        let limits = self.limits();
        let input = Cow::Owned(args.into());
        let (_, outcome) = (self.atraced(input, &limits, CallOrigin::direct(), || Ok(()))).await;
        Rendering::of_tool(&limits, self).bounded(outcome)
    }

    /// Like [`acall`](Self::acall), but never fails (the `"Error: ..."` contract).
    pub async fn dynamic_acall(&self, args: impl Into<Value>) -> Value {
        let limits = self.limits();
        let input = Cow::Owned(args.into());
        let (_, outcome) = (self.atraced(input, &limits, CallOrigin::direct(), || Ok(()))).await;
        Rendering::of_tool(&limits, self).model_value(outcome)
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
    /// let say = Echo::to_tools().remove(0).with_options(|o| o.limits.max_output_bytes = Some(50));
    /// let long = say.dynamic_call(json!({"text": "a".repeat(100)}));
    /// assert_eq!(long, json!("aaa... [output truncated: showing 3 of 100 bytes]"));
    /// ```
    pub fn with_options(self, change: impl FnOnce(&mut ToolOptions)) -> ToolProxy {
        self.with_definition(|definition| change(&mut definition.options))
    }

    /// The same tool under another name: what the model calls it by, and what its errors
    /// name. The name must be one providers accept (`^[a-zA-Z0-9_-]{1,64}$`).
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Add two numbers
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let plus = add_tool().renamed("plus").unwrap();
    /// assert_eq!(plus.name(), "plus");
    /// assert_eq!(plus.dynamic_call(json!({"a": 1, "b": 2})), json!(3));
    /// assert_eq!(
    ///     add_tool().renamed("a b").unwrap_err().to_string(),
    ///     "tool a b cannot be built: the name must be 1 to 64 letters, digits, `_` or `-` \
    ///      (^[a-zA-Z0-9_-]{1,64}$), as model providers require"
    /// );
    /// ```
    pub fn renamed(&self, name: impl Into<String>) -> Result<ToolProxy, ToolError> {
        let name = name.into();
        if !crate::is_valid_tool_name(&name) {
            return Err(ToolError::InvalidDefinition {
                tool: name,
                message: super::definition::TOOL_NAME_RULE.into(),
            });
        }
        Ok(self
            .clone()
            .with_definition(|definition| definition.name = name))
    }

    /// The same tool with another description: what the model reads to decide when to call
    /// it (an agent's `prepare` hook adapts it to the step).
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Add two numbers
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let add = add_tool().with_description("Add two numbers; the last step, use it once");
    /// assert_eq!(add.description(), "Add two numbers; the last step, use it once");
    /// ```
    pub fn with_description(self, description: impl Into<String>) -> ToolProxy {
        let description = description.into();
        self.with_definition(|definition| definition.description = description)
    }

    /// A proxy over the same body with its definition changed (its renderings made afresh).
    fn with_definition(self, change: impl FnOnce(&mut ToolDefinition)) -> ToolProxy {
        let mut definition = self.inner.definition.clone();
        change(&mut definition);
        let (handler, typed) = (self.inner.handler.clone(), self.inner.typed.clone());
        let (state, traits) = (self.inner.state.clone(), self.inner.traits);
        ToolProxy::build(definition, handler, typed, state, traits)
    }
}
