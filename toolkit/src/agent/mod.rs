//! Agents that run: a bounded loop that asks a [`ChatModel`], runs the tools it calls and feeds
//! the results back until the model answers.
//!
//! - [`Agent`] / [`AgentBuilder`]: the model, toolbox, system prompt, step limit, exit
//!   conditions, tool choice, parallel calls, deadline and event callback;
//! - [`AgentRun`]: the answer, history, trajectory ([`StepRecord`]s), usage and final state;
//! - [`AgentError`]: the step limit, the deadline or a model failure, with the history so far;
//! - [`AgentEvent`]: live progress, the tools' own progress and logs included;
//! - [`TypedAgent`]: answers of a type, from [`AgentBuilder::output`];
//! - [`Conversation`]: a history carried across runs ([`Agent::run_in`]), within
//!   [`AgentBuilder::context_budget`];
//! - human approval: [`ApprovalPolicy`], [`AgentBuilder::on_approval`], and a paused run's
//!   [`ResumeToken`] resumed with [`Agent::resume`].
//! - [`Agent::into_tool`]: the agent as a tool of another agent or an MCP server, its events,
//!   steps and tokens rolling up to the caller, bounded by [`AgentBuilder::max_depth`];
//! - [`AgentBuilder::prepare`]: the tools each model call offers, chosen per step
//!   ([`PrepareContext`]).
//!
//! A tool that takes a [`ToolContext`](crate::ToolContext) runs in the agent's scope: its
//! `progress` and `log` become [`AgentEvent::ToolProgress`] and [`AgentEvent::ToolLog`], its
//! `sample` asks the agent's model (or [`AgentBuilder::sampling_model`]), its `elicit` goes to
//! [`AgentBuilder::on_elicit`] (declined without one), its `data` is [`AgentBuilder::data`]'s,
//! and it is cancelled when the run hits its deadline or is dropped.
//!
//! With [`AgentBuilder::react`] the tools are rendered into the prompt and the model answers
//! in DSPy.rb's JSON (`thought`, `action`, `action_input`), for models without tool calling.
//!
//! The rest of this page is the repository's `docs/agent.md`.
//!
#![doc = include_str!("../../docs/agent.md")]

mod approval;
mod as_tool;
mod calls;
mod conversation;
mod events;
mod host;
mod link;
mod output;
mod plan;
mod prepare;
mod react;
mod run;
mod step;
mod stream;
mod telemetry;

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

pub use approval::{ApprovalPolicy, ApprovalRequest, Decision, ResumeToken, Verdict};
pub use conversation::Conversation;
pub use events::AgentEvent;
pub use output::TypedAgent;
pub use prepare::PrepareContext;
pub use run::{AgentError, AgentRun, StepRecord, ToolCallRecord};
pub use stream::{RunEvent, RunStream};

use crate::context::{Data, ElicitationAnswer, ElicitationRequest};
use crate::models::{BoxFuture, ChatModel, ChatOptions, ToolChoice};
use crate::state::AgentState;
use crate::{ToolProxy, Toolbox};

type EventFn = dyn Fn(&AgentEvent<'_>) + Send + Sync;
type ElicitFn = dyn Fn(ElicitationRequest) -> BoxFuture<'static, ElicitationAnswer> + Send + Sync;

/// What ends a run with an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExitCondition {
    /// A reply with text and no tool calls; the text is the answer.
    Text,
    /// A successful call of this tool; its result (as text) is the answer.
    Tool(String),
}

