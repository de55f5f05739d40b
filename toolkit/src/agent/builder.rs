//! [`AgentBuilder`]: the settings of an [`Agent`] (model options, limits, callbacks, data,
//! the prepare hook) and [`build`](AgentBuilder::build). The settings that belong to one
//! feature live with it: [`output`](AgentBuilder::output) in `output`, approval in `approval`,
//! the context budget in `conversation`.

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use super::{Agent, AgentEvent, ExitCondition, PrepareContext, output};
use crate::context::{Data, ElicitationAnswer, ElicitationRequest};
use crate::models::{ChatModel, ToolChoice};
use crate::{ToolProxy, Toolbox};

// Named only by the docs' links, which read as they did in `mod.rs`.
#[cfg(doc)]
use {super::AgentError, super::TypedAgent, crate::models::ChatOptions};

/// Configures an [`Agent`]; made by [`Agent::builder`]. `A` is what [`build`](Self::build)
/// gives: an [`Agent`], or a [`TypedAgent`] after [`output`](Self::output).
pub struct AgentBuilder<A = Agent> {
    // Seen by `Agent::builder` and by `output`, which swaps the answer type.
    pub(super) agent: Agent,
    pub(super) answer: PhantomData<fn() -> A>,
}

impl<A: output::Built> AgentBuilder<A> {
    /// The tools the model may call.
    pub fn toolbox(mut self, toolbox: Toolbox) -> Self {
        self.agent.toolbox = toolbox;
        self
    }

