//! The HTTP layer shared by the model clients: the client, timeouts, retries
//! under a [`RetryPolicy`], and reading a JSON or event-stream body into a reply.
//!
//! What a server sends is bounded: redirects are not followed (the key and the conversation go
//! to the configured origin only), a body or stream is read up to `max_response_bytes` with an
//! idle timeout between chunks, a whole call (retries included) has a time budget, and the key
//! is removed from every error and log line.

use std::fmt;
use std::marker::PhantomData;
use std::time::{Duration, Instant};

use reqwest::header::{CONTENT_TYPE, HeaderMap, LOCATION};
use serde_json::Value;

use super::api_key::Secrets;
use super::body::{self, BodyLimits, source_chain};
use super::retry::retry_after;
use super::{
    ApiKey, BoxFuture, ChatModel, ChatOptions, ChatRequest, DeltaSink, ModelError, ModelReply,
    RetryPolicy,
};
use crate::sse::{SseError, SseParser};
use toolkit_runtime::chat::StreamAssembler;

/// A model API spoken over HTTP: how to address it, build its body and read its replies.
/// Implemented by the crate's own APIs only ([`OpenAi`](super::OpenAi),
/// [`Anthropic`](super::Anthropic), and the Responses and Gemini APIs).
pub trait WireApi: Send + Sync + 'static + sealed::Sealed {
    /// The API's name in errors.
    const NAME: &'static str;
    /// The provider's name in OpenTelemetry's GenAI conventions (`gen_ai.provider.name`).
    const PROVIDER: &'static str;
    /// The base URL used unless told otherwise.
    const DEFAULT_BASE_URL: &'static str;
    /// The path of the endpoint under the base URL (Gemini's names the model, see
    /// [`path`](Self::path)).
    const PATH: &'static str;
    /// The path of the endpoint for `config`'s model, streamed or not; an error when the model
    /// cannot be named in a path.
    #[doc(hidden)]
    fn path(_config: &ClientConfig, _stream: bool) -> Result<String, ModelError> {
        Ok(Self::PATH.to_owned())
    }
    /// Whether the API holds an answer to a JSON Schema itself (see
    /// [`ChatModel::native_output`]).
    #[doc(hidden)]
    fn native_output() -> bool {
        false
    }
    /// The assembler of a streamed reply.
    #[doc(hidden)]
    type Stream: StreamAssembler;
    /// The headers that carry the key and version.
    #[doc(hidden)]
    fn headers(key: Option<&ApiKey>) -> Vec<(&'static str, String)>;
    /// The request body.
    #[doc(hidden)]
    fn body(config: &ClientConfig, request: &ChatRequest<'_>) -> Result<Value, ModelError>;
    /// A whole (non-streamed) response body read into a reply.
    #[doc(hidden)]
    fn reply(body: &Value) -> Result<ModelReply, ModelError>;
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// What a client was configured with (the model, streaming, strict tools), read by the APIs.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// The model id.
    pub model: String,
    /// Whether replies are streamed (for one call: whether this one is).
    pub stream: bool,
    /// Whether tools are sent as strict definitions (OpenAI).
    pub strict_tools: bool,
    /// The token limit sent when a request sets none (Anthropic requires one).
    pub default_max_tokens: u32,
}

/// A chat model behind an HTTP API; use it as [`OpenAiClient`](super::OpenAiClient) or
/// [`AnthropicClient`](super::AnthropicClient).
pub struct ModelClient<A> {
    pub(super) http: reqwest::Client,
    pub(super) url: String,
    /// The endpoint of a streamed reply (the same as `url` but for Gemini).
    pub(super) stream_url: String,
    pub(super) key: Option<ApiKey>,
    pub(super) secrets: Secrets,
    pub(super) config: ClientConfig,
    pub(super) retry: RetryPolicy,
    pub(super) limits: BodyLimits,
    pub(super) total_timeout: Duration,
    pub(super) api: PhantomData<A>,
}

impl<A> fmt::Debug for ModelClient<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelClient")
            .field("url", &self.secrets.redact(&self.url))
            .field("key", &self.key)
            .field("config", &self.config)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl<A> ModelClient<A> {
    /// 32 MiB: a reply of 128k output tokens is about 0.5 MB as JSON, and about 26 MB streamed
    /// (some 200 bytes of event framing per token), so every real reply fits; a body held whole
    /// and parsed costs a few times its size, so a hostile one stays near 100 MB.
    pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;
    /// 60 s: streaming APIs send a token or a keep-alive (`ping`) every few seconds, even while
    /// a model reasons.
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
    /// 5 minutes: one request of the full default `timeout` (120 s) and retries after it; a
    /// trickling server held a call for 8 minutes (120 s x 4 attempts) without it.
    pub const DEFAULT_TOTAL_TIMEOUT: Duration = Duration::from_secs(300);
}

impl<A: WireApi> ModelClient<A> {
    /// Sends `body`, retrying under the policy, within the call's time budget; a streamed
    /// reply's deltas go to `deltas`.
    async fn send(
        &self,
        body: Vec<u8>,
        options: &ChatOptions,
        stream: bool,
        deltas: Option<&DeltaSink<'_>>,
    ) -> Result<ModelReply, ModelError> {
        let began = Instant::now();
        let out_of_time = |attempts| ModelError::OutOfTime {
            budget: self.total_timeout,
            attempts,
        };
        let mut attempt = 0;
        loop {
            let one = self.attempt(body.clone(), options, stream, deltas);
            let left = self.total_timeout.saturating_sub(began.elapsed());
            let outcome = toolkit_runtime::within(left, one)
                .await
                .ok_or_else(|| out_of_time(attempt + 1))?;
            let (error, retry_after) = match outcome {
                Ok(reply) => return Ok(reply),
                Err((error, retry_after)) => {
                    (error.map_text(&|t| self.secrets.redact(t)), retry_after)
                }
            };
            let delay = self.retry.delay(attempt, retry_after);
            // A retry that could not start within the budget is not waited for.
            let in_time = began.elapsed().saturating_add(delay) < self.total_timeout;
            if !error.is_retryable() || attempt >= self.retry.max_retries || !in_time {
                return Err(match attempt {
                    0 => error,
                    _ => ModelError::RetriesExhausted {
                        attempts: attempt + 1,
                        last: Box::new(error),
                    },
                });
            }
            tracing::debug!(attempt, ?delay, %error, "retrying the model call");
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    /// One request; an error comes with the server's `Retry-After`, if it sent one.
    ///
    /// Its errors may carry secrets a server echoed; [`send`](Self::send) redacts them.
    async fn attempt(
        &self,
        body: Vec<u8>,
        options: &ChatOptions,
        stream: bool,
        deltas: Option<&DeltaSink<'_>>,
    ) -> Result<ModelReply, (ModelError, Option<Duration>)> {
        let url = if stream { &self.stream_url } else { &self.url };
        let mut request = self.http.post(url).body(body);
        for (name, value) in A::headers(self.key.as_ref()) {
            request = request.header(name, value);
        }
        let response = request
            .send()
            .await
            .map_err(|e| (self.transport(&e), None))?;
        let status = response.status();
        if status.is_redirection() {
            let error = ModelError::Redirected {
                status: status.as_u16(),
                location: self.location_origin(response.headers()),
            };
            return Err((error, None));
        }
        if !status.is_success() {
            let retry_after = retry_after(response.headers());
            let text = body::error_text(response, self.limits).await;
            // Redacted before the excerpt is cut, so that no part of a key survives the cut.
            let error = ModelError::Status {
                status: status.as_u16(),
                body: excerpt(&self.secrets.redact(&text)),
            };
            return Err((error, retry_after));
        }
        let read = if stream {
            self.read_stream(response, options, deltas).await
        } else {
            self.read_json(response)
                .await
                .map(|reply| reply.capped_by(options))
        };
        read.map_err(|e| (e, None))
    }

    async fn read_json(&self, response: reqwest::Response) -> Result<ModelReply, ModelError> {
        expect_content_type(response.headers(), "application/json")?;
        let bytes = body::whole(response, self.limits).await?;
        let body: Value = serde_json::from_slice(&bytes).map_err(|e| match e.classify() {
            serde_json::error::Category::Eof => {
                ModelError::Truncated(format!("the JSON body ends after {} bytes", bytes.len()))
            }
            _ => ModelError::Decode {
                api: A::NAME,
                message: format!("the body is not JSON: {e}"),
            },
        })?;
        A::reply(&body)
    }

    async fn read_stream(
        &self,
        response: reqwest::Response,
        options: &ChatOptions,
        deltas: Option<&DeltaSink<'_>>,
    ) -> Result<ModelReply, ModelError> {
        expect_content_type(response.headers(), "text/event-stream")?;
        let mut parser = SseParser::new(self.limits.max_bytes);
        let mut assembler = A::Stream::new(options);
        body::for_each_chunk(response, self.limits, |chunk| {
            for event in parser.feed(chunk).map_err(|e| match e {
                SseError::TooLong { limit } => ModelError::TooLarge { limit },
                SseError::NotUtf8(_) => decode::<A>(e.to_string()),
            })? {
                assembler.event(event.event.as_deref(), &event.data)?;
                let pieces = assembler.take_deltas();
                if let Some(sink) = deltas {
                    pieces.into_iter().for_each(sink);
                }
            }
            Ok(())
        })
        .await?;
        assembler.finish()
    }

    fn transport(&self, error: &reqwest::Error) -> ModelError {
        if error.is_timeout() {
            ModelError::Timeout(self.limits.timeout)
        } else {
            ModelError::Connect {
                url: self.url.clone(),
                message: source_chain(error),
            }
        }
    }

    /// Where a redirect pointed, as an origin only: a path or query may hold a token.
    fn location_origin(&self, headers: &HeaderMap) -> String {
        let location = headers.get(LOCATION).and_then(|value| value.to_str().ok());
        let Some(location) = location else {
            return "no Location".to_owned();
        };
        let base = reqwest::Url::parse(&self.url).ok();
        let target = match &base {
            Some(base) => base.join(location),
            None => reqwest::Url::parse(location),
        };
        match target {
            Ok(target) => target.origin().ascii_serialization(),
            Err(_) => "an unreadable Location".to_owned(),
        }
    }
}

impl<A: WireApi> ModelClient<A> {
    async fn call(
        &self,
        request: ChatRequest<'_>,
        stream: bool,
        deltas: Option<&DeltaSink<'_>>,
    ) -> Result<ModelReply, ModelError> {
        // A streamed run streams whatever the client was built with.
        let body = match stream == self.config.stream {
            true => A::body(&self.config, &request)?,
            false => A::body(
                &ClientConfig {
                    stream,
                    ..self.config.clone()
                },
                &request,
            )?,
        };
        let bytes = serde_json::to_vec(&body).map_err(|e| decode::<A>(e.to_string()))?;
        self.send(bytes, request.options, stream, deltas).await
    }
}

impl<A: WireApi> ChatModel for ModelClient<A> {
    fn chat<'a>(
        &'a self,
        request: ChatRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(self.call(request, self.config.stream, None))
    }

    fn name(&self) -> &str {
        &self.config.model
    }

    fn native_output(&self) -> bool {
        A::native_output()
    }

    fn caps_replies(&self) -> bool {
        true
    }

    fn provider_name(&self) -> Option<&str> {
        Some(A::PROVIDER)
    }

    fn chat_stream<'a>(
        &'a self,
        request: ChatRequest<'a>,
        deltas: &'a DeltaSink<'a>,
    ) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(self.call(request, true, Some(deltas)))
    }
}

