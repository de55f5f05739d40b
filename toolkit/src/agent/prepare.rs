//! Per-step toolsets: the agent's `prepare` hook chooses or edits the tools each model call
//! offers, as a toolbox that step's calls go through, so a call to a tool not offered at its
//! step is refused by it.

use std::collections::HashSet;

use super::Agent;
use crate::context::Data;
use crate::models::Message;
use crate::state::AgentState;
use crate::{ToolProxy, Toolbox};

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
    /// The run's state, when it runs with one ([`RunRequest::state`](super::RunRequest::state)).
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

/// The toolbox `agent`'s hook offers at `step`: the tools it returned, with the agent's
/// toolbox's limits, hooks and data, so a call to a tool it left out is refused by that
/// toolbox. `None` when the agent has no hook (the whole toolbox).
pub(super) fn offered(
    agent: &Agent,
    step: usize,
    messages: &[Message],
    state: Option<&dyn AgentState>,
) -> Option<Toolbox> {
    let hook = agent.prepare.as_ref()?;
    let context = PrepareContext {
        step,
        messages,
        state,
        data: &agent.data,
    };
    let mut tools = hook(&context, agent.toolbox.tools().to_vec());
    // A tool the hook gave twice is offered once, the first: providers refuse a name twice.
    let mut seen = HashSet::new();
    tools.retain(|tool| seen.insert(tool.name().to_owned()));
    // With each name once, nothing is left to refuse; were it, nothing is offered.
    Some(match agent.toolbox.with_tools(tools) {
        Ok(toolbox) => toolbox,
        Err(_) => agent.toolbox.filtered(|_| false),
    })
}
