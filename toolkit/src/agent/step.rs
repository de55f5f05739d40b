//! The loop: ask the model, run the calls it asked for, feed the results back, until an exit.

use std::time::Instant;

use tracing::Instrument;

use super::react::{self, ReactReply};
use super::{Agent, AgentError, AgentEvent, AgentRun, ExitCondition, StepRecord, ToolCallRecord};
use crate::models::{ChatRequest, Message, ModelError, ModelReply, Usage};
use crate::state::AgentState;
use crate::{ToolCall, ToolCallResult};

/// One run's progress; kept outside the deadline's future so a timed-out run keeps its history.
pub(super) struct Runner<'a> {
    agent: &'a Agent,
    state: Option<Box<dyn AgentState>>,
    history: Vec<Message>,
    steps: Vec<StepRecord>,
    usage: Option<Usage>,
}

/// How a run ended early, before the history is attached.
enum Stop {
    MaxSteps,
    Model(usize, ModelError),
}

impl<'a> Runner<'a> {
    pub(super) fn new(agent: &'a Agent, state: Option<Box<dyn AgentState>>) -> Self {
        Runner {
            agent,
            state,
            history: Vec::new(),
            steps: Vec::new(),
            usage: None,
        }
    }

    pub(super) async fn run(mut self, input: String) -> Result<AgentRun, AgentError> {
        let system = match (self.agent.react, &self.agent.system_prompt) {
            (true, prompt) => Some(react::system_prompt(prompt.as_deref(), &self.agent.toolbox)),
            (false, prompt) => prompt.clone(),
        };
        self.history.extend(system.map(Message::system));
        self.history.push(Message::user(input));
        let outcome = match self.agent.deadline {
            None => Some(self.drive().await),
            Some(deadline) => tokio::time::timeout(deadline, self.drive()).await.ok(),
        };
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
        let tools = if agent.react {
            &agent.no_tools
        } else {
            &agent.toolbox
        };
        let request = ChatRequest::new(&self.history, tools, &agent.options);
        let span = tracing::info_span!("agent.model_call", step, model = agent.model.name());
        let reply = agent.model.chat(request).instrument(span).await?;
        if let Some(usage) = reply.usage {
            *self.usage.get_or_insert_with(Usage::default) += usage;
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
            text, tool_calls, ..
        } = reply;
        let calls: Vec<ToolCall> = tool_calls
            .into_iter()
            .enumerate()
            .map(|(i, call)| match call.id {
                Some(_) => call,
                None => call.with_id(format!("call_{step}_{i}")),
            })
            .collect();
        self.history
            .push(Message::assistant_calls(text.clone(), calls.clone()));
        if calls.is_empty() {
            if self.agent.exits.contains(&ExitCondition::Text) {
                self.record(step, text.clone(), Vec::new());
                return Some(text.unwrap_or_default());
            }
            self.history.push(Message::user(self.exit_reminder()));
            self.record(step, text, Vec::new());
            return None;
        }
        let records = self.run_calls(step, calls).await;
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

    /// Runs a step's calls: concurrently unless parallel calls are off, through state when set.
    /// `ToolFinished` is reported as each call ends (as its batch ends, with state).
    async fn run_calls(&mut self, step: usize, calls: Vec<ToolCall>) -> Vec<ToolCallRecord> {
        let agent = self.agent;
        let toolbox = &agent.toolbox;
        for call in &calls {
            self.emit(AgentEvent::ToolCalled { step, call });
        }
        let finished = |record: ToolCallRecord| {
            emit(
                agent,
                AgentEvent::ToolFinished {
                    step,
                    record: &record,
                },
            );
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
            (None, true) => {
                let runs = calls.into_iter().map(|call| async move {
                    let started = Instant::now();
                    let result = toolbox.acall(&call).await;
                    finished(timed(call, result, started))
                });
                // In call order, at most the toolbox's concurrency at a time, as `call_all` runs.
                let limit = toolbox.concurrency().max(1);
                futures::StreamExt::collect(futures::StreamExt::buffered(
                    futures::stream::iter(runs),
                    limit,
                ))
                .await
            }
            (None, false) => {
                let mut records = Vec::with_capacity(calls.len());
                for call in calls {
                    let started = Instant::now();
                    let result = toolbox.acall(&call).await;
                    records.push(finished(timed(call, result, started)));
                }
                records
            }
        }
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
        emit(self.agent, event);
    }
}

fn emit(agent: &Agent, event: AgentEvent<'_>) {
    if let Some(callback) = &agent.on_event {
        callback(&event);
    }
}

fn timed(call: ToolCall, result: ToolCallResult, started: Instant) -> ToolCallRecord {
    ToolCallRecord {
        call,
        result,
        duration: started.elapsed(),
    }
}
