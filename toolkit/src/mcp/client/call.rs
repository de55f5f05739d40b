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
use super::failure::CallFailure;
use super::handlers::Handlers;
use super::input_required::{MAX_INPUT_ROUNDS, answer_all, too_many_rounds};
use super::notices::Routes;
use super::task_call;
use crate::context::ToolContext;

/// Why a call is cancelled when its future is dropped before the answer.
const ABANDONED: &str = "the caller stopped waiting for the tool call";

/// Sends `params` as `tools/call` and waits for the answer. The server's progress for it goes
/// to `ctx`; if this future is dropped first, the server is told to cancel the call. A call
/// the server answers with `input_required` is answered through `handlers` and sent again, up
/// to [`MAX_INPUT_ROUNDS`] times.
pub(super) async fn call_tool(
    peer: &Peer<RoleClient>,
    routes: &Arc<Routes>,
    handlers: &Handlers,
    mut params: CallToolRequestParams,
    ctx: &ToolContext,
) -> Result<CallToolResult, CallFailure> {
    for _ in 0..=MAX_INPUT_ROUNDS {
        let asked = match send_once(peer, routes, params.clone(), ctx).await? {
            ServerResult::CallToolResult(result) => return Ok(result),
            // A call with nothing to say (rmcp reads `{}` as an empty result).
            ServerResult::EmptyResult(_) => return Ok(CallToolResult::default()),
            ServerResult::InputRequiredResult(asked) => asked,
            // A 2026-07-28 server ran the call as a task (the Tasks extension, declared).
            ServerResult::CreateTaskResult(created) => {
                return task_call::follow_task(peer, handlers, created, ctx).await;
            }
            _ => return Err(ServiceError::UnexpectedResponse.into()),
        };
        let answers = answer_all(
            handlers,
            asked.input_requests.unwrap_or_default(),
            ctx.cancellation(),
        )
        .await
        .map_err(|err| CallFailure::Unanswered(err.message.into_owned()))?;
        params.input_responses = (!answers.is_empty()).then_some(answers);
        params.request_state = asked.request_state;
    }
    Err(CallFailure::Unanswered(too_many_rounds(&params.name)))
}

/// One round of a call: its request sent, its answer awaited.
async fn send_once(
    peer: &Peer<RoleClient>,
    routes: &Arc<Routes>,
    params: CallToolRequestParams,
    ctx: &ToolContext,
) -> Result<ServerResult, ServiceError> {
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
    answer
}

/// Tells the server to cancel request `id`: its caller stopped waiting.
async fn cancel_request(peer: Peer<RoleClient>, id: RequestId) {
    let cancelled = CancelledNotificationParam::new(Some(id), Some(ABANDONED.into()));
    if let Err(err) = peer.notify_cancelled(cancelled).await {
        tracing::debug!(%err, "could not send notifications/cancelled");
    }
}
