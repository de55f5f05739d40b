//! Running a step's tool calls: the planned calls split into those that run and those
//! answered with their error, the run ones dispatched (concurrently or one by one, through
//! state or not) in the step's scope, and every record given back in the reply's order.
//!
//! A child of `step` so it reaches the `Runner`'s fields without widening them.

use std::sync::Arc;
use std::time::Duration;

use super::Runner;
use crate::agent::calls::run_all;
use crate::agent::host::AgentHost;
use crate::agent::journal::{CallRecords, CallRunner};
use crate::agent::plan::Planned;
use crate::agent::{AgentEvent, ToolCallRecord};
use crate::context::CallScope;
use crate::state::AgentState;
use crate::{ToolCall, ToolCallResult, ToolError};

impl Runner<'_> {
    /// Runs the calls that run, answers the others with their error, and returns every record
    /// in the reply's order. A call past the run tree's budget of tool calls is answered so too.
    pub(super) async fn run_planned(
        &mut self,
        step: usize,
        planned: Vec<Planned>,
    ) -> Vec<ToolCallRecord> {
        // The reply's order, each slot a call that runs (`None`) or its answer.
        let mut slots = Vec::with_capacity(planned.len());
        let mut runs = Vec::with_capacity(planned.len());
        for planned in planned {
            let (call, result) = match planned.into_parts() {
                (call, Some(result)) => (call, result),
                (call, None) => match self.link.budget().tool_call() {
                    Ok(()) => {
                        runs.push(call);
                        slots.push(None);
                        continue;
                    }
                    Err(spent) => over_budget(call, spent),
                },
            };
            slots.push(Some(ToolCallRecord {
                result,
                call,
                duration: Duration::ZERO,
            }));
        }
        let mut ran = self.run_calls(step, runs).await.into_iter();
        let mut records = Vec::with_capacity(slots.len());
        let mut answered = Vec::new();
        for slot in slots {
            match slot {
                Some(record) => {
                    answered.push(records.len());
                    records.push(record);
                }
                // The toolbox gives one record per call, so every slot is filled.
                None => records.extend(ran.next()),
            }
        }
        for at in answered {
            self.emit(|| AgentEvent::ToolFinished {
                step,
                record: records[at].clone(),
            });
        }
        records
    }

    /// Runs a step's calls in the step's scope (see [`scope`](Self::scope)), so the tools that
    /// take a context report to the run and are cancelled with it.
    async fn run_calls(&mut self, step: usize, calls: Vec<ToolCall>) -> Vec<ToolCallRecord> {
        for call in &calls {
            self.emit(|| AgentEvent::ToolCalled {
                step,
                call: call.clone(),
            });
        }
        let scope = self.scope(step);
        let journal = self.journal;
        let mut runner = StepCalls { runner: self, step };
        scope.run(journal.tool_calls(calls, &mut runner)).await
    }

    /// Runs a step's calls through the step's toolbox (narrowed by `prepare`, so a call to a
    /// tool it left out is refused there), as one batch: concurrently unless parallel calls are
    /// off, through state when set, each call's timeout what is left of the run's time.
    /// `ToolFinished` is reported as each call's result is final.
    async fn dispatch(&mut self, step: usize, calls: Vec<ToolCall>) -> Vec<ToolCallRecord> {
        let agent = self.agent;
        let toolbox = self.offered.as_ref().unwrap_or(&agent.toolbox);
        let listening = self.listens.then(|| Arc::clone(&self.link));
        let state = self.state.as_deref_mut();
        let one_at_a_time = !agent.options.parallel_tool_calls;
        run_all(
            toolbox,
            state,
            one_at_a_time,
            listening,
            step,
            calls,
            self.deadline,
        )
        .await
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

/// A step's calls as the journal runs them: through the step's toolbox, as [`dispatch`]
/// does.
///
/// [`dispatch`]: Runner::dispatch
struct StepCalls<'r, 'a> {
    runner: &'r mut Runner<'a>,
    step: usize,
}

impl CallRunner for StepCalls<'_, '_> {
    fn run(&mut self, calls: Vec<ToolCall>) -> CallRecords<'_> {
        Box::pin(self.runner.dispatch(self.step, calls))
    }

    fn step(&self) -> usize {
        self.step
    }

    fn repeatable(&self, call: &ToolCall) -> bool {
        let agent = self.runner.agent;
        let toolbox = self.runner.offered.as_ref().unwrap_or(&agent.toolbox);
        let hints = toolbox
            .get(&call.name)
            .map(|tool| tool.options().annotations);
        hints.is_some_and(|hints| hints.idempotent == Some(true) || hints.read_only == Some(true))
    }

    fn state(&self) -> Option<serde_json::Value> {
        self.runner.state.as_ref().map(|state| state.to_json())
    }

    fn set_state(&mut self, state: Box<dyn AgentState>) {
        self.runner.state = Some(state);
    }
}

/// A call the run tree's budget leaves no room for, answered with why: it never runs.
fn over_budget(call: ToolCall, spent: String) -> (ToolCall, ToolCallResult) {
    let error = ToolError::Rejected {
        tool: call.name.clone(),
        reason: format!("not run: {spent}"),
    };
    let result = ToolCallResult::from_outcome(&call, Err(error));
    (call, result)
}
