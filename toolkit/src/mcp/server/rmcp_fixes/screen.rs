//! Screening of stdio frames before rmcp reads them.
//!
//! rmcp drops a line that is not UTF-8 or not JSON, and a request whose envelope or params name
//! a field twice, without answering: the client then waits for its timeout. [`screen`] finds
//! those frames and builds the JSON-RPC error a client expects instead; every other frame passes
//! through untouched.

use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Value, json};

/// JSON-RPC's code for a frame that is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is not a valid request.
const INVALID_REQUEST: i64 = -32600;
/// Object levels checked for repeated names: the envelope and its `params`.
const CHECKED_LEVELS: usize = 2;

/// The error reply a frame needs instead of reaching rmcp, or `None` when it may pass.
pub(in crate::mcp::server) fn screen(line: &[u8]) -> Option<Value> {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let Ok(text) = std::str::from_utf8(line) else {
        return Some(reply(
            PARSE_ERROR,
            "Parse error: the message is not UTF-8",
            Value::Null,
        ));
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(err) => {
            return Some(reply(
                PARSE_ERROR,
                &format!("Parse error: the message is not JSON ({err})"),
                Value::Null,
            ));
        }
    };
    if mixes_request_and_response(&value) {
        return Some(reply(INVALID_REQUEST, MIXED, readable_id(&value)));
    }
    let repeated = repeated_field(line)?;
    let id = match repeated.as_str() {
        "id" => Value::Null,
        _ => readable_id(&value),
    };
    let message = format!("Invalid Request: the field `{repeated}` appears more than once");
    Some(reply(INVALID_REQUEST, &message, id))
}

/// The first field a message's envelope or its `params` names twice, if any.
pub(in crate::mcp::server) fn repeated_field(message: &[u8]) -> Option<String> {
    let mut de = serde_json::Deserializer::from_slice(message);
    Repeated { level: 0 }.deserialize(&mut de).ok().flatten()
}

/// Why a message with a `method` and a `result` or `error` is refused.
pub(in crate::mcp::server) const MIXED: &str = "Invalid Request: a message with a `method` is a request or a \
     notification, and has no `result` or `error`";

/// Whether a message has a `method` and a `result` or `error` too: neither a request nor a
/// response, though rmcp reads it as a response and drops it, leaving the client waiting for
/// the answer to what it sent as a request (found by the `mcp_server` fuzz target).
pub(in crate::mcp::server) fn mixes_request_and_response(message: &Value) -> bool {
    message.get("method").is_some()
        && (message.get("result").is_some() || message.get("error").is_some())
}

/// The message's id when it is one a reply can carry (a string or a number), else `null`.
pub(in crate::mcp::server) fn readable_id(message: &Value) -> Value {
    match message.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    }
}

/// The reply to a line longer than `max` bytes, which is skipped unread.
pub(in crate::mcp::server) fn too_long(max: usize) -> Value {
    let message = format!("Invalid Request: the message is longer than {max} bytes");
    reply(INVALID_REQUEST, &message, Value::Null)
}

/// A JSON-RPC error response.
fn reply(code: i64, message: &str, id: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Finds the first name repeated in an object at `level` or the levels below it.
struct Repeated {
    level: usize,
}

impl<'de> DeserializeSeed<'de> for Repeated {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        if self.level >= CHECKED_LEVELS {
            IgnoredAny::deserialize(deserializer)?;
            return Ok(None);
        }
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Repeated {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut seen = HashSet::new();
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            let below = if self.level == 0 && key == "params" {
                map.next_value_seed(Repeated { level: 1 })?
            } else {
                map.next_value::<IgnoredAny>()?;
                None
            };
            if found.is_none() && !seen.insert(key.clone()) {
                found = Some(key);
            }
            found = found.or(below);
        }
        Ok(found)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_valid_request_passes() {
        let line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1,"x":2}}}"#;
        assert_eq!(screen(line), None);
    }

    #[test]
    fn invalid_utf8_gets_a_parse_error_with_a_null_id() {
        let reply = screen(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}").unwrap();
        assert_eq!(reply["error"]["code"], PARSE_ERROR);
        assert_eq!(reply["id"], Value::Null);
    }

    #[test]
    fn a_message_with_a_method_and_a_result_gets_invalid_request_with_the_id() {
        for line in [
            br#"{"jsonrpc": "2.0", "id": 12, "result": 2, "method": "ping"}"#.as_slice(),
            br#"{"jsonrpc": "2.0", "id": "a", "error": {}, "method": "ping"}"#.as_slice(),
        ] {
            let reply = screen(line).unwrap();
            assert_eq!(reply["error"]["code"], INVALID_REQUEST);
            assert_eq!(reply["error"]["message"], MIXED);
            assert_eq!(
                reply["id"],
                serde_json::from_slice::<Value>(line).unwrap()["id"]
            );
        }
    }

    #[test]
    fn a_repeated_params_field_gets_invalid_request_with_the_id() {
        let line =
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","name":"b"}}"#;
        assert_eq!(
            screen(line),
            Some(
                json!({"jsonrpc": "2.0", "id": 7, "error": {"code": INVALID_REQUEST,
                "message": "Invalid Request: the field `name` appears more than once"}})
            )
        );
    }
}
