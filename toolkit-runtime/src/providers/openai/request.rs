//! The Chat Completions request body, built from a [`ChatRequest`].

use serde_json::{Map, Value, json};

use super::{API, tool_images};
use crate::ToolCall;
use crate::chat::{ChatRequest, Message, ModelError, ToolChoice};
use crate::providers::Format;

/// The body of a Chat Completions request (`POST {base}/chat/completions`) for `model`:
/// the conversation, the tools (as strict definitions when `strict_tools`), the options, and
/// `stream` when the reply is to be streamed.
///
/// Only strict definitions can fail: a tool whose schema strict mode cannot express is a
/// [`ModelError::Request`], and nothing should be sent.
///
/// ```
/// use toolkit_runtime::chat::{ChatOptions, ChatRequest, Message};
/// use toolkit_runtime::providers::{ToolDefinitions, openai};
/// use toolkit::prelude::*;
///
/// let messages = [Message::user("hi")];
/// let options = ChatOptions::default();
/// let request = ChatRequest::new(&messages, ToolDefinitions::none(), &options);
/// let body = openai::request_body(&request, "gpt-4o", false, false).unwrap();
/// assert_eq!(body, json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}));
/// ```
pub fn request_body(
    request: &ChatRequest<'_>,
    model: &str,
    strict_tools: bool,
    stream: bool,
) -> Result<Value, ModelError> {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Array(messages(request.messages)));
    let options = request.options;
    if !request.tools.is_empty() {
        let format = match strict_tools {
            true => Format::OpenAiStrict,
            false => Format::OpenAi,
        };
        // Only strict mode can fail.
        let tools = request
            .tools
            .render(format)
            .map_err(|e| ModelError::Request {
                api: API,
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
    if stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Ok(Value::Object(body))
}

/// The conversation in Chat Completions form. The images of tool results follow their run of
/// tool messages in one user message, as a tool message carries text only
/// ([`tool_images`](super::tool_images)).
fn messages(messages: &[Message]) -> Vec<Value> {
    let mut sent = Vec::with_capacity(messages.len());
    let mut images = Vec::new();
    for each in messages {
        if let Message::Tool { result } = each {
            let (tool, parts) = tool_images::tool_message_and_images(result);
            sent.push(tool);
            images.extend(parts);
            continue;
        }
        if !images.is_empty() {
            sent.push(tool_images::images_message(std::mem::take(&mut images)));
        }
        sent.push(message(each));
    }
    if !images.is_empty() {
        sent.push(tool_images::images_message(images));
    }
    sent
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
