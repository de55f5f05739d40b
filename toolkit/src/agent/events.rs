//! Live progress of a run, for a terminal, a UI or a stream: one event type, whether it reaches
//! the [`on_event`](super::AgentBuilder::on_event) callback, a [`RunStream`](super::RunStream)
//! or, nested, the run that called this one as a tool.

use super::{StepRecord, ToolCallRecord};
use crate::ToolCall;
use crate::context::{LogLevel, Progress};
use crate::models::{ModelReply, StreamDelta};

/// Something that happened in a run, as it happens. Built only when someone listens: an
/// [`on_event`](super::AgentBuilder::on_event) callback, a stream
/// ([`RunRequest::stream`](super::RunRequest::stream)) or a calling agent.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum AgentEvent {
    /// A step began (numbered from 1).
    StepStarted {
        /// The step.
        step: usize,
    },
    /// More of the model's text, as it arrives; only in a streamed run.
    TextDelta {
        /// The step.
        step: usize,
        /// The next piece of text.
        text: String,
    },
    /// More of a tool call the model is writing, as it arrives; only in a streamed run.
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
    /// The model replied (in a streamed run, after its deltas).
    ModelReplied {
        /// The step.
        step: usize,
        /// The reply.
        reply: ModelReply,
    },
    /// A tool call is about to run.
    ToolCalled {
        /// The step.
        step: usize,
        /// The call, with its id.
        call: ToolCall,
    },
    /// A running tool reported progress ([`ToolContext::progress`](crate::ToolContext::progress)).
    /// It comes between the call's `ToolCalled` and `ToolFinished`, from the thread the tool
    /// runs on.
    ToolProgress {
        /// The step.
        step: usize,
        /// The id of the call (every call of a run has one).
        call_id: String,
        /// The tool.
        tool: String,
        /// How far it has come.
        progress: Progress,
    },
    /// A running tool logged a message ([`ToolContext::log`](crate::ToolContext::log)).
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
    /// A step finished: its thought and its calls (the trajectory's entry).
    StepFinished {
        /// The step's record.
        record: StepRecord,
    },
    /// The run has its answer: the text, or a typed answer's JSON text.
    Answer {
        /// The answer.
        answer: String,
    },
    /// An event of an agent this run called as a tool
    /// ([`Agent::into_tool`](super::Agent::into_tool)), as it happens. An agent's run called
    /// from that one arrives nested once more.
    Nested {
        /// The name the inner agent was called by (its tool's name).
        agent: String,
        /// The id of the call that runs it.
        call_id: String,
        /// How deep the inner run is: 1 for an agent this run called.
        depth: usize,
        /// The inner run's event.
        event: Box<AgentEvent>,
    },
}

impl AgentEvent {
    /// The event for a piece of step `step`'s reply, or `None` for a piece of no kind shown.
    pub(super) fn delta(step: usize, delta: StreamDelta) -> Option<AgentEvent> {
        match delta {
            StreamDelta::Text(text) => Some(AgentEvent::TextDelta { step, text }),
            StreamDelta::ToolCall {
                index,
                id,
                name,
                arguments,
            } => Some(AgentEvent::ToolCallDelta {
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
