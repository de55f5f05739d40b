//! async-openai's typed Chat Completions values to and from toolkit's, with no JSON by hand.
//!
//! Supported: async-openai `0.43.0` (its `chat-completion-types` feature only, so it brings no
//! HTTP stack of its own). Arguments stay the model's text until the tool's own pipeline parses,
//! validates and coerces them, so a malformed call still reaches the model as our `Error: ...`.
//!
//! ```
//! use async_openai::types::chat::{ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls};
//! use async_openai::types::chat::{ChatCompletionRequestToolMessageContent, FunctionCall};
//! use toolkit::integrations::async_openai::{chat_tools, tool_calls, tool_message};
//! use toolkit::prelude::*;
//!
//! /// Add two numbers
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! let toolbox = Toolbox::builder().tool(add_tool()).build().unwrap();
//! let definitions = chat_tools(toolbox.tools()); // for CreateChatCompletionRequest::tools
//! assert_eq!(definitions.len(), 1);
//!
//! // What a response's `message.tool_calls` holds:
//! let from_model = vec![ChatCompletionMessageToolCalls::Function(ChatCompletionMessageToolCall {
//!     id: "call_1".into(),
//!     function: FunctionCall { name: "add".into(), arguments: r#"{"a": 2, "b": "3"}"#.into() },
//! })];
//! let calls = tool_calls(&from_model);
//! let message = tool_message(&toolbox.call(&calls[0])); // validated and coerced: "3" -> 3
//! assert_eq!(message.tool_call_id, "call_1");
//! assert_eq!(message.content, ChatCompletionRequestToolMessageContent::Text("5".into()));
//! ```

use std::collections::BTreeMap;

use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionMessageToolCallChunk,
    ChatCompletionMessageToolCalls, ChatCompletionRequestMessage, ChatCompletionRequestToolMessage,
    ChatCompletionRequestToolMessageContent, ChatCompletionTool, ChatCompletionTools, FunctionCall,
    FunctionObject,
};
use serde_json::Value;

use crate::providers::Format;
use crate::{ToolCall, ToolCallResult, ToolError, ToolProxy};

/// A tool's definition as async-openai's typed Chat Completions tool.
///
/// ```
/// use async_openai::types::chat::ChatCompletionTools;
/// use toolkit::prelude::*;
///
/// /// Add two numbers
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// let ChatCompletionTools::Function(def) = toolkit::integrations::async_openai::chat_tool(&add_tool())
/// else { unreachable!() };
/// assert_eq!(def.function.name, "add");
/// assert_eq!(def.function.strict, None);
/// ```
pub fn chat_tool(tool: &ToolProxy) -> ChatCompletionTools {
    function_tool(tool, tool.parameters().clone(), None)
}

/// A tool's definition in OpenAI strict mode (`strict: true`), as [`Format::OpenAiStrict`]
/// rewrites its parameters; an error names what strict mode cannot express.
pub fn chat_tool_strict(tool: &ToolProxy) -> Result<ChatCompletionTools, ToolError> {
    let definition = tool.definition_in(Format::OpenAiStrict)?;
    let parameters = definition["function"]["parameters"].clone();
    Ok(function_tool(tool, parameters, Some(true)))
}

/// Every tool's definition, for `CreateChatCompletionRequest::tools`.
pub fn chat_tools(tools: &[ToolProxy]) -> Vec<ChatCompletionTools> {
    tools.iter().map(chat_tool).collect()
}

/// Every tool's strict-mode definition; the first tool strict mode cannot express is the error.
pub fn chat_tools_strict(tools: &[ToolProxy]) -> Result<Vec<ChatCompletionTools>, ToolError> {
    tools.iter().map(chat_tool_strict).collect()
}

fn function_tool(tool: &ToolProxy, parameters: Value, strict: Option<bool>) -> ChatCompletionTools {
    ChatCompletionTools::Function(ChatCompletionTool {
        function: FunctionObject {
            name: tool.name().to_string(),
            description: Some(tool.description().to_string()),
            parameters: Some(parameters),
            strict,
        },
    })
}

/// One typed function call as a [`ToolCall`]; its arguments stay the model's text, for the
/// tool's pipeline to parse.
pub fn tool_call(call: &ChatCompletionMessageToolCall) -> ToolCall {
    to_call(call.id.clone(), &call.function)
}

