//! OpenAI-compatible Chat Completions (`POST {base}/chat/completions`): OpenAI, vLLM, Ollama,
//! llama.cpp's server, LM Studio.

use serde_json::{Map, Value, json};

use super::builder::ModelClientBuilder;
use super::http::{ClientConfig, ModelClient, WireApi, sealed};
use super::openai_reply::{API, OpenAiStream, read_reply};
use super::{ApiKey, ChatRequest, Message, ModelError, ModelReply, ToolChoice};
use crate::ToolCall;
use crate::providers::Format;

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
    const NAME: &'static str = API;
    const DEFAULT_BASE_URL: &'static str = "https://api.openai.com/v1";
    const PATH: &'static str = "/chat/completions";
    type Stream = OpenAiStream;

    fn headers(key: Option<&ApiKey>) -> Vec<(&'static str, String)> {
        let mut headers = vec![("content-type", "application/json".to_owned())];
        if let Some(key) = key {
            headers.push(("authorization", format!("Bearer {}", key.expose())));
        }
        headers
    }

    fn body(config: &ClientConfig, request: &ChatRequest<'_>) -> Result<Value, ModelError> {
        let mut body = Map::new();
        body.insert("model".into(), json!(config.model));
        let messages: Vec<Value> = request.messages.iter().map(message).collect();
        body.insert("messages".into(), Value::Array(messages));
        let options = request.options;
        if !request.tools.is_empty() {
            let format = match config.strict_tools {
                true => Format::OpenAiStrict,
                false => Format::OpenAi,
            };
            // Only strict mode can fail.
            let tools = request
                .tools
                .render(format)
                .map_err(|e| ModelError::Request {
                    api: Self::NAME,
                    message: format!("the tools cannot be sent as strict definitions: {e}"),
                })?;
            body.insert("tools".into(), tools.clone());
            body.insert("tool_choice".into(), tool_choice(&options.tool_choice));
            body.insert(
                "parallel_tool_calls".into(),
                json!(options.parallel_tool_calls),
            );
        }
        if let Some(temperature) = options.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        if let Some(max_tokens) = options.max_tokens {
            body.insert("max_tokens".into(), json!(max_tokens));
        }
        if config.stream {
            body.insert("stream".into(), json!(true));
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
        Ok(Value::Object(body))
    }

    fn reply(body: &Value) -> Result<ModelReply, ModelError> {
        read_reply(body)
    }
}

/// A message in Chat Completions form.
fn message(message: &Message) -> Value {
    match message {
        Message::System { content } => json!({"role": "system", "content": content}),
        Message::User { content } => json!({"role": "user", "content": content}),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            let mut value = json!({"role": "assistant", "content": content});
            if !tool_calls.is_empty() {
                let calls: Vec<Value> = tool_calls.iter().map(tool_call).collect();
                value["tool_calls"] = Value::Array(calls);
            }
            value
        }
        Message::Tool { result } => result.render(Format::OpenAi),
    }
}

fn tool_call(call: &ToolCall) -> Value {
    let arguments = match &call.args {
        // A reply's arguments stay the model's text; they go back as the compact JSON they
        // stand for, as when the reader made a value of them. Text that is not JSON goes back
        // as it came.
        Value::String(text) => serde_json::from_str::<Value>(text)
            .map_or_else(|_| text.clone(), |value| value.to_string()),
        other => other.to_string(),
    };
    json!({
        "id": call.id.as_deref().unwrap_or_default(),
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    })
}

fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
    }
}
