//! The HTTP layer shared by the model clients: the client and its builder, timeouts, retries
//! under a [`RetryPolicy`], and reading a JSON or event-stream body into a reply.

use std::fmt;
use std::marker::PhantomData;
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderMap, RETRY_AFTER};
use serde_json::Value;

use super::caps::ReplyCaps;
use super::sse::{SseEvent, SseParser};
use super::{
    ApiKey, BoxFuture, ChatModel, ChatOptions, ChatRequest, ModelError, ModelReply, RetryPolicy,
};

/// A model API spoken over HTTP: how to address it, build its body and read its replies.
/// Implemented by [`OpenAi`](super::OpenAi) and [`Anthropic`](super::Anthropic) only.
pub trait WireApi: Send + Sync + 'static + sealed::Sealed {
    /// The API's name in errors.
    const NAME: &'static str;
    /// The base URL used unless told otherwise.
    const DEFAULT_BASE_URL: &'static str;
    /// The path of the endpoint under the base URL.
    const PATH: &'static str;
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

/// Builds a reply from the events of a stream, fed as they arrive.
#[doc(hidden)]
pub trait StreamAssembler: Send {
    /// An assembler under the caps of `options` (text and arguments kept).
    fn new(options: &ChatOptions) -> Self;
    /// Takes one server-sent event.
    fn event(&mut self, event: SseEvent) -> Result<(), ModelError>;
    /// The reply, or why the stream was incomplete.
    fn finish(self) -> Result<ModelReply, ModelError>;
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
    /// Whether replies are streamed.
    pub stream: bool,
    /// Whether tools are sent as strict definitions (OpenAI).
    pub strict_tools: bool,
    /// The token limit sent when a request sets none (Anthropic requires one).
    pub default_max_tokens: u32,
}

/// A chat model behind an HTTP API; use it as [`OpenAiClient`](super::OpenAiClient) or
/// [`AnthropicClient`](super::AnthropicClient).
pub struct ModelClient<A> {
    http: reqwest::Client,
    url: String,
    key: Option<ApiKey>,
    config: ClientConfig,
    retry: RetryPolicy,
    timeout: Duration,
    api: PhantomData<A>,
}

impl<A> fmt::Debug for ModelClient<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelClient")
            .field("url", &self.url)
            .field("key", &self.key)
            .field("config", &self.config)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

/// Configures a [`ModelClient`]: base URL, key, timeouts, retries, streaming.
#[derive(Debug)]
pub struct ModelClientBuilder<A> {
    base_url: String,
    key: Option<ApiKey>,
    config: ClientConfig,
    retry: RetryPolicy,
    timeout: Duration,
    connect_timeout: Duration,
    api: PhantomData<A>,
}

impl<A: WireApi> ModelClient<A> {
    /// A builder for a client of `model` at the API's default base URL.
    pub fn builder(model: impl Into<String>) -> ModelClientBuilder<A> {
        ModelClientBuilder {
            base_url: A::DEFAULT_BASE_URL.into(),
            key: None,
            config: ClientConfig {
                model: model.into(),
                stream: false,
                strict_tools: false,
                default_max_tokens: 4096,
            },
            retry: RetryPolicy::default(),
            timeout: Duration::from_secs(120),
            connect_timeout: Duration::from_secs(10),
            api: PhantomData,
        }
    }

