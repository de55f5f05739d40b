//! The older HTTP+SSE transport (protocol version 2024-11-05), which rmcp 3 no longer ships
//! but many deployed servers still speak: a `GET` opens an event stream whose first `endpoint`
//! event names the URL to `POST` messages to; answers come back as `message` events.
//!
//! The event stream is read by the crate's one SSE parser (`crate::sse`), lossy about UTF-8 and
//! with its lines bounded: a line the specification says to ignore never ends the session, and
//! what the client sees never depends on how the network cut the stream (both found by fuzzing,
//! `fuzz/src/targets/sse.rs`, when `sse-stream` parsed it).

use std::future::Future;

use futures::StreamExt;
use reqwest::Url;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::listing::{ListingLimits, Screened, screen};
use super::oversize::{self, PREFIX_BYTES};
use crate::sse::{SseError as ParseError, SseEvent, SseParser};

/// Why the SSE transport failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SseError {
    #[error("HTTP request failed: {0}")]
    Http(#[from] reqwest::Error),
    #[error("the server answered {status} to a message")]
    Status { status: reqwest::StatusCode },
    #[error(
        "the server answered {status} redirecting to {location:?}; redirects are not followed, \
         so this connection's credentials and messages go only to the URL configured"
    )]
    Redirect {
        status: reqwest::StatusCode,
        location: String,
    },
    #[error("the event stream ended before the server named its message endpoint")]
    NoEndpoint,
    #[error("the server named an invalid message endpoint {endpoint:?}: {message}")]
    BadEndpoint { endpoint: String, message: String },
    #[error(
        "the server named a message endpoint on another origin ({endpoint}); only its own \
         origin ({origin}) is trusted with this connection's credentials"
    )]
    CrossOrigin { endpoint: String, origin: String },
    #[error("the event stream failed: {0}")]
    Stream(String),
}

/// The message endpoint an `endpoint` event names, resolved against the stream's URL. It must
/// be on the stream's own origin: the client's `Authorization` and custom headers go with every
/// message, and a server may not send them elsewhere.
fn same_origin_endpoint(base: &Url, data: &str) -> Result<Url, SseError> {
    let endpoint = base
        .join(data.trim())
        .map_err(|err| SseError::BadEndpoint {
            endpoint: data.to_owned(),
            message: err.to_string(),
        })?;
    if endpoint.origin() != base.origin() {
        return Err(SseError::CrossOrigin {
            endpoint: endpoint.to_string(),
            origin: base.origin().ascii_serialization(),
        });
    }
    Ok(endpoint)
}

/// The response, unless it is a redirect: those are refused, not followed.
fn refuse_redirect(response: reqwest::Response) -> Result<reqwest::Response, SseError> {
    if !response.status().is_redirection() {
        return Ok(response);
    }
    let location = response
        .headers()
        .get(reqwest::header::LOCATION)
        // A server's header, shown in an error: bounded.
        .map(|value| {
            String::from_utf8_lossy(value.as_bytes())
                .chars()
                .take(200)
                .collect()
        })
        .unwrap_or_default();
    Err(SseError::Redirect {
        status: response.status(),
        location,
    })
}

/// Why the event stream ended early. The wording is the one `sse-stream` gave these errors.
#[derive(Debug, thiserror::Error)]
enum StreamError {
    /// A line longer than the bound, and its first bytes: enough to answer the request it
    /// carried an answer to.
    #[error("body error: an event stream line is longer than {max} bytes")]
    LineTooLong { max: usize, prefix: Vec<u8> },
    /// The body could not be read.
    #[error("body error: {0}")]
    Body(String),
}

/// The events of the body's chunks, read by the one SSE parser (lossy, each line bounded to
/// `max` bytes, an event's data not bounded apart); the stream ends after its first error.
fn events<B, E>(
    body: impl futures::Stream<Item = Result<B, E>> + Send + 'static,
    max: usize,
) -> impl futures::Stream<Item = Result<SseEvent, StreamError>> + Send + 'static
where
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    let parser = SseParser::new(max).max_data(usize::MAX).lossy();
    body.scan(Some(parser), move |state, chunk| {
        let Some(parser) = state else {
            return std::future::ready(None);
        };
        let mut events = Vec::new();
        let failure = match chunk {
            Ok(chunk) => parser
                .feed_into(chunk.as_ref(), &mut events)
                .err()
                .map(|err| match err {
                    ParseError::TooLong { .. } => {
                        let line = parser.line_in_progress();
                        StreamError::LineTooLong {
                            max,
                            prefix: line[..line.len().min(PREFIX_BYTES)].to_vec(),
                        }
                    }
                    ParseError::NotUtf8(err) => StreamError::Body(err.to_string()),
                }),
            Err(err) => Some(StreamError::Body(err.to_string())),
        };
        let mut items: Vec<_> = events.into_iter().map(Ok).collect();
        if let Some(failure) = failure {
            items.push(Err(failure));
            *state = None;
        }
        std::future::ready(Some(futures::stream::iter(items)))
    })
    .flatten()
}

