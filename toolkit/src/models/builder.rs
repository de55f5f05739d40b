//! [`ModelClientBuilder`]: a model client's base URL, key, timeouts, retries, streaming and
//! response bounds.

use std::fmt;
use std::marker::PhantomData;
use std::time::Duration;

use super::api_key::Secrets;
use super::body::{BodyLimits, source_chain};
use super::http::{ClientConfig, ModelClient, WireApi};
use super::{ApiKey, ModelError, RetryPolicy};

/// Configures a [`ModelClient`]: base URL, key, timeouts, retries, streaming, response bounds.
///
/// | option | default |
/// |---|---|
/// | [`timeout`](Self::timeout) (one request) | 120 s |
/// | [`connect_timeout`](Self::connect_timeout) | 10 s |
/// | [`idle_timeout`](Self::idle_timeout) (between chunks) | 60 s ([`ModelClient::DEFAULT_IDLE_TIMEOUT`]) |
/// | [`total_timeout`](Self::total_timeout) (a call, retries included) | 5 min ([`ModelClient::DEFAULT_TOTAL_TIMEOUT`]) |
/// | [`max_response_bytes`](Self::max_response_bytes) | 32 MiB ([`ModelClient::DEFAULT_MAX_RESPONSE_BYTES`]) |
/// | [`retry`](Self::retry) | [`RetryPolicy::default`] |
///
/// Redirects are never followed: a 3xx answer is a [`ModelError::Redirected`].
///
/// ```
/// use std::time::Duration;
/// use toolkit::models::OpenAiClient;
///
/// let model = OpenAiClient::builder("gpt-4o-mini")
///     .api_key("sk-...")
///     .max_response_bytes(4 * 1024 * 1024)
///     .idle_timeout(Duration::from_secs(20))
///     .total_timeout(Duration::from_secs(90))
///     .build()
///     .unwrap();
/// assert!(format!("{model:?}").contains("key: Some(***)"));
/// ```
pub struct ModelClientBuilder<A> {
    base_url: String,
    key: Option<ApiKey>,
    config: ClientConfig,
    retry: RetryPolicy,
    timeout: Duration,
    connect_timeout: Duration,
    idle_timeout: Duration,
    total_timeout: Duration,
    max_response_bytes: usize,
    api: PhantomData<A>,
}

impl<A> fmt::Debug for ModelClientBuilder<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secrets = Secrets::new(self.key.as_ref(), &self.base_url);
        f.debug_struct("ModelClientBuilder")
            .field("base_url", &secrets.redact(&self.base_url))
            .field("key", &self.key)
            .field("config", &self.config)
            .field("retry", &self.retry)
            .field("timeout", &self.timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("total_timeout", &self.total_timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .finish_non_exhaustive()
    }
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
            idle_timeout: Self::DEFAULT_IDLE_TIMEOUT,
            total_timeout: Self::DEFAULT_TOTAL_TIMEOUT,
            max_response_bytes: Self::DEFAULT_MAX_RESPONSE_BYTES,
            api: PhantomData,
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

    /// The longest pause between two chunks of a body or stream, once the headers have come
    /// (default [`ModelClient::DEFAULT_IDLE_TIMEOUT`]); past it the attempt fails with
    /// [`ModelError::Stalled`], which is retried.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// The most time one call may take, every retry and wait included (default
    /// [`ModelClient::DEFAULT_TOTAL_TIMEOUT`]); past it the call fails with
    /// [`ModelError::OutOfTime`], and a retry that could not start in time is not waited for.
    pub fn total_timeout(mut self, timeout: Duration) -> Self {
        self.total_timeout = timeout;
        self
    }

    /// The most bytes a response body, or a whole stream, may have (default
    /// [`ModelClient::DEFAULT_MAX_RESPONSE_BYTES`]); a larger one fails with
    /// [`ModelError::TooLarge`] as soon as the byte past the bound arrives, or at once when its
    /// `Content-Length` says so.
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
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

    /// The client; fails when the TLS stack cannot start, or when the API names the model in
    /// its path (Gemini) and the model's name cannot be written there.
    pub fn build(self) -> Result<ModelClient<A>, ModelError> {
        let secrets = Secrets::new(self.key.as_ref(), &self.base_url);
        // No redirects at all, rather than rmcp's same-origin ones: a model API never
        // redirects a POST, and a 3xx from a proxy or a moved endpoint is better fixed in the
        // base URL than followed with the key and the conversation.
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(self.timeout)
            .connect_timeout(self.connect_timeout)
            .build()
            .map_err(|e| ModelError::Connect {
                url: secrets.redact(&self.base_url),
                message: secrets.redact(&format!(
                    "could not build the HTTP client: {}",
                    source_chain(&e)
                )),
            })?;
        let base = self.base_url.trim_end_matches('/');
        Ok(ModelClient {
            http,
            url: format!("{base}{}", A::path(&self.config, false)?),
            stream_url: format!("{base}{}", A::path(&self.config, true)?),
            key: self.key,
            secrets,
            config: self.config,
            retry: self.retry,
            limits: BodyLimits {
                max_bytes: self.max_response_bytes,
                idle: self.idle_timeout,
                timeout: self.timeout,
            },
            total_timeout: self.total_timeout,
            api: PhantomData,
        })
    }
}
