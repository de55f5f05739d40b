//! The agent loop's seam, journaled in Restate: each model call one `ctx.run` step, each tool
//! call one more (two for a call whose tool is not safe to repeat), so a run replayed on
//! another worker makes neither again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use restate_sdk::prelude::*;

use crate::agent::ToolCallRecord;
use serde_json::Value;

use crate::agent::journal::{CallRecords, CallRunner, Journal, ModelCall, StepRunner};
use crate::models::ModelError;
use crate::state::AgentState;
use crate::{ToolCall, ToolCallResult, ToolError};

/// Journals a run's calls in the workflow's context.
pub(super) struct RestateJournal<'s> {
    pub(super) ctx: &'s WorkflowContext<'s>,
    /// Rebuilds the agent's state from its JSON, when the agent keeps one.
    pub(super) restore: Option<Restore>,
}

/// Rebuilds an agent state of the served agent's type from its JSON.
pub(super) type Restore = fn(Value) -> Result<Box<dyn AgentState>, String>;

/// Where the run's agent state is kept in Restate's state store, after each tool call.
pub(super) const AGENT_STATE: &str = "agent_state";

/// One journaled tool call: its result, how long it took, and the agent state after it.
#[derive(serde::Serialize, serde::Deserialize)]
struct JournaledCall {
    result: ToolCallResult,
    millis: u64,
    #[serde(default)]
    state: Option<Value>,
}

/// The context for a step borrowed for `'b` (the context is covariant in its lifetime), so a
/// step's closure may borrow the run for that long.
fn short<'b>(ctx: &'b WorkflowContext<'_>) -> &'b WorkflowContext<'b> {
    ctx
}

impl Journal for RestateJournal<'_> {
    fn model_call<'a>(&'a self, step: usize, call: ModelCall<'a>) -> ModelCall<'a> {
        let ctx = short(self.ctx);
        Box::pin(async move {
            // The model's failure is journaled too (as the message): a replay fails the same
            // way instead of asking again; the clients' own retry policies ran before it.
            let asked =
                ctx.run(move || async move { Ok(Json(call.await.map_err(|e| e.to_string()))) });
            match asked.name(format!("model call {step}")).await {
                Ok(Json(Ok(reply))) => Ok(reply),
                Ok(Json(Err(message))) => Err(journaled(message)),
                Err(terminal) => Err(journaled(terminal.message().to_owned())),
            }
        })
    }

    fn tool_calls<'a>(&'a self, calls: Vec<ToolCall>, runner: StepRunner<'a>) -> CallRecords<'a> {
        Box::pin(async move {
            let step = runner.step();
            let mut records = Vec::with_capacity(calls.len());
            // One at a time, each its own step: a worker that dies after a call finished runs
            // none of the finished ones again.
            for (at, call) in calls.into_iter().enumerate() {
                let name = format!("tool call {step}.{at} {}", call.name);
                records.push(self.tool_call(name, call, &mut *runner).await);
            }
            records
        })
    }
}

impl RestateJournal<'_> {
    /// One tool call as a journaled step. A call whose tool is not safe to repeat first
    /// journals that it starts: if the step that runs it is then replayed without that start
    /// having been made by this attempt, the call was cut off with its worker and may have
    /// run, so it is answered with an error saying so instead of being run again.
    async fn tool_call(
        &self,
        name: String,
        call: ToolCall,
        runner: &mut dyn CallRunner,
    ) -> ToolCallRecord {
        let repeatable = runner.repeatable(&call);
        let started_here = Arc::new(AtomicBool::new(repeatable));
        if !repeatable {
            let mark = Arc::clone(&started_here);
            let begun = short(self.ctx).run(move || async move {
                mark.store(true, Ordering::SeqCst);
                Ok(())
            });
            if let Err(terminal) = begun.name(format!("{name} starts")).await {
                let result = failed(&call, unjournaled(terminal.message()));
                return record(call, result, 0);
            }
        }
        let ctx = short(self.ctx);
        let asked = call.clone();
        let running = &mut *runner;
        let ran = ctx.run(move || async move {
            let runner = running;
            if !started_here.load(Ordering::SeqCst) {
                return Ok(Json(JournaledCall {
                    result: failed(&asked, cut_off(&asked.name)),
                    millis: 0,
                    state: runner.state(),
                }));
            }
            let mut records = runner.run(vec![asked.clone()]).await;
            // The runner gives one record per call; an empty answer is reported, not lost.
            let (result, millis) = match records.pop() {
                Some(record) => (
                    record.result,
                    u64::try_from(record.duration.as_millis()).unwrap_or(u64::MAX),
                ),
                None => (failed(&asked, "the toolbox gave no result".into()), 0),
            };
            let state = runner.state();
            Ok(Json(JournaledCall {
                result,
                millis,
                state,
            }))
        });
        match ran.name(name.clone()).await {
            Ok(Json(JournaledCall {
                result,
                millis,
                state,
            })) => {
                let result = match self.keep_state(state, runner) {
                    Ok(()) => result,
                    Err(message) => failed(&call, message),
                };
                record(call, result, millis)
            }
            Err(terminal) => {
                let result = failed(&call, unjournaled(terminal.message()));
                record(call, result, 0)
            }
        }
    }
}

impl RestateJournal<'_> {
    /// Gives the run the agent state a journaled call left (on a replay the call did not write
    /// to it), and keeps it in Restate's state store.
    fn keep_state(&self, state: Option<Value>, runner: &mut dyn CallRunner) -> Result<(), String> {
        let (Some(state), Some(restore)) = (state, self.restore) else {
            return Ok(());
        };
        let rebuilt = restore(state.clone())
            .map_err(|e| format!("the journaled agent state could not be restored: {e}"))?;
        runner.set_state(rebuilt);
        self.ctx.set(AGENT_STATE, Json(state));
        Ok(())
    }
}

fn record(call: ToolCall, result: ToolCallResult, millis: u64) -> ToolCallRecord {
    ToolCallRecord {
        call,
        result,
        duration: Duration::from_millis(millis),
    }
}

/// What a replayed run is told of a model call that failed the first time.
fn journaled(message: String) -> ModelError {
    ModelError::Journaled { message }
}

/// `call` answered with `message` as its tool's error.
fn failed(call: &ToolCall, message: String) -> ToolCallResult {
    let error = ToolError::Failed {
        tool: call.name.clone(),
        message,
    };
    ToolCallResult::from_outcome(call, Err(error))
}

/// Why a call whose tool is not safe to repeat, and whose worker died while it ran, is not run
/// again.
fn cut_off(tool: &str) -> String {
    format!(
        "interrupted: the worker running {tool} stopped before its result was journaled; it may \
         or may not have taken effect, and is not run again because {tool} is not marked \
         idempotent"
    )
}

/// Why a call was not run: Restate refused its journal entry.
fn unjournaled(message: &str) -> String {
    format!("not run: the journal refused the call's step: {message}")
}
