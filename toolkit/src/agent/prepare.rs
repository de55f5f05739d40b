//! Per-step toolsets: the agent's `prepare` hook chooses or edits the tools each model call
//! offers, and a call to a tool not offered at its step is refused.

use std::collections::HashSet;

use super::Agent;
use super::plan::Planned;
use crate::context::Data;
use crate::models::Message;
use crate::providers::ToolDefinitions;
use crate::state::AgentState;
use crate::{ToolCallResult, ToolError, ToolProxy};

pub(super) type PrepareFn =
    dyn Fn(&PrepareContext<'_>, Vec<ToolProxy>) -> Vec<ToolProxy> + Send + Sync;

/// What a [`prepare`](super::AgentBuilder::prepare) hook sees before a model call.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct PrepareContext<'a> {
    /// The step about to ask the model, from 1.
    pub step: usize,
    /// The messages so far, the system prompt first.
    pub messages: &'a [Message],
    /// The run's state, when it runs with one ([`Agent::run_with_state`]).
    pub state: Option<&'a dyn AgentState>,
    /// The agent's data ([`AgentBuilder::data`](super::AgentBuilder::data)).
    pub data: &'a Data,
}

impl<'a> PrepareContext<'a> {
    /// The run's state as the type it was given as: `None` without state or for another type.
    pub fn state_as<S: AgentState>(&self) -> Option<&'a S> {
        let state: &dyn std::any::Any = self.state?;
        state.downcast_ref()
    }
}

impl std::fmt::Debug for PrepareContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrepareContext")
            .field("step", &self.step)
            .field("messages", &self.messages.len())
            .field("state", &self.state.map(|state| state.to_json()))
            .finish_non_exhaustive()
    }
}

/// The tools one step offers, as its `prepare` hook chose them.
pub(super) struct Offered {
    definitions: ToolDefinitions,
    names: HashSet<String>,
}

impl Offered {
    /// What `agent`'s hook offers at `step`; `None` when it has no hook (the whole toolbox).
    pub(super) fn prepare(
        agent: &Agent,
        step: usize,
        messages: &[Message],
        state: Option<&dyn AgentState>,
    ) -> Option<Offered> {
        let hook = agent.prepare.as_ref()?;
        let context = PrepareContext {
            step,
            messages,
            state,
            data: &agent.data,
        };
        let tools = hook(&context, agent.toolbox.tools().to_vec());
        let names = tools.iter().map(|tool| tool.name().to_owned()).collect();
        Some(Offered {
            definitions: ToolDefinitions::new(tools),
            names,
        })
    }

    /// The definitions the model is sent.
    pub(super) fn definitions(&self) -> &ToolDefinitions {
        &self.definitions
    }

    /// Answers each call of `planned` to a tool not offered at `step` with an error result
    /// naming the tools that are.
    pub(super) fn refuse_others(&self, step: usize, planned: &mut [Planned]) {
        for entry in planned.iter_mut() {
            let Planned::Run(call) = entry else { continue };
            if self.names.contains(&call.name) {
                continue;
            }
            let offered: Vec<&str> = self.definitions.tools().iter().map(|t| t.name()).collect();
            let offered = match offered.is_empty() {
                true => "none".to_owned(),
                false => offered.join(", "),
            };
            let error = ToolError::Rejected {
                tool: call.name.clone(),
                reason: format!(
                    "it is not offered at step {step}; the tools offered are: {offered}"
                ),
            };
            let result = ToolCallResult::from_outcome(call, Err(error));
            *entry = Planned::Reject(call.clone(), result);
        }
    }
}
