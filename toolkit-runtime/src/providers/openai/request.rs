//! The Chat Completions request body, built from a [`ChatRequest`].

use serde_json::{Map, Value, json};

use super::API;
use crate::chat::{ChatRequest, Message, ModelError, OutputSchema, ToolChoice};
use crate::providers::Format;
use crate::providers::content::chat_images;
use crate::{ToolCall, ToolCallResult};

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
    if let Some(output) = &options.output {
        body.insert("response_format".into(), response_format(output));
    }
    if stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Ok(Value::Object(body))
}

/// The conversation in Chat Completions form. A tool message carries text only, so after each
/// run of tool messages whose results hold images comes one user message with those images
/// ([`tool_images_message`]).
fn messages(history: &[Message]) -> Vec<Value> {
    let mut out = Vec::with_capacity(history.len());
    let mut run: Vec<&ToolCallResult> = Vec::new();
    for item in history {
        match item {
            Message::Tool { result } => run.push(result),
            _ => out.extend(tool_images_message(run.drain(..))),
        }
        out.push(message(item));
    }
    out.extend(tool_images_message(run));
    out
}

/// The user message that shows a model on Chat Completions the images tool results returned,
/// for after those results' tool messages: Chat Completions tool messages carry text only
/// (their text names each image, see [`ToolCallResult::render`]), and a user message may hold
/// `image_url` parts. Each image is a data URL, after a text part naming the call it answers.
/// `None` when no result holds an image.
///
/// [`request_body`] sends it after each run of tool messages; an agent loop that builds its
/// own Chat Completions requests sends it itself.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit_runtime::providers::openai;
///
/// let call = ToolCall::new("chart", json!({})).with_id("call_1");
/// let result = ToolCallResult::from_content(&call, ToolOutput::new().with(Image::png([1, 2, 3])));
/// assert_eq!(
///     openai::tool_images_message([&result]).unwrap(),
///     json!({"role": "user", "content": [
///         {"type": "text", "text": "The images the tool call call_1 (chart) returned:"},
///         {"type": "image_url", "image_url": {"url": "data:image/png;base64,AQID"}}
///     ]})
/// );
/// assert_eq!(openai::tool_images_message([&ToolCallResult::from_outcome(&call, Ok(json!(1)))]), None);
/// ```
pub fn tool_images_message<'a>(
    results: impl IntoIterator<Item = &'a ToolCallResult>,
) -> Option<Value> {
    let mut parts = Vec::new();
    for result in results {
        let Some(output) = result.content() else {
            continue;
        };
        let images = chat_images(&output);
        if images.is_empty() {
            continue;
        }
        let label = format!(
            "The images the tool call {} ({}) returned:",
            result.id(),
            result.name
        );
        parts.push(json!({"type": "text", "text": label}));
        parts.extend(images);
    }
    (!parts.is_empty()).then(|| json!({"role": "user", "content": parts}))
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

/// OpenAI's structured output: the answer's schema as a `json_schema` response format, in
/// strict mode's subset when asked for strict and the schema has one; else as it is, not strict.
fn response_format(output: &OutputSchema) -> Value {
    let (strict, schema) = super::super::strict::output_schema(output);
    json!({"type": "json_schema", "json_schema": {
        "name": output.name,
        "strict": strict,
        "schema": schema,
    }})
}
