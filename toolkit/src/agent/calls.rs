//! How a step's calls run against the run's deadline: one at a time or all at once through the
//! toolbox, each reported `ToolFinished` as it ends.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::link::RunLink;
use super::{AgentEvent, ToolCallRecord};
use crate::state::AgentState;
use crate::{ToolCall, ToolCallResult, Toolbox};

/// Reports a finished call to `listening`, the run's link when anyone listens; also called from
/// the toolbox's workers, which hold no `Runner`.
pub(super) fn tool_finished(listening: Option<&RunLink>, step: usize, record: &ToolCallRecord) {
    if let Some(link) = listening {
        link.emit(AgentEvent::ToolFinished {
            step,
            record: record.clone(),
        });
    }
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

/// A reply's calls as one [`Toolbox::batch`]: in the reply's order, at most the toolbox's
/// concurrency at a time (one, `one_at_a_time`), through `state` when given, each with what is
/// left of the run's time, each reported `ToolFinished` as its result is final, with the time the
/// toolbox measured.
pub(super) async fn run_all(
    toolbox: &Toolbox,
    state: Option<&mut dyn AgentState>,
    one_at_a_time: bool,
    listening: Option<Arc<RunLink>>,
    step: usize,
    calls: Vec<ToolCall>,
    deadline: Option<Instant>,
) -> Vec<ToolCallRecord> {
    let asked = Arc::new(calls.clone());
    let took = Arc::new(Mutex::new(vec![None; calls.len()]));
    let finished = {
        let (asked, took, listening) = (Arc::clone(&asked), Arc::clone(&took), listening.clone());
        move |position: usize, result: &ToolCallResult, duration: Duration| {
            took.lock().unwrap_or_else(PoisonError::into_inner)[position] = Some(duration);
            if let Some(link) = &listening {
                link.emit(AgentEvent::ToolFinished {
                    step,
                    record: ToolCallRecord {
                        call: asked[position].clone(),
                        result: result.clone(),
                        duration,
                    },
                });
            }
        }
    };
    let batch = toolbox
        .batch(calls)
        .within(time_left(deadline))
        .one_at_a_time(one_at_a_time)
        .on_finished(finished);
    let results = match state {
        Some(state) => batch.state(state).run().await,
        None => batch.run().await,
    };
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
                tool_finished(listening.as_deref(), step, &record);
            }
            record
        })
        .collect()
}
