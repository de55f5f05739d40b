//! The one way to run an agent: [`RunRequest`], from [`Agent::run`] or [`Agent::resume`] (and a
//! [`TypedAgent`]'s), set up with state, a conversation or a stream, then awaited.

use std::future::IntoFuture;

use super::journal::Journal;
use super::step::Runner;
use super::stream::RunStream;
use super::{Agent, AgentError, AgentRun, Conversation, Decision, ResumeToken};
#[cfg(doc)]
use super::{AgentBuilder, TypedAgent};
use crate::models::BoxFuture;
use crate::state::AgentState;

/// How a run's text answer becomes its `O`: as it is, or read as a typed answer.
pub(super) type ReadAnswer<O> = fn(AgentRun) -> Result<AgentRun<O>, AgentError>;

/// Where a run starts: a new input, or a paused run's token and the decisions on its calls.
enum Start {
    Input(String),
    Resume(Box<ResumeToken>, Vec<Decision>),
}

/// A run about to start: made by [`Agent::run`] or [`Agent::resume`] (or a [`TypedAgent`]'s),
/// set up with [`state`](Self::state), [`conversation`](Self::conversation), and then awaited
/// (it is [`IntoFuture`]) or [`stream`](Self::stream)ed. Every setting goes with every other.
///
/// Awaiting it runs the agent until an exit condition, the step limit or the deadline.
/// Dropping the future stops the run, and any tool calls in flight with it: their contexts
/// are cancelled (a sync tool on the blocking pool sees `is_cancelled()`, an async tool's
/// future is dropped).
///
/// ```
/// use toolkit::agent::{Agent, Conversation};
/// use toolkit::models::{ModelReply, ScriptedModel};
/// use toolkit::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(AgentState, Default, Serialize, Deserialize)]
/// struct Notes {
///     seen: Vec<String>,
/// }
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let agent = Agent::builder(ScriptedModel::new([ModelReply::text("hi")])).build();
/// let mut conversation = Conversation::new();
/// let run = agent
///     .run("hello")
///     .state(Box::new(Notes::default()))
///     .conversation(&mut conversation)
///     .await
///     .unwrap();
/// assert_eq!(run.answer, "hi");
/// assert!(run.state_as::<Notes>().is_some());
/// assert_eq!(conversation.messages.len(), 2);
/// # });
/// ```
#[must_use = "a run does nothing until it is awaited or streamed"]
pub struct RunRequest<'a, O = String> {
    agent: &'a Agent,
    start: Start,
    state: Option<Box<dyn AgentState>>,
    conversation: Option<&'a mut Conversation>,
    read: ReadAnswer<O>,
    /// Where the model and tool calls are made, when not in process.
    journal: Option<&'a dyn Journal>,
}

impl<'a, O> RunRequest<'a, O> {
    pub(super) fn new(agent: &'a Agent, input: String, read: ReadAnswer<O>) -> Self {
        Self::starting(agent, Start::Input(input), read)
    }

    pub(super) fn resuming(
        agent: &'a Agent,
        token: ResumeToken,
        decisions: Vec<Decision>,
        read: ReadAnswer<O>,
    ) -> Self {
        Self::starting(agent, Start::Resume(Box::new(token), decisions), read)
    }

    fn starting(agent: &'a Agent, start: Start, read: ReadAnswer<O>) -> Self {
        RunRequest {
            agent,
            start,
            state: None,
            conversation: None,
            read,
            journal: None,
        }
    }

    /// Runs with `state`: tools wired to state read from and write to it (through
    /// [`Toolbox::call_all_with_state`](crate::Toolbox::call_all_with_state)), and
    /// [`AgentRun::state`] holds it afterwards. A resumed run that ran with state is given it
    /// again, rebuilt by the caller from [`ResumeToken::state`] or its own store.
    pub fn state(mut self, state: Box<dyn AgentState>) -> Self {
        self.state = Some(state);
        self
    }

