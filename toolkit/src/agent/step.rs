//! The loop: ask the model, run the calls it asked for, feed the results back, until an exit.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tracing::Instrument;

use super::host::AgentHost;
use super::link::{LinkData, RunLink};
use super::plan::{Planned, plan};
use super::prepare::Offered;
use super::react::{self, ReactReply};
use super::{Agent, AgentError, AgentEvent, AgentRun, ExitCondition, StepRecord, ToolCallRecord};
use crate::context::{CallScope, Cancellation, Data};
use crate::models::{ChatRequest, Message, ModelError, ModelReply, Usage};
use crate::providers::ToolDefinitions;
use crate::state::AgentState;
use crate::{ToolCall, ToolCallResult, Toolbox};

/// One run's progress; kept outside the deadline's future so a timed-out run keeps its history.
pub(super) struct Runner<'a> {
    agent: &'a Agent,
    state: Option<Box<dyn AgentState>>,
    history: Vec<Message>,
    steps: Vec<StepRecord>,
    usage: Option<Usage>,
    /// When the run's deadline passes, if it has one.
    deadline: Option<Instant>,
    /// The parent of every tool call's context: cancelled at the deadline, and when the run
    /// ends or its future is dropped.
    cancellation: Cancellation,
    /// Where the run's events go, and what ties it to the run that called it as a tool.
    link: Arc<RunLink>,
    /// The agent's data with the link, which the tools' contexts carry.
    data: Data,
    /// The tools offered at this step, when the agent prepares them.
    offered: Option<Offered>,
}

/// How a run ended early, before the history is attached.
enum Stop {
    MaxSteps,
    Model(usize, ModelError),
}

impl<'a> Runner<'a> {
    pub(super) fn new(agent: &'a Agent, state: Option<Box<dyn AgentState>>) -> Self {
        Self::linked(agent, state, RunLink::root(agent.on_event.clone()))
    }

    /// A run tied to `link`: one that an agent's tool call started.
    pub(super) fn linked(
        agent: &'a Agent,
        state: Option<Box<dyn AgentState>>,
        link: Arc<RunLink>,
    ) -> Self {
        Runner {
            agent,
            state,
            history: Vec::new(),
            steps: Vec::new(),
            usage: None,
            deadline: agent.deadline.map(|deadline| Instant::now() + deadline),
            cancellation: Cancellation::new(),
            // Over the toolbox's data once here, so no call copies the two into one.
            data: (agent.data.clone().or(agent.toolbox.data())).with(LinkData(Arc::clone(&link))),
            link,
            offered: None,
        }
    }

