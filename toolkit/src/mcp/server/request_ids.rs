//! The request ids each session has in flight: a request that reuses one is refused at once.
//!
//! JSON-RPC asks a client for an id no other request of its has in flight, and rmcp routes a
//! session's answers by that id. A request reusing one was never answered: 4 concurrent calls
//! with id 1 in one session were all still waiting at 45 s, their streams kept open by
//! keep-alives. So the guard holds each `(session, id)` until its answer has been sent, and a
//! request arriving with one held gets `-32600` (Invalid Request) while the first goes on.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use axum::http::StatusCode;
use axum::response::Response;
use rmcp::model::ErrorCode;
use serde_json::Value;

use super::rmcp_fixes::envelope::jsonrpc_error;

/// The `(session, id)` of every request not yet answered.
#[derive(Default)]
pub(super) struct RequestIds(Mutex<HashSet<(String, String)>>);

/// One request's id, held in its session until dropped (when its answer has been sent).
pub(super) struct HeldId {
    ids: Arc<RequestIds>,
    key: (String, String),
}

impl RequestIds {
    /// Holds `id` in `session` for the request carrying it; `None` when the session has a
    /// request with that id in flight already (the answer is then [`reused`]).
    pub(super) fn hold(self: &Arc<Self>, session: &str, id: &Value) -> Option<HeldId> {
        // `1` and `"1"` are two ids (JSON-RPC compares them with their type): the JSON text
        // tells them apart.
        let key = (session.to_owned(), id.to_string());
        let mut held = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        held.insert(key.clone()).then(|| HeldId {
            ids: Arc::clone(self),
            key,
        })
    }
}

impl Drop for HeldId {
    fn drop(&mut self) {
        let mut held = self.ids.0.lock().unwrap_or_else(PoisonError::into_inner);
        held.remove(&self.key);
    }
}

/// The answer to a request whose id its session has in flight: an error the client matches to
/// the request, as for any request the server read (HTTP 200, as `busy`).
pub(super) fn reused(id: &Value) -> Response {
    let message = format!(
        "Invalid Request: the id {id} is already used by a request of this session that has \
         not been answered; give each request its own id"
    );
    jsonrpc_error(
        StatusCode::OK,
        id.clone(),
        ErrorCode::INVALID_REQUEST,
        &message,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_id_is_held_per_session_and_by_type_until_its_request_is_answered() {
        let ids = Arc::new(RequestIds::default());
        let first = ids.hold("a", &json!(1)).expect("held");
        assert!(ids.hold("a", &json!(1)).is_none());
        let others = [("a", json!("1")), ("a", json!(2)), ("b", json!(1))];
        let held: Vec<HeldId> = (others.iter())
            .map(|(session, id)| ids.hold(session, id).expect("another id"))
            .collect();
        drop(first);
        assert!(ids.hold("a", &json!(1)).is_some());
        drop(held);
    }
}