    /// Runs after the messages of `conversation`, and on success leaves the run's history and
    /// usage in it for the next run (see [`Conversation`]). A run that fails or pauses leaves
    /// the conversation as it was. A resumed run starts from its token's history (which holds
    /// the conversation it paused in) and records into `conversation` when it ends.
    pub fn conversation(mut self, conversation: &'a mut Conversation) -> Self {
        self.conversation = Some(conversation);
        self
    }

    /// The run as a stream of [`StreamItem`](super::StreamItem)s: each
    /// [`AgentEvent`](super::AgentEvent) as it happens, the model's text and tool calls as it
    /// writes them (through [`ChatModel::chat_stream`](crate::models::ChatModel::chat_stream);
    /// the HTTP clients stream whatever their `streaming` setting) included, and last the
    /// finished run with its answer (typed, for a [`TypedAgent`]), or the [`AgentError`]. The
    /// agent's own [`on_event`](AgentBuilder::on_event) callback still sees every event.
    ///
    /// The run goes on only while the stream is polled. Dropping the stream stops the run, and
    /// any tool calls in flight with it: their contexts are cancelled.
    ///
    /// ```
    /// use futures::StreamExt;
    /// use toolkit::agent::{Agent, AgentEvent, StreamItem};
    /// use toolkit::models::{ModelReply, ScriptedModel};
    /// use toolkit::prelude::*;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let model = ScriptedModel::new([
    ///     ModelReply::calls([ToolCall::new("missing", json!({}))]),
    ///     ModelReply::text("done"),
    /// ]);
    /// let agent = Agent::builder(model).build();
    /// let mut stream = agent.run("go").stream();
    /// let mut text = String::new();
    /// while let Some(item) = stream.next().await {
    ///     match item.unwrap() {
    ///         StreamItem::Event(AgentEvent::TextDelta { text: piece, .. }) => text.push_str(&piece),
    ///         StreamItem::Done(run) => assert_eq!(run.answer, "done"),
    ///         _ => {}
    ///     }
    /// }
    /// assert_eq!(text, "done");
    /// # });
    /// ```
    pub fn stream(self) -> RunStream<'a, O>
    where
        O: Send + 'a,
    {
        let (sender, events) = tokio::sync::mpsc::unbounded_channel();
        RunStream::new(Box::pin(self.go(Some(sender))), events)
    }

    /// Makes the run's model and tool calls through `journal` (`toolkit::durable`'s).
    #[cfg(feature = "restate")]
    pub(crate) fn journal(mut self, journal: &'a dyn Journal) -> Self {
        self.journal = Some(journal);
        self
    }

    async fn go(
        self,
        stream: Option<tokio::sync::mpsc::UnboundedSender<super::AgentEvent>>,
    ) -> Result<AgentRun<O>, AgentError> {
        let mut runner = Runner::new(self.agent, self.state, stream);
        if let Some(journal) = self.journal {
            runner.journal = journal;
        }
        let conversation = self.conversation;
        let run = match self.start {
            Start::Input(input) => {
                let earlier = conversation.as_ref().map(|c| c.messages.clone());
                runner.run_after(earlier.unwrap_or_default(), input).await?
            }
            Start::Resume(token, decisions) => runner.resume(*token, decisions).await?,
        };
        if let Some(conversation) = conversation {
            conversation.record(&run);
        }
        (self.read)(run)
    }
}

impl<'a, O: Send + 'a> IntoFuture for RunRequest<'a, O> {
    type Output = Result<AgentRun<O>, AgentError>;
    type IntoFuture = BoxFuture<'a, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.go(None))
    }
}

impl<O> std::fmt::Debug for RunRequest<'_, O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let resume = matches!(self.start, Start::Resume(..));
        f.debug_struct("RunRequest")
            .field("resume", &resume)
            .field("state", &self.state.as_ref().map(|state| state.to_json()))
            .field("conversation", &self.conversation.is_some())
            .finish_non_exhaustive()
    }
}

/// The answer as it is: the text, or a typed answer's JSON text.
pub(super) fn untyped(run: AgentRun) -> Result<AgentRun, AgentError> {
    Ok(run)
}
