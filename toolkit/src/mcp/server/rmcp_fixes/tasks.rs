//! MCP 2025-11-25 tasks past rmcp 3.11, which models the later tasks extension (SEP-2663):
//! its `tools/call` params drop `task`, it reads `tasks/get` and `tasks/cancel` as that
//! extension's (refused unless the client declares it), its tool type has no `execution`, and
//! its capabilities no `tasks`. So, before rmcp reads a message, [`rename`] gives each of
//! these requests a method of ours, which rmcp hands to `McpServer::on_custom_request` with
//! its params whole; and [`declare`] adds `tasks` to the capabilities of the `initialize`
//! answer on its way out. A request of MCP 2026-07-28 or later (its version in `_meta`) is
//! not renamed: rmcp reads the Tasks extension's requests as they are, and answers them through
//! `McpServer`'s task hooks (`task_calls.rs`).

use rmcp::model::ProtocolVersion;
use serde::Deserialize;
use serde_json::{Value, json};

/// Where a task-augmented `tools/call` goes.
pub(in crate::mcp::server) const CALL: &str = "toolkit/tasks/call";
/// Where `tools/list` goes when a tool may run as a task: its entries carry `execution`.
pub(in crate::mcp::server) const LIST_TOOLS: &str = "toolkit/tools/list";
/// The prefix of the `tasks/*` methods as renamed.
pub(in crate::mcp::server) const PREFIX: &str = "toolkit/";

/// The frame with its method renamed, or `None` when it goes to rmcp as it is. `tasks`: the
/// server runs tasks (else nothing is renamed, and rmcp answers as it would).
pub(in crate::mcp::server) fn rename(frame: &[u8], tasks: bool) -> Option<Vec<u8>> {
    // Most frames name no task: they pass without being parsed twice.
    if !tasks
        || !frame
            .windows(4)
            .any(|window| window == b"task" || window == b"ls/l")
    {
        return None;
    }
    let mut message: Value = serde_json::from_slice(frame).ok()?;
    let version = &message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"];
    if ProtocolVersion::deserialize(version).is_ok_and(|version| !version.has_initialize()) {
        return None;
    }
    let method = message.get("method")?.as_str()?;
    let renamed = match method {
        "tools/call" if message["params"]["task"].is_object() => CALL.to_owned(),
        "tools/list" => LIST_TOOLS.to_owned(),
        "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel" => format!("{PREFIX}{method}"),
        _ => return None,
    };
    message["method"] = Value::String(renamed);
    serde_json::to_vec(&message).ok()
}

/// The server's tasks capability (MCP 2025-11-25): tool calls as tasks, listed and cancelled.
pub(in crate::mcp::server) fn capability() -> Value {
    json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
}

/// An `initialize` answer (one JSON message) with `tasks` in its capabilities; `None` for any
/// other message.
pub(in crate::mcp::server) fn declare(message: &[u8]) -> Option<Vec<u8>> {
    let mut message: Value = serde_json::from_slice(message).ok()?;
    let result = message.get_mut("result")?;
    if result.get("serverInfo").is_none() || result.get("protocolVersion").is_none() {
        return None;
    }
    result
        .get_mut("capabilities")?
        .as_object_mut()?
        .insert("tasks".into(), capability());
    serde_json::to_vec(&message).ok()
}

/// An SSE body (or a JSON one) whose `initialize` answer declares tasks ([`declare`]).
pub(in crate::mcp::server) fn declare_in_body(body: &[u8]) -> Option<Vec<u8>> {
    if let Some(declared) = declare(body) {
        return Some(declared);
    }
    let text = std::str::from_utf8(body).ok()?;
    let mut changed = false;
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| match line.strip_prefix("data:") {
            Some(data) => match declare(data.trim_start().as_bytes()) {
                Some(declared) => {
                    changed = true;
                    format!("data: {}", String::from_utf8_lossy(&declared))
                }
                None => line.to_owned(),
            },
            None => line.to_owned(),
        })
        .collect();
    changed.then(|| lines.join("\n").into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renamed(frame: Value) -> Option<Value> {
        let bytes = serde_json::to_vec(&frame).unwrap();
        rename(&bytes, true).map(|bytes| serde_json::from_slice(&bytes).unwrap())
    }

    #[test]
    fn only_task_requests_and_the_listing_of_older_clients_are_renamed() {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "slow", "task": {"ttl": 1000}}});
        assert_eq!(renamed(call).unwrap()["method"], CALL);
        let plain = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "slow", "arguments": {"task": "x"}}});
        assert_eq!(renamed(plain), None);
        let get =
            json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"taskId": "a"}});
        assert_eq!(renamed(get).unwrap()["method"], "toolkit/tasks/get");
        let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
        assert_eq!(renamed(list).unwrap()["method"], LIST_TOOLS);
        let bytes = br#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;
        assert_eq!(rename(bytes, false), None);
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        let of_2026 = json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/get",
                             "params": {"taskId": "a", "_meta": meta}});
        assert_eq!(renamed(of_2026), None);
    }

    #[test]
    fn the_initialize_answer_declares_tasks_in_json_and_in_sse() {
        let answer = json!({"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-11-25", "serverInfo": {"name": "t", "version": "1"},
            "capabilities": {"tools": {}}}});
        let json_body = serde_json::to_vec(&answer).unwrap();
        let declared: Value =
            serde_json::from_slice(&declare_in_body(&json_body).unwrap()).unwrap();
        assert_eq!(declared["result"]["capabilities"]["tasks"], capability());
        let sse = format!("id: 0\ndata: {answer}\n\n");
        let declared = String::from_utf8(declare_in_body(sse.as_bytes()).unwrap()).unwrap();
        assert!(declared.starts_with("id: 0\ndata: {"), "{declared}");
        assert!(declared.contains(r#""tasks":{"#), "{declared}");
        assert_eq!(
            declare_in_body(b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"),
            None
        );
    }
}
