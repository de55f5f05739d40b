//! Every conversion between rmcp's types (or the MCP JSON they read) and toolkit's, one file per
//! kind, for the client and
//! the server alike: the rest of `mcp` moves values, and reads and builds rmcp's types only
//! through these functions.

mod catalog;
mod elicitation;
mod sampling;
mod tools;

pub(super) use catalog::{
    prompt_definition, prompt_json, resource_definition, resource_json, template_definition,
    template_json,
};
pub(super) use elicitation::{elicit_result, elicitation_answer, elicitation_request};
pub(super) use sampling::{create_message_result, rmcp_request, sampling_reply, sampling_request};
pub(super) use tools::{call_result, forwarded, mcp_tool, tool_definition};