pub(crate) fn decode<A: WireApi>(message: String) -> ModelError {
    ModelError::Decode {
        api: A::NAME,
        message,
    }
}

fn expect_content_type(headers: &HeaderMap, expected: &'static str) -> Result<(), ModelError> {
    let got = headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    if got
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .eq_ignore_ascii_case(expected)
    {
        Ok(())
    } else {
        Err(ModelError::ContentType {
            expected,
            got: got.to_owned(),
        })
    }
}

/// The start of an error body: enough to read the provider's message, never a whole page.
fn excerpt(body: &str) -> String {
    const LIMIT: usize = 500;
    match body.char_indices().nth(LIMIT) {
        Some((end, _)) => format!("{}...", &body[..end]),
        None => body.to_owned(),
    }
}

/// Feeds `stream` to a fresh parser and assembler split at every byte offset (inside lines and
/// inside UTF-8 characters) and checks that every split assembles the same reply, which it
/// returns.
#[cfg(all(test, feature = "__test_hooks"))]
fn assemble_every_split<S: StreamAssembler>(stream: &str) -> super::ModelReply {
    let bytes = stream.as_bytes();
    let assemble = |split: usize| {
        let mut parser = SseParser::default();
        let mut assembler = S::new(&ChatOptions::default());
        for part in [&bytes[..split], &bytes[split..]] {
            for event in parser.feed(part).unwrap() {
                assembler
                    .event(event.event.as_deref(), &event.data)
                    .unwrap();
            }
        }
        assembler.finish().unwrap()
    };
    let whole = assemble(0);
    for split in 1..=bytes.len() {
        assert_eq!(assemble(split), whole, "split at byte {split}");
    }
    whole
}

