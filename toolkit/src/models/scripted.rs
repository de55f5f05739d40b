//! A model that replies from a script: a list of replies, or a closure.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{BoxFuture, ChatModel, ChatRequest, ModelError, ModelReply};

type ReplyFn = dyn Fn(&ChatRequest<'_>) -> Result<ModelReply, ModelError> + Send + Sync;

/// A model for tests and examples: it gives the replies of a list in order, or asks a closure.
///
/// ```
/// use toolkit::models::{ModelReply, ScriptedModel};
/// use toolkit::agent::Agent;
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let model = ScriptedModel::new([ModelReply::text("Paris")]);
/// let run = Agent::builder(model).build().run("Capital of France?").await.unwrap();
/// assert_eq!(run.answer, "Paris");
/// # });
/// ```
pub struct ScriptedModel {
    script: Script,
    calls: AtomicUsize,
}

enum Script {
    List(Mutex<std::collections::VecDeque<ModelReply>>),
    Closure(Box<ReplyFn>),
}

impl ScriptedModel {
    /// A model that gives `replies` in order, then fails with
    /// [`ModelError::ScriptExhausted`].
    pub fn new(replies: impl IntoIterator<Item = ModelReply>) -> Self {
        ScriptedModel {
            script: Script::List(Mutex::new(replies.into_iter().collect())),
            calls: AtomicUsize::new(0),
        }
    }

    /// A model that asks `reply` for each reply; it sees the whole request.
    pub fn from_fn(
        reply: impl Fn(&ChatRequest<'_>) -> Result<ModelReply, ModelError> + Send + Sync + 'static,
    ) -> Self {
        ScriptedModel {
            script: Script::Closure(Box::new(reply)),
            calls: AtomicUsize::new(0),
        }
    }

    /// How many times the model was asked.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::Relaxed)
    }

    fn next(&self, request: &ChatRequest<'_>) -> Result<ModelReply, ModelError> {
        let given = self.calls.fetch_add(1, Ordering::Relaxed);
        match &self.script {
            Script::Closure(reply) => reply(request),
            Script::List(replies) => replies
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .pop_front()
                .ok_or(ModelError::ScriptExhausted { given }),
        }
    }
}

impl ChatModel for ScriptedModel {
    fn chat<'a>(
        &'a self,
        request: ChatRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        let reply = self.next(&request);
        Box::pin(std::future::ready(reply))
    }

    fn name(&self) -> &str {
        "scripted"
    }
}
