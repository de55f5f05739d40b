//! Header parameters (MCP 2026-07-28, SEP-2243): a tool argument whose schema names an HTTP
//! header (`"x-mcp-header": "Region"`, from `#[arg(header = "Region")]`) is sent by a client
//! twice, in the body and as the header `Mcp-Param-Region`, so that a gateway can route on it
//! without reading the body. A gateway trusts the header; the tool reads the body: so the
//! server refuses a request where the two disagree, with HTTP 400 and JSON-RPC `-32020`
//! (HeaderMismatch): a header missing for an argument given, a header for an argument not
//! given, another value, or a Base64 value (`=?base64?...?=`) that does not decode.
//!
//! Only requests of 2026-07-28 or later are checked (their `MCP-Protocol-Version` header, or
//! the version in `_meta`): older clients do not know the headers. The table is read once from
//! the listed schemas, so a remote tool a proxy serves is checked by its own schema too.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{ErrorCode, ProtocolVersion, Tool};
use serde::Deserialize;
use serde_json::{Map, Value};
use toolkit_runtime::schema::MCP_HEADER;

use super::rmcp_fixes::envelope::jsonrpc_error;

/// The JSON-RPC error of a header that disagrees with the body.
const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
/// What a header parameter's header name starts with.
const PREFIX: &str = "Mcp-Param-";

/// Each tool's header parameters: the argument and the header it is mirrored into.
#[derive(Default)]
pub(super) struct HeaderParams {
    by_tool: HashMap<String, Vec<(String, String)>>,
}

impl HeaderParams {
    /// The header parameters of `tools`, as their input schemas mark them.
    pub(super) fn of(tools: &[Tool]) -> Arc<Self> {
        let by_tool = tools
            .iter()
            .filter_map(|tool| {
                let properties = tool.input_schema.get("properties")?.as_object()?;
                let params: Vec<(String, String)> = properties
                    .iter()
                    .filter_map(|(argument, schema)| {
                        let header = schema.get(MCP_HEADER)?.as_str()?;
                        Some((argument.clone(), format!("{PREFIX}{header}")))
                    })
                    .collect();
                (!params.is_empty()).then(|| (tool.name.to_string(), params))
            })
            .collect();
        Arc::new(HeaderParams { by_tool })
    }

    /// Why the `tools/call` in `body` disagrees with its headers, or `None` when it agrees
    /// (or is not a 2026-07-28 call of a tool with header parameters).
    fn mismatch(&self, headers: &HeaderMap, body: &[u8]) -> Option<(Value, String)> {
        let call: Call = serde_json::from_slice(body).ok()?;
        let params = call.params.filter(|_| call.method == "tools/call")?;
        let expected = self.by_tool.get(&params.name)?;
        if !is_2026(headers, params.meta.as_ref()) {
            return None;
        }
        let arguments = params.arguments.unwrap_or_default();
        for (argument, header) in expected {
            let sent = match headers.get(header).map(|value| value.to_str()) {
                None => None,
                Some(Ok(value)) => match decoded(value.trim()) {
                    Ok(value) => Some(value),
                    Err(problem) => return Some((call.id, format!("{header}: {problem}"))),
                },
                Some(Err(_)) => {
                    let problem = format!("{header} is not visible ASCII: encode it as Base64");
                    return Some((call.id, problem));
                }
            };
            let given = arguments.get(argument).and_then(as_header_value);
            if sent != given {
                let problem = match (&sent, &given) {
                    (None, _) => format!("the argument `{argument}` is given but not {header}"),
                    (_, None) => format!("{header} is sent but not the argument `{argument}`"),
                    _ => format!("{header} does not match the argument `{argument}`"),
                };
                return Some((call.id, problem));
            }
        }
        None
    }
}

