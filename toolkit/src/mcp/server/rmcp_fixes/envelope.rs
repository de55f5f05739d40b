//! What the HTTP guard reads of a body: whether it is one JSON-RPC message rmcp accepts, what
//! kind (a `tools/call`, an `initialize`, anything else) and its id.
//!
//! rmcp parses the body again, so the guard reads as little as it can: a `tools/call` in the
//! plain shape every client sends (the hot path) is read into a small envelope of borrowed
//! fields, about a sixth of rmcp's full parse; anything else, or anything unusual about it, is
//! read with rmcp's own type, so that what the guard accepts is exactly what rmcp accepts.

use std::borrow::Cow;
use std::fmt;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorCode};
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Value, json};

use super::screen::{mixes_request_and_response, readable_id, repeated_field};

/// A body that is one JSON-RPC message rmcp reads, as far as the guard needs it.
pub(in crate::mcp::server) struct Screened<'a> {
    pub(in crate::mcp::server) kind: Kind,
    /// The request's id; `null` for a notification or a response.
    pub(in crate::mcp::server) id: Value,
    /// A plain `tools/call`'s tool, for the scope check: read here, so that it does not parse
    /// the body again.
    pub(in crate::mcp::server) tool: Option<Cow<'a, str>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::mcp::server) enum Kind {
    ToolCall,
    Initialize,
    Other,
}

impl Screened<'_> {
    /// The message, or why the body is not one.
    pub(in crate::mcp::server) fn read(bytes: &[u8]) -> Result<Screened<'_>, NotJsonRpc> {
        if let Some(call) = plain_tool_call(bytes) {
            return Ok(call);
        }
        let message = parse_message(bytes)?;
        // A plain call cannot name a field twice: its derived reader refuses that.
        refuse_repeated_fields(bytes)?;
        let mut tool = None;
        let (kind, id) = match &message {
            ClientJsonRpcMessage::Request(request) => {
                let kind = match &request.request {
                    ClientRequest::CallToolRequest(call) => {
                        tool = Some(Cow::Owned(call.params.name.to_string()));
                        Kind::ToolCall
                    }
                    ClientRequest::InitializeRequest(_) => Kind::Initialize,
                    _ => Kind::Other,
                };
                (
                    kind,
                    serde_json::to_value(&request.id).unwrap_or(Value::Null),
                )
            }
            _ => (Kind::Other, Value::Null),
        };
        Ok(Screened { kind, id, tool })
    }
}

/// A `tools/call` with nothing but `jsonrpc: "2.0"`, an integer or string id, and params with
/// a name and (optionally) object arguments and an object `_meta`: a shape rmcp reads, checked
/// without building it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainToolCall<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    id: Value,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: PlainParams<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default, rename = "arguments")]
    _arguments: Option<AnObject>,
    /// rmcp's clients send `{"progressToken": n}` with every call; rmcp reads any object.
    #[serde(default, rename = "_meta")]
    _meta: Option<AnObject>,
}

/// A JSON object, skipped.
struct AnObject;

impl<'de> Deserialize<'de> for AnObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor;
        impl<'de> Visitor<'de> for ObjectVisitor {
            type Value = AnObject;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<AnObject, M::Error> {
                while map.next_entry::<IgnoredAny, Skipped>()?.is_some() {}
                Ok(AnObject)
            }
        }
        deserializer.deserialize_map(ObjectVisitor)
    }
}

/// Any JSON value, skipped level by level. serde_json skips an [`IgnoredAny`] without counting
/// its nesting, so a value past its 128 levels would pass here and then fail rmcp's parse (a
/// plain-text 415); read through `deserialize_any`, each level counts, and such a body is
/// refused as rmcp would refuse it, with `-32700`.
struct Skipped;

