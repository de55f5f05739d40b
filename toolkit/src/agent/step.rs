//! The loop: ask the model, run the calls it asked for, feed the results back, until an exit.
//! Running the calls themselves is in `dispatch`.

mod dispatch;

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc::UnboundedSender;
use tracing::Instrument;

use super::approval::{Pending, Resumed, approve};
use super::conversation::{Counted, trim};
use super::journal::{InProcess, Journal, ModelCall};
use super::link::{LinkData, RunLink};
use super::plan::{Plan, Planned, plan};
use super::prepare::offered;
use super::react::{self, ReactReply};
use super::telemetry;
use super::{
    Agent, AgentError, AgentEvent, AgentRun, Decision, ExitCondition, ResumeToken, StepRecord,
    ToolCallRecord,
};
use crate::context::{Cancellation, Data};
use crate::models::{ChatRequest, Message, ModelError, ModelReply, Usage};
use crate::providers::ToolDefinitions;
use crate::state::AgentState;
use crate::{ToolCall, Toolbox};
use toolkit_runtime::within;

/// One run's progress; kept outside the deadline's future so a timed-out run keeps its history.
pub(super) struct Runner<'a> {
    pub(super) agent: &'a Agent,
    pub(super) state: Option<Box<dyn AgentState>>,
    pub(super) history: Vec<Message>,
    steps: Vec<StepRecord>,
    pub(super) usage: Option<Usage>,
    /// Typed answers that did not fit so far.
    pub(super) output_failures: usize,
    /// What the provider last counted of the history, for the context budget.
    counted: Option<Counted>,
    /// When the run's deadline passes, if it has one.
    deadline: Option<Instant>,
    /// The parent of every tool call's context: cancelled at the deadline, and when the run
    /// ends or its future is dropped.
    cancellation: Cancellation,
    /// Where the run's events go (the agent's callback, a stream, the run that called this
    /// one as a tool), and what ties it to that run.
    link: Arc<RunLink>,
    /// Whether anyone listens: events are built only then.
    listens: bool,
    /// The agent's data with the link, which the tools' contexts carry.
    data: Data,
    /// The toolbox of this step's calls, narrowed by the agent's `prepare` hook when it has one.
    offered: Option<Toolbox>,
    /// Where the model and tool calls are made: in process, or journaled.
    pub(super) journal: &'a dyn Journal,
}

/// How a run ended early, before the history is attached.
pub(super) enum Stop {
    MaxSteps,
    Model(usize, ModelError),
    /// The typed answer did not fit, once too often.
    Output(String),
    Paused(Pending),
    /// The run tree's budget is spent.
    Budget(String),
}

impl<'a> Runner<'a> {
    /// A run of its own, its events to the agent's callback and, when streamed, to `stream`
    /// (the model's reply as it arrives included).
    pub(super) fn new(
        agent: &'a Agent,
        state: Option<Box<dyn AgentState>>,
        stream: Option<UnboundedSender<AgentEvent>>,
    ) -> Self {
        let link = RunLink::root(agent.on_event.clone(), stream, agent.budget);
        Self::linked(agent, state, link)
    }

    /// A run tied to `link`: a root's, or one that an agent's tool call started.
    pub(super) fn linked(
        agent: &'a Agent,
        state: Option<Box<dyn AgentState>>,
        link: Arc<RunLink>,
    ) -> Self {
        Runner {
            listens: link.listens(),
            agent,
            state,
            history: Vec::new(),
            steps: Vec::new(),
            usage: None,
            output_failures: 0,
            counted: None,
            deadline: (agent.deadline).and_then(|deadline| Instant::now().checked_add(deadline)),
            cancellation: Cancellation::new(),
            // Over the toolbox's data once here, so no call copies the two into one.
            data: (agent.data.clone().or(agent.toolbox.data())).with(LinkData(Arc::clone(&link))),
            link,
            offered: None,
            journal: &InProcess,
        }
    }

