//! What ties a run to whoever listens and to the run that called it as a tool: the one route of
//! its events (the agent's callback, a stream, the caller, nested), its tokens to the caller's
//! usage, its depth bounds recursion, and the run tree's budget is shared through it.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc::UnboundedSender;

use super::budget::{RunBudget, Spending};
use super::{AgentEvent, EventFn};
use crate::ToolContext;
use crate::models::{StreamDelta, Usage};

/// One run's link: its own callback, its stream, the run that called it (if any), and the usage
/// its own inner runs reported. Reached by the tools of the run through their scope's data, so
/// an agent called as a tool finds the run that called it.
pub(super) struct RunLink {
    on_event: Option<Arc<EventFn>>,
    /// The channel of a streamed run.
    stream: Option<UnboundedSender<AgentEvent>>,
    /// The call that started this run, when it runs as a tool.
    called: Option<Called>,
    /// The run that made that call, when an agent did (not an MCP client).
    parent: Option<Arc<RunLink>>,
    depth: usize,
    /// Tokens of the inner runs, added as their models replied and taken when this run ends.
    nested_usage: Mutex<Option<Usage>>,
    /// The run tree's budget: the root's, shared by every run below it.
    budget: Arc<Spending>,
}

/// The call that runs an agent as a tool.
struct Called {
    /// The inner agent's tool name.
    agent: Arc<str>,
    call_id: String,
    /// The call's context, which reports the inner run's steps as the call's progress.
    ctx: ToolContext,
    max_steps: usize,
}

/// The link as a value of the run's [`Data`](crate::context::Data): a type of this module's
/// own, which no tool can name.
#[derive(Clone)]
pub(super) struct LinkData(pub(super) Arc<RunLink>);

impl RunLink {
    /// The link of a run no agent called, with the tree's `budget`, streamed into `stream`.
    pub(super) fn root(
        on_event: Option<Arc<EventFn>>,
        stream: Option<UnboundedSender<AgentEvent>>,
        budget: RunBudget,
    ) -> Arc<RunLink> {
        Arc::new(RunLink {
            on_event,
            stream,
            called: None,
            parent: None,
            depth: 0,
            nested_usage: Mutex::new(None),
            budget: Arc::new(Spending::new(budget)),
        })
    }

    /// The link of a run that `ctx`'s call starts as tool `agent`, under `parent` (none when
    /// the caller is no agent, e.g. an MCP client). The run spends `parent`'s budget, or
    /// `budget` when it has no parent.
    pub(super) fn child(
        parent: Option<Arc<RunLink>>,
        on_event: Option<Arc<EventFn>>,
        agent: Arc<str>,
        ctx: ToolContext,
        (max_steps, budget): (usize, RunBudget),
    ) -> Arc<RunLink> {
        let depth = parent.as_ref().map_or(0, |parent| parent.depth) + 1;
        let budget = match &parent {
            Some(parent) => Arc::clone(&parent.budget),
            None => Arc::new(Spending::new(budget)),
        };
        let call_id = ctx.call_id().unwrap_or_default().to_owned();
        Arc::new(RunLink {
            on_event,
            stream: None,
            called: Some(Called {
                agent,
                call_id,
                ctx,
                max_steps,
            }),
            parent,
            depth,
            nested_usage: Mutex::new(None),
            budget,
        })
    }

    /// How deep this run is: 0 for a run no agent called.
    pub(super) fn depth(&self) -> usize {
        self.depth
    }

    /// What the run tree has spent of its budget.
    pub(super) fn budget(&self) -> &Spending {
        &self.budget
    }

    /// Whether anyone listens to this run's events: events are built only then.
    pub(super) fn listens(&self) -> bool {
        self.on_event.is_some() || self.stream.is_some() || self.called.is_some()
    }

    /// Whether the run is streamed, so the model is asked for its reply piece by piece.
    pub(super) fn streams(&self) -> bool {
        self.stream.is_some()
    }

    /// Passes `event` to this run's callback and stream, then, when the run is a tool call,
    /// its steps to the call's progress and the event up to the calling run, nested.
    pub(super) fn emit(&self, event: AgentEvent) {
        if let Some(callback) = &self.on_event {
            callback(&event);
        }
        if let Some(stream) = &self.stream {
            // A stream dropped mid-run has no receiver; its run is being dropped too. A
            // streamed run is a root: nothing above it needs the event.
            let _ = stream.send(event);
            return;
        }
        let Some(called) = &self.called else { return };
        if let AgentEvent::StepStarted { step } = event {
            let (done, total) = (step as f64, Some(called.max_steps as f64));
            let message = format!("{}: step {step}", called.agent);
            called.ctx.progress(done, total, message);
        }
        if let Some(parent) = &self.parent {
            parent.emit(AgentEvent::Nested {
                agent: called.agent.to_string(),
                call_id: called.call_id.clone(),
                depth: self.depth,
                event: Box::new(event),
            });
        }
    }

    /// Passes a piece of step `step`'s reply on, as its event.
    pub(super) fn emit_delta(&self, step: usize, delta: StreamDelta) {
        if let Some(event) = AgentEvent::delta(step, delta) {
            self.emit(event);
        }
    }

    /// Adds a model call's tokens to every run above this one.
    pub(super) fn roll_up(&self, usage: Usage) {
        let mut above = self.parent.as_ref();
        while let Some(parent) = above {
            let mut nested = parent
                .nested_usage
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            *nested.get_or_insert_with(Usage::default) += usage;
            drop(nested);
            above = parent.parent.as_ref();
        }
    }

    /// The tokens the runs below this one used, taken.
    pub(super) fn take_nested_usage(&self) -> Option<Usage> {
        (self.nested_usage.lock())
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}