/// Refuses a `tools/call` whose header parameters disagree with its body (a middleware of the
/// HTTP server's, after the guard has read the body).
pub(super) async fn check(
    State(params): State<Arc<HeaderParams>>,
    request: Request,
    next: Next,
) -> Response {
    if params.by_tool.is_empty() {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    // The guard has read the body already, to its limit: this takes the bytes it holds.
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return next.run(Request::from_parts(parts, Body::empty())).await;
    };
    if let Some((id, problem)) = params.mismatch(&parts.headers, &bytes) {
        return jsonrpc_error(StatusCode::BAD_REQUEST, id, HEADER_MISMATCH, &problem);
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// The fields of a `tools/call` read here; anything else is rmcp's to read.
#[derive(Deserialize)]
struct Call {
    #[serde(default)]
    id: Value,
    method: String,
    params: Option<Params>,
}

#[derive(Deserialize)]
struct Params {
    name: String,
    arguments: Option<Map<String, Value>>,
    #[serde(rename = "_meta")]
    meta: Option<Map<String, Value>>,
}

/// Whether the request is of 2026-07-28 or later, by its header or its `_meta`.
fn is_2026(headers: &HeaderMap, meta: Option<&Map<String, Value>>) -> bool {
    let in_header = headers
        .get("mcp-protocol-version")
        .and_then(|value| value.to_str().ok())
        .map(|version| Value::String(version.trim().to_owned()));
    let in_meta = meta.and_then(|meta| meta.get("io.modelcontextprotocol/protocolVersion"));
    [in_header.as_ref(), in_meta].into_iter().flatten().any(|version| {
        ProtocolVersion::deserialize(version).is_ok_and(|version| !version.has_initialize())
    })
}

/// A header's value as sent: Base64 inside `=?base64?` and `?=`, literal otherwise.
fn decoded(value: &str) -> Result<String, &'static str> {
    let Some(encoded) = value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Ok(value.to_owned());
    };
    let bytes = STANDARD
        .decode(encoded)
        .map_err(|_| "not valid Base64 (padded, standard alphabet)")?;
    String::from_utf8(bytes).map_err(|_| "its Base64 value is not UTF-8")
}

/// An argument as its header carries it: a string as it is, a number or a boolean as JSON
/// writes it; `null` as no argument.
fn as_header_value(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params() -> Arc<HeaderParams> {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "text": {"type": "string"}}});
        let Value::Object(schema) = schema else {
            unreachable!()
        };
        HeaderParams::of(&[Tool::new("route", "Routes", Arc::new(schema))])
    }

    fn call(region: Option<&str>) -> Vec<u8> {
        let mut arguments = json!({"text": "hi"});
        if let Some(region) = region {
            arguments["region"] = json!(region);
        }
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                          "params": {"name": "route", "arguments": arguments, "_meta": meta}});
        serde_json::to_vec(&body).unwrap()
    }

    fn headers(region: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(region) = region {
            headers.insert("mcp-param-region", region.parse().unwrap());
        }
        headers
    }

    fn problem(header: Option<&str>, argument: Option<&str>) -> Option<String> {
        let found = params().mismatch(&headers(header), &call(argument));
        found.map(|(id, problem)| {
            assert_eq!(id, json!(7));
            problem
        })
    }

    #[test]
    fn a_header_agreeing_with_its_argument_passes_literal_or_base64() {
        assert_eq!(problem(Some("eu-west"), Some("eu-west")), None);
        assert_eq!(problem(Some("  eu-west "), Some("eu-west")), None);
        assert_eq!(problem(Some("=?base64?SGVsbG8=?="), Some("Hello")), None);
        assert_eq!(problem(Some("=?base64?SGVsbG8="), Some("=?base64?SGVsbG8=")), None);
        assert_eq!(problem(None, None), None);
    }

    #[test]
    fn a_header_missing_extra_different_or_badly_encoded_is_named() {
        assert_eq!(
            problem(None, Some("eu-west")).as_deref(),
            Some("the argument `region` is given but not Mcp-Param-Region")
        );
        assert_eq!(
            problem(Some("eu-west"), None).as_deref(),
            Some("Mcp-Param-Region is sent but not the argument `region`")
        );
        assert_eq!(
            problem(Some("us-east"), Some("eu-west")).as_deref(),
            Some("Mcp-Param-Region does not match the argument `region`")
        );
        assert_eq!(
            problem(Some("=?base64?SGVsbG8?="), Some("Hello")).as_deref(),
            Some("Mcp-Param-Region: not valid Base64 (padded, standard alphabet)")
        );
    }

    #[test]
    fn an_older_clients_call_is_not_checked() {
        let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"route","arguments":{"region":"eu"}}}"#;
        assert_eq!(params().mismatch(&HeaderMap::new(), body).map(|f| f.1), None);
        let mut newer = HeaderMap::new();
        newer.insert("mcp-protocol-version", "2026-07-28".parse().unwrap());
        assert!(params().mismatch(&newer, body).is_some());
    }
}
