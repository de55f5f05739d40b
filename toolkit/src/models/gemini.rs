//! The Gemini API (`POST {base}/models/{model}:generateContent`, and
//! `:streamGenerateContent?alt=sse` streamed) over HTTP. The wire format is the runtime's
//! `providers::gemini`.

use serde_json::Value;

use super::builder::ModelClientBuilder;
use super::http::{ClientConfig, ModelClient, WireApi, sealed};
use super::{ApiKey, ChatRequest, ModelError, ModelReply};
use crate::providers::gemini;

/// The Gemini wire format, for [`ModelClient`].
#[derive(Debug, Clone, Copy)]
pub struct Gemini;

/// A client of the Gemini API: function calling (`functionDeclarations`, `functionCall`,
/// `functionResponse` with inline images), `toolConfig`, `systemInstruction`, and a typed
/// answer as `responseSchema` in Gemini's schema subset
/// ([`native_output`](crate::models::ChatModel::native_output) is `true`).
///
/// The key goes in the `x-goog-api-key` header, never in the URL (where logs and proxies would
/// keep it).
///
/// ```no_run
/// use toolkit::agent::Agent;
/// use toolkit::models::GeminiClient;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let model = GeminiClient::builder("gemini-2.5-flash")
///     .api_key(std::env::var("GEMINI_API_KEY")?)
///     .build()?;
/// let run = Agent::builder(model).build().run("Say hello").await?;
/// println!("{}", run.answer);
/// # Ok(())
/// # }
/// ```
///
/// A model name that cannot be written in the URL's path is refused when the client is built:
///
/// ```
/// use toolkit::models::GeminiClient;
///
/// let error = GeminiClient::builder("gemini/../x?key=1").build().unwrap_err();
/// assert!(error.to_string().contains("gemini/../x?key=1"));
/// ```
pub type GeminiClient = ModelClient<Gemini>;

/// The builder of a [`GeminiClient`].
pub type GeminiClientBuilder = ModelClientBuilder<Gemini>;

impl sealed::Sealed for Gemini {}

impl WireApi for Gemini {
    const NAME: &'static str = gemini::API;
    const PROVIDER: &'static str = "gcp.gemini";
    const DEFAULT_BASE_URL: &'static str = "https://generativelanguage.googleapis.com/v1beta";
    const PATH: &'static str = "/models/{model}:generateContent";
    type Stream = gemini::GeminiStream;

    /// `models/{model}:generateContent`, or `:streamGenerateContent?alt=sse` (server-sent
    /// events rather than one JSON array); a `models/` prefix on the name is accepted.
    fn path(config: &ClientConfig, stream: bool) -> Result<String, ModelError> {
        let model = config
            .model
            .strip_prefix("models/")
            .unwrap_or(&config.model);
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
        if model.is_empty() || !model.chars().all(plain) || model.starts_with('.') {
            return Err(ModelError::Request {
                api: gemini::API,
                message: format!(
                    "the model name {:?} cannot be written in the URL: use letters, digits, \
                     `-`, `_` and `.`",
                    config.model
                ),
            });
        }
        Ok(match stream {
            true => format!("/models/{model}:streamGenerateContent?alt=sse"),
            false => format!("/models/{model}:generateContent"),
        })
    }

    fn native_output() -> bool {
        true
    }

    fn headers(key: Option<&ApiKey>) -> Vec<(&'static str, String)> {
        let mut headers = vec![("content-type", "application/json".to_owned())];
        if let Some(key) = key {
            headers.push(("x-goog-api-key", key.expose().to_owned()));
        }
        headers
    }

    /// The stream is chosen by the path; the body is the same.
    fn body(_config: &ClientConfig, request: &ChatRequest<'_>) -> Result<Value, ModelError> {
        gemini::request_body(request)
    }

    fn reply(body: &Value) -> Result<ModelReply, ModelError> {
        gemini::read_reply(body)
    }
}
