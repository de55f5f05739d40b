//! What a running task asks its client (MCP 2026-07-28, the Tasks extension): a task's body
//! lives on the server, so its `ctx.elicit`, `ctx.sample` or `ctx.roots` waits, the task
//! shows `input_required` with the questions on `tasks/get`, and `tasks/update` answers them
//! by key; the body then goes on. Questions waiting together are answered one at a time, or
//! all at once; a key nothing waits for is ignored, as the extension says.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ClientCapabilities, InputRequest, InputRequests, InputResponses};
use serde_json::Value;
use tokio::sync::{Notify, oneshot};

use super::input_required::{Rounds, declares};
use crate::context::ContextError;

/// The questions one task waits on.
#[derive(Default)]
pub(super) struct TaskInput {
    waiting: Mutex<Waiting>,
    /// Woken by the first question: a call waiting on its client becomes a task then.
    asked: Notify,
}

#[derive(Default)]
struct Waiting {
    /// How many questions the task asked: an unkeyed one is `ask-N`, unique over the task.
    asked: usize,
    questions: HashMap<String, (InputRequest, oneshot::Sender<Value>)>,
}

impl TaskInput {
    /// The questions not answered yet, `None` when the task waits on none.
    pub(super) fn pending(&self) -> Option<InputRequests> {
        let waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        let questions = waiting.questions.iter();
        let pending: InputRequests =
            (questions.map(|(key, (question, _))| (key.clone(), question.clone()))).collect();
        (!pending.is_empty()).then_some(pending)
    }

    /// `tasks/update`: each answer to the question waiting under its key.
    pub(super) fn answer(&self, responses: InputResponses) {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        for (key, answer) in responses {
            if let Some((_, answered)) = waiting.questions.remove(&key) {
                // The body may have stopped waiting (cancelled): its answer goes nowhere.
                let _ = answered.send(answer);
            }
        }
    }

    /// Resolves once the task's body has asked its client something (at once if it has).
    pub(super) async fn asked(&self) {
        self.asked.notified().await;
    }

    /// Waits for the answer to `question` (under `key`, or `ask-N`), once `check` read it.
    async fn ask(
        &self,
        key: Option<String>,
        question: InputRequest,
        check: impl FnOnce(&Value) -> Result<(), String>,
    ) -> Result<Value, ContextError> {
        let (answered, answer) = oneshot::channel();
        {
            let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
            let key = key.unwrap_or_else(|| format!("ask-{}", waiting.asked));
            waiting.asked += 1;
            waiting.questions.insert(key, (question, answered));
        }
        self.asked.notify_one();
        let answer = answer.await.map_err(|_| ContextError::Cancelled)?;
        check(&answer).map_err(ContextError::InvalidAnswer)?;
        Ok(answer)
    }
}

/// Who answers what a served body asks, when not the client's session: the next round of a
/// 2026-07-28 call ([`Rounds`]), or `tasks/update` of the task it runs as ([`TaskInput`]).
#[derive(Clone)]
pub(super) enum Asker {
    /// The rounds of a multi-round call.
    Rounds(Arc<Rounds>),
    /// The task's questions, and what the request that started it declared.
    Task(Arc<TaskInput>, Option<Arc<ClientCapabilities>>),
}

impl Asker {
    /// How many rounds of answers came before this run (a task runs once: 0).
    pub(super) fn round(&self) -> u32 {
        match self {
            Asker::Rounds(rounds) => rounds.round(),
            Asker::Task(..) => 0,
        }
    }

    /// Whether the request declared `what` in its `_meta`.
    pub(super) fn declares(&self, what: &str) -> bool {
        match self {
            Asker::Rounds(rounds) => rounds.declares(what),
            Asker::Task(_, capabilities) => declares(capabilities.as_deref(), what),
        }
    }

    /// The answer to `question`, once `check` read it.
    pub(super) async fn ask(
        &self,
        key: Option<String>,
        question: InputRequest,
        check: impl FnOnce(&Value) -> Result<(), String> + Send,
    ) -> Result<Value, ContextError> {
        match self {
            Asker::Rounds(rounds) => rounds.ask(key, question, check).await,
            Asker::Task(input, _) => input.ask(key, question, check).await,
        }
    }
}
