//! The loop's two effects, as one seam: the model call of a step and the tool calls of a step.
//! In process they are made as they are ([`InProcess`]); `toolkit::durable` journals each one
//! in Restate, so a run replayed after its worker died makes neither again. Everything else
//! the loop does is a pure function of what these two return, and is simply redone.

use serde_json::Value;

use super::ToolCallRecord;
use crate::ToolCall;
use crate::models::{BoxFuture, ModelError, ModelReply};
use crate::state::AgentState;

/// A step's model call, ready to be made.
pub(crate) type ModelCall<'a> = BoxFuture<'a, Result<ModelReply, ModelError>>;

/// A step's tool call records, one per call in their order, once made.
pub(crate) type CallRecords<'a> = BoxFuture<'a, Vec<ToolCallRecord>>;

/// A step's tool calls, with the runner that makes them.
pub(crate) type StepRunner<'a> = &'a mut dyn CallRunner;

/// Where a run's model and tool calls are made; by default as they are, in process.
pub(crate) trait Journal: Send + Sync {
    /// Makes (or replays) step `step`'s model call.
    fn model_call<'a>(&'a self, step: usize, call: ModelCall<'a>) -> ModelCall<'a> {
        let _ = step;
        call
    }

    /// Runs (or replays) `calls`, of `runner`'s step, through it.
    fn tool_calls<'a>(&'a self, calls: Vec<ToolCall>, runner: StepRunner<'a>) -> CallRecords<'a> {
        runner.run(calls)
    }
}

/// Runs a step's tool calls the way the loop does (its toolbox, state, deadline and events).
pub(crate) trait CallRunner: Send {
    /// Runs `calls` as one batch: one record per call, in their order.
    fn run(&mut self, calls: Vec<ToolCall>) -> CallRecords<'_>;

    /// The step the calls belong to.
    #[cfg_attr(not(feature = "restate"), allow(dead_code))]
    fn step(&self) -> usize;

    /// Whether running `call` twice does no harm: its tool is `idempotent` or `read_only`.
    #[cfg_attr(not(feature = "restate"), allow(dead_code))]
    fn repeatable(&self, call: &ToolCall) -> bool;

    /// The run's agent state as JSON, when it has one.
    #[cfg_attr(not(feature = "restate"), allow(dead_code))]
    fn state(&self) -> Option<Value>;

    /// Replaces the run's agent state: with the one a journal holds, on a replay, since a
    /// replayed call does not write to it.
    #[cfg_attr(not(feature = "restate"), allow(dead_code))]
    fn set_state(&mut self, state: Box<dyn AgentState>);
}

/// The calls made as they are: today's loop.
pub(crate) struct InProcess;

impl Journal for InProcess {}
