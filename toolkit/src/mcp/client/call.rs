//! One `tools/call` request: sent with a progress token whose notifications reach the calling
//! tool's context, and cancelled on the server (`notifications/cancelled`) when the caller
//! stops waiting, whether the call was dropped, timed out or its context was cancelled.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, RequestId, ServerResult,
};
use rmcp::service::{PeerRequestOptions, ServiceError};
use rmcp::{Peer, RoleClient};

use super::abandon::Abandon;
use super::notices::Routes;
use crate::context::ToolContext;

/// Why a call is cancelled when its future is dropped before the answer.
const ABANDONED: &str = "the caller stopped waiting for the tool call";

/// Sends `params` as `tools/call` and waits for the answer. The server's progress for it goes
/// to `ctx`; if this future is dropped first, the server is told to cancel the call.
pub(super) async fn call_tool(
    peer: &Peer<RoleClient>,
    routes: &Arc<Routes>,
    params: CallToolRequestParams,
    ctx: &ToolContext,
) -> Result<CallToolResult, ServiceError> {
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    // Open before sending: the server may speak of the call before `send` returns.
    let route = routes.open(ctx.clone());
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await?;
    route.claim(handle.progress_token.clone());
    let abandon = Abandon::notify(cancel_request(peer.clone(), handle.id.clone()));
    let answer = handle.await_response().await;
    abandon.finished();
    match answer? {
        ServerResult::CallToolResult(result) => Ok(result),
        // A call with nothing to say (rmcp reads `{}` as an empty result).
        ServerResult::EmptyResult(_) => Ok(CallToolResult::default()),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

/// Tells the server to cancel request `id`: its caller stopped waiting.
async fn cancel_request(peer: Peer<RoleClient>, id: RequestId) {
    let cancelled = CancelledNotificationParam::new(Some(id), Some(ABANDONED.into()));
    if let Err(err) = peer.notify_cancelled(cancelled).await {
        tracing::debug!(%err, "could not send notifications/cancelled");
    }
}
