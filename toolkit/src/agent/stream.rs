//! A run as a stream of events: [`Agent::run_stream`](super::Agent::run_stream) and
//! [`TypedAgent::run_stream`](super::TypedAgent::run_stream).

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::Stream;
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use super::{AgentError, AgentEvent, AgentRun, EventFn, StepRecord, ToolCallRecord};
use crate::ToolCall;
use crate::context::{LogLevel, Progress};
use crate::models::{BoxFuture, StreamDelta};

/// Something that happened in a streamed run ([`Agent::run_stream`](super::Agent::run_stream)),
/// owned so it can be kept or sent on. The last item of a stream is its
/// [`Answer`](Self::Answer), or the [`AgentError`] the run stopped with.
#[derive(Debug)]
#[non_exhaustive]
pub enum RunEvent {
    /// A step began (numbered from 1).
    StepStarted {
        /// The step.
        step: usize,
    },
    /// More of the model's text, as it arrives.
    TextDelta {
        /// The step.
        step: usize,
        /// The next piece of text.
        text: String,
    },
    /// More of a tool call the model is writing, as it arrives.
    ToolCallDelta {
        /// The step.
        step: usize,
        /// The call's position in the reply, from 0.
        index: usize,
        /// The provider's id for the call, when this piece carries it.
        id: Option<String>,
        /// The tool, when this piece names it.
        name: Option<String>,
        /// The next piece of the arguments' JSON text.
        arguments: String,
    },
    /// A tool call is about to run.
    ToolStarted {
        /// The step.
        step: usize,
        /// The call, with its id.
        call: ToolCall,
    },
    /// A running tool reported progress.
    ToolProgress {
        /// The step.
        step: usize,
        /// The id of the call.
        call_id: String,
        /// The tool.
        tool: String,
        /// How far it has come.
        progress: Progress,
    },
    /// A running tool logged a message.
    ToolLog {
        /// The step.
        step: usize,
        /// The id of the call.
        call_id: String,
        /// The tool.
        tool: String,
        /// The level.
        level: LogLevel,
        /// The message.
        message: String,
    },
    /// A tool call finished.
    ToolFinished {
        /// The step.
        step: usize,
        /// The call, its result and duration.
        record: ToolCallRecord,
    },
    /// A step finished: its thought and its calls.
    StepFinished {
        /// The step's record.
        record: StepRecord,
    },
    /// The run's answer; the last event of a run that succeeded.
    Answer {
        /// The answer as JSON: for an agent with a typed output
        /// ([`AgentBuilder::output`](super::AgentBuilder::output)), the typed answer's JSON
        /// as it was checked (an object, a number, ...); otherwise the text answer as a JSON
        /// string.
        answer: Value,
        /// The whole run: answer, history, trajectory, usage and state.
        run: Box<AgentRun>,
    },
}

/// The answer of a finished run as the final event carries it: a typed answer's JSON (`typed`:
/// the run's answer is that JSON's text), or the text answer as a JSON string.
fn answer_json(run: &AgentRun, typed: bool) -> Value {
    let parsed = typed
        .then(|| serde_json::from_str(&run.answer).ok())
        .flatten();
    // A typed answer is always JSON text (the checked value, written out); were it not, the
    // text still reaches the caller, as a string.
    parsed.unwrap_or_else(|| Value::String(run.answer.clone()))
}

impl RunEvent {
    /// The owned event for what a run reported, or `None` for what a stream shows otherwise
    /// (the model's whole reply came as deltas; the answer comes last).
    fn of(event: &AgentEvent<'_>) -> Option<RunEvent> {
        Some(match *event {
            AgentEvent::StepStarted { step } => RunEvent::StepStarted { step },
            AgentEvent::ToolCalled { step, call } => RunEvent::ToolStarted {
                step,
                call: call.clone(),
            },
            AgentEvent::ToolProgress {
                step,
                call_id,
                tool,
                progress,
            } => RunEvent::ToolProgress {
                step,
                call_id: call_id.to_owned(),
                tool: tool.to_owned(),
                progress: progress.clone(),
            },
            AgentEvent::ToolLog {
                step,
                call_id,
                tool,
                level,
                message,
            } => RunEvent::ToolLog {
                step,
                call_id: call_id.to_owned(),
                tool: tool.to_owned(),
                level,
                message: message.to_owned(),
            },
            AgentEvent::ToolFinished { step, record } => RunEvent::ToolFinished {
                step,
                record: record.clone(),
            },
            AgentEvent::StepFinished { record } => RunEvent::StepFinished {
                record: record.clone(),
            },
            // A nested agent's events reach the stream as its tool's progress.
            AgentEvent::ModelReplied { .. }
            | AgentEvent::Answer { .. }
            | AgentEvent::Nested { .. } => return None,
        })
    }

