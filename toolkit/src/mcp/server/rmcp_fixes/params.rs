//! What is wrong with a request's params, for the methods this server serves: rmcp reads such a
//! request as a custom one, and the server answers `-32602` with this instead of "method not
//! found".

use rmcp::model::{
    CallToolRequestParams, CustomRequest, InitializeRequestParams, PaginatedRequestParams,
    ProtocolVersion,
};
use serde_json::Value;

/// What is wrong with the params of a request for a method this server serves, which rmcp
/// could not read as that method's; `None` for any other method, and for `initialize` and
/// `ping` from a client of MCP 2026-07-28 (`version`, its request's), which removed them:
/// rmcp's "method not found" is the answer there.
pub(in crate::mcp::server) fn invalid_params(
    request: &CustomRequest,
    version: Option<&ProtocolVersion>,
) -> Option<String> {
    let method = request.method.as_str();
    let params = request.params.as_ref();
    let handshake_era = version.is_none_or(ProtocolVersion::has_initialize);
    let problem = match method {
        "tools/call" => call_params_problem(params),
        "tools/list" => params_error::<PaginatedRequestParams>(params),
        "initialize" if handshake_era => params_error::<InitializeRequestParams>(params),
        "ping" if handshake_era => "expected no params, or an object".to_owned(),
        _ => return None,
    };
    Some(format!("invalid params for {method}: {problem}"))
}

/// `tools/call` takes `{"name": string, "arguments"?: object}`.
fn call_params_problem(params: Option<&Value>) -> String {
    let Some(Value::Object(params)) = params else {
        return "expected an object with `name` and `arguments`".to_owned();
    };
    if !params.get("name").is_some_and(Value::is_string) {
        return "`name` must be the tool's name, a string".to_owned();
    }
    match params.get("arguments") {
        None | Some(Value::Null | Value::Object(_)) => {
            params_error::<CallToolRequestParams>(Some(&Value::Object(params.clone())))
        }
        Some(other) => format!("`arguments` must be a JSON object, not {}", kind(other)),
    }
}

fn params_error<T: serde::de::DeserializeOwned>(params: Option<&Value>) -> String {
    let params = params.cloned().unwrap_or(Value::Null);
    match serde_json::from_value::<T>(params) {
        Err(err) => err.to_string(),
        Ok(_) => "they do not match the method's schema".to_owned(),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
