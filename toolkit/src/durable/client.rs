//! Restate's HTTP ingress and admin API, typed for the workflow `Agent`.

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::workflow::SERVICE;
use super::{RunOutcome, RunStatus};
use crate::agent::Decision;

/// Why a call to Restate failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DurableError {
    /// Restate could not be reached, or its answer could not be read.
    #[error("{url}: {message}")]
    Http {
        /// What was asked.
        url: String,
        /// The transport's reason.
        message: String,
    },
    /// Restate answered with an error: a failed run's message, a run that is not waiting for
    /// approval, an unknown run.
    #[error("{url} answered {status}: {body}")]
    Status {
        /// What was asked.
        url: String,
        /// The HTTP status.
        status: u16,
        /// Restate's message.
        body: String,
    },
}

/// The typed client of durable runs, over Restate's ingress (`http://host:8080` by default).
///
/// ```no_run
/// use toolkit::agent::{Decision, Verdict};
/// use toolkit::durable::{DurableClient, RunStatus};
///
/// # async fn demo() -> Result<(), toolkit::durable::DurableError> {
/// let client = DurableClient::new("http://127.0.0.1:8080");
/// client.start("order-7", "refund order 7").await?;
/// if let RunStatus::Waiting { pending, .. } = client.inspect("order-7").await? {
///     let yes = pending.iter().map(Decision::approve).collect();
///     client.approve("order-7", yes).await?;
/// }
/// println!("{}", client.outcome("order-7").await?.answer);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct DurableClient {
    http: reqwest::Client,
    ingress: String,
}

impl DurableClient {
    /// A client of the Restate ingress at `ingress` (its base URL).
    pub fn new(ingress: impl Into<String>) -> Self {
        let ingress = ingress.into().trim_end_matches('/').to_owned();
        DurableClient {
            http: reqwest::Client::new(),
            ingress,
        }
    }

    /// Registers the worker serving at `worker` (a [`DurableAgent::serve`] listener's URL)
    /// with the Restate server whose admin API is at `admin` (`http://host:9070` by default).
    ///
    /// [`DurableAgent::serve`]: super::DurableAgent::serve
    pub async fn register(admin: &str, worker: &str) -> Result<(), DurableError> {
        let url = format!("{}/deployments", admin.trim_end_matches('/'));
        let body = serde_json::json!({"uri": worker, "force": true});
        send(json(reqwest::Client::new().post(&url), &body), &url)
            .await
            .map(drop)
    }

    /// Starts run `id` on `input`; a run with that id that already started is left as it is.
    pub async fn start(&self, id: &str, input: &str) -> Result<(), DurableError> {
        let url = self.handler(id, "run/send");
        send(json(self.http.post(&url), &input), &url)
            .await
            .map(drop)
    }

    /// Waits for run `id` to end: its outcome, or [`DurableError::Status`] with why it failed.
    pub async fn outcome(&self, id: &str) -> Result<RunOutcome, DurableError> {
        let url = format!(
            "{}/restate/workflow/{SERVICE}/{}/attach",
            self.ingress,
            key(id)
        );
        read(send(self.http.get(&url), &url).await?, &url)
    }

    /// Where run `id` is.
    pub async fn inspect(&self, id: &str) -> Result<RunStatus, DurableError> {
        let url = self.handler(id, "inspect");
        read(send(self.http.post(&url), &url).await?, &url)
    }

    /// Gives run `id`, waiting for approval, its `decisions`.
    pub async fn approve(&self, id: &str, decisions: Vec<Decision>) -> Result<(), DurableError> {
        self.post(id, "approve", &decisions).await
    }

    async fn post(
        &self,
        id: &str,
        handler: &str,
        body: &impl Serialize,
    ) -> Result<(), DurableError> {
        let url = self.handler(id, handler);
        send(json(self.http.post(&url), body), &url).await.map(drop)
    }

    fn handler(&self, id: &str, handler: &str) -> String {
        format!("{}/{SERVICE}/{}/{handler}", self.ingress, key(id))
    }
}

/// A run id as one path segment.
fn key(id: &str) -> String {
    utf8_percent_encode(id, NON_ALPHANUMERIC).to_string()
}

/// `request` with `body` as its JSON (reqwest's `json` feature is off in this crate).
fn json(request: reqwest::RequestBuilder, body: &impl Serialize) -> reqwest::RequestBuilder {
    // Decisions, a string and a JSON value: serde_json writes each of them.
    let body = serde_json::to_vec(body).unwrap_or_default();
    request
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body)
}

/// The body of a successful answer to `request`.
async fn send(request: reqwest::RequestBuilder, url: &str) -> Result<Vec<u8>, DurableError> {
    let http = |error: reqwest::Error| DurableError::Http {
        url: url.to_owned(),
        message: error.to_string(),
    };
    let response = request.send().await.map_err(http)?;
    let status = response.status();
    let body = response.bytes().await.map_err(http)?;
    if !status.is_success() {
        return Err(DurableError::Status {
            url: url.to_owned(),
            status: status.as_u16(),
            body: String::from_utf8_lossy(&body).into_owned(),
        });
    }
    Ok(body.to_vec())
}

fn read<T: DeserializeOwned>(body: Vec<u8>, url: &str) -> Result<T, DurableError> {
    serde_json::from_slice(&body).map_err(|error| DurableError::Http {
        url: url.to_owned(),
        message: format!("the answer is not what the workflow returns: {error}"),
    })
}
