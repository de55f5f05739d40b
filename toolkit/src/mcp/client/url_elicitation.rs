//! URL-mode elicitation (MCP 2025-11-25): the server asks the user to open a URL (to sign in
//! somewhere, say) and the client says whether they agreed. Answered only when the builder was
//! given a handler ([`McpClientBuilder::on_url_elicit`](super::McpClientBuilder::on_url_elicit));
//! without one, the client does not declare `elicitation.url`.

use std::future::Future;

use crate::context::Cancellation as CancellationToken;
use rmcp::ErrorData;
use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};

use crate::context::ElicitationAnswer;
use toolkit_runtime::BoxFuture;

/// A server's request that the user open a URL (`elicitation/create` in URL mode).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UrlElicitation {
    /// Why the user should open it.
    pub message: String,
    /// The URL to open. Show it to the user, with its host, before opening it: it comes from
    /// the server.
    pub url: String,
    /// The server's id for this request (its `notifications/elicitation/complete` names it).
    pub elicitation_id: String,
}

/// Answers a server's URL elicitation: `Accept` once the user agreed to open the URL (its
/// content is ignored: the user's answer goes to the URL, not to the server), `Decline` or
/// `Cancel` otherwise. Any `Fn(UrlElicitation) -> impl Future<Output = ElicitationAnswer>` is
/// one.
///
/// ```
/// use toolkit::context::ElicitationAnswer;
/// use toolkit::mcp::{McpClient, McpTransport, UrlElicitation};
///
/// let builder = McpClient::builder(McpTransport::stdio("server")).on_url_elicit(
///     |request: UrlElicitation| async move {
///         match request.url.starts_with("https://") {
///             true => ElicitationAnswer::Accept(serde_json::json!({})),
///             false => ElicitationAnswer::Decline,
///         }
///     },
/// );
/// ```
pub trait UrlElicitationHandler: Send + Sync + 'static {
    /// The user's answer.
    fn open(&self, request: UrlElicitation) -> BoxFuture<'_, ElicitationAnswer>;
}

impl<F, Fut> UrlElicitationHandler for F
where
    F: Fn(UrlElicitation) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ElicitationAnswer> + Send + 'static,
{
    fn open(&self, request: UrlElicitation) -> BoxFuture<'_, ElicitationAnswer> {
        Box::pin(self(request))
    }
}

/// The request, when it is a URL elicitation.
pub(super) fn url_request(params: &ElicitRequestParams) -> Option<UrlElicitation> {
    match params {
        ElicitRequestParams::UrlElicitationParams {
            message,
            url,
            elicitation_id,
            ..
        } => Some(UrlElicitation {
            message: message.clone(),
            url: url.clone(),
            elicitation_id: elicitation_id.clone(),
        }),
        _ => None,
    }
}

/// Asks `handler`, unless the server cancels the request first; `None` when the client has
/// no handler (it did not declare URL elicitation).
pub(super) async fn answer(
    handler: Option<&dyn UrlElicitationHandler>,
    request: UrlElicitation,
    cancelled: &CancellationToken,
) -> Result<ElicitResult, ErrorData> {
    let Some(handler) = handler else {
        return Err(ErrorData::invalid_params(
            "this client does not answer URL elicitation (it did not declare it)",
            None,
        ));
    };
    let answer = tokio::select! {
        answer = handler.open(request) => answer,
        () = cancelled.cancelled() => ElicitationAnswer::Cancel,
    };
    let action = match answer {
        ElicitationAnswer::Accept(_) => ElicitationAction::Accept,
        ElicitationAnswer::Decline => ElicitationAction::Decline,
        _ => ElicitationAction::Cancel,
    };
    Ok(ElicitResult::new(action))
}
