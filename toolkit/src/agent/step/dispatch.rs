//! Running a step's tool calls: the planned calls split into those that run and those
//! answered with their error, the run ones dispatched (concurrently or one by one, through
//! state or not) in the step's scope, and every record given back in the reply's order.
//!
//! A child of `step` so it reaches the `Runner`'s fields without widening them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::Runner;
use crate::ToolCall;
use crate::agent::calls::{acall, run_all, timed, tool_finished};
use crate::agent::host::AgentHost;
use crate::agent::plan::Planned;
use crate::agent::{AgentEvent, ToolCallRecord};
use crate::context::CallScope;

impl Runner<'_> {
    /// Runs the calls that run, answers the others with their error, and returns every record
    /// in the reply's order.
    pub(super) async fn run_planned(
        &mut self,
        step: usize,
        planned: Vec<Planned>,
    ) -> Vec<ToolCallRecord> {
        let mut runs = Vec::with_capacity(planned.len());
        let mut refused = Vec::new();
        for planned in planned {
            match planned.answer() {
                None => runs.extend(match planned {
                    Planned::Run(call) => Some(call),
                    _ => None,
                }),
                Some(result) => refused.push((planned.call().clone(), result)),
            }
        }
        let mut records = self.run_calls(step, runs).await;
        for (call, result) in refused {
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
        let on_event = self.on_event.clone();
        let finished = |record: ToolCallRecord| {
            tool_finished(on_event.as_deref(), step, &record);
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
            (None, true) => run_all(agent, on_event.clone(), step, calls, deadline).await,
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
}
