//! The OpenAI Responses API (`POST {base}/responses`) over HTTP. The wire format is the
//! runtime's `providers::responses`.

use serde_json::Value;

use super::builder::ModelClientBuilder;
use super::http::{ClientConfig, ModelClient, WireApi, sealed};
use super::{ApiKey, ChatRequest, ModelError, ModelReply};
use crate::providers::responses;

/// The OpenAI Responses wire format, for [`ModelClient`].
#[derive(Debug, Clone, Copy)]
pub struct OpenAiResponses;

/// A client of the OpenAI Responses API, the API OpenAI recommends for new work: function
/// calls as `function_call` items, results as `function_call_output` items (with images and
/// files for content results), streaming as semantic events, and a typed answer as
/// `text.format` with a strict JSON Schema ([`native_output`](crate::models::ChatModel::native_output)
/// is `true`). Nothing is stored on OpenAI's side (`store: false`).
///
/// ```no_run
/// use toolkit::agent::Agent;
/// use toolkit::models::OpenAiResponsesClient;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let model = OpenAiResponsesClient::builder("gpt-4.1")
///     .api_key(std::env::var("OPENAI_API_KEY")?)
///     .build()?;
/// let run = Agent::builder(model).build().run("Say hello").await?;
/// println!("{}", run.answer);
/// # Ok(())
/// # }
/// ```
pub type OpenAiResponsesClient = ModelClient<OpenAiResponses>;

/// The builder of an [`OpenAiResponsesClient`].
pub type OpenAiResponsesClientBuilder = ModelClientBuilder<OpenAiResponses>;

impl sealed::Sealed for OpenAiResponses {}

impl WireApi for OpenAiResponses {
    const NAME: &'static str = responses::API;
    const PROVIDER: &'static str = "openai";
    const DEFAULT_BASE_URL: &'static str = "https://api.openai.com/v1";
    const PATH: &'static str = "/responses";
    type Stream = responses::ResponsesStream;

    fn native_output() -> bool {
        true
    }

    fn headers(key: Option<&ApiKey>) -> Vec<(&'static str, String)> {
        super::openai::OpenAi::headers(key)
    }

    fn body(config: &ClientConfig, request: &ChatRequest<'_>) -> Result<Value, ModelError> {
        responses::request_body(request, &config.model, config.stream)
    }

    fn reply(body: &Value) -> Result<ModelReply, ModelError> {
        responses::read_reply(body)
    }
}
