//! Tools that ask, statelessly: MCP 2026-07-28's multi-round `tools/call` (SEP-2322).
//!
//! A client of 2026-07-28 keeps no session, so a tool's `ctx.elicit` or `ctx.sample` cannot be
//! a request the server sends and waits on. The question ends the run of the tool's body
//! instead: the call answers `input_required` with the questions (`inputRequests`) and a
//! `requestState` sealed with rmcp's [`RequestStateCodec`], and the client calls again with its
//! answers (`inputResponses`) and the state, on this replica or another. The body then runs
//! again from the top, its i-th question answered by the i-th answer gathered so far (the
//! earlier rounds' from the state, this round's from the request), until it asks something not
//! yet answered or returns. Re-running is what rmcp's MRTR example and FastMCP do: nothing of
//! a call lives on the server between rounds, so any replica can take the next one.
//!
//! The state is bound to the caller and to the call (the tool's name and a digest of its
//! arguments), expires, is bounded in size, and is taken once per process
//! ([`request_state`](super::request_state)).

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CallToolResponse, ClientCapabilities, ElicitationCapability, InputRequest, InputRequests,
    InputRequiredResult, InputResponses, RootsCapabilities, SamplingCapability,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;
use tokio::sync::Notify;

use super::request_state::{Answered, Binding, Sealed, Sealer, random_bytes, refused};
use super::without_handshake;
use crate::context::ContextError;
use crate::mcp::convert::call_result;
use crate::{ToolCall, ToolCallResult, ToolProxy};

/// What a retried `tools/call` brings back: the answers and the state.
#[derive(Default)]
pub(super) struct Retry {
    responses: Option<InputResponses>,
    state: Option<String>,
}

impl Retry {
    /// A `tools/call`'s `inputResponses` and `requestState`.
    pub(super) fn new(responses: Option<InputResponses>, state: Option<String>) -> Self {
        Retry { responses, state }
    }

    /// The rounds of this call when its client speaks 2026-07-28 (`None` for older clients,
    /// asked over their session), or why the state it sent back is refused.
    pub(super) fn rounds(
        self,
        sealer: &Arc<Sealer>,
        context: &RequestContext<RoleServer>,
        call: &ToolCall,
    ) -> Result<Option<Arc<Rounds>>, ErrorData> {
        if !without_handshake(context) {
            return Ok(None);
        }
        let binding = Binding::of(context, call);
        let (round, recorded) = match &self.state {
            Some(state) => {
                let sealed = sealer.open(state, &binding)?;
                (sealed.round, sealed.answers)
            }
            None => (0, Vec::new()),
        };
        Ok(Some(Arc::new(Rounds {
            sealer: Arc::clone(sealer),
            binding,
            capabilities: context.client_capabilities(),
            round,
            recorded,
            responses: self.responses.unwrap_or_default(),
            asking: Mutex::default(),
            asked: Notify::new(),
        })))
    }
}

/// One run of a multi-round call's body: the answers it may use, the questions it asked.
pub(super) struct Rounds {
    sealer: Arc<Sealer>,
    binding: Binding,
    /// What the client declared in this request's `_meta`.
    capabilities: Option<ClientCapabilities>,
    round: u32,
    /// The earlier rounds' answers, from the state, in the order the body asked.
    recorded: Vec<Answered>,
    /// This round's answers, by key.
    responses: InputResponses,
    asking: Mutex<Asking>,
    /// Woken when the body asked something not answered: its run ends.
    asked: Notify,
}

#[derive(Default)]
struct Asking {
    /// The place of the body's next question.
    next: usize,
    /// This round's answers the body has taken, in order.
    taken: Vec<Answered>,
    /// The questions not answered yet.
    pending: InputRequests,
    /// An answer that does not answer its question: the call is refused.
    refused: Option<String>,
    /// The capabilities the body asked for that the request did not declare.
    missing: Option<ClientCapabilities>,
}

