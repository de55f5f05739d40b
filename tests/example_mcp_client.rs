//! `examples/mcp_client.rs` run as a user would, against the project's own example server over
//! stdio and over HTTP.
#![cfg(feature = "mcp")]

mod common;

use std::process::{Command, Output};

use common::mcp::{example_client, example_http_server, example_server};

fn client(args: &[&str]) -> Output {
    Command::new(example_client())
        .args(args)
        .env_remove("MCP_BEARER_TOKEN")
        .output()
        .expect("the client runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn listing_a_stdio_server_prints_each_tool_with_its_schema() {
    let server = example_server();
    let output = client(&[&server, "--stdio"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let expected_schema = serde_json::to_string_pretty(&serde_json::json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": false
    }))
    .unwrap();
    assert!(
        text.starts_with(&format!(
            "stats_word_count: Count whitespace-separated words\n{expected_schema}\n\n\
             stats_line_count: Count lines\n"
        )),
        "{text}"
    );
}

#[test]
fn calling_a_tool_over_stdio_prints_its_result() {
    let server = example_server();
    let output = client(&[
        "--call",
        "stats_word_count",
        r#"{"text": "one two three"}"#,
        &server,
        "--stdio",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "3\n");
}

#[test]
fn a_failing_call_prints_our_error_string_and_exits_with_1() {
    let server = example_server();
    let output = client(&[
        "--call",
        "stats_word_count",
        r#"{"txt": "a"}"#,
        &server,
        "--stdio",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.starts_with("Error: "), "{text}");
    assert!(text.contains("text"), "{text}");
}

#[test]
fn an_unknown_tool_names_the_ones_the_server_has() {
    let server = example_server();
    let output = client(&["--call", "nope", "{}", &server, "--stdio"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with(
            "mcp_client: no tool named nope; the server has: stats_word_count, stats_line_count"
        ),
        "{}",
        stderr(&output)
    );
}

#[test]
fn calling_a_tool_over_http_with_a_token_prints_its_result() {
    let (_server, url) = example_http_server(Some("s3cret"));
    let output = client(&[
        "--token",
        "s3cret",
        "--call",
        "stats_line_count",
        r#"{"text": "a\nb"}"#,
        &url,
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "2\n");
}

#[test]
fn an_http_server_refuses_the_client_without_its_token() {
    let (_server, url) = example_http_server(Some("s3cret"));
    let output = client(&[&url]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with("mcp_client: "),
        "{}",
        stderr(&output)
    );
    assert_eq!(stdout(&output), "");
}

#[test]
fn arguments_that_are_not_json_are_a_usage_error() {
    let output = client(&["--call", "stats_word_count", "{text", "unused"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with("mcp_client: the arguments are not JSON: "),
        "{}",
        stderr(&output)
    );
}