/// A bounded tool-calling loop over a model and a toolbox; build one with [`Agent::builder`].
///
/// ```
/// use toolkit::agent::Agent;
/// use toolkit::models::{ModelReply, ScriptedModel};
/// use toolkit::prelude::*;
///
/// #[derive(Default)]
/// struct Maths;
///
/// #[toolset(name = "maths")]
/// impl Maths {
///     /// Add two numbers
///     #[tool]
///     fn add(&self, a: i64, b: i64) -> i64 {
///         a + b
///     }
/// }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let model = ScriptedModel::new([
///     ModelReply::calls([ToolCall::new("maths_add", json!({"a": 2, "b": 3}))]),
///     ModelReply::text("2 + 3 = 5"),
/// ]);
/// let toolbox = Toolbox::builder().toolset::<Maths>().build().unwrap();
/// let agent = Agent::builder(model).toolbox(toolbox).max_steps(4).build();
/// let run = agent.run("What is 2 + 3?").await.unwrap();
/// assert_eq!(run.answer, "2 + 3 = 5");
/// assert_eq!(run.tool_calls().next().unwrap().result.value, json!(5));
/// # });
/// ```
pub struct Agent {
    model: Arc<dyn ChatModel>,
    toolbox: Toolbox,
    system_prompt: Option<String>,
    max_steps: usize,
    exits: Vec<ExitCondition>,
    options: ChatOptions,
    deadline: Option<Duration>,
    max_tool_calls_per_step: usize,
    react: bool,
    on_event: Option<Arc<EventFn>>,
    /// The model a tool's `sample` asks, when not the agent's own.
    sampling_model: Option<Arc<dyn ChatModel>>,
    on_elicit: Option<Arc<ElicitFn>>,
    data: Data,
    /// The typed answer's shape and checker, when built with `output::<T>()`.
    output: Option<Arc<output::Output>>,
    max_output_retries: usize,
    /// The most tokens the history sent to the model may hold (see `context_budget`).
    context_budget: Option<usize>,
    approval: approval::Approval,
    /// Whether spans carry message content (`gen_ai.input.messages`, ...).
    trace_content: bool,
    /// How many agents deep a run of this agent as a tool may be.
    max_depth: usize,
    prepare: Option<Arc<prepare::PrepareFn>>,
}

impl Agent {
    /// The step limit unless told otherwise.
    pub const DEFAULT_MAX_STEPS: usize = 20;

    /// The most calls of one reply that run unless told otherwise. Models ask for a handful of
    /// parallel calls, and OpenAI takes at most 128 tools per request, so 64 leaves room for a
    /// wide fan-out while one reply can no longer start thousands of calls.
    pub const DEFAULT_MAX_TOOL_CALLS_PER_STEP: usize = 64;

    /// How many invalid typed answers the model may give before the run fails, unless told
    /// otherwise (Pydantic AI's default retry count).
    pub const DEFAULT_MAX_OUTPUT_RETRIES: usize = 1;

    /// A builder for an agent over `model`, with no tools yet.
    pub fn builder(model: impl ChatModel + 'static) -> AgentBuilder {
        AgentBuilder {
            answer: PhantomData,
            agent: Agent {
                model: Arc::new(model),
                toolbox: Toolbox::default(),
                system_prompt: None,
                max_steps: Self::DEFAULT_MAX_STEPS,
                exits: vec![ExitCondition::Text],
                options: ChatOptions::default(),
                deadline: None,
                max_tool_calls_per_step: Self::DEFAULT_MAX_TOOL_CALLS_PER_STEP,
                react: false,
                on_event: None,
                sampling_model: None,
                on_elicit: None,
                data: Data::new(),
                output: None,
                max_output_retries: Self::DEFAULT_MAX_OUTPUT_RETRIES,
                context_budget: None,
                approval: approval::Approval::default(),
                trace_content: false,
                max_depth: Self::DEFAULT_MAX_AGENT_DEPTH,
                prepare: None,
            },
        }
    }

    /// Runs the agent on `input` until an exit condition, the step limit or the deadline.
    ///
    /// Dropping the returned future stops the run, and any tool calls in flight with it: their
    /// contexts are cancelled (a sync tool on the blocking pool sees `is_cancelled()`, an async
    /// tool's future is dropped).
    pub async fn run(&self, input: impl Into<String>) -> Result<AgentRun, AgentError> {
        step::Runner::new(self, None).run(input.into()).await
    }