    /// Runs on `input` after `earlier` messages (a conversation's; its system prompt is
    /// replaced by the agent's).
    pub(super) async fn run_after(
        mut self,
        earlier: Vec<Message>,
        input: String,
    ) -> Result<AgentRun, AgentError> {
        let agent = self.agent;
        let system = match (agent.react, &agent.system_prompt) {
            (true, prompt) => {
                let mut prompt = react::system_prompt(prompt.as_deref(), &agent.toolbox);
                prompt.extend(agent.output.as_ref().map(|output| output.react_note()));
                Some(prompt)
            }
            (false, prompt) => prompt.clone(),
        };
        self.history.extend(system.map(Message::system));
        let earlier = earlier.into_iter();
        (self.history).extend(earlier.filter(|m| !matches!(m, Message::System { .. })));
        self.history.push(Message::user(input));
        self.go(None).await
    }

    /// Finishes a paused run's step with `decisions`, then goes on.
    pub(super) async fn resume(
        mut self,
        token: ResumeToken,
        decisions: Vec<Decision>,
    ) -> Result<AgentRun, AgentError> {
        // The paused step's toolbox, as its `prepare` hook chose it before the model's reply
        // (the token's last message), so a resume runs no call the step left out.
        let agent = self.agent;
        let before = token.history().len().saturating_sub(1);
        let state = self.state.as_deref();
        self.offered = offered(agent, token.step(), &token.history()[..before], state);
        let toolbox = self.offered.as_ref().unwrap_or(&agent.toolbox);
        let mut resumed = token.reopen(agent, toolbox, decisions)?;
        self.history = std::mem::take(&mut resumed.history);
        (self.usage, self.output_failures) = (resumed.usage, resumed.output_failures);
        self.go(Some(resumed)).await
    }

    async fn go(mut self, resumed: Option<Resumed>) -> Result<AgentRun, AgentError> {
        // Dropped with this future, or when the run ends: a sync tool still running on the
        // blocking pool then sees `is_cancelled()`.
        let _cancel_tools = self.cancellation.clone().drop_guard();
        let span = telemetry::agent_span(&*self.agent.model);
        let outcome = match self.agent.deadline {
            None => Some(self.drive(resumed).instrument(span.clone()).await),
            Some(deadline) => {
                within(deadline, self.drive(resumed))
                    .instrument(span.clone())
                    .await
            }
        };
        telemetry::record_usage(&span, self.usage);
        if outcome.is_none() {
            self.cancellation.cancel();
        }
        if let Some(nested) = self.link.take_nested_usage() {
            *self.usage.get_or_insert_with(Usage::default) += nested;
        }
        let history = std::mem::take(&mut self.history);
        match outcome {
            Some(Ok(answer)) => Ok(AgentRun {
                answer,
                history,
                steps: self.steps,
                usage: self.usage,
                state: self.state,
            }),
            Some(Err(Stop::MaxSteps)) => Err(AgentError::MaxSteps {
                max_steps: self.agent.max_steps,
                history,
            }),
            Some(Err(Stop::Model(step, error))) => Err(AgentError::Model {
                step,
                error,
                history,
            }),
            Some(Err(Stop::Output(message))) => Err(AgentError::Output {
                attempts: self.output_failures,
                message,
                history,
            }),
            Some(Err(Stop::Budget(message))) => Err(AgentError::Budget { message, history }),
            Some(Err(Stop::Paused(pending))) => {
                let state = self.state.as_ref().map(|state| state.to_json());
                let failures = self.output_failures;
                let token = pending.token(self.agent, history, self.usage, failures, state);
                Err(AgentError::Paused(Box::new(token)))
            }
            None => Err(AgentError::Deadline {
                deadline: self.agent.deadline.unwrap_or_default(),
                history,
            }),
        }
    }

    async fn drive(&mut self, resumed: Option<Resumed>) -> Result<String, Stop> {
        let answer = self.steps_from(resumed).await?;
        self.emit(|| AgentEvent::Answer {
            answer: answer.clone(),
        });
        Ok(answer)
    }

