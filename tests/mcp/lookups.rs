//! How many times the server looks a `tools/call`'s tool up by name (once, plain or as a task),
//! and how many times the HTTP guard reads its body (once, before rmcp's own parse).
//!
//! Checked on the source, as `scripts/structure-check` checks a call's hops: a lookup leaves no
//! trace a test could observe (each finds the same tool), so a counting test would need a probe
//! in the toolbox that production code does not carry. The walk reads each function on the
//! way, from rmcp's `call_tool` (and the task start) to the toolbox's core, and counts the
//! calls that find a tool by name.

/// The body of `fn name` in `source`: from its signature to the first line that closes it at
/// the signature's indentation.
fn body<'a>(source: &'a str, name: &str) -> &'a str {
    let signature = format!("fn {name}");
    let start = (source.match_indices(&signature))
        .map(|(at, _)| at)
        .find(|&at| source[at + signature.len()..].starts_with(['(', '<']))
        .unwrap_or_else(|| panic!("no fn {name}"));
    let line_start = source[..start].rfind('\n').map_or(0, |at| at + 1);
    let indent = source[line_start..]
        .chars()
        .take_while(|c| *c == ' ')
        .count();
    let close = format!("\n{}}}", " ".repeat(indent));
    let end = source[start..]
        .find(&close)
        .unwrap_or_else(|| panic!("fn {name} does not close"));
    &source[start..start + end]
}

/// The calls in `code` that find a tool by name, of each kind, in order of the list.
fn lookups(code: &str) -> [usize; 5] {
    [".get(", "lookup(", ".resolve(", ".acall(", "index_of("].map(|call| code.matches(call).count())
}

#[test]
fn an_mcp_tools_call_is_looked_up_once() {
    let handler = include_str!("../../toolkit/src/mcp/server/handler.rs");
    let server = include_str!("../../toolkit/src/mcp/server/mod.rs");
    let tasks = include_str!("../../toolkit/src/mcp/server/task_runs.rs");
    let resolved = include_str!("../../toolkit-runtime/src/toolbox/resolved.rs");
    let dispatch = include_str!("../../toolkit-runtime/src/toolbox/dispatch.rs");
    // rmcp's `tools/call`, a 2026-07-28 task too: one `resolve`, which is the one lookup; a
    // task runs on the tool found.
    assert_eq!(lookups(body(handler, "call_tool")), [0, 0, 1, 0, 0]);
    assert_eq!(lookups(body(tasks, "call_as_task")), [0, 0, 0, 0, 0]);
    assert_eq!(lookups(body(tasks, "run_task")), [0, 0, 0, 0, 0]);
    assert_eq!(lookups(body(server, "resolve")), [0, 1, 0, 0, 0]);
    // The call itself runs on the tool found, through the toolbox's door and its core.
    let call = body(server, "call");
    assert_eq!(lookups(call), [0, 0, 0, 0, 0]);
    assert!(call.contains("toolbox.acall_tool(tool, call)"), "{call}");
    let door = body(resolved, "acall_tool");
    assert_eq!(lookups(door), [0, 0, 0, 0, 0]);
    assert!(
        door.contains("self.adispatch(call, None, None, found)"),
        "{door}"
    );
    // The core takes the tool its door found, and runs it.
    assert_eq!(lookups(body(dispatch, "adispatch")), [0, 0, 0, 0, 0]);
    assert_eq!(lookups(body(dispatch, "run")), [0, 0, 0, 0, 0]);
}

#[test]
fn a_plain_tools_call_with_scoped_tools_is_parsed_by_the_guard_once_before_rmcp() {
    let guard = include_str!("../../toolkit/src/mcp/server/guard.rs");
    let bearer = include_str!("../../toolkit/src/mcp/server/bearer.rs");
    // The guard's one read of the frame names the tool, and the scope check takes that name.
    let screen = body(guard, "screen");
    assert_eq!(screen.matches("Screened::read(").count(), 1, "{screen}");
    assert!(screen.contains("bearer.authorize_call(caller, tool, &id, &parts.headers)"));
    let authorize = body(bearer, "authorize_call");
    assert_eq!(authorize.matches("from_slice").count(), 0, "{authorize}");
}
