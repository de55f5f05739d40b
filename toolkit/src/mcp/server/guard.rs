//! What every HTTP request passes before rmcp sees it: the bearer token and the tool's scopes
//! ([`Bearer`]), the body limit, a body
//! that is JSON-RPC at all, and the session cap; and rmcp's answers that clients misread,
//! corrected on the way out (`rmcp_fixes`), where the body and the status are in hand.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use rmcp::model::ErrorCode;
use serde_json::Value;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::bearer::Bearer;
use super::connections::{Arrival, BODY_GRACE};
use super::request_ids::{self, HeldId, RequestIds};
use super::rmcp_fixes;
use super::rmcp_fixes::envelope::{Kind, Screened, jsonrpc_error};
use super::sessions::{Place, SESSION_ID, SessionCap};
use crate::context::Caller;

pub(super) struct Guard {
    /// The token check, when the server asks for one: the caller it verifies is what the
    /// request's tools read as `ctx.caller()`.
    pub(super) bearer: Option<Arc<Bearer>>,
    pub(super) max_body_bytes: usize,
    /// How long the body may take to arrive once the headers have.
    pub(super) read_timeout: Duration,
    /// `None` when serving without sessions.
    pub(super) sessions: Option<SessionCap>,
    /// One permit per `tools/call` running, held until its tool returns ([`CallPlace`]).
    pub(super) calls: Arc<Semaphore>,
    pub(super) max_calls: usize,
    /// The ids each session has in flight, so that a request reusing one is refused.
    pub(super) request_ids: Arc<RequestIds>,
}

/// Bearer auth, the body limit and JSON-RPC parse errors, tool scopes, the session cap; then
/// rmcp.
pub(super) async fn guard_request(
    State(guard): State<Arc<Guard>>,
    mut request: Request,
    next: Next,
) -> Response {
    let caller = match &guard.bearer {
        Some(bearer) => match bearer.authenticate(request.headers_mut()).await {
            Ok(caller) => Some(caller),
            Err(refused) => return refused,
        },
        None => None,
    };
    let (parts, bytes) = match guard.read_body(request).await {
        Ok(read) => read,
        Err(too_large) => return too_large,
    };
    let screening = if parts.method == Method::POST && is_json(&parts.headers) {
        let screened = guard.screen(&parts, &bytes, caller.as_ref());
        match screened.await {
            Ok(screening) => screening,
            Err(refused) => return refused,
        }
    } else {
        Screening::default()
    };
    let Screening { id, call, place } = screening;
    let principal = caller.as_ref().map(|caller| caller.principal.as_str());
    let held_id = match guard.enter_session(&parts.headers, principal, &id) {
        Ok(held_id) => held_id,
        Err(refused) => return *refused,
    };
    let is_delete = parts.method == Method::DELETE;
    let mut parts = parts;
    if let Some(caller) = caller {
        parts.extensions.insert(caller);
    }
    if let Some(place) = &call {
        // The call gives its place back when its tool returns (`McpServer::call_tool`).
        parts.extensions.insert(place.clone());
    }
    let mut response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    if let Some(place) = place {
        place.opened(response.headers());
    }
    if response.status() == StatusCode::FORBIDDEN {
        return rmcp_fixes::forbidden(response, id).await;
    }
    if is_delete {
        rmcp_fixes::closed_session(&mut response);
    }
    match (call, held_id) {
        (None, None) => response,
        held => hold_until_sent(response, held),
    }
}

/// What a JSON-RPC POST's message decided, for the rest of [`guard_request`] to act on.
#[derive(Default)]
struct Screening<'a> {
    /// The request's id, for an answer rmcp's 403 needs rewritten (`null` when none).
    id: Value,
    /// A `tools/call`'s place under [`Guard::calls`].
    call: Option<CallPlace>,
    /// A new session's place under the session cap, held until rmcp has answered.
    place: Option<Place<'a>>,
}

impl Guard {
    /// Reads the JSON-RPC message of a POST and takes what it needs: the tool's scopes for a
    /// `tools/call`, a call place, a session place for an `initialize`.
    /// Kept apart from [`guard_request`] so that the message-level checks read as one step;
    /// `Err` is the answer refusing the request.
    async fn screen(
        &self,
        parts: &Parts,
        bytes: &[u8],
        caller: Option<&Caller>,
    ) -> Result<Screening<'_>, Response> {
        let message = match Screened::read(bytes) {
            Ok(message) => message,
            Err(refusal) => return Err(refusal.into_response()),
        };
        let id = message.id.clone();
        let tool_call = message.kind == Kind::ToolCall;
        // A `tools/call` always names its tool here (a frame naming none, or naming it twice,
        // is not one rmcp reads as a call, and reaches no tool).
        if let (Some(tool), Some(bearer), Some(caller)) =
            (message.tool.as_deref(), &self.bearer, caller)
            && let Some(refused) = bearer.authorize_call(caller, tool, &id, &parts.headers)
        {
            return Err(refused);
        }
        // A call that becomes a task takes its place too: its task gives it back when its
        // tool returns.
        let mut call = None;
        if tool_call {
            match Arc::clone(&self.calls).try_acquire_owned() {
                Ok(permit) => call = Some(CallPlace::new(permit)),
                Err(_) => return Err(busy(&message, self.max_calls)),
            }
        }
        let mut place = None;
        if let Some(cap) = &self.sessions
            && message.kind == Kind::Initialize
            && !parts.headers.contains_key(SESSION_ID)
        {
            let principal = caller.map(|caller| caller.principal.as_str());
            place = Some(cap.place(&message, &parts.extensions, principal).await?);
        }
        Ok(Screening { id, call, place })
    }

    /// The request's step into the session it names, when serving with sessions: the session
    /// must be one the cap knows for this principal (404 otherwise), and the request's id must
    /// not be in flight in it already (refused as [`request_ids::reused`]); `Ok` holds that id
    /// until the answer has been sent. The refusal is boxed: it is the rare path, and a bare
    /// `Response` would make every `Ok` as large.
    fn enter_session(
        &self,
        headers: &HeaderMap,
        principal: Option<&str>,
        id: &Value,
    ) -> Result<Option<HeldId>, Box<Response>> {
        let Some(cap) = &self.sessions else {
            return Ok(None);
        };
        if !cap.touch(headers, principal) {
            // As rmcp answers a session it does not know: nothing tells the session exists.
            let unknown = (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response();
            return Err(Box::new(unknown));
        }
        let Some(session) = headers
            .get(SESSION_ID)
            .and_then(|session| session.to_str().ok())
        else {
            return Ok(None);
        };
        if id.is_null() {
            return Ok(None);
        }
        match self.request_ids.hold(session, id) {
            Some(held) => Ok(Some(held)),
            None => Err(Box::new(request_ids::reused(id))),
        }
    }
}

