//! What the client answers when a server asks it something: `sampling/createMessage` (a model
//! writes a message) and `elicitation/create` (the user gives a value). Each is answered only
//! when the builder was given a handler for it; without one, the client does not declare the
//! capability, and a server that asks anyway gets an error. `roots` likewise, declared and
//! answered only with the roots given to the builder.
//!
//! The handlers take and give the runtime's own types, the ones a tool's context uses on the
//! server side ([`SamplingRequest`], [`ElicitationRequest`], ...), so one toolkit server's
//! question reaches another's client unchanged.

// rmcp marks sampling deprecated (SEP-2577, a protocol revision after the ones servers speak
// today); the servers this client talks to still send it, and we answer it.
#![allow(deprecated)]

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use rmcp::model::ClientCapabilities;
use serde_json::{Map, Value, json};

use crate::context::{ElicitationAnswer, ElicitationRequest, SamplingReply, SamplingRequest};
use toolkit_runtime::BoxFuture;

/// Answers a server's `sampling/createMessage`: asks a model for a message. Given to
/// [`McpClientBuilder::on_sampling`](super::McpClientBuilder::on_sampling); any
/// `Fn(SamplingRequest) -> impl Future<Output = Result<SamplingReply, String>>` is one, and
/// with the `agent` feature, [`sampling_model`](super::McpClientBuilder::sampling_model) makes
/// one from a [`ChatModel`](crate::models::ChatModel).
///
/// ```
/// use toolkit::context::{Role, SamplingReply, SamplingRequest};
/// use toolkit::mcp::{McpClient, McpTransport};
/// use toolkit::prelude::*;
///
/// let builder = McpClient::builder(McpTransport::stdio("server")).on_sampling(
///     |request: SamplingRequest| async move {
///         Ok(SamplingReply {
///             role: Role::Assistant,
///             content: Content::text(format!("{} messages read", request.messages.len())),
///             model: "echo".into(),
///             stop_reason: Some("endTurn".into()),
///         })
///     },
/// );
/// ```
pub trait SamplingHandler: Send + Sync + 'static {
    /// The model's answer, or why there is none (sent to the server as the request's error).
    fn sample(&self, request: SamplingRequest) -> BoxFuture<'_, Result<SamplingReply, String>>;
}

impl<F, Fut> SamplingHandler for F
where
    F: Fn(SamplingRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<SamplingReply, String>> + Send + 'static,
{
    fn sample(&self, request: SamplingRequest) -> BoxFuture<'_, Result<SamplingReply, String>> {
        Box::pin(self(request))
    }
}

/// Answers a server's `elicitation/create`: asks the user for a value matching the request's
/// schema. Given to [`McpClientBuilder::on_elicit`](super::McpClientBuilder::on_elicit); any
/// `Fn(ElicitationRequest) -> impl Future<Output = ElicitationAnswer>` is one.
///
/// ```
/// use toolkit::context::{ElicitationAnswer, ElicitationRequest};
/// use toolkit::mcp::{McpClient, McpTransport};
/// use toolkit::prelude::*;
///
/// let builder = McpClient::builder(McpTransport::stdio("server")).on_elicit(
///     |request: ElicitationRequest| async move {
///         if request.message.contains("delete") {
///             ElicitationAnswer::Decline
///         } else {
///             ElicitationAnswer::Accept(json!({"confirm": true}))
///         }
///     },
/// );
/// ```
pub trait ElicitationHandler: Send + Sync + 'static {
    /// The user's answer.
    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'_, ElicitationAnswer>;
}

impl<F, Fut> ElicitationHandler for F
where
    F: Fn(ElicitationRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ElicitationAnswer> + Send + 'static,
{
    fn elicit(&self, request: ElicitationRequest) -> BoxFuture<'_, ElicitationAnswer> {
        Box::pin(self(request))
    }
}

/// The handlers a client was built with, and the log level it asks for.
#[derive(Clone, Default)]
pub(super) struct Handlers {
    pub(super) sampling: Option<Arc<dyn SamplingHandler>>,
    pub(super) elicitation: Option<Arc<dyn ElicitationHandler>>,
    pub(super) url_elicitation: Option<Arc<dyn super::UrlElicitationHandler>>,
    pub(super) log_level: Option<crate::context::LogLevel>,
    /// The roots the client declares and answers `roots/list` with; `None`: not declared.
    pub(super) roots: Option<Arc<[String]>>,
}

impl fmt::Debug for Handlers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handlers")
            .field("sampling", &self.sampling.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .field("url_elicitation", &self.url_elicitation.is_some())
            .field("log_level", &self.log_level)
            .field("roots", &self.roots)
            .finish()
    }
}

impl Handlers {
    /// The capabilities `initialize` declares: sampling and (form) elicitation, each only when
    /// there is a handler for it.
    pub(super) fn capabilities(&self) -> ClientCapabilities {
        let mut declared = Map::new();
        if self.sampling.is_some() {
            declared.insert("sampling".into(), json!({}));
        }
        let mut elicitation = Map::new();
        if self.elicitation.is_some() {
            elicitation.insert("form".into(), json!({}));
        }
        if self.url_elicitation.is_some() {
            elicitation.insert("url".into(), json!({}));
        }
        if !elicitation.is_empty() {
            declared.insert("elicitation".into(), Value::Object(elicitation));
        }
        if self.roots.is_some() {
            declared.insert("roots".into(), json!({}));
        }
        // The Tasks extension (MCP 2026-07-28, SEP-2663): a call the server runs as a task is
        // followed to its end (`task_call::follow_task`). Handshake-era servers ignore it.
        declared.insert(
            "extensions".into(),
            json!({ rmcp::model::TASKS_EXTENSION_ID: {} }),
        );
        // Through JSON: rmcp's capability types are non-exhaustive.
        serde_json::from_value(Value::Object(declared)).unwrap_or_default()
    }
}

impl Handlers {
    /// The answer to `roots/list`: the roots given, or the error for an undeclared capability.
    pub(super) fn list_roots(&self) -> Result<Value, rmcp::ErrorData> {
        let Some(roots) = &self.roots else {
            return Err(not_declared("roots"));
        };
        let roots: Vec<Value> = roots.iter().map(|uri| json!({"uri": uri})).collect();
        Ok(json!({"roots": roots}))
    }
}

/// The error for a request the client did not declare it answers.
pub(super) fn not_declared(what: &str) -> rmcp::ErrorData {
    let message =
        format!("this client does not answer {what} requests (it did not declare the capability)");
    rmcp::ErrorData::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, message, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_has_a_handler_is_declared() {
        // The Tasks extension is always declared: every call the server runs as a task is
        // followed to its end.
        let tasks = json!({"io.modelcontextprotocol/tasks": {}});
        let none = serde_json::to_value(Handlers::default().capabilities()).unwrap();
        assert_eq!(none, json!({"extensions": tasks}));
        let handlers = Handlers {
            sampling: None,
            url_elicitation: None,
            log_level: None,
            roots: Some(Arc::from(["file:///work".to_owned()])),
            elicitation: Some(Arc::new(|_: ElicitationRequest| async {
                ElicitationAnswer::Decline
            })),
        };
        let declared = serde_json::to_value(handlers.capabilities()).unwrap();
        assert_eq!(
            declared,
            json!({"elicitation": {"form": {}}, "roots": {}, "extensions": tasks})
        );
        let roots = handlers.list_roots().unwrap();
        assert_eq!(roots, json!({"roots": [{"uri": "file:///work"}]}));
    }
}
