//! Durable agents on [Restate](https://restate.dev): an [`Agent`] served as a Restate workflow
//! whose runs survive the worker that runs them.
//!
//! - [`DurableAgent`]: the agent as the workflow `Agent`, served on a listener with
//!   [`DurableAgent::serve`] (an HTTP/2 endpoint the Restate server calls; register it with
//!   [`DurableClient::register`]);
//! - [`DurableClient`]: Restate's ingress, typed: [`start`](DurableClient::start) a run,
//!   [`outcome`](DurableClient::outcome) to await it, [`inspect`](DurableClient::inspect) it,
//!   [`approve`](DurableClient::approve) its waiting calls;
//! - [`RunOutcome`], [`RunStatus`]: what a run gave, and where it is.
//!
//! Each model call of a run is one journaled step (`ctx.run`), each tool call one more: a run
//! whose worker dies is replayed on another from its journal, and no model call or finished
//! tool call is made again. A tool call cut off while it ran is retried when its tool is
//! `idempotent` or `read_only`; any other is answered with an error saying it was interrupted
//! and may have taken effect, so the model decides, and it is never silently run twice. A call
//! that needs approval pauses the run on an awakeable, which a [`Decision`] list resolves.
//!
//! The same [`Agent`] runs in process with [`Agent::run`]; serving it is the only change.
//!
//! ```no_run
//! use toolkit::agent::Agent;
//! use toolkit::durable::{DurableAgent, DurableClient};
//! use toolkit::models::{ModelReply, ScriptedModel};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let agent = Agent::builder(ScriptedModel::new([ModelReply::text("hi")])).build();
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:9080").await?;
//! tokio::spawn(DurableAgent::new(agent).serve(listener));
//! DurableClient::register("http://127.0.0.1:9070", "http://127.0.0.1:9080").await?;
//! let client = DurableClient::new("http://127.0.0.1:8080");
//! client.start("run-1", "hello").await?;
//! assert_eq!(client.outcome("run-1").await?.answer, "hi");
//! # Ok(())
//! # }
//! ```
//!
//! The guarantees, their limits and how this compares with Temporal and Pydantic AI are in
//! the repository's `docs/durable.md`.

mod client;
mod journal;
mod workflow;

use std::sync::Arc;

use hyper::server::conn::http2;
use hyper_util::rt::{TokioExecutor, TokioIo};
use restate_sdk::endpoint::Endpoint;
use restate_sdk::hyper::HyperEndpoint;
use tokio::net::TcpListener;

pub use client::{DurableClient, DurableError};
use workflow::StateKind;
pub use workflow::{DurableAgent, RunOutcome, RunStatus};

use crate::agent::Agent;
#[cfg(doc)]
use crate::agent::Decision;
use crate::context::Cancellation;
use crate::state::AgentState;
use serde::de::DeserializeOwned;

impl DurableAgent {
    /// `agent`, to be served as the workflow `Agent`. Its approvals should come through
    /// Restate: an agent built with an `on_approval` handler decides in the worker, and those
    /// decisions are not journaled.
    pub fn new(agent: Agent) -> Self {
        DurableAgent {
            agent: Arc::new(agent),
            state: None,
        }
    }

    /// Runs the agent with agent state of type `S`, each run starting from `S::default()`: its
    /// tools wired to state read and write it as in process ([`RunRequest::state`]), it is
    /// kept in Restate's state store (the key `agent_state`) after each tool call, journaled
    /// with each call so a replayed run gets it back, and returned in [`RunOutcome::state`].
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    /// use toolkit::agent::Agent;
    /// use toolkit::durable::DurableAgent;
    /// use toolkit::models::{ModelReply, ScriptedModel};
    /// use toolkit::prelude::*;
    ///
    /// #[derive(AgentState, Default, Serialize, Deserialize)]
    /// struct Notes {
    ///     seen: Vec<String>,
    /// }
    ///
    /// let agent = Agent::builder(ScriptedModel::new([ModelReply::text("hi")])).build();
    /// let worker = DurableAgent::new(agent).with_state::<Notes>();
    /// # drop(worker);
    /// ```
    ///
    /// [`RunRequest::state`]: crate::agent::RunRequest::state
    pub fn with_state<S: AgentState + Default + DeserializeOwned>(mut self) -> Self {
        self.state = Some(StateKind {
            new: || Box::new(S::default()),
            restore: |json| match serde_json::from_value::<S>(json) {
                Ok(state) => Ok(Box::new(state)),
                Err(error) => Err(error.to_string()),
            },
        });
        self
    }

    /// Serves the workflow on `listener` (HTTP/2 without TLS, as the Restate server calls a
    /// deployment) until the future is dropped or accepting fails. Dropping it stops every
    /// connection and every run in flight at once, as a worker that dies would.
    pub async fn serve(self, listener: TcpListener) -> std::io::Result<()> {
        let endpoint = HyperEndpoint::new(Endpoint::builder().bind(self).build());
        let stop = Cancellation::new();
        let _stop_all = stop.clone().drop_guard();
        let executor = Stoppable(stop.clone());
        loop {
            let (stream, _) = listener.accept().await?;
            let connection = http2::Builder::new(executor.clone())
                .serve_connection(TokioIo::new(stream), endpoint.clone());
            // A connection that breaks ends its runs' attempts; Restate retries them.
            let serving = async move { drop(connection.await) };
            tokio::spawn(stop.clone().run_until_cancelled_owned(serving));
        }
    }
}

/// Tokio's executor for hyper's streams (where the handlers run), each stopped with `.0`.
#[derive(Clone)]
struct Stoppable(Cancellation);

impl<F> hyper::rt::Executor<F> for Stoppable
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn execute(&self, future: F) {
        TokioExecutor::new().execute(self.0.clone().run_until_cancelled_owned(future));
    }
}
