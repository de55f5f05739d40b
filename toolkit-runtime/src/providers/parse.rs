//! Tool calls in, whatever provider's shape they arrive in.
//!
//! Models and their APIs spell "call tool X with arguments Y" a dozen ways. [`ToolCalls::parse`]
//! reads all of them into [`ToolCall`]s. Arguments sent as a string are parsed, and repaired when
//! the intent is unambiguous; a string beyond repair stays a string, so the call still reaches
//! the tool's pipeline and comes back to the model as "arguments for X were not valid JSON".
//! Nothing a model sends makes the parser panic.

use serde_json::{Map, Value};

use super::repair::{parse_json_text, repair_arguments};
use super::{anthropic, openai};
use crate::chat::decode::At;
use crate::chat::{ModelError, RefusedCall, caps};
use crate::{ToolCall, ToolError};

/// Reads tool calls out of a model's response.
///
/// Accepted shapes, alone, in a list, or under `{"tool_calls": [...]}`:
///
/// | shape | id | arguments |
/// | --- | --- | --- |
/// | DSPy `{"name", "args"}` / `{"name", "arguments"}` | none | object or string |
/// | OpenAI chat `{"id", "type": "function", "function": {"name", "arguments"}}` | `id` | string or object |
/// | OpenAI Responses `{"type": "function_call", "call_id", "name", "arguments"}` | `call_id` | string |
/// | Anthropic `{"type": "tool_use", "id", "name", "input"}`, or a whole `content` array | `id` | object |
/// | Gemini `{"functionCall": {"name", "args"}}`, or a whole `parts` array | `functionCall.id` | object |
/// | MCP `tools/call` params `{"name", "arguments"}` | none | object |
/// | ReAct `{"action", "tool_input"}` / `{"action", "action_input"}` | none | any |
///
/// Whole messages work too: an OpenAI assistant message (`tool_calls`), an Anthropic message
/// (`content`), a Gemini candidate (`content.parts`) or a Responses `output` array. Text blocks
/// among the calls are skipped.
///
/// ```
/// use toolkit::prelude::*;
///
/// let calls = ToolCalls::parse(&json!({
///     "role": "assistant",
///     "tool_calls": [{
///         "id": "call_1",
///         "type": "function",
///         "function": {"name": "add", "arguments": "{\"a\": 1, \"b\": 2,}"}
///     }]
/// }))
/// .unwrap();
/// assert_eq!(calls, [ToolCall::new("add", json!({"a": 1, "b": 2})).with_id("call_1")]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ToolCalls;

impl ToolCalls {
    /// Parses one call, a list of calls, or a message holding them.
    ///
    /// An input that holds no recognizable call is an [`ToolError::InvalidCall`] saying what
    /// was expected; an empty list is no calls.
    pub fn parse(value: &Value) -> Result<Vec<ToolCall>, ToolError> {
        let mut calls = Vec::new();
        collect(value, &mut calls, false)?;
        Ok(calls)
    }
}

/// How deep messages may nest before we stop looking: no provider nests calls more than a few
/// levels, and a bound keeps hostile input from exhausting the stack.
const MAX_DEPTH: usize = 16;

fn collect(value: &Value, calls: &mut Vec<ToolCall>, in_list: bool) -> Result<(), ToolError> {
    collect_at(value, calls, in_list, 0)
}

