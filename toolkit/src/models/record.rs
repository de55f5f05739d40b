//! Recording a run's model exchanges to JSON and replaying them offline.

use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{BoxFuture, ChatModel, ChatRequest, Message, ModelError, ModelReply};

/// One model call: the conversation it was sent and the reply it gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// The messages sent.
    pub messages: Vec<Message>,
    /// The reply received.
    pub reply: ModelReply,
}

/// A model wrapper that keeps every exchange with the model it wraps, to save as JSON.
///
/// ```
/// use toolkit::models::{ModelReply, Recorder, Replayer, ScriptedModel};
/// use toolkit::agent::Agent;
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let recorder = std::sync::Arc::new(Recorder::new(ScriptedModel::new([ModelReply::text("hi")])));
/// let live = Agent::builder(recorder.clone()).build().run("hello").await.unwrap();
/// let replay = Replayer::new(recorder.exchanges());
/// let again = Agent::builder(replay).build().run("hello").await.unwrap();
/// assert_eq!(again.history, live.history);
/// # });
/// ```
pub struct Recorder<M> {
    model: M,
    exchanges: Mutex<Vec<Exchange>>,
}

impl<M: ChatModel> Recorder<M> {
    /// Wraps `model`.
    pub fn new(model: M) -> Self {
        Recorder {
            model,
            exchanges: Mutex::new(Vec::new()),
        }
    }

    /// The exchanges so far.
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.lock().clone()
    }

    /// Writes the exchanges so far to `path` as pretty JSON.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), ModelError> {
        let path = path.as_ref();
        let failed = |message: String| ModelError::Recording {
            path: path.display().to_string(),
            message,
        };
        let json =
            serde_json::to_string_pretty(&*self.lock()).map_err(|e| failed(e.to_string()))?;
        std::fs::write(path, json).map_err(|e| failed(e.to_string()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Exchange>> {
        self.exchanges
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<M: ChatModel> ChatModel for Recorder<M> {
    fn chat<'a>(
        &'a self,
        request: ChatRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(async move {
            let reply = self.model.chat(request).await?;
            self.lock().push(Exchange {
                messages: request.messages.to_vec(),
                reply: reply.clone(),
            });
            Ok(reply)
        })
    }

    fn name(&self) -> &str {
        self.model.name()
    }

    fn caps_replies(&self) -> bool {
        self.model.caps_replies()
    }
}

/// A model that plays back recorded exchanges, checking that each request matches the
/// recording so a changed agent fails loudly instead of drifting.
pub struct Replayer {
    exchanges: Vec<Exchange>,
    next: Mutex<usize>,
}

impl Replayer {
    /// Plays back `exchanges` in order.
    pub fn new(exchanges: Vec<Exchange>) -> Self {
        Replayer {
            exchanges,
            next: Mutex::new(0),
        }
    }

    /// Reads a recording written by [`Recorder::save`].
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ModelError> {
        let path = path.as_ref();
        let failed = |message: String| ModelError::Recording {
            path: path.display().to_string(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| failed(e.to_string()))?;
        let exchanges = serde_json::from_str(&text).map_err(|e| failed(e.to_string()))?;
        Ok(Replayer::new(exchanges))
    }

    fn reply(&self, request: &ChatRequest<'_>) -> Result<ModelReply, ModelError> {
        let mut next = self
            .next
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let index = *next;
        let exchange = self
            .exchanges
            .get(index)
            .ok_or(ModelError::ScriptExhausted { given: index })?;
        if exchange.messages != request.messages {
            let at = exchange
                .messages
                .iter()
                .zip(request.messages)
                .position(|(a, b)| a != b)
                .unwrap_or(exchange.messages.len().min(request.messages.len()));
            return Err(ModelError::ReplayDiverged {
                index,
                message: format!(
                    "message {at} differs (recorded {} messages, asked with {})",
                    exchange.messages.len(),
                    request.messages.len()
                ),
            });
        }
        *next += 1;
        Ok(exchange.reply.clone())
    }
}

impl ChatModel for Replayer {
    fn chat<'a>(
        &'a self,
        request: ChatRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(std::future::ready(self.reply(&request)))
    }

    fn name(&self) -> &str {
        "replay"
    }
}
