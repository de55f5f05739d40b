//! A Chat Completions tool call, `{"id", "type": "function", "function": {"name",
//! "arguments"}}`: the one reader of its shape, strict for a client's reply and lenient for
//! [`ToolCalls::parse`](crate::ToolCalls::parse).

use serde_json::Value;

use super::API;
use crate::chat::arguments::call_arguments;
use crate::chat::caps;
use crate::chat::decode::At;
use crate::chat::{ModelError, RefusedCall};
use crate::providers::parse;
use crate::{ToolCall, ToolError};

/// A tool call's parts, found where Chat Completions puts them.
pub(crate) struct ChatCompletionsCall<'a> {
    id: At<'a>,
    name: At<'a>,
    arguments: At<'a>,
}

impl<'a> ChatCompletionsCall<'a> {
    /// The call at `call` (an element of a message's `tool_calls`).
    pub(crate) fn at(call: &At<'a>) -> Self {
        let function = call.get("function");
        ChatCompletionsCall {
            id: call.get("id"),
            name: function.get("name"),
            arguments: function.get("arguments"),
        }
    }

    /// The call `value` spells, for the lenient reader.
    pub(crate) fn of(value: &'a Value) -> Self {
        Self::at(&At::root(API, value))
    }

    /// The call as a client reads a reply: the arguments must be present, the name a string and
    /// the id a string or absent, and an error names the JSON path. Argument text stays text
    /// when it is one well-formed object (the tool's typed fast path reads it), and is repaired
    /// otherwise.
    pub(crate) fn read(&self) -> Result<ToolCall, ModelError> {
        let args = match self.arguments.value()? {
            Value::String(text) => call_arguments(text),
            other => other.clone(),
        };
        let id = self.id.opt_str()?;
        let mut read = ToolCall::new(self.name.str()?, args);
        read.id = id.map(str::to_owned);
        Ok(read)
    }

    /// The call [`read`](Self::read) could not read, refused with its id and name as far as
    /// they can be read.
    pub(crate) fn refuse(&self, error: ModelError) -> RefusedCall {
        let id = self.id.opt_str().ok().flatten();
        let name = self.name.opt_str().ok().flatten();
        caps::malformed(id, name, error)
    }

    /// The call as [`ToolCalls::parse`](crate::ToolCalls::parse) reads anything a model sends:
    /// missing arguments are none, argument text is parsed and repaired, a numeric id is
    /// taken as text, and a name that is not one is an error (or, `in_list`, an empty name).
    pub(crate) fn lenient(&self, in_list: bool) -> Result<ToolCall, ToolError> {
        parse::lenient_call(
            self.id.raw(),
            ("name", self.name.raw()),
            self.arguments.raw(),
            in_list,
        )
    }
}
