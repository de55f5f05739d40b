//! A request the server answered with `input_required` (MCP 2026-07-28, SEP-2322): a tool
//! call (`call`), a prompt or a resource read (here). What it asks is answered through the
//! same handlers as a 2025-11-25 server's requests, and the request is sent again with the
//! answers and the server's `requestState`, echoed unread.

use std::future::Future;

use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, InputRequest, InputRequests,
    InputRequiredResult, InputResponses, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult,
};
use rmcp::service::ServiceError;
use rmcp::{ErrorData, Peer, RoleClient};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::handlers::Handlers;
use super::listener::{elicit, sample};

/// How many times one call is sent again with answers before it fails: a server that keeps
/// asking (a loop, or a hostile one) cannot hold a call, and the user, forever.
pub(super) const MAX_INPUT_ROUNDS: usize = 8;

/// The error a call gets when the server is still asking after [`MAX_INPUT_ROUNDS`].
pub(super) fn too_many_rounds(tool: &str) -> String {
    format!(
        "the MCP server still asked for input after {MAX_INPUT_ROUNDS} rounds of the call to \
         {tool}; the call was given up"
    )
}

/// Answers every request of one `input_required` result, keyed as the server keyed them.
/// Each goes where a 2025-11-25 server's request of the same kind goes: its handler, or the
/// roots given (or fails as undeclared).
pub(super) async fn answer_all(
    handlers: &Handlers,
    requests: InputRequests,
    ct: &CancellationToken,
) -> Result<InputResponses, ErrorData> {
    let answers = requests.into_iter().map(|(key, request)| async move {
        let answer = answer_one(handlers, request, ct).await?;
        Ok::<_, ErrorData>((key, answer))
    });
    let answers = futures::future::try_join_all(answers).await?;
    Ok(answers.into_iter().collect())
}

async fn answer_one(
    handlers: &Handlers,
    request: InputRequest,
    ct: &CancellationToken,
) -> Result<Value, ErrorData> {
    let answer = match request {
        InputRequest::CreateMessage(request) => {
            serde_json::to_value(sample(handlers, &request.params, ct).await?)
        }
        InputRequest::Elicitation(request) => {
            serde_json::to_value(elicit(handlers, request.params, ct).await?)
        }
        InputRequest::ListRoots(_) => return handlers.list_roots(),
        // rmcp's enum is non-exhaustive: a kind of request it adds later is refused here
        // until it is answered on purpose.
        other => {
            return Err(ErrorData::invalid_params(
                format!(
                    "this client does not answer the input request {}",
                    serde_json::to_value(&other)
                        .ok()
                        .and_then(|value| value.get("method").cloned())
                        .unwrap_or(Value::Null)
                ),
                None,
            ));
        }
    };
    answer.map_err(|err| ErrorData::internal_error(err.to_string(), None))
}

/// `prompts/get` through `peer`, each `input_required` answered through `handlers` and the
/// request sent again, up to [`MAX_INPUT_ROUNDS`] times.
pub(super) async fn get_prompt(
    peer: &Peer<RoleClient>,
    handlers: &Handlers,
    params: GetPromptRequestParams,
) -> Result<GetPromptResult, ServiceError> {
    let send = |params| async move {
        match peer.get_prompt_once(params).await? {
            GetPromptResponse::Complete(result) => Ok(Ok(result)),
            GetPromptResponse::InputRequired(asked) => Ok(Err(asked)),
            _ => Err(ServiceError::UnexpectedResponse),
        }
    };
    answering(handlers, params, send, |params, responses, state| {
        params.input_responses = responses;
        params.request_state = state;
    })
    .await
}

/// `resources/read` through `peer`, as [`get_prompt`].
pub(super) async fn read_resource(
    peer: &Peer<RoleClient>,
    handlers: &Handlers,
    params: ReadResourceRequestParams,
) -> Result<ReadResourceResult, ServiceError> {
    let send = |params| async move {
        match peer.read_resource_once(params).await? {
            ReadResourceResponse::Complete(result) => Ok(Ok(result)),
            ReadResourceResponse::InputRequired(asked) => Ok(Err(asked)),
            _ => Err(ServiceError::UnexpectedResponse),
        }
    };
    answering(handlers, params, send, |params, responses, state| {
        params.input_responses = responses;
        params.request_state = state;
    })
    .await
}

/// Sends `params` until the server answers without asking: each `input_required` answered
/// through `handlers`, `fill` putting the answers and the echoed state in the next request.
async fn answering<P, R, Fut>(
    handlers: &Handlers,
    mut params: P,
    send: impl Fn(P) -> Fut,
    fill: impl Fn(&mut P, Option<InputResponses>, Option<String>),
) -> Result<R, ServiceError>
where
    P: Clone,
    Fut: Future<Output = Result<Result<R, InputRequiredResult>, ServiceError>>,
{
    for _ in 0..=MAX_INPUT_ROUNDS {
        let asked = match send(params.clone()).await? {
            Ok(result) => return Ok(result),
            Err(asked) => asked,
        };
        let requests = asked.input_requests.unwrap_or_default();
        let answers = answer_all(handlers, requests, &CancellationToken::new())
            .await
            .map_err(ServiceError::McpError)?;
        fill(
            &mut params,
            (!answers.is_empty()).then_some(answers),
            asked.request_state,
        );
    }
    let max_rounds = MAX_INPUT_ROUNDS;
    Err(ServiceError::InputRequiredRoundsExceeded { max_rounds })
}
