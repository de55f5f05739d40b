//! The `generateContent` request body, built from a [`ChatRequest`].

use serde_json::{Map, Value, json};

use super::{API, gemini_schema};
use crate::chat::{ChatRequest, Message, ModelError, ToolChoice};
use crate::providers::Format;
use crate::{ToolCall, ToolCallResult};

/// The body of a `models/{model}:generateContent` (or `:streamGenerateContent`) request: the
/// conversation as `contents` (roles `user` and `model`; a run of tool results is one `user`
/// turn of `functionResponse` parts, as many as the calls it answers), the system messages as
/// `systemInstruction`, the tools as one `functionDeclarations` tool, `toolConfig`, and
/// `generationConfig` (temperature, `maxOutputTokens`, and for a typed answer
/// `responseMimeType: application/json` with the schema in Gemini's subset as
/// `responseSchema`).
///
/// ```
/// use toolkit_runtime::chat::{ChatOptions, ChatRequest, Message};
/// use toolkit_runtime::providers::{ToolDefinitions, gemini};
/// use toolkit::prelude::*;
///
/// let messages = [Message::system("Be brief."), Message::user("hi")];
/// let options = ChatOptions::default();
/// let request = ChatRequest::new(&messages, ToolDefinitions::none(), &options);
/// assert_eq!(gemini::request_body(&request).unwrap(), json!({
///     "systemInstruction": {"parts": [{"text": "Be brief."}]},
///     "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
/// }));
/// ```
pub fn request_body(request: &ChatRequest<'_>) -> Result<Value, ModelError> {
    let mut body = Map::new();
    let system: Vec<Value> = request
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::System { content } => Some(json!({"text": content})),
            _ => None,
        })
        .collect();
    if !system.is_empty() {
        body.insert("systemInstruction".into(), json!({"parts": system}));
    }
    body.insert("contents".into(), Value::Array(contents(request.messages)));
    let options = request.options;
    if !request.tools.is_empty() {
        let declarations =
            request
                .tools
                .render(Format::Gemini)
                .map_err(|e| ModelError::Request {
                    api: API,
                    message: format!("the tools cannot be sent: {e}"),
                })?;
        // `render` gives the one `{"functionDeclarations": [...]}` tool already.
        body.insert("tools".into(), json!([declarations]));
        body.insert("toolConfig".into(), tool_config(&options.tool_choice));
    }
    let mut generation = Map::new();
    if let Some(temperature) = options.temperature {
        generation.insert("temperature".into(), json!(temperature));
    }
    if let Some(max_tokens) = options.max_tokens {
        generation.insert("maxOutputTokens".into(), json!(max_tokens));
    }
    if let Some(output) = &options.output {
        generation.insert("responseMimeType".into(), json!("application/json"));
        generation.insert("responseSchema".into(), gemini_schema(&output.schema));
    }
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    Ok(Value::Object(body))
}

/// The turns: system messages left out (they are the `systemInstruction`), consecutive tool
/// results joined in one `user` turn.
fn contents(history: &[Message]) -> Vec<Value> {
    let mut out = Vec::with_capacity(history.len());
    let mut results: Vec<&ToolCallResult> = Vec::new();
    for message in history {
        if let Message::Tool { result } = message {
            results.push(result);
            continue;
        }
        out.extend(responses(&mut results));
        match message {
            Message::User { content } => {
                out.push(json!({"role": "user", "parts": [{"text": content}]}));
            }
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut parts = Vec::new();
                if let Some(text) = content.as_deref().filter(|text| !text.is_empty()) {
                    parts.push(json!({"text": text}));
                }
                parts.extend(tool_calls.iter().map(function_call));
                if !parts.is_empty() {
                    out.push(json!({"role": "model", "parts": parts}));
                }
            }
            Message::System { .. } | Message::Tool { .. } => {}
        }
    }
    out.extend(responses(&mut results));
    out
}

fn responses(results: &mut Vec<&ToolCallResult>) -> Option<Value> {
    if results.is_empty() {
        return None;
    }
    let parts: Vec<Value> = results
        .drain(..)
        .map(|r| r.render(Format::Gemini))
        .collect();
    Some(json!({"role": "user", "parts": parts}))
}

/// A `functionCall` part; `args` must be an object, so a model's text that is not one goes
/// back as `{}` (the call was answered with an error result already).
fn function_call(call: &ToolCall) -> Value {
    let args = match &call.args {
        Value::String(text) => serde_json::from_str::<Value>(text).unwrap_or(Value::Null),
        other => other.clone(),
    };
    let args = match args {
        Value::Object(map) => Value::Object(map),
        _ => json!({}),
    };
    let mut function = json!({"name": call.name, "args": args});
    if let Some(id) = super::call_id::on_wire(call.id.as_deref()) {
        function["id"] = json!(id);
    }
    json!({"functionCall": function})
}

/// `toolConfig.functionCallingConfig`: `AUTO`, `NONE`, `ANY`, and `ANY` limited to one
/// function for a named tool.
fn tool_config(choice: &ToolChoice) -> Value {
    let config = match choice {
        ToolChoice::Auto => json!({"mode": "AUTO"}),
        ToolChoice::None => json!({"mode": "NONE"}),
        ToolChoice::Required => json!({"mode": "ANY"}),
        ToolChoice::Tool(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
    };
    json!({"functionCallingConfig": config})
}