    /// The system prompt, sent before the conversation.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.agent.system_prompt = Some(prompt.into());
        self
    }

    /// The most model calls a run makes.
    pub fn max_steps(mut self, max_steps: usize) -> Self {
        self.agent.max_steps = max_steps;
        self
    }

    /// What ends a run; replaces the default, a plain text answer.
    pub fn exit_conditions(mut self, exits: impl IntoIterator<Item = ExitCondition>) -> Self {
        self.agent.exits = exits.into_iter().collect();
        self
    }

    /// Which tools the model may or must call.
    pub fn tool_choice(mut self, choice: ToolChoice) -> Self {
        self.agent.options.tool_choice = choice;
        self
    }

    /// Whether one reply may hold several tool calls, run concurrently (default: yes). When
    /// not, the calls of a reply run one after another.
    pub fn parallel_tool_calls(mut self, parallel: bool) -> Self {
        self.agent.options.parallel_tool_calls = parallel;
        self
    }

    /// Sampling temperature and token limit of every model call.
    pub fn sampling(mut self, temperature: Option<f32>, max_tokens: Option<u32>) -> Self {
        self.agent.options.temperature = temperature;
        self.agent.options.max_tokens = max_tokens;
        self
    }

    /// The most time a run may take; past it the run stops with [`AgentError::Deadline`] and
    /// the contexts of the tool calls in flight are cancelled. Each tool call gets what is left
    /// of it as its timeout (when shorter than its own), so a sync tool runs where the loop can
    /// stop waiting for it.
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.agent.deadline = Some(deadline);
        self
    }

    /// The most calls of one reply that run (default
    /// [`Agent::DEFAULT_MAX_TOOL_CALLS_PER_STEP`]). The calls past it are left out of the
    /// history (and of [`AgentRun::steps`](super::AgentRun::steps)): the reply goes back with
    /// the calls that ran, their results, and one user message telling the model how many were
    /// left out and to ask again, so a reply of thousands of calls does not grow every later
    /// request.
    ///
    /// ```
    /// use toolkit::agent::Agent;
    /// use toolkit::models::{Message, ModelReply, ScriptedModel};
    /// use toolkit::prelude::*;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let calls = (0..3).map(|n| ToolCall::new("missing", json!({"n": n})));
    /// let model = ScriptedModel::new([ModelReply::calls(calls), ModelReply::text("done")]);
    /// let run = Agent::builder(model).max_tool_calls_per_step(2).build().run("go").await.unwrap();
    /// assert_eq!(run.tool_calls().count(), 2);
    /// let Message::User { content } = &run.history[4] else { panic!() };
    /// assert!(content.starts_with("Not run: your reply asked for 3 tool calls and at most 2"));
    /// # });
    /// ```
    pub fn max_tool_calls_per_step(mut self, limit: usize) -> Self {
        self.agent.max_tool_calls_per_step = limit;
        self
    }

    /// The most bytes of text one reply keeps (default
    /// [`ChatOptions::DEFAULT_MAX_TEXT_BYTES`]); past it the text is cut, with a note.
    pub fn max_text_bytes(mut self, bytes: usize) -> Self {
        self.agent.options.max_text_bytes = bytes;
        self
    }

    /// The most bytes one call's arguments may take (default
    /// [`ChatOptions::DEFAULT_MAX_ARGUMENT_BYTES`]); a call past it is answered with an error
    /// result naming the size, and goes back to the server without its arguments.
    pub fn max_argument_bytes(mut self, bytes: usize) -> Self {
        self.agent.options.max_argument_bytes = bytes;
        self
    }

    /// Text ReAct, for models without native tool calling: tools in the prompt, JSON replies.
    pub fn react(mut self) -> Self {
        self.agent.react = true;
        self
    }

    /// Called with every [`AgentEvent`] as it happens.
    pub fn on_event(mut self, callback: impl Fn(&AgentEvent) + Send + Sync + 'static) -> Self {
        self.agent.on_event = Some(Arc::new(callback));
        self
    }

    /// Whether the run's spans carry message content (default: no): the messages sent to the
    /// model (`gen_ai.input.messages`) and its reply (`gen_ai.output.messages`), in the shape
    /// of OpenTelemetry's GenAI conventions. They hold what users, tools and the model said,
    /// so they are only recorded when the application asks. Every other attribute
    /// (`gen_ai.operation.name`, `gen_ai.request.model`, `gen_ai.provider.name`,
    /// `gen_ai.usage.*`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, ...) is always recorded.
    ///
    /// ```
    /// use toolkit::agent::Agent;
    /// use toolkit::models::{ModelReply, ScriptedModel};
    ///
    /// let agent = Agent::builder(ScriptedModel::new([ModelReply::text("hi")]))
    ///     .trace_content(true)
    ///     .build();
    /// # let _ = agent;
    /// ```
    pub fn trace_content(mut self, content: bool) -> Self {
        self.agent.trace_content = content;
        self
    }

    /// Application data the tools read with [`ToolContext::data`](crate::ToolContext::data)
    /// (Pydantic AI's deps). Where it has no value of a type, the toolbox's data is read.
    ///
    /// ```
    /// use toolkit::agent::Agent;
    /// use toolkit::context::Data;
    /// use toolkit::models::{ModelReply, ScriptedModel};
    /// use toolkit::prelude::*;
    ///
    /// struct Db(&'static str);
    ///
    /// let tool = ToolBuilder::new("db_name")
    ///     .description("The database's name")
    ///     .build_with_context(|_args, ctx| Ok::<_, String>(ctx.data::<Db>().map(|db| db.0)))
    ///     .unwrap();
    /// let model = ScriptedModel::new([
    ///     ModelReply::calls([ToolCall::new("db_name", json!({}))]),
    ///     ModelReply::text("done"),
    /// ]);
    /// let agent = Agent::builder(model)
    ///     .toolbox(Toolbox::builder().tool(tool).build().unwrap())
    ///     .data(Data::new().with(Db("orders")))
    ///     .build();
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let run = agent.run("which database?").await.unwrap();
    /// assert_eq!(run.tool_calls().next().unwrap().result.value, json!("orders"));
    /// # });
    /// ```
    pub fn data(mut self, data: Data) -> Self {
        self.agent.data = data;
        self
    }

    /// The model a tool's [`sample`](crate::ToolContext::sample) asks (default: the agent's
    /// own). It is sent the request's system prompt and text messages, no tools, and the
    /// request's token bound and temperature.
    pub fn sampling_model(mut self, model: impl ChatModel + 'static) -> Self {
        self.agent.sampling_model = Some(Arc::new(model));
        self
    }

    /// Answers a tool's [`elicit`](crate::ToolContext::elicit): `handler` gets the question
    /// (message and the answer's JSON Schema) and returns the user's answer. Without a
    /// handler every question is declined: no user is there to agree.
    ///
    /// ```
    /// use toolkit::agent::Agent;
    /// use toolkit::context::ElicitationAnswer;
    /// use toolkit::models::{ModelReply, ScriptedModel};
    /// use toolkit::prelude::*;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Confirm {
    ///     confirm: bool,
    /// }
    ///
    /// let tool = ToolBuilder::new("delete")
    ///     .description("Delete the notes, once the user agrees")
    ///     .build_async_with_context(|_args, ctx| async move {
    ///         match ctx.elicit::<Confirm>("Delete the notes?").await {
    ///             Ok(Elicited::Accepted(answer)) if answer.confirm => Ok("deleted"),
    ///             Ok(_) => Ok("kept"),
    ///             Err(err) => Err(err.to_string()),
    ///         }
    ///     })
    ///     .unwrap();
    /// let model = ScriptedModel::new([
    ///     ModelReply::calls([ToolCall::new("delete", json!({}))]),
    ///     ModelReply::text("done"),
    /// ]);
    /// let agent = Agent::builder(model)
    ///     .toolbox(Toolbox::builder().tool(tool).build().unwrap())
    ///     .on_elicit(|request| async move {
    ///         println!("the tool asks: {}", request.message);
    ///         ElicitationAnswer::Accept(json!({"confirm": true}))
    ///     })
    ///     .build();
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let run = agent.run("clean up").await.unwrap();
    /// assert_eq!(run.tool_calls().next().unwrap().result.value, json!("deleted"));
    /// # });
    /// ```
    pub fn on_elicit<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitationRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitationAnswer> + Send + 'static,
    {
        self.agent.on_elicit = Some(Arc::new(move |request| Box::pin(handler(request))));
        self
    }

    /// How many agents deep a run of this agent may be when it is called as a tool
    /// ([`Agent::into_tool`]; default [`Agent::DEFAULT_MAX_AGENT_DEPTH`]). A call that would
    /// start it deeper is answered with an error result instead, which is what stops an agent
    /// that calls itself, directly or through others.
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.agent.max_depth = depth;
        self
    }

    /// Chooses or edits the tools offered before each model call (Pydantic AI's prepared
    /// toolsets): `hook` gets the step, the messages, the state and the data, and the
    /// toolbox's tools, and returns the tools this step offers: the step's own toolbox
    /// ([`Toolbox::with_tools`]), which its calls go through. Dropping a tool hides it for the
    /// step, and a call to a tool not offered is refused by that toolbox with an error result
    /// naming the tools it holds. Edit a tool's description with [`ToolProxy::with_description`]; rename
    /// tools on the toolbox ([`Toolbox::renamed`]), where calls are dispatched by name.
    ///
    /// ```
    /// use toolkit::agent::Agent;
    /// use toolkit::models::{ModelReply, ScriptedModel};
    /// use toolkit::prelude::*;
    ///
    /// /// Delete everything
    /// #[tool]
    /// fn wipe() -> &'static str {
    ///     "wiped"
    /// }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let model = ScriptedModel::new([
    ///     ModelReply::calls([ToolCall::new("wipe", json!({}))]),
    ///     ModelReply::text("I may not."),
    /// ]);
    /// let agent = Agent::builder(model)
    ///     .toolbox(Toolbox::builder().tool(wipe_tool()).build().unwrap())
    ///     // Nothing destructive before the user has said a second thing.
    ///     .prepare(|ctx, tools| match ctx.messages.len() < 4 {
    ///         true => tools.into_iter().filter(|t| t.name() != "wipe").collect(),
    ///         false => tools,
    ///     })
    ///     .build();
    /// let run = agent.run("wipe it").await.unwrap();
    /// assert_eq!(
    ///     run.tool_calls().next().unwrap().result.text(),
    ///     "Error: Unknown tool: wipe. Available: "
    /// );
    /// # });
    /// ```
    pub fn prepare<F>(mut self, hook: F) -> Self
    where
        F: Fn(&PrepareContext<'_>, Vec<ToolProxy>) -> Vec<ToolProxy> + Send + Sync + 'static,
    {
        self.agent.prepare = Some(Arc::new(hook));
        self
    }

    /// The agent: an [`Agent`], or a [`TypedAgent`] after [`output`](Self::output).
    pub fn build(self) -> A {
        let mut agent = self.agent;
        output::settle(&mut agent);
        A::from_agent(agent)
    }
}