    pub(super) async fn run(mut self, input: String) -> Result<AgentRun, AgentError> {
        let system = match (self.agent.react, &self.agent.system_prompt) {
            (true, prompt) => Some(react::system_prompt(prompt.as_deref(), &self.agent.toolbox)),
            (false, prompt) => prompt.clone(),
        };
        self.history.extend(system.map(Message::system));
        self.history.push(Message::user(input));
        // Dropped with this future, or when the run ends: a sync tool still running on the
        // blocking pool then sees `is_cancelled()`.
        let _cancel_tools = self.cancellation.clone().drop_guard();
        let outcome = match self.agent.deadline {
            None => Some(self.drive().await),
            Some(deadline) => tokio::time::timeout(deadline, self.drive()).await.ok(),
        };
        if outcome.is_none() {
            self.cancellation.cancel();
        }
        if let Some(nested) = self.link.take_nested_usage() {
            *self.usage.get_or_insert_with(Usage::default) += nested;
        }
        let history = self.history;
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
            None => Err(AgentError::Deadline {
                deadline: self.agent.deadline.unwrap_or_default(),
                history,
            }),
        }
    }

    async fn drive(&mut self) -> Result<String, Stop> {
        for step in 1..=self.agent.max_steps {
            let span = tracing::info_span!("agent.step", step);
            let answer = async {
                self.emit(AgentEvent::StepStarted { step });
                let reply = self.ask(step).await.map_err(|e| Stop::Model(step, e))?;
                if self.agent.react {
                    Ok(self.react_step(step, reply).await)
                } else {
                    Ok(self.native_step(step, reply).await)
                }
            }
            .instrument(span)
            .await?;
            if let Some(answer) = answer {
                self.emit(AgentEvent::Answer { answer: &answer });
                return Ok(answer);
            }
        }
        Err(Stop::MaxSteps)
    }

    async fn ask(&mut self, step: usize) -> Result<ModelReply, ModelError> {
        let agent = self.agent;
        self.offered = Offered::prepare(agent, step, &self.history, self.state.as_deref());
        let tools = match (&self.offered, agent.react) {
            (_, true) => ToolDefinitions::none(),
            (Some(offered), false) => offered.definitions(),
            (None, false) => agent.toolbox.offered(),
        };
        let request = ChatRequest::new(&self.history, tools, &agent.options);
        let span = tracing::info_span!("agent.model_call", step, model = agent.model.name());
        let reply = agent.model.chat(request).instrument(span).await?;
        // Any model's reply, not only a client's stream, is held to the caps.
        let reply = reply.capped_by(&agent.options);
        if let Some(usage) = reply.usage {
            *self.usage.get_or_insert_with(Usage::default) += usage;
            self.link.roll_up(usage);
        }
        self.emit(AgentEvent::ModelReplied {
            step,
            reply: &reply,
        });
        Ok(reply)
    }

    /// A native tool-calling step: the answer, or `None` to go on.
    async fn native_step(&mut self, step: usize, reply: ModelReply) -> Option<String> {
        let ModelReply {
            text,
            tool_calls,
            refused_calls,
            ..
        } = reply;
        let limit = self.agent.max_tool_calls_per_step;
        let mut planned = plan(step, tool_calls, refused_calls, limit);
        if let Some(offered) = &self.offered {
            offered.refuse_others(step, &mut planned);
        }
        let calls: Vec<ToolCall> = planned.iter().map(|p| p.call().clone()).collect();
        self.history
            .push(Message::assistant_calls(text.clone(), calls));
        if planned.is_empty() {
            if self.agent.exits.contains(&ExitCondition::Text) {
                self.record(step, text.clone(), Vec::new());
                return Some(text.unwrap_or_default());
            }
            self.history.push(Message::user(self.exit_reminder()));
            self.record(step, text, Vec::new());
            return None;
        }
        let records = self.run_planned(step, planned).await;
        self.history
            .extend(records.iter().map(|record| Message::Tool {
                result: record.result.clone(),
            }));
        let answer = records.iter().find_map(|record| {
            let exits = ExitCondition::Tool(record.call.name.clone());
            (!record.is_error() && self.agent.exits.contains(&exits)).then(|| record.result.text())
        });
        self.record(step, text, records);
        answer
    }

    /// Runs the calls that run, answers the others with their error, and returns every record
    /// in the reply's order.
    async fn run_planned(&mut self, step: usize, planned: Vec<Planned>) -> Vec<ToolCallRecord> {
        let mut runs = Vec::with_capacity(planned.len());
        let mut refused = Vec::new();
        for planned in planned {
            match planned {
                Planned::Run(call) => runs.push(call),
                Planned::Refuse(call) => refused.push((call.answer(), call.call)),
                Planned::Reject(call, result) => refused.push((result, call)),
            }
        }
        let mut records = self.run_calls(step, runs).await;
        for (result, call) in refused {
            let record = ToolCallRecord {
                result,
                call,
                duration: Duration::ZERO,
            };
            self.emit(AgentEvent::ToolFinished {
                step,
                record: &record,
            });
            records.push(record);
        }
        records
    }

    /// A text ReAct step: the answer, or `None` to go on.
    async fn react_step(&mut self, step: usize, reply: ModelReply) -> Option<String> {
        let text = reply.text.unwrap_or_default();
        self.history.push(Message::assistant(text.clone()));
        match react::parse(&text) {
            ReactReply::Finish { thought, answer } => {
                self.record(step, thought, Vec::new());
                Some(answer)
            }
            ReactReply::Act { thought, call } => {
                let call = call.with_id(format!("react_{step}"));
                let records = self.run_calls(step, vec![call]).await;
                let observation = records.iter().map(|r| r.result.text()).collect::<String>();
                self.history
                    .push(Message::user(react::observation(&observation)));
                self.record(step, thought, records);
                None
            }
            ReactReply::Malformed(problem) => {
                self.history.push(Message::user(react::malformed(&problem)));
                self.record(step, Some(text), Vec::new());
                None
            }
        }
    }

    /// Runs a step's calls in the step's scope (see [`scope`](Self::scope)), so the tools that
    /// take a context report to the run and are cancelled with it.
    async fn run_calls(&mut self, step: usize, calls: Vec<ToolCall>) -> Vec<ToolCallRecord> {
        for call in &calls {
            self.emit(AgentEvent::ToolCalled { step, call });
        }
        let scope = self.scope(step);
        scope.run(self.dispatch(step, calls)).await
    }

    /// Runs a step's calls: concurrently unless parallel calls are off, through state when set.
    /// `ToolFinished` is reported as each call ends (as its batch ends, with state).
    async fn dispatch(&mut self, step: usize, calls: Vec<ToolCall>) -> Vec<ToolCallRecord> {
        let agent = self.agent;
        let toolbox = &agent.toolbox;
        let deadline = self.deadline;
        let link = &*self.link;
        let finished = |record: ToolCallRecord| {
            tool_finished(link, step, &record);
            record
        };
        match (&mut self.state, agent.options.parallel_tool_calls) {
            (Some(state), true) => {
                let started = Instant::now();
                let results = toolbox
                    .call_all_with_state(state.as_mut(), calls.clone())
                    .await;
                let duration = started.elapsed();
                let records = calls.into_iter().zip(results);
                records
                    .map(|(call, result)| {
                        finished(ToolCallRecord {
                            call,
                            result,
                            duration,
                        })
                    })
                    .collect()
            }
            (Some(state), false) => {
                let mut records = Vec::with_capacity(calls.len());
                for call in calls {
                    let started = Instant::now();
                    let result = toolbox.acall_with_state(state.as_mut(), &call).await;
                    records.push(finished(timed(call, result, started)));
                }
                records
            }
            (None, true) => run_all(agent, &self.link, step, calls, deadline).await,
            (None, false) => {
                let mut records = Vec::with_capacity(calls.len());
                for call in calls {
                    let started = Instant::now();
                    let result = acall(toolbox, &call, deadline).await;
                    records.push(finished(timed(call, result, started)));
                }
                records
            }
        }
    }

    /// The scope of step `step`'s tool calls: the agent's host, data and the run's token.
    fn scope(&self, step: usize) -> CallScope {
        let agent = self.agent;
        let host = AgentHost {
            step,
            link: Arc::clone(&self.link),
            model: agent
                .sampling_model
                .clone()
                .unwrap_or_else(|| Arc::clone(&agent.model)),
            on_elicit: agent.on_elicit.clone(),
        };
        CallScope::new()
            .host(Arc::new(host))
            .data(self.data.clone())
            .cancellation(self.cancellation.clone())
    }

    fn record(&mut self, step: usize, thought: Option<String>, calls: Vec<ToolCallRecord>) {
        self.steps.push(StepRecord {
            step,
            thought,
            calls,
        });
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

    fn emit(&self, event: AgentEvent<'_>) {
        self.link.emit(&event);
    }
}

