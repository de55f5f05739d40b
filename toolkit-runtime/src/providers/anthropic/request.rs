//! The Messages request body, built from a [`ChatRequest`].

use serde_json::{Map, Value, json};

use super::API;
use crate::ToolCall;
use crate::chat::{ChatRequest, Message, ModelError, ToolChoice};
use crate::providers::Format;

/// The body of a Messages request (`POST {base}/messages`) for `model`: system messages joined
/// into `system`, the rest as alternating `user`/`assistant` messages (tool results in `user`
/// ones), the tools, the options (`default_max_tokens` when the request sets no
/// `max_tokens`, which the API requires), and `stream` when the reply is to be streamed.
///
/// ```
/// use toolkit_runtime::chat::{ChatOptions, ChatRequest, Message};
/// use toolkit_runtime::providers::{ToolDefinitions, anthropic};
/// use toolkit::prelude::*;
///
/// let messages = [Message::system("Be brief."), Message::user("hi")];
/// let options = ChatOptions::default();
/// let request = ChatRequest::new(&messages, ToolDefinitions::none(), &options);
/// let body = anthropic::request_body(&request, "claude-sonnet-4-5", 1024, false).unwrap();
/// assert_eq!(body["system"], json!("Be brief."));
/// assert_eq!(body["messages"], json!([{"role": "user", "content": [{"type": "text", "text": "hi"}]}]));
/// ```
pub fn request_body(
    request: &ChatRequest<'_>,
    model: &str,
    default_max_tokens: u32,
    stream: bool,
) -> Result<Value, ModelError> {
    let options = request.options;
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    let max_tokens = options.max_tokens.unwrap_or(default_max_tokens);
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
        let tools = request
            .tools
            .render(Format::Anthropic)
            .map_err(|e| ModelError::Request {
                api: API,
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
    if stream {
        body.insert("stream".into(), json!(true));
    }
    Ok(Value::Object(body))
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