impl<'de> Deserialize<'de> for Skipped {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skipped;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Skipped, M::Error> {
        while map.next_entry::<IgnoredAny, Skipped>()?.is_some() {}
        Ok(Skipped)
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Skipped, S::Error> {
        while seq.next_element::<Skipped>()?.is_some() {}
        Ok(Skipped)
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Skipped, E> {
        Ok(Skipped)
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Skipped, E> {
        Ok(Skipped)
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Skipped, E> {
        Ok(Skipped)
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Skipped, E> {
        Ok(Skipped)
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Skipped, E> {
        Ok(Skipped)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Skipped, E> {
        Ok(Skipped)
    }
}

/// The body as a plain `tools/call`, or `None` when the full parse must decide.
fn plain_tool_call(bytes: &[u8]) -> Option<Screened<'_>> {
    let call: PlainToolCall = serde_json::from_slice(bytes).ok()?;
    let plain = call.jsonrpc == "2.0"
        && call.method == "tools/call"
        && (call.id.is_string() || call.id.is_i64());
    plain.then_some(Screened {
        kind: Kind::ToolCall,
        id: call.id,
        tool: Some(call.params.name),
    })
}

/// Why a body is not one JSON-RPC message.
pub(in crate::mcp::server) enum NotJsonRpc {
    /// The text is not JSON: `-32700`, with serde's reason.
    NotJson(String),
    /// JSON, but not a message (a batch included: MCP has none): `-32600`, with the id if one
    /// could be read.
    NotAMessage(Value),
    /// A message naming `field` twice in its envelope or its `params`: `-32600`, with the id
    /// unless that is the field.
    Repeated { id: Value, field: String },
}

impl NotJsonRpc {
    /// The JSON-RPC error a client can read, with `id: null` when none could be read.
    pub(in crate::mcp::server) fn into_response(self) -> Response {
        let (id, code, message) = match self {
            NotJsonRpc::NotJson(reason) => (
                Value::Null,
                ErrorCode::PARSE_ERROR,
                format!("Parse error: the body is not JSON ({reason})"),
            ),
            NotJsonRpc::NotAMessage(id) => (
                id,
                ErrorCode::INVALID_REQUEST,
                "Invalid Request: the body is not a JSON-RPC 2.0 request, notification or \
                 response"
                    .to_owned(),
            ),
            NotJsonRpc::Repeated { id, field } => (
                id,
                ErrorCode::INVALID_REQUEST,
                format!("Invalid Request: the field `{field}` appears more than once"),
            ),
        };
        jsonrpc_error(StatusCode::BAD_REQUEST, id, code, &message)
    }
}

/// A message whose envelope or `params` names a field twice: `-32600`, as over stdio (where rmcp
/// drops it unanswered, `screen`). rmcp's HTTP service reads such a `tools/call` as a custom
/// request; which of the two values counts would be up to whoever reads it next.
fn refuse_repeated_fields(bytes: &[u8]) -> Result<(), NotJsonRpc> {
    let Some(field) = repeated_field(bytes) else {
        return Ok(());
    };
    let id = match field.as_str() {
        "id" => Value::Null,
        _ => serde_json::from_slice(bytes).map_or(Value::Null, |value| readable_id(&value)),
    };
    Err(NotJsonRpc::Repeated { id, field })
}

/// The body as one JSON-RPC message, as rmcp reads it.
fn parse_message(bytes: &[u8]) -> Result<ClientJsonRpcMessage, NotJsonRpc> {
    let error = match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        Ok(message) => {
            // rmcp reads a message with a `method` and a `result` as one or the other; it is
            // neither, and over stdio it goes unanswered: refused alike on both transports.
            let value: Value = serde_json::from_slice(bytes).unwrap_or_default();
            if mixes_request_and_response(&value) {
                return Err(NotJsonRpc::NotAMessage(readable_id(&value)));
            }
            return Ok(message);
        }
        Err(error) => error,
    };
    if error.is_syntax() || error.is_eof() {
        return Err(NotJsonRpc::NotJson(error.to_string()));
    }
    let id = serde_json::from_slice::<Value>(bytes)
        .ok()
        .and_then(|value| value.get("id").cloned())
        .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
        .unwrap_or(Value::Null);
    Err(NotJsonRpc::NotAMessage(id))
}

/// A JSON-RPC error as the whole HTTP answer. `id` is `null` when the request's id could not be
/// read, as JSON-RPC 2.0 asks.
pub(in crate::mcp::server) fn jsonrpc_error(
    status: StatusCode,
    id: Value,
    code: ErrorCode,
    message: &str,
) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code.0, "message": message},
    });
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the full parse makes of a body: its kind and id, or `None` when it refuses it.
    fn by_rmcp(body: &str) -> Option<(Kind, Value)> {
        let message = parse_message(body.as_bytes()).ok()?;
        let ClientJsonRpcMessage::Request(request) = message else {
            return Some((Kind::Other, Value::Null));
        };
        let kind = match request.request {
            ClientRequest::CallToolRequest(_) => Kind::ToolCall,
            _ => Kind::Other,
        };
        Some((kind, serde_json::to_value(&request.id).unwrap()))
    }

    #[test]
    fn a_message_with_a_method_and_a_result_is_not_a_message() {
        let body = br#"{"jsonrpc": "2.0", "id": 12, "result": {}, "method": "ping"}"#;
        let refused = Screened::read(body).err().expect("refused");
        assert!(matches!(refused, NotJsonRpc::NotAMessage(id) if id == 12));
    }

    #[test]
    fn a_repeated_params_field_is_not_a_message_and_keeps_its_id() {
        // Over stdio the screen refuses it; over HTTP rmcp's own type does, here in the guard.
        let body = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a"},"params":{"name":"b"}}"#;
        let refused = Screened::read(body).err().expect("refused");
        assert!(
            matches!(refused, NotJsonRpc::NotAMessage(id) | NotJsonRpc::Repeated { id, .. } if id == 2)
        );
    }

    #[test]
    fn a_call_naming_its_tool_twice_is_refused_with_its_id() {
        let twice =
            br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a","name":"b"}}"#;
        let refused = match Screened::read(twice).err() {
            Some(NotJsonRpc::Repeated { id, field }) => Some((id, field)),
            _ => None,
        };
        assert_eq!(refused, Some((Value::from(4), "name".to_owned())));
    }

    #[test]
    fn a_plain_tool_call_is_read_as_rmcp_reads_it_and_anything_unusual_is_left_to_rmcp() {
        let plain = [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"t","arguments":{"x":[1]}}}"#,
            r#"{"method":"tools/call","params":{"arguments":null,"name":"t"},"id":0,"jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":1},"name":"t","arguments":{}}}"#,
        ];
        for body in plain {
            let read = plain_tool_call(body.as_bytes()).expect(body);
            assert_eq!(Some((read.kind, read.id)), by_rmcp(body), "{body}");
        }
        let unusual = [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","_meta":[]}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","requestState":"s"}}"#,
            r#"{"jsonrpc":"1.0","id":7,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"id":8,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"},"x":1}"#,
            r#"[{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}]"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"},"result":1}"#,
        ];
        for body in unusual {
            assert!(plain_tool_call(body.as_bytes()).is_none(), "{body}");
        }
    }
}
