//! A call the server answered with `input_required` (MCP 2026-07-28, SEP-2322): what it asks
//! is answered through the same handlers as a 2025-11-25 server's requests, and the call is
//! sent again with the answers and the server's `requestState`, echoed unread.

use rmcp::ErrorData;
use rmcp::model::{InputRequest, InputRequests, InputResponses};
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
