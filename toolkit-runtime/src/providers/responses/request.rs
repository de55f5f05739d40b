//! The Responses request body, built from a [`ChatRequest`].

use serde_json::{Map, Value, json};

use crate::ToolCall;
use crate::chat::{ChatRequest, Message, ModelError, OutputSchema, ToolChoice};
use crate::providers::Format;

use super::API;

/// The body of a Responses request (`POST {base}/responses`) for `model`: the conversation as
/// `input` items (messages, `function_call` and `function_call_output` items, the latter with
/// image and file parts for content results), the tools as Responses function tools,
/// `tool_choice`, `parallel_tool_calls`, the options, `text.format` for a typed answer, and
/// `stream` when the reply is to be streamed. Nothing is stored on OpenAI's side
/// (`store: false`): the whole conversation is sent each time, as with Chat Completions.
///
/// ```
/// use toolkit_runtime::chat::{ChatOptions, ChatRequest, Message};
/// use toolkit_runtime::providers::{ToolDefinitions, responses};
/// use toolkit::prelude::*;
///
/// let messages = [Message::system("Be brief."), Message::user("hi")];
/// let options = ChatOptions::default();
/// let request = ChatRequest::new(&messages, ToolDefinitions::none(), &options);
/// let body = responses::request_body(&request, "gpt-4.1", false).unwrap();
/// assert_eq!(body, json!({"model": "gpt-4.1", "store": false, "input": [
///     {"role": "system", "content": "Be brief."},
///     {"role": "user", "content": "hi"},
/// ]}));
/// ```
pub fn request_body(
    request: &ChatRequest<'_>,
    model: &str,
    stream: bool,
) -> Result<Value, ModelError> {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("store".into(), json!(false));
    let mut input = Vec::with_capacity(request.messages.len());
    for message in request.messages {
        items(message, &mut input);
    }
    body.insert("input".into(), Value::Array(input));
    let options = request.options;
    if !request.tools.is_empty() {
        let tools =
            request
                .tools
                .render(Format::OpenAiResponses)
                .map_err(|e| ModelError::Request {
                    api: API,
                    message: format!("the tools cannot be sent: {e}"),
                })?;
        body.extend([
            ("tools".to_owned(), tools.clone()),
            ("tool_choice".to_owned(), tool_choice(&options.tool_choice)),
            (
                "parallel_tool_calls".to_owned(),
                json!(options.parallel_tool_calls),
            ),
        ]);
    }
    let temperature = options
        .temperature
        .map(|t| ("temperature".to_owned(), json!(t)));
    let max_tokens = (options.max_tokens).map(|n| ("max_output_tokens".to_owned(), json!(n)));
    body.extend(temperature.into_iter().chain(max_tokens));
    if let Some(output) = &options.output {
        body.insert("text".into(), json!({"format": text_format(output)}));
    }
    if stream {
        body.insert("stream".into(), json!(true));
    }
    Ok(Value::Object(body))
}

/// `text.format` for a typed answer: `{"type": "json_schema", "name", "schema", "strict"}`
/// (the guide "Structured Outputs", Responses tab), the schema in strict mode's subset as Chat
/// Completions sends it.
fn text_format(output: &OutputSchema) -> Value {
    let (strict, schema) = crate::providers::strict::output_schema(output);
    json!({
        "type": "json_schema",
        "name": output.name,
        "schema": schema,
        "strict": strict,
    })
}

/// The input items of one message: an assistant message with calls is its text (if any) and
/// one `function_call` item per call.
fn items(message: &Message, out: &mut Vec<Value>) {
    match message {
        Message::System { content } => out.push(json!({"role": "system", "content": content})),
        Message::User { content } => out.push(json!({"role": "user", "content": content})),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            if let Some(text) = content.as_deref().filter(|text| !text.is_empty()) {
                out.push(json!({"role": "assistant", "content": text}));
            }
            out.extend(tool_calls.iter().map(function_call));
        }
        Message::Tool { result } => out.push(result.render(Format::OpenAiResponses)),
    }
}

fn function_call(call: &ToolCall) -> Value {
    let arguments = match &call.args {
        // The model's text goes back as the compact JSON it stands for, or as it came.
        Value::String(text) => serde_json::from_str::<Value>(text)
            .map_or_else(|_| text.clone(), |value| value.to_string()),
        other => other.to_string(),
    };
    json!({
        "type": "function_call",
        "call_id": call.id.as_deref().unwrap_or_default(),
        "name": call.name,
        "arguments": arguments,
    })
}

fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
    }
}