/// Reports a finished call; also called from the toolbox's workers, which hold no `Runner`.
fn tool_finished(link: &RunLink, step: usize, record: &ToolCallRecord) {
    link.emit(&AgentEvent::ToolFinished { step, record });
}

/// What is left of the run's time, as the timeout of a call that starts now: without one, a
/// sync body would run on the task's own thread, where the run's deadline cannot stop waiting
/// for it. The call's limit ends a little after the run's, so the run's deadline is what stops
/// the run, with its own error, rather than the model being asked once more about a call that
/// timed out.
fn time_left(deadline: Option<Instant>) -> Option<Duration> {
    const GRACE: Duration = Duration::from_millis(100);
    deadline.map(|at| at.saturating_duration_since(Instant::now()) + GRACE)
}

/// One call, with what is left of the run's time as its timeout.
async fn acall(toolbox: &Toolbox, call: &ToolCall, deadline: Option<Instant>) -> ToolCallResult {
    match time_left(deadline) {
        Some(left) => toolbox.acall_within(call, left).await,
        None => toolbox.acall(call).await,
    }
}

/// A reply's calls through [`Toolbox::call_all_within`]: in the reply's order, at most the
/// toolbox's concurrency at a time, each with what is left of the run's time, each reported
/// `ToolFinished` as it ends, with the time the toolbox measured.
async fn run_all(
    agent: &Agent,
    link: &Arc<RunLink>,
    step: usize,
    calls: Vec<ToolCall>,
    deadline: Option<Instant>,
) -> Vec<ToolCallRecord> {
    let asked = Arc::new(calls.clone());
    let took = Arc::new(Mutex::new(vec![None; calls.len()]));
    let finished = {
        let (asked, took, link) = (Arc::clone(&asked), Arc::clone(&took), Arc::clone(link));
        move |position: usize, result: &ToolCallResult, duration: Duration| {
            took.lock().unwrap_or_else(PoisonError::into_inner)[position] = Some(duration);
            if link.listens() {
                let record = ToolCallRecord {
                    call: asked[position].clone(),
                    result: result.clone(),
                    duration,
                };
                tool_finished(&link, step, &record);
            }
        }
    };
    let results = (agent.toolbox)
        .call_all_within(calls, time_left(deadline), finished)
        .await;
    let took = std::mem::take(&mut *took.lock().unwrap_or_else(PoisonError::into_inner));
    let asked = Arc::try_unwrap(asked).unwrap_or_else(|shared| (*shared).clone());
    let records = asked.into_iter().zip(results).zip(took);
    records
        .map(|((call, result), took)| {
            let record = ToolCallRecord {
                call,
                result,
                duration: took.unwrap_or_default(),
            };
            // A call no worker answered (the runtime shut down under it) is reported here.
            if took.is_none() {
                tool_finished(link, step, &record);
            }
            record
        })
        .collect()
}

fn timed(call: ToolCall, result: ToolCallResult, started: Instant) -> ToolCallRecord {
    ToolCallRecord {
        call,
        result,
        duration: started.elapsed(),
    }
}
