//! An Anthropic `tool_use` block, `{"type": "tool_use", "id", "name", "input"}`: the one reader
//! of its shape, strict for a client's reply (whole or streamed) and lenient for
//! [`ToolCalls::parse`](crate::ToolCalls::parse).

use serde_json::Value;

use super::API;
use crate::chat::caps;
use crate::chat::decode::At;
use crate::chat::{ModelError, RefusedCall};
use crate::providers::parse;
use crate::{ToolCall, ToolError};

/// A `tool_use` block's parts, found where the Messages API puts them.
pub(crate) struct ToolUseBlock<'a> {
    id: At<'a>,
    name: At<'a>,
    input: At<'a>,
}

impl<'a> ToolUseBlock<'a> {
    /// The block at `block` (an element of `content`, or a stream's `content_block`).
    pub(crate) fn at(block: &At<'a>) -> Self {
        ToolUseBlock {
            id: block.get("id"),
            name: block.get("name"),
            input: block.get("input"),
        }
    }

    /// The block `value` spells, for the lenient reader.
    pub(crate) fn of(value: &'a Value) -> Self {
        Self::at(&At::root(API, value))
    }

    /// The block as a client reads a whole reply: the input must be present and the name and
    /// id strings, and an error names the JSON path.
    pub(crate) fn read(&self) -> Result<ToolCall, ModelError> {
        let input = self.input.value()?.clone();
        Ok(ToolCall::new(self.name.str()?, input).with_id(self.id.str()?))
    }

    /// The id and name that start a streamed block, both strings; its input comes in deltas.
    pub(crate) fn id_and_name(&self) -> Result<(&'a str, &'a str), ModelError> {
        Ok((self.id.str()?, self.name.str()?))
    }

    /// The block a strict read could not read, refused with its id and name as far as they can
    /// be read.
    pub(crate) fn refuse(&self, error: ModelError) -> RefusedCall {
        let id = self.id.opt_str().ok().flatten();
        let name = self.name.opt_str().ok().flatten();
        caps::malformed(id, name, error)
    }

    /// The block as [`ToolCalls::parse`](crate::ToolCalls::parse) reads anything a model sends:
    /// missing input is none, input text is parsed and repaired, a numeric id is taken as text,
    /// and a name that is not one is an error (or, `in_list`, an empty name).
    pub(crate) fn lenient(&self, in_list: bool) -> Result<ToolCall, ToolError> {
        parse::lenient_call(
            self.id.raw(),
            ("name", self.name.raw()),
            self.input.raw(),
            in_list,
        )
    }
}
