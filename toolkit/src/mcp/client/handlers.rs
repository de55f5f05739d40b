//! What the client answers when a server asks it something: `sampling/createMessage` (a model
//! writes a message) and `elicitation/create` (the user gives a value). Each is answered only
//! when the builder was given a handler for it; without one, the client does not declare the
//! capability, and a server that asks anyway gets an error. `roots` is always declared, and
//! answered with none (rmcp's default `list_roots`).
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

use rmcp::model::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationAction,
};
use serde_json::{Map, Value, json};

use crate::Content;
use crate::context::{
    ElicitationAnswer, ElicitationRequest, Role, SamplingMessage, SamplingReply, SamplingRequest,
};
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
}

impl fmt::Debug for Handlers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handlers")
            .field("sampling", &self.sampling.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .field("url_elicitation", &self.url_elicitation.is_some())
            .field("log_level", &self.log_level)
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
        // Safe whatever the application: a server that asks gets the roots it was given, none
        // by default; some servers offer their root-reading tools only to a client declaring it.
        declared.insert("roots".into(), json!({}));
        // Through JSON: rmcp's capability types are non-exhaustive.
        serde_json::from_value(Value::Object(declared)).unwrap_or_default()
    }
}

/// The error for a request the client did not declare it answers.
pub(super) fn not_declared(what: &str) -> rmcp::ErrorData {
    let message =
        format!("this client does not answer {what} requests (it did not declare the capability)");
    rmcp::ErrorData::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, message, None)
}

/// The token bound of a request that names none (MCP requires one; the runtime's default).
const DEFAULT_MAX_TOKENS: u32 = 1024;

/// A server's `sampling/createMessage` as the runtime's request. Read through JSON, so every
/// shape the protocol allows (one content block or a list) is read the same way.
pub(super) fn sampling_request(params: &CreateMessageRequestParams) -> SamplingRequest {
    let value = serde_json::to_value(params).unwrap_or(Value::Null);
    let messages = value["messages"]
        .as_array()
        .map(|messages| messages.iter().map(sampling_message).collect())
        .unwrap_or_default();
    let text = |key: &str| value[key].as_str().map(str::to_owned);
    SamplingRequest {
        messages,
        system_prompt: text("systemPrompt"),
        max_tokens: value["maxTokens"]
            .as_u64()
            .and_then(|max| u32::try_from(max).ok())
            .unwrap_or(DEFAULT_MAX_TOKENS),
        temperature: value["temperature"].as_f64(),
        stop_sequences: serde_json::from_value(value["stopSequences"].clone()).unwrap_or_default(),
        model_preferences: value
            .get("modelPreferences")
            .filter(|preferences| !preferences.is_null())
            .cloned(),
    }
}

/// One message; a list of blocks becomes one block (the runtime's messages hold one): the
/// block itself when there is one, else the text of all of them.
fn sampling_message(message: &Value) -> SamplingMessage {
    let role = match message["role"].as_str() {
        Some("assistant") => Role::Assistant,
        _ => Role::User,
    };
    let content = match &message["content"] {
        Value::Array(blocks) if blocks.len() == 1 => Content::from_value(blocks[0].clone()),
        Value::Array(blocks) => {
            let texts: Vec<String> = blocks
                .iter()
                .map(|block| match Content::from_value(block.clone()) {
                    Content::Text(text) => text.text,
                    _ => block.to_string(),
                })
                .collect();
            Content::text(texts.join("\n"))
        }
        block => Content::from_value(block.clone()),
    };
    SamplingMessage { role, content }
}

/// The runtime's reply as MCP's `CreateMessageResult`.
pub(super) fn create_message_result(reply: SamplingReply) -> Result<CreateMessageResult, String> {
    let result = json!({
        "model": reply.model,
        "stopReason": reply.stop_reason,
        "role": reply.role,
        "content": reply.content,
    });
    serde_json::from_value(result).map_err(|err| format!("the sampling reply is not valid: {err}"))
}