    async fn send(&self, body: Vec<u8>, options: &ChatOptions) -> Result<ModelReply, ModelError> {
        let mut attempt = 0;
        loop {
            let outcome = self.attempt(body.clone(), options).await;
            let (error, retry_after) = match outcome {
                Ok(reply) => return Ok(reply),
                Err(failure) => failure,
            };
            if !error.is_retryable() || attempt >= self.retry.max_retries {
                return Err(match attempt {
                    0 => error,
                    _ => ModelError::RetriesExhausted {
                        attempts: attempt + 1,
                        last: Box::new(error),
                    },
                });
            }
            let delay = self.retry.delay(attempt, retry_after);
            tracing::debug!(attempt, ?delay, %error, "retrying the model call");
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    /// One request; an error comes with the server's `Retry-After`, if it sent one.
    async fn attempt(
        &self,
        body: Vec<u8>,
        options: &ChatOptions,
    ) -> Result<ModelReply, (ModelError, Option<Duration>)> {
        let mut request = self.http.post(&self.url).body(body);
        for (name, value) in A::headers(self.key.as_ref()) {
            request = request.header(name, value);
        }
        let response = request
            .send()
            .await
            .map_err(|e| (self.transport(&e), None))?;
        let status = response.status();
        if !status.is_success() {
            let retry_after = retry_after(response.headers());
            let text = response.text().await.unwrap_or_default();
            let error = ModelError::Status {
                status: status.as_u16(),
                body: excerpt(&text),
            };
            return Err((error, retry_after));
        }
        let read = if self.config.stream {
            self.read_stream(response, options).await
        } else {
            let caps = ReplyCaps::of(options);
            self.read_json(response)
                .await
                .map(|reply| caps.bound(reply))
        };
        read.map_err(|e| (e, None))
    }

    async fn read_json(&self, response: reqwest::Response) -> Result<ModelReply, ModelError> {
        expect_content_type(response.headers(), "application/json")?;
        let bytes = response.bytes().await.map_err(|e| self.body_error(&e))?;
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
        mut response: reqwest::Response,
        options: &ChatOptions,
    ) -> Result<ModelReply, ModelError> {
        expect_content_type(response.headers(), "text/event-stream")?;
        let mut parser = SseParser::default();
        let mut assembler = A::Stream::new(options);
        while let Some(chunk) = response.chunk().await.map_err(|e| self.body_error(&e))? {
            for event in parser
                .feed(&chunk)
                .map_err(|message| decode::<A>(message))?
            {
                assembler.event(event)?;
            }
        }
        assembler.finish()
    }

    fn transport(&self, error: &reqwest::Error) -> ModelError {
        if error.is_timeout() {
            ModelError::Timeout(self.timeout)
        } else {
            ModelError::Connect {
                url: self.url.clone(),
                message: source_chain(error),
            }
        }
    }

    fn body_error(&self, error: &reqwest::Error) -> ModelError {
        if error.is_timeout() {
            ModelError::Timeout(self.timeout)
        } else {
            ModelError::Truncated(source_chain(error))
        }
    }
}

impl<A: WireApi> ModelClientBuilder<A> {
    /// The API's base URL (for OpenAI-compatible servers: vLLM, Ollama, llama.cpp, LM Studio).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// The API key.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(ApiKey::new(key));
        self
    }

    /// Whether replies are streamed (server-sent events) and assembled (default: no).
    pub fn streaming(mut self, stream: bool) -> Self {
        self.config.stream = stream;
        self
    }

    /// Whether tools are sent as strict definitions (OpenAI's structured outputs).
    pub fn strict_tools(mut self, strict: bool) -> Self {
        self.config.strict_tools = strict;
        self
    }

    /// The token limit sent when the agent sets none (default 4096; Anthropic requires one).
    pub fn default_max_tokens(mut self, max_tokens: u32) -> Self {
        self.config.default_max_tokens = max_tokens;
        self
    }

    /// The most time one request may take, body included (default 120 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The most time connecting may take (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// When to retry.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// The client; fails only when the TLS stack cannot start.
    pub fn build(self) -> Result<ModelClient<A>, ModelError> {
        let http = reqwest::Client::builder()
            .timeout(self.timeout)
            .connect_timeout(self.connect_timeout)
            .build()
            .map_err(|e| ModelError::Connect {
                url: self.base_url.clone(),
                message: format!("could not build the HTTP client: {}", source_chain(&e)),
            })?;
        Ok(ModelClient {
            http,
            url: format!("{}{}", self.base_url.trim_end_matches('/'), A::PATH),
            key: self.key,
            config: self.config,
            retry: self.retry,
            timeout: self.timeout,
            api: PhantomData,
        })
    }
}

impl<A: WireApi> ChatModel for ModelClient<A> {
    fn chat<'a>(
        &'a self,
        request: ChatRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(async move {
            let body = A::body(&self.config, &request)?;
            let bytes = serde_json::to_vec(&body).map_err(|e| decode::<A>(e.to_string()))?;
            self.send(bytes, request.options).await
        })
    }

    fn name(&self) -> &str {
        &self.config.model
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

/// `Retry-After` in seconds (the form model APIs send; an HTTP date is ignored).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
}

/// The start of an error body: enough to read the provider's message, never a whole page.
fn excerpt(body: &str) -> String {
    const LIMIT: usize = 500;
    match body.char_indices().nth(LIMIT) {
        Some((end, _)) => format!("{}...", &body[..end]),
        None => body.to_owned(),
    }
}

/// The error and its causes, as reqwest's own message names only the outermost.
fn source_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
