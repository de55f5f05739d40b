//! OpenAI-compatible Chat Completions (`POST {base}/chat/completions`) over HTTP: OpenAI, vLLM,
//! Ollama, llama.cpp's server, LM Studio. The wire format is the runtime's `providers::openai`.

use serde_json::Value;

use super::builder::ModelClientBuilder;
use super::http::{ClientConfig, ModelClient, WireApi, sealed};
use super::{ApiKey, ChatRequest, ModelError, ModelReply};
use crate::providers::openai;

/// The OpenAI Chat Completions wire format, for [`ModelClient`].
#[derive(Debug, Clone, Copy)]
pub struct OpenAi;

/// A client of an OpenAI-compatible Chat Completions API.
///
/// ```no_run
/// use toolkit::agent::Agent;
/// use toolkit::models::OpenAiClient;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let model = OpenAiClient::builder("llama3.1")
///     .base_url("http://localhost:11434/v1") // Ollama; the default is api.openai.com
///     .streaming(true)
///     .build()?;
/// let run = Agent::builder(model).build().run("Say hello").await?;
/// println!("{}", run.answer);
/// # Ok(())
/// # }
/// ```
pub type OpenAiClient = ModelClient<OpenAi>;

/// The builder of an [`OpenAiClient`].
pub type OpenAiClientBuilder = ModelClientBuilder<OpenAi>;

impl sealed::Sealed for OpenAi {}

impl WireApi for OpenAi {
    const NAME: &'static str = openai::API;
    const PROVIDER: &'static str = "openai";
    const DEFAULT_BASE_URL: &'static str = "https://api.openai.com/v1";
    const PATH: &'static str = "/chat/completions";
    type Stream = openai::OpenAiStream;

    /// Chat Completions' `response_format` with a strict `json_schema`.
    fn native_output() -> bool {
        true
    }

    fn headers(key: Option<&ApiKey>) -> Vec<(&'static str, String)> {
        let mut headers = vec![("content-type", "application/json".to_owned())];
        if let Some(key) = key {
            headers.push(("authorization", format!("Bearer {}", key.expose())));
        }
        headers
    }

    fn body(config: &ClientConfig, request: &ChatRequest<'_>) -> Result<Value, ModelError> {
        openai::request_body(request, &config.model, config.strict_tools, config.stream)
    }

    fn reply(body: &Value) -> Result<ModelReply, ModelError> {
        openai::read_reply(body)
    }
}