/// A server's `elicitation/create` as the runtime's request; `None` for a URL elicitation,
/// which the client does not declare.
pub(super) fn elicitation_request(params: ElicitRequestParams) -> Option<ElicitationRequest> {
    match params {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => Some(ElicitationRequest {
            message,
            requested_schema: serde_json::to_value(requested_schema).unwrap_or(Value::Null),
        }),
        _ => None,
    }
}

/// The runtime's answer as MCP's `ElicitResult`. An accepted object gets the `default` of
/// each field of `schema` it leaves out (SEP-1034: the client applies the defaults).
pub(super) fn elicit_result(answer: ElicitationAnswer, schema: &Value) -> ElicitResult {
    match answer {
        ElicitationAnswer::Accept(mut value) => {
            apply_defaults(&mut value, schema);
            ElicitResult::new(ElicitationAction::Accept).with_content(value)
        }
        ElicitationAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
        ElicitationAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
    }
}

/// Fills each property of `schema` that `value` (an object) lacks with the property's `default`.
fn apply_defaults(value: &mut Value, schema: &Value) {
    let (Value::Object(answer), Some(properties)) = (value, schema["properties"].as_object())
    else {
        return;
    };
    for (name, property) in properties {
        if let Some(default) = property.get("default") {
            answer
                .entry(name.clone())
                .or_insert_with(|| default.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sampling_request_is_read_whatever_the_shape_of_its_content() {
        let params: CreateMessageRequestParams = serde_json::from_value(json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "hi"}},
                {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
                {"role": "user", "content": [{"type": "image", "data": "AQID", "mimeType": "image/png"}]}
            ],
            "systemPrompt": "Be brief.",
            "maxTokens": 50,
            "temperature": 0.5,
            "stopSequences": ["END"]
        }))
        .unwrap();
        let request = sampling_request(&params);
        assert_eq!(request.system_prompt.as_deref(), Some("Be brief."));
        assert_eq!((request.max_tokens, request.temperature), (50, Some(0.5)));
        assert_eq!(request.stop_sequences, ["END"]);
        assert_eq!(request.messages[0].content, Content::text("hi"));
        assert_eq!(request.messages[1].role, Role::Assistant);
        assert_eq!(request.messages[1].content, Content::text("a\nb"));
        assert_eq!(
            request.messages[2].content,
            Content::Image(crate::Image::png([1, 2, 3]))
        );
    }

    #[test]
    fn a_reply_becomes_a_create_message_result() {
        let reply = SamplingReply {
            role: Role::Assistant,
            content: Content::text("done"),
            model: "m".into(),
            stop_reason: Some("endTurn".into()),
        };
        let result = serde_json::to_value(create_message_result(reply).unwrap()).unwrap();
        assert_eq!(
            result,
            json!({"model": "m", "stopReason": "endTurn", "role": "assistant",
                   "content": {"type": "text", "text": "done"}})
        );
    }

    #[test]
    fn only_what_has_a_handler_is_declared() {
        let none = serde_json::to_value(Handlers::default().capabilities()).unwrap();
        assert_eq!(none, json!({"roots": {}}));
        let handlers = Handlers {
            sampling: None,
            url_elicitation: None,
            log_level: None,
            elicitation: Some(Arc::new(|_: ElicitationRequest| async {
                ElicitationAnswer::Decline
            })),
        };
        let declared = serde_json::to_value(handlers.capabilities()).unwrap();
        assert_eq!(declared, json!({"elicitation": {"form": {}}, "roots": {}}));
    }

    #[test]
    fn an_accepted_answer_gets_the_defaults_it_leaves_out() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "note": {"type": "string"}
        }});
        let answer = ElicitationAnswer::Accept(json!({"name": "Ann"}));
        let result = serde_json::to_value(elicit_result(answer, &schema)).unwrap();
        assert_eq!(result["content"], json!({"name": "Ann", "age": 30}));
    }
}
