//! The Restate workflow an agent is served as: `run` drives the agent with its calls journaled
//! and waits for approvals on awakeables; `inspect` and `approve` run beside it.

use std::sync::Arc;

use restate_sdk::prelude::*;
use serde::{Deserialize, Serialize};

use super::journal::{AGENT_STATE, RestateJournal, Restore};
use crate::ToolCall;
use crate::agent::{Agent, AgentError, AgentRun, Decision, ResumeToken};
use crate::models::Usage;
use crate::state::AgentState;

/// The workflow's name in Restate: its ingress paths start `/Agent/{run id}/`.
pub(super) const SERVICE: &str = "Agent";

/// Where the run's [`RunStatus`] is kept in Restate's state store.
const STATUS: &str = "status";

/// A finished durable run: the answer and what it took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutcome {
    /// The model's answer.
    pub answer: String,
    /// How many steps (model calls) the run made.
    pub steps: usize,
    /// How many tool calls the run made, failed ones included.
    pub tool_calls: usize,
    /// Tool calls that were answered with an error.
    pub failed_tool_calls: usize,
    /// Tokens summed over the run, when the model reports them.
    pub usage: Option<Usage>,
    /// The agent state after the run, as JSON, when the agent keeps one
    /// ([`DurableAgent::with_state`]).
    pub state: Option<serde_json::Value>,
}

impl RunOutcome {
    fn of(run: &AgentRun) -> Self {
        RunOutcome {
            state: run.state.as_ref().map(|state| state.to_json()),
            answer: run.answer.clone(),
            steps: run.steps.len(),
            tool_calls: run.tool_calls().count(),
            failed_tool_calls: run.tool_calls().filter(|call| call.is_error()).count(),
            usage: run.usage,
        }
    }
}

/// Where a durable run is, as [`DurableClient::inspect`](super::DurableClient::inspect) reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunStatus {
    /// No run with this id has started.
    Unknown,
    /// The run is making its model and tool calls.
    Running,
    /// The run waits for a person's [`Decision`]s on `pending`, given with
    /// [`DurableClient::approve`](super::DurableClient::approve) or by resolving the awakeable
    /// `approval` through Restate's ingress.
    Waiting {
        /// The awakeable the run waits on.
        approval: String,
        /// The calls that need a decision.
        pending: Vec<ToolCall>,
        /// Why earlier decisions were refused, when they were.
        refused: Option<String>,
    },
    /// The run ended with an answer.
    Finished(RunOutcome),
    /// The run ended without one.
    Failed {
        /// Why.
        message: String,
    },
}

/// An agent served as a Restate workflow: build one with [`DurableAgent::new`], serve it with
/// [`DurableAgent::serve`].
#[derive(Clone)]
pub struct DurableAgent {
    pub(super) agent: Arc<Agent>,
    /// How each run's agent state is made and rebuilt, when the agent keeps one.
    pub(super) state: Option<StateKind>,
}

/// The agent state's type, as the two functions a durable run needs of it.
#[derive(Clone, Copy)]
pub(super) struct StateKind {
    /// A new run's state.
    pub(super) new: fn() -> Box<dyn AgentState>,
    /// A state rebuilt from its JSON (a paused run's, a journaled call's).
    pub(super) restore: Restore,
}

#[restate_sdk::workflow(name = "Agent")]
impl DurableAgent {
    /// Runs the agent on `input`, every model call and tool call a journaled step, each pause
    /// for approval a wait on an awakeable.
    #[handler]
    async fn run(
        &self,
        ctx: WorkflowContext<'_>,
        input: String,
    ) -> HandlerResult<Json<RunOutcome>> {
        ctx.set(STATUS, Json(RunStatus::Running));
        let restore = self.state.map(|kind| kind.restore);
        let journal = RestateJournal { ctx: &ctx, restore };
        let mut request = self.agent.run(input).journal(&journal);
        if let Some(kind) = self.state {
            request = request.state((kind.new)());
        }
        let mut outcome = request.await;
        loop {
            let (token, refused) = match outcome {
                Ok(run) => {
                    let done = RunOutcome::of(&run);
                    if let Some(state) = &done.state {
                        ctx.set(AGENT_STATE, Json(state.clone()));
                    }
                    ctx.set(STATUS, Json(RunStatus::Finished(done.clone())));
                    return Ok(Json(done));
                }
                Err(AgentError::Paused(token)) => (token, None),
                Err(AgentError::Resume { message, token }) => (token, Some(message)),
                Err(error) => {
                    let message = error.to_string();
                    ctx.set(
                        STATUS,
                        Json(RunStatus::Failed {
                            message: message.clone(),
                        }),
                    );
                    return Err(TerminalError::new(message).into());
                }
            };
            let decisions = wait_for_decisions(&ctx, &token, refused).await?;
            let state = (token.state().cloned()).zip(restore);
            let rebuilt = state.map(|(state, restore)| restore(state)).transpose();
            let rebuilt =
                rebuilt.map_err(|e| TerminalError::new(format!("the paused run's state: {e}")))?;
            let mut request = self.agent.resume(*token, decisions).journal(&journal);
            if let Some(state) = rebuilt {
                request = request.state(state);
            }
            outcome = request.await;
        }
    }

    /// Where the run is.
    #[handler]
    async fn inspect(&self, ctx: SharedWorkflowContext<'_>) -> HandlerResult<Json<RunStatus>> {
        let status = ctx.get::<Json<RunStatus>>(STATUS).await?;
        Ok(status.unwrap_or(Json(RunStatus::Unknown)))
    }

    /// Gives the waiting run its decisions; an error when it waits for none.
    #[handler]
    async fn approve(
        &self,
        ctx: SharedWorkflowContext<'_>,
        decisions: Json<Vec<Decision>>,
    ) -> HandlerResult<()> {
        match ctx.get::<Json<RunStatus>>(STATUS).await? {
            Some(Json(RunStatus::Waiting { approval, .. })) => {
                ctx.resolve_awakeable(&approval, decisions);
                Ok(())
            }
            _ => Err(TerminalError::new("the run is not waiting for approval").into()),
        }
    }
}

/// Records that the run waits on `token`'s calls and waits, durably, for the decisions.
async fn wait_for_decisions(
    ctx: &WorkflowContext<'_>,
    token: &ResumeToken,
    refused: Option<String>,
) -> Result<Vec<Decision>, TerminalError> {
    let (approval, decided) = ctx.awakeable::<Json<Vec<Decision>>>();
    let pending = token.pending().to_vec();
    let waiting = RunStatus::Waiting {
        approval,
        pending,
        refused,
    };
    ctx.set(STATUS, Json(waiting));
    let Json(decisions) = decided.await?;
    ctx.set(STATUS, Json(RunStatus::Running));
    Ok(decisions)
}
