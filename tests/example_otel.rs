//! `examples/otel.rs` run as a user would: offline, its spans exported through
//! `tracing-opentelemetry` with the GenAI conventions' names and attributes.

mod common;

use std::process::Command;

#[test]
fn the_otel_example_exports_invoke_agent_chat_and_execute_tool_spans() {
    let example = common::examples::build_example("otel", false);
    let output = Command::new(example).output().expect("the example runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "answer: Oslo: -3 °C and clear; pack a coat.");
    assert_eq!(lines[1], "invoke_agent [Internal]");
    for expected in [
        "    gen_ai.usage.input_tokens = 132",
        "    chat gpt-4o-mini [Client]",
        "        gen_ai.provider.name = openai",
        "        gen_ai.response.finish_reasons = [\"tool_call\"]",
        "    execute_tool weather [Internal]",
        "        gen_ai.tool.call.id = call_1",
    ] {
        assert!(lines.contains(&expected), "{expected} in {stdout}");
    }
    let chats = lines
        .iter()
        .filter(|l| l.trim() == "chat gpt-4o-mini [Client]");
    assert_eq!(chats.count(), 2, "{stdout}");
}
