//! A remote tool's MCP result, carried beside the toolbox's JSON value to the MCP server that
//! serves that tool, so a proxy answers with the remote result itself.
//!
//! A toolkit call's outcome is one JSON value, the shape a model reads: the remote result's
//! content blocks, `structuredContent` and `_meta` do not survive it. A server serving a remote
//! tool (`McpServer` over an `McpClient`'s tools) rendered that value as one text block and
//! dropped `structuredContent` while keeping the tool's `outputSchema`, which clients refuse
//! (the TypeScript SDK answers -32600). So a call made by the server runs in a scope where the
//! remote tool leaves its result; the server answers with it when the toolbox's outcome is
//! exactly the one the remote tool returned (no hook changed it, no bound cut it, no check
//! refused the call).

use std::cell::RefCell;
use std::future::Future;

use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::{ToolCallResult, ToolError};

tokio::task_local! {
    static SLOT: RefCell<Option<Passed>>;
}

/// What a remote tool returned: its MCP result, and the outcome it handed the toolbox.
struct Passed {
    /// The remote tool's name as served (its prefix included).
    tool: String,
    result: CallToolResult,
    outcome: Result<Value, ToolError>,
}

/// Leaves a remote tool's result for the server whose call this is, if any.
pub(super) fn leave(tool: &str, result: &CallToolResult, outcome: &Result<Value, ToolError>) {
    let _ = SLOT.try_with(|slot| {
        *slot.borrow_mut() = Some(Passed {
            tool: tool.to_owned(),
            result: result.clone(),
            outcome: outcome.clone(),
        });
    });
}

/// Runs `call` (the toolbox's call of `tool`) in a scope a remote tool can leave its result
/// in; returns the toolbox's result, and the remote result when it is what the toolbox
/// returned.
pub(super) async fn scope(
    tool: &str,
    call: impl Future<Output = ToolCallResult>,
) -> (ToolCallResult, Option<CallToolResult>) {
    let (result, passed) = SLOT
        .scope(RefCell::new(None), async {
            let result = call.await;
            (result, SLOT.with(|slot| slot.borrow_mut().take()))
        })
        .await;
    let passed = passed
        .filter(|passed| passed.tool == tool && unchanged(&passed.outcome, &result))
        .map(|passed| passed.result);
    (result, passed)
}

/// Whether the toolbox's result is the remote tool's outcome as it returned it.
fn unchanged(outcome: &Result<Value, ToolError>, result: &ToolCallResult) -> bool {
    match outcome {
        Ok(value) => !result.is_error && result.value == *value,
        Err(error) => result.is_error && result.error() == Some(error),
    }
}
