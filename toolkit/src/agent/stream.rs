//! A run as a stream of its events, ending with the run: [`RunRequest::stream`].

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use tokio::sync::mpsc::UnboundedReceiver;

#[cfg(doc)]
use super::RunRequest;
use super::{AgentError, AgentEvent, AgentRun};
use crate::models::BoxFuture;

/// An item of a [`RunStream`]: an event as it happens, and last the finished run.
#[derive(Debug)]
#[non_exhaustive]
// Events are most of a stream and go unboxed; the one finished run is boxed.
#[allow(clippy::large_enum_variant)]
pub enum StreamItem<O = String> {
    /// Something that happened in the run (the same events the
    /// [`on_event`](super::AgentBuilder::on_event) callback sees, the model's reply as it
    /// arrives included).
    Event(AgentEvent),
    /// The finished run, its answer an `O` (the typed answer for a
    /// [`TypedAgent`](super::TypedAgent)); the last item of a run that succeeded.
    Done(Box<AgentRun<O>>),
}

/// The stream [`RunRequest::stream`] returns: it drives the run as it is polled, yields each
/// event as it happens, and ends with [`StreamItem::Done`] or the [`AgentError`]. Dropping it
/// drops the run: the model call in flight is abandoned and the contexts of the tool calls in
/// flight are cancelled.
pub struct RunStream<'a, O = String> {
    run: Option<BoxFuture<'a, Result<AgentRun<O>, AgentError>>>,
    events: UnboundedReceiver<AgentEvent>,
    outcome: Option<Result<AgentRun<O>, AgentError>>,
}

impl<'a, O> RunStream<'a, O> {
    pub(super) fn new(
        run: BoxFuture<'a, Result<AgentRun<O>, AgentError>>,
        events: UnboundedReceiver<AgentEvent>,
    ) -> Self {
        RunStream {
            run: Some(run),
            events,
            outcome: None,
        }
    }
}

// The run is boxed and pinned already, and an answer is only ever moved whole.
impl<O> Unpin for RunStream<'_, O> {}

impl<O> std::fmt::Debug for RunStream<'_, O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunStream")
            .field("running", &self.run.is_some())
            .finish_non_exhaustive()
    }
}

impl<O> Stream for RunStream<'_, O> {
    type Item = Result<StreamItem<O>, AgentError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Poll::Ready(Some(event)) = this.events.poll_recv(cx) {
            return Poll::Ready(Some(Ok(StreamItem::Event(event))));
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
            return Poll::Ready(Some(Ok(StreamItem::Event(event))));
        }
        Poll::Ready(
            (this.outcome.take()).map(|outcome| outcome.map(|run| StreamItem::Done(Box::new(run)))),
        )
    }
}
