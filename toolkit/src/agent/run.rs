//! What a run returns: the answer and everything needed to debug it, or why it stopped.

use std::any::Any;
use std::fmt;
use std::time::Duration;

use super::ResumeToken;
use crate::models::{Message, ModelError, Usage};
use crate::state::AgentState;
use crate::{ToolCall, ToolCallResult};

/// One tool call of a run: the call, its result and how long it took.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallRecord {
    /// The call as the model asked for it (with the id it was paired by).
    pub call: ToolCall,
    /// Its result; `result.is_error` tells whether it failed.
    pub result: ToolCallResult,
    /// How long it ran. Calls of one batch with state report the batch's time, as state calls
    /// run in dependency rounds.
    pub duration: Duration,
}

impl ToolCallRecord {
    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.result.is_error
    }
}

/// One step: a model call and the tool calls it asked for (the trajectory is the list of them).
#[derive(Debug, Clone, PartialEq)]
pub struct StepRecord {
    /// The step number, from 1.
    pub step: usize,
    /// The model's text (its thought, in ReAct).
    pub thought: Option<String>,
    /// The tool calls of this step, in the order the model gave them.
    pub calls: Vec<ToolCallRecord>,
}

/// A finished run: the answer, the provider-neutral history, the trajectory, usage and state.
/// `O` is the answer's type: text, or the `T` of a [`TypedAgent`](super::TypedAgent).
pub struct AgentRun<O = String> {
    /// The answer: the model's final text, or the exit tool's result as text; a `T` for a
    /// [`TypedAgent`](super::TypedAgent) (its JSON for the untyped agent underneath).
    pub answer: O,
    /// Every message, from the system prompt to the last reply.
    pub history: Vec<Message>,
    /// Every step, in order.
    pub steps: Vec<StepRecord>,
    /// Tokens summed over the run, when the model reports them.
    pub usage: Option<Usage>,
    /// The state after the run, when it ran with one; [`state_as`](Self::state_as) and
    /// [`into_state`](Self::into_state) give it back as its own type.
    pub state: Option<Box<dyn AgentState>>,
}

impl<O> AgentRun<O> {
    /// The same run with another answer.
    pub(super) fn with_answer<T>(self, answer: T) -> AgentRun<T> {
        AgentRun {
            answer,
            history: self.history,
            steps: self.steps,
            usage: self.usage,
            state: self.state,
        }
    }

    /// The state after the run as the type it was given as: `None` when the run had no state
    /// or one of another type.
    ///
    /// ```
    /// # use toolkit::prelude::*;
    /// # use toolkit::agent::Agent;
    /// # use toolkit::models::{ModelReply, ScriptedModel};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(AgentState, Default, Serialize, Deserialize)]
    /// struct Notes {
    ///     seen: Vec<String>,
    /// }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let agent = Agent::builder(ScriptedModel::new([ModelReply::text("done")])).build();
    /// let notes = Notes { seen: vec!["a".into()] };
    /// let run = agent.run("go").state(Box::new(notes)).await.unwrap();
    /// assert_eq!(run.state_as::<Notes>().unwrap().seen, ["a"]);
    /// let notes: Notes = run.into_state().unwrap();
    /// assert_eq!(notes.seen, ["a"]);
    /// # });
    /// ```
    pub fn state_as<S: AgentState>(&self) -> Option<&S> {
        let state: &dyn Any = self.state.as_deref()?;
        state.downcast_ref()
    }

    /// The state after the run, moved out as the type it was given as: `None` when the run had
    /// no state or one of another type (see [`state_as`](Self::state_as)).
    pub fn into_state<S: AgentState>(self) -> Option<S> {
        let state: Box<dyn Any> = self.state?;
        state.downcast().ok().map(|state| *state)
    }

    /// Every tool call of the run, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCallRecord> {
        self.steps.iter().flat_map(|step| &step.calls)
    }
}

impl<O: fmt::Debug> fmt::Debug for AgentRun<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentRun")
            .field("answer", &self.answer)
            .field("history", &self.history)
            .field("steps", &self.steps)
            .field("usage", &self.usage)
            .field("state", &self.state.as_ref().map(|state| state.to_json()))
            .finish()
    }
}

/// Why a run stopped without an answer; each variant carries the history so far.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The model was still calling tools after `max_steps` steps.
    #[error("the agent reached its limit of {max_steps} steps without an answer")]
    MaxSteps {
        /// The limit.
        max_steps: usize,
        /// The messages so far.
        history: Vec<Message>,
    },
    /// The run's deadline passed.
    #[error("the agent did not finish within {deadline:?}")]
    Deadline {
        /// The deadline.
        deadline: Duration,
        /// The messages so far.
        history: Vec<Message>,
    },
    /// The model call of a step failed.
    #[error("the model failed at step {step}: {error}")]
    Model {
        /// The step.
        step: usize,
        /// The model's error.
        error: ModelError,
        /// The messages so far.
        history: Vec<Message>,
    },
    /// The model's typed answer did not fit its type, again after every retry.
    #[error("the model's answer did not fit the output type after {attempts} attempts: {message}")]
    Output {
        /// How many answers the model gave.
        attempts: usize,
        /// Why the last one did not fit.
        message: String,
        /// The messages so far, the failed answers and the feedback on them included.
        history: Vec<Message>,
    },
    /// The run stopped to wait for a person's approval of some tool calls: save the token,
    /// ask, and go on with [`Agent::resume`](super::Agent::resume). Only a run without an
    /// approval handler pauses.
    #[error("the run paused: {} tool calls wait for approval", .0.pending().len())]
    Paused(Box<ResumeToken>),
    /// The run tree's [`RunBudget`](super::RunBudget) of model calls or tokens is spent: the
    /// run (or, for an agent called as a tool, the tree it belongs to) made as many as it may.
    #[error("the run stopped: {message}")]
    Budget {
        /// Which budget is spent.
        message: String,
        /// The messages so far.
        history: Vec<Message>,
    },
    /// A resume could not go on: a call that needs approval had no decision matching it, a
    /// decision matched no pending call, the token does not end at a pending step, or its
    /// step's calls repeat an id or are more than one step runs. Nothing of the step ran.
    #[error("the run cannot resume: {message}")]
    Resume {
        /// What is wrong.
        message: String,
        /// The token, given back to resume again with other decisions.
        token: Box<ResumeToken>,
    },
}

impl AgentError {
    /// The messages up to the point the run stopped.
    pub fn history(&self) -> &[Message] {
        match self {
            AgentError::MaxSteps { history, .. }
            | AgentError::Deadline { history, .. }
            | AgentError::Model { history, .. }
            | AgentError::Output { history, .. }
            | AgentError::Budget { history, .. } => history,
            AgentError::Paused(token) | AgentError::Resume { token, .. } => token.history(),
        }
    }
}