impl Rounds {
    /// The run this is: how many rounds of answers came before it.
    pub(super) fn round(&self) -> u32 {
        self.round
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Asking> {
        self.asking.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether this request's `_meta` declares `what` ("sampling", "roots" or "elicitation").
    /// One it does not is noted: the body is told it is unavailable and may do without, but
    /// if it fails, its call needed what the client did not declare ([`Rounds::answered`]).
    pub(super) fn declares(&self, what: &str) -> bool {
        if declares(self.capabilities.as_ref(), what) {
            return true;
        }
        let mut asking = self.lock();
        let missing = asking
            .missing
            .get_or_insert_with(ClientCapabilities::default);
        match what {
            "sampling" => missing.sampling = Some(SamplingCapability::default()),
            "roots" => missing.roots = Some(RootsCapabilities::default()),
            _ => missing.elicitation = Some(ElicitationCapability::default()),
        }
        false
    }

    /// How a call whose body returned `result` ends. MCP 2026-07-28: "if processing a request
    /// requires a capability the client did not include in its `clientCapabilities`, the
    /// server MUST return" -32021 with the `requiredCapabilities`; a body that failed after
    /// asking for such a capability required it. One that did without it answers as it
    /// returned.
    pub(super) fn answered(&self, result: ToolCallResult) -> Ended {
        match self.required(&result.name, result.is_error) {
            Some(refused) => Ended::Refused(refused),
            None => Ended::Answered(result),
        }
    }

    /// The -32021 a run of `what` (a tool, a prompt) is answered with when it `failed` after
    /// asking for a capability the request did not declare ([`Rounds::answered`]).
    pub(super) fn required(&self, what: &str, failed: bool) -> Option<ErrorData> {
        let missing = self.lock().missing.take();
        let required = missing.filter(|_| failed)?;
        let mut error = ErrorData::missing_required_client_capability(required);
        error.message = format!(
            "`{what}` needs a capability this request's `_meta` did not declare: {}",
            error.message
        )
        .into();
        Some(error)
    }

    /// The answer to the body's next question (`key`, or `ask-N` by its place), once `check`
    /// has read it; a question not answered yet never resolves, and the run ends.
    pub(super) async fn ask(
        &self,
        key: Option<String>,
        question: InputRequest,
        check: impl FnOnce(&Value) -> Result<(), String>,
    ) -> Result<Value, ContextError> {
        let answered = {
            let mut asking = self.lock();
            let place = asking.next;
            asking.next += 1;
            let key = key.unwrap_or_else(|| format!("ask-{place}"));
            if let Some(earlier) = self.recorded.get(place) {
                return match earlier.key == key {
                    true => Ok(earlier.answer.clone()),
                    false => Err(ContextError::Failed(format!(
                        "the tool asked `{key}` where its run before asked `{}`: a tool that \
                         asks statelessly must ask the same questions in the same order on \
                         every run",
                        earlier.key
                    ))),
                };
            }
            match self.responses.get(&key) {
                Some(answer) => match check(answer) {
                    Ok(()) => {
                        let answer = answer.clone();
                        asking.taken.push(Answered {
                            key,
                            answer: answer.clone(),
                        });
                        Some(answer)
                    }
                    Err(why) => {
                        let why =
                            format!("inputResponses.{key} does not answer its request: {why}");
                        asking.refused.get_or_insert(why);
                        None
                    }
                },
                None => {
                    asking.pending.insert(key, question);
                    None
                }
            }
        };
        match answered {
            Some(answer) => Ok(answer),
            None => {
                self.asked.notify_one();
                std::future::pending().await
            }
        }
    }

    /// Resolves once the body asked something not answered.
    pub(super) async fn asked(&self) {
        self.asked.notified().await;
    }

    /// The call's answer once its body stopped to ask: the questions and the state for the
    /// next round, or the error an answer that did not fit its question is refused with.
    pub(super) fn ended(&self) -> Result<InputRequiredResult, ErrorData> {
        let asking = self.lock();
        if let Some(why) = &asking.refused {
            return Err(refused(why.clone()));
        }
        let answers = (self.recorded.iter())
            .chain(&asking.taken)
            .cloned()
            .collect();
        let nonce =
            random_bytes::<16>().map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
        let sealed = Sealed {
            caller: self.binding.caller.clone(),
            call: self.binding.call.clone(),
            round: self.round + 1,
            nonce: nonce.iter().map(|byte| format!("{byte:02x}")).collect(),
            answers,
        };
        let state = self.sealer.seal(&sealed)?;
        Ok(InputRequiredResult::new(
            Some(asking.pending.clone()),
            Some(state),
        ))
    }
}

/// Whether `capabilities` declare `what`: "sampling", "roots" or "elicitation".
pub(super) fn declares(capabilities: Option<&ClientCapabilities>, what: &str) -> bool {
    match what {
        "sampling" => capabilities.is_some_and(|c| c.sampling.is_some()),
        "roots" => capabilities.is_some_and(|c| c.roots.is_some()),
        _ => capabilities.is_some_and(|c| c.elicitation.is_some()),
    }
}

/// How a served `tools/call` ended.
pub(super) enum Ended {
    /// The tool answered.
    Answered(ToolCallResult),
    /// The tool asked the client something (`None` for older clients: see [`Retry::rounds`]).
    Asked(Arc<Rounds>),
    /// The call was refused before the tool ran.
    Refused(ErrorData),
}

impl Ended {
    /// The answer in rmcp's types.
    pub(super) fn call_response(self, tool: &ToolProxy) -> Result<CallToolResponse, ErrorData> {
        match self {
            Ended::Answered(result) => Ok(CallToolResponse::from(call_result(tool, result))),
            Ended::Asked(rounds) => rounds.ended().map(CallToolResponse::from),
            Ended::Refused(error) => Err(error),
        }
    }
}
