//! A Chat Completions tool call, `{"id", "type": "function", "function": {"name",
//! "arguments"}}`: where its parts are, and its strict reading for a client's reply.
//! [`ToolCalls::parse`](crate::ToolCalls::parse) reads the same parts leniently
//! ([`CallParts::lenient`]).

use serde_json::Value;

use crate::ToolCall;
use crate::chat::ModelError;
use crate::chat::decode::At;
use crate::providers::arguments::call_arguments;
use crate::providers::parse::CallParts;

/// The parts of the call at `call` (an element of a message's `tool_calls`).
pub(crate) fn chat_completions_call<'a>(call: &At<'a>) -> CallParts<'a> {
    let function = call.get("function");
    CallParts {
        id: call.get("id"),
        name: function.get("name"),
        arguments: function.get("arguments"),
    }
}

/// The call as a client reads a reply: the arguments must be present, the name a string and the
/// id a string or absent, and an error names the JSON path. Argument text stays text when it is
/// one well-formed object (the tool's typed fast path reads it), and is repaired otherwise.
pub(crate) fn read_chat_completions_call(call: &CallParts<'_>) -> Result<ToolCall, ModelError> {
    let args = match call.arguments.value()? {
        Value::String(text) => call_arguments(text),
        other => other.clone(),
    };
    let id = call.id.opt_str()?;
    let mut read = ToolCall::new(call.name.str()?, args);
    read.id = id.map(str::to_owned);
    Ok(read)
}
