//! Every conversion between rmcp's types and toolkit's, one file per kind, for the client and
//! the server alike: the rest of `mcp` moves values, and reads and builds rmcp's types only
//! through these functions.

mod elicitation;
mod sampling;
mod tools;

pub(super) use elicitation::{elicit_result, elicitation_answer, elicitation_request};
pub(super) use sampling::{create_message_result, rmcp_request, sampling_reply, sampling_request};
pub(super) use tools::{call_result, forwarded, mcp_tool, tool_definition};
