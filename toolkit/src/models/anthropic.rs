//! The Anthropic Messages API (`POST {base}/messages`): `tool_use` and `tool_result` blocks.

use serde_json::{Map, Value, json};

use super::anthropic_reply::{API, AnthropicStream, read_reply};
use super::builder::ModelClientBuilder;
use super::http::{ClientConfig, ModelClient, WireApi, sealed};
use super::{ApiKey, ChatRequest, Message, ModelError, ModelReply, ToolChoice};
use crate::ToolCall;
use crate::providers::Format;

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
    const NAME: &'static str = API;
    const DEFAULT_BASE_URL: &'static str = "https://api.anthropic.com/v1";
    const PATH: &'static str = "/messages";
    type Stream = AnthropicStream;

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
        let options = request.options;
        let mut body = Map::new();
        body.insert("model".into(), json!(config.model));
        let max_tokens = options.max_tokens.unwrap_or(config.default_max_tokens);
        body.insert("max_tokens".into(), json!(max_tokens));
        let system: Vec<&str> = request
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::System { content } => Some(content.as_str()),
                _ => None,
            })
            .collect();
        if !system.is_empty() {
            body.insert("system".into(), json!(system.join("\n\n")));
        }
        body.insert("messages".into(), messages(request.messages));
        if !request.tools.is_empty() {
            // Anthropic definitions cannot fail; an error would be a strict-mode one.
            let tools =
                request
                    .tools
                    .render(Format::Anthropic)
                    .map_err(|e| ModelError::Request {
                        api: Self::NAME,
                        message: e.to_string(),
                    })?;
            body.insert("tools".into(), tools.clone());
            let mut choice = tool_choice(&options.tool_choice);
            if !options.parallel_tool_calls && options.tool_choice != ToolChoice::None {
                choice["disable_parallel_tool_use"] = json!(true);
            }
            body.insert("tool_choice".into(), choice);
        }
        if let Some(temperature) = options.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        if config.stream {
            body.insert("stream".into(), json!(true));
        }
        Ok(Value::Object(body))
    }

    fn reply(body: &Value) -> Result<ModelReply, ModelError> {
        read_reply(body)
    }
}

/// The conversation as Messages `messages`: tool results go in `user` messages, and adjacent
/// messages of one role are merged, as the API wants roles to alternate.
fn messages(history: &[Message]) -> Value {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in history {
        let (role, blocks) = match message {
            Message::System { .. } => continue,
            Message::User { content } => ("user", vec![json!({"type": "text", "text": content})]),
            Message::Tool { result } => ("user", vec![result.render(Format::Anthropic)]),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let text = content.iter().filter(|t| !t.is_empty());
                let mut blocks: Vec<Value> =
                    text.map(|t| json!({"type": "text", "text": t})).collect();
                blocks.extend(tool_calls.iter().map(tool_use));
                ("assistant", blocks)
            }
        };
        match out.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => out.push((role, blocks)),
        }
    }
    out.into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect()
}

fn tool_use(call: &ToolCall) -> Value {
    let input = match &call.args {
        Value::String(text) => serde_json::from_str(text).unwrap_or_else(|_| json!({})),
        other => other.clone(),
    };
    json!({"type": "tool_use", "id": call.id.as_deref().unwrap_or_default(),
        "name": call.name, "input": input})
}

fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!({"type": "auto"}),
        ToolChoice::None => json!({"type": "none"}),
        ToolChoice::Required => json!({"type": "any"}),
        ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
    }
}
