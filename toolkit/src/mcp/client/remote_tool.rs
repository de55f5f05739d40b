//! One remote tool as a toolkit tool: its definition as the server describes it, an async
//! [`ToolProxy`] that calls through the shared session, and the result as the model reads it.

use std::sync::Arc;

use super::Options;
use super::listing::{SchemaRefused, json_len_within};
use super::session::Session;
use crate::mcp::convert::{forwarded, tool_definition};
use crate::schema::InlineError;
use crate::{ToolDefinition, ToolError, ToolProxy};

/// Why a remote call ends as [`ToolError::Cancelled`]: its context was cancelled (an MCP
/// client's `notifications/cancelled`, an agent stopped), and the server was told to stop.
const CANCELLED: &str = "its caller stopped it, and the MCP server was told to stop too";

/// Why a remote tool is left out.
#[derive(Debug, thiserror::Error)]
pub(super) enum LeftOut {
    #[error(transparent)]
    Schema(#[from] InlineError),
    #[error(transparent)]
    Refused(#[from] SchemaRefused),
}

/// One remote tool as an async proxy that calls through the shared session, or why it cannot
/// be used.
///
/// It takes a context: the server's progress for the call, and its log messages meanwhile, go
/// to the calling tool's context (an agent's events, or the client of an MCP server serving
/// this tool), and the call is cancelled on the server when the context is, when the call
/// times out, or when its future is dropped. Its result is content (`returning_content`):
/// images, audio and resources reach every format as what they are.
pub(super) fn remote_tool(
    session: &Arc<Session>,
    options: &Options,
    tool: rmcp::model::Tool,
) -> Result<ToolProxy, LeftOut> {
    let remote_name = tool.name.to_string();
    let definition = definition(options, &tool)?;
    let local_name = definition.name.clone();
    let session = Arc::clone(session);
    let timeout = options.timeout;
    let structured = options.structured;
    let idempotent = definition.options.annotations.idempotent == Some(true);
    let proxy = ToolProxy::from_async_fn_with_context(definition, move |arguments, ctx| {
        let session = Arc::clone(&session);
        let (name, local_name) = (remote_name.clone(), local_name.clone());
        async move {
            let call = async {
                let result = session
                    .call_tool(&name, arguments, idempotent, &ctx)
                    .await
                    .map_err(|message| ToolError::Failed {
                        tool: local_name.clone(),
                        message,
                    })?;
                // The result itself rides beside the value the model reads: an MCP server
                // serving this tool answers with it.
                forwarded(&result, structured).map_err(|message| ToolError::Failed {
                    tool: local_name.clone(),
                    message,
                })
            };
            // Either way the call's future is dropped, which tells the server to cancel it.
            tokio::select! {
                outcome = toolkit_runtime::within(timeout, call) => outcome.unwrap_or_else(|| {
                    Err(ToolError::TimedOut { tool: local_name.clone(), timeout })
                }),
                () = ctx.cancelled() => Err(ToolError::Cancelled {
                    tool: local_name.clone(),
                    reason: CANCELLED.to_owned(),
                }),
            }
        }
    });
    // Asked for structured content, a caller gets the server's JSON as it is.
    let proxy = proxy.forwarding();
    Ok(if structured {
        proxy
    } else {
        proxy.returning_content()
    })
}

/// The server's description of a tool, renamed with the prefix, `$ref`s inlined.
fn definition(options: &Options, tool: &rmcp::model::Tool) -> Result<ToolDefinition, LeftOut> {
    let limit = options.listing.max_schema_bytes;
    // Inlining can multiply a schema's size: measure it first, as the server sent it. Over
    // stdio and SSE the page was screened in its text already; rmcp's Streamable HTTP client
    // hands over a body it parsed itself, so this is the check there.
    let schemas = [
        ("input", Some(&tool.input_schema)),
        ("output", tool.output_schema.as_ref()),
    ];
    for (which, schema) in schemas {
        if schema.is_some_and(|schema| json_len_within(schema, limit).is_none()) {
            return Err(SchemaRefused::TooLarge { which, limit }.into());
        }
    }
    let mut definition = tool_definition(tool, format!("{}{}", options.prefix, tool.name))?;
    definition.options.limits.max_output_bytes = Some(options.max_output_bytes);
    // The per-call timeout is kept around the request (above), where its error can say that
    // the server did not answer; a pipeline deadline too would race it with a vaguer message.
    Ok(definition)
}