    /// Runs the agent on `input` as [`run`](Self::run) does, as a stream of [`RunEvent`]s
    /// arriving as they happen: the model's text and tool calls as it writes them (through
    /// [`ChatModel::chat_stream`]; the HTTP clients stream whatever their `streaming`
    /// setting), each tool call's start, progress, logs and end, each step's end, and last the
    /// [`RunEvent::Answer`] (or the [`AgentError`]). The agent's own
    /// [`on_event`](AgentBuilder::on_event) callback still sees every event.
    ///
    /// The run goes on only while the stream is polled. Dropping the stream stops the run,
    /// and any tool calls in flight with it: their contexts are cancelled.
    ///
    /// ```
    /// use futures::StreamExt;
    /// use toolkit::agent::{Agent, RunEvent};
    /// use toolkit::models::{ModelReply, ScriptedModel};
    /// use toolkit::prelude::*;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let model = ScriptedModel::new([
    ///     ModelReply::calls([ToolCall::new("missing", json!({}))]),
    ///     ModelReply::text("done"),
    /// ]);
    /// let agent = Agent::builder(model).build();
    /// let mut stream = agent.run_stream("go");
    /// let mut text = String::new();
    /// while let Some(event) = stream.next().await {
    ///     match event.unwrap() {
    ///         RunEvent::TextDelta { text: piece, .. } => text.push_str(&piece),
    ///         RunEvent::Answer { answer, .. } => assert_eq!(answer, json!("done")),
    ///         _ => {}
    ///     }
    /// }
    /// assert_eq!(text, "done");
    /// # });
    /// ```
    pub fn run_stream(&self, input: impl Into<String>) -> RunStream<'_> {
        let (sender, events) = tokio::sync::mpsc::unbounded_channel();
        let runner = step::Runner::streamed(self, None, sender);
        RunStream::new(Box::pin(runner.run(input.into())), events)
    }

    /// Runs the agent on `input` with `state`: tools wired to state read from and write to it
    /// (through [`Toolbox::call_all_with_state`]), and [`AgentRun::state`] holds it afterwards.
    pub async fn run_with_state(
        &self,
        input: impl Into<String>,
        state: Box<dyn AgentState>,
    ) -> Result<AgentRun, AgentError> {
        step::Runner::new(self, Some(state)).run(input.into()).await
    }

    /// Runs the agent on `input` after the messages of `conversation`, and on success leaves
    /// the run's history and usage in it for the next run (see [`Conversation`]). A run that
    /// fails or pauses leaves the conversation as it was.
    pub async fn run_in(
        &self,
        conversation: &mut Conversation,
        input: impl Into<String>,
    ) -> Result<AgentRun, AgentError> {
        let run = step::Runner::new(self, None)
            .run_after(conversation.messages.clone(), input.into())
            .await?;
        conversation.record(&run);
        Ok(run)
    }

    /// Resumes a run paused for approval ([`AgentError::Paused`]) with a [`Decision`] for
    /// each pending call: the approved calls run, the denied ones reach the model as an error
    /// result, and the run goes on. A call that needs approval and has no decision matching it
    /// exactly (id, tool and arguments) stops the resume with [`AgentError::Resume`], which
    /// gives the token back: the call
    /// never runs.
    pub async fn resume(
        &self,
        token: ResumeToken,
        decisions: impl IntoIterator<Item = Decision>,
    ) -> Result<AgentRun, AgentError> {
        let decisions = decisions.into_iter().collect();
        step::Runner::new(self, None).resume(token, decisions).await
    }

    /// Resumes a paused run that ran with state (see [`resume`](Self::resume)): `state` is
    /// rebuilt by the caller, from [`ResumeToken::state`] or its own store.
    pub async fn resume_with_state(
        &self,
        token: ResumeToken,
        decisions: impl IntoIterator<Item = Decision>,
        state: Box<dyn AgentState>,
    ) -> Result<AgentRun, AgentError> {
        let decisions = decisions.into_iter().collect();
        step::Runner::new(self, Some(state))
            .resume(token, decisions)
            .await
    }

    /// The toolbox the agent calls.
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }
}

/// Configures an [`Agent`]; made by [`Agent::builder`]. `A` is what [`build`](Self::build)
/// gives: an [`Agent`], or a [`TypedAgent`] after [`output`](Self::output).
pub struct AgentBuilder<A = Agent> {
    agent: Agent,
    answer: PhantomData<fn() -> A>,
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
    /// [`Agent::DEFAULT_MAX_TOOL_CALLS_PER_STEP`]); each call past it is answered with an error
    /// result telling the model to ask again.
    ///
    /// ```
    /// use toolkit::agent::Agent;
    /// use toolkit::models::{ModelReply, ScriptedModel};
    /// use toolkit::prelude::*;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let calls = (0..3).map(|n| ToolCall::new("missing", json!({"n": n})));
    /// let model = ScriptedModel::new([ModelReply::calls(calls), ModelReply::text("done")]);
    /// let run = Agent::builder(model).max_tool_calls_per_step(2).build().run("go").await.unwrap();
    /// let results: Vec<String> = run.tool_calls().map(|c| c.result.text()).collect();
    /// assert!(results[2].starts_with("Error: could not read a tool call: not run: the reply \
    ///     asked for 3 tool calls and at most 2 run in one step"));
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
    pub fn on_event(mut self, callback: impl Fn(&AgentEvent<'_>) + Send + Sync + 'static) -> Self {
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
    /// toolbox's tools, and returns the tools this step offers. Dropping a tool hides it for
    /// the step, and a call to a tool not offered is answered with an error result naming the
    /// tools that are. Edit a tool's description with [`ToolProxy::with_description`]; rename
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
    ///     "Error: the call to wipe was refused: it is not offered at step 1; \
    ///      the tools offered are: none"
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
