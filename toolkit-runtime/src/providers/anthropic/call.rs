//! An Anthropic `tool_use` block, `{"type": "tool_use", "id", "name", "input"}`: where its parts
//! are, and its strict reading for a client's reply, whole or streamed.
//! [`ToolCalls::parse`](crate::ToolCalls::parse) reads the same parts leniently
//! ([`CallParts::lenient`]).

use crate::ToolCall;
use crate::chat::ModelError;
use crate::chat::decode::At;
use crate::providers::parse::CallParts;

/// The parts of the block at `block` (an element of `content`, or a stream's `content_block`).
pub(crate) fn tool_use_block<'a>(block: &At<'a>) -> CallParts<'a> {
    CallParts {
        id: block.get("id"),
        name: block.get("name"),
        arguments: block.get("input"),
    }
}

/// The block as a client reads a whole reply: the input must be present and the name and id
/// strings, and an error names the JSON path.
pub(crate) fn read_tool_use(block: &CallParts<'_>) -> Result<ToolCall, ModelError> {
    let input = block.arguments.value()?.clone();
    Ok(ToolCall::new(block.name.str()?, input).with_id(block.id.str()?))
}

/// The id and name that start a streamed block, both strings; its input comes in deltas.
pub(crate) fn tool_use_start<'a>(block: &CallParts<'a>) -> Result<(&'a str, &'a str), ModelError> {
    Ok((block.id.str()?, block.name.str()?))
}