    async fn steps_from(&mut self, resumed: Option<Resumed>) -> Result<String, Stop> {
        let mut first = 1;
        if let Some(resumed) = resumed {
            // A resume token may carry any step; past the last, the run stops at its limit.
            first = resumed.step.saturating_add(1);
            let Resumed {
                step,
                thought,
                planned,
                note,
                ..
            } = resumed;
            let answer = match self.agent.react {
                true => self.finish_react(step, thought, planned).await,
                false => self.finish_calls(step, thought, planned, note).await?,
            };
            if let Some(answer) = answer {
                return Ok(answer);
            }
        }
        for step in first..=self.agent.max_steps {
            let span = tracing::info_span!("agent.step", step);
            let answer = async {
                self.link.budget().model_call().map_err(Stop::Budget)?;
                self.emit(|| AgentEvent::StepStarted { step });
                let reply = self.ask(step).await.map_err(|e| Stop::Model(step, e))?;
                if self.agent.react {
                    self.react_step(step, reply).await
                } else {
                    self.native_step(step, reply).await
                }
            }
            .instrument(span)
            .await?;
            if let Some(answer) = answer {
                return Ok(answer);
            }
        }
        Err(Stop::MaxSteps)
    }

    async fn ask(&mut self, step: usize) -> Result<ModelReply, ModelError> {
        let agent = self.agent;
        self.offered = offered(agent, step, &self.history, self.state.as_deref());
        let tools = match agent.react {
            true => ToolDefinitions::none(),
            false => self.offered.as_ref().unwrap_or(&agent.toolbox).offered(),
        };
        if let Some(budget) = agent.context_budget
            && trim(&mut self.history, budget, self.counted) > 0
        {
            self.counted = None;
        }
        let sent = self.history.len();
        let request = ChatRequest::new(&self.history, tools, &agent.options);
        let span = telemetry::chat_span(step, &*agent.model, &agent.options);
        telemetry::record_input(&span, &self.history, agent.trace_content);
        let link = &self.link;
        let call: ModelCall<'_> = Box::pin(
            async move {
                match link.streams() {
                    false => agent.model.chat(request).await,
                    true => {
                        let deltas = |delta| link.emit_delta(step, delta);
                        agent.model.chat_stream(request, &deltas).await
                    }
                }
            }
            .instrument(span.clone()),
        );
        let reply = self.journal.model_call(step, call).await?;
        // Held to the caps once: by the client as it reads, or here for any other model.
        let reply = match agent.model.caps_replies() {
            true => reply,
            false => reply.capped_by(&agent.options),
        };
        telemetry::record_reply(&span, &reply, agent.trace_content);
        if let Some(usage) = reply.usage {
            *self.usage.get_or_insert_with(Usage::default) += usage;
            let tokens = usage.total();
            self.counted = Some(Counted { sent, tokens });
            self.link.budget().spend_tokens(tokens);
            self.link.roll_up(usage);
        }
        self.emit(|| AgentEvent::ModelReplied {
            step,
            reply: reply.clone(),
        });
        Ok(reply)
    }

    /// A native tool-calling step: the answer, or `None` to go on.
    async fn native_step(
        &mut self,
        step: usize,
        reply: ModelReply,
    ) -> Result<Option<String>, Stop> {
        let ModelReply {
            text,
            tool_calls,
            refused_calls,
            ..
        } = reply;
        let limit = self.agent.max_tool_calls_per_step;
        let Plan {
            calls: planned,
            note,
        } = plan(step, tool_calls, refused_calls, limit);
        let calls: Vec<ToolCall> = planned.iter().map(|p| p.call().clone()).collect();
        self.history
            .push(Message::assistant_calls(text.clone(), calls));
        if planned.is_empty()
            && let Some(note) = note
        {
            // Every call was past a limit of none: the model is told, and asked again.
            self.history.push(Message::user(note));
            self.record(step, text, Vec::new());
            return Ok(None);
        }
        if planned.is_empty() {
            if self.agent.exits.contains(&ExitCondition::Text) {
                self.record(step, text.clone(), Vec::new());
                return self.typed_answer(text.unwrap_or_default(), false);
            }
            self.history.push(Message::user(self.exit_reminder()));
            self.record(step, text, Vec::new());
            return Ok(None);
        }
        let paused = |mut pending: Pending| {
            pending.note = note.clone();
            Stop::Paused(pending)
        };
        let toolbox = self.offered.as_ref().unwrap_or(&self.agent.toolbox);
        let planned = (approve(self.agent, toolbox, step, planned).await).map_err(paused)?;
        self.finish_calls(step, text, planned, note).await
    }

    /// Runs a reply's approved calls and feeds their results back, then the `note` on the
    /// calls left out: the answer, or `None` to go on.
    async fn finish_calls(
        &mut self,
        step: usize,
        text: Option<String>,
        planned: Vec<Planned>,
        note: Option<String>,
    ) -> Result<Option<String>, Stop> {
        let records = self.run_planned(step, planned).await;
        self.history
            .extend(records.iter().map(|record| Message::Tool {
                result: record.result.clone(),
            }));
        // After every result: providers want each call's result right after its reply.
        self.history.extend(note.map(Message::user));
        let (answer, failed) = self.answer_of(&records);
        self.record(step, text, records);
        match (answer, failed) {
            (None, Some(problem)) => self.output_failed(problem).map(|()| None),
            (answer, _) => Ok(answer),
        }
    }

    /// A text ReAct step: the answer, or `None` to go on.
    async fn react_step(&mut self, step: usize, reply: ModelReply) -> Result<Option<String>, Stop> {
        let text = reply.text.unwrap_or_default();
        self.history.push(Message::assistant(text.clone()));
        match react::parse(&text) {
            ReactReply::Finish { thought, answer } => {
                self.record(step, thought, Vec::new());
                self.typed_answer(answer, true)
            }
            ReactReply::Act { thought, call } => {
                let call = call.with_id(format!("react_{step}"));
                let planned = vec![Planned::Run(call)];
                let toolbox = self.offered.as_ref().unwrap_or(&self.agent.toolbox);
                let planned = approve(self.agent, toolbox, step, planned)
                    .await
                    .map_err(Stop::Paused)?;
                Ok(self.finish_react(step, thought, planned).await)
            }
            ReactReply::Malformed(problem) => {
                self.history.push(Message::user(react::malformed(&problem)));
                self.record(step, Some(text), Vec::new());
                Ok(None)
            }
        }
    }

    /// Runs a ReAct step's approved call and feeds back its observation; never an answer.
    async fn finish_react(
        &mut self,
        step: usize,
        thought: Option<String>,
        planned: Vec<Planned>,
    ) -> Option<String> {
        let records = self.run_planned(step, planned).await;
        let observation = records.iter().map(|r| r.result.text()).collect::<String>();
        self.history
            .push(Message::user(react::observation(&observation)));
        self.record(step, thought, records);
        None
    }

    fn record(&mut self, step: usize, thought: Option<String>, calls: Vec<ToolCallRecord>) {
        let record = StepRecord {
            step,
            thought,
            calls,
        };
        self.emit(|| AgentEvent::StepFinished {
            record: record.clone(),
        });
        self.steps.push(record);
    }

    fn exit_reminder(&self) -> String {
        let tools: Vec<&str> = self
            .agent
            .exits
            .iter()
            .filter_map(|exit| match exit {
                ExitCondition::Tool(name) => Some(name.as_str()),
                ExitCondition::Text => None,
            })
            .collect();
        format!(
            "A text reply does not end this task; finish by calling {}.",
            tools.join(" or ")
        )
    }

    /// Passes the event `event` builds on its route, when anyone listens.
    fn emit(&self, event: impl FnOnce() -> AgentEvent) {
        if self.listens {
            self.link.emit(event());
        }
    }
}
