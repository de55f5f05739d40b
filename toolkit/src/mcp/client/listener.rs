//! [`Listener`], the client side of a session: the rmcp `ClientHandler` each connection is
//! opened with. Kept apart from the session (`session`), which owns connections and the
//! requests sent through them, because this is what the server asks of us.

use std::sync::Arc;

use rmcp::ErrorData;
// Sampling is deprecated in rmcp (SEP-2577), a revision later than the servers speak; see
// `handlers`.
#[allow(deprecated)]
use rmcp::model::{
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, Implementation, ListRootsResult,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, RoleClient};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::handlers::{Handlers, not_declared};
use super::url_elicitation;
use super::version;
use crate::mcp::convert::{
    create_message_result, elicit_result, elicitation_request, sampling_request,
};

/// The client side of the session: says who we are and what we can answer, hears
/// `tools/list_changed`, and answers the server's sampling and elicitation requests. (Progress
/// and log notifications are read off the transport: `notices`.)
#[derive(Clone)]
pub(super) struct Listener {
    pub(super) changed: Arc<watch::Sender<()>>,
    pub(super) handlers: Handlers,
}

// Sampling's types are deprecated in rmcp: see `handlers`.
#[allow(deprecated)]
impl ClientHandler for Listener {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.send_replace(());
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        sample(&self.handlers, &params, &context.ct).await
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        elicit(&self.handlers, params, &context.ct).await
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        serde_json::from_value(self.handlers.list_roots()?)
            .map_err(|err| ErrorData::internal_error(err.to_string(), None))
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            self.handlers.capabilities(),
            Implementation::new("toolkit", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(version::LEGACY)
    }
}

/// Answers the server's `sampling/createMessage`, asked as a request of its own (2025-11-25)
/// or inside an `input_required` result (2026-07-28): through the sampling handler, or an
/// error when there is none.
#[allow(deprecated)]
pub(super) async fn sample(
    handlers: &Handlers,
    params: &CreateMessageRequestParams,
    ct: &CancellationToken,
) -> Result<CreateMessageResult, ErrorData> {
    let Some(handler) = &handlers.sampling else {
        return Err(not_declared("sampling"));
    };
    let request = sampling_request(params);
    let reply = tokio::select! {
        reply = handler.sample(request) => reply,
        () = ct.cancelled() => Err("the server cancelled the request".to_owned()),
    };
    reply
        .and_then(create_message_result)
        .map_err(|message| ErrorData::internal_error(message, None))
}

/// Answers the server's `elicitation/create`, asked as a request of its own or inside an
/// `input_required` result: a URL through the URL handler, a form through the elicitation
/// handler, or an error when there is none.
pub(super) async fn elicit(
    handlers: &Handlers,
    params: ElicitRequestParams,
    ct: &CancellationToken,
) -> Result<ElicitResult, ErrorData> {
    if let Some(request) = url_elicitation::url_request(&params) {
        let handler = handlers.url_elicitation.as_deref();
        return url_elicitation::answer(handler, request, ct).await;
    }
    let Some(handler) = &handlers.elicitation else {
        return Err(not_declared("elicitation"));
    };
    let Some(request) = elicitation_request(params) else {
        return Err(ErrorData::invalid_params(
            "this client answers form elicitation only",
            None,
        ));
    };
    let schema = request.requested_schema.clone();
    let answer = tokio::select! {
        answer = handler.elicit(request) => answer,
        () = ct.cancelled() => crate::context::ElicitationAnswer::Cancel,
    };
    Ok(elicit_result(answer, &schema))
}