fn to_call(id: String, function: &FunctionCall) -> ToolCall {
    ToolCall::new(
        function.name.clone(),
        Value::String(function.arguments.clone()),
    )
    .with_id(id)
}

/// The function calls of a response message (`message.tool_calls`) as [`ToolCall`]s, in order.
///
/// Custom-tool calls (free-form text for a `custom` tool) are left out: toolkit tools are
/// function tools.
pub fn tool_calls(calls: &[ChatCompletionMessageToolCalls]) -> Vec<ToolCall> {
    calls
        .iter()
        .filter_map(|call| match call {
            ChatCompletionMessageToolCalls::Function(call) => Some(tool_call(call)),
            ChatCompletionMessageToolCalls::Custom(_) => None,
        })
        .collect()
}

/// The tool calls of a streamed response, assembled from every chunk's `delta.tool_calls` in
/// the order they arrived.
///
/// Chunks with the same `index` are one call: the id and name come from whichever chunk has
/// them, the argument fragments are joined. A call that never got a name is an error, as the
/// stream was cut or is not a tool call.
pub fn assemble_tool_calls<'a>(
    chunks: impl IntoIterator<Item = &'a ChatCompletionMessageToolCallChunk>,
) -> Result<Vec<ToolCall>, ToolError> {
    let mut parts: BTreeMap<u32, (Option<String>, Option<String>, String)> = BTreeMap::new();
    for chunk in chunks {
        let (id, name, arguments) = parts.entry(chunk.index).or_default();
        if let Some(chunk_id) = &chunk.id {
            id.get_or_insert_with(|| chunk_id.clone());
        }
        if let Some(function) = &chunk.function {
            if let Some(chunk_name) = &function.name {
                name.get_or_insert_with(|| chunk_name.clone());
            }
            arguments.push_str(function.arguments.as_deref().unwrap_or_default());
        }
    }
    parts
        .into_iter()
        .map(|(index, (id, name, arguments))| {
            let name = name.ok_or_else(|| ToolError::InvalidCall {
                message: format!("the streamed tool call at index {index} has no function name"),
            })?;
            let call = ToolCall::new(name, Value::String(arguments));
            Ok(match id {
                Some(id) => call.with_id(id),
                None => call,
            })
        })
        .collect()
}

/// A result as async-openai's typed tool message (`role: "tool"`), paired by `tool_call_id`;
/// an error result carries the same `Error: ...` text the model reads everywhere else. A
/// content result's text is what [`Format::OpenAi`] renders: its text blocks, and a line naming
/// each image, which [`images_message`] then shows.
pub fn tool_message(result: &ToolCallResult) -> ChatCompletionRequestToolMessage {
    let text = match result.content() {
        Some(_) => match result.render(Format::OpenAi)["content"].take() {
            Value::String(text) => text,
            _ => result.text(),
        },
        None => result.text(),
    };
    ChatCompletionRequestToolMessage {
        content: ChatCompletionRequestToolMessageContent::Text(text),
        tool_call_id: result.call_id.clone().unwrap_or_default(),
    }
}

/// The user message that shows the model the images tool results returned, to push after
/// their tool messages: Chat Completions tool messages carry text only
/// ([`providers::openai::tool_images_message`](crate::providers::openai::tool_images_message)).
/// `None` when no result holds an image.
///
/// ```
/// use toolkit::integrations::async_openai::images_message;
/// use toolkit::prelude::*;
///
/// let call = ToolCall::new("chart", json!({})).with_id("call_1");
/// let result = ToolCallResult::from_content(&call, ToolOutput::new().with(Image::png([1, 2, 3])));
/// assert!(images_message([&result]).is_some());
/// ```
pub fn images_message<'a>(
    results: impl IntoIterator<Item = &'a ToolCallResult>,
) -> Option<ChatCompletionRequestMessage> {
    let message = crate::providers::openai::tool_images_message(results)?;
    serde_json::from_value(message).ok()
}

/// A result as a request message, ready to push onto `CreateChatCompletionRequest::messages`.
pub fn request_message(result: &ToolCallResult) -> ChatCompletionRequestMessage {
    ChatCompletionRequestMessage::Tool(tool_message(result))
}