/// A `tools/call`'s place under [`Guard::calls`], given back as soon as its tool returns: the
/// answer may then take as long as its client likes to read (up to the write timeout), and a
/// client that never reads holds no place another call needs.
#[derive(Clone)]
pub(super) struct CallPlace(Arc<std::sync::Mutex<Option<OwnedSemaphorePermit>>>);

impl CallPlace {
    fn new(permit: OwnedSemaphorePermit) -> Self {
        CallPlace(Arc::new(std::sync::Mutex::new(Some(permit))))
    }

    /// The place of the call `extensions` (a request context's, which carry the HTTP
    /// request's parts) belong to, if it came over HTTP.
    pub(super) fn of(extensions: &rmcp::model::Extensions) -> Option<CallPlace> {
        extensions
            .get::<Parts>()
            .and_then(|parts| parts.extensions.get::<CallPlace>())
            .cloned()
    }

    /// Gives the place back; a second time does nothing.
    pub(super) fn release(&self) {
        let permit = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        drop(permit);
    }
}

/// The response, holding `held` until its body has been sent (or dropped): the request's id in
/// its session, and the call's place if the tool has not released it already (a request rmcp
/// refused before any tool ran).
fn hold_until_sent(response: Response, held: impl Send + Sync + 'static) -> Response {
    let (parts, body) = response.into_parts();
    let stream = body.into_data_stream().map(move |chunk| {
        let _held = &held;
        chunk
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

impl Guard {
    /// The whole body, refused with 413 over the limit: at once when the declared length says
    /// so, else once the limit is reached (a chunked body declares no length); and with 408
    /// when it is not all there within the read timeout, or when its connection must make room
    /// for a newer one before it is (`connections`).
    async fn read_body(&self, request: Request) -> Result<(Parts, Bytes), Response> {
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<usize>().ok());
        if declared.is_some_and(|length| length > self.max_body_bytes) {
            return Err(too_large(self.max_body_bytes));
        }
        let (parts, body) = request.into_parts();
        let arrival = parts.extensions.get::<Arrival>().cloned();
        let _receiving = arrival.as_ref().map(Arrival::receiving);
        let evicted = async {
            match &arrival {
                Some(arrival) => arrival.evicted().await,
                None => std::future::pending().await,
            }
        };
        let read = axum::body::to_bytes(body, self.max_body_bytes);
        tokio::select! {
            read = toolkit_runtime::within(self.read_timeout, read) => match read {
                Some(Ok(bytes)) => Ok((parts, bytes)),
                Some(Err(_)) => Err(too_large(self.max_body_bytes)),
                None => Err(too_slow(self.read_timeout)),
            },
            () = evicted => Err(made_room()),
        }
    }
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// A `tools/call` over the limit: an error the caller reads as the call's, not a queue.
fn busy(message: &Screened, max: usize) -> Response {
    let text =
        format!("the server is busy: {max} tool calls are running, its limit; try again shortly");
    jsonrpc_error(StatusCode::OK, message.id.clone(), ErrorCode(-32000), &text)
}

fn too_large(limit: usize) -> Response {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the request body is larger than {limit} bytes"),
    )
        .into_response()
}

/// A body still arriving when its connection had to make room for a newer one: as late as
/// [`too_slow`]'s, and closed alike.
fn made_room() -> Response {
    (
        StatusCode::REQUEST_TIMEOUT,
        [(header::CONNECTION, "close")],
        format!(
            "the request body did not arrive within {} ms, and the server needed the connection \
             for another client",
            BODY_GRACE.as_millis()
        ),
    )
        .into_response()
}

/// A body that did not arrive in time. The connection closes after this answer (hyper will
/// not keep a connection whose body was left unread), so a slow client holds nothing.
fn too_slow(timeout: Duration) -> Response {
    (
        StatusCode::REQUEST_TIMEOUT,
        [(header::CONNECTION, "close")],
        format!(
            "the request body did not arrive within {} ms",
            timeout.as_millis()
        ),
    )
        .into_response()
}
