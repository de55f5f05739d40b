//! Live progress of a run, for a terminal or UI.

use super::{StepRecord, ToolCallRecord};
use crate::ToolCall;
use crate::context::{LogLevel, Progress};
use crate::models::ModelReply;

/// Something that happened in a run, passed to the [`on_event`](super::AgentBuilder::on_event)
/// callback as it happens.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum AgentEvent<'a> {
    /// A step began (numbered from 1).
    StepStarted {
        /// The step.
        step: usize,
    },
    /// The model replied.
    ModelReplied {
        /// The step.
        step: usize,
        /// The reply.
        reply: &'a ModelReply,
    },
    /// A tool call is about to run.
    ToolCalled {
        /// The step.
        step: usize,
        /// The call.
        call: &'a ToolCall,
    },
    /// A running tool reported progress ([`ToolContext::progress`](crate::ToolContext::progress)).
    /// It comes between the call's `ToolCalled` and `ToolFinished`, from the thread the tool
    /// runs on.
    ToolProgress {
        /// The step.
        step: usize,
        /// The id of the call (every call of a run has one).
        call_id: &'a str,
        /// The tool.
        tool: &'a str,
        /// How far it has come.
        progress: &'a Progress,
    },
    /// A running tool logged a message ([`ToolContext::log`](crate::ToolContext::log)).
    ToolLog {
        /// The step.
        step: usize,
        /// The id of the call.
        call_id: &'a str,
        /// The tool.
        tool: &'a str,
        /// The level.
        level: LogLevel,
        /// The message.
        message: &'a str,
    },
    /// A tool call finished.
    ToolFinished {
        /// The step.
        step: usize,
        /// The call, its result and duration.
        record: &'a ToolCallRecord,
    },
    /// A step finished: its thought and its calls (the trajectory's entry).
    StepFinished {
        /// The step's record.
        record: &'a StepRecord,
    },
    /// The run has its answer.
    Answer {
        /// The answer.
        answer: &'a str,
    },
    /// An event of an agent this run called as a tool
    /// ([`Agent::into_tool`](super::Agent::into_tool)), as it happens. An agent's run called
    /// from that one arrives nested once more.
    Nested {
        /// The name the inner agent was called by (its tool's name).
        agent: &'a str,
        /// The id of the call that runs it.
        call_id: &'a str,
        /// How deep the inner run is: 1 for an agent this run called.
        depth: usize,
        /// The inner run's event.
        event: &'a AgentEvent<'a>,
    },
}
