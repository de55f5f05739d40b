//! What a client does with a message from the server over its size bound: the request it
//! answered fails at once, with an error saying why, instead of waiting for an answer that was
//! dropped. The message's `id` is read from its first bytes ([`PREFIX_BYTES`]).

use rmcp::service::ServiceError;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

/// How much of a message over the bound is kept to find the `id` it answers: JSON-RPC messages
/// name it before their `result` (rmcp, the Python and TypeScript SDKs all do).
pub(super) const PREFIX_BYTES: usize = 4096;

/// What a call gets when the server's answer is over `max` bytes.
pub(super) fn answer_too_large(max: usize) -> String {
    format!(
        "the MCP server's answer is larger than the {max} bytes this client accepts \
         (`max_message_bytes`); it was dropped"
    )
}

/// Whether the answer was refused for its size (rmcp's Streamable HTTP client, for a JSON body;
/// the stdio transport answers with an error of its own instead).
pub(super) fn is_too_large(err: &ServiceError) -> bool {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    let ServiceError::TransportSend(error) = err else {
        return false;
    };
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error.error.as_ref());
    while let Some(current) = source {
        if let Some(StreamableHttpError::<reqwest::Error>::ResponseBodyTooLarge { .. }) =
            current.downcast_ref()
        {
            return true;
        }
        source = current.source();
    }
    false
}

/// The JSON-RPC error that answers the request a message over the bound answered, from the
/// message's first bytes, if its `id` can be read there.
pub(super) fn replacement(prefix: &[u8], max: usize) -> Option<Value> {
    let Some(id) = leading_id(prefix) else {
        tracing::warn!(
            max_message_bytes = max,
            "dropped a message from the MCP server over the size bound; no request id found in it"
        );
        return None;
    };
    Some(json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32603, "message": answer_too_large(max)},
    }))
}

/// The `id` of a JSON-RPC message from the first bytes of its text, when it comes before any
/// member cut off: each member before it is skipped whole, and a number or string id read.
pub(super) fn leading_id(prefix: &[u8]) -> Option<Value> {
    let trim =
        |bytes: &[u8]| -> usize { bytes.iter().take_while(|b| b.is_ascii_whitespace()).count() };
    let mut rest = prefix.get(trim(prefix)..)?.strip_prefix(b"{")?;
    loop {
        rest = &rest[trim(rest)..];
        let mut keys = serde_json::Deserializer::from_slice(rest).into_iter::<String>();
        let key = keys.next()?.ok()?;
        rest = &rest[keys.byte_offset()..];
        rest = rest[trim(rest)..].strip_prefix(b":")?;
        if key == "id" {
            let mut id = serde_json::Deserializer::from_slice(rest).into_iter::<Value>();
            return id
                .next()?
                .ok()
                .filter(|id| id.is_number() || id.is_string());
        }
        let mut skip = serde_json::Deserializer::from_slice(rest).into_iter::<IgnoredAny>();
        skip.next()?.ok()?;
        rest = &rest[skip.byte_offset()..];
        rest = rest[trim(rest)..].strip_prefix(b",")?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_read_from_the_start_of_a_message_cut_short() {
        let cut = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"xxx"#;
        assert_eq!(leading_id(cut), Some(json!(7)));
        let spaced = br#" { "jsonrpc" : "2.0" , "id" : "a\"b" , "result": "#;
        assert_eq!(leading_id(spaced), Some(json!("a\"b")));
        let late = br#"{"result":{"content":[{"type":"text","text":"xxx"#;
        assert_eq!(leading_id(late), None);
        assert_eq!(leading_id(br#"{"id":{"x":1},"result":1}"#), None);
        assert_eq!(leading_id(b"[1,2"), None);
    }
}
