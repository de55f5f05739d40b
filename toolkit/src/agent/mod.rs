//! Agents that run: a bounded loop that asks a [`ChatModel`], runs the tools it calls and feeds
//! the results back until the model answers.
//!
//! - [`Agent`] / [`AgentBuilder`]: the model, toolbox, system prompt, step limit, exit
//!   conditions, tool choice, parallel calls, deadline and event callback;
//! - [`RunRequest`]: the one way to run, from [`Agent::run`] or [`Agent::resume`], with
//!   state, a conversation or as a stream ([`RunStream`]), in any combination;
//! - [`AgentRun`]: the answer, history, trajectory ([`StepRecord`]s), usage and final state;
//! - [`AgentError`]: the step limit, the deadline or a model failure, with the history so far;
//! - [`AgentEvent`]: live progress, the tools' own progress and logs and the events of agents
//!   called as tools included, to the callback and the stream alike;
//! - [`TypedAgent`]: answers of a type, from [`AgentBuilder::output`];
//! - [`Conversation`]: a history carried across runs ([`RunRequest::conversation`]), within
//!   [`AgentBuilder::context_budget`];
//! - human approval: [`ApprovalPolicy`], [`AgentBuilder::on_approval`], and a paused run's
//!   [`ResumeToken`] resumed with [`Agent::resume`].
//! - [`Agent::into_tool`]: the agent as a tool of another agent or an MCP server, its events,
//!   steps and tokens rolling up to the caller, bounded in depth by
//!   [`AgentBuilder::max_depth`] and in breadth by one [`RunBudget`] shared by the whole tree;
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
mod budget;
mod builder;
mod calls;
mod conversation;
mod events;
mod host;
pub(crate) mod journal;
mod link;
mod output;
mod plan;
mod prepare;
mod react;
mod request;
mod run;
mod step;
mod stream;
mod telemetry;

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

pub use approval::{ApprovalPolicy, ApprovalRequest, Decision, ResumeToken, Verdict};
pub use budget::RunBudget;
pub use builder::AgentBuilder;
pub use conversation::Conversation;
pub use events::AgentEvent;
pub use output::TypedAgent;
pub use prepare::PrepareContext;
pub use request::RunRequest;
pub use run::{AgentError, AgentRun, StepRecord, ToolCallRecord};
pub use stream::{RunStream, StreamItem};

use crate::Toolbox;
use crate::context::{Data, ElicitationAnswer, ElicitationRequest};
use crate::models::{BoxFuture, ChatModel, ChatOptions};

type EventFn = dyn Fn(&AgentEvent) + Send + Sync;
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
    /// What a run and the agents it calls as tools may spend together.
    budget: RunBudget,
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
                budget: RunBudget::default(),
            },
        }
    }

    /// A run of the agent on `input`: await it for the [`AgentRun`], or set it up first with
    /// [`state`](RunRequest::state), [`conversation`](RunRequest::conversation) or
    /// [`stream`](RunRequest::stream) (see [`RunRequest`]).
    pub fn run(&self, input: impl Into<String>) -> RunRequest<'_> {
        RunRequest::new(self, input.into(), request::untyped)
    }

    /// A resume of a run paused for approval ([`AgentError::Paused`]) with a [`Decision`] for
    /// each pending call: the approved calls run, the denied ones reach the model as an error
    /// result, and the run goes on; set it up and await it as [`run`](Self::run)'s (a run that
    /// had state is given it again with [`RunRequest::state`]). A call that needs approval and
    /// has no decision matching it exactly (id, tool and arguments) stops the resume with
    /// [`AgentError::Resume`], which gives the token back: the call never runs. So does a
    /// token whose paused step repeats a call id or has more calls to run than
    /// [`max_tool_calls_per_step`](AgentBuilder::max_tool_calls_per_step): one decision runs
    /// one call at most.
    pub fn resume(
        &self,
        token: ResumeToken,
        decisions: impl IntoIterator<Item = Decision>,
    ) -> RunRequest<'_> {
        let decisions = decisions.into_iter().collect();
        RunRequest::resuming(self, token, decisions, request::untyped)
    }

    /// The toolbox the agent calls.
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }
}