/// Reads events up to the first `endpoint` event and returns the endpoint it names, checked by
/// [`same_origin_endpoint`]; the events before it are skipped.
async fn read_endpoint<S, E>(events: &mut S, base: &Url) -> Result<Url, SseError>
where
    S: futures::Stream<Item = Result<SseEvent, E>> + Unpin,
    E: std::fmt::Display,
{
    loop {
        match events.next().await {
            Some(Ok(event)) if event.event.as_deref() == Some("endpoint") => {
                return same_origin_endpoint(base, &event.data);
            }
            Some(Ok(_)) => continue,
            Some(Err(err)) => return Err(SseError::Stream(err.to_string())),
            None => return Err(SseError::NoEndpoint),
        }
    }
}

/// The JSON-RPC message a `message` (or unnamed) event carries, a page of tools screened
/// against `listing` first; `None` for any other event, for an event without data, and for data
/// that is not JSON-RPC, which is skipped with a warning.
fn message_of(event: SseEvent, listing: &ListingLimits) -> Option<ServerJsonRpcMessage> {
    if !matches!(event.event.as_deref(), None | Some("message")) || event.data.is_empty() {
        return None;
    }
    let parsed = match screen(event.data.as_bytes(), listing) {
        Screened::Pass => serde_json::from_str::<ServerJsonRpcMessage>(&event.data),
        Screened::Trimmed(text) | Screened::Refused(text) => serde_json::from_slice(&text),
    };
    match parsed {
        Ok(message) => Some(message),
        Err(err) => {
            tracing::warn!(%err, "skipping an SSE message that is not JSON-RPC");
            None
        }
    }
}

/// The error answering the request whose answer was on a line over the bound, when `err` is
/// that and the line's first bytes name the request.
fn too_long_answer(err: &StreamError) -> Option<ServerJsonRpcMessage> {
    let StreamError::LineTooLong { max, prefix } = err else {
        return None;
    };
    let data = prefix.strip_prefix(b"data:")?;
    let data = data.strip_prefix(b" ").unwrap_or(data);
    serde_json::from_value(oversize::replacement(data, *max)?).ok()
}

/// What the event-stream reader made of a whole stream: see [`read_event_stream`].
#[cfg(any(test, feature = "__test_hooks"))]
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq)]
pub struct EventStreamRead {
    /// The message endpoint, or why there is none.
    pub endpoint: Result<String, String>,
    /// The JSON-RPC messages after the endpoint, re-serialized.
    pub messages: Vec<serde_json::Value>,
    /// The stream error that ended reading early, if any.
    pub error: Option<String>,
}

