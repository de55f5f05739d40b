//! The Anthropic Messages API (`POST {base}/messages`) over HTTP. The wire format is the
//! runtime's `providers::anthropic`.

use serde_json::Value;

use super::builder::ModelClientBuilder;
use super::http::{ClientConfig, ModelClient, WireApi, sealed};
use super::{ApiKey, ChatRequest, ModelError, ModelReply};
use crate::providers::anthropic;

/// The Anthropic Messages wire format, for [`ModelClient`].
#[derive(Debug, Clone, Copy)]
pub struct Anthropic;

/// A client of the Anthropic Messages API.
///
/// ```no_run
/// use toolkit::agent::Agent;
/// use toolkit::models::AnthropicClient;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let model = AnthropicClient::builder("claude-sonnet-4-5")
///     .api_key(std::env::var("ANTHROPIC_API_KEY")?)
///     .build()?;
/// let run = Agent::builder(model).build().run("Say hello").await?;
/// println!("{}", run.answer);
/// # Ok(())
/// # }
/// ```
pub type AnthropicClient = ModelClient<Anthropic>;

/// The builder of an [`AnthropicClient`].
pub type AnthropicClientBuilder = ModelClientBuilder<Anthropic>;

/// The API version sent in `anthropic-version`.
const VERSION: &str = "2023-06-01";

impl sealed::Sealed for Anthropic {}

impl WireApi for Anthropic {
    const NAME: &'static str = anthropic::API;
    const PROVIDER: &'static str = "anthropic";
    const DEFAULT_BASE_URL: &'static str = "https://api.anthropic.com/v1";
    const PATH: &'static str = "/messages";
    type Stream = anthropic::AnthropicStream;

    fn headers(key: Option<&ApiKey>) -> Vec<(&'static str, String)> {
        let mut headers = vec![
            ("content-type", "application/json".to_owned()),
            ("anthropic-version", VERSION.to_owned()),
        ];
        if let Some(key) = key {
            headers.push(("x-api-key", key.expose().to_owned()));
        }
        headers
    }

    fn body(config: &ClientConfig, request: &ChatRequest<'_>) -> Result<Value, ModelError> {
        anthropic::request_body(
            request,
            &config.model,
            config.default_max_tokens,
            config.stream,
        )
    }

    fn reply(body: &Value) -> Result<ModelReply, ModelError> {
        anthropic::read_reply(body)
    }
}