/// Every chunking of a recorded stream, through the event-stream parser and each API's
/// assembler (`toolkit_runtime::providers`), gives the same reply.
#[cfg(all(test, feature = "__test_hooks"))]
mod stream_tests {
    use serde_json::json;
    use toolkit_runtime::providers::__read_arguments as read_arguments;

    use super::assemble_every_split;
    use crate::ToolCall;
    use crate::models::{FinishReason, ModelReply, Usage};
    #[cfg(feature = "anthropic")]
    use crate::providers::anthropic;
    #[cfg(feature = "openai")]
    use crate::providers::openai;

    #[cfg(feature = "openai")]
    #[test]
    fn a_stream_split_anywhere_assembles_the_same_calls() {
        let stream = include_str!("../../../tests/fixtures/models/openai_stream.sse");
        let mut reply = assemble_every_split::<openai::OpenAiStream>(stream);
        // The arguments arrive as the model's text; compared as the tool reads them.
        reply.tool_calls = read_arguments(reply.tool_calls);
        assert_eq!(
            reply,
            ModelReply {
                text: Some("Checking the caf\u{e9} \u{2615} ".into()),
                tool_calls: vec![
                    ToolCall::new("get_current_weather", json!({"location": "S\u{e3}o Paulo"}))
                        .with_id("call_DdmO9pD3xa9XTPNJ32zg2hcA"),
                    ToolCall::new("get_time", json!({})).with_id("call_2"),
                ],
                finish: FinishReason::ToolCalls,
                usage: Some(Usage {
                    input_tokens: 82,
                    output_tokens: 27
                }),
                refused_calls: Vec::new(),
            }
        );
    }

    #[cfg(feature = "anthropic")]
    #[test]
    fn a_stream_split_anywhere_assembles_the_same_tool_use() {
        let stream = include_str!("../../../tests/fixtures/models/anthropic_stream.sse");
        let mut reply = assemble_every_split::<anthropic::AnthropicStream>(stream);
        // The arguments arrive as the model's text; compared as the tool reads them.
        reply.tool_calls = read_arguments(reply.tool_calls);
        assert_eq!(
            reply,
            ModelReply {
                text: Some("Okay, let's check the weather for S\u{e3}o Paulo \u{2600}".into()),
                tool_calls: vec![
                    ToolCall::new("get_weather", json!({"location": "S\u{e3}o Paulo, BR"}))
                        .with_id("toolu_01T1x1fJ34qAmk2tNTrN7Up6")
                ],
                finish: FinishReason::ToolCalls,
                usage: Some(Usage {
                    input_tokens: 472,
                    output_tokens: 89
                }),
                refused_calls: Vec::new(),
            }
        );
    }
}