/// Runs the client's event-stream reader over `chunks` as if they were the body of the stream
/// at `base`, with lines bounded to `max_line_bytes`. For the fuzz targets; not a public API.
#[cfg(any(test, feature = "__test_hooks"))]
#[doc(hidden)]
pub async fn read_event_stream(
    base: &str,
    chunks: Vec<Vec<u8>>,
    max_line_bytes: usize,
) -> EventStreamRead {
    let mut read = EventStreamRead {
        endpoint: Err(String::new()),
        messages: Vec::new(),
        error: None,
    };
    let base = match Url::parse(base) {
        Ok(base) => base,
        Err(err) => {
            read.endpoint = Err(err.to_string());
            return read;
        }
    };
    let body = futures::stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>));
    let mut events = Box::pin(events(body, max_line_bytes));
    read.endpoint = read_endpoint(&mut events, &base)
        .await
        .map(String::from)
        .map_err(|err| err.to_string());
    if read.endpoint.is_err() {
        return read;
    }
    while let Some(event) = events.next().await {
        match event {
            Ok(event) => read.messages.extend(
                message_of(event, &ListingLimits::default())
                    .and_then(|message| serde_json::to_value(message).ok()),
            ),
            Err(err) => {
                read.error = Some(err.to_string());
                break;
            }
        }
    }
    read
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
    /// Opens the event stream at `url` and waits for the server's `endpoint` event. A line of
    /// the stream longer than `max_line_bytes` ends it: without a bound, a server that never
    /// sends a newline fills memory.
    pub(crate) async fn connect(
        url: &str,
        headers: HeaderMap,
        max_line_bytes: usize,
        listing: ListingLimits,
    ) -> Result<Self, SseError> {
        let base = Url::parse(url).map_err(|err| SseError::BadEndpoint {
            endpoint: url.to_owned(),
            message: err.to_string(),
        })?;
        // reqwest follows redirects by default, with every custom header (`x-api-key`, say) and,
        // for a 307, the body: a redirect would hand the credentials and the messages to
        // whatever the server names. rmcp's Streamable HTTP client refuses redirects too.
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        let response = http
            .get(base.clone())
            .headers(headers.clone())
            .header(ACCEPT, HeaderValue::from_static("text/event-stream"))
            .send()
            .await?;
        let response = refuse_redirect(response)?.error_for_status()?;
        let mut events = Box::pin(events(response.bytes_stream(), max_line_bytes));
        let endpoint = read_endpoint(&mut events, &base).await?;
        let (sender, incoming) = mpsc::channel(64);
        let reader = tokio::spawn(async move {
            // A stream error (an over-long line) ends the stream, and with it the session; the
            // request an over-long line answered fails first, saying why.
            while let Some(event) = events.next().await {
                let message = match event {
                    Ok(event) => message_of(event, &listing),
                    Err(err) => {
                        if let Some(answer) = too_long_answer(&err) {
                            let _ = sender.send(answer).await;
                        }
                        break;
                    }
                };
                let Some(message) = message else {
                    continue;
                };
                if sender.send(message).await.is_err() {
                    break;
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
            let response = refuse_redirect(request.body(body).send().await?)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_on_another_origin_is_refused() {
        let base = Url::parse("http://127.0.0.1:8000/sse").unwrap();
        assert_eq!(
            same_origin_endpoint(&base, "/messages?session=1")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:8000/messages?session=1"
        );
        let err = same_origin_endpoint(&base, "http://evil.example.com/steal").unwrap_err();
        assert_eq!(
            err.to_string(),
            "the server named a message endpoint on another origin \
             (http://evil.example.com/steal); only its own origin (http://127.0.0.1:8000) is \
             trusted with this connection's credentials"
        );
        assert!(same_origin_endpoint(&base, "http://127.0.0.1:9000/m").is_err());
        assert!(same_origin_endpoint(&base, "https://127.0.0.1:8000/m").is_err());
    }

    #[tokio::test]
    async fn a_line_without_end_is_cut_off_at_the_bound() {
        let chunks = vec![
            Ok::<_, std::io::Error>(b"data: short\n\n".to_vec()),
            Ok(vec![b'x'; 40]),
            Ok(vec![b'x'; 40]),
        ];
        let read: Vec<_> = events(futures::stream::iter(chunks), 64).collect().await;
        assert_eq!(read.len(), 2);
        assert_eq!(read[0].as_ref().unwrap().data, "short");
        assert_eq!(
            read[1].as_ref().unwrap_err().to_string(),
            "body error: an event stream line is longer than 64 bytes"
        );
    }

    /// Found by fuzzing: `sse-stream` ended the whole stream on lines the SSE specification
    /// says to ignore, and lost the events before such a line when they came in the same chunk.
    #[tokio::test]
    async fn lines_to_ignore_are_ignored_whatever_the_chunking() {
        let body = b"event: endpoint\ndata: /m\n\nretry: soon\nid: 1\nid: 2\nnonsense\n\
                     x-field: 1\n\xff: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        let whole = read_event_stream("http://127.0.0.1:1/sse", vec![body.to_vec()], 1 << 20).await;
        assert_eq!(whole.endpoint.as_deref(), Ok("http://127.0.0.1:1/m"));
        assert_eq!(
            whole.messages,
            [serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {}})]
        );
        assert_eq!(whole.error, None);
        let bytes = body.iter().map(|b| vec![*b]).collect();
        let split = read_event_stream("http://127.0.0.1:1/sse", bytes, 1 << 20).await;
        assert_eq!(split, whole);
    }

    #[tokio::test]
    async fn a_long_line_ends_the_stream_in_one_chunk_as_in_many() {
        let mut body = b"event: endpoint\ndata: /m\n\ndata: ".to_vec();
        body.extend([b'x'; 100]);
        body.extend(b"\n\n");
        let whole = read_event_stream("http://127.0.0.1:1/sse", vec![body.clone()], 64).await;
        assert_eq!(
            whole.error.as_deref(),
            Some("body error: an event stream line is longer than 64 bytes")
        );
        let bytes = body.iter().map(|b| vec![*b]).collect();
        assert_eq!(
            read_event_stream("http://127.0.0.1:1/sse", bytes, 64).await,
            whole
        );
    }

    /// Found by fuzzing: the `\n` of a `\r\n` was taken for a blank line, so a second `event`
    /// line of the same event reached the parser, which failed the stream.
    #[tokio::test]
    async fn a_second_event_line_after_a_crlf_is_ignored() {
        let bodies: [&[u8]; 2] = [
            b"event: endpoint\r\nevent: other\r\ndata: /m\r\n\r\n",
            // A skipped line between a `\r` and a `\n`: that `\n` is a blank line, not a CRLF's.
            b"event: endpoint\rdata: /m\rjunk\n\nevent: other\nevent: again\ndata: 1\n\n",
        ];
        for body in bodies {
            let read =
                read_event_stream("http://127.0.0.1:1/sse", vec![body.to_vec()], 1 << 20).await;
            assert_eq!(read.endpoint.as_deref(), Ok("http://127.0.0.1:1/m"));
            assert_eq!(read.error, None);
        }
    }
}