fn collect_at(
    value: &Value,
    calls: &mut Vec<ToolCall>,
    in_list: bool,
    depth: usize,
) -> Result<(), ToolError> {
    if depth > MAX_DEPTH {
        return Err(invalid("the calls are nested too deeply"));
    }
    match value {
        Value::Array(items) => {
            for item in items {
                collect_at(item, calls, true, depth + 1)?;
            }
            Ok(())
        }
        Value::Object(map) => {
            if let Some(call) = single_call(value, map, in_list)? {
                calls.push(call);
                return Ok(());
            }
            // Containers: an OpenAI response, choice or message (also the legacy single
            // `function_call`), a Responses output, an Anthropic
            // message, a Gemini response, candidate or content, an MCP `tools/call` request.
            for key in [
                "tool_calls",
                "function_call",
                "choices",
                "message",
                "output",
                "content",
                "parts",
                "candidates",
                "params",
            ] {
                if let Some(inner @ (Value::Array(_) | Value::Object(_))) = map.get(key) {
                    return collect_at(inner, calls, true, depth + 1);
                }
            }
            // A message without calls (the model answered in text) holds no calls.
            if map.contains_key("role") || (in_list && is_other_block(map)) {
                return Ok(());
            }
            Err(invalid(&format!(
                "{} is not a tool call; send {{\"name\": \"<tool>\", \"arguments\": {{...}}}}",
                preview(value)
            )))
        }
        Value::String(text) if in_list => {
            // A text block in a list of parts; only a string that is itself JSON is a call.
            match serde_json::from_str::<Value>(text) {
                Ok(inner @ Value::Object(_)) => collect_at(&inner, calls, true, depth + 1),
                _ => Ok(()),
            }
        }
        Value::String(text) => match parse_json_text(text) {
            Some(inner @ (Value::Object(_) | Value::Array(_))) => {
                collect_at(&inner, calls, false, depth + 1)
            }
            _ => Err(invalid(&format!(
                "{} is not a tool call; send {{\"name\": \"<tool>\", \"arguments\": {{...}}}}",
                preview(value)
            ))),
        },
        other => Err(invalid(&format!(
            "{} is not a tool call; send {{\"name\": \"<tool>\", \"arguments\": {{...}}}}",
            preview(other)
        ))),
    }
}

/// The call `map` (which is `value`) spells directly, if it is one.
///
/// In a list of calls, a call whose name is missing or not a string is kept with an empty name,
/// so the others still run and that one is answered with an error of its own; alone, it is the
/// error.
fn single_call(
    value: &Value,
    map: &Map<String, Value>,
    in_list: bool,
) -> Result<Option<ToolCall>, ToolError> {
    let kind = map.get("type").and_then(Value::as_str);
    let id = |key: &str| map.get(key).filter(|id| id_text(id).is_some());
    let call = |id, name, args| lenient_call(id, name, args, in_list).map(Some);

    // OpenAI Responses: `call_id` pairs the output; `id` is the item's own id.
    if kind == Some("function_call") {
        let name = ("name", map.get("name"));
        return call(
            id("call_id").or_else(|| id("id")),
            name,
            map.get("arguments"),
        );
    }
    // Anthropic.
    if kind == Some("tool_use") {
        let block = At::root(anthropic::API, value);
        return anthropic::tool_use_block(&block).lenient(in_list).map(Some);
    }
    // OpenAI Chat Completions.
    if let Some(Value::Object(_)) = map.get("function") {
        let call = At::root(openai::API, value);
        return openai::chat_completions_call(&call)
            .lenient(in_list)
            .map(Some);
    }
    // Gemini.
    if let Some(Value::Object(gemini)) = map.get("functionCall") {
        let args = gemini.get("args").or_else(|| gemini.get("arguments"));
        let call_id = gemini.get("id").filter(|id| id_text(id).is_some());
        return call(
            call_id.or_else(|| id("id")),
            ("name", gemini.get("name")),
            args,
        );
    }
    // ReAct.
    if map.contains_key("action") {
        let args = map.get("tool_input").or_else(|| map.get("action_input"));
        return call(id("id"), ("action", map.get("action")), args);
    }
    // DSPy and MCP `tools/call`.
    if map.contains_key("name") && kind.is_none_or(|k| k == "function" || k == "tool_call") {
        let args = map
            .get("args")
            .or_else(|| map.get("arguments"))
            .or_else(|| map.get("input"))
            .or_else(|| map.get("parameters"));
        // An object with a name and other data but no arguments is something else (a message
        // with a `name` field, say); only a bare `{"name"}` is a call without arguments.
        if args.is_none() && map.keys().any(|k| k != "name" && k != "id") {
            return Ok(None);
        }
        return call(id("id"), ("name", map.get("name")), args);
    }
    Ok(None)
}