    /// The owned event for a piece of step `step`'s reply.
    fn delta(step: usize, delta: StreamDelta) -> Option<RunEvent> {
        match delta {
            StreamDelta::Text(text) => Some(RunEvent::TextDelta { step, text }),
            StreamDelta::ToolCall {
                index,
                id,
                name,
                arguments,
            } => Some(RunEvent::ToolCallDelta {
                step,
                index,
                id,
                name,
                arguments,
            }),
            _ => None,
        }
    }
}

/// Where a streamed run sends its events: the agent's own callback, then the stream's channel.
#[derive(Clone)]
pub(super) struct Sinks {
    pub(super) on_event: Option<Arc<EventFn>>,
    /// The channel of a streamed run; `None` for [`Agent::run`](super::Agent::run).
    pub(super) stream: Option<UnboundedSender<RunEvent>>,
}

impl Sinks {
    /// The callback the run reports through: the agent's, plus the stream's when streamed.
    pub(super) fn callback(&self) -> Option<Arc<EventFn>> {
        let Some(sender) = self.stream.clone() else {
            return self.on_event.clone();
        };
        let own = self.on_event.clone();
        Some(Arc::new(move |event: &AgentEvent<'_>| {
            if let Some(own) = &own {
                own(event);
            }
            if let Some(event) = RunEvent::of(event) {
                // A stream dropped mid-run has no receiver; its run is being dropped too.
                let _ = sender.send(event);
            }
        }))
    }

    /// Passes a piece of step `step`'s reply to the stream.
    pub(super) fn delta(&self, step: usize, delta: StreamDelta) {
        if let (Some(sender), Some(event)) = (&self.stream, RunEvent::delta(step, delta)) {
            let _ = sender.send(event);
        }
    }
}

/// The stream [`Agent::run_stream`](super::Agent::run_stream) returns: it drives the run as it
/// is polled, yields each event as it happens, and ends with the answer or the error. Dropping
/// it drops the run: the model call in flight is abandoned and the contexts of the tool calls
/// in flight are cancelled.
pub struct RunStream<'a> {
    run: Option<BoxFuture<'a, Result<AgentRun, AgentError>>>,
    events: UnboundedReceiver<RunEvent>,
    outcome: Option<Result<AgentRun, AgentError>>,
    /// Whether the answer is a typed answer's JSON text.
    typed: bool,
}

impl<'a> RunStream<'a> {
    pub(super) fn new(
        run: BoxFuture<'a, Result<AgentRun, AgentError>>,
        events: UnboundedReceiver<RunEvent>,
        typed: bool,
    ) -> Self {
        RunStream {
            run: Some(run),
            events,
            outcome: None,
            typed,
        }
    }
}

impl std::fmt::Debug for RunStream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunStream")
            .field("running", &self.run.is_some())
            .finish_non_exhaustive()
    }
}

impl Stream for RunStream<'_> {
    type Item = Result<RunEvent, AgentError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Poll::Ready(Some(event)) = this.events.poll_recv(cx) {
            return Poll::Ready(Some(Ok(event)));
        }
        if let Some(run) = &mut this.run {
            match run.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(outcome) => {
                    this.run = None;
                    this.outcome = Some(outcome);
                }
            }
        }
        // What the run reported before it ended comes before its outcome.
        if let Ok(event) = this.events.try_recv() {
            return Poll::Ready(Some(Ok(event)));
        }
        let typed = this.typed;
        Poll::Ready(this.outcome.take().map(|outcome| {
            outcome.map(|run| RunEvent::Answer {
                answer: answer_json(&run, typed),
                run: Box::new(run),
            })
        }))
    }
}
