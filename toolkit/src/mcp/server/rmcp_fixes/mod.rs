//! Where rmcp's own answer would leave a client waiting or misreading it, and what this server
//! answers instead. Each fix names the rmcp behaviour it corrects and the test that holds it, so
//! it can go when rmcp changes (rmcp 3.11.0 today: rerun the test without the fix to see).
//! Checked again against rmcp's 2026-07-28 path (issue 36): none of these is done by it, and each
//! row's last column is the upstream report as it would be filed.
//!
//! | rmcp's behaviour | our answer | where | test | upstream report (rmcp 3.11.0) |
//! | --- | --- | --- | --- | --- |
//! | stdio: a line that is not UTF-8 or not JSON is dropped unanswered | JSON-RPC `-32700` | `screen` (read by `stdio.rs`) | `a_frame_that_is_not_utf8_gets_a_parse_error_and_the_next_call_still_runs` (tests/mcp/stdio_hardening.rs) | `transport/async_rw.rs` skips a Syntax/Eof line on purpose ("error storm"); JSON-RPC 2.0 §5.1 asks for `-32700` with `id: null`, and a client whose request was cut waits for its timeout. Ask: answer it, rate-limited if need be |
//! | stdio: a request whose envelope or params name a field twice is dropped unanswered | `-32600`, with its id when readable | `screen` | `a_frame_with_a_repeated_field_gets_invalid_request_with_its_id_when_readable` (tests/mcp/stdio_hardening.rs) | the frame never reaches the handler and no answer carries its id; JSON-RPC asks for `-32600` with the id when it can be read |
//! | a message with a `method` and a `result` or `error` is read as a response and dropped | `-32600` | `screen::mixes_request_and_response`, over stdio and HTTP | `screen`'s unit tests; the `mcp_server` fuzz target | `JsonRpcMessage`'s untagged reading tries the response shape first, so `{"id":1,"method":"ping","result":{}}` is a response to nothing |
//! | HTTP: a body it cannot parse gets 415 and no JSON-RPC error | `-32700` / `-32600` a client can read | `envelope` (`Screened::read`, `NotJsonRpc`), in the guard | `a_body_that_is_not_json_gets_a_jsonrpc_parse_error`, `json_that_is_not_jsonrpc_gets_an_invalid_request_error` (tests/mcp/server_hardening.rs) | `transport/common/server_side_http.rs` `expect_json`: 415 is for a wrong `Content-Type`; a JSON body that does not parse is 400 with a JSON-RPC error |
//! | HTTP: a foreign `Host` or `Origin` gets 403 with a plain-text body | the same reason as a JSON-RPC error | [`forbidden`] | `a_foreign_origin_gets_403_with_a_jsonrpc_error_and_a_local_one_passes` (tests/mcp/server_peers.rs) | `streamable_http_server/tower.rs` `forbidden_response`: a plain-text body a JSON-RPC client cannot show |
//! | HTTP: a session `DELETE` is answered 202, which the official Python SDK reports as a failure | 204 | [`closed_session`] | `ending_a_session_answers_204_and_the_session_is_gone` (tests/mcp/server_hardening.rs) | `handle_delete` answers `accepted_response()` (202, "accepted for processing"), but the session is closed by then; 200/204 say so |
//! | a request whose params do not fit its method's type is read as a custom request: "method not found" | `-32602` saying what is wrong with the params; for a 2026-07-28 client, `initialize` and `ping` (removed methods) keep rmcp's `-32601` | `params` (`McpServer::on_custom_request`) | `tool_call_arguments_of_the_wrong_type_get_invalid_params` (tests/mcp/server_hardening.rs); `initialize_from_a_2026_client_is_a_method_it_no_longer_has` (tests/mcp/eras.rs) | `ClientRequest`'s untagged fallback reads `tools/call` with `arguments: [1]` as `CustomRequest`; for a known method it should be `-32602` (on 2026-07-28, that also turns an HTTP 404 into 200) |
//! | HTTP: a request whose envelope or params name a field twice is read as a custom request (`-32602`) | `-32600`, as over stdio, with its id when readable | `envelope` (`Screened::read`), in the guard | `a_call_naming_its_tool_twice_is_refused_alike_for_a_hidden_tool_and_a_missing_one` (tests/mcp/server_hardening.rs) | as the stdio row: serde keeps one of the two values, so what a proxy checked and what the server ran can differ |
//! | HTTP: a request reusing the id of one its session has in flight is never answered, nor is the first | `-32600` for the second at once; the first answered | `request_ids` (in the guard) | `concurrent_calls_reusing_an_id_in_a_session_get_invalid_request_and_the_first_completes` (tests/mcp/server_hardening.rs) | observed: neither request is answered; JSON-RPC leaves a reused id to the client's fault, but the first request should still be answered and the second refused |
//!
//! rmcp's 2026-07-28 path needs no fix here: `server/discover`, the per-request `_meta` check,
//! `-32022`, `Mcp-Method`/`Mcp-Name`, 405 on `GET`/`DELETE`, `resultType` and the cache hints'
//! defaults are all rmcp's own (tests/mcp/eras.rs holds them).
//!
//! MCP 2025-11-25 tasks are not served: rmcp models only the Tasks extension (SEP-2663), and
//! serving the older wire shape meant renaming requests before rmcp read them and rewriting the
//! `initialize` answer after. A handshake-era client sees no `tasks` capability and calls every
//! tool plainly (`a_2025_client_sees_no_tasks_and_calls_a_task_only_tool_plainly`,
//! tests/mcp/tasks.rs).
//!
//! `envelope` also reads the plain `tools/call` shape every client sends into borrowed fields,
//! a sixth of rmcp's full parse, so the guard can count calls and sessions; anything unusual is
//! read with rmcp's own type, so the guard accepts exactly what rmcp accepts.

pub(super) mod envelope;
pub(super) mod params;
pub(super) mod screen;

use axum::http::StatusCode;
use axum::response::Response;
use rmcp::model::ErrorCode;
use serde_json::Value;

use envelope::jsonrpc_error;

/// rmcp's 403 for a `Host` or `Origin` it does not accept, whose plain-text body a client
/// cannot read as JSON-RPC: the same reason, as a JSON-RPC error.
pub(super) async fn forbidden(response: Response, id: Value) -> Response {
    // rmcp's own sentence, a few dozen bytes; anything longer is not its refusal's.
    let reason = axum::body::to_bytes(response.into_body(), 1024)
        .await
        .ok()
        .and_then(|bytes| String::from_utf8(bytes.to_vec()).ok())
        .unwrap_or_else(|| "Forbidden".to_owned());
    jsonrpc_error(StatusCode::FORBIDDEN, id, ErrorCode(-32000), &reason)
}

/// rmcp's 202 to a session `DELETE`: the session is closed, so say so plainly (the Python SDK
/// accepts only 200 and 204).
pub(super) fn closed_session(response: &mut Response) {
    if response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
}