/// A tool call's parts, where its provider's format puts them (`openai::chat_completions_call`,
/// `anthropic::tool_use_block`): one reader of each shape, read strictly for a client's reply
/// (by the provider's `call` module) and leniently here.
pub(crate) struct CallParts<'a> {
    /// The id that pairs the call with its result.
    pub(crate) id: At<'a>,
    /// The tool's name.
    pub(crate) name: At<'a>,
    /// The arguments: text (OpenAI) or an object (Anthropic's `input`).
    pub(crate) arguments: At<'a>,
}

impl CallParts<'_> {
    /// The call as [`ToolCalls::parse`] reads anything a model sends: missing arguments are
    /// none, argument text is parsed and repaired, a numeric id is taken as text, and a name
    /// that is not one is an error (or, `in_list`, an empty name).
    fn lenient(&self, in_list: bool) -> Result<ToolCall, ToolError> {
        let (id, name, args) = (self.id.raw(), self.name.raw(), self.arguments.raw());
        lenient_call(id, ("name", name), args, in_list)
    }

    /// The call a strict read could not read, refused with its id and name as far as they can
    /// be read.
    pub(crate) fn refuse(&self, error: ModelError) -> RefusedCall {
        let id = self.id.opt_str().ok().flatten();
        let name = self.name.opt_str().ok().flatten();
        caps::malformed(id, name, error)
    }
}

/// A call read leniently from its parts, wherever its provider puts them: `name` is the key
/// that names the tool and its value. A name that is not a non-empty string is an error, or,
/// `in_list`, an empty name; the id is text or a number; the arguments are as
/// [`arguments`] makes them.
fn lenient_call(
    id: Option<&Value>,
    (key, name): (&str, Option<&Value>),
    args: Option<&Value>,
    in_list: bool,
) -> Result<ToolCall, ToolError> {
    let name = match name_of(key, name) {
        Err(_) if in_list => String::new(),
        other => other?,
    };
    Ok(ToolCall {
        id: id.and_then(id_text),
        name,
        args: arguments(args),
    })
}

fn name_of(key: &str, name: Option<&Value>) -> Result<String, ToolError> {
    match name {
        Some(Value::String(name)) if !name.trim().is_empty() => Ok(name.trim().to_owned()),
        Some(other) => Err(invalid(&format!(
            "the tool name must be a non-empty string, got {}",
            preview(other)
        ))),
        None => Err(invalid(&format!(
            "the call has no \"{key}\" naming the tool"
        ))),
    }
}

fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::String(id) => Some(id.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A block that sits among calls but is not one: text, reasoning, a message without calls.
fn is_other_block(map: &Map<String, Value>) -> bool {
    map.get("type").is_some_and(Value::is_string)
        || map.contains_key("text")
        || map.contains_key("thought")
        || map.contains_key("role")
        || map.contains_key("functionResponse")
        || map.contains_key("executableCode")
        || map.contains_key("codeExecutionResult")
        || map.contains_key("inlineData")
        || map.is_empty()
}

/// The arguments as the proxy's pipeline takes them: an object when the intent is clear, a
/// string when not (the original one, or the JSON text of an array or scalar sent instead of an
/// object), which the pipeline then reports to the model.
fn arguments(value: Option<&Value>) -> Value {
    match value {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::String(text)) => repair_arguments(text),
        Some(object @ Value::Object(_)) => object.clone(),
        Some(other) => Value::String(other.to_string()),
    }
}

fn invalid(message: &str) -> ToolError {
    ToolError::InvalidCall {
        message: message.to_owned(),
    }
}

/// A short rendering of what was sent, for error messages.
fn preview(value: &Value) -> String {
    let text = value.to_string();
    let mut shown: String = text.chars().take(80).collect();
    if shown.len() < text.len() {
        shown.push_str("...");
    }
    shown
}
