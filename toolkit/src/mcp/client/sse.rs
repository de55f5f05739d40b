//! The older HTTP+SSE transport (protocol version 2024-11-05), which rmcp 3 no longer ships
//! but many deployed servers still speak: a `GET` opens an event stream whose first `endpoint`
//! event names the URL to `POST` messages to; answers come back as `message` events.
//!
//! Parsing uses `sse-stream`, the SSE parser rmcp itself uses for Streamable HTTP, so this adds
//! no crate to the build.

use std::future::Future;

use futures::StreamExt;
use reqwest::Url;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use sse_stream::SseStream;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Why the SSE transport failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SseError {
    #[error("HTTP request failed: {0}")]
    Http(#[from] reqwest::Error),
    #[error("the server answered {status} to a message")]
    Status { status: reqwest::StatusCode },
    #[error("the event stream ended before the server named its message endpoint")]
    NoEndpoint,
    #[error("the server named an invalid message endpoint {endpoint:?}: {message}")]
    BadEndpoint { endpoint: String, message: String },
    #[error("the event stream failed: {0}")]
    Stream(String),
}

/// A client connection over HTTP+SSE.
pub(crate) struct SseTransport {
    http: reqwest::Client,
    endpoint: Url,
    headers: HeaderMap,
    incoming: mpsc::Receiver<ServerJsonRpcMessage>,
    reader: JoinHandle<()>,
}

impl SseTransport {
    /// Opens the event stream at `url` and waits for the server's `endpoint` event.
    pub(crate) async fn connect(url: &str, headers: HeaderMap) -> Result<Self, SseError> {
        let base = Url::parse(url).map_err(|err| SseError::BadEndpoint {
            endpoint: url.to_owned(),
            message: err.to_string(),
        })?;
        let http = reqwest::Client::new();
        let response = http
            .get(base.clone())
            .headers(headers.clone())
            .header(ACCEPT, HeaderValue::from_static("text/event-stream"))
            .send()
            .await?
            .error_for_status()?;
        let mut events = Box::pin(SseStream::from_bytes_stream(response.bytes_stream()));
        let endpoint = loop {
            match events.next().await {
                Some(Ok(event)) if event.event.as_deref() == Some("endpoint") => {
                    let data = event.data.unwrap_or_default();
                    break base
                        .join(data.trim())
                        .map_err(|err| SseError::BadEndpoint {
                            endpoint: data,
                            message: err.to_string(),
                        })?;
                }
                Some(Ok(_)) => continue,
                Some(Err(err)) => return Err(SseError::Stream(err.to_string())),
                None => return Err(SseError::NoEndpoint),
            }
        };
        let (sender, incoming) = mpsc::channel(64);
        let reader = tokio::spawn(async move {
            while let Some(Ok(event)) = events.next().await {
                if !matches!(event.event.as_deref(), None | Some("message")) {
                    continue;
                }
                let Some(data) = event.data else { continue };
                match serde_json::from_str::<ServerJsonRpcMessage>(&data) {
                    Ok(message) => {
                        if sender.send(message).await.is_err() {
                            break;
                        }
                    }
                    Err(err) => {
                        tracing::warn!(%err, "skipping an SSE message that is not JSON-RPC")
                    }
                }
            }
            // Dropping the sender ends `receive`, which ends the session: the client reconnects.
        });
        Ok(SseTransport {
            http,
            endpoint,
            headers,
            incoming,
            reader,
        })
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let body = serde_json::to_vec(&item);
        let request = self
            .http
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        async move {
            let body = body.map_err(|err| SseError::Stream(err.to_string()))?;
            let response = request.body(body).send().await?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(SseError::Status {
                    status: response.status(),
                })
            }
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        Ok(())
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}
